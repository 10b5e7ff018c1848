package mutation

import (
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
	sm := difflib.NewMatcher(a, b)
	var ins, del []string
	cmpSwap, small := false, true
	changed := 0
	for _, op := range sm.GetOpCodes() {
		if op.Tag == 'e' {
			continue
		}
		d, in := a[op.I1:op.I2], b[op.J1:op.J2]
		del, ins = append(del, d...), append(ins, in...)
		changed++
		if op.Tag == 'r' && len(d) == 1 && len(in) == 1 && comparisons[d[0]] && comparisons[in[0]] {
			cmpSwap = true
		}
		if len(d) > 4 || len(in) > 4 {
			small = false
		}
	}
	has := func(ts []string, xs ...string) bool {
		for _, x := range xs {
			if slices.Contains(ts, x) {
				return true
			}
		}
		return false
	}
	count := func(ts []string, x string) int {
		n := 0
		for _, t := range ts {
			if t == x {
				n++
			}
		}
		return n
	}
	switch {
	case changed == 0:
		return FixOther
	case has(ins, "catch") && has(ins, "NumberFormatException"):
		return FixCatchNFE
	case has(ins, "instanceof"):
		return FixInstanceof
	case count(del, "throw") > count(ins, "throw"):
		return FixRemoveThrow
	case has(ins, "if", "&&") && has(b, "matches", "find", "lookingAt") && has(b, "group", "start", "end"):
		return FixStateCheck
	case has(ins, "null") && has(ins, "==", "!="):
		return FixNullGuard
	case has(ins, "if", "&&") && parserCall(b) && !parserCall(ins):
		return FixParseGuard
	case has(ins, "<", "<=", ">", ">=") && has(ins, "length", "size"):
		return FixBoundsCheck
	case cmpSwap:
		return FixComparison
	case small && (has(ins, "+", "-", "length", "size") || has(del, "+", "-", "length", "size") || numeric(ins) || numeric(del)):
		return FixIndexLength
	}
	return FixOther
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
			pc = &PatternCount{Type: s.Exception, Pattern: p, BugIDs: []string{}, Operators: []string{}}
			for _, op := range Operators {
				if op.Fix == p && slices.Contains(op.Types, s.Exception) {
					pc.Operators = append(pc.Operators, op.Name)
				}
			}
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
		if a.Type != b.Type {
			if a.Type < b.Type {
				return -1
			}
			return 1
		}
		if a.Pattern < b.Pattern {
			return -1
		}
		if a.Pattern > b.Pattern {
			return 1
		}
		return 0
	})
	return append(out, rest...)
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
