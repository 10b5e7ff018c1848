package evaluate

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/fidelity/fidelitytest"
	"github.com/benchforge/benchforge/internal/testcheck"
)

func smallOpts() Options {
	return Options{Folds: 3, RunSeeds: []uint64{42, 7}, Trees: 10, Bootstrap: 200, Sweep: []int{40, 80}, Workers: 2}
}

func smallData() ([]corpus.Pair, []corpus.Seed) {
	seeds := fidelitytest.Seeds(30, 3)
	return fidelitytest.Pairs(seeds, 120, 3), seeds
}

func TestGolden(t *testing.T) {
	pairs, seeds := smallData()
	res, err := Run(context.Background(), pairs, seeds, smallOpts())
	testcheck.Must(t, err)
	golden.CheckString(t, filepath.Join("testdata", "small.md"), res.Report.Markdown())
	b, err := json.Marshal(res.Report)
	testcheck.Must(t, err)
	var back Report
	testcheck.Must(t, json.Unmarshal(b, &back))
	if d := cmp.Diff(res.Report.Markdown(), back.Markdown()); d != "" {
		t.Errorf("markdown after JSON round trip differs:\n%s", d)
	}
	if _, err := back.Page(); err != nil {
		t.Errorf("page: %v", err)
	}
	// Re-analysing the written predictions reproduces the report.
	again, err := Analyze(context.Background(), res.Predictions, res.Seeds, AnalyzeOptions{Bootstrap: 200})
	testcheck.Must(t, err)
	if d := cmp.Diff(res.Report.Results, again.Results); d != "" {
		t.Errorf("Analyze(predictions) differs from Run's report:\n%s", d)
	}
}

func TestProvenanceExclusion(t *testing.T) {
	seeds := []corpus.Seed{
		{BugID: "Lang-1#0", SourceBug: "Lang-1"}, {BugID: "Lang-1#1", SourceBug: "Lang-1"},
		{BugID: "Math-2#0", SourceBug: "Math-2"}, {BugID: "Chart-3#0", SourceBug: "Chart-3"},
	}
	table := NewProvenanceTable(seeds)
	pairs := []corpus.Pair{
		{PairID: "drop-direct", ExampleBugIDs: []string{"Lang-1#0"}},
		{PairID: "drop-sibling", ExampleBugIDs: []string{"Lang-1#1"}},         // other method of the held-out bug
		{PairID: "drop-any", ExampleBugIDs: []string{"Math-2#0", "Lang-1#1"}}, // one of two exemplars held out
		{PairID: "drop-source-id", ExampleBugIDs: []string{"Lang-1"}},         // id naming the source bug itself
		{PairID: "keep", ExampleBugIDs: []string{"Math-2#0", "Chart-3#0"}},
		{PairID: "keep-none", ExampleBugIDs: nil}, // no provenance: nothing to leak
	}
	prov := sourceBugsOf(t, table, pairs)
	keep, dropped := Exclude(prov, map[string]bool{"Lang-1": true})
	if d := cmp.Diff([]int{4, 5}, keep); d != "" || dropped != 4 {
		t.Errorf("kept %v (dropped %d), want [4 5] (4):\n%s", keep, dropped, d)
	}
	_, err := table.SourceBugs(corpus.Pair{PairID: "syn-9", ExampleBugIDs: []string{"Math-2#0", "Lang-99#0"}})
	testcheck.ErrIs(t, "missing id", err, errs.ErrInput)
	testcheck.ErrSays(t, "missing id", err, "syn-9")
	testcheck.ErrSays(t, "missing id", err, "Lang-99#0")
	// Run refuses a corpus with an unmapped id.
	ps, ss := smallData()
	ps[7].ExampleBugIDs = append(ps[7].ExampleBugIDs, "Nowhere-1#0")
	_, err = Run(context.Background(), ps, ss, smallOpts())
	testcheck.ErrIs(t, "Run with an unmapped id", err, errs.ErrInput)
	testcheck.ErrSays(t, "Run with an unmapped id", err, ps[7].PairID)
}

func TestNoLeakIntoTraining(t *testing.T) {
	// Every training pair of every fold is provenance-disjoint from the
	// fold's held-out source bugs.
	pairs, seeds := smallData()
	prov := sourceBugsOf(t, NewProvenanceTable(seeds), pairs)
	folds, err := MakeFolds(seeds, 3, 42, true)
	testcheck.Must(t, err)
	for f := range 3 {
		held := heldOut(folds, f)
		keep, dropped := Exclude(prov, held)
		if dropped == 0 || len(keep) == 0 {
			t.Errorf("fold %d: kept %d dropped %d; the fixture should exercise both", f, len(keep), dropped)
		}
		for _, i := range keep {
			checkNoneHeld(t, fmt.Sprintf("fold %d: pair %s", f, pairs[i].PairID), prov[i], held)
		}
	}
}

// sourceBugsOf maps each pair to the source bugs of its exemplars.
func sourceBugsOf(t *testing.T, table ProvenanceTable, pairs []corpus.Pair) [][]string {
	t.Helper()
	var prov [][]string
	for _, p := range pairs {
		sbs, err := table.SourceBugs(p)
		testcheck.Must(t, err)
		prov = append(prov, sbs)
	}
	return prov
}

// heldOut is the set of source bugs that fold f holds out.
func heldOut(folds []FoldAssignment, f int) map[string]bool {
	held := map[string]bool{}
	for _, a := range folds {
		if a.Fold == f {
			held[a.SourceBug] = true
		}
	}
	return held
}

// checkNoneHeld reports each of a pair's source bugs that is held out.
func checkNoneHeld(t *testing.T, what string, sbs []string, held map[string]bool) {
	t.Helper()
	for _, sb := range sbs {
		if held[sb] {
			t.Errorf("%s descends from held-out %s", what, sb)
		}
	}
}

func TestFolds(t *testing.T) {
	_, seeds := smallData()
	a, err := MakeFolds(seeds, 3, 42, true)
	testcheck.Must(t, err)
	b, _ := MakeFolds(seeds, 3, 42, true)
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("same seed, different folds:\n%s", d)
	}
	c, _ := MakeFolds(seeds, 3, 7, true)
	if cmp.Equal(a, c) {
		t.Error("different run seeds gave identical folds")
	}
	checkFoldsCover(t, seeds, a)
	checkFoldsStratified(t, a, 3)
	_, err = MakeFolds(seeds, 1, 42, true)
	testcheck.ErrIs(t, "1 fold", err, errs.ErrUsage)
	_, err = MakeFolds(seeds[:2], 3, 42, true)
	testcheck.ErrIs(t, "more folds than source bugs", err, errs.ErrUsage)
}

// checkFoldsCover checks that the folds assign every source bug exactly
// once, all of its pairs together.
func checkFoldsCover(t *testing.T, seeds []corpus.Seed, a []FoldAssignment) {
	t.Helper()
	bugs := map[string]int{}
	for _, s := range seeds {
		bugs[s.SourceBug]++
	}
	seen := map[string]bool{}
	for _, x := range a {
		if seen[x.SourceBug] || len(x.BugIDs) != bugs[x.SourceBug] {
			t.Errorf("source bug %s: seen twice or split (%v)", x.SourceBug, x.BugIDs)
		}
		seen[x.SourceBug] = true
	}
	if len(seen) != len(bugs) {
		t.Errorf("%d of %d source bugs assigned", len(seen), len(bugs))
	}
}

// checkFoldsStratified checks that each type's source bugs spread so fold
// counts differ by ≤ 1.
func checkFoldsStratified(t *testing.T, a []FoldAssignment, k int) {
	t.Helper()
	per := map[string][]int{}
	for _, x := range a {
		if per[x.Exception] == nil {
			per[x.Exception] = make([]int, k)
		}
		per[x.Exception][x.Fold]++
	}
	for typ, counts := range per {
		if slices.Max(counts)-slices.Min(counts) > 1 {
			t.Errorf("type %s unbalanced across folds: %v", typ, counts)
		}
	}
}

func TestDeterminism(t *testing.T) {
	pairs, seeds := smallData()
	opt := smallOpts()
	opt.NoSweep = true
	a, err := Run(context.Background(), pairs, seeds, opt)
	testcheck.Must(t, err)
	opt.Workers = 1
	b, err := Run(context.Background(), pairs, seeds, opt)
	testcheck.Must(t, err)
	if d := cmp.Diff(a.Predictions, b.Predictions); d != "" {
		t.Errorf("predictions depend on workers:\n%s", d)
	}
}

func TestLengthRuleAndImport(t *testing.T) {
	seeds := []SeedInfo{
		{BugID: "a", Exception: corpus.NullPointer, BuggyTokens: 10, FixedTokens: 20}, // grows: rule right
		{BugID: "b", Exception: corpus.NullPointer, BuggyTokens: 20, FixedTokens: 10}, // shrinks: rule wrong
		{BugID: "c", Exception: corpus.ClassCast, BuggyTokens: 15, FixedTokens: 15},   // tie: ½
		{BugID: "d", Exception: corpus.ClassCast, BuggyTokens: 5, FixedTokens: 9},
	}
	rep, err := Analyze(context.Background(), LengthRule(seeds), seeds, AnalyzeOptions{Bootstrap: 100})
	testcheck.Must(t, err)
	row := rep.Results[0]
	if row.Mean != 0.625 || *row.ResidualMean != 0.25 || rep.ResidualPairs != 2 {
		t.Errorf("length rule: accuracy %v residual %v (n=%d), want 0.625, 0.25, 2", row.Mean, *row.ResidualMean, rep.ResidualPairs)
	}
	ext := []Prediction{
		{Task: Isolated, Model: "codebert", BugID: "a", Side: "buggy", Score: 0.9},
		{Task: Isolated, Model: "codebert", BugID: "a", Side: "fixed", Score: 0.2},
		{Task: Isolated, Model: "codebert", BugID: "b", Side: "buggy", Score: 0.4},
		{Task: Isolated, Model: "codebert", BugID: "b", Side: "fixed", Score: 0.6},
	}
	got, err := ImportPredictions(ext, seeds)
	testcheck.Must(t, err)
	rep, err = Analyze(context.Background(), got, seeds, AnalyzeOptions{Bootstrap: 100})
	testcheck.Must(t, err)
	// Positives 0.9, 0.4 vs negatives 0.2, 0.6: 3 of 4 orderings → 0.75.
	if rep.Results[0].Mean != 0.75 || rep.Results[0].Training != LeaveSeedsOut {
		t.Errorf("imported AUC = %+v, want 0.75", rep.Results[0])
	}
	bad := []Prediction{
		{Task: Isolated, Model: "x", BugID: "zz", Side: "buggy", Score: 0.5},
		{Task: Isolated, Model: "x", BugID: "a", Side: "left", Score: 0.5},
		{Task: PairTask, Model: "x", BugID: "a", Order: BuggyFirst, Score: 1.5},
		{Task: Isolated, BugID: "a", Side: "buggy", Score: 0.5},
	}
	for i, p := range bad {
		_, err := ImportPredictions([]Prediction{p}, seeds)
		testcheck.ErrIs(t, fmt.Sprintf("bad prediction %d", i), err, errs.ErrInput)
	}
}
