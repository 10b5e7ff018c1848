// Package grounded owns the seed-grounded few-shot generator of rxsynth
// §4.3: each prompt shows one or two real buggy/fixed pairs of the target
// exception type (buggy method, fixed method and a unified diff with two
// context lines), asks for a new pair with the same kind of mistake and the
// same fix shape, and carries an exemplar-derived size target.
//
// Exemplar selection (deterministic given Options.Seed and the seeds):
//
//   - k=2: a PairQueue per type enumerates all C(N,2) seed pairs, shuffled,
//     exhausted before any pair is reused;
//   - k=1, and every prompt of a type with fewer than MinPairSeeds seeds:
//     LOC-stratified Rotation over size bands that skips recently used seeds.
//
// For types that support pairs, prompt n of a type is k=2 exactly when
// ⌊(n+1)·PairShare⌋ > ⌊n·PairShare⌋, so PairShare of the prompts are k=2
// (default 0.74 ≈ the paper's 3,157 k=2 of 4,275 released pairs) spread
// evenly; the k=2 prompts take successive pair-queue draws and the k=1
// prompts successive rotation draws.
//
// Size target: the exemplars' buggy-method LLOC (internal/metrics) give
// SizeFor's target and ±40% band; two different sizes make the prompt ask to
// aim between them. Per-type candidate targets follow seed prevalence with
// a floor and cap (Targets; §4.4: 500 and 1,000).
//
// The prompt text is prompts/grounded.tmpl (embedded; Version names it and
// TemplateHash hashes it). Calls, records and resumption are llmgen's.
package grounded

import (
	"crypto/sha256"
	_ "embed" // the prompt template
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"text/template"

	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/metrics"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/generate/llmgen"
)

// Version names the generator and its prompt template; change it with any
// edit to prompts/grounded.tmpl.
const Version = "seed-grounded/v1"

// DiffContext is the context lines of the exemplar diffs (§4.3: two).
const DiffContext = 2

//go:embed prompts/grounded.tmpl
var templateText string

var tmpl = template.Must(template.New("grounded").Option("missingkey=error").
	Funcs(template.FuncMap{"inc": func(i int) int { return i + 1 }}).Parse(templateText))

var templateHash = func() string {
	h := sha256.Sum256([]byte(Version + "\x00" + templateText))
	return hex.EncodeToString(h[:])
}()

// TemplateHash is the sha256 of Version and the template text.
func TemplateHash() string { return templateHash }

// Options configure exemplar selection and size targets.
type Options struct {
	Seed uint64
	// PairShare is the share of k=2 prompts for types with at least
	// MinPairSeeds seeds; 0 means 0.74, negative means none (k=1 only).
	PairShare float64
	// MinPairSeeds is the smallest type that uses the pair queue; 0 means 4.
	MinPairSeeds int
	// Bands and Recent configure the rotation; 0 means 3 bands and a window
	// of 5 draws.
	Bands, Recent int
	// SizeTolerance is the size band (0 means 0.4); MinTarget the smallest
	// target (0 means 3, the gate's smallest method); NoSizeTarget omits it.
	SizeTolerance float64
	MinTarget     int
	NoSizeTarget  bool
}

func (o Options) withDefaults() Options {
	if o.PairShare == 0 {
		o.PairShare = 0.74
	}
	o.PairShare = min(max(o.PairShare, 0), 1)
	if o.MinPairSeeds <= 0 {
		o.MinPairSeeds = 4
	}
	o.MinPairSeeds = max(o.MinPairSeeds, 2)
	if o.Bands <= 0 {
		o.Bands = 3
	}
	if o.Recent <= 0 {
		o.Recent = 5
	}
	if o.SizeTolerance <= 0 {
		o.SizeTolerance = 0.4
	}
	if o.MinTarget <= 0 {
		o.MinTarget = 3
	}
	return o
}

// New returns the seed-grounded generator over model.
func New(model llm.Model, opts Options, gopts llmgen.Options) (*llmgen.Generator, error) {
	return llmgen.New(NewPrompter(opts), model, gopts)
}

// Prompter renders seed-grounded prompts; it implements llmgen.Prompter.
type Prompter struct {
	opts Options

	mu     sync.Mutex
	print  string
	types  map[string]*typeSchedule
	sorted []string
}

// typeSchedule holds one type's seeds (sorted by bug_id) and schedules.
type typeSchedule struct {
	seeds []corpus.Seed
	lloc  []int
	diffs []string
	pairs *PairQueue // nil: k=1 only
	rot   *Rotation
}

// NewPrompter returns a prompter; seeds arrive through Prepare.
func NewPrompter(opts Options) *Prompter { return &Prompter{opts: opts.withDefaults()} }

// Name is Version.
func (p *Prompter) Name() string { return Version }

// TemplateHash is the package TemplateHash.
func (p *Prompter) TemplateHash() string { return templateHash }

// Prepare builds the per-type schedules from the seeds (once per distinct
// seed set). Seeds repeating a bug_id keep their first record.
func (p *Prompter) Prepare(seeds []corpus.Seed) error {
	print := seedPrint(seeds)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.types != nil && print == p.print {
		return nil
	}
	types := map[string]*typeSchedule{}
	for t, ss := range seedsByType(seeds) {
		ts, err := p.schedule(t, ss)
		if err != nil {
			return err
		}
		types[t] = ts
	}
	p.types, p.print = types, print
	return nil
}

// seedPrint fingerprints a seed set: bug ids, types and method lengths.
func seedPrint(seeds []corpus.Seed) string {
	h := sha256.New()
	for _, s := range seeds {
		fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d\x00", s.BugID, s.Exception, len(s.BuggyMethod), len(s.FixedMethod))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// seedsByType groups the usable seeds by type, each bug_id's first record
// only, sorted by bug_id.
func seedsByType(seeds []corpus.Seed) map[string][]corpus.Seed {
	byType := map[string][]corpus.Seed{}
	seen := map[string]bool{}
	for _, s := range seeds {
		if !corpus.ValidType(s.Exception) || s.BugID == "" || seen[s.BugID] || s.BuggyMethod == "" || s.FixedMethod == "" {
			continue
		}
		seen[s.BugID] = true
		byType[s.Exception] = append(byType[s.Exception], s)
	}
	for _, ss := range byType {
		sort.Slice(ss, func(a, b int) bool { return ss[a].BugID < ss[b].BugID })
	}
	return byType
}

// schedule measures and diffs type t's seeds and builds its pair queue
// (when it has enough seeds for k=2) and its LOC rotation.
func (p *Prompter) schedule(t string, ss []corpus.Seed) (*typeSchedule, error) {
	ts := &typeSchedule{seeds: ss, lloc: make([]int, len(ss)), diffs: make([]string, len(ss))}
	for i, s := range ss {
		if m, err := metrics.OfMethodSource([]byte(s.BuggyMethod)); err == nil {
			ts.lloc[i] = m.Metrics.LLOC
		}
		ts.diffs[i] = MethodDiff(s.BuggyMethod, s.FixedMethod)
	}
	var err error
	if len(ss) >= p.opts.MinPairSeeds && p.opts.PairShare > 0 {
		if ts.pairs, err = NewPairQueue(len(ss), p.opts.Seed, "pairs/"+t); err != nil {
			return nil, fmt.Errorf("grounded: %s: %w", t, err)
		}
	}
	if ts.rot, err = NewRotation(ts.lloc, p.opts.Bands, p.opts.Recent, p.opts.Seed, "rotation/"+t); err != nil {
		return nil, fmt.Errorf("grounded: %s: %w", t, err)
	}
	return ts, nil
}

// Serves reports whether t has at least one seed.
func (p *Prompter) Serves(t string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.types[t] != nil
}

// Exemplars returns the seed indices (into the type's seeds sorted by
// bug_id) of prompt n of type t, and whether it came from the pair queue.
func (p *Prompter) Exemplars(t string, n int) (idx []int, k2 bool, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ts := p.types[t]
	if ts == nil {
		return nil, false, fmt.Errorf("grounded: no seeds of type %q: %w", t, errs.ErrInput)
	}
	if n < 0 {
		return nil, false, fmt.Errorf("grounded: prompt index %d < 0: %w", n, errs.ErrUsage)
	}
	if ts.pairs == nil {
		return []int{ts.rot.Draw(n)}, false, nil
	}
	share := p.opts.PairShare
	before := int(math.Floor(float64(n) * share)) // k=2 prompts before n
	if int(math.Floor(float64(n+1)*share)) > before {
		i, j := ts.pairs.Pair(before)
		return []int{i, j}, true, nil
	}
	return []int{ts.rot.Draw(n - before)}, false, nil
}

// exemplar is one example of the template.
type exemplar struct{ Buggy, Fixed, Diff string }

type promptData struct {
	Type                 string
	Exemplars            []exemplar
	Target, Lo, Hi       int
	BetweenLo, BetweenHi int
}

// Prompt renders prompt n of type t.
func (p *Prompter) Prompt(t string, n int) (llmgen.Prompt, error) {
	idx, k2, err := p.Exemplars(t, n)
	if err != nil {
		return llmgen.Prompt{}, err
	}
	p.mu.Lock()
	ts := p.types[t]
	p.mu.Unlock()
	d := promptData{Type: t}
	var ids []string
	var llocs []int
	for _, i := range idx {
		s := ts.seeds[i]
		d.Exemplars = append(d.Exemplars, exemplar{Buggy: strings.TrimRight(s.BuggyMethod, "\n"), Fixed: strings.TrimRight(s.FixedMethod, "\n"), Diff: ts.diffs[i]})
		ids = append(ids, s.BugID)
		llocs = append(llocs, ts.lloc[i])
	}
	var size Size
	if !p.opts.NoSizeTarget {
		size = SizeFor(llocs, p.opts.SizeTolerance, p.opts.MinTarget)
	}
	d.Target, d.Lo, d.Hi, d.BetweenLo, d.BetweenHi = size.Target, size.Lo, size.Hi, size.Between[0], size.Between[1]
	var sys, user strings.Builder
	if err := tmpl.ExecuteTemplate(&sys, "system", d); err != nil {
		return llmgen.Prompt{}, fmt.Errorf("grounded: render prompt: %w", err)
	}
	if err := tmpl.ExecuteTemplate(&user, "user", d); err != nil {
		return llmgen.Prompt{}, fmt.Errorf("grounded: render prompt: %w", err)
	}
	op := "k1-rotation"
	if k2 {
		op = "k2-pair-queue"
	}
	return llmgen.Prompt{System: sys.String(), User: user.String(), ExampleBugIDs: ids, SizeTarget: size.Target, Operator: op}, nil
}

// MethodDiff is the unified diff of a buggy and fixed method with
// DiffContext lines of context, hunks only (no file header lines).
func MethodDiff(buggy, fixed string) string {
	fd := diff.Unified("buggy", "fixed", []byte(ensureNL(buggy)), []byte(ensureNL(fixed)), DiffContext)
	var b strings.Builder
	for _, line := range strings.SplitAfter(fd.String(), "\n") {
		if strings.HasPrefix(line, "--- ") || strings.HasPrefix(line, "+++ ") {
			continue
		}
		b.WriteString(line)
	}
	return strings.TrimRight(b.String(), "\n")
}

func ensureNL(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
