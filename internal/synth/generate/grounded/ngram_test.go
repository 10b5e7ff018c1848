package grounded

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/ngram"
	"github.com/benchforge/benchforge/internal/ngram/ngramtest"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/gate"
	"github.com/benchforge/benchforge/internal/synth/generate"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// TestNgramServerPlumbing runs the seed-grounded generator against
// benchforge's own n-gram LM behind its OpenAI-compatible server on a real
// loopback listener. Its answers are code-like text, not two fenced Java
// blocks, so the gates must reject every candidate with a cause — never
// crash — and a rerun must be served from the records without a call.
func TestNgramServerPlumbing(t *testing.T) {
	spec := ngramtest.Serve(t, seedLM(t), "tiny-java")

	seeds := testSeeds()
	dir, cache := t.TempDir(), t.TempDir()
	quotas := map[string]int{corpus.NullPointer: 4, corpus.ClassCast: 2}
	run := func() (*generate.Stats, llm.Manifest) {
		s := session(t, cache, llm.SessionOptions{})
		m, err := s.Open(spec)
		testcheck.Must(t, err)
		g, err := New(m, Options{Seed: 2}, llmgenOptions(dir))
		testcheck.Must(t, err)
		defer g.Close()
		st, err := generate.Run(context.Background(), g, generate.RunOptions{Dir: dir, PerType: quotas, Seeds: seeds})
		testcheck.Must(t, err)
		return st, s.Manifest()
	}
	st, man := run()
	if st.New != 6 || man.Calls != 6 {
		t.Fatalf("first run: %+v, %d calls", st, man.Calls)
	}
	checkAllRejected(t, dir, seeds, 6)
	st, man = run()
	if st.Resumed != 6 || st.New != 0 || man.Calls != 0 || man.CacheHits != 0 {
		t.Errorf("rerun: %+v, %d calls, %d cache hits; want everything from calls.jsonl", st, man.Calls, man.CacheHits)
	}
}

// seedLM trains a trigram LM on the test seeds' methods.
func seedLM(t *testing.T) *ngram.Model {
	t.Helper()
	src := t.TempDir()
	for _, s := range testSeeds() {
		testcheck.Must(t, os.WriteFile(filepath.Join(src, s.BugID[:6]+".java"), []byte("class A {\n"+s.BuggyMethod+s.FixedMethod+"}\n"), 0o644))
	}
	m, err := ngram.Train(context.Background(), ngram.Corpus{Paths: []string{src}}, ngram.Options{Order: 3})
	testcheck.Must(t, err)
	return m
}

// checkAllRejected gates dir's candidates: all n must be rejected, each
// with a cause and a detail.
func checkAllRejected(t *testing.T, dir string, seeds []corpus.Seed, n int) {
	t.Helper()
	cands, err := gate.ReadCandidates(filepath.Join(dir, generate.CandidatesFile))
	testcheck.Must(t, err)
	res, err := gate.Run(context.Background(), cands, seeds, gate.DefaultOptions())
	testcheck.Must(t, err)
	if len(res.Accepted) != 0 || len(res.Rejected) != n {
		t.Fatalf("%d accepted, %d rejected; want all %d rejected", len(res.Accepted), len(res.Rejected), n)
	}
	for _, r := range res.Rejected {
		if r.Cause == "" || r.Detail == "" {
			t.Errorf("rejection without cause: %+v", r)
		}
		t.Logf("%s", r)
	}
}
