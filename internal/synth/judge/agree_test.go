package judge

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
)

func writeLog(t *testing.T, path, model, rubric string, verdicts []string, types []string) {
	t.Helper()
	var recs []Record
	for i, v := range verdicts {
		recs = append(recs, Record{PairID: fmt.Sprintf("p%02d", i), ErrorType: types[i], Model: model, Rubric: rubric, Initial: v, Verdict: v})
	}
	testcheck.Must(t, jsonl.Rewrite(path, recs))
}

// loadSources loads the judgement logs at the paths under dir.
func loadSources(t *testing.T, dir string, paths ...string) []*Source {
	t.Helper()
	var srcs []*Source
	for _, p := range paths {
		s, err := LoadSource(filepath.Join(dir, p))
		testcheck.Must(t, err)
		srcs = append(srcs, s)
	}
	return srcs
}

// pairRow returns the agreement row of a against b on sample.
func pairRow(t *testing.T, ag *Agreement, a, b *Source, sample string) *PairAgreement {
	t.Helper()
	for i := range ag.Pairs {
		if p := &ag.Pairs[i]; p.A == a.Label && p.B == b.Label && p.Sample == sample {
			return p
		}
	}
	t.Fatalf("missing row %s vs %s (%s) in %+v", a.Label, b.Label, sample, ag.Pairs)
	return nil
}

// TestAgree checks acceptance, raw agreement, κ (hand-computed) and the
// repeated-run and excl.-ISE rows on small logs.
func TestAgree(t *testing.T) {
	dir := t.TempDir()
	A, R, U := Accept, Reject, Unparseable
	types := []string{corpus.NullPointer, corpus.NullPointer, corpus.NullPointer, corpus.NullPointer, corpus.NullPointer,
		corpus.NullPointer, corpus.NullPointer, corpus.NullPointer, corpus.IllegalState, corpus.IllegalState}
	// a vs b on the 9 pairs both judged parseably (p09 unparseable in b):
	// a: A A A A A A R R A ; b: A A A A A R R R R
	// agree 7/9; pa(A)=7/9, pb(A)=5/9; pe = 7/9·5/9 + 2/9·4/9 = 43/81;
	// κ = (63/81 − 43/81)/(1 − 43/81) = 20/38.
	writeLog(t, filepath.Join(dir, "a.jsonl"), "openai:flash", RubricPatch, []string{A, A, A, A, A, A, R, R, A, A}, types)
	writeLog(t, filepath.Join(dir, "b.jsonl"), "openai:pro", RubricPatch, []string{A, A, A, A, A, R, R, R, R, U}, types)
	writeLog(t, filepath.Join(dir, "run2", "a.jsonl"), "openai:flash", RubricPatch, []string{A, A, A, A, A, A, R, R, A, R}, types)
	writeLog(t, filepath.Join(dir, "w.jsonl"), "openai:flash", RubricWhole, []string{A, R, R, A, R, R, R, R, R, R}, types)
	srcs := loadSources(t, dir, "a.jsonl", "b.jsonl", "run2/a.jsonl", "w.jsonl")
	ag, err := Agree(srcs)
	testcheck.Must(t, err)
	if ag.Acceptance[0].Rubric != RubricWhole || ag.Acceptance[0].Accepted != 2 {
		t.Errorf("whole-method acceptance first: %+v", ag.Acceptance[0])
	}
	ab := pairRow(t, ag, srcs[0], srcs[1], "all")
	abNoISE := pairRow(t, ag, srcs[0], srcs[1], "excl. "+corpus.IllegalState)
	rep := pairRow(t, ag, srcs[0], srcs[2], "all")
	testcheck.Eq(t, "a vs b: n", ab.N, 9)
	testcheck.Eq(t, "a vs b: dropped", ab.Dropped, 1)
	checkNear(t, "a vs b: agreement", ab.Agree, 7.0/9)
	checkNear(t, "a vs b: kappa", kappaOf(ab), 20.0/38)
	testcheck.Eq(t, "a vs b: repeated", ab.Repeated, false)
	testcheck.Eq(t, "a vs b excl. ISE: n", abNoISE.N, 8)
	checkNear(t, "a vs b excl. ISE: agreement", abNoISE.Agree, 7.0/8)
	testcheck.Eq(t, "repeated run: repeated", rep.Repeated, true)
	testcheck.Eq(t, "repeated run: n", rep.N, 10)
	checkNear(t, "repeated run: agreement", rep.Agree, 0.9)
	if srcs[0].Label == srcs[2].Label {
		t.Errorf("repeated runs share the label %q", srcs[0].Label)
	}
	_, err = Agree(srcs[:1])
	testcheck.ErrIs(t, "one source", err, errs.ErrUsage)
	mixed := filepath.Join(dir, "mixed.jsonl")
	testcheck.Must(t, jsonl.Rewrite(mixed, []Record{{PairID: "x", Model: "m1", Rubric: RubricPatch}, {PairID: "y", Model: "m2", Rubric: RubricPatch}}))
	_, err = LoadSource(mixed)
	testcheck.ErrIs(t, "mixed log", err, errs.ErrInput)
}

// kappaOf is a row's κ, NaN for a row without one.
func kappaOf(p *PairAgreement) float64 {
	if p.Kappa == nil {
		return math.NaN()
	}
	return p.Kappa.Kappa
}
