package patchcheck

import (
	"regexp"
	"slices"
	"strings"

	"github.com/benchforge/benchforge/internal/code"
)

// This file reads a function's facts as its logic rather than its
// spelling (issue 13 item 4: behaviour-neutral rewrites). Three rewrites
// keep a fix's logic while removing the facts its lines wrote, so the
// facts of the buggy and the descendant functions are read through them:
//
//   - a guard inverted into an early exit (`if (x != null) {…}` become
//     `return x == null ? EMPTY : x;`, jackson-core's getTextBuffer): a
//     comparison states its negation too;
//   - Extract Constant (`ch0 == '_'` become `ch0 == UNDERSCORE`, Lang's
//     LocaleUtils.toLocale): a name of one of the file's constants states
//     the literals of its value, and a comparison against it states the
//     comparison against that value;
//   - a null-safe helper (`a == null ? b == null : a.equals(b)` become
//     `Objects.equals(a, b)`, Compress's ZipArchiveEntry.equals): its call
//     states the null checks of its arguments.
//
// Two more readings hold on both sides, the fix's facts included: a Java
// case label is a comparison (eachComparison), and a literal's format
// fields read as {} (fieldsRead). So what the bug already stated in other
// words is no evidence of the fix either.

// readFacts are the facts of the subtrees of f at roots (factsOf), with
// what the rewrites above state.
func readFacts(f *code.File, roots []int) factSet {
	out := factsOf(f, roots)
	consts := fileConstants(f)
	nodes := f.Nodes()
	var rels [][3]string // op, left head, right head
	for _, r := range roots {
		for i := r; i < nodes[r].End(); i++ {
			if nodes[i].Kind() == "identifier" {
				for _, v := range consts[f.Text(i)].lits {
					addLit(func(s string) { out[s] = true }, v)
				}
			}
			eachComparison(f, i, func(op string, l, r int) {
				lh, rh := head(f, l), head(f, r)
				rels = append(rels, [3]string{op, lh, rh})
				if c := consts[lh]; c.single {
					rels = append(rels, [3]string{op, c.lits[0], rh})
				}
				if c := consts[rh]; c.single {
					rels = append(rels, [3]string{op, lh, c.lits[0]})
				}
			})
			for _, a := range nullSafeArgs(f, i) {
				rels = append(rels, [3]string{"==", head(f, a), "null"})
			}
		}
	}
	for _, r := range rels {
		for _, op := range []string{r[0], negations[r[0]]} {
			if s := relation(op, r[1], r[2]); s != "" {
				out[s] = true
			}
		}
	}
	return out
}

// negations are the comparison operators' negations, in source form
// (relation canonicalises them).
var negations = map[string]string{"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">",
	"is": "is not", "is not": "is", "in": "not in", "not in": "in"}

// eachComparison calls fn with the operator and operand nodes of each
// comparison node i makes (a Python chain makes one per neighbouring
// pair; a Java case label compares the switch's value with its own, as
// the `else if (c == ',')` it may have been: jsoup's QueryParser).
func eachComparison(f *code.File, i int, fn func(op string, l, r int)) {
	switch f.Nodes()[i].Kind() {
	case "switch_label":
		if sw := switchOf(f, i); sw >= 0 {
			for c := range f.Children(i) {
				if f.Nodes()[c].Named() {
					fn("==", sw, c)
				}
			}
		}
	case "binary_expression", "binary_operator":
		op := childText(f, i, "operator")
		l, r := f.ChildByField(i, "left"), f.ChildByField(i, "right")
		if _, ok := cmpOps[op]; ok && l >= 0 && r >= 0 {
			fn(op, l, r)
		}
	case "comparison_operator":
		var ops, operands []int
		for c := range f.Children(i) {
			if f.Nodes()[c].Field() == "operators" {
				ops = append(ops, c)
			} else if f.Nodes()[c].Named() {
				operands = append(operands, c)
			}
		}
		for k, o := range ops {
			if k+1 < len(operands) {
				fn(strings.Join(strings.Fields(f.Text(o)), " "), operands[k], operands[k+1])
			}
		}
	}
}

// switchOf is the value node of the switch case label i belongs to, or
// -1.
func switchOf(f *code.File, i int) int {
	nodes := f.Nodes()
	for p := nodes[i].Parent(); p >= 0; p = nodes[p].Parent() {
		switch nodes[p].Kind() {
		case "switch_expression", "switch_statement":
			return f.ChildByField(p, "condition")
		case "switch_block_statement_group", "switch_rule", "switch_block":
			continue
		}
		return -1
	}
	return -1
}

// constant is a constant's value: its literals, and whether it is one
// literal (then it stands for that literal in a comparison).
type constant struct {
	lits   []string
	single bool
}

// fileConstants are the constants f declares with a value made of
// literals only: Java fields declared final, Python module or class
// assignments to an upper-case name.
func fileConstants(f *code.File) map[string]constant {
	out := map[string]constant{}
	nodes := f.Nodes()
	for i := range nodes {
		switch nodes[i].Kind() {
		case "field_declaration":
			if !finalField(f, i) {
				continue
			}
			for d := range f.Children(i) {
				if nodes[d].Kind() == "variable_declarator" {
					addConstant(f, out, childText(f, d, "name"), f.ChildByField(d, "value"))
				}
			}
		case "assignment":
			if name := childText(f, i, "left"); pyConstName.MatchString(name) && topLevel(f, i) {
				addConstant(f, out, name, f.ChildByField(i, "right"))
			}
		}
	}
	return out
}

var pyConstName = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// finalField: field declaration i is final.
func finalField(f *code.File, i int) bool {
	for c := range f.Children(i) {
		if f.Nodes()[c].Kind() == "modifiers" && slices.Contains(strings.Fields(f.Text(c)), "final") {
			return true
		}
	}
	return false
}

// topLevel: Python assignment i is a statement of a module or of a class
// body.
func topLevel(f *code.File, i int) bool {
	nodes := f.Nodes()
	st := nodes[i].Parent()
	if st < 0 || nodes[st].Kind() != "expression_statement" {
		return false
	}
	p := nodes[st].Parent()
	if p >= 0 && nodes[p].Kind() == "block" {
		p = nodes[p].Parent()
		return p >= 0 && nodes[p].Kind() == "class_definition"
	}
	return p >= 0 && nodes[p].Kind() == "module"
}

// addConstant records name's value v when v is made of literals only.
func addConstant(f *code.File, out map[string]constant, name string, v int) {
	if name == "" || v < 0 {
		return
	}
	nodes := f.Nodes()
	var lits []string
	for j := v; j < nodes[v].End(); j++ {
		switch k := nodes[j].Kind(); {
		case litKinds[k]:
			lits = append(lits, litValue(f, j))
			j = nodes[j].End() - 1 // a string's pieces are not literals of their own
		case k == "identifier" || k == "method_invocation" || k == "call" || k == "interpolation" || k == "field_access" || k == "attribute":
			return
		}
	}
	if len(lits) > 0 {
		out[name] = constant{lits: lits, single: litKinds[nodes[v].Kind()]}
	}
}

// nullSafeCalls are helpers that test arguments for null, by receiver
// and name: the positions of the arguments tested.
var nullSafeCalls = map[string][]int{
	"Objects.equals": {0, 1}, "Objects.deepEquals": {0, 1}, "Objects.isNull": {0}, "Objects.nonNull": {0},
	"Objects.requireNonNull": {0}, "Objects.requireNonNullElse": {0}, "Objects.toString": {0}, "Objects.hashCode": {0},
}

// nullSafeArgs are the argument nodes call i tests for null, when it is a
// call of a nullSafeCalls helper.
func nullSafeArgs(f *code.File, i int) []int {
	if f.Nodes()[i].Kind() != "method_invocation" {
		return nil
	}
	obj := childText(f, i, "object")
	obj = obj[strings.LastIndexByte(obj, '.')+1:]
	pos := nullSafeCalls[obj+"."+childText(f, i, "name")]
	if pos == nil {
		return nil
	}
	var args []int
	if a := f.ChildByField(i, "arguments"); a >= 0 {
		for c := range f.Children(a) {
			if f.Nodes()[c].Named() {
				args = append(args, c)
			}
		}
	}
	var out []int
	for _, p := range pos {
		if p < len(args) {
			out = append(out, args[p])
		}
	}
	return out
}

// formatField matches a format placeholder: Python's {}, {0}, {name!r:>8}
// and printf's %s, %5.2f. A literal's fields are named, numbered or bare
// in turn (positional become named fields, % become str.format), so a
// literal fact keeps its fixed text with every field read as {}.
var formatField = regexp.MustCompile(`\{[A-Za-z0-9_.\[\]]*(![rsa])?(:[^{}]*)?\}|%[-#0 +]*[0-9]*(\.[0-9]+)?[sdrifxXeEgGc]`)

func fieldsRead(s string) string {
	if !strings.ContainsAny(s, "{%") {
		return s
	}
	return formatField.ReplaceAllString(s, "{}")
}

// readExamples pin the reading rules above (TestFactExamples enforces
// them with factExamples).
var readExamples = []factExample{
	{
		Name: "java guard inverted into an early exit", Path: "B.java",
		Buggy: "class B {\n  char[] seg;\n  char[] text() {\n    return seg;\n  }\n}\n",
		Fixed: "class B {\n  char[] seg;\n  char[] text() {\n    if (seg != null) {\n      return seg;\n    }\n    return new char[0];\n  }\n}\n",
		Facts: []string{"cmp:null != seg", "guard:seg"},
		MustMatch: []string{
			"class B {\n  char[] seg;\n  char[] text() {\n    return (seg == null) ? new char[0] : seg;\n  }\n}\n",
		},
		MustNotMatch: []string{
			// the guard gone: an empty array whatever seg holds
			"class B {\n  char[] seg;\n  char[] text() {\n    return new char[0];\n  }\n}\n",
		},
	},
	{
		Name: "java literal extracted into a constant", Path: "L.java",
		Buggy: "class L {\n  int kind(String s) {\n    char c = s.charAt(0);\n    return 0;\n  }\n}\n",
		Fixed: "class L {\n  int kind(String s) {\n    char c = s.charAt(0);\n    if (c == '_') {\n      return 2;\n    }\n    return 0;\n  }\n}\n",
		Facts: []string{"cmp:_ == c", "lit:2", "lit:_"},
		MustMatch: []string{
			"class L {\n  private static final char UNDERSCORE = '_';\n  int kind(String s) {\n    char c = s.charAt(0);\n    if (c == UNDERSCORE) {\n      return 2;\n    }\n    return 0;\n  }\n}\n",
		},
		MustNotMatch: []string{
			// a constant of another value
			"class L {\n  private static final char UNDERSCORE = '-';\n  int kind(String s) {\n    char c = s.charAt(0);\n    if (c == UNDERSCORE) {\n      return 2;\n    }\n    return 0;\n  }\n}\n",
			// a field that is not final may hold anything
			"class L {\n  private static char UNDERSCORE = '_';\n  int kind(String s) {\n    char c = s.charAt(0);\n    if (c == UNDERSCORE) {\n      return 2;\n    }\n    return 0;\n  }\n}\n",
		},
	},
	{
		Name: "python literal extracted into a constant", Path: "k.py",
		Buggy: "def kind(s):\n    return 0\n",
		Fixed: "def kind(s):\n    if s == '0x':\n        return 16\n    return 0\n",
		Facts: []string{"cmp:0x == s", "lit:0x", "lit:16"},
		MustMatch: []string{
			"HEX = '0x'\n\n\ndef kind(s):\n    if s == HEX:\n        return 16\n    return 0\n",
		},
		MustNotMatch: []string{
			// a lower-case name is no constant by convention
			"hex = '0x'\n\n\ndef kind(s):\n    if s == hex:\n        return 16\n    return 0\n",
		},
	},
	{
		Name: "java null-safe equality", Path: "E.java",
		Buggy: "class E {\n  String a;\n  boolean same(E o) {\n    if (!a.equals(o.a)) {\n      return false;\n    }\n    return true;\n  }\n}\n",
		Fixed: "class E {\n  String a;\n  boolean same(E o) {\n    if (a == null) {\n      if (o.a != null) {\n        return false;\n      }\n    } else if (!a.equals(o.a)) {\n      return false;\n    }\n    return true;\n  }\n}\n",
		Facts: []string{"cmp:a != null", "cmp:a == null"},
		MustMatch: []string{
			"class E {\n  String a;\n  boolean same(E o) {\n    if (!Objects.equals(a, o.a)) {\n      return false;\n    }\n    return true;\n  }\n}\n",
		},
		MustNotMatch: []string{
			// reverted: a null a throws again
			"class E {\n  String a;\n  boolean same(E o) {\n    if (!a.equals(o.a)) {\n      return false;\n    }\n    return true;\n  }\n}\n",
		},
	},
	{
		Name: "python format fields renamed", Path: "p.py",
		Buggy: "def show(f, p, q):\n    return '%s/%s' % (p, q)\n",
		Fixed: "def show(f, p, q):\n    return '{0}({1})/{0}({2})'.format(f, p, q)\n",
		Facts: []string{"call:format", "lit:{}({})/{}({})", "name:format"},
		MustMatch: []string{
			"def show(f, p, q):\n    return '{func}({p})/{func}({q})'.format(func=f, p=p, q=q)\n",
		},
		MustNotMatch: []string{
			// another text around the fields
			"def show(f, p, q):\n    return '{0}[{1}]/{0}[{2}]'.format(f, p, q)\n",
		},
	},
	{
		Name: "java else-if chain become a switch", Path: "Q.java",
		Buggy: "class Q {\n  void combine(char c) {\n    if (c == '>') {\n      child();\n    } else {\n      fail();\n    }\n  }\n}\n",
		Fixed: "class Q {\n  void combine(char c) {\n    if (c == '>') {\n      child();\n    } else if (c == ',') {\n      or();\n    } else {\n      fail();\n    }\n  }\n}\n",
		Facts: []string{"call:or", "cmp:, == c", "lit:,", "name:or"},
		MustMatch: []string{
			"class Q {\n  void combine(char c) {\n    switch (c) {\n      case '>':\n        child();\n        break;\n      case ',':\n        or();\n        break;\n      default:\n        fail();\n    }\n  }\n}\n",
		},
		MustNotMatch: []string{
			"class Q {\n  void combine(char c) {\n    switch (c) {\n      case '>':\n        child();\n        break;\n      default:\n        fail();\n    }\n  }\n}\n",
		},
	},
}
