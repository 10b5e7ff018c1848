// Package gate owns the generation-time quality gates of rxsynth §4.4: the
// checks every candidate pair passes before semantic validation, each
// rejection logged with its cause, and a per-cause summary.
//
// Gates, in the order they run (the first failing one is the cause):
//
//  1. syntactic (model answers only, ParseAnswer): exactly two fenced Java
//     blocks (block_count; truncated for an unclosed fence; not_java for a
//     block marked as another language), package/import lines and a
//     one-method class wrapper removed, no other type declaration
//     (type_declaration);
//  2. each method wrapped in a dummy class parses without ERROR/MISSING
//     nodes (parse_error) and holds exactly one method or constructor
//     (method_count; local and anonymous classes inside it count as
//     type_declaration / are allowed respectively);
//  3. identical signatures, modifiers, return type, name, parameters and
//     throws compared with whitespace and annotations ignored
//     (signature_mismatch);
//  4. the two methods differ in their tokens (identical) and their token
//     5-gram Jaccard is below Options.MaxPairSim (within_pair_similar,
//     a trivial or effectively empty patch);
//  5. size: both methods' LLOC (internal/metrics) within
//     [MinLLOC, MaxLLOC] (size), and within ±SizeTolerance of the
//     candidate's size target when it has one (size_target);
//  6. novelty: each method's maximum token 5-gram Jaccard to every seed
//     method (buggy and fixed) of the same type is below MaxSeedSim
//     (seed_similar);
//  7. near-duplicates: a pair is dropped when either method's normalised
//     token 5-gram Jaccard with either method of an already accepted pair
//     reaches DupThreshold (near_duplicate); MinHash-LSH (128 hashes)
//     proposes candidates and the exact Jaccard confirms them;
//  8. rename-blind clones (NiCad type-2, blind renaming of identifiers
//     and literals): a pair is dropped when either method is a clone of
//     either method of an accepted pair (clone).
//
// Accepted methods have their comments stripped (§4.3), but for a
// mutation generator's (real host code with a source location), which
// keep the host's comments away from the mutated site. Normalised tokens
// are internal/code's lexical tokens without comments, so layout and
// comments never matter. Candidates are visited in input order, so for
// near-duplicates and clones the first one wins.
//
// Defaults: the paper names the measures but not their thresholds.
// MaxSeedSim 0.5 sits just above the largest synthetic-to-seed 5-gram
// Jaccard the paper observed in its released corpus (0.448, §6.5), so it
// would have kept every released pair. MaxPairSim 0.98 rejects patches that
// change under about 1% of a method's 5-grams (a one-token change in a
// method of over ~500 tokens). DupThreshold 0.8, the LLOC range 3–150 and
// the ±40% size tolerance (§4.3) complete the set; all are flags.
//
// Measured on the 2-core VM with nothing else running (2026-11-30):
// BenchmarkGates (2,000 synthetic candidates of 8–30 statements, both
// sides passing every gate, 2 workers; -benchtime 5x -count 3) 2,158–2,255
// candidates/s. About half the CPU is tree-sitter parsing; the fixed
// method is parsed incrementally from the buggy one's tree
// (code.ParseJavaMethodPair), which took the rate from ~1,850/s.
// Near-duplicates (BenchmarkNearDup, token 5-grams, threshold 0.8,
// synthetic 80–300-token documents, -benchtime 1x): MinHash-LSH 0.36 s vs
// all-pairs 23.0 s at 5,000 (65×); LSH 4.1 s at 50,000, where all-pairs,
// extrapolated from a 1,000-row sample (88.1 s for 1,000 × 49,000 pairs,
// ×25.5), would take ≈2,250 s (≈550×).
package gate

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/metrics"
	"github.com/benchforge/benchforge/internal/step"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/textsim"
)

// Rejection causes.
const (
	CauseBlockCount   = "block_count"
	CauseTruncated    = "truncated"
	CauseNotJava      = "not_java"
	CauseTypeDecl     = "type_declaration"
	CauseParse        = "parse_error"
	CauseMethodCount  = "method_count"
	CauseSignature    = "signature_mismatch"
	CauseIdentical    = "identical"
	CausePairSimilar  = "within_pair_similar"
	CauseSize         = "size"
	CauseSizeTarget   = "size_target"
	CauseSeedSimilar  = "seed_similar"
	CauseNearDup      = "near_duplicate"
	CauseClone        = "clone"
	CauseBadType      = "bad_error_type"
	CauseDuplicateID  = "duplicate_id"
	CauseMissingInput = "no_methods"
)

// Causes lists every cause in gate order, for tables.
var Causes = []string{CauseBadType, CauseDuplicateID, CauseMissingInput, CauseBlockCount, CauseTruncated, CauseNotJava,
	CauseTypeDecl, CauseParse, CauseMethodCount, CauseSignature, CauseIdentical, CausePairSimilar, CauseSize,
	CauseSizeTarget, CauseSeedSimilar, CauseNearDup, CauseClone}

// Options are the gate thresholds (see the package doc for the defaults).
type Options struct {
	MaxSeedSim    float64 `json:"max_seed_sim"`   // novelty: reject at or above; default 0.5
	MaxPairSim    float64 `json:"max_pair_sim"`   // within-pair 5-gram Jaccard: reject at or above; default 0.98
	MinLLOC       int     `json:"min_lloc"`       // default 3
	MaxLLOC       int     `json:"max_lloc"`       // default 150
	SizeTolerance float64 `json:"size_tolerance"` // around a candidate's size target; default 0.4
	DupThreshold  float64 `json:"dup_threshold"`  // near-duplicate 5-gram Jaccard; default 0.8
	NoClones      bool    `json:"no_clones"`      // skip rename-blind clone detection
	Workers       int     `json:"-"`              // default GOMAXPROCS
}

// DefaultOptions returns the documented defaults.
func DefaultOptions() Options {
	return Options{MaxSeedSim: 0.5, MaxPairSim: 0.98, MinLLOC: 3, MaxLLOC: 150, SizeTolerance: 0.4, DupThreshold: 0.8}
}

// N is the token n-gram size of every similarity gate (§4.4: 5-grams).
const N = 5

// Rejection is one logged rejection.
type Rejection struct {
	ID        string `json:"id"`
	ErrorType string `json:"error_type"`
	Generator string `json:"generator"`
	Operator  string `json:"operator,omitempty"`
	Cause     string `json:"cause"`
	Detail    string `json:"detail"`
}

// CauseCount is one row of the summary.
type CauseCount struct {
	Cause string `json:"cause"`
	Count int    `json:"count"`
}

// Result is the outcome of Run.
type Result struct {
	Accepted []corpus.Pair `json:"-"`
	Rejected []Rejection   `json:"-"`
	Total    int           `json:"total"`
	// Causes counts rejections per cause, in Causes order, omitting zeros;
	// ByType counts accepted pairs per type.
	Causes []CauseCount   `json:"causes"`
	ByType map[string]int `json:"accepted_by_type"`
	Opts   Options        `json:"options"`
}

// method is one side of a pair after the per-candidate gates.
type method struct {
	text     string   // comments stripped
	tokens   []string // normalised (no comments)
	shingles []uint64
	sig      []uint64 // MinHash signature
	blind    string   // rename-blind token key
}

type prepared struct {
	rej   *Reject
	sides [2]method
}

// Run gates cands against seeds and returns the accepted pairs and the
// logged rejections. Gates 1–6 look at one candidate and run in parallel;
// the duplicate, near-duplicate and clone gates compare with what was
// accepted before, so they run in input order.
func Run(ctx context.Context, cands []corpus.Candidate, seeds []corpus.Seed, opts Options) (*Result, error) {
	opts = withDefaults(opts)
	seedSh := seedShingles(seeds)
	mh := textsim.NewMinHasher(128, 1)
	prep := make([]prepared, len(cands))
	// check never fails, so the pool's only error is a cancelled ctx,
	// which is tested after it (as a stop after the last item counts too).
	_ = step.EachIndex(ctx, opts.Workers, len(cands), func(_ context.Context, i int) error {
		prep[i] = check(cands[i], seedSh, mh, opts)
		return nil
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	a := newAdmission(len(cands), opts)
	for i, c := range cands {
		a.admit(c, prep[i], cands)
	}
	return a.result(), nil
}

// withDefaults fills the unset thresholds with DefaultOptions' and the
// workers with GOMAXPROCS.
func withDefaults(opts Options) Options {
	def := DefaultOptions()
	for _, f := range []struct{ v, d *float64 }{{&opts.MaxSeedSim, &def.MaxSeedSim}, {&opts.MaxPairSim, &def.MaxPairSim},
		{&opts.SizeTolerance, &def.SizeTolerance}, {&opts.DupThreshold, &def.DupThreshold}} {
		if *f.v <= 0 {
			*f.v = *f.d
		}
	}
	if opts.MinLLOC <= 0 {
		opts.MinLLOC = def.MinLLOC
	}
	if opts.MaxLLOC <= 0 {
		opts.MaxLLOC = def.MaxLLOC
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	return opts
}

// seedShingles returns the 5-gram shingles of every parsable seed method,
// by exception type: what the novelty gate compares with.
func seedShingles(seeds []corpus.Seed) map[string][][]uint64 {
	seedSh := map[string][][]uint64{}
	for _, s := range seeds {
		for _, m := range []string{s.BuggyMethod, s.FixedMethod} {
			if toks, ok := tokensOf(m); ok {
				seedSh[s.Exception] = append(seedSh[s.Exception], textsim.Shingles(toks, N))
			}
		}
	}
	return seedSh
}

// admission is the sequential part of Run: the gates that compare a
// candidate with the pairs accepted before it.
type admission struct {
	res    *Result
	opts   Options
	lsh    *textsim.LSH
	kept   []method       // side k of accepted pair i is kept[2i+k]
	blind  map[string]int // rename-blind text → first accepted pair holding it
	seen   map[string]bool
	counts map[string]int
}

func newAdmission(total int, opts Options) *admission {
	bands, rows := textsim.BandsFor(128, opts.DupThreshold)
	return &admission{res: &Result{Total: total, ByType: map[string]int{}, Opts: opts}, opts: opts,
		lsh: textsim.NewLSH(bands, rows), blind: map[string]int{}, seen: map[string]bool{}, counts: map[string]int{}}
}

// admit runs the order-dependent gates on c (checked as p) and records it
// as accepted or rejected.
func (a *admission) admit(c corpus.Candidate, p prepared, cands []corpus.Candidate) {
	if p.rej == nil && a.seen[c.ID] {
		p.rej = reject(CauseDuplicateID, "id %s already seen", c.ID)
	}
	if p.rej == nil {
		p.rej = nearDup(p.sides, a.kept, cands, a.res.Accepted, a.lsh, a.opts.DupThreshold)
	}
	if p.rej == nil && !a.opts.NoClones {
		p.rej = a.clone(p.sides)
	}
	a.seen[c.ID] = true
	if p.rej != nil {
		a.counts[p.rej.Cause]++
		a.res.Rejected = append(a.res.Rejected, Rejection{ID: c.ID, ErrorType: c.ErrorType, Generator: c.Generator,
			Operator: c.Operator, Cause: p.rej.Cause, Detail: p.rej.Detail})
		return
	}
	idx := len(a.res.Accepted)
	for k, s := range p.sides {
		a.kept = append(a.kept, s)
		a.lsh.Add(2*idx+k, s.sig)
		if _, ok := a.blind[s.blind]; !ok {
			a.blind[s.blind] = idx
		}
	}
	a.res.Accepted = append(a.res.Accepted, corpus.Pair{
		PairID: c.ID, ErrorType: c.ErrorType, BuggyMethod: p.sides[0].text, FixedMethod: p.sides[1].text,
		ExampleBugIDs: nonNil(c.ExampleBugIDs), Generator: c.Generator, PromptHash: c.PromptHash, SizeTarget: c.SizeTarget,
		Source: pairSource(c),
	})
	a.res.ByType[c.ErrorType]++
}

// clone is the rename-blind clone gate.
func (a *admission) clone(sides [2]method) *Reject {
	for k, s := range sides {
		if j, ok := a.blind[s.blind]; ok {
			return reject(CauseClone, "%s method is a rename-blind clone of a method of pair %s", sideName[k], a.res.Accepted[j].PairID)
		}
	}
	return nil
}

// result is the Result with the rejection counts in Causes order.
func (a *admission) result() *Result {
	for _, cause := range Causes {
		if a.counts[cause] > 0 {
			a.res.Causes = append(a.res.Causes, CauseCount{Cause: cause, Count: a.counts[cause]})
		}
	}
	return a.res
}

var sideName = [2]string{"buggy", "fixed"}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// nearDup checks both sides against every kept method via LSH candidates.
func nearDup(sides [2]method, kept []method, cands []corpus.Candidate, acc []corpus.Pair, lsh *textsim.LSH, t float64) *Reject {
	for k, s := range sides {
		for _, id := range lsh.Candidates(s.sig) {
			if j := textsim.JaccardSorted(s.shingles, kept[id].shingles); j >= t {
				return reject(CauseNearDup, "%s method has 5-gram Jaccard %.3f with the %s method of pair %s", sideName[k], j, sideName[id%2], acc[id/2].PairID)
			}
		}
	}
	return nil
}

// check runs the per-candidate gates 1–6.
func check(c corpus.Candidate, seedSh map[string][][]uint64, mh *textsim.MinHasher, opts Options) (p prepared) {
	defer func() {
		if r := recover(); r != nil { // a gate must never take the run down
			p = prepared{rej: reject(CauseParse, "internal error while gating: %v", r)}
		}
	}()
	if !corpus.ValidType(c.ErrorType) {
		return prepared{rej: reject(CauseBadType, "error_type %q is not one of the seven in-scope types", c.ErrorType)}
	}
	buggy, fixed, rej := methodsOf(c)
	if rej != nil {
		return prepared{rej: rej}
	}
	info, rej := parsePair(buggy, fixed)
	if rej != nil {
		return prepared{rej: rej}
	}
	if rej := samePair(info); rej != nil {
		return prepared{rej: rej}
	}
	for k := range p.sides {
		p.sides[k] = method{text: emitted(c, [2]string{buggy, fixed}[k], info[k]), tokens: info[k].tokens, shingles: textsim.Shingles(info[k].tokens, N), blind: info[k].blind}
	}
	if j := textsim.JaccardSorted(p.sides[0].shingles, p.sides[1].shingles); j >= opts.MaxPairSim {
		return prepared{rej: reject(CausePairSimilar, "buggy/fixed 5-gram Jaccard %.4f ≥ %.4g", j, opts.MaxPairSim)}
	}
	if rej := sizeGate(info, c.SizeTarget, opts); rej != nil {
		return prepared{rej: rej}
	}
	for k := range p.sides {
		if rej := novelty(p.sides[k], sideName[k], c.ErrorType, seedSh, opts.MaxSeedSim); rej != nil {
			return prepared{rej: rej}
		}
		p.sides[k].sig = mh.Signature(p.sides[k].shingles)
	}
	return p
}

// samePair rejects a pair whose methods have different signatures or the
// same tokens.
func samePair(info [2]parsed) *Reject {
	if info[0].signature != info[1].signature {
		return reject(CauseSignature, "buggy %q vs fixed %q", info[0].signature, info[1].signature)
	}
	if slices.Equal(info[0].tokens, info[1].tokens) {
		return reject(CauseIdentical, "buggy and fixed methods have the same tokens")
	}
	return nil
}

// methodsOf returns a candidate's methods: its own, or those of its model
// answer (gate 1).
func methodsOf(c corpus.Candidate) (buggy, fixed string, rej *Reject) {
	if c.BuggyMethod != "" || c.FixedMethod != "" {
		return c.BuggyMethod, c.FixedMethod, nil
	}
	if strings.TrimSpace(c.Answer) == "" {
		return "", "", reject(CauseMissingInput, "candidate has neither methods nor an answer")
	}
	return ParseAnswer(c.Answer)
}

// sizeGate checks both sides' LLOC against the bounds and, when the
// candidate has one, its size target.
func sizeGate(info [2]parsed, target int, opts Options) *Reject {
	for k := range info {
		if l := info[k].lloc; l < opts.MinLLOC || l > opts.MaxLLOC {
			return reject(CauseSize, "%s method has LLOC %d outside [%d, %d]", sideName[k], l, opts.MinLLOC, opts.MaxLLOC)
		}
		if target > 0 {
			lo, hi := float64(target)*(1-opts.SizeTolerance), float64(target)*(1+opts.SizeTolerance)
			if l := float64(info[k].lloc); l < lo || l > hi {
				return reject(CauseSizeTarget, "%s method has LLOC %d outside target %d ±%.0f%%", sideName[k], info[k].lloc, target, 100*opts.SizeTolerance)
			}
		}
	}
	return nil
}

// novelty is the seed-similarity gate for one side.
func novelty(m method, side, typ string, seedSh map[string][][]uint64, maxSim float64) *Reject {
	for _, s := range seedSh[typ] {
		if j := textsim.JaccardSorted(m.shingles, s); j >= maxSim {
			return reject(CauseSeedSimilar, "%s method has 5-gram Jaccard %.3f ≥ %.3g with a %s seed", side, j, maxSim, typ)
		}
	}
	return nil
}

// emitted is the text an accepted side carries: without comments (§4.3),
// unless the candidate is real code an operator edited (a mutation
// generator's: it has a source location). Such a pair keeps the host's
// comments, as the seeds keep theirs, so that PLOC (non-blank lines,
// comment lines counted: §6.1) measures both alike; the generator has
// already cut the comments at the mutated site, which could name the fix.
func emitted(c corpus.Candidate, src string, p parsed) string {
	if c.Source != nil {
		return src
	}
	return p.stripped
}

// parsed is what the gates need of one method.
type parsed struct {
	signature string
	tokens    []string
	blind     string
	lloc      int
	stripped  string
}

// parsePair applies gate 2 to both methods and measures them. They are
// parsed together (the fixed one incrementally from the buggy one's tree,
// which halves the parsing cost of a typical pair); when that fails, each is
// parsed alone so the rejection names the side at fault.
func parsePair(buggy, fixed string) (info [2]parsed, rej *Reject) {
	srcs := [2]string{buggy, fixed}
	var files [2]*code.File
	if fa, fb, err := code.ParseJavaMethodPair([]byte(buggy), []byte(fixed)); err == nil {
		files = [2]*code.File{fa, fb}
	}
	for k, src := range srcs {
		f := files[k]
		if f == nil {
			var err error
			if f, err = code.ParseJavaMethod([]byte(src)); err != nil {
				return info, reject(CauseParse, "%s method: %v", sideName[k], err)
			}
		}
		info[k], rej = measure(f, src)
		f.Close()
		if rej != nil {
			rej.Detail = sideName[k] + " method: " + rej.Detail
			return info, rej
		}
	}
	return info, nil
}

// parseMethod applies gate 2 to one method and measures it.
func parseMethod(src string) (parsed, *Reject) {
	f, err := code.ParseJavaMethod([]byte(src))
	if err != nil {
		return parsed{}, reject(CauseParse, "%v", err)
	}
	defer f.Close()
	return measure(f, src)
}

// measure applies gate 2 to one parsed method and measures it.
func measure(f *code.File, src string) (parsed, *Reject) {
	if se := f.SyntaxErrors(); len(se) > 0 {
		return parsed{}, reject(CauseParse, "%d syntax errors, first at %d:%d: %s", len(se), se[0].Line, se[0].Col, se[0].Msg)
	}
	if rej := declaresType(f); rej != nil {
		return parsed{}, rej
	}
	var top []code.Function
	for _, fn := range f.Functions() {
		if fn.Class == "" {
			top = append(top, fn)
		}
	}
	if len(top) != 1 {
		return parsed{}, reject(CauseMethodCount, "want exactly one method, found %d", len(top))
	}
	var p parsed
	p.signature = top[0].Signature
	toks := f.Tokens()
	p.lloc = metrics.OfFunction(f, top[0], toks).Metrics.LLOC
	var blind []string
	var comments [][2]int
	for _, t := range toks {
		if t.Kind == code.Comment {
			comments = append(comments, [2]int{t.StartByte, t.EndByte})
			continue
		}
		blind = append(blind, blindText(t))
		p.tokens = append(p.tokens, t.Text)
	}
	p.blind = strings.Join(blind, "\x00")
	p.stripped = stripComments(src, comments)
	return p, nil
}

// declaresType rejects a method that declares a class, interface, enum or
// record inside it.
func declaresType(f *code.File) *Reject {
	nodes := f.Nodes()
	for i := 2; i < len(nodes); i++ { // nodes[1] is the dummy wrapper class
		if typeDecls[nodes[i].Kind()] {
			name := "?"
			if nm := f.ChildByField(i, "name"); nm >= 0 {
				name = f.Text(nm)
			}
			return reject(CauseTypeDecl, "method declares %s %s", strings.TrimSuffix(nodes[i].Kind(), "_declaration"), name)
		}
	}
	return nil
}

// blindText is token t as rename-blind clone detection compares it:
// identifiers as ID, literals other than true, false and null as LIT.
func blindText(t code.Token) string {
	switch {
	case t.Kind == code.Identifier:
		return "ID"
	case t.Kind == code.Literal && t.Text != "true" && t.Text != "false" && t.Text != "null":
		return "LIT"
	}
	return t.Text
}

// stripComments removes the comment spans from src; lines left blank by
// the removal are dropped, other lines lose trailing blanks.
func stripComments(src string, spans [][2]int) string {
	if len(spans) == 0 {
		return src
	}
	var b strings.Builder
	touched := map[int]bool{} // line numbers (in output) a removal touched
	pos, line := 0, 0
	for _, s := range spans {
		chunk := src[pos:s[0]]
		b.WriteString(chunk)
		line += strings.Count(chunk, "\n")
		touched[line] = true
		nl := strings.Count(src[s[0]:s[1]], "\n")
		for range nl {
			b.WriteByte('\n')
			line++
			touched[line] = true
		}
		pos = s[1]
	}
	b.WriteString(src[pos:])
	lines := strings.Split(b.String(), "\n")
	out := lines[:0]
	for i, l := range lines {
		if touched[i] {
			l = strings.TrimRight(l, " \t")
			if l == "" {
				continue
			}
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// String renders a rejection as one log line.
func (r Rejection) String() string {
	return fmt.Sprintf("%s: %s: %s", r.ID, r.Cause, r.Detail)
}

// tokensOf returns the normalised tokens of a lone method, or false when
// it does not parse cleanly.
func tokensOf(src string) ([]string, bool) {
	p, rej := parseMethod(src)
	return p.tokens, rej == nil
}

// pairSource is a candidate's provenance in real code (repository, commit,
// file, host method span, operator, the seed it was grounded on), or nil
// when its corpus was not a repository revision.
func pairSource(c corpus.Candidate) *corpus.Source {
	s := c.Source
	if s == nil || s.Repo == "" || s.Commit == "" {
		return nil
	}
	out := &corpus.Source{Repo: s.Repo, Commit: s.Commit, Path: s.File, Method: s.Method,
		Span: corpus.Span{Start: s.StartLine, End: s.EndLine}, Operator: c.Operator}
	if len(c.ExampleBugIDs) > 0 {
		out.Seed = c.ExampleBugIDs[0]
	}
	return out
}
