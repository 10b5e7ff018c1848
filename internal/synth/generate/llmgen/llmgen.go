// Package llmgen owns the machinery the LLM-backed generators share (the
// seed-grounded generator of rxsynth §4.3 in generate/grounded and the
// zero-shot generator of §4.1 in generate/zeroshot): turning a Prompter's
// deterministic prompt sequence into generate.Generator chunks, calling
// llm.Model.Chat from a bounded worker pool, recording every call, and
// resuming without a new model call.
//
// Chunks. A chunk is Options.Batch prompt slots. The slots go round-robin
// over the wanted types (corpus.Types order) that the Prompter can serve,
// never more for a type than it still wants. The n-th prompt of a type is
// Prompter.Prompt(type, n), so which exemplars or scaffold a prompt carries
// depends only on the type's running count; the counts at the start of
// every chunk are remembered, so replaying chunk 0, 1, … after a restart
// (generate.Run's resumption) rebuilds the same prompts.
//
// Records. Every answered call is appended to DIR/calls.jsonl (CallsFile):
// the candidate id, type, draw index, template version and hash, prompt hash,
// system and user texts, model id asked and reported, request parameters,
// answer, finish reason, usage, whether the llm cache served it, request id
// and timestamp. A prompt whose id is already in calls.jsonl is answered
// from the record, so a resumed run, or a rerun after a budget stop, makes no
// model call for work already paid for even with the llm cache off. Each
// prompt also yields one generate.Attempt (outcome candidate or
// model_error). The llm Session adds its cache, retries, limits and the
// MaxCost budget; a budget refusal (errs.ErrBudget) or cancellation stops the
// chunk with that error after in-flight calls finish and are recorded.
package llmgen

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/step"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/generate"
)

// CallsFile is the call log inside Options.Dir.
const CallsFile = "calls.jsonl"

// OutcomeModelError is the attempt outcome of a call that failed.
const OutcomeModelError = "model_error"

// Prompt is one rendered prompt with its provenance.
type Prompt struct {
	System, User  string
	ExampleBugIDs []string // seeds shown as exemplars (none for zero-shot)
	SizeTarget    int      // LLOC target, 0 for none
	Operator      string   // selection mode or scaffold, recorded in the candidate
}

// Prompter produces the deterministic prompt sequence of a generator.
type Prompter interface {
	// Name is the generator family and template version ("seed-grounded/v1").
	Name() string
	// TemplateHash is the sha256 of the template texts behind the prompts.
	TemplateHash() string
	// Prepare is called with every chunk's request seeds before Prompt;
	// it may (re)build per-type schedules when the seeds change.
	Prepare(seeds []corpus.Seed) error
	// Serves reports whether the prompter can prompt for type t.
	Serves(t string) bool
	// Prompt returns the n-th prompt (0-based) for type t. It must be a pure
	// function of (t, n) for a given Prepare.
	Prompt(t string, n int) (Prompt, error)
}

// Options configure a Generator.
type Options struct {
	// Dir holds CallsFile; it is normally generate.RunOptions.Dir.
	Dir string
	// Workers bounds the calls in flight; 0 means 4.
	Workers int
	// Batch is the prompts per chunk; 0 means 2×Workers.
	Batch int
	// MaxTokens, Temperature and TopP are the sampling parameters; §4.2
	// screened at temperature 0.9, top-p 0.9 and 4,096 output tokens.
	// ProviderDefaults leaves temperature and top-p unset (the §4.3
	// production model exposed no sampling controls).
	MaxTokens        int
	Temperature      float64
	TopP             float64
	ProviderDefaults bool
	// Seed makes the request seed of each prompt (so repeated prompt texts
	// still have distinct cache keys and providers that honour a seed vary).
	Seed uint64
	// Now stamps the call records; nil means time.Now.
	Now func() time.Time
	// ModelID, when set, names the model in the generator id (and so in
	// candidate ids) instead of model.ID() — for endpoints whose address is
	// incidental, such as an n-gram LM served on a random loopback port,
	// so a rerun still finds its records.
	ModelID string
}

// Call is one recorded model call.
type Call struct {
	ID            string          `json:"id"` // the candidate id
	Type          string          `json:"error_type"`
	Draw          int             `json:"draw"` // n of Prompter.Prompt
	Generator     string          `json:"generator"`
	Template      string          `json:"template"`
	TemplateHash  string          `json:"template_hash"`
	PromptHash    string          `json:"prompt_hash"`
	Operator      string          `json:"operator,omitempty"`
	ExampleBugIDs []string        `json:"example_bug_ids"`
	SizeTarget    int             `json:"size_target,omitempty"`
	System        string          `json:"system"`
	User          string          `json:"user"`
	Model         string          `json:"model"`
	ReportedModel string          `json:"reported_model,omitempty"`
	Params        llm.ChatRequest `json:"params"` // the request without its texts
	Answer        string          `json:"answer"`
	FinishReason  string          `json:"finish_reason,omitempty"`
	Usage         llm.Usage       `json:"usage"`
	Cached        bool            `json:"cached,omitempty"`
	RequestID     string          `json:"request_id,omitempty"`
	Time          time.Time       `json:"time"`
}

// Generator drives a Prompter through a model. Generate calls must come in
// chunk order (0, 1, …, or a replay from 0), as generate.Run makes them.
type Generator struct {
	p     Prompter
	model llm.Model
	opts  Options
	id    string

	calls *jsonl.Log[Call]
	pmu   sync.Mutex
	prior map[string]Call // recorded calls by id

	mu     sync.Mutex
	starts []map[string]int // per chunk: prompts already issued per type
}

// New opens (or resumes) the call log in opts.Dir and returns the generator.
func New(p Prompter, model llm.Model, opts Options) (*Generator, error) {
	if p == nil || model == nil {
		return nil, fmt.Errorf("llmgen.New: %w: a prompter and a model are required", errs.ErrUsage)
	}
	if opts.Dir == "" {
		return nil, fmt.Errorf("llmgen.New(%s): %w: Options.Dir is required", p.Name(), errs.ErrUsage)
	}
	opts.setDefaults()
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("llmgen.New: %w", err)
	}
	calls, prior, err := openCalls(filepath.Join(opts.Dir, CallsFile))
	if err != nil {
		return nil, fmt.Errorf("llmgen.New(%s): %w", p.Name(), err)
	}
	mid := cmp.Or(opts.ModelID, model.ID())
	return &Generator{p: p, model: model, opts: opts, id: p.Name() + ":" + mid, calls: calls, prior: prior}, nil
}

// setDefaults fills the options left at zero.
func (o *Options) setDefaults() {
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.Batch <= 0 {
		o.Batch = 2 * o.Workers
	}
	if o.MaxTokens <= 0 {
		o.MaxTokens = 4096
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// openCalls opens (or resumes) the call log at path and reads back the
// calls it holds, by id.
//
// The log is not an internal/step step: it is kept open across the
// chunks generate.Run asks for one by one, and a prompt found in it is
// answered from its record (which builds the candidate), not skipped.
func openCalls(path string) (*jsonl.Log[Call], map[string]Call, error) {
	calls, err := jsonl.Open(path, func(c Call) string { return c.ID }, jsonl.Options{Sync: jsonl.SyncEach})
	if err != nil {
		return nil, nil, err
	}
	old, err := jsonl.ReadFile[Call](path)
	if err != nil {
		calls.Close()
		return nil, nil, err
	}
	prior := make(map[string]Call, len(old))
	for _, c := range old {
		prior[c.ID] = c
	}
	return calls, prior, nil
}

// ID is "<family>/<version>:<model id>", recorded in every candidate.
func (g *Generator) ID() string { return g.id }

// Warnings reports what opening the call log repaired.
func (g *Generator) Warnings() []string { return g.calls.Warnings() }

// Close closes the call log.
func (g *Generator) Close() error { return g.calls.Close() }

// slot is one prompt of a chunk.
type slot struct {
	typ  string
	n    int
	id   string
	p    Prompt
	hash string
}

// Generate works through one chunk (see the package doc).
func (g *Generator) Generate(ctx context.Context, req generate.Request) ([]generate.Candidate, error) {
	if err := g.p.Prepare(req.Seeds); err != nil {
		return nil, err
	}
	slots, err := g.plan(req)
	if err != nil {
		return nil, err
	}
	if err := g.prompt(slots); err != nil {
		return nil, err
	}
	results, errsBySlot := g.answerAll(ctx, slots)
	out, first := g.collect(req, slots, results, errsBySlot)
	if first == nil {
		first = ctx.Err()
	}
	if first != nil {
		return out, fmt.Errorf("%s chunk %d: %w", g.id, req.Chunk, first)
	}
	return out, nil
}

// prompt renders each slot's prompt and gives the slot its hash and id.
func (g *Generator) prompt(slots []slot) error {
	for i := range slots {
		s := &slots[i]
		var err error
		if s.p, err = g.p.Prompt(s.typ, s.n); err != nil {
			return fmt.Errorf("%s: prompt %d for %s: %w", g.id, s.n, s.typ, err)
		}
		s.hash = PromptHash(s.p.System, s.p.User)
		s.id = generate.HashID("llm-", g.id, s.typ, fmt.Sprint(s.n), s.hash)
	}
	return nil
}

// answerAll answers the slots, Workers calls at a time. Each slot keeps
// its own error (a failed call is an attempt, not the end of the chunk);
// a budget stop or cancellation stops new calls, and the slots not begun
// then get the stop's context error.
func (g *Generator) answerAll(ctx context.Context, slots []slot) ([]*Call, []error) {
	results := make([]*Call, len(slots))
	errsBySlot := make([]error, len(slots))
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	_ = step.EachIndex(cctx, min(g.opts.Workers, len(slots)), len(slots), func(ctx context.Context, i int) error {
		results[i], errsBySlot[i] = g.answer(ctx, slots[i])
		if errsBySlot[i] != nil && stopping(errsBySlot[i]) {
			cancel() // no new calls after a budget stop or cancellation
		}
		return nil
	})
	for i := range slots {
		if results[i] == nil && errsBySlot[i] == nil { // not begun: the pool stopped first
			errsBySlot[i] = cctx.Err()
		}
	}
	return results, errsBySlot
}

// collect turns the answered slots into candidates and every tried slot
// into an attempt, in slot order; first is the first error of a slot
// that was tried.
func (g *Generator) collect(req generate.Request, slots []slot, results []*Call, errsBySlot []error) (out []generate.Candidate, first error) {
	for i, s := range slots {
		switch err := errsBySlot[i]; {
		case err == nil:
			cand, a := g.candidate(s, results[i])
			req.Report(a)
			out = append(out, cand)
		case errors.Is(err, context.Canceled):
			// not tried: a stop elsewhere or the caller cancelled
		default:
			if first == nil {
				first = err
			}
			req.Report(g.modelError(s, err))
		}
	}
	return out, first
}

// candidate is the candidate of an answered slot and its attempt.
func (g *Generator) candidate(s slot, c *Call) (generate.Candidate, generate.Attempt) {
	cand := generate.Candidate{ID: s.id, ErrorType: s.typ, Generator: g.id, Operator: s.p.Operator, Answer: c.Answer,
		ExampleBugIDs: nonNil(s.p.ExampleBugIDs), PromptHash: s.hash, SizeTarget: s.p.SizeTarget}
	a := generate.Attempt{Generator: g.id, Operator: s.p.Operator, ErrorType: s.typ}
	a.ID = generate.HashID("att-", s.id, generate.OutcomeCandidate)
	a.Outcome, a.CandidateID = generate.OutcomeCandidate, s.id
	a.Detail = fmt.Sprintf("draw %d; prompt %s; exemplars %s; size target %d", s.n, s.hash[:12], strings.Join(s.p.ExampleBugIDs, ","), s.p.SizeTarget)
	return cand, a
}

// modelError is the attempt of a slot whose call failed with err.
func (g *Generator) modelError(s slot, err error) generate.Attempt {
	a := generate.Attempt{Generator: g.id, Operator: s.p.Operator, ErrorType: s.typ}
	a.ID = generate.HashID("att-", s.id, OutcomeModelError, err.Error())
	a.Outcome, a.Detail = OutcomeModelError, clip(err.Error(), 300)
	return a
}

// stopping reports whether err ends the run rather than one prompt.
func stopping(err error) bool {
	return errors.Is(err, errs.ErrBudget) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// plan assigns the chunk's slots to types and draw indices.
func (g *Generator) plan(req generate.Request) ([]slot, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	issued, err := g.startOf(req.Chunk)
	if err != nil {
		return nil, err
	}
	types, err := g.servedTypes(req.Want)
	if err != nil {
		return nil, err
	}
	slots := roundRobin(types, req.Want, issued, g.opts.Batch)
	g.starts = append(g.starts, issued)
	return slots, nil
}

// startOf returns a copy of the prompts issued per type before chunk k,
// forgetting the chunks planned after it (a replay from 0 starts over).
// Chunks must come in order from 0.
func (g *Generator) startOf(k int) (map[string]int, error) {
	if k < 0 || k > len(g.starts) {
		return nil, fmt.Errorf("%s: chunk %d asked after %d chunks: chunks must come in order from 0: %w", g.id, k, len(g.starts), errs.ErrUsage)
	}
	if k == 0 {
		g.starts = []map[string]int{{}}
	} else if k == len(g.starts) {
		return nil, fmt.Errorf("%s: chunk %d asked before chunk %d was planned: %w", g.id, k, k-1, errs.ErrUsage)
	}
	g.starts = g.starts[:k+1]
	return maps.Clone(g.starts[k]), nil
}

// servedTypes returns the wanted types the prompter serves, in
// corpus.Types order; with none, the error (ErrExhausted) names the
// wanted types it cannot serve.
func (g *Generator) servedTypes(want map[string]int) ([]string, error) {
	var types, unserved []string
	for _, t := range corpus.Types {
		if want[t] <= 0 {
			continue
		}
		if g.p.Serves(t) {
			types = append(types, t)
		} else {
			unserved = append(unserved, t)
		}
	}
	if len(types) > 0 {
		return types, nil
	}
	for t, n := range want {
		if !corpus.ValidType(t) && n > 0 {
			unserved = append(unserved, t)
		}
	}
	sort.Strings(unserved)
	return nil, fmt.Errorf("%s: no prompt can be made for the wanted types %s (a seed-grounded type needs at least one seed of it): %w",
		g.id, strings.Join(unserved, ", "), generate.ErrExhausted)
}

// roundRobin deals up to batch slots over types in turn, never more for a
// type than want, numbering each type's prompts on from issued (which it
// advances).
func roundRobin(types []string, want, issued map[string]int, batch int) []slot {
	var slots []slot
	taken := map[string]int{}
	for len(slots) < batch {
		added := false
		for _, t := range types {
			if len(slots) == batch {
				break
			}
			if taken[t] >= want[t] {
				continue
			}
			slots = append(slots, slot{typ: t, n: issued[t]})
			issued[t]++
			taken[t]++
			added = true
		}
		if !added {
			break
		}
	}
	return slots
}

// answer returns the recorded call for s, or makes and records it.
func (g *Generator) answer(ctx context.Context, s slot) (*Call, error) {
	g.pmu.Lock()
	c, ok := g.prior[s.id]
	g.pmu.Unlock()
	if ok {
		return &c, nil
	}
	req := g.request(s)
	resp, err := g.model.Chat(ctx, req)
	if err != nil {
		return nil, err
	}
	if len(resp.Choices) == 0 {
		return nil, fmt.Errorf("%s: prompt %s: the model returned no choices: %w", g.id, s.hash[:12], errs.ErrUnavailable)
	}
	params := req
	params.System, params.Messages = "", nil
	rec := &Call{ID: s.id, Type: s.typ, Draw: s.n, Generator: g.id, Template: g.p.Name(), TemplateHash: g.p.TemplateHash(),
		PromptHash: s.hash, Operator: s.p.Operator, ExampleBugIDs: nonNil(s.p.ExampleBugIDs), SizeTarget: s.p.SizeTarget,
		System: s.p.System, User: s.p.User, Model: g.model.ID(), ReportedModel: resp.Model, Params: params,
		Answer: resp.Choices[0].Text, FinishReason: resp.Choices[0].FinishReason, Usage: resp.Usage,
		Cached: resp.CacheHits > 0, RequestID: resp.RequestID, Time: g.opts.Now().UTC()}
	if err := g.calls.Append(*rec); err != nil && !errors.Is(err, jsonl.ErrDuplicate) {
		return nil, fmt.Errorf("%s: %w", g.id, err)
	}
	g.pmu.Lock()
	g.prior[s.id] = *rec
	g.pmu.Unlock()
	return rec, nil
}

// request builds the chat request of a slot.
func (g *Generator) request(s slot) llm.ChatRequest {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], g.opts.Seed)
	h := PromptHash(string(b[:]), s.typ, fmt.Sprint(s.n))
	var seed int64
	for i := 0; i < 12; i++ { // 48 bits: fits every provider's seed range
		seed = seed<<4 | int64(hexVal(h[i]))
	}
	req := llm.ChatRequest{System: s.p.System, Messages: []llm.Message{{Role: "user", Content: s.p.User}},
		MaxTokens: g.opts.MaxTokens, Seed: &seed}
	if !g.opts.ProviderDefaults {
		req.Temperature, req.TopP = g.opts.Temperature, g.opts.TopP
	}
	return req
}

func hexVal(c byte) byte {
	if c >= 'a' {
		return c - 'a' + 10
	}
	return c - '0'
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// clip shortens s to at most n bytes at a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// PromptHash is the hex sha256 of the parts, each followed by a NUL byte.
func PromptHash(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}
