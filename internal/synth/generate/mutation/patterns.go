package mutation

import (
	"cmp"
	"slices"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// Fix patterns: the taxonomy seed diffs are classified into (issue 6,
// "mine fix edit patterns from the seeds' diffs"). Each operator inverts one.
const (
	FixNullGuard   = "add_null_guard"    // fix adds `x == null` / `x != null` tests
	FixBoundsCheck = "add_bounds_check"  // fix adds a comparison against a length or size
	FixComparison  = "change_comparison" // fix swaps one comparison operator for another
	FixIndexLength = "correct_index"     // fix adjusts an index or length by a small arithmetic change
	FixCatchNFE    = "catch_nfe"         // fix adds `catch (NumberFormatException …)`
	FixInstanceof  = "add_instanceof"    // fix adds an instanceof test
	FixParseGuard  = "add_parse_guard"   // fix validates text before a number parser
	FixStateCheck  = "add_state_check"   // fix checks an object's state before a call that needs it
	FixRemoveThrow = "remove_throw"      // fix removes or restructures a throw (F4 for IAE/ISE)
	FixOther       = "other"             // none of the above
	FixUnparsable  = "unparsable"        // a member of the seed does not parse as one method
)

// FixPatterns lists the patterns in a fixed order, for tables.
var FixPatterns = []string{FixNullGuard, FixBoundsCheck, FixComparison, FixIndexLength, FixCatchNFE, FixInstanceof, FixParseGuard, FixStateCheck, FixRemoveThrow, FixOther, FixUnparsable}

// ClassifyFix assigns the fix of one seed (buggy → fixed) to a pattern.
// It aligns the two methods' tokens (comments excluded) with difflib's
// SequenceMatcher and tests, in order, the tokens the fix inserted and
// deleted:
//
//  1. inserted `catch` and `NumberFormatException` → catch_nfe
//  2. inserted `instanceof` → add_instanceof
//  3. more `throw` deleted than inserted → remove_throw
//  4. inserted `if` or `&&` where the fixed method attempts a match
//     (matches/find/lookingAt) and reads group/start/end → add_state_check
//  5. inserted `null` with `==` or `!=` → add_null_guard
//  6. inserted `if` or `&&` (no parser call among them) before a parser
//     call of the fixed method → add_parse_guard
//  7. inserted a comparison operator with `length` or `size` → add_bounds_check
//  8. a replaced run that is one comparison operator on each side → change_comparison
//  9. at most four tokens changed on each side, involving `+`, `-`, a
//     number literal or `length`/`size` → correct_index
//  10. anything else → other
func ClassifyFix(buggy, fixed string) string {
	a, okA := methodTokens(buggy)
	b, okB := methodTokens(fixed)
	if !okA || !okB {
		return FixUnparsable
	}
	d := diffFix(a, b)
	if d.changed == 0 {
		return FixOther
	}
	for _, r := range fixRules {
		if r.match(d) {
			return r.pattern
		}
	}
	return FixOther
}

// fixDiff is what a seed's fix changed, for the fixRules.
type fixDiff struct {
	ins, del []string // the tokens the fix inserted and deleted
	fixed    []string // the fixed method's tokens
	changed  int      // the changed runs
	cmpSwap  bool     // some run replaced one comparison operator by another
	small    bool     // no run changed more than four tokens on either side
}

// diffFix aligns the buggy and fixed tokens and collects the changes.
func diffFix(a, b []string) *fixDiff {
	d := &fixDiff{fixed: b, small: true}
	for _, op := range difflib.NewMatcher(a, b).GetOpCodes() {
		if op.Tag == 'e' {
			continue
		}
		del, in := a[op.I1:op.I2], b[op.J1:op.J2]
		d.del, d.ins = append(d.del, del...), append(d.ins, in...)
		d.changed++
		if op.Tag == 'r' && len(del) == 1 && len(in) == 1 && comparisons[del[0]] && comparisons[in[0]] {
			d.cmpSwap = true
		}
		if len(del) > 4 || len(in) > 4 {
			d.small = false
		}
	}
	return d
}

// fixRules are ClassifyFix's tests, in order: the first that matches
// names the pattern.
var fixRules = []struct {
	pattern string
	match   func(d *fixDiff) bool
}{
	{FixCatchNFE, func(d *fixDiff) bool { return hasAny(d.ins, "catch") && hasAny(d.ins, "NumberFormatException") }},
	{FixInstanceof, func(d *fixDiff) bool { return hasAny(d.ins, "instanceof") }},
	{FixRemoveThrow, func(d *fixDiff) bool { return count(d.del, "throw") > count(d.ins, "throw") }},
	{FixStateCheck, func(d *fixDiff) bool {
		return hasAny(d.ins, "if", "&&") && hasAny(d.fixed, "matches", "find", "lookingAt") && hasAny(d.fixed, "group", "start", "end")
	}},
	{FixNullGuard, func(d *fixDiff) bool { return hasAny(d.ins, "null") && hasAny(d.ins, "==", "!=") }},
	{FixParseGuard, func(d *fixDiff) bool { return hasAny(d.ins, "if", "&&") && parserCall(d.fixed) && !parserCall(d.ins) }},
	{FixBoundsCheck, func(d *fixDiff) bool { return hasAny(d.ins, "<", "<=", ">", ">=") && hasAny(d.ins, "length", "size") }},
	{FixComparison, func(d *fixDiff) bool { return d.cmpSwap }},
	{FixIndexLength, func(d *fixDiff) bool {
		return d.small && (hasAny(d.ins, "+", "-", "length", "size") || hasAny(d.del, "+", "-", "length", "size") || numeric(d.ins) || numeric(d.del))
	}},
}

// hasAny reports whether ts holds any of xs.
func hasAny(ts []string, xs ...string) bool {
	return slices.ContainsFunc(xs, func(x string) bool { return slices.Contains(ts, x) })
}

// count returns how often x occurs in ts.
func count(ts []string, x string) int {
	n := 0
	for _, t := range ts {
		if t == x {
			n++
		}
	}
	return n
}

// parserCall reports whether tokens name a number parser.
func parserCall(ts []string) bool {
	for _, t := range ts {
		if parseMethods[t] {
			return true
		}
	}
	return false
}

func numeric(ts []string) bool {
	for _, t := range ts {
		if t != "" && t[0] >= '0' && t[0] <= '9' {
			return true
		}
	}
	return false
}

// methodTokens returns the non-comment tokens of a lone Java method.
func methodTokens(src string) ([]string, bool) {
	f, err := code.ParseJavaMethod([]byte(src))
	if err != nil || len(f.SyntaxErrors()) > 0 {
		return nil, false
	}
	var out []string
	for _, t := range f.Tokens() {
		if t.Kind != code.Comment {
			out = append(out, t.Text)
		}
	}
	return out, true
}

// PatternCount is one row of the mined-pattern table.
type PatternCount struct {
	Type    string   `json:"error_type"`
	Pattern string   `json:"pattern"`
	Count   int      `json:"count"`
	BugIDs  []string `json:"bug_ids"`
	// Operators are the operators that invert this pattern for this type
	// (empty when none does).
	Operators []string `json:"operators"`
}

// MinePatterns classifies every seed's fix and counts patterns per type, in
// corpus.Types then FixPatterns order.
func MinePatterns(seeds []corpus.Seed) []PatternCount {
	byKey := map[[2]string]*PatternCount{}
	for _, s := range seeds {
		p := ClassifyFix(s.BuggyMethod, s.FixedMethod)
		k := [2]string{s.Exception, p}
		pc := byKey[k]
		if pc == nil {
			pc = newPatternCount(s.Exception, p)
			byKey[k] = pc
		}
		pc.Count++
		pc.BugIDs = append(pc.BugIDs, s.BugID)
	}
	var out []PatternCount
	types := append(slices.Clone(corpus.Types), "")
	for _, t := range types {
		for _, p := range FixPatterns {
			if pc := byKey[[2]string{t, p}]; pc != nil {
				out = append(out, *pc)
				delete(byKey, [2]string{t, p})
			}
		}
	}
	// Seeds of types outside the seven, in a stable order.
	var rest []PatternCount
	for _, pc := range byKey {
		rest = append(rest, *pc)
	}
	slices.SortFunc(rest, func(a, b PatternCount) int {
		return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.Pattern, b.Pattern))
	})
	return append(out, rest...)
}

// newPatternCount starts the row of (typ, pattern) with the operators
// that invert that pattern for that type.
func newPatternCount(typ, pattern string) *PatternCount {
	pc := &PatternCount{Type: typ, Pattern: pattern, BugIDs: []string{}, Operators: []string{}}
	for _, op := range Operators {
		if op.Fix == pattern && slices.Contains(op.Types, typ) {
			pc.Operators = append(pc.Operators, op.Name)
		}
	}
	return pc
}

// exemplars maps (type, operator) to the ids of the seeds whose fix the
// operator inverts.
func exemplars(pcs []PatternCount) map[[2]string][]string {
	out := map[[2]string][]string{}
	for _, pc := range pcs {
		for _, op := range pc.Operators {
			k := [2]string{pc.Type, op}
			out[k] = append(out[k], pc.BugIDs...)
		}
	}
	return out
}
