package mutation

import (
	"slices"
	"strings"

	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// Operator is one mutation: the inverse of a fix pattern. Applied to a
// correct method (the FIXED member of the pair) it yields the BUGGY member.
type Operator struct {
	Name string // e.g. "remove_null_guard"
	// Fix is the fix pattern this operator inverts, as classified from seed
	// diffs by ClassifyFix (e.g. "add_null_guard").
	Fix string
	// Types are the exception types its sites can produce.
	Types []string
	Doc   string
	find  func(m *method) []Site
}

// Site is one place an operator applies to a method.
type Site struct {
	Operator string
	Type     string // exception type the buggy method risks
	Node     int    // the node the mutation targets
	Line     int    // its 1-based line in the source file
	Edits    []Edit
}

// Operators lists every operator in a fixed order.
var Operators = []*Operator{
	{Name: "remove_null_guard", Fix: FixNullGuard, Types: []string{corpus.NullPointer},
		Doc: "delete `if (x == null) <exit>` (or a `||` chain of such tests) when x is dereferenced later; " +
			"drop the `x != null &&` / `x == null ||` operand guarding a dereference of x; " +
			"collapse `x == null ? d : x.f()` to `x.f()` (and the != form)",
		find: findNullGuards},
	{Name: "remove_bounds_check", Fix: FixBoundsCheck, Types: []string{corpus.ArrayIndexOOB, corpus.StringIndexOOB},
		Doc: "delete `if (<comparisons with a.length / s.length()>, or isEmpty tests>) <exit>` when a is indexed (s.charAt/substring/…) later, " +
			"or drop such a comparison as the left operand of `&&` guarding the access; arrays give AIOOBE, strings SIOOBE",
		find: findBoundsChecks},
	{Name: "loosen_comparison", Fix: FixComparison, Types: []string{corpus.ArrayIndexOOB, corpus.StringIndexOOB},
		Doc: "change `i < a.length` to `i <= a.length` (and `a.length > i` to `>=`, `i >= a.length` to `>`, `a.length <= i` to `<`) " +
			"when a[i] (s.charAt(i), s.codePointAt(i)) follows: the changed-comparison off-by-one",
		find: findComparisons},
	{Name: "index_off_by_one", Fix: FixIndexLength, Types: []string{corpus.ArrayIndexOOB, corpus.StringIndexOOB},
		Doc: "turn `a.length - 1` into `a.length` where it indexes a (a[a.length - 1], s.charAt(s.length() - 1)) " +
			"or initialises/assigns a variable that later indexes it: the corrected-index-or-length pattern",
		find: findIndexOffByOne},
	{Name: "remove_index_guard", Fix: FixBoundsCheck, Types: []string{corpus.ArrayIndexOOB, corpus.StringIndexOOB},
		Doc: "delete `if (i < 0) <exit>` (`i == -1`, a `||` chain of such tests) when the next statement indexes with i " +
			"(a[i], s.charAt(i), s.substring(i), …), or drop the `i >= 0 &&` / `i != -1 &&` / `i < 0 ||` operand guarding " +
			"such an access: the guard on a search result such as indexOf's -1; arrays give AIOOBE, strings SIOOBE",
		find: findIndexGuards},
	{Name: "remove_nfe_catch", Fix: FixCatchNFE, Types: []string{corpus.NumberFormat},
		Doc: "drop `catch (NumberFormatException e)` from a try whose body parses a number (Integer.parseInt, Long.parseLong, " +
			"Double.parseDouble, X.valueOf/decode, new BigInteger/BigDecimal); a lone catch unwraps the try body, " +
			"a union catch loses the NumberFormatException alternative",
		find: findNFECatches},
	{Name: "remove_parse_guard", Fix: FixParseGuard, Types: []string{corpus.NumberFormat},
		Doc: "delete `if (<test on x>) <exit>` before a number parser of x (Integer.parseInt(x), Long.valueOf(x), …; " +
			"the test e.g. `x.isEmpty()`, `!isDigits(x)`, `x.length() == 0`), or drop such a test as the left operand of `&&` " +
			"guarding the parse: the inverse of a fix that validates text before parsing it",
		find: findParseGuards},
	{Name: "remove_match_check", Fix: FixStateCheck, Types: []string{corpus.IllegalState},
		Doc: "unwrap `if (m.matches()) {…m.group(…)…}` (find, lookingAt too), delete `if (!m.find()) <exit>` before m.group/start/end, " +
			"or drop `m.matches() &&` before such a call: java.util.regex.Matcher throws IllegalStateException when no match " +
			"was attempted or it failed, so the fix adds the state check",
		find: findMatchChecks},
	{Name: "remove_instanceof_guard", Fix: FixInstanceof, Types: []string{corpus.ClassCast},
		Doc: "drop `o instanceof T &&` before a `(T) o` cast; unwrap `if (o instanceof T) {…(T) o…}`; " +
			"delete `if (!(o instanceof T)) <exit>` before a cast; collapse `o instanceof T ? …(T) o… : d`",
		find: findInstanceofGuards},
	{Name: "throw_on_lenient_argument", Fix: FixRemoveThrow, Types: []string{corpus.IllegalArgument},
		Doc: "replace the body of a lenient argument branch — `if (<test on a parameter>) p = <default>;` or " +
			"`if (<test on a parameter>) return …;` — with `throw new IllegalArgumentException(…)`: the buggy method " +
			"rejects an argument the fixed one handles, so the fix removes an unintended throw (rxsynth §3.2 F4)",
		find: findLenientArgs},
	{Name: "throw_on_lenient_state", Fix: FixRemoveThrow, Types: []string{corpus.IllegalState},
		Doc: "in an instance method, replace the early return of a state branch — `if (<test on fields only>) return …;`, " +
			"e.g. an idempotent `if (closed) return;` — or a lazy initialisation of a field it tests " +
			"(`if (cache == null) cache = …;`) with `throw new IllegalStateException(…)`: the buggy method " +
			"throws too eagerly for a state the fixed one tolerates (F4: the fix removes an unintended throw)",
		find: findLenientState},
}

// OperatorByName returns the operator called name, or nil.
func OperatorByName(name string) *Operator {
	for _, op := range Operators {
		if op.Name == name {
			return op
		}
	}
	return nil
}

func (m *method) site(op string, typ string, node int, edits ...Edit) Site {
	return Site{Operator: op, Type: typ, Node: node, Line: m.n[node].StartLine(), Edits: edits}
}

// matcher finds an operator's sites at node i of a method whose body ends
// at end.
type matcher func(m *method, i, end int) []Site

// sites runs the matchers, chosen by node kind, over every node of the
// method body in order, except the bodies of classes declared inside it:
// a call of the method runs none of an anonymous class's methods, so a
// mutation there raises nothing the harness can see (rxsynth §5.4).
func (m *method) sites(byKind map[string]matcher) []Site {
	var out []Site
	end := m.bodyEnd()
	for i := m.body; i >= 0 && i < end; i++ {
		if m.kind(i) == "class_body" {
			i = m.n[i].End() - 1
			continue
		}
		if match := byKind[m.kind(i)]; match != nil {
			out = append(out, match(m, i, end)...)
		}
	}
	return out
}

// loneIf reports whether if statement i sits directly in a block and has
// no else.
func (m *method) loneIf(i int) bool {
	return m.inBlock(i) && m.field(i, "alternative") < 0
}

// exitGuard reports whether if statement i is a guard that can be
// deleted: a lone if whose consequence exits early.
func (m *method) exitGuard(i int) bool {
	cons := m.field(i, "consequence")
	return m.loneIf(i) && m.earlyExit(cons) && !m.onlyWayOut(m.single(cons))
}

// onlyWayOut reports whether exit statement s is a break out of a loop
// that has no condition (`while (true)`, `for (;;)`): deleting its guard
// makes the loop endless and the code after it unreachable, which javac
// rejects. A labelled break or one inside a switch is left alone.
func (m *method) onlyWayOut(s int) bool {
	if s < 0 || m.kind(s) != "break_statement" || len(m.named(s)) > 0 {
		return false
	}
	for p := m.n[s].Parent(); p >= 0 && p != m.body; p = m.n[p].Parent() {
		switch m.kind(p) {
		case "switch_block", "switch_expression", "switch_statement":
			return false
		case "while_statement", "do_statement":
			c := m.condition(p)
			return c >= 0 && m.text(c) == "true"
		case "for_statement":
			return m.field(p, "condition") < 0
		}
	}
	return false
}

// negated returns the operand of `!x` at c, or -1.
func (m *method) negated(c int) int {
	if c >= 0 && m.kind(c) == "unary_expression" && m.op(c) == "!" {
		return m.field(c, "operand")
	}
	return -1
}

// on reports whether the invocation or field access i is made on the
// expression whose text is x.
func (m *method) on(i int, x string) bool {
	obj := m.field(i, "object")
	return obj >= 0 && m.text(m.unparen(obj)) == x
}

// ---- NPE ----

var nullGuardMatchers = map[string]matcher{
	"if_statement":       (*method).nullGuardIf,
	"binary_expression":  (*method).nullGuardOperand,
	"ternary_expression": (*method).nullGuardTernary,
}

func findNullGuards(m *method) []Site { return m.sites(nullGuardMatchers) }

// nullGuardIf deletes `if (x == null) <exit>` (or a `||` chain of such
// tests) when the statement it protects, the next one, dereferences x.
// A guard whose variable is first dereferenced further down makes a pair
// whose exception surfaces away from the patch, where criterion (c)
// does not look (rxsynth §5.4: the patched site is the change and the
// statement an inserted guard protects); on 325 commons-lang pairs such
// pairs were 26 of the 43 unconfirmed NPEs.
func (m *method) nullGuardIf(i, _ int) []Site {
	if !m.exitGuard(i) {
		return nil
	}
	next := m.nextStatement(i)
	if next < 0 {
		return nil
	}
	xs, ok := m.nullChain(m.condition(i))
	if ok && slices.ContainsFunc(xs, func(x string) bool { return m.derefs(x, next, m.n[next].End()) }) {
		return []Site{m.site("remove_null_guard", corpus.NullPointer, i, m.removal(i))}
	}
	return nil
}

// nextStatement is the statement after statement i in its block, or -1.
func (m *method) nextStatement(i int) int {
	if m.n[i].Parent() < 0 {
		return -1
	}
	ch := m.named(m.n[i].Parent())
	for k, c := range ch {
		if c == i && k+1 < len(ch) {
			return ch[k+1]
		}
	}
	return -1
}

// nullOperand maps the operator of a guarding operand to the null test it
// guards with: `x != null && …`, `x == null || …`.
var nullOperand = map[string]string{"&&": "!=", "||": "=="}

// nullGuardOperand drops the `x != null &&` / `x == null ||` operand
// guarding a dereference of x.
func (m *method) nullGuardOperand(i, _ int) []Site {
	cmp, ok := nullOperand[m.op(i)]
	if !ok {
		return nil
	}
	r := m.field(i, "right")
	if x, ok := m.nullCompare(m.field(i, "left"), cmp); ok && m.derefs(x, r, m.n[r].End()) {
		return []Site{m.site("remove_null_guard", corpus.NullPointer, i, m.replace(i, m.text(r)))}
	}
	return nil
}

// nullGuardTernary collapses `x == null ? d : x.f()` to `x.f()` (and the
// != form).
func (m *method) nullGuardTernary(i, _ int) []Site {
	c, a, b := m.field(i, "condition"), m.field(i, "consequence"), m.field(i, "alternative")
	if x, ok := m.nullCompare(c, "=="); ok && m.derefs(x, b, m.n[b].End()) {
		return []Site{m.site("remove_null_guard", corpus.NullPointer, i, m.replace(i, m.text(b)))}
	}
	if x, ok := m.nullCompare(c, "!="); ok && m.derefs(x, a, m.n[a].End()) {
		return []Site{m.site("remove_null_guard", corpus.NullPointer, i, m.replace(i, m.text(a)))}
	}
	return nil
}

// nullChain matches `x == null` or a `||` chain of such tests and returns
// the tested expressions.
func (m *method) nullChain(c int) ([]string, bool) {
	c = m.unparen(c)
	if c < 0 {
		return nil, false
	}
	if x, ok := m.nullCompare(c, "=="); ok {
		return []string{x}, true
	}
	if m.kind(c) == "binary_expression" && m.op(c) == "||" {
		l, ok1 := m.nullChain(m.field(c, "left"))
		r, ok2 := m.nullChain(m.field(c, "right"))
		return append(l, r...), ok1 && ok2
	}
	return nil, false
}

// ---- AIOOBE / SIOOBE ----

// lengthOf matches `e.length` (array) or `e.length()` (string) and returns
// e's text and the exception type indexing past it raises.
func (m *method) lengthOf(i int) (string, string, bool) {
	i = m.unparen(i)
	if i < 0 {
		return "", "", false
	}
	switch m.kind(i) {
	case "field_access":
		if f := m.field(i, "field"); f >= 0 && m.text(f) == "length" {
			return m.text(m.unparen(m.field(i, "object"))), corpus.ArrayIndexOOB, true
		}
	case "method_invocation":
		obj, name, args := m.field(i, "object"), m.field(i, "name"), m.field(i, "arguments")
		if obj >= 0 && m.text(name) == "length" && args >= 0 && len(m.named(args)) == 0 {
			return m.text(m.unparen(obj)), corpus.StringIndexOOB, true
		}
	}
	return "", "", false
}

var stringIndexers = map[string]bool{"charAt": true, "codePointAt": true, "substring": true, "setCharAt": true, "deleteCharAt": true, "subSequence": true}

// pointIndexers are the stringIndexers for which index == length is out
// of range.
var pointIndexers = map[string]bool{"charAt": true, "codePointAt": true}

// indexes reports whether a node in [from, to) indexes e: e[idx] for an
// array, e.charAt(idx) (and the other stringIndexers) for a string. With
// idx == "" any index counts; otherwise the index (first argument) must
// have that text, and only charAt/codePointAt count for strings (where
// index == length is out of range).
func (m *method) indexes(e, typ, idx string, from, to int) bool {
	for i := from; i < to; i++ {
		switch {
		case typ == corpus.ArrayIndexOOB && m.kind(i) == "array_access":
			if m.indexesArray(i, e, idx) {
				return true
			}
		case typ == corpus.StringIndexOOB && m.kind(i) == "method_invocation":
			if m.indexesString(i, e, idx) {
				return true
			}
		}
	}
	return false
}

// indexesArray reports whether array access i is e[idx] (any index when
// idx is "").
func (m *method) indexesArray(i int, e, idx string) bool {
	return m.text(m.unparen(m.field(i, "array"))) == e && (idx == "" || m.text(m.unparen(m.field(i, "index"))) == idx)
}

// indexesString reports whether invocation i indexes string e: with idx
// "" any of the stringIndexers, else e.charAt(idx) or e.codePointAt(idx).
func (m *method) indexesString(i int, e, idx string) bool {
	if idx == "" {
		return m.on(i, e) && stringIndexers[m.text(m.field(i, "name"))]
	}
	if !m.pointIndexOn(i, e) {
		return false
	}
	args := m.named(m.field(i, "arguments"))
	return len(args) == 1 && m.text(m.unparen(args[0])) == idx
}

// pointIndexOn reports whether node i is e.charAt(…) or e.codePointAt(…).
func (m *method) pointIndexOn(i int, e string) bool {
	return m.kind(i) == "method_invocation" && pointIndexers[m.text(m.field(i, "name"))] && m.on(i, e)
}

var comparisons = map[string]bool{"<": true, "<=": true, ">": true, ">=": true, "==": true, "!=": true}

// boundsTests returns the (array or string, type) pairs compared against
// their length in a comparison or a ||-chain of comparisons; ok is false if
// c is anything else.
func (m *method) boundsTests(c int) (es, types []string, ok bool) {
	c = m.unparen(c)
	if c < 0 {
		return nil, nil, false
	}
	if e, ok := m.emptyTest(c); ok {
		// A length test by another name: s.isEmpty(), isEmpty(s),
		// StringUtils.isEmpty(s), ArrayUtils.isEmpty(a) — which of a
		// string or an array, the access that follows says.
		return []string{e, e}, []string{corpus.StringIndexOOB, corpus.ArrayIndexOOB}, true
	}
	if m.kind(c) != "binary_expression" {
		return nil, nil, false
	}
	if m.op(c) == "||" {
		e1, t1, ok1 := m.boundsTests(m.field(c, "left"))
		e2, t2, ok2 := m.boundsTests(m.field(c, "right"))
		return append(e1, e2...), append(t1, t2...), ok1 && ok2
	}
	if !comparisons[m.op(c)] {
		return nil, nil, false
	}
	for _, side := range []string{"left", "right"} {
		if e, t, ok := m.lengthOf(m.field(c, side)); ok {
			return []string{e}, []string{t}, true
		}
	}
	return nil, nil, true // a comparison not involving a length (e.g. i < 0)
}

// emptyTest matches `e.isEmpty()` or a one-argument `isEmpty(e)` (a
// static helper, qualified or not) and returns e.
func (m *method) emptyTest(c int) (string, bool) {
	if m.kind(c) != "method_invocation" || m.text(m.field(c, "name")) != "isEmpty" {
		return "", false
	}
	args := m.named(m.field(c, "arguments"))
	obj := m.field(c, "object")
	switch {
	case len(args) == 0 && obj >= 0:
		return m.text(m.unparen(obj)), true
	case len(args) == 1 && (obj < 0 || m.kind(obj) == "identifier" && m.text(obj)[0] >= 'A' && m.text(obj)[0] <= 'Z'):
		return m.text(m.unparen(args[0])), true
	}
	return "", false
}

var boundsCheckMatchers = map[string]matcher{
	"if_statement":      (*method).boundsCheckIf,
	"binary_expression": (*method).boundsCheckOperand,
}

func findBoundsChecks(m *method) []Site { return m.sites(boundsCheckMatchers) }

// boundsCheckIf deletes `if (<comparisons with a.length / s.length()>)
// <exit>` when a (s) is indexed later.
func (m *method) boundsCheckIf(i, end int) []Site {
	if !m.exitGuard(i) {
		return nil
	}
	es, ts, ok := m.boundsTests(m.condition(i))
	if !ok {
		return nil
	}
	for k, e := range es {
		if m.indexesUnbounded(e, ts[k], m.n[i].End(), end) {
			return []Site{m.site("remove_bounds_check", ts[k], i, m.removal(i))}
		}
	}
	return nil
}

// indexesUnbounded is indexes(e, typ, "", from, to) counting only the
// accesses no enclosing loop bounds by e's length: an access in `for (i =
// 0; i < a.length; i++)` (or `i < n` with `n = a.length`) cannot go out
// of bounds once the guard is gone, so removing `if (isEmpty(a)) return`
// in front of such a loop gives a buggy method that never raises the
// type (23 AIOOBE and SIOOBE pairs of the 1,034 grounded Defects4J ones,
// one of them confirmed: StringUtils.indexOfAny, PeriodType.forFields).
func (m *method) indexesUnbounded(e, typ string, from, to int) bool {
	for i := from; i < to; i++ {
		switch {
		case typ == corpus.ArrayIndexOOB && m.kind(i) == "array_access" && m.indexesArray(i, e, ""),
			typ == corpus.StringIndexOOB && m.kind(i) == "method_invocation" && m.indexesString(i, e, ""):
			if !m.loopBounded(i, e) {
				return true
			}
		}
	}
	return false
}

// loopBounded reports whether a for or while loop around node i tests
// e's length (e.length, e.length(), or a local initialised to one).
func (m *method) loopBounded(i int, e string) bool {
	lengths := []string{e + ".length"}
	if m.body >= 0 {
		for k := m.body; k < m.n[m.body].End(); k++ {
			if m.kind(k) != "variable_declarator" {
				continue
			}
			if v := m.field(k, "value"); v >= 0 && (m.text(m.unparen(v)) == e+".length" || m.text(m.unparen(v)) == e+".length()") {
				lengths = append(lengths, m.text(m.field(k, "name")))
			}
		}
	}
	for p := m.n[i].Parent(); p >= 0 && p != m.decl; p = m.n[p].Parent() {
		if k := m.kind(p); k != "for_statement" && k != "while_statement" && k != "do_statement" {
			continue
		}
		c := m.condition(p)
		if c < 0 {
			continue
		}
		for _, l := range lengths {
			if identIn(m.text(c), l) {
				return true
			}
		}
	}
	return false
}

// identIn reports whether name occurs in text as a whole name (not part
// of a longer one).
func identIn(text, name string) bool {
	for off := 0; ; {
		k := strings.Index(text[off:], name)
		if k < 0 {
			return false
		}
		k += off
		before := k == 0 || !isIdentByte(text[k-1])
		after := k+len(name) >= len(text) || !isIdentByte(text[k+len(name)]) || strings.HasSuffix(name, ".length") && text[k+len(name)] == '('
		if before && after {
			return true
		}
		off = k + 1
	}
}

func isIdentByte(b byte) bool {
	return b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// boundsCheckOperand drops such a comparison as the left operand of `&&`
// guarding the access.
func (m *method) boundsCheckOperand(i, _ int) []Site {
	if m.op(i) != "&&" {
		return nil
	}
	l, r := m.unparen(m.field(i, "left")), m.field(i, "right")
	if m.kind(l) != "binary_expression" || !comparisons[m.op(l)] {
		return nil
	}
	if es, ts, _ := m.boundsTests(l); len(es) == 1 && m.indexes(es[0], ts[0], "", r, m.n[r].End()) {
		return []Site{m.site("remove_bounds_check", ts[0], i, m.replace(i, m.text(r)))}
	}
	return nil
}

// loosen maps a bounds comparison operator, by the side the length is on,
// to its off-by-one variant.
var loosen = map[string][2]string{ // op -> {length on the right, length on the left}
	"<":  {"<=", ""},
	">":  {"", ">="},
	">=": {">", ""},
	"<=": {"", "<"},
}

var comparisonMatchers = map[string]matcher{"binary_expression": (*method).loosenedComparison}

func findComparisons(m *method) []Site { return m.sites(comparisonMatchers) }

// loosenedComparison changes `i < a.length` to `i <= a.length` (see
// loosen) when a[i] (s.charAt(i), s.codePointAt(i)) follows.
func (m *method) loosenedComparison(i, end int) []Site {
	v, ok := loosen[m.op(i)]
	if !ok {
		return nil
	}
	l, r := m.unparen(m.field(i, "left")), m.unparen(m.field(i, "right"))
	idx, lenSide, repl := l, r, v[0]
	if repl == "" {
		idx, lenSide, repl = r, l, v[1]
	}
	e, t, ok := m.lengthOf(lenSide)
	if !ok || m.kind(idx) != "identifier" || !m.indexes(e, t, m.text(idx), m.n[i].End(), end) {
		return nil
	}
	return []Site{m.site("loosen_comparison", t, i, m.replace(m.field(i, "operator"), repl))}
}

var offByOneMatchers = map[string]matcher{"binary_expression": (*method).lengthMinusOne}

func findIndexOffByOne(m *method) []Site { return m.sites(offByOneMatchers) }

// lengthMinusOne turns `a.length - 1` into `a.length` where it indexes a
// or gives its value to a variable that does.
func (m *method) lengthMinusOne(i, end int) []Site {
	if m.op(i) != "-" {
		return nil
	}
	one := m.unparen(m.field(i, "right"))
	if m.kind(one) != "decimal_integer_literal" || m.text(one) != "1" {
		return nil
	}
	lenNode := m.unparen(m.field(i, "left"))
	if e, t, ok := m.lengthOf(lenNode); ok && m.usedAsIndex(i, e, t, end) {
		return []Site{m.site("index_off_by_one", t, i, m.replace(i, m.text(lenNode)))}
	}
	return nil
}

// usedAsIndex reports whether expression i indexes e directly, or is the
// value given to a variable that indexes e later.
func (m *method) usedAsIndex(i int, e, t string, end int) bool {
	p := m.n[i].Parent()
	for p >= 0 && m.kind(p) == "parenthesized_expression" {
		p = m.n[p].Parent()
	}
	switch m.kind(p) {
	case "array_access":
		return t == corpus.ArrayIndexOOB && m.text(m.unparen(m.field(p, "array"))) == e
	case "argument_list":
		return t == corpus.StringIndexOOB && m.pointIndexOn(m.n[p].Parent(), e)
	case "variable_declarator":
		return m.indexes(e, t, m.text(m.field(p, "name")), m.n[p].End(), end)
	case "assignment_expression":
		lhs := m.unparen(m.field(p, "left"))
		return m.op(p) == "=" && m.kind(lhs) == "identifier" && m.indexes(e, t, m.text(lhs), m.n[p].End(), end)
	}
	return false
}

// ---- NFE ----

var parseMethods = map[string]bool{"parseInt": true, "parseLong": true, "parseDouble": true, "parseFloat": true,
	"parseShort": true, "parseByte": true, "parseUnsignedInt": true, "parseUnsignedLong": true}
var boxedNumbers = map[string]bool{"Integer": true, "Long": true, "Double": true, "Float": true, "Short": true, "Byte": true}

// boxedParsers are the static methods of boxedNumbers that parse text.
var boxedParsers = map[string]bool{"valueOf": true, "decode": true}

// bigNumbers are the classes whose text constructor parses a number.
var bigNumbers = map[string]bool{"BigInteger": true, "BigDecimal": true, "java.math.BigInteger": true, "java.math.BigDecimal": true}

// numberParser reports whether node k calls a NumberFormatException-throwing
// parser: Integer.parseInt(…), Long.valueOf(…), new BigDecimal(…), ….
func (m *method) numberParser(k int) bool {
	switch m.kind(k) {
	case "method_invocation":
		name := m.text(m.field(k, "name"))
		obj := m.field(k, "object")
		return parseMethods[name] || (obj >= 0 && boxedParsers[name] && boxedNumbers[m.text(obj)] && !m.boxes(k))
	case "object_creation_expression":
		return bigNumbers[m.text(m.field(k, "type"))] && !m.boxes(k)
	}
	return false
}

// primitives are the Java primitive types.
var primitives = map[string]bool{"byte": true, "short": true, "int": true, "long": true, "float": true, "double": true, "char": true, "boolean": true}

// boxes reports whether the call or creation k takes a number, not text:
// its first argument is a number literal or a parameter of a primitive
// type (Byte.valueOf(oldValue), new BigDecimal(1.5)), which raises no
// NumberFormatException. Reading every valueOf as a parser made NFE pairs
// from java.awt.Component's firePropertyChange overloads, which no input
// can make raise it (issue 16).
func (m *method) boxes(k int) bool {
	args := m.named(m.field(k, "arguments"))
	if len(args) == 0 {
		return false
	}
	a := m.unparen(args[0])
	if strings.HasSuffix(m.kind(a), "_literal") && m.kind(a) != "string_literal" {
		return true
	}
	t := m.text(a)
	return m.kind(a) == "identifier" && !m.locals[t] && slices.ContainsFunc(m.fn.Params, func(p code.Param) bool { return p.Name == t && primitives[p.Type] })
}

// parsesNumber reports whether the subtree of i calls a NumberFormatException-throwing parser.
func (m *method) parsesNumber(i int) bool {
	for k := i; k < m.n[i].End(); k++ {
		if m.numberParser(k) {
			return true
		}
	}
	return false
}

var nfeCatchMatchers = map[string]matcher{"try_statement": (*method).nfeCatches}

func findNFECatches(m *method) []Site { return m.sites(nfeCatchMatchers) }

// nfeCatches drops `catch (NumberFormatException e)` from try statement i
// when its body parses a number.
func (m *method) nfeCatches(i, _ int) []Site {
	body := m.field(i, "body")
	if body < 0 || !m.parsesNumber(body) {
		return nil
	}
	catches, finally := m.clauses(i)
	var out []Site
	for _, c := range catches {
		if ed, ok := m.dropNFE(i, body, c, len(catches) > 1 || finally); ok {
			out = append(out, m.site("remove_nfe_catch", corpus.NumberFormat, c, ed))
		}
	}
	return out
}

// clauses returns the catch clauses of try statement i and whether it has
// a finally clause.
func (m *method) clauses(i int) (catches []int, finally bool) {
	for _, c := range m.named(i) {
		switch m.kind(c) {
		case "catch_clause":
			catches = append(catches, c)
		case "finally_clause":
			finally = true
		}
	}
	return catches, finally
}

// dropNFE returns the edit that stops catch clause c of statement try
// from catching NumberFormatException: a union catch loses that
// alternative, a clause with other clauses beside it (others) goes, and
// a lone catch unwraps the try body (only where a block can take its
// statements). ok is false when c does not catch it.
func (m *method) dropNFE(try, body, c int, others bool) (Edit, bool) {
	alts := m.catchTypes(c)
	nfe := lastNFE(m, alts)
	switch {
	case nfe < 0:
		return Edit{}, false
	case len(alts) > 1:
		return m.dropAlternative(alts, nfe), true
	case others:
		return Edit{Start: m.prevEnd(try, c), End: m.n[c].EndByte()}, true
	case !m.inBlock(try):
		return Edit{}, false
	}
	return m.unwrap(try, body), true
}

// catchTypes returns the alternatives of catch clause c's type (one but
// in a union catch), or nil.
func (m *method) catchTypes(c int) []int {
	ctype := m.lastNamed(m.lastNamed(c, "catch_formal_parameter"), "catch_type")
	if ctype < 0 {
		return nil
	}
	return m.named(ctype)
}

// lastNamed returns the last named child of i of the given kind, or -1
// (also for i < 0).
func (m *method) lastNamed(i int, kind string) int {
	if i < 0 {
		return -1
	}
	found := -1
	for _, ch := range m.named(i) {
		if m.kind(ch) == kind {
			found = ch
		}
	}
	return found
}

// lastNFE returns the index of the last alternative naming
// NumberFormatException, or -1.
func lastNFE(m *method, alts []int) int {
	for k := len(alts) - 1; k >= 0; k-- {
		if t := m.text(alts[k]); t == "NumberFormatException" || t == "java.lang.NumberFormatException" {
			return k
		}
	}
	return -1
}

// dropAlternative removes alternative k of a union catch type and the
// "|" joining it.
func (m *method) dropAlternative(alts []int, k int) Edit {
	a := alts[k]
	if k+1 < len(alts) {
		return Edit{Start: m.n[a].StartByte(), End: m.n[alts[k+1]].StartByte()}
	}
	return Edit{Start: m.n[alts[k-1]].EndByte(), End: m.n[a].EndByte()}
}

// prevEnd returns where the sibling before child c of node p ends, or c's
// own start when c is the first child.
func (m *method) prevEnd(p, c int) int {
	for k := c - 1; k >= p; k-- {
		if m.n[k].Parent() == p {
			return m.n[k].EndByte()
		}
	}
	return m.n[c].StartByte()
}

// parsedArg returns the text of the first argument of a number parser at
// node k (Integer.parseInt(x), Long.valueOf(x), new BigDecimal(x), …), or "".
func (m *method) parsedArg(k int) string {
	if !m.numberParser(k) {
		return ""
	}
	args := m.field(k, "arguments")
	if args < 0 {
		return ""
	}
	if a := m.named(args); len(a) > 0 {
		return m.text(m.unparen(a[0]))
	}
	return ""
}

// parses reports whether a node in [from, to) parses x as a number.
func (m *method) parses(x string, from, to int) bool {
	for k := from; k < to; k++ {
		if m.parsedArg(k) == x {
			return true
		}
	}
	return false
}

// mentions returns the identifiers and field accesses read in c, in order.
func (m *method) mentions(c int) []string {
	var out []string
	for k := c; k < m.n[c].End(); k++ {
		switch m.kind(k) {
		case "identifier", "field_access":
			out = append(out, m.text(k))
		}
	}
	return out
}

// guardsParse reports whether condition c is a plain test of something a
// number parser in [from, to) parses. A condition that itself parses is
// a try-parse, not a guard.
func (m *method) guardsParse(c, from, to int) bool {
	if c < 0 || !m.plainCondition(c) || m.parsesNumber(c) {
		return false
	}
	return slices.ContainsFunc(m.mentions(c), func(x string) bool { return m.parses(x, from, to) })
}

var parseGuardMatchers = map[string]matcher{
	"if_statement":      (*method).parseGuardIf,
	"binary_expression": (*method).parseGuardOperand,
}

func findParseGuards(m *method) []Site { return m.sites(parseGuardMatchers) }

// parseGuardIf deletes `if (<test on x>) <exit>` before a parser of x.
func (m *method) parseGuardIf(i, end int) []Site {
	if m.exitGuard(i) && m.guardsParse(m.condition(i), m.n[i].End(), end) {
		return []Site{m.site("remove_parse_guard", corpus.NumberFormat, i, m.removal(i))}
	}
	return nil
}

// parseGuardOperand drops such a test as the left operand of `&&`
// guarding the parse.
func (m *method) parseGuardOperand(i, _ int) []Site {
	if m.op(i) != "&&" {
		return nil
	}
	l, r := m.field(i, "left"), m.field(i, "right")
	if r >= 0 && m.guardsParse(l, r, m.n[r].End()) {
		return []Site{m.site("remove_parse_guard", corpus.NumberFormat, i, m.replace(i, m.text(r)))}
	}
	return nil
}

// ---- ISE: Matcher state ----

var matchAttempts = map[string]bool{"matches": true, "find": true, "lookingAt": true}
var matchReads = map[string]bool{"group": true, "start": true, "end": true}

// matchAttempt matches `m.matches()` (find, lookingAt) and returns m.
func (m *method) matchAttempt(c int) (string, bool) {
	c = m.unparen(c)
	if c < 0 || m.kind(c) != "method_invocation" {
		return "", false
	}
	obj := m.field(c, "object")
	if obj < 0 || !matchAttempts[m.text(m.field(c, "name"))] || len(m.named(m.field(c, "arguments"))) != 0 {
		return "", false
	}
	return m.text(m.unparen(obj)), true
}

// readsMatch reports whether a node in [from, to) is x.group/start/end(…).
func (m *method) readsMatch(x string, from, to int) bool {
	for k := from; k < to; k++ {
		if m.kind(k) == "method_invocation" && matchReads[m.text(m.field(k, "name"))] && m.on(k, x) {
			return true
		}
	}
	return false
}

var matchCheckMatchers = map[string]matcher{
	"if_statement":      (*method).matchCheckIf,
	"binary_expression": (*method).matchCheckOperand,
}

func findMatchChecks(m *method) []Site { return m.sites(matchCheckMatchers) }

// matchCheckIf unwraps `if (m.matches()) {…m.group(…)…}` (find, lookingAt
// too), or deletes `if (!m.find()) <exit>` before m.group/start/end.
func (m *method) matchCheckIf(i, end int) []Site {
	const op = "remove_match_check"
	if !m.loneIf(i) {
		return nil
	}
	c, cons := m.condition(i), m.field(i, "consequence")
	if x, ok := m.matchAttempt(c); ok && !m.strandsLater(i, cons) && m.readsMatch(x, cons, m.n[cons].End()) {
		// The attempt must still run (it moves the matcher): keep it
		// as a statement before the unwrapped body.
		ed := m.unwrap(i, cons)
		ed.Text = m.text(m.unparen(c)) + ";\n" + indentOf(m.f.Src, m.n[i].StartByte()) + ed.Text
		return []Site{m.site(op, corpus.IllegalState, i, ed)}
	}
	attempt := m.negated(c)
	if x, ok := m.matchAttempt(attempt); ok && m.earlyExit(cons) && m.readsMatch(x, m.n[i].End(), end) {
		return []Site{m.site(op, corpus.IllegalState, i, m.replace(i, m.text(m.unparen(attempt))+";"))}
	}
	return nil
}

// strandsLater reports whether unwrapping consequence cons of if
// statement i would leave the statements after i unreachable, which javac
// rejects: cons ends in an exit and i is not its block's last statement.
// A block that does work before its return counts (before, only a lone
// exit did, and 11 of the 1,039 grounded pairs did not compile for it).
func (m *method) strandsLater(i, cons int) bool {
	sib := m.named(m.n[i].Parent())
	last := cons
	if m.kind(cons) == "block" {
		ch := m.named(cons)
		if len(ch) == 0 {
			return false
		}
		last = ch[len(ch)-1]
	}
	return m.earlyExit(last) && sib[len(sib)-1] != i
}

// matchCheckOperand drops `m.matches() &&` before such a call.
func (m *method) matchCheckOperand(i, _ int) []Site {
	if m.op(i) != "&&" {
		return nil
	}
	r := m.field(i, "right")
	if x, ok := m.matchAttempt(m.field(i, "left")); ok && m.readsMatch(x, r, m.n[r].End()) {
		return []Site{m.site("remove_match_check", corpus.IllegalState, i, m.replace(i, m.text(r)))}
	}
	return nil
}

// ---- CCE ----

// erasure drops type arguments: "Map<K, V>" -> "Map".
func erasure(t string) string {
	if k := strings.IndexByte(t, '<'); k >= 0 {
		t = t[:k]
	}
	return strings.TrimSpace(t)
}

// instanceofTest matches `x instanceof T` without a pattern variable.
func (m *method) instanceofTest(i int) (x, t string, ok bool) {
	i = m.unparen(i)
	if i < 0 || m.kind(i) != "instanceof_expression" || m.field(i, "name") >= 0 {
		return "", "", false
	}
	l, r := m.unparen(m.field(i, "left")), m.field(i, "right")
	if l < 0 || r < 0 || !refExpr(m.kind(l)) || m.kind(r) == "record_pattern" {
		return "", "", false
	}
	return m.text(l), erasure(m.text(r)), true
}

// casts reports whether a node in [from, to) is the cast `(T) x`.
func (m *method) casts(x, t string, from, to int) bool {
	for i := from; i < to; i++ {
		if m.kind(i) != "cast_expression" {
			continue
		}
		ty, v := m.field(i, "type"), m.field(i, "value")
		if ty >= 0 && v >= 0 && erasure(m.text(ty)) == t && m.text(m.unparen(v)) == x {
			return true
		}
	}
	return false
}

// guardsCast reports whether test is `x instanceof T` and a node in
// [from, to) casts x to T.
func (m *method) guardsCast(test, from, to int) bool {
	x, t, ok := m.instanceofTest(test)
	return ok && m.casts(x, t, from, to)
}

var instanceofGuardMatchers = map[string]matcher{
	"binary_expression":  (*method).instanceofOperand,
	"ternary_expression": (*method).instanceofTernary,
	"if_statement":       (*method).instanceofIf,
}

func findInstanceofGuards(m *method) []Site { return m.sites(instanceofGuardMatchers) }

// instanceofOperand drops `o instanceof T &&` before a `(T) o` cast.
func (m *method) instanceofOperand(i, _ int) []Site {
	if m.op(i) != "&&" {
		return nil
	}
	r := m.field(i, "right")
	if m.guardsCast(m.field(i, "left"), r, m.n[r].End()) {
		return []Site{m.site("remove_instanceof_guard", corpus.ClassCast, i, m.replace(i, m.text(r)))}
	}
	return nil
}

// instanceofTernary collapses `o instanceof T ? …(T) o… : d`.
func (m *method) instanceofTernary(i, _ int) []Site {
	a := m.field(i, "consequence")
	if m.guardsCast(m.field(i, "condition"), a, m.n[a].End()) {
		return []Site{m.site("remove_instanceof_guard", corpus.ClassCast, i, m.replace(i, m.text(a)))}
	}
	return nil
}

// instanceofIf unwraps `if (o instanceof T) {…(T) o…}`, or deletes
// `if (!(o instanceof T)) <exit>` before a cast.
func (m *method) instanceofIf(i, end int) []Site {
	if !m.loneIf(i) {
		return nil
	}
	c, cons := m.condition(i), m.field(i, "consequence")
	// An unwrapped body that exits would strand the statements after it,
	// which javac rejects: on the 1,036 grounded Defects4J pairs 21 of
	// the 50 CCE pairs did not compile for it (issue 16).
	if m.guardsCast(c, cons, m.n[cons].End()) && !m.strandsLater(i, cons) {
		return []Site{m.site("remove_instanceof_guard", corpus.ClassCast, i, m.unwrap(i, cons))}
	}
	if m.earlyExit(cons) && m.guardsCast(m.negated(c), m.n[i].End(), end) {
		return []Site{m.site("remove_instanceof_guard", corpus.ClassCast, i, m.removal(i))}
	}
	return nil
}

// ---- IAE / ISE ----

// plainCondition reports whether condition c only reads: no assignments,
// increments, object creation or lambdas.
func (m *method) plainCondition(c int) bool {
	for k := c; k < m.n[c].End(); k++ {
		switch m.kind(k) {
		case "assignment_expression", "update_expression", "object_creation_expression", "lambda_expression", "switch_expression":
			return false
		}
	}
	return true
}

// plainBranch returns the condition and consequence of if statement i
// when it is a lone if whose condition only reads; ok is false otherwise.
func (m *method) plainBranch(i int) (c, cons int, ok bool) {
	if !m.loneIf(i) {
		return -1, -1, false
	}
	c, cons = m.condition(i), m.field(i, "consequence")
	return c, cons, c >= 0 && cons >= 0 && m.plainCondition(c)
}

var lenientArgMatchers = map[string]matcher{"if_statement": (*method).lenientArg}

func findLenientArgs(m *method) []Site { return m.sites(lenientArgMatchers) }

// lenientArg replaces the body of a lenient argument branch — `if (<test
// on a parameter>) p = <default>;` or `if (<test on a parameter>) return
// …;` — with `throw new IllegalArgumentException(…)`.
func (m *method) lenientArg(i, _ int) []Site {
	c, cons, ok := m.plainBranch(i)
	if !ok {
		return nil
	}
	param := m.testedParam(c)
	if param == "" {
		return nil
	}
	stmts := []int{cons}
	if m.kind(cons) == "block" {
		stmts = m.named(cons)
	}
	if !m.lenient(stmts) {
		return nil
	}
	msg := javaString("illegal "+param+": ") + " + " + param
	return []Site{m.site("throw_on_lenient_argument", corpus.IllegalArgument, i,
		m.throwInstead(cons, stmts, "throw new IllegalArgumentException("+msg+");"))}
}

// testedParam returns the first parameter (not shadowed by a local)
// condition c reads, or "".
func (m *method) testedParam(c int) string {
	for _, id := range m.nameRefs(c, m.n[c].End()) {
		if t := m.text(id); m.params[t] && !m.locals[t] {
			return t
		}
	}
	return ""
}

// lenient reports whether stmts are a lenient branch: a lone return, or
// assignments to parameters only.
func (m *method) lenient(stmts []int) bool {
	if len(stmts) == 0 {
		return false
	}
	for _, s := range stmts {
		switch m.kind(s) {
		case "return_statement":
			if len(stmts) != 1 {
				return false
			}
		case "expression_statement":
			if !m.assignsParam(s) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// assignsParam reports whether expression statement s is `p = …` for a
// parameter p.
func (m *method) assignsParam(s int) bool {
	a := m.named(s)
	return len(a) == 1 && m.kind(a[0]) == "assignment_expression" && m.params[m.text(m.unparen(m.field(a[0], "left")))]
}

// throwInstead replaces the statements of consequence cons with throwStmt.
func (m *method) throwInstead(cons int, stmts []int, throwStmt string) Edit {
	if m.kind(cons) != "block" {
		return m.replace(cons, throwStmt)
	}
	return Edit{Start: m.n[stmts[0]].StartByte(), End: m.n[stmts[len(stmts)-1]].EndByte(), Text: throwStmt}
}

func findLenientState(m *method) []Site {
	if m.static {
		return nil
	}
	return m.sites(lenientStateMatchers)
}

var lenientStateMatchers = map[string]matcher{"if_statement": (*method).lenientState}

// lenientState replaces the early return of a state branch — `if (<test
// on fields only>) return …;` — with `throw new IllegalStateException(…)`.
func (m *method) lenientState(i, _ int) []Site {
	c, cons, ok := m.plainBranch(i)
	if !ok {
		return nil
	}
	if !m.testsStateOnly(c) {
		return nil
	}
	stmts := []int{m.single(cons)}
	if s := stmts[0]; s < 0 || m.kind(s) != "return_statement" {
		if stmts = m.lazyInit(c, cons); stmts == nil {
			return nil
		}
	}
	msg := javaString("illegal state: " + strings.Join(strings.Fields(m.text(c)), " "))
	return []Site{m.site("throw_on_lenient_state", corpus.IllegalState, i,
		m.throwInstead(cons, stmts, "throw new IllegalStateException("+msg+");"))}
}

// lazyInit returns the statements of consequence cons when they only
// assign fields and condition c tests one of them — `if (cache == null)
// cache = new HashMap<>();` — else nil. The buggy method then throws for
// the state its lazy initialisation tolerates, as an idempotent close
// does for its early return (F4); on the 15 Defects4J projects the
// early-return form alone gave 52 ISE hosts for a quota of 84 (issue 16).
func (m *method) lazyInit(c, cons int) []int {
	stmts := []int{cons}
	if m.kind(cons) == "block" {
		stmts = m.named(cons)
	}
	tested := m.mentions(c)
	hit := false
	for _, s := range stmts {
		f := m.assignedField(s)
		if f == "" {
			return nil
		}
		hit = hit || slices.Contains(tested, f)
	}
	if !hit || len(stmts) == 0 {
		return nil
	}
	return stmts
}

// assignedField returns the field expression statement s assigns with
// `=` (this.f, or a lower-case name that is no parameter or local), or "".
func (m *method) assignedField(s int) string {
	a := m.named(s)
	if m.kind(s) != "expression_statement" || len(a) != 1 || m.kind(a[0]) != "assignment_expression" || m.op(a[0]) != "=" {
		return ""
	}
	l := m.unparen(m.field(a[0], "left"))
	t := m.text(l)
	switch {
	case m.kind(l) == "field_access" && m.kind(m.field(l, "object")) == "this":
		return t
	case m.kind(l) == "identifier" && !m.params[t] && !m.locals[t] && t[0] >= 'a' && t[0] <= 'z':
		return t
	}
	return ""
}

// testsStateOnly reports whether condition c reads the object's state (a
// this.field, or a lower-case name that is no parameter or local) and
// nothing else by name.
func (m *method) testsStateOnly(c int) bool {
	state := false
	for _, id := range m.nameRefs(c, m.n[c].End()) {
		t := m.text(id)
		if m.params[t] || m.locals[t] {
			return false
		}
		state = state || (t != "" && t[0] >= 'a' && t[0] <= 'z')
	}
	return state || m.readsThisField(c)
}

// readsThisField reports whether condition c reads this.f.
func (m *method) readsThisField(c int) bool {
	for k := c; k < m.n[c].End(); k++ {
		if m.kind(k) == "field_access" && m.kind(m.field(k, "object")) == "this" {
			return true
		}
	}
	return false
}
