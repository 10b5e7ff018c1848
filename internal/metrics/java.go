package metrics

import "github.com/benchforge/benchforge/internal/code"

// javaStatements are the statement kinds LLOC counts (see package doc).
var javaStatements = map[string]bool{
	"local_variable_declaration": true, "expression_statement": true, "if_statement": true,
	"for_statement": true, "enhanced_for_statement": true, "while_statement": true,
	"do_statement": true, "return_statement": true, "throw_statement": true,
	"break_statement": true, "continue_statement": true, "yield_statement": true,
	"try_statement": true, "try_with_resources_statement": true,
	"synchronized_statement": true, "labeled_statement": true, "assert_statement": true,
	"explicit_constructor_invocation": true,
}

// javaBranches add one to cyclomatic complexity each.
var javaBranches = map[string]bool{
	"if_statement": true, "for_statement": true, "enhanced_for_statement": true,
	"while_statement": true, "do_statement": true, "catch_clause": true, "ternary_expression": true,
}

// javaNesting are the control structures MaxNesting counts.
var javaNesting = map[string]bool{
	"if_statement": true, "for_statement": true, "enhanced_for_statement": true,
	"while_statement": true, "do_statement": true, "switch_expression": true,
	"try_statement": true, "try_with_resources_statement": true, "synchronized_statement": true,
}

func javaTree(f *code.File, root int, m *Method) {
	nodes := f.Nodes()
	cyc := 1
	var nest nester
	c := &m.Constructs
	for i := root; i < nodes[root].End; i++ {
		n := &nodes[i]
		nest.at(i)
		if javaNesting[n.Kind] && !(n.Kind == "if_statement" && n.Field == "alternative") {
			nest.open(n.End)
		}
		if javaStatements[n.Kind] && !(n.Kind == "local_variable_declaration" && n.Field == "init") {
			m.Metrics.LLOC++
		}
		if javaBranches[n.Kind] {
			cyc++
		}
		switch n.Kind {
		case "switch_label":
			if first := i + 1; first < n.End && nodes[first].Kind == "case" {
				cyc++
			}
		case "binary_expression":
			switch operator(f, i) {
			case "&&", "||":
				cyc++
			case "==":
				c.EqualityChecks++
			case "!=":
				c.InequalityChecks++
			case "/":
				c.Division++
			case "%":
				c.Modulo++
			}
		case "assignment_expression":
			switch operator(f, i) {
			case "/=":
				c.Division++
			case "%=":
				c.Modulo++
			}
		case "null_literal":
			c.NullLiterals++
		case "instanceof_expression":
			c.InstanceOf++
		case "cast_expression":
			c.Casts++
		case "array_access":
			c.ArrayAccesses++
		case "try_statement", "try_with_resources_statement":
			c.Try++
		case "catch_clause":
			c.Catch++
		case "throw_statement":
			c.Throw++
		case "return_statement":
			if returnsNull(nodes, i) {
				c.ReturnNull++
			}
		case "method_invocation":
			if nm := f.ChildByField(i, "name"); nm >= 0 && f.Text(nm) == "equals" {
				c.EqualsCalls++
			}
		}
	}
	m.Metrics.Cyclomatic = cyc
	m.Metrics.MaxNesting = nest.max
}

// returnsNull reports whether return statement i returns a (possibly
// parenthesised) null literal.
func returnsNull(nodes []code.Node, i int) bool {
	for j := i + 1; j < nodes[i].End; j++ {
		switch nodes[j].Kind {
		case "return", "(", ")", "parenthesized_expression":
			continue
		case "null_literal":
			return true
		}
		return false
	}
	return false
}
