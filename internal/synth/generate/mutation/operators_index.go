package mutation

import (
	"slices"
	"strings"

	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// ---- AIOOBE / SIOOBE: a negative index (indexOf's -1) ----

// The index guard is the other half of a bounds check (rxsynth §3.2's
// add_bounds_check): `int i = s.indexOf(c); if (i < 0) return s;
// return s.substring(i);`. Real methods test a search result against
// -1 far more often than against a length, and the seeds' string index
// bugs are mostly of this shape, while the length-only operators found
// 25 SIOOBE hosts for a quota of 95 in the 15 Defects4J projects
// (issue 16).

var indexGuardMatchers = map[string]matcher{
	"if_statement":      (*method).indexGuardIf,
	"binary_expression": (*method).indexGuardOperand,
}

func findIndexGuards(m *method) []Site { return m.sites(indexGuardMatchers) }

// negativeTest matches `x < 0`, `x == -1`, `x <= -1` (and the mirrored
// `0 > x`, `-1 == x`) on a variable x and returns x.
func (m *method) negativeTest(c int) (string, bool) {
	c = m.unparen(c)
	if c < 0 || m.kind(c) != "binary_expression" {
		return "", false
	}
	l, r := m.unparen(m.field(c, "left")), m.unparen(m.field(c, "right"))
	if l < 0 || r < 0 {
		return "", false
	}
	lt, rt := m.text(l), notFound(m.text(r))
	switch {
	case m.kind(l) == "identifier" && negativeBound[m.op(c)+" "+rt]:
		return lt, true
	case m.kind(r) == "identifier" && negativeBound[mirrored[m.op(c)]+" "+notFound(lt)]:
		return rt, true
	}
	return "", false
}

// notFound reads a search's not-found constant (commons-lang's
// StringUtils.INDEX_NOT_FOUND, ArrayUtils.INDEX_NOT_FOUND: -1) as -1.
func notFound(t string) string {
	if strings.HasSuffix(t, "INDEX_NOT_FOUND") {
		return "-1"
	}
	return t
}

// negativeBound are the (operator, bound) pairs of a test that holds for
// exactly the negative values, with the variable on the left.
var negativeBound = map[string]bool{"< 0": true, "== -1": true, "<= -1": true}

// mirrored is the operator with its operands swapped.
var mirrored = map[string]string{"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "=="}

// negativeTests returns the variables tested negative in c, a test or a
// `||` chain of tests; ok is false unless every operand is one.
func (m *method) negativeTests(c int) ([]string, bool) {
	c = m.unparen(c)
	if c >= 0 && m.kind(c) == "binary_expression" && m.op(c) == "||" {
		l, ok1 := m.negativeTests(m.field(c, "left"))
		r, ok2 := m.negativeTests(m.field(c, "right"))
		return append(l, r...), ok1 && ok2
	}
	x, ok := m.negativeTest(c)
	return []string{x}, ok
}

// indexedBy returns the exception type of the first node in [from, to)
// that indexes with x itself: a[x] (AIOOBE), or x as an argument of
// s.charAt/substring/… (SIOOBE); "" if none. `s.substring(x + 1)` does
// not count: x = -1 makes it substring(0).
func (m *method) indexedBy(x string, from, to int) string {
	for k := from; k < to; k++ {
		switch m.kind(k) {
		case "array_access":
			if m.text(m.unparen(m.field(k, "index"))) == x {
				return corpus.ArrayIndexOOB
			}
		case "method_invocation":
			if m.field(k, "object") >= 0 && stringIndexers[m.text(m.field(k, "name"))] && m.argIs(k, x) {
				return corpus.StringIndexOOB
			}
		}
	}
	return ""
}

// argIs reports whether some argument of invocation k is exactly x.
func (m *method) argIs(k int, x string) bool {
	return slices.ContainsFunc(m.named(m.field(k, "arguments")), func(a int) bool { return m.text(m.unparen(a)) == x })
}

// indexGuardIf deletes `if (i < 0) <exit>` (or a `||` chain of such
// tests) when the statement it protects, the next one, indexes with i:
// there, as for a null guard, the exception is raised at the patch.
func (m *method) indexGuardIf(i, _ int) []Site {
	if !m.exitGuard(i) {
		return nil
	}
	next := m.nextStatement(i)
	xs, ok := m.negativeTests(m.condition(i))
	if next < 0 || !ok {
		return nil
	}
	for _, x := range xs {
		if t := m.indexedBy(x, next, m.n[next].End()); t != "" {
			return []Site{m.site("remove_index_guard", t, i, m.removal(i))}
		}
	}
	return nil
}

// nonNegative are the tests of an `&&` operand that hold for exactly
// the non-negative values.
var nonNegative = map[string]bool{">= 0": true, "> -1": true, "!= -1": true}

// indexGuardOperand drops the `i >= 0 &&` (`i != -1 &&`, `i < 0 ||`)
// operand guarding an access with i.
func (m *method) indexGuardOperand(i, _ int) []Site {
	l, r := m.unparen(m.field(i, "left")), m.field(i, "right")
	if l < 0 || r < 0 || m.kind(l) != "binary_expression" || m.kind(m.unparen(m.field(l, "left"))) != "identifier" {
		return nil
	}
	x := m.text(m.unparen(m.field(l, "left")))
	test := m.op(l) + " " + notFound(m.text(m.unparen(m.field(l, "right"))))
	guards := m.op(i) == "&&" && nonNegative[test] || m.op(i) == "||" && negativeBound[test]
	if t := m.indexedBy(x, r, m.n[r].End()); guards && t != "" {
		return []Site{m.site("remove_index_guard", t, i, m.replace(i, m.text(r)))}
	}
	return nil
}
