package metrics

import "github.com/benchforge/benchforge/internal/code"

// javaKinds are the node kinds javaTree counts, one lookup per node:
// statement marks the kinds LLOC counts (see package doc), branch those
// that add one to cyclomatic complexity, nesting the control structures
// MaxNesting counts, and tally or count the constructs.
var javaKinds = map[string]kindRule{
	"local_variable_declaration":      {statement: true},
	"expression_statement":            {statement: true},
	"if_statement":                    {statement: true, branch: true, nesting: true},
	"for_statement":                   {statement: true, branch: true, nesting: true},
	"enhanced_for_statement":          {statement: true, branch: true, nesting: true},
	"while_statement":                 {statement: true, branch: true, nesting: true},
	"do_statement":                    {statement: true, branch: true, nesting: true},
	"return_statement":                {statement: true, count: javaReturn},
	"throw_statement":                 {statement: true, tally: throws},
	"break_statement":                 {statement: true},
	"continue_statement":              {statement: true},
	"yield_statement":                 {statement: true},
	"try_statement":                   {statement: true, nesting: true, tally: tries},
	"try_with_resources_statement":    {statement: true, nesting: true, tally: tries},
	"synchronized_statement":          {statement: true, nesting: true},
	"labeled_statement":               {statement: true},
	"assert_statement":                {statement: true},
	"explicit_constructor_invocation": {statement: true},
	"switch_expression":               {nesting: true},
	"catch_clause":                    {branch: true, tally: catches},
	"ternary_expression":              {branch: true},
	"switch_label":                    {count: javaSwitchLabel},
	"binary_expression":               {count: javaBinary},
	"assignment_expression":           {count: javaAssignment},
	"null_literal":                    {tally: nullLiterals},
	"instanceof_expression":           {tally: instanceOfs},
	"cast_expression":                 {tally: casts},
	"array_access":                    {tally: arrayAccesses},
	"method_invocation":               {count: javaInvocation},
}

func javaTree(f *code.File, root int, m *Method) {
	nodes := f.Nodes()
	cyc := 1
	var nest nester
	for i := root; i < nodes[root].End(); i++ {
		n := &nodes[i]
		nest.at(i)
		r := javaKinds[n.Kind()]
		// An else-if is one level with its if; a for loop's init is part
		// of the loop's statement.
		if r.nesting && !(n.Kind() == "if_statement" && n.Field() == "alternative") {
			nest.open(n.End())
		}
		if r.statement && !(n.Kind() == "local_variable_declaration" && n.Field() == "init") {
			m.Metrics.LLOC++
		}
		cyc += r.apply(f, i, &m.Constructs)
	}
	m.Metrics.Cyclomatic = cyc
	m.Metrics.MaxNesting = nest.max
}

// javaSwitchLabel adds one for a "case" label (not "default").
func javaSwitchLabel(f *code.File, i int, _ *Constructs) int {
	nodes := f.Nodes()
	if first := i + 1; first < nodes[i].End() && nodes[first].Kind() == "case" {
		return 1
	}
	return 0
}

// javaBinary adds one for a short-circuit operator and counts the
// comparison and arithmetic constructs.
func javaBinary(f *code.File, i int, c *Constructs) int {
	switch operator(f, i) {
	case "&&", "||":
		return 1
	case "==":
		c.EqualityChecks++
	case "!=":
		c.InequalityChecks++
	case "/":
		c.Division++
	case "%":
		c.Modulo++
	}
	return 0
}

func javaAssignment(f *code.File, i int, c *Constructs) int {
	switch operator(f, i) {
	case "/=":
		c.Division++
	case "%=":
		c.Modulo++
	}
	return 0
}

func javaReturn(f *code.File, i int, c *Constructs) int {
	if returnsNull(f.Nodes(), i) {
		c.ReturnNull++
	}
	return 0
}

func javaInvocation(f *code.File, i int, c *Constructs) int {
	if nm := f.ChildByField(i, "name"); nm >= 0 && f.Text(nm) == "equals" {
		c.EqualsCalls++
	}
	return 0
}

// returnsNull reports whether return statement i returns a (possibly
// parenthesised) null literal.
func returnsNull(nodes []code.Node, i int) bool {
	for j := i + 1; j < nodes[i].End(); j++ {
		switch nodes[j].Kind() {
		case "return", "(", ")", "parenthesized_expression":
			continue
		case "null_literal":
			return true
		}
		return false
	}
	return false
}
