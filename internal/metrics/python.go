package metrics

import "github.com/benchforge/benchforge/internal/code"

// pythonKinds are the node kinds pythonTree counts, one lookup per node:
// branch marks the kinds that add one to cyclomatic complexity, nesting
// the control structures MaxNesting counts, and tally or count the
// constructs.
var pythonKinds = map[string]kindRule{
	"if_statement":           {branch: true, nesting: true},
	"elif_clause":            {branch: true},
	"for_statement":          {branch: true, nesting: true},
	"while_statement":        {branch: true, nesting: true},
	"except_clause":          {branch: true, tally: catches},
	"except_group_clause":    {branch: true, tally: catches},
	"conditional_expression": {branch: true},
	"boolean_operator":       {branch: true},
	"for_in_clause":          {branch: true},
	"if_clause":              {branch: true},
	"try_statement":          {nesting: true, tally: tries},
	"with_statement":         {nesting: true},
	"match_statement":        {nesting: true},
	"case_clause":            {count: pythonCase},
	"none":                   {tally: nullLiterals},
	"comparison_operator":    {count: pythonComparison},
	"call":                   {count: pythonCall},
	"subscript":              {tally: arrayAccesses},
	"raise_statement":        {tally: throws},
	"return_statement":       {count: pythonReturn},
	"binary_operator":        {count: pythonBinary},
	"augmented_assignment":   {count: pythonAugmented},
}

func pythonTree(f *code.File, root int, m *Method) {
	nodes := f.Nodes()
	cyc := 1
	var nest nester
	docs := map[int]bool{}
	for i := root; i < nodes[root].End(); i++ {
		n := &nodes[i]
		nest.at(i)
		r := pythonKinds[n.Kind()]
		if r.nesting {
			nest.open(n.End())
		}
		if n.Kind() == "block" {
			markDocstring(f, i, docs)
		}
		if i != root && pythonStatement(nodes, i) && !docs[i] {
			m.Metrics.LLOC++
		}
		cyc += r.apply(f, i, &m.Constructs)
	}
	m.Metrics.Cyclomatic = cyc
	m.Metrics.MaxNesting = nest.max
}

// markDocstring marks in docs the first statement of block i when the
// block is a def/class body and that statement is a lone string: a
// docstring, not a logical line.
func markDocstring(f *code.File, i int, docs map[int]bool) {
	nodes := f.Nodes()
	p := nodes[i].Parent()
	if p < 0 || nodes[p].Kind() != "function_definition" && nodes[p].Kind() != "class_definition" {
		return
	}
	for s := range f.Children(i) {
		if nodes[s].Kind() != "comment" {
			if isStringStatement(f, s) {
				docs[s] = true
			}
			return
		}
	}
}

// pythonStatement reports whether node i is a statement of a block, the
// logical lines LLOC counts.
func pythonStatement(nodes []code.Node, i int) bool {
	n := &nodes[i]
	return n.Named() && n.Kind() != "comment" && n.Parent() >= 0 && nodes[n.Parent()].Kind() == "block"
}

// pythonCase adds one for a case clause other than "case _:".
func pythonCase(f *code.File, i int, _ *Constructs) int {
	if wildcardCase(f, i) {
		return 0
	}
	return 1
}

// pythonComparison counts the operators of a (possibly chained)
// comparison; "==" is Python's equals call too.
func pythonComparison(f *code.File, i int, c *Constructs) int {
	nodes := f.Nodes()
	for o := range f.Children(i) {
		if nodes[o].Field() != "operators" {
			continue
		}
		switch nodes[o].Kind() {
		case "==":
			c.EqualityChecks++
			c.EqualsCalls++
		case "is":
			c.EqualityChecks++
		case "!=", "is not":
			c.InequalityChecks++
		}
	}
	return 0
}

// pythonCall counts isinstance checks and typing casts.
func pythonCall(f *code.File, i int, c *Constructs) int {
	switch fn := f.ChildByField(i, "function"); {
	case fn < 0:
	case f.Text(fn) == "isinstance":
		c.InstanceOf++
	case f.Text(fn) == "cast", f.Text(fn) == "typing.cast":
		c.Casts++
	}
	return 0
}

// pythonReturn counts "return None"; a bare return is not one.
func pythonReturn(f *code.File, i int, c *Constructs) int {
	nodes := f.Nodes()
	n := &nodes[i]
	if j := i + 1; j+1 == n.End() && nodes[j].Kind() == "return" {
		return 0 // bare return
	}
	if last := n.End() - 1; nodes[last].Kind() == "none" && nodes[last].Parent() == i {
		c.ReturnNull++
	}
	return 0
}

// pythonBinary counts divisions and modulos; "%" on a string literal is
// formatting, not a modulo.
func pythonBinary(f *code.File, i int, c *Constructs) int {
	nodes := f.Nodes()
	switch operator(f, i) {
	case "/", "//":
		c.Division++
	case "%":
		if l := f.ChildByField(i, "left"); l < 0 ||
			nodes[l].Kind() != "string" && nodes[l].Kind() != "concatenated_string" {
			c.Modulo++
		}
	}
	return 0
}

func pythonAugmented(f *code.File, i int, c *Constructs) int {
	switch operator(f, i) {
	case "/=", "//=":
		c.Division++
	case "%=":
		c.Modulo++
	}
	return 0
}

func isStringStatement(f *code.File, i int) bool {
	nodes := f.Nodes()
	if nodes[i].Kind() != "expression_statement" {
		return false
	}
	n := 0
	for c := range f.Children(i) {
		if k := nodes[c].Kind(); k != "string" && k != "concatenated_string" {
			return false
		}
		n++
	}
	return n == 1
}

// wildcardCase reports whether case clause i is "case _:" (the default).
func wildcardCase(f *code.File, i int) bool {
	for c := range f.Children(i) {
		if f.Nodes()[c].Kind() == "case_pattern" {
			return f.Text(c) == "_"
		}
	}
	return false
}
