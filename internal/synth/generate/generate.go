// Package generate owns the generation step of the synthesis pipeline
// (rxsynth §4): the Generator interface every generator implements (the
// offline mutation generator in generate/mutation, the seed-grounded one
// in generate/grounded and the zero-shot one in generate/zeroshot, both
// through internal/llm), the Attempt records they log (their candidates
// are internal/synth/corpus.Candidate), and Run, which drives a generator to
// per-type quotas while appending candidates.jsonl and attempts.jsonl so a
// killed run resumes without losing or duplicating a record.
//
// Work is split into numbered chunks (Request.Chunk): a generator defines
// what a chunk is (mutation: a group of corpus files; an LLM generator: one
// prompt). Run asks for chunks 0, 1, 2, … until every quota is met or the
// generator reports ErrExhausted. Because a generator must answer the same
// chunk with the same candidates given the same Want, a resumed run replays
// from chunk 0, skips what is already recorded (counting it towards the
// quotas), and continues exactly where the killed run stopped.
package generate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// ErrExhausted is returned (wrapped) by Generate when the chunk asked for is
// past the end of the generator's input: no later chunk can yield anything.
var ErrExhausted = errors.New("generator input exhausted")

// Generator produces candidate bug/fix pairs.
type Generator interface {
	// ID names the generator and its configuration, recorded in every
	// candidate ("mutation/v1", a model spec, …).
	ID() string
	// Generate works through one chunk. It must be deterministic in
	// (chunk, Want) and report every attempt through req.OnAttempt.
	Generate(ctx context.Context, req Request) ([]Candidate, error)
}

// Request asks a generator for one chunk of work.
type Request struct {
	Chunk int
	// Want is how many more candidates of each exception type (corpus long
	// names) are still needed; types absent or at zero are not generated.
	Want map[string]int
	// Seeds are the real seed pairs (may be empty): exemplars for an LLM
	// generator, mined fix patterns for the mutation generator.
	Seeds []corpus.Seed
	// OnAttempt, when set, receives every attempt, successful or not.
	OnAttempt func(Attempt)
}

// Report passes a to OnAttempt, when set.
func (r Request) Report(a Attempt) {
	if r.OnAttempt != nil {
		r.OnAttempt(a)
	}
}

// Source and Candidate are the contract records of internal/synth/corpus,
// named here too so generators keep writing generate.Candidate.
type (
	Source    = corpus.CandidateSource
	Candidate = corpus.Candidate
)

// Outcomes of an attempt.
const (
	OutcomeCandidate   = "candidate"    // produced a candidate
	OutcomeUnparsable  = "unparsable"   // the mutated method did not parse cleanly
	OutcomeUnchanged   = "unchanged"    // the edit left the method's tokens unchanged
	OutcomeSourceError = "source_error" // the source file could not be read or parsed
	OutcomeDuplicate   = "duplicate"    // same candidate text as an earlier one
)

// Attempt is one logged generation attempt.
type Attempt struct {
	ID          string  `json:"id"`
	Generator   string  `json:"generator"`
	Operator    string  `json:"operator,omitempty"`
	ErrorType   string  `json:"error_type,omitempty"`
	Source      *Source `json:"source,omitempty"`
	Outcome     string  `json:"outcome"`
	Detail      string  `json:"detail,omitempty"`
	CandidateID string  `json:"candidate_id,omitempty"`
}

// HashID returns a short stable id from parts: prefix + 16 hex digits of
// their SHA-256.
func HashID(prefix string, parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return prefix + hex.EncodeToString(h.Sum(nil))[:16]
}

// RunOptions configure Run.
type RunOptions struct {
	Dir     string         // output directory (candidates.jsonl, attempts.jsonl)
	PerType map[string]int // candidates wanted per exception type
	Seeds   []corpus.Seed
	// MaxChunks stops after this many chunks (0: no limit), a guard
	// against generators that never exhaust.
	MaxChunks int
	// Progress, when set, is called after each chunk with the candidate
	// counts so far.
	Progress func(chunk int, have map[string]int)
}

// Stats summarise a Run.
type Stats struct {
	Chunks   int            `json:"chunks"`
	Have     map[string]int `json:"have"`     // candidates per type, old and new
	New      int            `json:"new"`      // appended by this run
	Resumed  int            `json:"resumed"`  // already recorded by an earlier run
	Attempts int            `json:"attempts"` // attempts appended by this run
	Warnings []string       `json:"warnings,omitempty"`
}

// Candidate and attempt log names inside RunOptions.Dir.
const (
	CandidatesFile = "candidates.jsonl"
	AttemptsFile   = "attempts.jsonl"
)

// Run drives g chunk by chunk until every PerType quota is met or g is
// exhausted, appending new candidates and attempts to the logs in
// opts.Dir. See the package doc for how resumption works.
//
// Run is not an internal/step step: chunk k's Want depends on what chunks
// 0..k-1 yielded, so chunks run one after another, and a resume replays
// them from 0, skipping the records both logs already hold.
func Run(ctx context.Context, g Generator, opts RunOptions) (*Stats, error) {
	cands, err := jsonl.Open(filepath.Join(opts.Dir, CandidatesFile), func(c Candidate) string { return c.ID }, jsonl.Options{Sync: jsonl.SyncBatch})
	if err != nil {
		return nil, fmt.Errorf("generate.Run(%s): %w", opts.Dir, err)
	}
	defer cands.Close()
	atts, err := jsonl.Open(filepath.Join(opts.Dir, AttemptsFile), func(a Attempt) string { return a.ID }, jsonl.Options{Sync: jsonl.SyncBatch})
	if err != nil {
		return nil, fmt.Errorf("generate.Run(%s): %w", opts.Dir, err)
	}
	defer atts.Close()
	r := &run{g: g, opts: opts, cands: cands, atts: atts, st: &Stats{Have: map[string]int{}}}
	r.st.Warnings = append(append(r.st.Warnings, cands.Warnings()...), atts.Warnings()...)
	if err := checkQuotas(opts.PerType); err != nil {
		return nil, err
	}
	if err := r.chunks(ctx); err != nil {
		return r.st, err
	}
	if err := cands.Close(); err != nil {
		return r.st, fmt.Errorf("generate.Run: %w", err)
	}
	if err := atts.Close(); err != nil {
		return r.st, fmt.Errorf("generate.Run: %w", err)
	}
	return r.st, nil
}

// checkQuotas refuses an unknown exception type or a negative quota.
func checkQuotas(perType map[string]int) error {
	for t, n := range perType {
		if !corpus.ValidType(t) {
			return fmt.Errorf("generate.Run: unknown exception type %q (want one of %s): %w", t, strings.Join(corpus.Types, ", "), errs.ErrUsage)
		}
		if n < 0 {
			return fmt.Errorf("generate.Run: negative quota %d for %s: %w", n, t, errs.ErrUsage)
		}
	}
	return nil
}

// run is one Run in progress: the generator, its two logs and the
// counts so far.
type run struct {
	g      Generator
	opts   RunOptions
	cands  *jsonl.Log[Candidate]
	atts   *jsonl.Log[Attempt]
	st     *Stats
	attErr error // the first attempt that could not be appended
}

// chunks asks for chunk 0, 1, … until every quota is met, the generator
// is exhausted or MaxChunks chunks have run.
func (r *run) chunks(ctx context.Context) error {
	for chunk := 0; r.opts.MaxChunks == 0 || chunk < r.opts.MaxChunks; chunk++ {
		want := r.want()
		if len(want) == 0 {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if stop, err := r.chunk(ctx, chunk, want); stop || err != nil {
			return err
		}
	}
	return nil
}

// want returns how many candidates each type still lacks.
func (r *run) want() map[string]int {
	want := map[string]int{}
	for t, n := range r.opts.PerType {
		if n > r.st.Have[t] {
			want[t] = n - r.st.Have[t]
		}
	}
	return want
}

// chunk runs chunk n and records what it yields; stop is true when the
// generator is exhausted or the run fails.
func (r *run) chunk(ctx context.Context, n int, want map[string]int) (stop bool, err error) {
	out, err := r.g.Generate(ctx, Request{Chunk: n, Want: want, Seeds: r.opts.Seeds, OnAttempt: r.onAttempt})
	if errors.Is(err, ErrExhausted) {
		return true, nil
	}
	if err != nil {
		return true, fmt.Errorf("generate.Run: generator %s chunk %d: %w", r.g.ID(), n, err)
	}
	if r.attErr != nil {
		return true, fmt.Errorf("generate.Run: %w", r.attErr)
	}
	r.st.Chunks++
	if err := r.record(out, want); err != nil {
		return true, err
	}
	if r.opts.Progress != nil {
		r.opts.Progress(n, r.st.Have)
	}
	return false, nil
}

// onAttempt appends an attempt not yet logged; the first failure is kept
// for chunk to report.
func (r *run) onAttempt(a Attempt) {
	if r.attErr != nil || r.atts.Has(a.ID) {
		return
	}
	if err := r.atts.Append(a); err != nil {
		r.attErr = err
		return
	}
	r.st.Attempts++
}

// record counts a chunk's candidates towards the quotas, in order, and
// appends those the log does not hold yet. Candidates over a type's want
// (the generator gave more than asked) are dropped.
func (r *run) record(out []Candidate, want map[string]int) error {
	for _, c := range out {
		if want[c.ErrorType] <= 0 {
			continue
		}
		want[c.ErrorType]--
		r.st.Have[c.ErrorType]++
		if r.cands.Has(c.ID) {
			r.st.Resumed++
			continue
		}
		if err := r.cands.Append(c); err != nil {
			return fmt.Errorf("generate.Run: %w", err)
		}
		r.st.New++
	}
	return nil
}
