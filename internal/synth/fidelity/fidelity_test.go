package fidelity

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/fidelity/fidelitytest"
	"github.com/benchforge/benchforge/internal/testcheck"
)

func smallCorpus() ([]corpus.Pair, []corpus.Seed) {
	seeds := fidelitytest.Seeds(40, 7)
	return fidelitytest.Pairs(seeds, 70, 7), seeds
}

func TestGolden(t *testing.T) {
	pairs, seeds := smallCorpus()
	// One unparseable synthetic method, one verbatim copy of a seed.
	pairs[3].FixedMethod = "int broken( {"
	pairs[5].BuggyMethod = seeds[5].BuggyMethod
	pairs[5].ErrorType = seeds[5].Exception
	r, err := Run(context.Background(), pairs, seeds, Options{Fixed: true, Workers: 2})
	testcheck.Must(t, err)
	golden.CheckString(t, filepath.Join("testdata", "small.md"), r.Markdown())
	if len(r.Skipped) != 1 {
		t.Fatalf("skipped = %+v, want the fixed method of %s", r.Skipped, pairs[3].PairID)
	}
	testcheck.Eq(t, "skipped id", r.Skipped[0].ID, pairs[3].PairID)
	testcheck.Eq(t, "skipped side", r.Skipped[0].Side, "fixed")
	if r.Distance.Exact < 1 {
		t.Errorf("exact reproductions = %d, want ≥ 1 (pair %s copies seed %s)", r.Distance.Exact, pairs[5].PairID, seeds[5].BugID)
	}
	if r.Distance.MaxGram.Gram != 1 && !r.Distance.ExactListHas(pairs[5].PairID) {
		t.Errorf("copied method not found as exact reproduction: %+v", r.Distance.ExactList)
	}
	// The JSON round trip renders the same Markdown (--render-only).
	b, err := json.Marshal(r)
	testcheck.Must(t, err)
	var back Report
	testcheck.Must(t, json.Unmarshal(b, &back))
	if d := cmp.Diff(r.Markdown(), back.Markdown()); d != "" {
		t.Errorf("markdown after JSON round trip differs:\n%s", d)
	}
	if _, err := back.Page(); err != nil {
		t.Errorf("page: %v", err)
	}
}

func TestReferenceRule(t *testing.T) {
	seeds := make([]corpus.Seed, 0)
	lloc := []int{}
	// NPE LLOCs 1..8 and 40: Q1=3, Q3=7 (type 7 over 1..8,40 → 3, 7), fence 13.
	for i, v := range []int{1, 2, 3, 4, 5, 6, 7, 8, 40} {
		seeds = append(seeds, corpus.Seed{BugID: "n" + string(rune('a'+i)), Exception: corpus.NullPointer})
		lloc = append(lloc, v)
	}
	// A lone CCE seed is never excluded; an unmeasured seed is never in.
	seeds = append(seeds, corpus.Seed{BugID: "c", Exception: corpus.ClassCast}, corpus.Seed{BugID: "u", Exception: corpus.ClassCast})
	lloc = append(lloc, 99, -1)
	in, ref, err := referenceSet(seeds, lloc, nil)
	testcheck.Must(t, err)
	want := []bool{true, true, true, true, true, true, true, true, false, true, false}
	if d := cmp.Diff(want, in); d != "" {
		t.Errorf("membership (-want +got):\n%s", d)
	}
	testcheck.Eq(t, "reference n", ref.N, 9)
	if len(ref.Excluded) != 1 || ref.Excluded[0].BugID != "ni" || ref.Excluded[0].Fence != 13 {
		t.Errorf("reference excluded %+v, want ni over the fence 13", ref.Excluded)
	}
	in, ref, err = referenceSet(seeds, lloc, []string{"na", "c"})
	testcheck.Must(t, err)
	testcheck.Eq(t, "explicit list: membership of na, nb, c", [3]bool{in[0], in[1], in[9]}, [3]bool{true, false, true})
	testcheck.Eq(t, "explicit list: n", ref.N, 2)
	testcheck.Eq(t, "explicit list: rule", ref.Rule, "file")
	if _, _, err := referenceSet(seeds, lloc, []string{"nope"}); !errors.Is(err, errs.ErrInput) || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown id: %v, want ErrInput naming it", err)
	}
}

func TestRunErrors(t *testing.T) {
	pairs, seeds := smallCorpus()
	ctx := context.Background()
	dup := append([]corpus.Seed{seeds[0]}, seeds...)
	bad := append([]corpus.Pair(nil), pairs...)
	bad[2].ErrorType = "IOException"
	cases := map[string]struct {
		p []corpus.Pair
		s []corpus.Seed
	}{
		"no pairs": {nil, seeds}, "no seeds": {pairs, nil},
		"duplicate seed": {pairs, dup}, "bad pair": {bad, seeds},
	}
	for name, c := range cases {
		if _, err := Run(ctx, c.p, c.s, Options{}); !errors.Is(err, errs.ErrInput) {
			t.Errorf("%s: err = %v, want ErrInput", name, err)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Run(cctx, pairs, seeds, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
}

func TestNearestSeedMatchesBruteForce(t *testing.T) {
	pairs, seeds := smallCorpus()
	var sm []seedMethod
	for i, s := range seeds {
		m, err := Measure(s.BuggyMethod)
		testcheck.Must(t, err)
		sm = append(sm, seedMethod{s.BugID, "buggy", i%3 != 0, fingerprintOf(m.Tokens)})
	}
	for _, p := range pairs[:30] {
		m, err := Measure(p.BuggyMethod)
		testcheck.Must(t, err)
		fp := fingerprintOf(m.Tokens)
		got := nearestSeed(fp, sm)
		want := bruteNearest(fp, sm)
		want.exact = got.exact
		if got != want {
			t.Errorf("%s: pruned %+v, brute force %+v", p.PairID, got, want)
		}
	}
}

// bruteNearest compares fp with every seed: the best Jaccard similarities
// over the pool and over the reference seeds, with the first reference
// seed reaching each (its exact field is left unset).
func bruteNearest(fp fingerprint, sm []seedMethod) nearest {
	var want nearest
	want.refSetI, want.refGramI = -1, -1
	for i, s := range sm {
		js, jg := jac(fp.set, s.fp.set), jac(fp.gram, s.fp.gram)
		want.poolSet, want.poolGram = max(want.poolSet, js), max(want.poolGram, jg)
		if !s.inRef {
			continue
		}
		if want.refSetI < 0 || js > want.refSet {
			want.refSet, want.refSetI = js, i
		}
		if want.refGramI < 0 || jg > want.refGram {
			want.refGram, want.refGramI = jg, i
		}
	}
	return want
}

// jac is an independent set Jaccard over hash sets.
func jac(a, b []uint64) float64 {
	in := map[uint64]int{}
	for _, x := range a {
		in[x] |= 1
	}
	for _, x := range b {
		in[x] |= 2
	}
	both := 0
	for _, v := range in {
		if v == 3 {
			both++
		}
	}
	if len(in) == 0 {
		return 1
	}
	return float64(both) / float64(len(in))
}
