package repoprobe

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"sync"
	"time"

	"gonum.org/v1/gonum/mathext"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/llm"
)

// Verdicts of the repository presence test.
const (
	Present      = "present"
	Absent       = "absent"
	Insufficient = "insufficient"
	// NoClone is the verdict of a repository with no local clone: nothing
	// was probed (the reason says where it was looked for and how to add
	// it); a rerun retries it.
	NoClone = "no_clone"
)

// DefaultP0 is the null hit probability used when no negative controls are
// given: the optima of benchchecker §5.5 (Figure 5) — 0.2 for Java, whose
// regularity makes unseen snippets easier to complete, 0.08 for Python,
// and 0.1 otherwise.
func DefaultP0(lang string) float64 {
	switch lang {
	case "java":
		return 0.2
	case "python":
		return 0.08
	}
	return 0.1
}

// CalibrateP0 derives P0 from the unweighted hit rates of negative-control
// repositories (post-cutoff or held out, known absent): their mean plus
// one standard deviation, at least mean + 0.01, capped below 1. It
// returns an error wrapping errs.ErrInput when no rate is given or one is
// outside [0, 1].
func CalibrateP0(rates []float64) (float64, error) {
	if len(rates) == 0 {
		return 0, fmt.Errorf("repoprobe.CalibrateP0: no negative-control rates: %w", errs.ErrInput)
	}
	mean := 0.0
	for _, r := range rates {
		if !(r >= 0 && r <= 1) {
			return 0, fmt.Errorf("repoprobe.CalibrateP0: rate %v outside [0,1]: %w", r, errs.ErrInput)
		}
		mean += r
	}
	mean /= float64(len(rates))
	v := 0.0
	for _, r := range rates {
		v += (r - mean) * (r - mean)
	}
	sd := 0.0
	if len(rates) > 1 {
		sd = math.Sqrt(v / float64(len(rates)-1))
	}
	return min(0.99, mean+max(sd, 0.01)), nil
}

// PValue is the repository-presence p-value (benchchecker §3.3, Eq. 5) for
// w weighted hits out of n queries at null hit probability p0: the
// binomial upper tail P(X ≥ w), made continuous in w through the
// regularised incomplete beta function, P(X ≥ k) = I_{p0}(k, n−k+1). At
// integer w it equals the exact binomial tail. w ≤ 0 gives 1; w is capped
// at n.
func PValue(w float64, n int, p0 float64) float64 {
	if w <= 0 || n <= 0 {
		return 1
	}
	w = min(w, float64(n))
	switch {
	case p0 <= 0:
		return 0
	case p0 >= 1:
		return 1
	}
	return mathext.RegIncBeta(w, float64(n)-w+1, p0)
}

// ProbeOptions configure probing and the test.
type ProbeOptions struct {
	// Samples is k, the candidates drawn per query [10]; Temperature
	// [benchchecker §5.5 uses 1.0; 0 means greedy] and MaxTokens [8] are
	// passed to the model; Seed makes sampling reproducible (combined with
	// the query id).
	Samples     int
	Temperature float64
	MaxTokens   int
	Seed        int64
	// P0 is the null hit probability [DefaultP0(Lang)]; Alpha the
	// significance level [0.05]; MinQueries the fewest signature snippets
	// for a verdict other than insufficient [10].
	P0         float64
	Lang       string
	Alpha      float64
	MinQueries int
	// Sequential stops as soon as the verdict at Alpha can no longer
	// change, or, as absent, once the evidence favours H0 by 1/Beta (the
	// futility boundary; see Probe).
	Sequential bool
	// Beta bounds the sequential test's futility error: the chance, under
	// the test's mixture of alternatives, that it ever stops as absent
	// through the futility boundary [Alpha: the SPRT's symmetric choice].
	Beta float64
	// Log, when set, records every probe and replays recorded ones, so an
	// interrupted run resumes without repeating calls.
	Log *ProbeLog
	// Repo metadata copied into the verdict.
	Cutoff, SnapshotCommit string
}

// ProbeRecord is one probed query in the probe log.
type ProbeRecord struct {
	Key     string    `json:"key"` // model|query id|sampling settings
	Repo    string    `json:"repo"`
	Model   string    `json:"model"`
	QueryID string    `json:"query_id"`
	Target  string    `json:"target"`
	Hit     bool      `json:"hit"`
	Matches int       `json:"matches"` // candidates whose next word is the target
	Words   []string  `json:"words"`   // each candidate's next word
	Tokens  int64     `json:"tokens"`
	Time    time.Time `json:"time"`
}

// probeKey names a probe by model, query and the sampling settings that
// drew its candidates, so a rerun with another seed, k, temperature or
// token limit probes again instead of replaying candidates it would not
// draw.
func probeKey(model, query string, o ProbeOptions) string {
	return fmt.Sprintf("%s|%s|k=%d,t=%g,max=%d,seed=%d", model, query, o.Samples, o.Temperature, o.MaxTokens, o.Seed)
}

// ProbeLog is a resumable per-query probe log (JSONL, keyed by model and
// query id).
//
// It is a replay cache, not a step (internal/step): Probe asks its
// queries one after another and, with Sequential, decides after each
// whether to go on, so which queries are probed depends on the answers to
// the ones before. step.Run takes the whole item list up front and runs
// it on a pool, which would ask every query and undo sequential
// stopping. The log is shared by the repositories of one run (a pool in
// the caller) and read under a lock; its file is internal/jsonl's.
type ProbeLog struct {
	log  *jsonl.Log[ProbeRecord]
	mu   sync.Mutex
	prev map[string]ProbeRecord
}

func (l *ProbeLog) lookup(key string) (ProbeRecord, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r, ok := l.prev[key]
	return r, ok
}

// OpenProbeLog opens (creating) the log at path and loads its records.
func OpenProbeLog(path string) (*ProbeLog, error) {
	l, err := jsonl.Open(path, func(r ProbeRecord) string { return r.Key }, jsonl.Options{Sync: jsonl.SyncBatch})
	if err != nil {
		return nil, fmt.Errorf("repoprobe.OpenProbeLog(%s): %w", path, err)
	}
	recs, err := jsonl.ReadFile[ProbeRecord](path)
	if err != nil {
		l.Close()
		return nil, fmt.Errorf("repoprobe.OpenProbeLog(%s): %w", path, err)
	}
	pl := &ProbeLog{log: l, prev: map[string]ProbeRecord{}}
	for _, r := range recs {
		pl.prev[r.Key] = r
	}
	return pl, nil
}

// Close flushes and closes the log.
func (l *ProbeLog) Close() error { return l.log.Close() }

// RepoVerdict is the Stage I outcome for one repository and model
// (DESIGN.md data model) plus the verdict, its reason and the calls the
// sequential test saved.
type RepoVerdict struct {
	Repo           string  `json:"repo"`
	Model          string  `json:"model"`
	Cutoff         string  `json:"cutoff"`
	SnapshotCommit string  `json:"snapshot_commit"`
	Queries        int     `json:"queries"`
	Hits           int     `json:"hits"`
	WeightedHits   float64 `json:"weighted_hits"`
	P0             float64 `json:"p0"`
	PValue         float64 `json:"p_value"`
	Present        bool    `json:"present"`
	Calls          int     `json:"calls"`
	Tokens         int64   `json:"tokens"`
	Verdict        string  `json:"verdict"`
	Reason         string  `json:"reason"`
	Probed         int     `json:"probed"`
	CallsSaved     int     `json:"calls_saved"`
	// StoppedEarly marks a sequential verdict reached before every
	// selected query was probed; PValueKind says which p-value PValue is
	// (PValueAlwaysValid or PValueFixedN).
	StoppedEarly bool   `json:"stopped_early,omitempty"`
	PValueKind   string `json:"p_value_kind,omitempty"`
	// EValue is the sequential test's mixture martingale where probing
	// stopped (0 without Sequential). It is an e-value at that stopping
	// time (optional stopping: its expectation under H0 is at most 1) and,
	// unlike PValue = 1/its running maximum, does not tie at p = 1 for
	// every repository whose martingale never rose above its start, so
	// it ranks repositories (ROC, AUC) by the evidence the probing
	// actually collected.
	EValue float64 `json:"e_value,omitempty"`
}

// Probe runs the repository presence test (benchchecker §3.3) over the
// selected queries, in order: each query is one Generate call for k
// candidates; a hit is a candidate whose next word (after leading
// whitespace, a maximal run of letters, digits, '_' and '$') is the
// target. Hits counts hit queries, WeightedHits sums their weights.
//
// Without Sequential every query is probed and the p-value is Eq. 5,
// PValue(W, n, P0) (PValueFixedN). With Sequential the test is a mixture
// test martingale (see eProcess) and the p-value is always-valid
// (PValueAlwaysValid): P(p ≤ α) ≤ α under H0 however early probing stops,
// so the reported p-value is a p-value of the design actually run, not the
// stopping boundary. Probing stops once p ≤ Alpha (present), once the
// mixture falls to Beta (absent: the futility boundary, see stop) or once
// even hits on every remaining query could not bring p to Alpha (absent);
// StoppedEarly and CallsSaved record it. The sequential verdict can differ
// from the fixed-n one near the boundary: the always-valid test pays for
// the freedom to stop with some power. Calls counts Generate calls made or
// replayed from the log. Fewer than MinQueries queries give insufficient,
// with no call.
func Probe(ctx context.Context, target llm.Model, repo string, qs []Query, opts ProbeOptions) (RepoVerdict, error) {
	opts.defaults()
	v := RepoVerdict{Repo: repo, Model: target.ID(), Cutoff: opts.Cutoff, SnapshotCommit: opts.SnapshotCommit,
		Queries: len(qs), P0: opts.P0, PValue: 1}
	if len(qs) < opts.MinQueries {
		v.Verdict = Insufficient
		v.Reason = fmt.Sprintf("%d signature snippets, fewer than the %d needed for a verdict", len(qs), opts.MinQueries)
		return v, nil
	}
	n := len(qs)
	var ev *eProcess
	if opts.Sequential {
		ev = newEProcess(qs, opts.P0)
		v.PValueKind = PValueAlwaysValid
	} else {
		v.PValueKind = PValueFixedN
	}
	for i, q := range qs {
		rec, err := probeOne(ctx, target, repo, q, opts)
		if err != nil {
			return v, err
		}
		v.Calls++
		v.Probed = i + 1
		v.Tokens += rec.Tokens
		if rec.Hit {
			v.Hits++
			v.WeightedHits += q.Weight
		}
		if ev == nil {
			continue
		}
		ev.observe(i, rec.Hit)
		if i == n-1 {
			break
		}
		if ev.stop(&v, i, n, opts.Alpha, opts.Beta) {
			return v, nil
		}
	}
	if ev != nil {
		v.PValue, v.EValue = ev.pValue(), ev.mixture(ev.m)
	} else {
		v.PValue = PValue(v.WeightedHits, n, opts.P0)
	}
	v.Present = v.PValue <= opts.Alpha
	v.Verdict = Absent
	if v.Present {
		v.Verdict = Present
	}
	v.Reason = fmt.Sprintf("%d/%d hits, weighted %.2f, %s p = %.3g at P0 = %.3g", v.Hits, n, v.WeightedHits, v.PValueKind, v.PValue, opts.P0)
	return v, nil
}

func (o *ProbeOptions) defaults() {
	if o.Samples <= 0 {
		o.Samples = 10
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = 8
	}
	if o.P0 <= 0 {
		o.P0 = DefaultP0(o.Lang)
	}
	if o.Alpha <= 0 {
		o.Alpha = 0.05
	}
	if o.MinQueries <= 0 {
		o.MinQueries = 10
	}
	if o.Beta <= 0 {
		o.Beta = o.Alpha
	}
}

// stop is the sequential test's decision after query i of n: present once
// the always-valid p-value reaches alpha; absent once the mixture E falls
// to beta (the futility boundary) or once even hits on every remaining
// query could not bring p to alpha (curtailment). It fills v when it
// stops.
//
// The futility boundary is the acceptance boundary of Wald's sequential
// probability ratio test (Wald 1945, "Sequential tests of statistical
// hypotheses", Ann. Math. Statist. 16: accept H0 once the likelihood
// ratio falls to B ≈ β/(1−α)) applied to the mixture: each martingale of eProcess is the
// likelihood ratio of Bernoulli(p0 + b(1−p0)) hits against Bernoulli(p0)
// (a hit multiplies it by 1 + b(1−p0)/p0, a miss by 1 − b), so E is the
// likelihood ratio of the mixture of those alternatives Q against H0, and
// 1/E is a nonnegative Q-martingale started at 1. Ville's inequality under
// Q gives Q(E ever ≤ β) ≤ β exactly (Ramdas et al. 2023, "Game-theoretic
// statistics and safe anytime-valid inference", Statist. Sci. 38), where
// Wald's B is an approximation: stopping there loses at most β of the
// power against Q, and it cannot raise the type-I error, since a
// futility stop never rejects (a non-binding futility boundary in the
// sense of Jennison & Turnbull 2000, "Group Sequential Methods with
// Applications to Clinical Trials"). It is
// what lets an absent repository stop early: curtailment alone waits
// until too few queries remain, because at P0 ≈ 0.02 one hit multiplies E
// by up to 45.
func (e *eProcess) stop(v *RepoVerdict, i, n int, alpha, beta float64) bool {
	v.EValue = e.mixture(e.m)
	if p := e.pValue(); p <= alpha {
		v.PValue, v.Present, v.Verdict = p, true, Present
		v.CallsSaved, v.StoppedEarly = n-v.Probed, true
		v.Reason = fmt.Sprintf("stopped after %d of %d queries: %d hits, weighted %.2f; always-valid p = %.3g ≤ %.3g", v.Probed, n, v.Hits, v.WeightedHits, p, alpha)
		return true
	}
	var why string
	switch {
	case v.EValue <= beta:
		why = fmt.Sprintf("the e-value fell to %.3g ≤ β = %.3g (futility: the hits favour H0 over the alternatives %.0f to 1)", v.EValue, beta, 1/v.EValue)
	case 1/e.bestFinal(i+1) > alpha:
		why = fmt.Sprintf("even hits on every remaining query would leave it above %.3g", alpha)
	default:
		return false
	}
	v.PValue, v.Verdict = e.pValue(), Absent
	v.CallsSaved, v.StoppedEarly = n-v.Probed, true
	v.Reason = fmt.Sprintf("stopped after %d of %d queries: %d hits, weighted %.2f; always-valid p = %.3g, and %s",
		v.Probed, n, v.Hits, v.WeightedHits, v.PValue, why)
	return true
}

// P-value kinds (RepoVerdict.PValueKind).
const (
	// PValueFixedN is Eq. 5 over every selected query (no stopping).
	PValueFixedN = "fixed-n"
	// PValueAlwaysValid is the sequential test's p-value: 1 / the running
	// maximum of a test martingale, valid at any stopping time.
	PValueAlwaysValid = "always-valid"
)

// eBets are the betting fractions of the mixture test martingale: one
// martingale per fraction, averaged with equal weight, so the test adapts
// to weak and strong signals alike.
var eBets = []float64{0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9}

// eProcess is the sequential test of Probe: a mixture of test
// martingales for H0 "each query is hit with probability at most p0".
// Query i multiplies martingale j by 1 + b·(X − p0)/p0 with X the hit
// indicator and b = eBets[j]·wᵢ/max w (a query's weight sets how much is
// bet on it; b < 1 keeps every factor ≥ 0). Under H0 each factor has
// expectation ≤ 1 given the past, so the mixture E is a nonnegative
// supermartingale with E₀ = 1, and by Ville's inequality
// P(sup E ≥ 1/α) ≤ α: p = min(1, 1/max E) is valid whenever the probing
// stops, for every α at once.
type eProcess struct {
	p0   float64
	bets [][]float64 // [query][bet]
	m    []float64   // current value of each martingale
	max  float64     // running maximum of the mixture
}

func newEProcess(qs []Query, p0 float64) *eProcess {
	wmax := 0.0
	for _, q := range qs {
		wmax = max(wmax, q.Weight)
	}
	e := &eProcess{p0: p0, m: make([]float64, len(eBets)), max: 1}
	for j := range e.m {
		e.m[j] = 1
	}
	for _, q := range qs {
		b := make([]float64, len(eBets))
		for j, f := range eBets {
			if wmax > 0 && q.Weight > 0 {
				b[j] = f * q.Weight / wmax
			}
		}
		e.bets = append(e.bets, b)
	}
	return e
}

func (e *eProcess) observe(i int, hit bool) {
	x := 0.0
	if hit {
		x = 1
	}
	for j, b := range e.bets[i] {
		e.m[j] *= 1 + b*(x-e.p0)/e.p0
	}
	e.max = max(e.max, e.mixture(e.m))
}

func (e *eProcess) mixture(m []float64) float64 {
	s := 0.0
	for _, v := range m {
		s += v
	}
	return s / float64(len(m))
}

func (e *eProcess) pValue() float64 { return min(1, 1/e.max) }

// bestFinal is the largest the running maximum can become if every query
// from i on is a hit (each martingale then only grows, so its final value
// is its largest).
func (e *eProcess) bestFinal(i int) float64 {
	m := append([]float64(nil), e.m...)
	for _, bs := range e.bets[i:] {
		for j, b := range bs {
			m[j] *= 1 + b*(1-e.p0)/e.p0
		}
	}
	return max(e.max, e.mixture(m))
}

func probeOne(ctx context.Context, target llm.Model, repo string, q Query, opts ProbeOptions) (ProbeRecord, error) {
	key := probeKey(target.ID(), q.ID, opts)
	if opts.Log != nil {
		if r, ok := opts.Log.lookup(key); ok {
			return r, nil
		}
	}
	h := fnv.New64a()
	h.Write([]byte(q.ID))
	seed := opts.Seed ^ int64(h.Sum64()>>1)
	resp, err := target.Generate(ctx, llm.GenerateRequest{Prompt: q.Prompt, MaxTokens: opts.MaxTokens,
		Temperature: opts.Temperature, N: opts.Samples, Seed: &seed})
	if err != nil {
		return ProbeRecord{}, fmt.Errorf("repoprobe.Probe(%s, query %s %s:%d): target %s: %w; finished probes are in the log, rerun to resume",
			repo, q.ID, q.Path, q.Offset, target.ID(), err)
	}
	rec := ProbeRecord{Key: key, Repo: repo, Model: target.ID(), QueryID: q.ID, Target: q.Target, Time: time.Now().UTC(),
		Tokens: resp.Usage.PromptTokens + resp.Usage.CompletionTokens}
	for _, s := range resp.Samples {
		w := firstWord(s.Text)
		rec.Words = append(rec.Words, w)
		if w == q.Target {
			rec.Matches++
		}
	}
	rec.Hit = rec.Matches > 0
	if opts.Log != nil {
		if err := opts.Log.log.Append(rec); err != nil && !errors.Is(err, jsonl.ErrDuplicate) {
			return rec, fmt.Errorf("repoprobe.Probe(%s): probe log: %w", repo, err)
		}
		opts.Log.mu.Lock()
		opts.Log.prev[key] = rec
		opts.Log.mu.Unlock()
	}
	return rec, nil
}
