package grounded

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/llm"
	_ "github.com/benchforge/benchforge/internal/llm/providers"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/gate"
	"github.com/benchforge/benchforge/internal/synth/generate"
	"github.com/benchforge/benchforge/internal/synth/generate/llmgen"
	"github.com/benchforge/benchforge/internal/testcheck"
)

var fixedNow = func() time.Time { return time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC) }

// TestExemplarSelection: with PairShare 0.74, exactly ⌊n·0.74⌋ of the first
// n prompts of a pair-capable type are k=2, taking successive pair-queue
// draws (so the first C(5,2)=10 k=2 prompts show all ten pairs), and the
// rest successive rotation draws; a type below MinPairSeeds is k=1 only.
func TestExemplarSelection(t *testing.T) {
	p := NewPrompter(Options{Seed: 11})
	seeds := testSeeds()
	testcheck.Must(t, p.Prepare(seeds))
	k2, k1, pairs := countNPEExemplars(t, p)
	if k2 != 74 || k1 != 26 || pairs != 10 {
		t.Errorf("100 prompts: %d k=2 (want 74), %d k=1, %d distinct pairs among the first 10 (want 10)", k2, k1, pairs)
	}
	checkCCERotates(t, p)
	if _, _, err := p.Exemplars(corpus.NumberFormat, 0); !errors.Is(err, errs.ErrInput) {
		t.Errorf("type without seeds: %v", err)
	}
	testcheck.Eq(t, "Serves(NumberFormat)", p.Serves(corpus.NumberFormat), false)
	testcheck.Eq(t, "Serves(ClassCast)", p.Serves(corpus.ClassCast), true)
}

// countNPEExemplars draws the exemplars of the first 100 NPE prompts,
// stopping the test at a k=2 prompt off the pair queue or a k=1 prompt
// with other than one exemplar, and counts the k=2 and k=1 prompts and
// the distinct pairs among the first ten k=2 ones.
func countNPEExemplars(t *testing.T, p *Prompter) (k2, k1, distinct int) {
	t.Helper()
	q, _ := NewPairQueue(5, 11, "pairs/"+corpus.NullPointer)
	pairs := map[[2]int]bool{}
	for n := 0; n < 100; n++ {
		idx, isPair, err := p.Exemplars(corpus.NullPointer, n)
		testcheck.Must(t, err)
		if !isPair {
			k1++
			if len(idx) != 1 {
				t.Fatalf("prompt %d: k=1 with %v", n, idx)
			}
			continue
		}
		i, j := q.Pair(k2)
		if !slices.Equal(idx, []int{i, j}) {
			t.Fatalf("prompt %d: exemplars %v, want pair-queue draw %d = (%d,%d)", n, idx, k2, i, j)
		}
		if k2 < 10 {
			pairs[[2]int{i, j}] = true
		}
		k2++
	}
	return k2, k1, len(pairs)
}

// checkCCERotates checks that the ClassCast prompts (a type below
// MinPairSeeds) are k=1, no two in a row with the same seed.
func checkCCERotates(t *testing.T, p *Prompter) {
	t.Helper()
	prev := -1
	for n := 0; n < 6; n++ {
		idx, isPair, err := p.Exemplars(corpus.ClassCast, n)
		if err != nil || isPair || len(idx) != 1 {
			t.Fatalf("CCE prompt %d: %v %v %v", n, idx, isPair, err)
		}
		if idx[0] == prev {
			t.Errorf("CCE prompts %d and %d reuse seed %d", n-1, n, idx[0])
		}
		prev = idx[0]
	}
}

// TestPromptContent: a k=2 prompt carries both exemplars, their two-context
// diffs, the size target between them and the hard constraints.
func TestPromptContent(t *testing.T) {
	p := NewPrompter(Options{Seed: 1, PairShare: 1})
	testcheck.Must(t, p.Prepare(testSeeds()))
	pr, err := p.Prompt(corpus.NullPointer, 0)
	testcheck.Must(t, err)
	if len(pr.ExampleBugIDs) != 2 || pr.Operator != "k2-pair-queue" || pr.SizeTarget == 0 {
		t.Fatalf("prompt: %+v", pr)
	}
	for _, want := range []string{"### Example 1", "### Example 2", "```diff\n@@ ", "+    if (value == null) {",
		"aim between them", "identical signatures", "NullPointerException", "about " + strconv.Itoa(pr.SizeTarget) + " logical lines"} {
		testcheck.Contains(t, "prompt", pr.User, want)
	}
	d := MethodDiff("a\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nX\ne\nf\ng\n")
	testcheck.Eq(t, "MethodDiff", d, "@@ -2,5 +2,5 @@\n b\n c\n-d\n+X\n e\n f")
}

func session(t *testing.T, cacheDir string, opts llm.SessionOptions) *llm.Session {
	t.Helper()
	opts.CacheDir = cacheDir
	opts.Retry = llm.RetryPolicy{MaxAttempts: 1}
	s, err := llm.NewSession(opts)
	testcheck.Must(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// runOnce opens the model in s, generates into dir and closes the generator.
func runOnce(t *testing.T, s *llm.Session, spec, dir string, quotas map[string]int, seeds []corpus.Seed) (*generate.Stats, error) {
	t.Helper()
	m, err := s.Open(spec)
	testcheck.Must(t, err)
	g, err := New(m, Options{Seed: 5}, llmgen.Options{Dir: dir, Workers: 3, Batch: 3, MaxTokens: 1000, Temperature: 0.9, TopP: 0.9, Now: fixedNow})
	testcheck.Must(t, err)
	defer g.Close()
	return generate.Run(context.Background(), g, generate.RunOptions{Dir: dir, PerType: quotas, Seeds: seeds})
}

// TestScriptedEndToEnd: against a scripted OpenAI-compatible server, every
// answer becomes a candidate with its provenance, the gates accept them,
// every call is recorded, and a rerun makes no model call at all (not even
// with the llm cache off).
func TestScriptedEndToEnd(t *testing.T) {
	srv, spec := newScripted(t, 0)
	seeds := testSeeds()
	dir := t.TempDir()
	quotas := map[string]int{corpus.NullPointer: 5, corpus.ClassCast: 2}
	st, err := runOnce(t, session(t, t.TempDir(), llm.SessionOptions{}), spec, dir, quotas, seeds)
	testcheck.Must(t, err)
	if st.New != 7 || srv.hits.Load() != 7 {
		t.Fatalf("stats %+v, %d server hits; want 7 new candidates from 7 calls", st, srv.hits.Load())
	}
	cands, err := gate.ReadCandidates(filepath.Join(dir, generate.CandidatesFile))
	testcheck.Must(t, err)
	checkCandidateProvenance(t, cands, seeds)
	checkGatesKeepProvenance(t, cands, seeds, 7)
	checkCallRecords(t, dir, 7)
	atts, err := jsonl.ReadFile[generate.Attempt](filepath.Join(dir, generate.AttemptsFile))
	if err != nil || len(atts) != 7 {
		t.Fatalf("%d attempts (%v), want 7", len(atts), err)
	}

	// Resume: same directory, llm cache off — all from calls.jsonl.
	st, err = runOnce(t, session(t, "", llm.SessionOptions{NoCache: true}), spec, dir, quotas, seeds)
	testcheck.Must(t, err)
	testcheck.Eq(t, "resume: new", st.New, 0)
	testcheck.Eq(t, "resume: resumed", st.Resumed, 7)
	testcheck.Eq(t, "resume: server hits", srv.hits.Load(), 7)
	// A larger quota continues the same schedule: only the extra prompts call.
	quotas[corpus.NullPointer] = 8
	st, err = runOnce(t, session(t, "", llm.SessionOptions{NoCache: true}), spec, dir, quotas, seeds)
	testcheck.Must(t, err)
	testcheck.Eq(t, "extended run: new", st.New, 3)
	testcheck.Eq(t, "extended run: server hits", srv.hits.Load(), 10)
}

// checkCandidateProvenance checks that every candidate carries its answer,
// prompt hash, size target and generator id, and names one or two
// exemplars (one for ClassCast, which has a single seed) of its own type.
func checkCandidateProvenance(t *testing.T, cands []corpus.Candidate, seeds []corpus.Seed) {
	t.Helper()
	byID := map[string]corpus.Seed{}
	for _, s := range seeds {
		byID[s.BugID] = s
	}
	for _, c := range cands {
		checkCandidateRecord(t, c)
		if n := len(c.ExampleBugIDs); n < 1 || n > 2 || (c.ErrorType == corpus.ClassCast && n != 1) {
			t.Errorf("candidate %s: example_bug_ids %v", c.ID, c.ExampleBugIDs)
		}
		for _, id := range c.ExampleBugIDs {
			if byID[id].Exception != c.ErrorType {
				t.Errorf("candidate %s (%s) names exemplar %s of type %q", c.ID, c.ErrorType, id, byID[id].Exception)
			}
		}
	}
}

// checkCandidateRecord checks that a candidate carries its answer, a
// prompt hash, a size target and the generator id.
func checkCandidateRecord(t *testing.T, c corpus.Candidate) {
	t.Helper()
	if c.Answer == "" || c.SizeTarget < 3 {
		t.Errorf("candidate %s lacks its answer or size target: %+v", c.ID, c)
	}
	testcheck.Eq(t, "candidate "+c.ID+" prompt hash length", len(c.PromptHash), 64)
	if !strings.HasPrefix(c.Generator, Version+":openai:scripted@") {
		t.Errorf("candidate %s: generator %q", c.ID, c.Generator)
	}
}

// checkGatesKeepProvenance gates the candidates: want must pass, keeping
// their exemplars, prompt hash and size target.
func checkGatesKeepProvenance(t *testing.T, cands []corpus.Candidate, seeds []corpus.Seed, want int) {
	t.Helper()
	res, err := gate.Run(context.Background(), cands, seeds, gate.DefaultOptions())
	testcheck.Must(t, err)
	if len(res.Accepted) != want {
		t.Fatalf("gates accepted %d of %d: %v", len(res.Accepted), want, res.Rejected)
	}
	for _, p := range res.Accepted {
		if len(p.ExampleBugIDs) == 0 || p.PromptHash == "" || p.SizeTarget == 0 {
			t.Errorf("accepted pair %s lost its provenance: %+v", p.PairID, p)
		}
	}
}

// checkCallRecords checks that dir's calls.jsonl holds want complete call
// records.
func checkCallRecords(t *testing.T, dir string, want int) {
	t.Helper()
	calls, err := jsonl.ReadFile[llmgen.Call](filepath.Join(dir, llmgen.CallsFile))
	testcheck.Must(t, err)
	if len(calls) != want {
		t.Fatalf("%d calls recorded, want %d", len(calls), want)
	}
	for _, c := range calls {
		checkCallRecord(t, c)
	}
}

// checkCallRecord checks that a call record holds the prompt, the answer,
// the models, the request id and the template, parameters and time of the
// scripted run.
func checkCallRecord(t *testing.T, c llmgen.Call) {
	t.Helper()
	if c.System == "" || c.Answer == "" || c.Model == "" || c.RequestID == "" || c.Params.Seed == nil {
		t.Errorf("call record incomplete: %+v", c)
	}
	if !strings.Contains(c.User, "### Example 1") {
		t.Errorf("call record's prompt lacks the exemplar: %q", c.User)
	}
	testcheck.Eq(t, "reported model", c.ReportedModel, "scripted-1")
	testcheck.Eq(t, "template hash", c.TemplateHash, TemplateHash())
	testcheck.Eq(t, "max tokens", c.Params.MaxTokens, 1000)
	testcheck.Eq(t, "temperature", c.Params.Temperature, 0.9)
	if !c.Time.Equal(fixedNow()) {
		t.Errorf("call time %v, want %v", c.Time, fixedNow())
	}
}

// TestBudgetStopThenResume: a --max-cost that covers three calls stops the
// run with ErrBudget; the answers paid for are recorded, and a rerun with a
// larger budget pays only for the rest.
func TestBudgetStopThenResume(t *testing.T) {
	srv, spec := newScripted(t, 1000)
	seeds := testSeeds()
	dir := t.TempDir()
	quotas := map[string]int{corpus.NullPointer: 7}
	prices := map[string]llm.Price{spec: {InputPerMTok: 0, OutputPerMTok: 1000}} // $1 per 1,000-token answer
	_, err := runOnce(t, session(t, "", llm.SessionOptions{NoCache: true, MaxCost: 3.5, Prices: prices}), spec, dir, quotas, seeds)
	if !errors.Is(err, errs.ErrBudget) {
		t.Fatalf("err = %v, want ErrBudget", err)
	}
	paid := srv.hits.Load()
	calls, _ := jsonl.ReadFile[llmgen.Call](filepath.Join(dir, llmgen.CallsFile))
	if paid != 3 || len(calls) != 3 {
		t.Fatalf("budget run: %d server hits, %d recorded calls; want 3 and 3", paid, len(calls))
	}
	st, err := runOnce(t, session(t, "", llm.SessionOptions{NoCache: true, MaxCost: 10, Prices: prices}), spec, dir, quotas, seeds)
	testcheck.Must(t, err)
	if srv.hits.Load() != 7 || st.Have[corpus.NullPointer] != 7 {
		t.Errorf("resume: %d server hits in all (want 7: none repeated), stats %+v", srv.hits.Load(), st)
	}
	calls, _ = jsonl.ReadFile[llmgen.Call](filepath.Join(dir, llmgen.CallsFile))
	if len(calls) != 7 {
		t.Errorf("%d calls recorded, want 7", len(calls))
	}
}

func llmgenOptions(dir string) llmgen.Options {
	return llmgen.Options{Dir: dir, Workers: 2, MaxTokens: 60, Temperature: 0.9, TopP: 0.9, Now: fixedNow}
}
