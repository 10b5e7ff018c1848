package judge

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/ngram/ngramtest"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// TestNgramServerPlumbing runs a pass against benchforge's own n-gram LM
// behind its OpenAI-compatible server on a real loopback listener. Its
// answers are code-like garbage, not JSON: every pair must come out
// unparseable with the raw text kept (never guessed), and a second pass
// into a fresh directory must be served entirely from the session cache.
func TestNgramServerPlumbing(t *testing.T) {
	spec := ngramtest.Serve(t, ngramtest.Train(t, 3), "tiny-java")

	cache := t.TempDir()
	pairs := testPairs[:3]
	pass := func() (*Summary, string, int64, int64) {
		s := newSession(t, cache)
		j, err := New(open(t, s, spec), open(t, s, spec), Options{MaxTokens: 40, Now: fixedNow})
		testcheck.Must(t, err)
		dir := t.TempDir()
		sum, err := Run(context.Background(), j, pairs, dir, RunOptions{})
		testcheck.Must(t, err)
		man := s.Manifest()
		return sum, dir, man.Calls, man.CacheHits
	}
	sum, dir, calls, hits := pass()
	if calls == 0 || hits != 0 {
		t.Errorf("first pass: %d calls, %d cache hits", calls, hits)
	}
	recs, err := jsonl.ReadFile[Record](filepath.Join(dir, JudgementsFile))
	testcheck.Must(t, err)
	if len(recs) != len(pairs) || sum.Core+sum.Excluded != len(pairs) {
		t.Fatalf("%d records, summary %+v", len(recs), sum)
	}
	for _, r := range recs {
		checkParseErrorKept(t, r)
	}
	if sum.Table.Total.Unparseable == 0 {
		t.Errorf("n-gram garbage read as a verdict: %+v", sum.Table.Total)
	}
	sum2, _, calls2, hits2 := pass()
	if calls2 != 0 || hits2 != calls {
		t.Errorf("second pass: %d calls, %d cache hits; want 0 and %d", calls2, hits2, calls)
	}
	if d := sum2.Table.Total; d != sum.Table.Total {
		t.Errorf("cached pass differs: %+v vs %+v", d, sum.Table.Total)
	}
}

// checkParseErrorKept checks that a record holds its Stage 1 answer and,
// if unparseable, the parse error of one of its stages.
func checkParseErrorKept(t *testing.T, r Record) {
	t.Helper()
	if r.Stage1 == nil {
		t.Fatalf("%s: no stage 1 answer recorded", r.PairID)
	}
	if r.Verdict == Unparseable && (r.Stage1.Unparseable == "" && (r.Stage2 == nil || r.Stage2.Unparseable == "")) {
		t.Errorf("%s: unparseable without the parse error recorded", r.PairID)
	}
	t.Logf("%s: %s (%s) raw %q", r.PairID, r.Verdict, r.Category, clip(r.Stage1.Raw, 60))
}
