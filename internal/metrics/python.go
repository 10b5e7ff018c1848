package metrics

import "github.com/benchforge/benchforge/internal/code"

// pythonBranches add one to cyclomatic complexity each.
var pythonBranches = map[string]bool{
	"if_statement": true, "elif_clause": true, "for_statement": true, "while_statement": true,
	"except_clause": true, "except_group_clause": true, "conditional_expression": true,
	"boolean_operator": true, "for_in_clause": true, "if_clause": true,
}

// pythonNesting are the control structures MaxNesting counts.
var pythonNesting = map[string]bool{
	"if_statement": true, "for_statement": true, "while_statement": true,
	"try_statement": true, "with_statement": true, "match_statement": true,
}

func pythonTree(f *code.File, root int, m *Method) {
	nodes := f.Nodes()
	cyc := 1
	var nest nester
	c := &m.Constructs
	docs := map[int]bool{}
	for i := root; i < nodes[root].End; i++ {
		n := &nodes[i]
		nest.at(i)
		if pythonNesting[n.Kind] {
			nest.open(n.End)
		}
		if pythonBranches[n.Kind] {
			cyc++
		}
		if n.Kind == "block" {
			// The first statement of a def/class body that is a lone string
			// is a docstring, not a logical line.
			if p := n.Parent; p >= 0 && (nodes[p].Kind == "function_definition" || nodes[p].Kind == "class_definition") {
				for s := range f.Children(i) {
					if nodes[s].Kind != "comment" {
						if isStringStatement(f, s) {
							docs[s] = true
						}
						break
					}
				}
			}
		}
		if i != root && n.Named && n.Kind != "comment" && n.Parent >= 0 && nodes[n.Parent].Kind == "block" && !docs[i] {
			m.Metrics.LLOC++
		}
		switch n.Kind {
		case "case_clause":
			if !wildcardCase(f, i) {
				cyc++
			}
		case "none":
			c.NullLiterals++
		case "comparison_operator":
			for o := range f.Children(i) {
				if nodes[o].Field != "operators" {
					continue
				}
				switch nodes[o].Kind {
				case "==":
					c.EqualityChecks++
					c.EqualsCalls++
				case "is":
					c.EqualityChecks++
				case "!=", "is not":
					c.InequalityChecks++
				}
			}
		case "call":
			switch fn := f.ChildByField(i, "function"); {
			case fn < 0:
			case f.Text(fn) == "isinstance":
				c.InstanceOf++
			case f.Text(fn) == "cast", f.Text(fn) == "typing.cast":
				c.Casts++
			}
		case "subscript":
			c.ArrayAccesses++
		case "try_statement":
			c.Try++
		case "except_clause", "except_group_clause":
			c.Catch++
		case "raise_statement":
			c.Throw++
		case "return_statement":
			if j := i + 1; j+1 == n.End && nodes[j].Kind == "return" {
				break // bare return
			}
			if last := n.End - 1; nodes[last].Kind == "none" && nodes[last].Parent == i {
				c.ReturnNull++
			}
		case "binary_operator":
			switch operator(f, i) {
			case "/", "//":
				c.Division++
			case "%":
				if l := f.ChildByField(i, "left"); l < 0 ||
					nodes[l].Kind != "string" && nodes[l].Kind != "concatenated_string" {
					c.Modulo++
				}
			}
		case "augmented_assignment":
			switch operator(f, i) {
			case "/=", "//=":
				c.Division++
			case "%=":
				c.Modulo++
			}
		}
	}
	m.Metrics.Cyclomatic = cyc
	m.Metrics.MaxNesting = nest.max
}

func isStringStatement(f *code.File, i int) bool {
	nodes := f.Nodes()
	if nodes[i].Kind != "expression_statement" {
		return false
	}
	n := 0
	for c := range f.Children(i) {
		if k := nodes[c].Kind; k != "string" && k != "concatenated_string" {
			return false
		}
		n++
	}
	return n == 1
}

// wildcardCase reports whether case clause i is "case _:" (the default).
func wildcardCase(f *code.File, i int) bool {
	for c := range f.Children(i) {
		if f.Nodes()[c].Kind == "case_pattern" {
			return f.Text(c) == "_"
		}
	}
	return false
}
