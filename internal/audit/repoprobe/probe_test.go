package repoprobe

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/llm/openai"
	"github.com/benchforge/benchforge/internal/ngram"
	"github.com/benchforge/benchforge/internal/stats"
)

func TestPValueMatchesBinomial(t *testing.T) {
	for _, n := range []int{1, 5, 30, 200} {
		for _, p0 := range []float64{0.01, 0.08, 0.2, 0.5} {
			for k := 1; k <= n; k += max(1, n/7) {
				b, err := stats.BinomTest(k, n, p0, stats.Greater)
				if err != nil {
					t.Fatal(err)
				}
				got := PValue(float64(k), n, p0)
				if math.Abs(got-b.P) > 1e-12*math.Max(1, b.P) && math.Abs(got-b.P)/b.P > 1e-9 {
					t.Errorf("PValue(%d, %d, %v) = %v, binomial tail %v", k, n, p0, got, b.P)
				}
			}
		}
	}
	if PValue(0, 10, 0.1) != 1 || PValue(-1, 10, 0.1) != 1 {
		t.Error("no hits must give p = 1")
	}
}

func TestPValueMonotone(t *testing.T) {
	for _, p0 := range []float64{0.05, 0.2} {
		prev := 1.0
		for w := 0.0; w <= 50; w += 0.25 {
			p := PValue(w, 50, p0)
			if p > prev+1e-15 || p < 0 || p > 1 {
				t.Fatalf("p0 %v: PValue(%v) = %v after %v", p0, w, p, prev)
			}
			prev = p
		}
	}
	// More evidence needed at a higher P0.
	if PValue(5, 50, 0.05) >= PValue(5, 50, 0.2) {
		t.Error("p-value does not grow with P0")
	}
}

func TestCalibrateP0(t *testing.T) {
	p, err := CalibrateP0([]float64{0.1, 0.2, 0.3})
	if err != nil || math.Abs(p-0.3) > 1e-12 {
		t.Errorf("CalibrateP0 = %v, %v; want mean 0.2 + sd 0.1", p, err)
	}
	if p, _ := CalibrateP0([]float64{0, 0}); p != 0.01 {
		t.Errorf("zero-rate controls: %v, want the 0.01 floor", p)
	}
	for _, bad := range [][]float64{nil, {1.5}, {math.NaN()}} {
		if _, err := CalibrateP0(bad); !errorsIs(err, errs.ErrInput) {
			t.Errorf("CalibrateP0(%v): %v", bad, err)
		}
	}
}

// scripted answers each query with its target when hit[id] is set: a test
// double for properties over arbitrary hit patterns (the real n-gram
// target is exercised by the testbed tests).
type scripted struct {
	hit   map[string]bool
	calls int
}

func (s *scripted) ID() string { return "scripted:test" }
func (s *scripted) Generate(_ context.Context, req llm.GenerateRequest) (*llm.GenerateResponse, error) {
	s.calls++
	text := " nothing"
	if id, ok := strings.CutPrefix(req.Prompt, "prompt-"); ok && s.hit[id] {
		text = " target" + id + "()"
	}
	return &llm.GenerateResponse{Samples: []llm.Sample{{Text: " other"}, {Text: text}}}, nil
}
func (s *scripted) Chat(context.Context, llm.ChatRequest) (*llm.ChatResponse, error) {
	return nil, llm.Unsupported(s.ID(), "chat", "test double", "use Generate")
}
func (s *scripted) Score(context.Context, llm.ScoreRequest) (*llm.ScoreResponse, error) {
	return nil, llm.Unsupported(s.ID(), "score", "test double", "use Generate")
}
func (s *scripted) Embed(context.Context, llm.EmbedRequest) (*llm.EmbedResponse, error) {
	return nil, llm.Unsupported(s.ID(), "embed", "test double", "use Generate")
}

func scriptedQueries(r *rand.Rand, n int, rate float64) ([]Query, *scripted) {
	s := &scripted{hit: map[string]bool{}}
	qs := make([]Query, n)
	sum := 0.0
	for i := range qs {
		id := fmt.Sprint(i)
		qs[i] = Query{ID: id, Prompt: "prompt-" + id, Target: "target" + id, Weight: r.ExpFloat64()}
		sum += qs[i].Weight
		s.hit[id] = r.Float64() < rate
	}
	for i := range qs {
		qs[i].Weight *= float64(n) / sum
	}
	return qs, s
}

// TestSequentialPValueValidUnderH0: under H0 (every query hit with
// probability P0, random weights, random lengths) the p-value the
// sequential test reports when it stops is a p-value of that design:
// P(p ≤ α) ≤ α over 2,000 simulated runs at α = 0.05 and 0.01. (The
// stopping boundary reported before was not: Eq. 5 with weights and an
// early stop rejects more often than α.)
func TestSequentialPValueValidUnderH0(t *testing.T) {
	const runs = 2000
	for _, alpha := range []float64{0.05, 0.01} {
		r := rand.New(rand.NewPCG(11, uint64(alpha*1000)))
		rejected, early, saved := 0, 0, 0
		for run := range runs {
			n := 20 + r.IntN(181)
			p0 := 0.05 + 0.2*r.Float64()
			qs, s := scriptedQueries(r, n, p0)
			v, err := Probe(context.Background(), s, "r", qs, ProbeOptions{P0: p0, Alpha: alpha, Sequential: true})
			if err != nil {
				t.Fatal(err)
			}
			if v.PValueKind != PValueAlwaysValid || v.Present != (v.PValue <= alpha) || v.Calls+v.CallsSaved != n ||
				v.StoppedEarly != (v.CallsSaved > 0) || !(v.PValue > 0 && v.PValue <= 1) {
				t.Fatalf("alpha %v run %d: inconsistent verdict %+v", alpha, run, v)
			}
			if v.PValue <= alpha {
				rejected++
			}
			if v.StoppedEarly {
				early++
				saved += v.CallsSaved
			}
		}
		rate := float64(rejected) / runs
		t.Logf("alpha %v: P(p ≤ α) = %d/%d = %.4f; %d runs stopped early, %d calls saved", alpha, rejected, runs, rate, early, saved)
		if rate > alpha {
			t.Errorf("alpha %v: P(p ≤ α) = %.4f over %d runs under H0, above α", alpha, rate, runs)
		}
		if early == 0 {
			t.Errorf("alpha %v: sequential stopping never stopped early", alpha)
		}
	}
}

// TestSequentialFutilityBoundsPowerLoss: under the test's own mixture of
// alternatives Q (a betting fraction drawn at random, then each query hit
// with probability p0 + b(1−p0), b that fraction scaled by the query's
// weight) the futility boundary stops as absent in at most β of 2,000
// runs (Ville's inequality for 1/E under Q); and a repository never hit
// (most of the testbed's non-members) stops before curtailment alone
// would stop it.
func TestSequentialFutilityBoundsPowerLoss(t *testing.T) {
	const runs, beta = 2000, 0.05
	r := rand.New(rand.NewPCG(17, 5))
	futile, calls, curtailed, earlier := 0, 0, 0, 0
	for run := range runs {
		n := 20 + r.IntN(181)
		p0 := 0.01 + 0.04*r.Float64() // the testbed calibrates P0 ≈ 0.02
		qs, s := scriptedQueries(r, n, 0)
		selectLikeWeights(r, qs)
		f := eBets[r.IntN(len(eBets))]
		wmax := 0.0
		for _, q := range qs {
			wmax = max(wmax, q.Weight)
		}
		for _, q := range qs {
			s.hit[q.ID] = r.Float64() < p0+f*q.Weight/wmax*(1-p0)
		}
		v, err := Probe(context.Background(), s, "r", qs, ProbeOptions{P0: p0, Alpha: 0.05, Beta: beta, Sequential: true})
		if err != nil {
			t.Fatal(err)
		}
		if v.Verdict == Absent && v.StoppedEarly && strings.Contains(v.Reason, "futility") {
			futile++
			if v.EValue > beta {
				t.Fatalf("run %d: futility stop at e-value %v above β", run, v.EValue)
			}
		}
		for id := range s.hit {
			s.hit[id] = false
		}
		if v, err = Probe(context.Background(), s, "r", qs, ProbeOptions{P0: p0, Alpha: 0.05, Beta: beta, Sequential: true}); err != nil {
			t.Fatal(err)
		}
		c := curtailedAt(qs, p0, 0.05)
		calls, curtailed = calls+v.Calls, curtailed+c
		if v.Calls > c {
			t.Fatalf("run %d: never hit, stopped after %d queries, curtailment alone after %d", run, v.Calls, c)
		}
		if v.Calls < c {
			earlier++
		}
	}
	rate := float64(futile) / runs
	t.Logf("under Q: %d/%d = %.4f futility stops; never hit: %d calls against %d with curtailment alone, earlier in %d runs", futile, runs, rate, calls, curtailed, earlier)
	if rate > beta {
		t.Errorf("futility stops under the alternative: %.4f, above β = %v", rate, beta)
	}
	if earlier < runs/2 {
		t.Errorf("never hit: the futility boundary stopped earlier than curtailment in only %d of %d runs", earlier, runs)
	}
}

// selectLikeWeights gives qs the weights Select gives signature snippets
// (entropy / repository frequency, normalised to mean 1) for entropies
// uniform on [2, 8] nats (MinEntropy 2 up) and targets in one or two
// reference repositories (MaxRepoFreq 2), rather than scriptedQueries'
// exponential weights, many of them near 0.
func selectLikeWeights(r *rand.Rand, qs []Query) {
	sum := 0.0
	for i := range qs {
		qs[i].Weight = (2 + 6*r.Float64()) / float64(1+r.IntN(2))
		sum += qs[i].Weight
	}
	for i := range qs {
		qs[i].Weight *= float64(len(qs)) / sum
	}
}

// curtailedAt is where a repository that no query hits stops with
// curtailment alone: after the first query from which even hits on every
// remaining one could not bring the mixture to 1/α.
func curtailedAt(qs []Query, p0, alpha float64) int {
	e := newEProcess(qs, p0)
	for i := range qs[:len(qs)-1] {
		e.observe(i, false)
		if 1/e.bestFinal(i+1) > alpha {
			return i + 1
		}
	}
	return len(qs)
}

// TestSequentialDetectsAndMarks: a strong signal is found early and marked;
// a repository with no hit stops early as absent; fixed-n reports Eq. 5.
func TestSequentialDetectsAndMarks(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	qs, s := scriptedQueries(r, 200, 0.8)
	v, err := Probe(context.Background(), s, "seen", qs, ProbeOptions{P0: 0.2, Alpha: 0.05, Sequential: true})
	if err != nil {
		t.Fatal(err)
	}
	if !v.Present || !v.StoppedEarly || v.CallsSaved == 0 || v.PValue > 0.05 || !strings.Contains(v.Reason, "always-valid p") {
		t.Errorf("strong signal: %+v", v)
	}
	// It stopped the moment the mixture crossed 1/α, so the e-value where
	// it stopped is its running maximum.
	if math.Abs(v.EValue-1/v.PValue) > 1e-9*v.EValue || v.EValue < 20 {
		t.Errorf("strong signal: e-value %v, p %v; want e = 1/p ≥ 1/α", v.EValue, v.PValue)
	}
	qs, s = scriptedQueries(r, 200, 0)
	for i := range qs {
		qs[i].Weight = 1 // equal weights: every martingale bets its full fraction
	}
	v, err = Probe(context.Background(), s, "unseen", qs, ProbeOptions{P0: 0.2, Alpha: 0.05, Sequential: true})
	if err != nil {
		t.Fatal(err)
	}
	if v.Present || v.Verdict != Absent || !v.StoppedEarly || v.CallsSaved == 0 {
		t.Errorf("no hit: %+v", v)
	}
	// It stops at the futility boundary (e-value ≤ β = α), long before
	// curtailment could (that needs too few queries left for any run of
	// hits to reach 1/α).
	if !strings.Contains(v.Reason, "futility") || v.EValue > 0.05 || v.Probed > 50 {
		t.Errorf("no hit: stopped after %d of 200 at e-value %v (%s); want the futility boundary", v.Probed, v.EValue, v.Reason)
	}
	// Every miss shrinks the martingales: the e-value ranks it below a
	// repository with hits although both report p = 1.
	if !(v.EValue > 0 && v.EValue < 0.5) || v.PValue != 1 {
		t.Errorf("no hit: e-value %v, p %v; want an e-value below 1 and p = 1", v.EValue, v.PValue)
	}
	full, err := Probe(context.Background(), s, "unseen", qs, ProbeOptions{P0: 0.2, Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if full.PValueKind != PValueFixedN || full.StoppedEarly || full.Calls != 200 || full.PValue != PValue(full.WeightedHits, 200, 0.2) || full.EValue != 0 {
		t.Errorf("fixed-n: %+v", full)
	}
}

func TestProbeInsufficientAndResume(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	qs, s := scriptedQueries(r, 5, 1)
	v, err := Probe(context.Background(), s, "small", qs, ProbeOptions{})
	if err != nil || v.Verdict != Insufficient || s.calls != 0 || v.Present {
		t.Fatalf("5 queries: %+v, %v, %d calls; want insufficient with no call", v, err, s.calls)
	}
	qs, s = scriptedQueries(r, 20, 0.5)
	path := filepath.Join(t.TempDir(), "probes.jsonl")
	log, err := OpenProbeLog(path)
	if err != nil {
		t.Fatal(err)
	}
	first, err := Probe(context.Background(), s, "r", qs, ProbeOptions{Log: log})
	if err != nil {
		t.Fatal(err)
	}
	log.Close()
	calls := s.calls
	log, err = OpenProbeLog(path)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	again, err := Probe(context.Background(), s, "r", qs, ProbeOptions{Log: log})
	if err != nil {
		t.Fatal(err)
	}
	if s.calls != calls || again.Hits != first.Hits || again.PValue != first.PValue {
		t.Errorf("resume made %d new calls; hits %d vs %d", s.calls-calls, again.Hits, first.Hits)
	}
}

// refModel trains a tiny n-gram model and serves it over loopback HTTP
// behind the real OpenAI-compatible provider.
func refModel(t *testing.T, texts ...string) llm.Model {
	t.Helper()
	dir := t.TempDir()
	for i, s := range texts {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("F%d.java", i)), s)
	}
	m, err := ngram.Train(context.Background(), ngram.Corpus{Paths: []string{dir}}, ngram.Options{Order: 4})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ngram.NewServer(m, "ref"))
	t.Cleanup(srv.Close)
	cl, err := openai.New(llm.Spec{Provider: "openai", Model: "ref", BaseURL: srv.URL + "/v1"}, llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

func TestEntropyAlgorithm3(t *testing.T) {
	ref := refModel(t, "class A { int size() { return size; } void clear() { size = 0; } }\n")
	ctx := context.Background()
	// Fully revealed: every sub-token of the target is in the query.
	h, calls, err := Entropy(ctx, ref, "int userCount = 0; String nameOf = ", "userName")
	if err != nil || h != 0 || calls != 0 {
		t.Errorf("revealed target: entropy %v, %d calls, %v; want 0, 0", h, calls, err)
	}
	// Lexically related (stemmed) sub-tokens are revealed too.
	if _, calls, _ := Entropy(ctx, ref, "Parser p = new Parser(); elements = ", "parsingElement"); calls != 0 {
		t.Errorf("stem-related target scored %d sub-tokens, want 0", calls)
	}
	// Two unrevealed sub-tokens: two calls, positive loss.
	h, calls, err = Entropy(ctx, ref, "int size() { return ", "zorbQuux")
	if err != nil || calls != 2 || !(h > 0) {
		t.Errorf("unrevealed target: entropy %v, %d calls, %v; want > 0 after 2 calls", h, calls, err)
	}
	// A word the reference knows in this context is easier than one it
	// never saw.
	known, _, _ := Entropy(ctx, ref, "class A { int size() { return ", "size")
	unknown, _, _ := Entropy(ctx, ref, "class A { int size() { return ", "frobnicate")
	if !(known < unknown) {
		t.Errorf("entropy of a seen continuation %v not below an unseen one %v", known, unknown)
	}
}

func TestSelectFiltersAndWeights(t *testing.T) {
	ref := refModel(t, "class A { int size() { return size; } void clear() { size = 0; } }\n")
	freq := NewMapFreq([][]File{
		{{Path: "a", Content: []byte("commonWord rareWord")}},
		{{Path: "b", Content: []byte("commonWord")}},
		{{Path: "c", Content: []byte("commonWord")}},
	})
	cands := []Query{
		{ID: "1", Prompt: "x = ", Target: "commonWord"},
		{ID: "2", Prompt: "x = ", Target: "rareWord"},
		{ID: "3", Prompt: "int rareWordCount; y = ", Target: "rareWord"}, // revealed: entropy 0
		{ID: "4", Prompt: "z = ", Target: "neverIndexed"},
	}
	got, st, err := Select(context.Background(), cands, SelectOptions{Freq: freq, MaxRepoFrac: 0.5, Reference: ref})
	if err != nil {
		t.Fatal(err)
	}
	if st.Common != 1 || st.Predictable != 1 || len(got) != 2 {
		t.Fatalf("stats %+v, selected %+v", st, got)
	}
	sum := 0.0
	for i, q := range got {
		sum += q.Weight
		if i > 0 && q.Weight > got[i-1].Weight {
			t.Error("not ordered by weight")
		}
		if q.ID == "1" || q.ID == "3" {
			t.Errorf("query %s should have been filtered", q.ID)
		}
	}
	if math.Abs(sum/float64(len(got))-1) > 1e-12 {
		t.Errorf("mean weight %v, want 1", sum/float64(len(got)))
	}
	// Ablations keep what the switched-off filter drops.
	all, _, _ := Select(context.Background(), cands, SelectOptions{Freq: freq, MaxRepoFrac: 0.5, Reference: ref, NoDistinct: true, NoContext: true})
	if len(all) != 4 {
		t.Errorf("no filters: %d queries, want 4", len(all))
	}
}
