package jvm

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
)

func crit(e Execution) string {
	s := ""
	if e.Criteria.A {
		s += "a"
	}
	if e.Criteria.B {
		s += "b"
	}
	if e.Criteria.C {
		s += "c"
	}
	if s == "" {
		return "-"
	}
	return s
}

func verifyAll(t *testing.T, opts Options, tps []testPair) map[string]Execution {
	t.Helper()
	ctx := context.Background()
	v, err := New(ctx, opts)
	testcheck.Must(t, err)
	defer v.Close()
	pairs := make([]corpus.Pair, len(tps))
	for i, tp := range tps {
		pairs[i] = tp.pair
	}
	got := map[string]Execution{}
	testcheck.Must(t, v.Verify(ctx, pairs, func(e Execution) error { got[e.PairID] = e; return nil }))
	return got
}

// TestVerify runs the hand-written pairs and the hazard pairs through one
// verifier (one javac server and worker start, to keep the test fast).
func TestVerify(t *testing.T) {
	opts := needJDK(t)
	opts.Timeout = 1500 * time.Millisecond
	tps := readPairs(t, "testdata/pairs.txt")
	hz := readPairs(t, "testdata/hazards.txt")
	start := time.Now()
	got := verifyAll(t, opts, append(append([]testPair(nil), tps...), hz...))
	t.Logf("%d pairs in %v", len(tps)+len(hz), time.Since(start))
	t.Run("pairs", func(t *testing.T) { checkPairs(t, tps, got) })
	t.Run("hazards", func(t *testing.T) { checkHazards(t, hz, got) })
}

func checkPairs(t *testing.T, tps []testPair, got map[string]Execution) {
	seen := map[string]bool{}
	for _, tp := range tps {
		e, ok := got[tp.pair.PairID]
		if !ok {
			t.Errorf("%s: no record", tp.pair.PairID)
			continue
		}
		if tp.pair.Generator == "hand" && tp.expect == "abc" {
			seen[tp.pair.ErrorType] = true
		}
		checkPair(t, tp, e)
	}
	for _, ty := range corpus.Types {
		if !seen[ty] {
			t.Errorf("no valid hand-written pair for %s", ty)
		}
	}
	checkPairDetails(t, got)
	checkBatchRounds(t, got)
}

// checkPair checks one pair's record against its expected criteria: its
// compile result, criteria, status, trigger and budget.
func checkPair(t *testing.T, tp testPair, e Execution) {
	t.Helper()
	if tp.expect == "nocompile" {
		if e.Compile.OK || e.Status != StatusUnconfirmed {
			t.Errorf("%s: compiled=%v status=%s, want cannot compile", tp.pair.PairID, e.Compile.OK, e.Status)
		}
		return
	}
	if !e.Compile.OK {
		t.Errorf("%s: did not compile: %s (stubs %v)", tp.pair.PairID, e.Compile.Reason, e.Compile.Stubs)
		return
	}
	if c := crit(e); c != tp.expect {
		t.Errorf("%s: criteria %s, want %s; reason %q; a=%+v b=%+v c=%+v site=%v tried=%d", tp.pair.PairID, c, tp.expect, e.Reason, e.A, e.B, e.C, e.Site, e.InputsTried)
	}
	wantStatus := StatusUnconfirmed
	if e.Criteria.C {
		wantStatus = StatusConfirmed
	}
	if e.Status != wantStatus {
		t.Errorf("%s: status %s, want %s", tp.pair.PairID, e.Status, wantStatus)
	}
	if e.Criteria.C && (inputOf(e.C) == "" || e.C.Buggy.Line == 0) {
		t.Errorf("%s: confirmed without an input or site line: %+v", tp.pair.PairID, e.C)
	}
	if e.Calls > e.Budget {
		t.Errorf("%s: %d calls exceed the budget", tp.pair.PairID, e.Calls)
	}
}

// checkPairDetails spot-checks recorded detail: a trigger, a reason and
// the stubs grown.
func checkPairDetails(t *testing.T, got map[string]Execution) {
	t.Helper()
	if c := got["npe-valid"].C; c == nil || c.Input != "len(null)" || c.Buggy.Exception != "java.lang.NullPointerException" || c.Buggy.Line != 2 {
		t.Errorf("npe-valid trigger = %+v, want len(null) raising NPE on line 2", c)
	}
	if e := got["iae-fix-adds-throw"]; e.Reason == "" || e.B != nil {
		t.Errorf("iae-fix-adds-throw: reason %q, b=%+v", e.Reason, e.B)
	}
	if e := got["npe-stub-field"]; len(e.Compile.Stubs) == 0 {
		t.Errorf("npe-stub-field compiled without stubs?")
	}
	// Both methods call new Holder(s): one constructor stub, not two.
	if e := got["npe-stub-ctor"]; len(slices.DeleteFunc(slices.Clone(e.Compile.Stubs), func(s string) bool { return s != "Holder(java.lang.String)" })) != 1 {
		t.Errorf("npe-stub-ctor stubs %q, want Holder(java.lang.String) once", e.Compile.Stubs)
	}
}

// checkBatchRounds checks one batch's javac runs: as many rounds as its
// slowest pair needs, plus at most one for pairs whose classes an error
// kept javac from writing; an error in one pair must not make the others
// wait a round each.
func checkBatchRounds(t *testing.T, got map[string]Execution) {
	t.Helper()
	most := 0
	for _, e := range got {
		most = max(most, e.Compile.Rounds)
	}
	for id, e := range got {
		if e.Compile.BatchRounds < e.Compile.Rounds || e.Compile.BatchRounds > most+1 {
			t.Errorf("%s: %d rounds of its own in a batch of %d javac runs; the slowest pair took %d", id, e.Compile.Rounds, e.Compile.BatchRounds, most)
		}
	}
}

// firstHazard is the outcome kind of a record's first hazard, "" without
// one.
func firstHazard(e Execution) string {
	if len(e.Hazards) == 0 {
		return ""
	}
	return e.Hazards[0].Outcome.Kind
}

func checkHazards(t *testing.T, tps []testPair, got map[string]Execution) {
	for _, tp := range tps {
		e := got[tp.pair.PairID]
		if c := crit(e); c != tp.expect {
			t.Errorf("%s: criteria %s, want %s (%s)", tp.pair.PairID, c, tp.expect, e.Reason)
		}
	}
	testcheck.Eq(t, "exit: first hazard", firstHazard(got["exit"]), "exited")
	testcheck.Eq(t, "loop: first hazard", firstHazard(got["loop"]), "timeout")
	if e := got["loop"]; e.InputsTried > maxHazards {
		t.Errorf("loop: tried %d, want an early stop after the timeouts", e.InputsTried)
	}
	if e := got["recursion"]; len(e.Hazards) != 0 || e.InputsTried == 0 {
		t.Errorf("recursion: hazards %+v tried %d: StackOverflowError should be an ordinary outcome", e.Hazards, e.InputsTried)
	}
	if e := got["alloc"]; e.InputsTried == 0 {
		t.Errorf("alloc: nothing tried")
	}
}
