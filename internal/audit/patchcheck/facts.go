package patchcheck

import (
	"slices"
	"sort"
	"strings"

	"github.com/benchforge/benchforge/internal/code"
)

// This file is the second kind of evidence of issue 13 item 4: the fix's
// logic as a set of syntax-tree facts, checked on the tracked descendant
// function. Line similarity asks whether a fix line is still there nearly
// verbatim; a rewrite (Lang-16's startsWith chain become a loop over
// hexPrefixes, sympy-15875's `len(nz) == 0 or len(nz) == len(args)`
// become `len(nz) in [0, len(args)]`) keeps what the fix introduced — the
// literals, the called methods, the compared operands, the guarded names,
// the thrown type — on other lines. Superseded logic removes them.
//
// A block's facts are those of the syntax nodes that start on its added
// lines (the declaration line excepted: the function's identity is the
// walk's business), minus every fact of the buggy function (what the bug
// already had is no evidence of the fix) and minus generic ones (one-
// letter names, self, the literals "", 0 and 1). The block's fact score is
// the share of them found anywhere in the descendant function (with the
// functions fix lines were extracted into).

// fact kinds, each a prefix of the fact's text:
//
//	call:NAME        a method or function called (Python: the attribute's name)
//	new:TYPE         an object created (generic arguments dropped)
//	throw:TYPE       an exception thrown or raised
//	lit:VALUE        a string, character or number literal (quotes and
//	                 prefixes stripped, numbers lower-cased without an L)
//	cmp:L OP R       a comparison of two operands (is/is not read as
//	                 ==/!=, a > b as b < a; == and != unordered; a
//	                 case label as the switch's value == its own)
//	op:OP:OPERAND    an arithmetic or bitwise operator against an operand
//	not:OPERAND      a negation
//	instanceof:TYPE  a type test
//	guard:NAME       a name read in a condition (if, while, ternary)
//	name:NAME        a name used
//
// An operand is reduced to its head: a name, a literal, a call's name
// with "()", a field's or attribute's last name, an element access's
// array with "[]".

// factSet is a set of facts.
type factSet map[string]bool

// factRule emits the facts of node i of f.
type factRule func(f *code.File, i int, add func(string))

// factRules are the node kinds that carry facts, per grammar kind (Java
// and Python kinds do not collide).
var factRules map[string]factRule

func init() {
	factRules = map[string]factRule{
		"method_invocation":          func(f *code.File, i int, add func(string)) { add("call:" + childText(f, i, "name")) },
		"call":                       func(f *code.File, i int, add func(string)) { add("call:" + callee(f, f.ChildByField(i, "function"))) },
		"object_creation_expression": func(f *code.File, i int, add func(string)) { add("new:" + typeName(f, f.ChildByField(i, "type"))) },
		"throw_statement":            throwFacts,
		"raise_statement":            throwFacts,
		"binary_expression":          operatorFacts,
		"binary_operator":            operatorFacts,
		"comparison_operator":        comparisonFacts,
		"switch_label":               comparisonFacts,
		"instanceof_expression": func(f *code.File, i int, add func(string)) {
			add("instanceof:" + typeName(f, f.ChildByField(i, "right")))
		},
		"unary_expression":   notFacts,
		"not_operator":       notFacts,
		"identifier":         func(f *code.File, i int, add func(string)) { addName(add, "name:", f.Text(i)) },
		"if_statement":       func(f *code.File, i int, add func(string)) { guardFacts(f, f.ChildByField(i, "condition"), add) },
		"while_statement":    func(f *code.File, i int, add func(string)) { guardFacts(f, f.ChildByField(i, "condition"), add) },
		"ternary_expression": func(f *code.File, i int, add func(string)) { guardFacts(f, f.ChildByField(i, "condition"), add) },
		"conditional_expression": func(f *code.File, i int, add func(string)) {
			// Python's `a if cond else b`: the condition is the second
			// named child.
			guardFacts(f, namedChild(f, i, 1), add)
		},
	}
	for k := range litKinds {
		factRules[k] = func(f *code.File, i int, add func(string)) { addLit(add, litValue(f, i)) }
	}
}

// litKinds are the literal node kinds of both grammars.
var litKinds = map[string]bool{"string_literal": true, "string": true, "character_literal": true,
	"decimal_integer_literal": true, "hex_integer_literal": true, "octal_integer_literal": true,
	"binary_integer_literal": true, "decimal_floating_point_literal": true, "integer": true, "float": true}

// genericNames and genericLits carry no evidence of a fix.
var (
	genericNames = map[string]bool{"self": true, "cls": true}
	genericLits  = map[string]bool{"": true, "0": true, "1": true}
)

func addName(add func(string), prefix, name string) {
	if len(name) > 1 && !genericNames[name] {
		add(prefix + name)
	}
}

func addLit(add func(string), v string) {
	if !genericLits[v] {
		add("lit:" + v)
	}
}

// factsOf collects the facts of the subtrees of f at roots.
func factsOf(f *code.File, roots []int) factSet {
	out := factSet{}
	add := func(s string) { out[s] = true }
	nodes := f.Nodes()
	for _, r := range roots {
		for i := r; i < nodes[r].End(); i++ {
			if rule := factRules[nodes[i].Kind()]; rule != nil {
				rule(f, i, add)
			}
		}
	}
	return out
}

// childText is the text of node i's child with field, or "".
func childText(f *code.File, i int, field string) string {
	if c := f.ChildByField(i, field); c >= 0 {
		return f.Text(c)
	}
	return ""
}

// namedChild is node i's k-th named child, or -1.
func namedChild(f *code.File, i, k int) int {
	for c := range f.Children(i) {
		if f.Nodes()[c].Named() {
			if k == 0 {
				return c
			}
			k--
		}
	}
	return -1
}

// callee is the called name of a Python call's function node: the
// identifier, or an attribute's last name.
func callee(f *code.File, fn int) string {
	if fn < 0 {
		return ""
	}
	if f.Nodes()[fn].Kind() == "attribute" {
		return childText(f, fn, "attribute")
	}
	return f.Text(fn)
}

// typeName is a type's text without generic arguments or package.
func typeName(f *code.File, t int) string {
	if t < 0 {
		return ""
	}
	s := f.Text(t)
	if k := strings.IndexByte(s, '<'); k >= 0 {
		s = s[:k]
	}
	return strings.TrimSpace(s[strings.LastIndexByte(s, '.')+1:])
}

// litValue is a literal's value: a string without its quotes and prefix
// letters ('x' and "x" are one fact in Python) and with its format
// fields read as {} (fieldsRead), a number lower-cased without its long
// suffix or digit separators.
func litValue(f *code.File, i int) string {
	s := f.Text(i)
	switch f.Nodes()[i].Kind() {
	case "string":
		s = strings.TrimLeft(s, "rRbBuUfF")
		for _, q := range []string{`"""`, `'''`, `"`, `'`} {
			if len(s) >= 2*len(q) && strings.HasPrefix(s, q) && strings.HasSuffix(s, q) {
				return fieldsRead(s[len(q) : len(s)-len(q)])
			}
		}
		return fieldsRead(s)
	case "string_literal":
		return fieldsRead(s[min(1, len(s)) : len(s)-min(1, len(s))])
	case "character_literal":
		return s[min(1, len(s)) : len(s)-min(1, len(s))]
	}
	return strings.TrimSuffix(strings.ReplaceAll(strings.ToLower(s), "_", ""), "l")
}

// throwFacts: the type a throw or raise names.
func throwFacts(f *code.File, i int, add func(string)) {
	x := namedChild(f, i, 0)
	if x < 0 {
		return
	}
	switch f.Nodes()[x].Kind() {
	case "object_creation_expression":
		add("throw:" + typeName(f, f.ChildByField(x, "type")))
	case "call":
		add("throw:" + callee(f, f.ChildByField(x, "function")))
	default:
		add("throw:" + head(f, x))
	}
}

// cmpOps are the comparison operators, canonical: `is` reads as ==, and
// a > b as b < a (swap).
var cmpOps = map[string]struct {
	op   string
	swap bool
}{"==": {"==", false}, "!=": {"!=", false}, "<": {"<", false}, ">": {"<", true}, "<=": {"<=", false}, ">=": {"<=", true},
	"is": {"==", false}, "is not": {"!=", false}, "in": {"in", false}, "not in": {"not in", false}}

// relation is the fact of comparison l op r: a relation between both
// operands (each operand alone recurs in other comparisons of the
// function: `r > hi` is not `hi < lo`), with == and != unordered.
func relation(op, l, r string) string {
	c, ok := cmpOps[op]
	if !ok {
		return ""
	}
	if c.swap || (c.op == "==" || c.op == "!=") && r < l {
		l, r = r, l
	}
	return "cmp:" + l + " " + c.op + " " + r
}

// operatorFacts: a comparison as a relation, an arithmetic or bitwise
// operator with each of its operands (boolean connectives carry none:
// their operands' own facts do).
func operatorFacts(f *code.File, i int, add func(string)) {
	op := childText(f, i, "operator")
	if _, ok := cmpOps[op]; ok {
		comparisonFacts(f, i, add)
		return
	}
	switch op {
	case "", "&&", "||", "and", "or":
		return
	}
	for _, c := range []int{f.ChildByField(i, "left"), f.ChildByField(i, "right")} {
		if c >= 0 {
			add("op:" + op + ":" + head(f, c))
		}
	}
}

// comparisonFacts: a comparison (a Python chain: each neighbouring pair)
// as the relation of its operands.
func comparisonFacts(f *code.File, i int, add func(string)) {
	eachComparison(f, i, func(op string, l, r int) { add(relation(op, head(f, l), head(f, r))) })
}

// notFacts: a negation of its operand (Java's unary minus and friends
// carry no fact of their own).
func notFacts(f *code.File, i int, add func(string)) {
	x := f.ChildByField(i, "operand")
	if f.Nodes()[i].Kind() == "not_operator" {
		x = f.ChildByField(i, "argument")
	} else if childText(f, i, "operator") != "!" {
		return
	}
	if x >= 0 {
		add("not:" + head(f, x))
	}
}

// guardFacts: every name read in condition node c.
func guardFacts(f *code.File, c int, add func(string)) {
	if c < 0 {
		return
	}
	nodes := f.Nodes()
	for j := c; j < nodes[c].End(); j++ {
		if nodes[j].Kind() == "identifier" {
			addName(add, "guard:", f.Text(j))
		}
	}
}

// headKinds reduce an operand node to its head, by kind (set in init:
// they call head).
var headKinds map[string]func(f *code.File, i int) string

func init() {
	headKinds = map[string]func(f *code.File, i int) string{
		"field_access":             func(f *code.File, i int) string { return childText(f, i, "field") },
		"attribute":                func(f *code.File, i int) string { return childText(f, i, "attribute") },
		"method_invocation":        func(f *code.File, i int) string { return childText(f, i, "name") + "()" },
		"call":                     func(f *code.File, i int) string { return callee(f, f.ChildByField(i, "function")) + "()" },
		"array_access":             func(f *code.File, i int) string { return head(f, f.ChildByField(i, "array")) + "[]" },
		"subscript":                func(f *code.File, i int) string { return head(f, f.ChildByField(i, "value")) + "[]" },
		"parenthesized_expression": func(f *code.File, i int) string { return head(f, namedChild(f, i, 0)) },
		"null_literal":             func(*code.File, int) string { return "null" },
		"none":                     func(*code.File, int) string { return "null" },
		"true":                     func(*code.File, int) string { return "true" },
		"false":                    func(*code.File, int) string { return "false" },
	}
}

// head is operand node i reduced to what identifies it.
func head(f *code.File, i int) string {
	if i < 0 {
		return ""
	}
	k := f.Nodes()[i].Kind()
	if h := headKinds[k]; h != nil {
		return h(f, i)
	}
	switch {
	case k == "identifier" || k == "type_identifier" || k == "this":
		return f.Text(i)
	case litKinds[k]:
		return litValue(f, i)
	}
	return k
}

// blockFacts are the facts pb's added lines introduce into fixed function
// pb.fn, per added line (the declaration line has none): the facts of the
// nodes whose first token lies on the line, minus those of the buggy
// function (its counterpart in bug, localised as the snapshot's would be).
// Lines left without a fact are dropped.
func blockFacts(fix, bug *version, pb *pblock) []factSet {
	if pb.fn < 0 || fix.file == nil || pb.kind != "added" {
		return nil
	}
	lineOf := map[int]int{} // token node -> index in pb.adds
	hdr := headerLine(fix, pb.fn)
	for k, a := range pb.adds {
		for _, l := range fix.lines[a].leaves {
			if a != hdr {
				lineOf[l] = k
			}
		}
	}
	sets := make([]factSet, len(pb.adds))
	nodes := fix.file.Nodes()
	root := fix.funcs[pb.fn].Node
	for i := root; i < nodes[root].End(); i++ {
		rule := factRules[nodes[i].Kind()]
		if k := firstToken(nodes, lineOf, i); rule != nil && k >= 0 {
			if sets[k] == nil {
				sets[k] = factSet{}
			}
			rule(fix.file, i, func(f string) { sets[k][f] = true })
		}
	}
	var buggy factSet
	if bug != nil && bug.file != nil {
		if bi, _ := localize(fix, pb.fn, bug); bi >= 0 {
			buggy = readFacts(bug.file, []int{bug.funcs[bi].Node})
		}
	}
	return withoutFacts(sets, buggy)
}

// firstToken is the index of the added line node i's first token lies on
// (a token is a leaf, or an atomic node: a string with its pieces), or -1.
func firstToken(nodes []code.Node, lineOf map[int]int, i int) int {
	for ; ; i++ {
		if k, ok := lineOf[i]; ok {
			return k
		}
		if nodes[i].End() == i+1 {
			return -1
		}
	}
}

// withoutFacts drops the facts of drop from every set; a set left empty
// becomes nil (its line carries no fact evidence).
func withoutFacts(sets []factSet, drop factSet) []factSet {
	for i, fs := range sets {
		for k := range drop {
			delete(fs, k)
		}
		if len(fs) == 0 {
			sets[i] = nil
		}
	}
	return sets
}

// FactScore is the fact evidence for one block (issue 13 item 4): how
// many of the facts its fix introduced the descendant function holds.
// Lines is each added line's share of its facts (-1: the line has none);
// Score is the weakest of them (every line's logic must be kept, as every
// line must be present for the line score); Share is the block's overall
// share.
type FactScore struct {
	Score   float64   `json:"score"`
	Share   float64   `json:"share"`
	Facts   int       `json:"facts"`
	Lines   []float64 `json:"lines"`
	Missing []string  `json:"missing,omitempty"`
	// Decided: the facts decided the block's similarity (see setScore).
	Decided bool `json:"decided,omitempty"`
}

// scoreFacts scores the per-line facts want (nil for a line without) on
// the functions at roots of snap's file.
func scoreFacts(want []factSet, snap *version, roots []int) *FactScore {
	have := readFacts(snap.file, roots)
	fs := &FactScore{Score: 1, Lines: make([]float64, len(want)), Missing: []string{}}
	all := factSet{}
	for j, w := range want {
		fs.Lines[j] = -1
		if w == nil {
			continue
		}
		found := 0
		for k := range w {
			all[k] = true
			if have[k] {
				found++
			}
		}
		fs.Lines[j] = round(float64(found) / float64(len(w)))
		fs.Score = min(fs.Score, fs.Lines[j])
	}
	for k := range all {
		if !have[k] {
			fs.Missing = append(fs.Missing, k)
		}
	}
	sort.Strings(fs.Missing)
	fs.Facts = len(all)
	fs.Share = round(float64(len(all)-len(fs.Missing)) / float64(len(all)))
	return fs
}

// descendantRoots are the syntax nodes of the descendant of a block in
// snap: the localised function sfi and the functions fix lines were
// extracted into (a scope version holds nothing else: its whole tree).
func descendantRoots(snap *version, sfi int, hint *scopeHint) []int {
	if hint != nil && hint.whole {
		return []int{0}
	}
	roots := []int{snap.funcs[sfi].Node}
	if hint != nil {
		for _, e := range hint.extra {
			for i, k := range snap.keys {
				if k == e {
					roots = append(roots, snap.funcs[i].Node)
				}
			}
		}
	}
	return roots
}

// factEvidence is the fact score of pb on the descendant at roots of
// snap, or nil when the block introduces no fact.
func factEvidence(fw *fileWork, pb *pblock, snap *version, roots []int) *FactScore {
	if snap.file == nil {
		return nil
	}
	if !pb.factsDone {
		pb.facts, pb.factsDone = blockFacts(fw.fix, fw.bug, pb), true
	}
	want := pb.facts
	if !slices.ContainsFunc(want, func(s factSet) bool { return s != nil }) {
		return nil
	}
	return scoreFacts(want, snap, roots)
}

// minFacts is the fewest facts a block must introduce for its fact score
// to decide: one fact alone (a call to get, a literal 2) is found in many
// functions by chance, as a weak line is (block.go's weakLine).
const minFacts = 2

// setScore sets b's similarity from its line score and its fact evidence,
// and whether it passes. The fact evidence is used only where the line
// score falls short of the threshold, and never for a block with a line
// matched to its buggy form (a revert: the descendant is the bug). It
// stands in for the line evidence only on the lines that have facts: a
// line without (sb.append(text); return sb;) keeps its line score, so a
// kept condition does not vouch for the consequence it guards. The block
// scores the greater of its line score and that combination.
func (c *Checker) setScore(b *Block, line float64) {
	b.LineSimilarity = round(line)
	b.Similarity = b.LineSimilarity
	if fs := b.Facts; fs != nil && len(fs.Lines) == len(b.MatchedLines) {
		comb := 1.0
		for j, ml := range b.MatchedLines {
			if fs.Lines[j] >= 0 {
				comb = min(comb, fs.Lines[j])
			} else {
				comb = min(comb, ml.Similarity)
			}
		}
		fs.Decided = b.Similarity < c.opts.threshold() && fs.Facts >= minFacts && comb > b.Similarity && !reverted(*b)
		if fs.Decided {
			b.Similarity = round(comb)
		}
	}
	b.Passed = b.Similarity >= c.opts.threshold()
}

// A factExample pins the extraction on one fix: the facts its added lines
// introduce (Facts, all of them), descendants that keep the fix's logic
// in other words (MustMatch: fact score at least the default threshold)
// and descendants whose logic superseded it (MustNotMatch: below it).
// TestFactExamples enforces them; Buggy, Fixed and the descendants are
// whole files.
type factExample struct {
	Name, Path   string
	Buggy, Fixed string
	Facts        []string
	MustMatch    []string
	MustNotMatch []string
}

// factExamples are the examples of the fact kinds (Lang-16's prefix
// chain, sympy-15875's emptiness test, Mockito's argument check).
var factExamples = []factExample{
	{
		Name: "java prefix chain become a loop", Path: "N.java",
		Buggy: "class N {\n  int radix(String s) {\n    if (s.startsWith(\"0x\")) {\n      return 16;\n    }\n    return 10;\n  }\n}\n",
		Fixed: "class N {\n  int radix(String s) {\n    if (s.startsWith(\"0x\") || s.startsWith(\"#\")) {\n      return 16;\n    }\n" +
			"    if (s.startsWith(\"0\") && s.length() > 1) {\n      return 8;\n    }\n    return 10;\n  }\n}\n",
		// "0" is generic; startsWith, 0x and s were in the bug already.
		Facts: []string{"call:length", "cmp:1 < length()", "guard:length", "lit:#", "lit:8", "name:length"},
		MustMatch: []string{
			"class N {\n  int radix(String s) {\n    for (String p : new String[] {\"0x\", \"#\"}) {\n      if (s.startsWith(p)) {\n        return 16;\n      }\n    }\n" +
				"    return s.length() > 1 && s.charAt(0) == '0' ? 8 : 10;\n  }\n}\n",
			// 1 < s.length() is s.length() > 1
			"class N {\n  int radix(String s) {\n    if (s.startsWith(\"#\") || s.startsWith(\"0x\")) return 16;\n    if (1 < s.length() && s.startsWith(\"0\")) return 8;\n    return 10;\n  }\n}\n",
		},
		MustNotMatch: []string{
			// the octal case dropped: two of the three lines' logic gone
			"class N {\n  int radix(String s) {\n    if (s.startsWith(\"0x\") || s.startsWith(\"#\")) {\n      return 16;\n    }\n    return 10;\n  }\n}\n",
			// reverted
			"class N {\n  int radix(String s) {\n    if (s.startsWith(\"0x\")) {\n      return 16;\n    }\n    return 10;\n  }\n}\n",
		},
	},
	{
		Name: "python emptiness test rewritten", Path: "z.py",
		Buggy: "def is_zero(args):\n    nz = [a for a in args if a != 0]\n    if not nz:\n        return True\n    return None\n",
		Fixed: "def is_zero(args):\n    nz = [a for a in args if a != 0]\n    if len(nz) == 0 or len(nz) == len(args):\n        return None\n    return False\n",
		// nz was guarded by the bug already; return False carries none.
		Facts: []string{"call:len", "cmp:0 == len()", "cmp:len() == len()", "guard:args", "guard:len", "name:len"},
		MustMatch: []string{
			"def is_zero(args):\n    nz = [a for a in args if a != 0]\n    if len(nz) == 0:\n        return None\n    if len(nz) == len(args):\n        return None\n    return False\n",
			"def is_zero(args):\n    nz = [a for a in args if a]\n    if 0 == len(nz) or len(args) == len(nz):\n        return None\n    return False\n",
		},
		MustNotMatch: []string{
			// a comparison is a relation of its operands: through a
			// local alias it is another relation (a known limit)
			"def is_zero(args):\n    nz = [a for a in args if a != 0]\n    n = len(nz)\n    if n == 0 or n == len(args):\n        return None\n    return False\n",
			"def is_zero(args):\n    if all(a == 0 for a in args):\n        return True\n    return None\n",
		},
	},
	{
		Name: "java argument check", Path: "T.java",
		Buggy: "class T {\n  long millis;\n  void timeout(long millis) {\n    this.millis = millis;\n  }\n}\n",
		Fixed: "class T {\n  long millis;\n  void timeout(long millis) {\n    if (millis < 0) {\n      throw new IllegalArgumentException(\"negative timeout: \" + millis);\n    }\n" +
			"    this.millis = millis;\n  }\n}\n",
		Facts: []string{"cmp:millis < 0", "guard:millis", "lit:negative timeout: ", "new:IllegalArgumentException",
			"op:+:millis", "op:+:negative timeout: ", "throw:IllegalArgumentException"},
		MustMatch: []string{
			"class T {\n  long millis;\n  void timeout(long millis) {\n    if (0 > millis) throw new IllegalArgumentException(\"negative timeout: \" + millis);\n    this.millis = millis;\n  }\n}\n",
		},
		MustNotMatch: []string{
			// clamped instead of rejected: the guard stays, the throw goes
			"class T {\n  long millis;\n  void timeout(long millis) {\n    if (millis < 0) {\n      millis = 0;\n    }\n    this.millis = millis;\n  }\n}\n",
		},
	},
	{
		Name: "python argument check", Path: "s.py",
		Buggy: "def scale(x, factor):\n    return x * factor\n",
		Fixed: "def scale(x, factor):\n    if factor <= 0:\n        raise ValueError('factor must be positive')\n    return x * factor\n",
		Facts: []string{"call:ValueError", "cmp:factor <= 0", "guard:factor", "lit:factor must be positive", "name:ValueError", "throw:ValueError"},
		MustMatch: []string{
			// 0 >= factor is factor <= 0; the quotes and the f prefix go
			"def scale(x, factor):\n    if 0 >= factor:\n        raise ValueError(f\"factor must be positive\")\n    return x * factor\n",
		},
		MustNotMatch: []string{
			// a bad factor is replaced, not rejected
			"def scale(x, factor):\n    if factor <= 0:\n        factor = 1\n    return x * factor\n",
		},
	},
}
