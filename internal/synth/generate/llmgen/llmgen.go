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
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/llm"
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
	if opts.Workers <= 0 {
		opts.Workers = 4
	}
	if opts.Batch <= 0 {
		opts.Batch = 2 * opts.Workers
	}
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = 4096
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("llmgen.New: %w", err)
	}
	path := filepath.Join(opts.Dir, CallsFile)
	calls, err := jsonl.Open(path, func(c Call) string { return c.ID }, jsonl.Options{Sync: jsonl.SyncEach})
	if err != nil {
		return nil, fmt.Errorf("llmgen.New(%s): %w", p.Name(), err)
	}
	old, err := jsonl.ReadFile[Call](path)
	if err != nil {
		calls.Close()
		return nil, fmt.Errorf("llmgen.New(%s): %w", p.Name(), err)
	}
	prior := make(map[string]Call, len(old))
	for _, c := range old {
		prior[c.ID] = c
	}
	mid := model.ID()
	if opts.ModelID != "" {
		mid = opts.ModelID
	}
	return &Generator{p: p, model: model, opts: opts, id: p.Name() + ":" + mid, calls: calls, prior: prior}, nil
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
	for i := range slots {
		s := &slots[i]
		if s.p, err = g.p.Prompt(s.typ, s.n); err != nil {
			return nil, fmt.Errorf("%s: prompt %d for %s: %w", g.id, s.n, s.typ, err)
		}
		s.hash = PromptHash(s.p.System, s.p.User)
		s.id = generate.HashID("llm-", g.id, s.typ, fmt.Sprint(s.n), s.hash)
	}
	results := make([]*Call, len(slots))
	errsBySlot := make([]error, len(slots))
	// Each slot keeps its own error (a failed call is an attempt, not the
	// end of the chunk), so the group only bounds the calls in flight.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var eg errgroup.Group
	eg.SetLimit(max(min(g.opts.Workers, len(slots)), 1))
	for i := range slots {
		if cctx.Err() != nil {
			errsBySlot[i] = cctx.Err()
			continue
		}
		eg.Go(func() error {
			if err := cctx.Err(); err != nil { // stopped while waiting for a slot
				errsBySlot[i] = err
				return nil
			}
			results[i], errsBySlot[i] = g.answer(cctx, slots[i])
			if errsBySlot[i] != nil && stopping(errsBySlot[i]) {
				cancel() // no new calls after a budget stop or cancellation
			}
			return nil
		})
	}
	eg.Wait()

	var out []generate.Candidate
	var first error
	for i, s := range slots {
		a := generate.Attempt{Generator: g.id, Operator: s.p.Operator, ErrorType: s.typ}
		if err := errsBySlot[i]; err != nil {
			if errors.Is(err, context.Canceled) {
				continue // not tried: a stop elsewhere or the caller cancelled
			}
			if first == nil {
				first = err
			}
			a.ID = generate.HashID("att-", s.id, OutcomeModelError, err.Error())
			a.Outcome, a.Detail = OutcomeModelError, clip(err.Error(), 300)
			report(req, a)
			continue
		}
		c := results[i]
		cand := generate.Candidate{ID: s.id, ErrorType: s.typ, Generator: g.id, Operator: s.p.Operator, Answer: c.Answer,
			ExampleBugIDs: nonNil(s.p.ExampleBugIDs), PromptHash: s.hash, SizeTarget: s.p.SizeTarget}
		a.ID = generate.HashID("att-", s.id, generate.OutcomeCandidate)
		a.Outcome, a.CandidateID = generate.OutcomeCandidate, s.id
		a.Detail = fmt.Sprintf("draw %d; prompt %s; exemplars %s; size target %d", s.n, s.hash[:12], strings.Join(s.p.ExampleBugIDs, ","), s.p.SizeTarget)
		report(req, a)
		out = append(out, cand)
	}
	if first == nil {
		first = ctx.Err()
	}
	if first != nil {
		return out, fmt.Errorf("%s chunk %d: %w", g.id, req.Chunk, first)
	}
	return out, nil
}

func report(req generate.Request, a generate.Attempt) {
	if req.OnAttempt != nil {
		req.OnAttempt(a)
	}
}

// stopping reports whether err ends the run rather than one prompt.
func stopping(err error) bool {
	return errors.Is(err, errs.ErrBudget) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// plan assigns the chunk's slots to types and draw indices.
func (g *Generator) plan(req generate.Request) ([]slot, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if req.Chunk < 0 || req.Chunk > len(g.starts) {
		return nil, fmt.Errorf("%s: chunk %d asked after %d chunks: chunks must come in order from 0: %w", g.id, req.Chunk, len(g.starts), errs.ErrUsage)
	}
	if req.Chunk == 0 {
		g.starts = []map[string]int{{}}
	} else if req.Chunk == len(g.starts) {
		return nil, fmt.Errorf("%s: chunk %d asked before chunk %d was planned: %w", g.id, req.Chunk, req.Chunk-1, errs.ErrUsage)
	}
	g.starts = g.starts[:req.Chunk+1]
	issued := map[string]int{}
	for t, n := range g.starts[req.Chunk] {
		issued[t] = n
	}
	var types []string
	var unserved []string
	for _, t := range corpus.Types {
		if req.Want[t] <= 0 {
			continue
		}
		if g.p.Serves(t) {
			types = append(types, t)
		} else {
			unserved = append(unserved, t)
		}
	}
	for t := range req.Want {
		if !corpus.ValidType(t) && req.Want[t] > 0 {
			unserved = append(unserved, t)
		}
	}
	if len(types) == 0 {
		sort.Strings(unserved)
		return nil, fmt.Errorf("%s: no prompt can be made for the wanted types %s (a seed-grounded type needs at least one seed of it): %w",
			g.id, strings.Join(unserved, ", "), generate.ErrExhausted)
	}
	var slots []slot
	taken := map[string]int{}
	for len(slots) < g.opts.Batch {
		added := false
		for _, t := range types {
			if len(slots) == g.opts.Batch {
				break
			}
			if taken[t] >= req.Want[t] {
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
	g.starts = append(g.starts, issued)
	return slots, nil
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
