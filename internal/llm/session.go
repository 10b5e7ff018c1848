package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm/cache"
	"github.com/benchforge/benchforge/internal/output"
)

// SessionOptions configure a run's model layer.
type SessionOptions struct {
	// CacheDir holds the cache database; "" means cache.DefaultDir().
	CacheDir string
	// NoCache disables the cache: every call goes to the provider.
	NoCache bool
	// MaxCost (US dollars) stops the run with errs.ErrBudget before a call
	// whose estimated cost would take spending past it; 0 means no limit.
	MaxCost float64
	// Prices override or extend DefaultPrices ("provider:model-prefix", or a
	// full spec string for a specific endpoint).
	Prices map[string]Price
	// Retry configures retries of transient failures.
	Retry RetryPolicy
	// Limits per provider name ("openai", "anthropic", ...); endpoints are
	// limited separately (provider + base URL). DefaultLimits applies to
	// providers not listed.
	Limits        map[string]Limits
	DefaultLimits Limits
	// Provider is passed to every provider constructor.
	Provider Options
}

// Fingerprinter is implemented by providers whose spec does not pin the
// model's content (e.g. an in-process model loaded from a file path). The
// fingerprint (a content hash) joins every cache key, so a retrained model
// never hits a stale answer.
type Fingerprinter interface {
	Fingerprint() string
}

// Session is one run's model layer: it opens models wrapped with the cache,
// retries, rate limits and budget, and accounts for every call in a Manifest.
// It is safe for concurrent use.
type Session struct {
	opts    SessionOptions
	cache   *cache.Cache
	started time.Time
	prices  map[string]Price

	mu       sync.Mutex
	stats    map[string]*ModelStats
	limiters map[string]*limiter
	spent    float64 // settled cost
	reserved float64 // estimated cost of calls in flight
	notes    []string
}

// NewSession opens the cache (unless NoCache) and starts the run clock.
func NewSession(opts SessionOptions) (*Session, error) {
	s := &Session{
		opts:     opts,
		started:  time.Now(),
		stats:    map[string]*ModelStats{},
		limiters: map[string]*limiter{},
		prices:   map[string]Price{},
	}
	s.opts.Retry = opts.Retry.withDefaults()
	for k, v := range DefaultPrices {
		s.prices[k] = v
	}
	for k, v := range opts.Prices {
		s.prices[k] = v
	}
	if opts.MaxCost < 0 {
		return nil, fmt.Errorf("--max-cost %.2f is negative: %w", opts.MaxCost, errs.ErrUsage)
	}
	if !opts.NoCache {
		dir := opts.CacheDir
		if dir == "" {
			d, err := cache.DefaultDir()
			if err != nil {
				return nil, fmt.Errorf("model cache: %w", err)
			}
			dir = d
		}
		c, err := cache.Open(dir)
		if err != nil {
			return nil, fmt.Errorf("model cache: %w", err)
		}
		s.cache = c
	}
	return s, nil
}

// Cache is the session's cache, nil in no-cache mode.
func (s *Session) Cache() *cache.Cache { return s.cache }

// Close closes the cache.
func (s *Session) Close() error {
	if s.cache == nil {
		return nil
	}
	return s.cache.Close()
}

// Open parses spec, constructs the provider model and wraps it.
func (s *Session) Open(spec string) (Model, error) {
	sp, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	inner, err := OpenSpec(sp, s.opts.Provider)
	if err != nil {
		return nil, err
	}
	return s.Wrap(sp, inner), nil
}

// Wrap puts an already constructed provider model behind the session's
// cache, retries, limits and budget. sp is the spec it was built from.
func (s *Session) Wrap(sp Spec, inner Model) Model {
	price, known, note := lookupPrice(sp, s.prices)
	id := inner.ID()
	fp := ""
	if f, ok := inner.(Fingerprinter); ok {
		fp = f.Fingerprint()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.stats[id]
	if !ok {
		st = &ModelStats{ID: id, Provider: sp.Provider, Model: sp.Model, BaseURL: sp.BaseURL,
			Price: price, PriceKnown: known, Note: note, Ops: map[string]int64{}}
		s.stats[id] = st
	}
	lkey := sp.Provider + "@" + sp.BaseURL
	lim, ok := s.limiters[lkey]
	if !ok {
		l, ok := s.opts.Limits[sp.Provider]
		if !ok {
			l = s.opts.DefaultLimits
		}
		lim = newLimiter(l)
		s.limiters[lkey] = lim
	}
	return &cachedModel{s: s, inner: inner, id: id, fingerprint: fp, price: price, lim: lim, st: st}
}

// reserve books est dollars for a call about to be made, or refuses with
// errs.ErrBudget when that would take spending past MaxCost.
func (s *Session) reserve(id, op string, est float64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.opts.MaxCost > 0 && s.spent+s.reserved+est > s.opts.MaxCost {
		return fmt.Errorf("%s %s: next call (estimated $%.4f) would exceed the budget: spent $%.2f of --max-cost $%.2f; rerun to resume: cached calls are free: %w",
			id, op, est, s.spent, s.opts.MaxCost, errs.ErrBudget)
	}
	s.reserved += est
	return nil
}

// settle replaces a reservation by the actual cost.
func (s *Session) settle(est, actual float64) {
	s.mu.Lock()
	s.reserved -= est
	s.spent += actual
	s.mu.Unlock()
}

func (s *Session) note(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, n := range s.notes {
		if n == msg {
			return
		}
	}
	if len(s.notes) < 100 {
		s.notes = append(s.notes, msg)
	}
}

// Spent is the settled cost so far, in dollars.
func (s *Session) Spent() float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.spent
}

// ModelStats accounts for one model in a Manifest.
type ModelStats struct {
	ID               string            `json:"id"`
	Provider         string            `json:"provider"`
	Model            string            `json:"model"`
	BaseURL          string            `json:"base_url,omitempty"`
	ReportedModels   []string          `json:"reported_models,omitempty"`
	Params           []json.RawMessage `json:"params,omitempty"` // distinct request parameter sets (texts removed)
	Ops              map[string]int64  `json:"ops"`              // provider calls per operation
	Calls            int64             `json:"calls"`            // successful provider calls (paid)
	Failed           int64             `json:"failed"`           // calls that ended in an error
	Retries          int64             `json:"retries"`
	CacheHits        int64             `json:"cache_hits"` // samples served from the cache
	PromptTokens     int64             `json:"prompt_tokens"`
	CompletionTokens int64             `json:"completion_tokens"`
	CostUSD          float64           `json:"cost_usd"`
	Price            Price             `json:"price"`
	PriceKnown       bool              `json:"price_known"`
	Note             string            `json:"note,omitempty"`
}

// Manifest records what a run asked of its models. It never holds a key.
type Manifest struct {
	Started          time.Time     `json:"started"`
	WallSeconds      float64       `json:"wall_seconds"`
	CacheDB          string        `json:"cache_db,omitempty"`
	MaxCostUSD       float64       `json:"max_cost_usd,omitempty"`
	Calls            int64         `json:"calls"`
	CacheHits        int64         `json:"cache_hits"`
	PromptTokens     int64         `json:"prompt_tokens"`
	CompletionTokens int64         `json:"completion_tokens"`
	CostUSD          float64       `json:"cost_usd"`
	Models           []*ModelStats `json:"models"`
	Notes            []string      `json:"notes,omitempty"`
}

// Manifest snapshots the run's accounting.
func (s *Session) Manifest() Manifest {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := Manifest{Started: s.started.UTC(), WallSeconds: time.Since(s.started).Seconds(),
		MaxCostUSD: s.opts.MaxCost, Notes: append([]string(nil), s.notes...)}
	if s.cache != nil {
		m.CacheDB = s.cache.Path()
	}
	for _, st := range s.stats {
		c := *st
		c.ReportedModels = append([]string(nil), st.ReportedModels...)
		c.Params = append([]json.RawMessage(nil), st.Params...)
		c.Ops = make(map[string]int64, len(st.Ops))
		for k, v := range st.Ops {
			c.Ops[k] = v
		}
		m.Models = append(m.Models, &c)
		m.Calls += c.Calls
		m.CacheHits += c.CacheHits
		m.PromptTokens += c.PromptTokens
		m.CompletionTokens += c.CompletionTokens
		m.CostUSD += c.CostUSD
		if c.Note != "" && (c.Calls > 0 || c.CacheHits > 0) {
			m.Notes = append(m.Notes, c.Note)
		}
	}
	sort.Slice(m.Models, func(i, j int) bool { return m.Models[i].ID < m.Models[j].ID })
	return m
}

// WriteManifest writes the manifest as indented JSON to path, atomically.
func (s *Session) WriteManifest(path string) error {
	if err := output.WriteJSON(path, s.Manifest()); err != nil {
		return fmt.Errorf("llm manifest: %w", err)
	}
	return nil
}

// record updates a model's accounting after a provider call.
func (s *Session) record(st *ModelStats, op string, params json.RawMessage, meta Meta, cost float64, retries int64, failed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st.Retries += retries
	if failed {
		st.Failed++
		return
	}
	st.Calls++
	st.Ops[op]++
	st.PromptTokens += meta.Usage.PromptTokens
	st.CompletionTokens += meta.Usage.CompletionTokens
	st.CostUSD += cost
	if meta.Model != "" && !contains(st.ReportedModels, meta.Model) && len(st.ReportedModels) < 20 {
		st.ReportedModels = append(st.ReportedModels, meta.Model)
	}
	if params != nil && len(st.Params) < 50 {
		for _, p := range st.Params {
			if string(p) == string(params) {
				return
			}
		}
		st.Params = append(st.Params, params)
	}
}

func (s *Session) recordHits(st *ModelStats, n int) {
	s.mu.Lock()
	st.CacheHits += int64(n)
	s.mu.Unlock()
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// errExhausted wraps the last error after the retry budget ran out.
func errExhausted(id, op string, attempts int, last error) error {
	if errors.Is(last, errs.ErrUnavailable) {
		return fmt.Errorf("%s %s: gave up after %d attempts: %w", id, op, attempts, last)
	}
	return fmt.Errorf("%s %s: gave up after %d attempts: %w: %w", id, op, attempts, errs.ErrUnavailable, last)
}
