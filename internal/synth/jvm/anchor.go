package jvm

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/benchforge/benchforge/internal/diff"
)

// Patch-anchored inputs (rxsynth §5: the validation is anchored on the
// patch). The fix says where the exception comes from: its guard
// conditions name the parameter and the value that reaches the faulty
// statement. Each anchorRule reads one kind of condition on the lines the
// fix changes (deleted or added, never unchanged ones) and derives
// candidate values for the parameters it names; the search tries every
// derived value first (the all-ordinary vector with one parameter set to
// it, then two derived values together), before the boundary search.
//
// A derived value is an argument a caller could pass, built like every
// other candidate (values.go): a literal, a JDK value, an array or JDK
// collection of ordinary elements, or a public constant the fix compares
// with. Nothing is derived for a local variable and no field is written:
// a guard on a field selects receivers built through the public
// constructors with a boundary argument (receiver_state, stateReceivers)
// — and no collaborator is
// made to return anything (§5.4's independence rule). TestAnchorRules
// holds every rule's must-apply and must-not-apply examples.
type anchorRule struct {
	Name string
	Doc  string
	re   *regexp.Regexp
	// derive gives the values for one match (the named groups of re, and
	// "" for the whole match) in the method's parameter context.
	derive func(a *anchorCtx, m map[string]string) []anchorValue
}

// anchorValue is a derived candidate for parameter Param.
type anchorValue struct {
	Param int
	Expr  string
}

// anchorCtx is what rules see of the method: its parameters and the
// ordinary (first) candidate of each.
type anchorCtx struct {
	params []Param
	vars   map[string]string
	ords   []string
	// owner is the method's class as the argument class names it
	// ("Outer.Inner"; project mode only, else ""), for the constants it
	// declares; build renders a value of a named type through the
	// project's public API ("" when it cannot; nil outside project mode).
	owner string
	build func(typ string) string
	// instance is set for an instance method (self_test).
	instance bool
}

// selfArg is the argument expression that stands for the receiver
// itself: the argument class declares it as a marker object, and the
// worker passes the call's receiver where an argument is that marker.
const selfArg = "bfSelf"

// anchorRules in the order their values are tried: the rules naming one
// value (null, a constant, a literal the fix tests) before those giving a
// range around a bound.
var anchorRules = []anchorRule{
	{Name: "null_test", Doc: "`p == null`, `p != null`, `null == p`: null for the reference parameter p",
		re:     regexp.MustCompile(`(?:^|[^.\w])(?P<p>[A-Za-z_]\w*)\s*[=!]=\s*null\b|\bnull\s*[=!]=\s*(?P<q>[A-Za-z_]\w*)\b(?:[^.(\w]|$)`),
		derive: forParam(func(a *anchorCtx, t jtype, m map[string]string) []string { return nullValue(t) })},
	{Name: "self_test", Doc: "`p == this`, `this == p` (or !=) in an instance method: the receiver itself for the reference parameter p (x.equals(x))",
		re: regexp.MustCompile(`(?:^|[^.\w])(?P<p>[a-z_]\w*)\s*[=!]=\s*this\b|\bthis\s*[=!]=\s*(?P<q>[a-z_]\w*)\b(?:[^.(\w]|$)`),
		derive: forParam(func(a *anchorCtx, t jtype, m map[string]string) []string {
			if !a.instance || primitives[t.base] && t.dims == 0 {
				return nil
			}
			return []string{selfArg}
		})},
	{Name: "element_null", Doc: "`p[i] == null` (or !=): an array parameter p holding a null element, alone and after an ordinary one",
		re:     regexp.MustCompile(`(?:^|[^.\w])(?P<p>[A-Za-z_]\w*)\s*\[[^\]]*\]\s*[=!]=\s*null\b`),
		derive: forParam(func(a *anchorCtx, t jtype, m map[string]string) []string { return nullElement(a, t) })},
	{Name: "constant_test", Doc: "`p == T.C` (or !=, either side): the public constant T.C for the reference parameter p",
		re: regexp.MustCompile(`(?:^|[^.\w])(?P<p>[a-z_]\w*)\s*[=!]=\s*(?P<c>[A-Z]\w*(?:\.[A-Z]\w*)*\.[A-Z][A-Z0-9_]*)\b` +
			`|\b(?P<c2>[A-Z]\w*(?:\.[A-Z]\w*)*\.[A-Z][A-Z0-9_]*)\s*[=!]=\s*(?P<q>[a-z_]\w*)\b`),
		derive: forParam(func(a *anchorCtx, t jtype, m map[string]string) []string {
			if primitives[t.base] || t.dims > 0 {
				return nil
			}
			return []string{m["c"] + m["c2"]}
		})},
	{Name: "string_text", Doc: "a string literal the fix compares or tests with (equals, startsWith, indexOf …; not a thrown message): the literal and the literal followed by \"1\"",
		re: regexp.MustCompile(`\.\s*(?:equals|equalsIgnoreCase|startsWith|endsWith|contains|indexOf|lastIndexOf|matches|split|regionMatches)\s*\(\s*(?P<s>"(?:[^"\\\n]|\\.)*")` +
			`|(?P<s2>"(?:[^"\\\n]|\\.)*")\s*\.\s*(?:equals|equalsIgnoreCase)\s*\(`),
		derive: stringText},
	{Name: "char_run", Doc: "two or more char comparisons on one line: their characters in order, as one string (\"&#\")",
		re:     regexp.MustCompile(`(?:[=!]=\s*'(?:\\.|[^'\\])'.*){2,}`),
		derive: charRun},
	{Name: "char_text", Doc: "`x == 'c'` (or !=, either side): for a String or CharSequence parameter \"c\", \"1c\" and \"c1\"; 'c' for a char parameter",
		re:     regexp.MustCompile(`[=!]=\s*(?P<c>'(?:\\.|[^'\\])')|(?P<c2>'(?:\\.|[^'\\])')\s*[=!]=`),
		derive: charText},
	{Name: "length_relation", Doc: "`p OP q.length()` (length, size(); either side) with a numeric p and a parameter q: " +
		"the length of q's ordinary value, minus one, and plus one",
		re: regexp.MustCompile(`(?:^|[^.\w])(?P<p>[A-Za-z_]\w*)\s*(?:<=|>=|<|>|==|!=)\s*(?P<r>[A-Za-z_]\w*)\s*\.\s*(?P<l>length\s*\(\s*\)|length\b|size\s*\(\s*\))` +
			`|\b(?P<r2>[A-Za-z_]\w*)\s*\.\s*(?P<l2>length\s*\(\s*\)|length\b|size\s*\(\s*\))\s*(?:<=|>=|<|>|==|!=)\s*(?P<q>[A-Za-z_]\w*)\b(?:[^.(\w]|$)`),
		derive: forParam(lengthRelation)},
	{Name: "empty_test", Doc: "`p.isEmpty()`, `p.length() == 0`, `p.length == 0`, `p.size() == 0`: the empty string, array or collection",
		re:     regexp.MustCompile(`(?:^|[^.\w])(?P<p>[A-Za-z_]\w*)\s*\.\s*(?:isEmpty\s*\(\s*\)|(?:length\s*\(\s*\)|length|size\s*\(\s*\))\s*==\s*0\b)`),
		derive: forParam(func(a *anchorCtx, t jtype, m map[string]string) []string { return sizedValues(a, t, 0, 0) })},
	{Name: "length_bound", Doc: "`p.length() OP n` (length, size(); either side): p of length n-1, n and n+1",
		re: regexp.MustCompile(`(?:^|[^.\w])(?P<p>[A-Za-z_]\w*)\s*\.\s*(?:length\s*\(\s*\)|length\b|size\s*\(\s*\))\s*(?:<=|>=|<|>|==|!=)\s*(?P<n>\d+)\b(?:[^.\w]|$)` +
			`|\b(?P<n2>\d+)\s*(?:<=|>=|<|>|==|!=)\s*(?P<q>[A-Za-z_]\w*)\s*\.\s*(?:length\s*\(\s*\)|length\b|size\s*\(\s*\))`),
		derive: forParam(func(a *anchorCtx, t jtype, m map[string]string) []string {
			n, _ := strconv.Atoi(m["n"] + m["n2"])
			return sizedValues(a, t, n-1, n+1)
		})},
	{Name: "int_bound", Doc: "`p OP n` with a numeric parameter p and an integer literal n (either side): n-1, n, n+1",
		re: regexp.MustCompile(`(?:^|[^.\w])(?P<p>[A-Za-z_]\w*)\s*(?:<=|>=|<|>|==|!=)\s*(?P<n>-?\d+)\b(?:[^.\w]|$)` +
			`|(?:^|[^\w.])(?P<n2>-?\d+)\s*(?:<=|>=|<|>|==|!=)\s*(?P<q>[A-Za-z_]\w*)\b(?:[^.(\w]|$)`),
		derive: forParam(func(a *anchorCtx, t jtype, m map[string]string) []string {
			n, _ := strconv.ParseInt(m["n"]+m["n2"], 10, 64)
			return numberValues(t, n-1, n, n+1)
		})},
	{Name: "instanceof_test", Doc: "`p instanceof T`: for a parameter p declared Object (or Serializable, Comparable), values of other types: new Object(), 1, \"abc\"; " +
		"in project mode also a T built through the project's public API (the branch the test guards runs for a T)",
		re: regexp.MustCompile(`(?:^|[^.\w])(?P<p>[A-Za-z_]\w*)\s+instanceof\s+(?P<t>[\w.]+)`),
		derive: forParam(func(a *anchorCtx, t jtype, m map[string]string) []string {
			out := otherTypes(t)
			if a.build != nil && t.dims == 0 && !primitives[t.base] {
				if v := a.build(m["t"]); v != "" {
					out = append(out, v)
				}
			}
			return out
		})},
	{Name: "class_test", Doc: "`p == T.class` (or !=, either side; `T.class.equals(p)`, `p.equals(T.class)`, `T.class.isAssignableFrom(p)`): the class literal T.class for a Class parameter p",
		re: regexp.MustCompile(`(?:^|[^.\w])(?P<p>[a-z_]\w*)\s*(?:[=!]=\s*|\.\s*equals\s*\(\s*)(?P<c>[A-Za-z_][\w.]*\.class)\b` +
			`|\b(?P<c2>[A-Za-z_][\w.]*\.class)\s*(?:[=!]=\s*|\.\s*(?:equals|isAssignableFrom)\s*\(\s*)(?P<q>[a-z_]\w*)\b(?:[^.(\w]|$)`),
		derive: forParam(func(a *anchorCtx, t jtype, m map[string]string) []string {
			if t.dims > 0 || simple(t.base) != "Class" {
				return nil
			}
			return []string{m["c"] + m["c2"]}
		})},
	{Name: "constant_equals", Doc: "`C.equals(p)` or `p.equals(C)` with a constant C (upper-case name, the method's class's own or qualified): C for the reference parameter p",
		re: regexp.MustCompile(`(?:^|[^.\w])(?P<c>(?:[A-Z]\w*\.)*[A-Z][A-Z0-9_]+)\s*\.\s*equals(?:IgnoreCase)?\s*\(\s*(?P<p>[a-z_]\w*)\s*\)` +
			`|(?:^|[^.\w])(?P<q>[a-z_]\w*)\s*\.\s*equals(?:IgnoreCase)?\s*\(\s*(?P<c2>(?:[A-Z]\w*\.)*[A-Z][A-Z0-9_]+)\s*\)`),
		derive: forParam(func(a *anchorCtx, t jtype, m map[string]string) []string {
			c := m["c"] + m["c2"]
			if primitives[t.base] || t.dims > 0 || len(c) < 2 {
				return nil
			}
			if !strings.Contains(c, ".") {
				if a.owner == "" {
					return nil // the argument class cannot name the method's class
				}
				c = a.owner + "." + c
			}
			return []string{c}
		})},
	{Name: "number_text", Doc: "the fix parses a number or catches NumberFormatException (parseInt, parseLong, valueOf, decode, createNumber, isDigits …): " +
		"number texts at the edges of the parsers' ranges and syntax",
		re:     regexp.MustCompile(`\b(?:NumberFormatException|parse(?:Int|Long|Short|Byte|Double|Float)|(?:Integer|Long|Short|Byte|Double|Float)\.(?:valueOf|decode)|createNumber|isDigits|isNumber|Character\.isDigit)\b`),
		derive: numberText},
}

// forParam adapts a rule that derives values for the parameter its match
// names (group p or q) from that parameter's type.
func forParam(values func(a *anchorCtx, t jtype, m map[string]string) []string) func(*anchorCtx, map[string]string) []anchorValue {
	return func(a *anchorCtx, m map[string]string) []anchorValue {
		i := a.param(m["p"] + m["q"])
		if i < 0 {
			return nil
		}
		return a.values(i, values(a, a.typ(i), m))
	}
}

// param is the index of the parameter named name, or -1.
func (a *anchorCtx) param(name string) int {
	return slices.IndexFunc(a.params, func(p Param) bool { return p.Name == name })
}

func (a *anchorCtx) typ(i int) jtype { return resolveVar(parseType(a.params[i].Type), a.vars) }

func (a *anchorCtx) values(i int, exprs []string) []anchorValue {
	var out []anchorValue
	for _, e := range exprs {
		out = append(out, anchorValue{i, e})
	}
	return out
}

// eachText gives values to every String or CharSequence parameter (and,
// with char, every char parameter).
func (a *anchorCtx) eachText(strs []string, char string) []anchorValue {
	var out []anchorValue
	for i := range a.params {
		t := a.typ(i)
		switch {
		case isText(t):
			out = append(out, a.values(i, strs)...)
		case char != "" && t.dims == 0 && (t.base == "char" || t.base == "Character"):
			out = append(out, anchorValue{i, char})
		}
	}
	return out
}

func isText(t jtype) bool {
	b := simple(t.base)
	return t.dims == 0 && (b == "String" || b == "CharSequence")
}

func nullValue(t jtype) []string {
	if t.dims == 0 && primitives[t.base] {
		return nil
	}
	return []string{"null"}
}

// nullElement is an array of t's element type holding null, alone and
// after an ordinary element.
func nullElement(a *anchorCtx, t jtype) []string {
	if t.dims == 0 {
		return nil
	}
	e := resolveVar(t.elem(), a.vars)
	if e.dims == 0 && primitives[e.base] {
		return nil
	}
	ne := e.base + "[]" + strings.Repeat("[]", e.dims)
	return []string{"new " + ne + "{null}", "new " + ne + "{" + candidatesOf(e, a.vars, 1)[0] + ", null}"}
}

// maxSized bounds the length of a derived string, array or collection.
const maxSized = 64

// sizedValues are values of t of each length lo..hi (≥ 0, ≤ maxSized):
// strings of 'a', arrays and lists of the element's ordinary value.
func sizedValues(a *anchorCtx, t jtype, lo, hi int) []string {
	var out []string
	for k := max(lo, 0); k <= min(hi, maxSized); k++ {
		if v := sizedValue(a, t, k); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func sizedValue(a *anchorCtx, t jtype, k int) string {
	if isText(t) {
		return strconv.Quote(strings.Repeat("a", k))
	}
	if t.dims > 0 {
		e := resolveVar(t.elem(), a.vars)
		if e.dims == 0 && primitives[e.base] || k == 0 {
			return "new " + e.base + "[" + strconv.Itoa(k) + "]" + strings.Repeat("[]", e.dims)
		}
		return "new " + e.base + "[]" + strings.Repeat("[]", e.dims) + "{" + strings.Join(slices.Repeat([]string{candidatesOf(e, a.vars, 1)[0]}, k), ", ") + "}"
	}
	switch simple(t.base) {
	case "List", "Collection", "Iterable", "ArrayList":
		return "new java.util.ArrayList<>(java.util.Collections.nCopies(" + strconv.Itoa(k) + ", " + candidatesOf(typeArg(t, 0, a.vars), a.vars, 1)[0] + "))"
	}
	return ""
}

// numberValues renders integers as values of the numeric type t.
func numberValues(t jtype, ns ...int64) []string {
	if t.dims > 0 {
		return nil
	}
	b := t.base
	if p, ok := boxes[simple(b)]; ok {
		b = p
	}
	var out []string
	for _, n := range ns {
		s := strconv.FormatInt(n, 10)
		switch b {
		case "int":
		case "long":
			s += "L"
		case "short", "byte":
			s = "(" + b + ") " + s
		case "double":
			s += ".0"
		case "float":
			s += ".0f"
		default:
			return nil
		}
		out = append(out, s)
	}
	return out
}

// lengthRelation is the length of the related parameter's ordinary
// value, and one either side, for the numeric parameter p.
func lengthRelation(a *anchorCtx, t jtype, m map[string]string) []string {
	r := a.param(m["r"] + m["r2"])
	if r < 0 || numberValues(t, 0) == nil {
		return nil
	}
	n := "(" + a.ords[r] + ")." + strings.ReplaceAll(m["l"]+m["l2"], " ", "")
	b := t.base
	if p, ok := boxes[simple(b)]; ok {
		b = p
	}
	out := []string{n + " - 1", n, n + " + 1"}
	if b != "int" {
		for i, e := range out {
			out[i] = "(" + b + ") (" + e + ")"
		}
	}
	return out
}

func charText(a *anchorCtx, m map[string]string) []anchorValue {
	lit := m["c"] + m["c2"]
	c := unquoteChar(lit)
	return a.eachText([]string{strconv.Quote(c), strconv.Quote("1" + c), strconv.Quote(c + "1")}, lit)
}

var charLiteral = regexp.MustCompile(`'(?:\\.|[^'\\])'`)

func charRun(a *anchorCtx, m map[string]string) []anchorValue {
	var run strings.Builder
	for _, lit := range charLiteral.FindAllString(m[""], -1) {
		run.WriteString(unquoteChar(lit))
	}
	return a.eachText([]string{strconv.Quote(run.String())}, "")
}

// unquoteChar is a Java char literal's character ("'\\n'" → "\n"); an
// escape Go does not read (octal beyond range) is kept as written.
func unquoteChar(lit string) string {
	if s, err := strconv.Unquote(lit); err == nil {
		return s
	}
	return strings.Trim(lit, "'")
}

func stringText(a *anchorCtx, m map[string]string) []anchorValue {
	s := m["s"] + m["s2"]
	if len(s) > 42 {
		return nil
	}
	return a.eachText([]string{s, strings.TrimSuffix(s, `"`) + `1"`}, "")
}

// numberTexts sit at the edges of the JDK parsers: past int and long
// range, a lone sign or prefix, a trailing dot or exponent, a type suffix.
var numberTexts = []string{`"2147483648"`, `"-2147483649"`, `"9223372036854775808"`, `"1."`, `".1"`, `"1e"`, `"0x"`, `"-0x1"`, `"1L"`, `"+1"`, `"01"`, `"1 "`}

func numberText(a *anchorCtx, m map[string]string) []anchorValue {
	return a.eachText(numberTexts, "")
}

func otherTypes(t jtype) []string {
	switch simple(t.base) {
	case "Object", "Serializable", "Comparable":
		if t.dims == 0 {
			return []string{"new Object()", "Integer.valueOf(1)", `"abc"`}
		}
	}
	return nil
}

// changedLines are the lines of the fix: deleted from the buggy method or
// added in the fixed one (rxsynth §5's patched site), and the unchanged
// `if`/`else if` header right above a run of changes — the guard under
// which the changed statement runs (a fix that turns `if (n < 0) throw …`
// into `if (n < 0) n = 0;` changes the branch, not its condition).
func changedLines(buggy, fixed string) []string {
	fd := diff.Unified("buggy", "fixed", []byte(buggy), []byte(fixed), 1)
	var out []string
	for _, h := range fd.Hunks {
		for i, l := range h.Lines {
			switch {
			case l.Op == diff.Del || l.Op == diff.Add:
				out = append(out, l.Text)
			case i+1 < len(h.Lines) && h.Lines[i+1].Op != l.Op && opensBranch(l.Text):
				out = append(out, l.Text)
			}
		}
	}
	return out
}

var guardHeader = regexp.MustCompile(`^\s*(?:\}\s*)?(?:else\s+)?if\s*\(`)

// opensBranch reports whether line is an if header whose branch goes on
// below it (`if (c) {`, a braceless `if (c)`), not a whole statement
// (`if (c) return 0;`, which guards nothing after it).
func opensBranch(line string) bool {
	code := strings.TrimSpace(codePart(line))
	return guardHeader.MatchString(code) && !strings.HasSuffix(code, ";") && !strings.HasSuffix(code, "}")
}

// maxAnchored bounds the patch-anchored vectors of a pair.
const maxAnchored = 60

// deriveAnchors applies every rule to every changed line and returns the
// distinct derived values in rule and line order, with the rules that
// applied.
func deriveAnchors(a *anchorCtx, lines []string) (vals []anchorValue, rules []string) {
	seen := map[anchorValue]bool{}
	for _, r := range anchorRules {
		n := len(vals)
		for _, line := range lines {
			for _, v := range r.apply(a, codePart(line)) {
				if !seen[v] {
					seen[v] = true
					vals = append(vals, v)
				}
			}
		}
		if len(vals) > n {
			rules = append(rules, r.Name)
		}
	}
	return vals, rules
}

// apply runs the rule on one line.
func (r anchorRule) apply(a *anchorCtx, line string) []anchorValue {
	var out []anchorValue
	names := r.re.SubexpNames()
	for _, sm := range r.re.FindAllStringSubmatch(line, -1) {
		m := map[string]string{}
		for i, n := range names {
			if n != "" {
				m[n] = sm[i]
			}
		}
		m[""] = sm[0]
		out = append(out, r.derive(a, m)...)
	}
	return out
}

// codePart is a line without its // comment and without a thrown
// exception's message (whose literals are no input the method tests).
func codePart(line string) string {
	if i := strings.Index(line, "//"); i >= 0 && strings.Count(line[:i], `"`)%2 == 0 {
		line = line[:i]
	}
	if i := strings.Index(line, "throw new "); i >= 0 {
		line = line[:i]
	}
	return line
}

// anchoredVectors are the vectors tried first: the all-ordinary vector
// with one parameter set to a derived value, then with two parameters
// set to derived values (the first three of each), up to maxAnchored.
func anchoredVectors(vals []anchorValue, nparams int) [][]string {
	var out [][]string
	one := func(v anchorValue) []string {
		vec := make([]string, nparams)
		vec[v.Param] = v.Expr
		return vec
	}
	perParam := map[int][]anchorValue{}
	for _, v := range vals {
		out = append(out, one(v))
		perParam[v.Param] = append(perParam[v.Param], v)
	}
	for p := 0; p < nparams; p++ {
		for q := p + 1; q < nparams; q++ {
			for _, vp := range perParam[p][:min(3, len(perParam[p]))] {
				for _, vq := range perParam[q][:min(3, len(perParam[q]))] {
					vec := one(vp)
					vec[q] = vq.Expr
					out = append(out, vec)
				}
			}
		}
	}
	return out[:min(len(out), maxAnchored)]
}

// anchor derives the pair's patch-anchored inputs from its current
// candidates: each derived value joins its parameter's candidates (after
// them, when new) and the anchored vectors are kept as expressions, so
// that a candidate javac drops only drops the vectors using it.
func (h *harness) anchor() {
	h.anchors, h.anchorRules = nil, nil
	if h.failed != "" || len(h.bsig.Params) == 0 && !h.hasRecv {
		return
	}
	a := &anchorCtx{params: h.bsig.Params, vars: h.bsig.TypeVars, instance: !h.bsig.Static}
	if h.real != nil && h.project != nil {
		a.owner = strings.ReplaceAll(h.real.chain, "$", ".")
		a.build = h.project.builtValue
	}
	for _, cs := range h.cands[:len(h.bsig.Params)] {
		a.ords = append(a.ords, cs[0])
	}
	lines := changedLines(h.pair.BuggyMethod, h.pair.FixedMethod)
	vals, rules := deriveAnchors(a, lines)
	if h.hasRecv {
		// The receiver is the last candidate list (receiverCandidates).
		if rs := h.stateReceivers(lines); len(rs) > 0 {
			rules = append(rules, "receiver_state")
			for _, r := range rs {
				vals = append(vals, anchorValue{Param: len(h.bsig.Params), Expr: r})
			}
		}
	}
	for _, v := range vals {
		if !slices.Contains(h.cands[v.Param], v.Expr) {
			h.cands[v.Param] = append(h.cands[v.Param], v.Expr)
		}
	}
	h.anchors, h.anchorRules = anchoredVectors(vals, len(h.cands)), rules
}

// stateReceivers are the receiver_state rule's values: when the fix's
// changed lines read the receiver's state — a field (`f == null`,
// `this.f`, `f.length`, `if (empty)`) rather than a parameter or a local
// of the method — receivers built through the class's public
// constructors and factories (of its concrete subclasses for an abstract
// class) with one argument at a time set to a boundary value of its type
// (null, 0, -1, "", an empty array …; receivers.go stateReceivers), since
// the fields a guard tests are those the constructor's arguments set. The
// receiver is still built by public API alone: no field is written.
func (h *harness) stateReceivers(lines []string) []string {
	if h.project == nil || h.real == nil || len(stateNames(h.pair.BuggyMethod, h.bsig.Params, lines)) == 0 {
		return nil
	}
	return h.project.stateReceivers(h.real.sourceName())
}

// stateNames are the names the changed lines read that are neither a
// parameter nor a local of the buggy method, nor a method, a type or a
// constant: the receiver's fields (`this.f`, or f alone).
func stateNames(method string, params []Param, lines []string) []string {
	local := map[string]bool{"this": true, "super": true, "null": true, "true": true, "false": true, "length": true}
	for _, p := range params {
		local[p.Name] = true
	}
	for _, m := range localDecl.FindAllStringSubmatch(string(blankCommentsAndLiterals([]byte(method))), -1) {
		if !slices.Contains(notTypes, m[1]) {
			local[m[2]] = true
		}
	}
	for _, k := range javaKeywords {
		local[k] = true
	}
	var out []string
	for _, line := range lines {
		code := blankCommentsAndLiterals([]byte(codePart(line)))
		for _, m := range nameUse.FindAllSubmatchIndex(code, -1) {
			name := string(code[m[2]:m[3]])
			before := strings.TrimRight(string(code[:m[2]]), " \t")
			after := strings.TrimLeft(string(code[m[3]:]), " \t")
			this := strings.HasSuffix(before, "this.")
			switch {
			case local[name] && !this, strings.HasPrefix(after, "("), !this && strings.HasSuffix(before, "."),
				name[0] >= 'A' && name[0] <= 'Z', slices.Contains(out, name):
				continue
			}
			out = append(out, name)
		}
	}
	return out
}

var (
	nameUse = regexp.MustCompile(`\b([A-Za-z_$][\w$]*)\b`)
	// localDecl is a local variable, a for-each or catch variable the
	// method declares: a type's last token, then the name.
	localDecl = regexp.MustCompile(`([\w$]+|[>\]])\s+([a-z_$][\w$]*)\s*(?:=[^=]|;|:[^:]|,|\))`)
	// notTypes are the words that precede a name without declaring it.
	notTypes     = []string{"return", "throw", "case", "new", "else", "instanceof", "assert", "yield", "do"}
	javaKeywords = []string{"abstract", "assert", "boolean", "break", "byte", "case", "catch", "char", "class", "const", "continue",
		"default", "do", "double", "else", "enum", "extends", "final", "finally", "float", "for", "goto", "if", "implements",
		"import", "instanceof", "int", "interface", "long", "native", "new", "package", "private", "protected", "public",
		"return", "short", "static", "strictfp", "switch", "synchronized", "throw", "throws", "transient", "try", "void",
		"volatile", "while", "var", "yield", "record"}
)

// anchoredIndexVectors resolves the anchored vectors against the
// surviving candidates ("" is the ordinary candidate 0); a vector whose
// value was dropped is skipped.
func (h *harness) anchoredIndexVectors() [][]int {
	var out [][]int
	for _, vec := range h.anchors {
		iv := make([]int, len(h.cands)) // the receiver's, if any, stays the default
		ok := true
		for p, e := range vec {
			if e == "" {
				continue
			}
			if p >= len(h.cands) { // a receiver value, and no receiver compiled
				ok = false
				break
			}
			if iv[p] = slices.Index(h.cands[p], e); iv[p] < 0 {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, iv)
		}
	}
	return out
}

// withAnchored puts the anchored vectors before the boundary search's,
// without repeats, up to limit; n is how many of out are anchored.
func withAnchored(anchored, rest [][]int, limit int) (out [][]int, n int) {
	seen := map[string]bool{}
	for i, v := range append(slices.Clip(anchored), rest...) {
		k := fmt.Sprint(v)
		if seen[k] || len(out) >= limit {
			continue
		}
		seen[k] = true
		out = append(out, v)
		if i < len(anchored) {
			n++
		}
	}
	return out, n
}
