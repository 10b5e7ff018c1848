package evaluate

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/fidelity/fidelitytest"
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
	if err != nil {
		t.Fatal(err)
	}
	golden.CheckString(t, filepath.Join("testdata", "small.md"), res.Report.Markdown())
	b, err := json.Marshal(res.Report)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(res.Report.Markdown(), back.Markdown()); d != "" {
		t.Errorf("markdown after JSON round trip differs:\n%s", d)
	}
	if _, err := back.Page(); err != nil {
		t.Errorf("page: %v", err)
	}
	// Re-analysing the written predictions reproduces the report.
	again, err := Analyze(context.Background(), res.Predictions, res.Seeds, AnalyzeOptions{Bootstrap: 200})
	if err != nil {
		t.Fatal(err)
	}
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
	var prov [][]string
	for _, p := range pairs {
		sbs, err := table.SourceBugs(p)
		if err != nil {
			t.Fatal(err)
		}
		prov = append(prov, sbs)
	}
	keep, dropped := Exclude(prov, map[string]bool{"Lang-1": true})
	if d := cmp.Diff([]int{4, 5}, keep); d != "" || dropped != 4 {
		t.Errorf("kept %v (dropped %d), want [4 5] (4):\n%s", keep, dropped, d)
	}
	_, err := table.SourceBugs(corpus.Pair{PairID: "syn-9", ExampleBugIDs: []string{"Math-2#0", "Lang-99#0"}})
	if !errors.Is(err, errs.ErrInput) || !strings.Contains(err.Error(), "syn-9") || !strings.Contains(err.Error(), "Lang-99#0") {
		t.Errorf("missing id: err = %v, want ErrInput naming the pair and the id", err)
	}
	// Run refuses a corpus with an unmapped id.
	ps, ss := smallData()
	ps[7].ExampleBugIDs = append(ps[7].ExampleBugIDs, "Nowhere-1#0")
	if _, err := Run(context.Background(), ps, ss, smallOpts()); !errors.Is(err, errs.ErrInput) || !strings.Contains(err.Error(), ps[7].PairID) {
		t.Errorf("Run with an unmapped id: %v", err)
	}
}

func TestNoLeakIntoTraining(t *testing.T) {
	// Every training pair of every fold is provenance-disjoint from the
	// fold's held-out source bugs.
	pairs, seeds := smallData()
	table := NewProvenanceTable(seeds)
	var prov [][]string
	for _, p := range pairs {
		sbs, err := table.SourceBugs(p)
		if err != nil {
			t.Fatal(err)
		}
		prov = append(prov, sbs)
	}
	folds, err := MakeFolds(seeds, 3, 42, true)
	if err != nil {
		t.Fatal(err)
	}
	for f := range 3 {
		held := map[string]bool{}
		for _, a := range folds {
			if a.Fold == f {
				held[a.SourceBug] = true
			}
		}
		keep, dropped := Exclude(prov, held)
		if dropped == 0 || len(keep) == 0 {
			t.Errorf("fold %d: kept %d dropped %d; the fixture should exercise both", f, len(keep), dropped)
		}
		for _, i := range keep {
			for _, sb := range prov[i] {
				if held[sb] {
					t.Errorf("fold %d: pair %s descends from held-out %s", f, pairs[i].PairID, sb)
				}
			}
		}
	}
}

func TestFolds(t *testing.T) {
	_, seeds := smallData()
	a, err := MakeFolds(seeds, 3, 42, true)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := MakeFolds(seeds, 3, 42, true)
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("same seed, different folds:\n%s", d)
	}
	c, _ := MakeFolds(seeds, 3, 7, true)
	if cmp.Equal(a, c) {
		t.Error("different run seeds gave identical folds")
	}
	// Every source bug exactly once, all of its pairs together.
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
	// Stratified: each type's source bugs spread so fold counts differ by ≤ 1.
	per := map[string][]int{}
	for _, x := range a {
		if per[x.Exception] == nil {
			per[x.Exception] = make([]int, 3)
		}
		per[x.Exception][x.Fold]++
	}
	for typ, counts := range per {
		if slices.Max(counts)-slices.Min(counts) > 1 {
			t.Errorf("type %s unbalanced across folds: %v", typ, counts)
		}
	}
	if _, err := MakeFolds(seeds, 1, 42, true); !errors.Is(err, errs.ErrUsage) {
		t.Errorf("1 fold: %v", err)
	}
	if _, err := MakeFolds(seeds[:2], 3, 42, true); !errors.Is(err, errs.ErrUsage) {
		t.Errorf("more folds than source bugs: %v", err)
	}
}

func TestDeterminism(t *testing.T) {
	pairs, seeds := smallData()
	opt := smallOpts()
	opt.NoSweep = true
	a, err := Run(context.Background(), pairs, seeds, opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Workers = 1
	b, err := Run(context.Background(), pairs, seeds, opt)
	if err != nil {
		t.Fatal(err)
	}
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
	if err != nil {
		t.Fatal(err)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	rep, err = Analyze(context.Background(), got, seeds, AnalyzeOptions{Bootstrap: 100})
	if err != nil {
		t.Fatal(err)
	}
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
		if _, err := ImportPredictions([]Prediction{p}, seeds); !errors.Is(err, errs.ErrInput) {
			t.Errorf("bad prediction %d: %v", i, err)
		}
	}
}
