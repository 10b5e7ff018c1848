package mutation

import (
	"strings"

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
		Doc: "delete `if (<comparisons with a.length / s.length()>) <exit>` when a is indexed (s.charAt/substring/…) later, " +
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
			"e.g. an idempotent `if (closed) return;` — with `throw new IllegalStateException(…)`: the buggy method " +
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
	return Site{Operator: op, Type: typ, Node: node, Line: m.n[node].StartLine, Edits: edits}
}

// ---- NPE ----

func findNullGuards(m *method) []Site {
	var out []Site
	end := m.bodyEnd()
	for i := m.body; i >= 0 && i < end; i++ {
		switch m.kind(i) {
		case "if_statement":
			if !m.inBlock(i) || m.field(i, "alternative") >= 0 || !m.earlyExit(m.field(i, "consequence")) {
				continue
			}
			xs, ok := m.nullChain(m.condition(i))
			if !ok {
				continue
			}
			for _, x := range xs {
				if m.derefs(x, m.n[i].End, end) {
					out = append(out, m.site("remove_null_guard", corpus.NullPointer, i, m.removal(i)))
					break
				}
			}
		case "binary_expression":
			l, r := m.field(i, "left"), m.field(i, "right")
			var x string
			var ok bool
			switch m.op(i) {
			case "&&":
				x, ok = m.nullCompare(l, "!=")
			case "||":
				x, ok = m.nullCompare(l, "==")
			}
			if ok && m.derefs(x, r, m.n[r].End) {
				out = append(out, m.site("remove_null_guard", corpus.NullPointer, i, m.replace(i, m.text(r))))
			}
		case "ternary_expression":
			c, a, b := m.field(i, "condition"), m.field(i, "consequence"), m.field(i, "alternative")
			if x, ok := m.nullCompare(c, "=="); ok && m.derefs(x, b, m.n[b].End) {
				out = append(out, m.site("remove_null_guard", corpus.NullPointer, i, m.replace(i, m.text(b))))
			} else if x, ok := m.nullCompare(c, "!="); ok && m.derefs(x, a, m.n[a].End) {
				out = append(out, m.site("remove_null_guard", corpus.NullPointer, i, m.replace(i, m.text(a))))
			}
		}
	}
	return out
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

// indexes reports whether a node in [from, to) indexes e: e[idx] for an
// array, e.charAt(idx) (and the other stringIndexers) for a string. With
// idx == "" any index counts; otherwise the index (first argument) must
// have that text, and only charAt/codePointAt count for strings (where
// index == length is out of range).
func (m *method) indexes(e, typ, idx string, from, to int) bool {
	for i := from; i < to; i++ {
		switch {
		case typ == corpus.ArrayIndexOOB && m.kind(i) == "array_access":
			if m.text(m.unparen(m.field(i, "array"))) == e && (idx == "" || m.text(m.unparen(m.field(i, "index"))) == idx) {
				return true
			}
		case typ == corpus.StringIndexOOB && m.kind(i) == "method_invocation":
			obj := m.field(i, "object")
			if obj < 0 || m.text(m.unparen(obj)) != e {
				continue
			}
			name := m.text(m.field(i, "name"))
			if idx == "" {
				if stringIndexers[name] {
					return true
				}
				continue
			}
			if name != "charAt" && name != "codePointAt" {
				continue
			}
			if args := m.named(m.field(i, "arguments")); len(args) == 1 && m.text(m.unparen(args[0])) == idx {
				return true
			}
		}
	}
	return false
}

var comparisons = map[string]bool{"<": true, "<=": true, ">": true, ">=": true, "==": true, "!=": true}

// boundsTests returns the (array or string, type) pairs compared against
// their length in a comparison or a ||-chain of comparisons; ok is false if
// c is anything else.
func (m *method) boundsTests(c int) (es, types []string, ok bool) {
	c = m.unparen(c)
	if c < 0 || m.kind(c) != "binary_expression" {
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

func findBoundsChecks(m *method) []Site {
	var out []Site
	end := m.bodyEnd()
	for i := m.body; i >= 0 && i < end; i++ {
		switch m.kind(i) {
		case "if_statement":
			if !m.inBlock(i) || m.field(i, "alternative") >= 0 || !m.earlyExit(m.field(i, "consequence")) {
				continue
			}
			es, ts, ok := m.boundsTests(m.condition(i))
			if !ok {
				continue
			}
			for k, e := range es {
				if m.indexes(e, ts[k], "", m.n[i].End, end) {
					out = append(out, m.site("remove_bounds_check", ts[k], i, m.removal(i)))
					break
				}
			}
		case "binary_expression":
			if m.op(i) != "&&" {
				continue
			}
			l, r := m.unparen(m.field(i, "left")), m.field(i, "right")
			if m.kind(l) != "binary_expression" || !comparisons[m.op(l)] {
				continue
			}
			es, ts, _ := m.boundsTests(l)
			if len(es) == 1 && m.indexes(es[0], ts[0], "", r, m.n[r].End) {
				out = append(out, m.site("remove_bounds_check", ts[0], i, m.replace(i, m.text(r))))
			}
		}
	}
	return out
}

// loosen maps a bounds comparison operator, by the side the length is on,
// to its off-by-one variant.
var loosen = map[string][2]string{ // op -> {length on the right, length on the left}
	"<":  {"<=", ""},
	">":  {"", ">="},
	">=": {">", ""},
	"<=": {"", "<"},
}

func findComparisons(m *method) []Site {
	var out []Site
	end := m.bodyEnd()
	for i := m.body; i >= 0 && i < end; i++ {
		if m.kind(i) != "binary_expression" {
			continue
		}
		v, ok := loosen[m.op(i)]
		if !ok {
			continue
		}
		l, r := m.unparen(m.field(i, "left")), m.unparen(m.field(i, "right"))
		idx, lenSide, repl := l, r, v[0]
		if repl == "" {
			idx, lenSide, repl = r, l, v[1]
		}
		e, t, ok := m.lengthOf(lenSide)
		if !ok || m.kind(idx) != "identifier" {
			continue
		}
		if m.indexes(e, t, m.text(idx), m.n[i].End, end) {
			o := m.field(i, "operator")
			out = append(out, m.site("loosen_comparison", t, i, m.replace(o, repl)))
		}
	}
	return out
}

func findIndexOffByOne(m *method) []Site {
	var out []Site
	end := m.bodyEnd()
	for i := m.body; i >= 0 && i < end; i++ {
		if m.kind(i) != "binary_expression" || m.op(i) != "-" {
			continue
		}
		one := m.unparen(m.field(i, "right"))
		if m.kind(one) != "decimal_integer_literal" || m.text(one) != "1" {
			continue
		}
		lenNode := m.unparen(m.field(i, "left"))
		e, t, ok := m.lengthOf(lenNode)
		if !ok {
			continue
		}
		if m.usedAsIndex(i, e, t, end) {
			out = append(out, m.site("index_off_by_one", t, i, m.replace(i, m.text(lenNode))))
		}
	}
	return out
}

// usedAsIndex reports whether expression i indexes e directly, or is the
// value given to a variable that indexes e later.
func (m *method) usedAsIndex(i int, e, t string, end int) bool {
	p := m.n[i].Parent
	for p >= 0 && m.kind(p) == "parenthesized_expression" {
		p = m.n[p].Parent
	}
	switch m.kind(p) {
	case "array_access":
		return t == corpus.ArrayIndexOOB && m.text(m.unparen(m.field(p, "array"))) == e
	case "argument_list":
		inv := m.n[p].Parent
		if t != corpus.StringIndexOOB || m.kind(inv) != "method_invocation" {
			return false
		}
		name := m.text(m.field(inv, "name"))
		obj := m.field(inv, "object")
		return (name == "charAt" || name == "codePointAt") && obj >= 0 && m.text(m.unparen(obj)) == e
	case "variable_declarator":
		return m.indexes(e, t, m.text(m.field(p, "name")), m.n[p].End, end)
	case "assignment_expression":
		lhs := m.unparen(m.field(p, "left"))
		return m.op(p) == "=" && m.kind(lhs) == "identifier" && m.indexes(e, t, m.text(lhs), m.n[p].End, end)
	}
	return false
}

// ---- NFE ----

var parseMethods = map[string]bool{"parseInt": true, "parseLong": true, "parseDouble": true, "parseFloat": true,
	"parseShort": true, "parseByte": true, "parseUnsignedInt": true, "parseUnsignedLong": true}
var boxedNumbers = map[string]bool{"Integer": true, "Long": true, "Double": true, "Float": true, "Short": true, "Byte": true}

// parsesNumber reports whether the subtree of i calls a NumberFormatException-throwing parser.
func (m *method) parsesNumber(i int) bool {
	for k := i; k < m.n[i].End; k++ {
		switch m.kind(k) {
		case "method_invocation":
			name := m.text(m.field(k, "name"))
			if parseMethods[name] {
				return true
			}
			if obj := m.field(k, "object"); obj >= 0 && (name == "valueOf" || name == "decode") && boxedNumbers[m.text(obj)] {
				return true
			}
		case "object_creation_expression":
			switch t := m.text(m.field(k, "type")); t {
			case "BigInteger", "BigDecimal", "java.math.BigInteger", "java.math.BigDecimal":
				return true
			}
		}
	}
	return false
}

func findNFECatches(m *method) []Site {
	var out []Site
	end := m.bodyEnd()
	for i := m.body; i >= 0 && i < end; i++ {
		if m.kind(i) != "try_statement" {
			continue
		}
		body := m.field(i, "body")
		if body < 0 || !m.parsesNumber(body) {
			continue
		}
		var catches []int
		finally := false
		for _, c := range m.named(i) {
			switch m.kind(c) {
			case "catch_clause":
				catches = append(catches, c)
			case "finally_clause":
				finally = true
			}
		}
		for _, c := range catches {
			var param int = -1
			for _, ch := range m.named(c) {
				if m.kind(ch) == "catch_formal_parameter" {
					param = ch
				}
			}
			if param < 0 {
				continue
			}
			var ctype int = -1
			for _, ch := range m.named(param) {
				if m.kind(ch) == "catch_type" {
					ctype = ch
				}
			}
			if ctype < 0 {
				continue
			}
			alts := m.named(ctype)
			nfe := -1
			for k, a := range alts {
				if t := m.text(a); t == "NumberFormatException" || t == "java.lang.NumberFormatException" {
					nfe = k
				}
			}
			if nfe < 0 {
				continue
			}
			var ed Edit
			switch {
			case len(alts) > 1:
				// Drop the alternative and the "|" joining it.
				a := alts[nfe]
				if nfe+1 < len(alts) {
					ed = Edit{Start: m.n[a].StartByte, End: m.n[alts[nfe+1]].StartByte}
				} else {
					ed = Edit{Start: m.n[alts[nfe-1]].EndByte, End: m.n[a].EndByte}
				}
			case len(catches) > 1 || finally:
				prev := m.n[c].StartByte
				for k := c - 1; k >= i; k-- { // end of the previous sibling
					if m.n[k].Parent == i {
						prev = m.n[k].EndByte
						break
					}
				}
				ed = Edit{Start: prev, End: m.n[c].EndByte}
			default:
				if !m.inBlock(i) {
					continue
				}
				ed = m.unwrap(i, body)
			}
			out = append(out, m.site("remove_nfe_catch", corpus.NumberFormat, c, ed))
		}
	}
	return out
}

// parsedArg returns the text of the first argument of a number parser at
// node k (Integer.parseInt(x), Long.valueOf(x), new BigDecimal(x), …), or "".
func (m *method) parsedArg(k int) string {
	var args int = -1
	switch m.kind(k) {
	case "method_invocation":
		name := m.text(m.field(k, "name"))
		obj := m.field(k, "object")
		if parseMethods[name] || (obj >= 0 && (name == "valueOf" || name == "decode") && boxedNumbers[m.text(obj)]) {
			args = m.field(k, "arguments")
		}
	case "object_creation_expression":
		switch m.text(m.field(k, "type")) {
		case "BigInteger", "BigDecimal", "java.math.BigInteger", "java.math.BigDecimal":
			args = m.field(k, "arguments")
		}
	}
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
	for k := c; k < m.n[c].End; k++ {
		switch m.kind(k) {
		case "identifier", "field_access":
			out = append(out, m.text(k))
		}
	}
	return out
}

func findParseGuards(m *method) []Site {
	var out []Site
	end := m.bodyEnd()
	const op = "remove_parse_guard"
	for i := m.body; i >= 0 && i < end; i++ {
		switch m.kind(i) {
		case "if_statement":
			if !m.inBlock(i) || m.field(i, "alternative") >= 0 || !m.earlyExit(m.field(i, "consequence")) {
				continue
			}
			c := m.condition(i)
			if c < 0 || !m.plainCondition(c) || m.parsesNumber(c) {
				continue // a guard that itself parses is a try-parse, not a guard
			}
			for _, x := range m.mentions(c) {
				if m.parses(x, m.n[i].End, end) {
					out = append(out, m.site(op, corpus.NumberFormat, i, m.removal(i)))
					break
				}
			}
		case "binary_expression":
			if m.op(i) != "&&" {
				continue
			}
			l, r := m.field(i, "left"), m.field(i, "right")
			if l < 0 || r < 0 || !m.plainCondition(l) || m.parsesNumber(l) {
				continue
			}
			for _, x := range m.mentions(l) {
				if m.parses(x, r, m.n[r].End) {
					out = append(out, m.site(op, corpus.NumberFormat, i, m.replace(i, m.text(r))))
					break
				}
			}
		}
	}
	return out
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
		if m.kind(k) != "method_invocation" || !matchReads[m.text(m.field(k, "name"))] {
			continue
		}
		if obj := m.field(k, "object"); obj >= 0 && m.text(m.unparen(obj)) == x {
			return true
		}
	}
	return false
}

func findMatchChecks(m *method) []Site {
	var out []Site
	end := m.bodyEnd()
	const op = "remove_match_check"
	for i := m.body; i >= 0 && i < end; i++ {
		switch m.kind(i) {
		case "if_statement":
			if !m.inBlock(i) || m.field(i, "alternative") >= 0 {
				continue
			}
			c, cons := m.condition(i), m.field(i, "consequence")
			// Unwrapping a body that exits before later statements would
			// leave them unreachable, which javac rejects.
			sib := m.named(m.n[i].Parent)
			unreachable := m.earlyExit(cons) && sib[len(sib)-1] != i
			if x, ok := m.matchAttempt(c); ok && !unreachable && m.readsMatch(x, cons, m.n[cons].End) {
				// The attempt must still run (it moves the matcher): keep it
				// as a statement before the unwrapped body.
				ed := m.unwrap(i, cons)
				ed.Text = m.text(m.unparen(c)) + ";\n" + indentOf(m.f.Src, m.n[i].StartByte) + ed.Text
				out = append(out, m.site(op, corpus.IllegalState, i, ed))
				continue
			}
			if c >= 0 && m.kind(c) == "unary_expression" && m.op(c) == "!" && m.earlyExit(cons) {
				if x, ok := m.matchAttempt(m.field(c, "operand")); ok && m.readsMatch(x, m.n[i].End, end) {
					out = append(out, m.site(op, corpus.IllegalState, i,
						m.replace(i, m.text(m.unparen(m.field(c, "operand")))+";")))
				}
			}
		case "binary_expression":
			if m.op(i) != "&&" {
				continue
			}
			r := m.field(i, "right")
			if x, ok := m.matchAttempt(m.field(i, "left")); ok && m.readsMatch(x, r, m.n[r].End) {
				out = append(out, m.site(op, corpus.IllegalState, i, m.replace(i, m.text(r))))
			}
		}
	}
	return out
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

func findInstanceofGuards(m *method) []Site {
	var out []Site
	end := m.bodyEnd()
	const op = "remove_instanceof_guard"
	for i := m.body; i >= 0 && i < end; i++ {
		switch m.kind(i) {
		case "binary_expression":
			if m.op(i) != "&&" {
				continue
			}
			r := m.field(i, "right")
			if x, t, ok := m.instanceofTest(m.field(i, "left")); ok && m.casts(x, t, r, m.n[r].End) {
				out = append(out, m.site(op, corpus.ClassCast, i, m.replace(i, m.text(r))))
			}
		case "ternary_expression":
			a := m.field(i, "consequence")
			if x, t, ok := m.instanceofTest(m.field(i, "condition")); ok && m.casts(x, t, a, m.n[a].End) {
				out = append(out, m.site(op, corpus.ClassCast, i, m.replace(i, m.text(a))))
			}
		case "if_statement":
			if !m.inBlock(i) || m.field(i, "alternative") >= 0 {
				continue
			}
			c, cons := m.condition(i), m.field(i, "consequence")
			if x, t, ok := m.instanceofTest(c); ok && m.casts(x, t, cons, m.n[cons].End) {
				out = append(out, m.site(op, corpus.ClassCast, i, m.unwrap(i, cons)))
				continue
			}
			if c >= 0 && m.kind(c) == "unary_expression" && m.op(c) == "!" && m.earlyExit(cons) {
				if x, t, ok := m.instanceofTest(m.field(c, "operand")); ok && m.casts(x, t, m.n[i].End, end) {
					out = append(out, m.site(op, corpus.ClassCast, i, m.removal(i)))
				}
			}
		}
	}
	return out
}

// ---- IAE / ISE ----

// plainCondition reports whether condition c only reads: no assignments,
// increments, object creation or lambdas.
func (m *method) plainCondition(c int) bool {
	for k := c; k < m.n[c].End; k++ {
		switch m.kind(k) {
		case "assignment_expression", "update_expression", "object_creation_expression", "lambda_expression", "switch_expression":
			return false
		}
	}
	return true
}

func findLenientArgs(m *method) []Site {
	var out []Site
	end := m.bodyEnd()
	for i := m.body; i >= 0 && i < end; i++ {
		if m.kind(i) != "if_statement" || !m.inBlock(i) || m.field(i, "alternative") >= 0 {
			continue
		}
		c, cons := m.condition(i), m.field(i, "consequence")
		if c < 0 || cons < 0 || !m.plainCondition(c) {
			continue
		}
		param := ""
		for _, id := range m.nameRefs(c, m.n[c].End) {
			if t := m.text(id); m.params[t] && !m.locals[t] {
				param = t
				break
			}
		}
		if param == "" {
			continue
		}
		stmts := []int{cons}
		if m.kind(cons) == "block" {
			stmts = m.named(cons)
		}
		if len(stmts) == 0 {
			continue
		}
		lenient := true
		for _, s := range stmts {
			switch m.kind(s) {
			case "return_statement":
				lenient = lenient && len(stmts) == 1
			case "expression_statement":
				a := m.named(s)
				lenient = lenient && len(a) == 1 && m.kind(a[0]) == "assignment_expression" &&
					m.params[m.text(m.unparen(m.field(a[0], "left")))]
			default:
				lenient = false
			}
		}
		if !lenient {
			continue
		}
		msg := javaString("illegal "+param+": ") + " + " + param
		out = append(out, m.site("throw_on_lenient_argument", corpus.IllegalArgument, i,
			m.throwInstead(cons, stmts, "throw new IllegalArgumentException("+msg+");")))
	}
	return out
}

// throwInstead replaces the statements of consequence cons with throwStmt.
func (m *method) throwInstead(cons int, stmts []int, throwStmt string) Edit {
	if m.kind(cons) != "block" {
		return m.replace(cons, throwStmt)
	}
	return Edit{Start: m.n[stmts[0]].StartByte, End: m.n[stmts[len(stmts)-1]].EndByte, Text: throwStmt}
}

func findLenientState(m *method) []Site {
	if m.static {
		return nil
	}
	var out []Site
	end := m.bodyEnd()
	for i := m.body; i >= 0 && i < end; i++ {
		if m.kind(i) != "if_statement" || !m.inBlock(i) || m.field(i, "alternative") >= 0 {
			continue
		}
		c, cons := m.condition(i), m.field(i, "consequence")
		if c < 0 || cons < 0 || !m.plainCondition(c) {
			continue
		}
		s := m.single(cons)
		if s < 0 || m.kind(s) != "return_statement" {
			continue
		}
		state, other := false, false
		for _, id := range m.nameRefs(c, m.n[c].End) {
			t := m.text(id)
			switch {
			case m.params[t] || m.locals[t]:
				other = true
			case t != "" && t[0] >= 'a' && t[0] <= 'z':
				state = true
			}
		}
		for k := c; k < m.n[c].End; k++ {
			if m.kind(k) == "field_access" && m.kind(m.field(k, "object")) == "this" {
				state = true
			}
		}
		if !state || other {
			continue
		}
		msg := javaString("illegal state: " + strings.Join(strings.Fields(m.text(c)), " "))
		out = append(out, m.site("throw_on_lenient_state", corpus.IllegalState, i,
			m.throwInstead(cons, []int{s}, "throw new IllegalStateException("+msg+");")))
	}
	return out
}
