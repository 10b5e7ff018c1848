package ngram

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/benchforge/benchforge/internal/errs"
)

// SampleOptions configures Sample.
type SampleOptions struct {
	N           int     // completions to draw; 0 = 1
	MaxTokens   int     // tokens per completion; 0 = none (empty completions)
	Temperature float64 // 0 = greedy (argmax); 1 = the model's distribution
	TopK        int     // keep the K most probable candidates; 0 = all
	TopP        float64 // nucleus sampling mass; 0 or 1 = off
	Seed        uint64  // completions are a pure function of (model, prompt, options)
	Stop        []string
}

// Completion is one sampled continuation.
type Completion struct {
	Text         string    `json:"text"`
	Tokens       []string  `json:"tokens"`
	LogProbs     []float64 `json:"logprobs"` // natural log, under the model (temperature 1)
	FinishReason string    `json:"finish_reason"`
	// TopLogProbs holds, per token, the most likely alternatives when
	// requested through SampleOptions-compatible callers (the server).
	TopLogProbs [][]Candidate `json:"top_logprobs,omitempty"`
}

// Finish reasons, as in the OpenAI API.
const (
	FinishStop   = "stop"   // a stop string or end of file was produced
	FinishLength = "length" // MaxTokens reached
)

// Sample draws opts.N continuations of prompt.
//
// Token healing: the prompt's last token is taken back and the first
// generated token must extend it, so a prompt cut inside what training saw
// as one token ("{\n" before "        return") continues naturally. The first
// token then carries only its new bytes, with its probability renormalised
// over the tokens that extend the prompt's last token.
//
// Each step takes the candidate set of the longest context that matches
// (every token seen after it, widened to shorter contexts while small),
// with exact interpolated probabilities; all other tokens form one "rest"
// bucket holding the backoff mass. Temperature 0 picks the most probable
// candidate. Otherwise candidates are weighted p^(1/T), cut by TopK/TopP,
// and sampled; when neither cut is active the rest bucket (weighted
// rest^(1/T), an approximation for T != 1) can be drawn too, and then a
// token is drawn from the lower-order distributions, exactly, by walking
// down the backoff chain and rejecting candidates. Producing </s> or a stop
// string ends a completion with FinishStop (the stop string is not
// included); MaxTokens ends it with FinishLength.
func (m *Model) Sample(ctx context.Context, prompt string, opts SampleOptions) ([]Completion, error) {
	return m.sample(ctx, prompt, opts, 0)
}

func (m *Model) sample(ctx context.Context, prompt string, opts SampleOptions, topLogprobs int) ([]Completion, error) {
	return m.sampleTokens(ctx, m.promptState(m.tokenize(prompt)), opts, topLogprobs)
}

// promptState is a prompt's tokens and the model's context after all but
// the last one (a sampler's base: the last one is healed). Both are pure
// functions of the text, so the server keeps them for recent prompts;
// they are shared read-only.
type promptState struct {
	toks []Token
	ctx  []uint32
}

// promptState returns the state of the prompt of tokens toks.
func (m *Model) promptState(toks []Token) *promptState {
	s := m.newState(false)
	for _, t := range toks[:max(0, len(toks)-1)] {
		m.push(&s, m.id(t.Text))
	}
	return &promptState{toks: toks, ctx: s.ctx}
}

// sampleTokens is sample of a prompt already tokenized (p is not
// modified), for the server, which also counts the prompt's tokens.
func (m *Model) sampleTokens(ctx context.Context, p *promptState, opts SampleOptions, topLogprobs int) ([]Completion, error) {
	if opts.N == 0 {
		opts.N = 1
	}
	if opts.N < 0 || opts.MaxTokens < 0 || opts.Temperature < 0 || opts.TopK < 0 ||
		opts.TopP < 0 || opts.TopP > 1 || math.IsNaN(opts.Temperature) || math.IsNaN(opts.TopP) {
		return nil, fmt.Errorf("ngram.Sample: invalid options %+v: %w", opts, errs.ErrUsage)
	}
	sp := m.newSampler(p, opts, topLogprobs)
	// A pooled buffer: steps computed afresh fill it, and a first step
	// would otherwise grow it to a few hundred candidates per request.
	bp := candPool.Get().(*[]cand)
	defer candPool.Put(bp)
	// Sized for a usual step up front: a step kept in the memo is
	// computed in the buffer and copied out, so growth there was lost.
	sp.buf = slices.Grow((*bp)[:0], maxCandidates)
	defer func() { *bp = sp.buf[:0] }()
	out := make([]Completion, opts.N)
	for i := range out {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = sp.completion(i)
	}
	return out, nil
}

// sampler draws the completions of one prompt: the state after the
// prompt (all but its last token, which is healed: a completion may
// extend it), the prompt cache and its mark, and the candidate buffer.
type sampler struct {
	m            *Model
	opts         SampleOptions
	topLogprobs  int
	base         state
	heal         string // the prompt's last token, "" for an empty prompt
	cache        *cacheLM
	markH, markL int
	buf          []cand
	// lazy: steps after the first are drawn by nextLazy (freshOK).
	lazy bool
}

func (m *Model) newSampler(p *promptState, opts SampleOptions, topLogprobs int) *sampler {
	sp := &sampler{m: m, opts: opts, topLogprobs: topLogprobs, base: state{ctx: p.ctx}}
	sp.cache = m.newCache()
	sp.lazy = freshOK(opts, topLogprobs, sp.cache)
	if n := len(p.toks); n > 0 {
		sp.heal = p.toks[n-1].Text
	}
	if sp.cache != nil {
		for _, t := range p.toks[:max(0, len(p.toks)-1)] {
			sp.cache.add(t.Text)
		}
		sp.markH, sp.markL = sp.cache.mark()
	}
	return sp
}

// draw is one step's distribution as pick reads it.
type draw struct {
	cands []cand
	rest  float64
	// ent is the memo entry cands were copied from while they are
	// unchanged, so pick can use its stored weights. Slices from an
	// entry are read-only: buf is kept apart.
	ent *stepEntry
	ids []uint32
}

// completion draws completion i (seeded by the request's seed and i).
func (sp *sampler) completion(i int) Completion {
	m, opts := sp.m, sp.opts
	if sp.cache != nil {
		sp.cache.rollback(sp.markH, sp.markL)
	}
	rng := rand.New(rand.NewPCG(opts.Seed, uint64(i)))
	s := state{ctx: append(make([]uint32, 0, m.order), sp.base.ctx...)}
	// Sized for the usual completion, so they are not regrown per token.
	c := Completion{FinishReason: FinishLength, Tokens: make([]string, 0, min(opts.MaxTokens, 64)), LogProbs: make([]float64, 0, min(opts.MaxTokens, 64))}
	var text strings.Builder
	text.Grow(8 * min(opts.MaxTokens, 64))
	healing := sp.heal != ""
	for len(c.Tokens) < opts.MaxTokens {
		d, w, p, skip := sp.next(&s, rng, healing)
		healing = false
		if skip > 0 && m.text(w, sp.cache) == sp.heal {
			// The prompt's last token stands: continue after it.
			m.push(&s, m.known(w))
			if sp.cache != nil {
				sp.cache.add(sp.heal)
			}
			continue
		}
		if sp.topLogprobs > 0 {
			c.TopLogProbs = append(c.TopLogProbs, m.toCandidates(d.cands, sp.topLogprobs, sp.cache))
		}
		if w == eosID {
			c.FinishReason = FinishStop
			if sp.topLogprobs > 0 {
				c.TopLogProbs = c.TopLogProbs[:len(c.Tokens)]
			}
			break
		}
		if sp.accept(&s, &c, &text, w, p, skip) {
			return c
		}
	}
	c.Text = text.String()
	return c
}

// next draws the next token after s: its distribution, the token w, its
// probability p, and, on the healing first step, the bytes of it already
// in the prompt (skip).
func (sp *sampler) next(s *state, rng *rand.Rand, healing bool) (d draw, w uint32, p float64, skip int) {
	m := sp.m
	if sp.lazy && !healing {
		w, p = sp.nextLazy(s, rng)
		return d, w, p, 0
	}
	d = sp.step(s)
	if healing {
		d, skip = sp.healStep(s, d)
	}
	w, p = m.pick(s, d.cands, d.rest, sp.opts, rng, d.ent, d.ids)
	if sp.cache != nil && skip == 0 && !slices.ContainsFunc(d.cands, func(x cand) bool { return x.id == w }) {
		p = m.mixedProb(s, sp.cache, m.text(w, sp.cache)) // drawn from the backoff chain
	}
	return d, w, p, skip
}

// step is the next token's distribution after s, mixed with the cache.
func (sp *sampler) step(s *state) draw {
	m := sp.m
	var d draw
	d.cands, d.rest, d.ent, d.ids = m.step(s, sp.buf)
	d.cands, d.rest, d.ent, d.ids = m.mixStep(s, sp.cache, d.cands, d.rest, d.ent, d.ids, sp.buf)
	if d.ent == nil {
		sp.buf = d.cands
	}
	return d
}

// healStep handles the first step of a completion: the candidates that
// extend the prompt's last token, with the bytes of it already in the
// prompt (skip); or, when none does, the last token is taken as it
// stands and the step is computed after it.
func (sp *sampler) healStep(s *state, d draw) (draw, int) {
	m := sp.m
	if cands, ok := m.healCandidates(d.cands, sp.heal, sp.cache); ok {
		// cands is a list of its own: sp.buf keeps the pooled buffer.
		return draw{cands: cands}, len(sp.heal)
	}
	m.push(s, m.id(sp.heal))
	if sp.cache != nil {
		sp.cache.add(sp.heal)
	}
	return sp.step(s), 0
}

// accept appends token w (probability p; its first skip bytes were in the
// prompt) to the completion and reports whether a stop string ended it.
func (sp *sampler) accept(s *state, c *Completion, text *strings.Builder, w uint32, p float64, skip int) bool {
	m := sp.m
	full := m.text(w, sp.cache)
	tok := full[skip:]
	c.Tokens = append(c.Tokens, tok)
	c.LogProbs = append(c.LogProbs, math.Log(p))
	text.WriteString(tok)
	m.push(s, m.known(w))
	if sp.cache != nil {
		sp.cache.add(full)
	}
	cut, ok := stopAt(text.String(), sp.opts.Stop, len(tok))
	if !ok {
		return false
	}
	c.Text = text.String()[:cut]
	c.FinishReason = FinishStop
	trimTokens(c, cut)
	return true
}

var candPool = sync.Pool{New: func() any { return new([]cand) }}

// stopAt finds the earliest stop string that ends within the last added
// bytes of text and returns where it starts.
func stopAt(text string, stops []string, added int) (int, bool) {
	best, found := 0, false
	for _, st := range stops {
		if st == "" {
			continue
		}
		from := max(0, len(text)-added-len(st)+1)
		if i := strings.Index(text[from:], st); i >= 0 && (!found || from+i < best) {
			best, found = from+i, true
		}
	}
	return best, found
}

// trimTokens drops the tokens that lie wholly beyond cut and shortens the
// one that straddles it, so Tokens always concatenate to Text.
func trimTokens(c *Completion, cut int) {
	off := 0
	for i, t := range c.Tokens {
		if off+len(t) >= cut {
			if off >= cut {
				c.Tokens, c.LogProbs = c.Tokens[:i], c.LogProbs[:i]
				if c.TopLogProbs != nil {
					c.TopLogProbs = c.TopLogProbs[:i]
				}
			} else {
				c.Tokens[i] = t[:cut-off]
				c.Tokens, c.LogProbs = c.Tokens[:i+1], c.LogProbs[:i+1]
				if c.TopLogProbs != nil {
					c.TopLogProbs = c.TopLogProbs[:i+1]
				}
			}
			return
		}
		off += len(t)
	}
}

func (m *Model) toCandidates(cands []cand, k int, cache *cacheLM) []Candidate {
	k = min(k, len(cands))
	out := make([]Candidate, k)
	for i, c := range cands[:k] {
		out[i] = Candidate{Token: m.text(c.id, cache), LogProb: math.Log(c.p)}
	}
	return out
}

// mixStep is mixCandidates for a step from the memo: when the cache
// changes the candidates they are copied to buf first (an entry's are
// read-only) and the entry and the ids are dropped.
func (m *Model) mixStep(s *state, c *cacheLM, cands []cand, rest float64, ent *stepEntry, ids []uint32, buf []cand) ([]cand, float64, *stepEntry, []uint32) {
	if c == nil {
		return cands, rest, ent, ids
	}
	if _, total := c.dist(); total == 0 {
		return cands, rest, ent, ids
	}
	if ent != nil {
		cands = append(buf[:0], cands...)
	}
	cands, rest = m.mixCandidates(s, c, cands, rest)
	return cands, rest, nil, nil
}

// pickWeight is candidate c's sampling weight p^(1/T) relative to the
// best candidate ref. Relative weights avoid overflow for small T; for
// T != 1, (p/ref)^(1/T) is exp((log p − log ref)/T) from the
// candidates' logs.
func pickWeight(c, ref cand, invT float64) float64 {
	if invT == 1 {
		return c.p / ref.p
	}
	return math.Exp(invT * (c.lw - ref.lw))
}

// pick chooses the next token id and returns it with its model
// probability. ent, when set, is the memo entry cands equal, whose
// stored weights replace computing them; ids, when set, are cands' ids
// in ascending order.
func (m *Model) pick(s *state, cands []cand, rest float64, opts SampleOptions, rng *rand.Rand, ent *stepEntry, ids []uint32) (uint32, float64) {
	if len(cands) == 0 {
		return eosID, m.prob(s, eosID)
	}
	if opts.Temperature == 0 {
		return cands[0].id, cands[0].p
	}
	return m.pickWith(s, cands, rest, opts, rng.Float64(), rng, ent, ids)
}

// pickWith is pick at a positive temperature with the draw's random
// number r in [0, 1) taken already (rng serves the backoff draw).
func (m *Model) pickWith(s *state, cands []cand, rest float64, opts SampleOptions, r float64, rng *rand.Rand, ent *stepEntry, ids []uint32) (uint32, float64) {
	n, cut := nucleus(cands, opts)
	invT := 1 / opts.Temperature
	// Each weight once (math.Pow dominates for T != 1), summed and walked
	// in the same order as always, so draws are unchanged.
	var ws []float64
	total := 0.0
	if ent != nil {
		sw := m.weights(ent, invT)
		ws, total = sw.w[:n], sw.cum[n-1]
	} else {
		sc := scratchPool.Get().(*stepScratch)
		defer scratchPool.Put(sc)
		ws = sc.p[:0]
		for i := 0; i < n; i++ {
			w := pickWeight(cands[i], cands[0], invT)
			ws = append(ws, w)
			total += w
		}
		sc.p = ws
	}
	restW := 0.0
	if !cut && rest > 0 {
		restW = pickWeight(cand{p: rest, lw: math.Log(rest)}, cands[0], invT)
	}
	u := r * (total + restW)
	if u < total {
		c := cands[walk(ws[:n], u)]
		return c.id, c.p
	}
	if w, ok := m.drawBackoff(s, cands, rng, ids); ok {
		return w, m.prob(s, w)
	}
	return cands[0].id, cands[0].p
}

// nucleus is how many of the (sorted) candidates sampling may draw: the
// top-k, then the shortest prefix reaching top-p; cut says the rest
// bucket is excluded as well.
func nucleus(cands []cand, opts SampleOptions) (n int, cut bool) {
	n = len(cands)
	if opts.TopK > 0 && opts.TopK < n {
		n = opts.TopK
	}
	cut = opts.TopK > 0 || (opts.TopP > 0 && opts.TopP < 1)
	if opts.TopP > 0 && opts.TopP < 1 {
		acc := 0.0
		for i := 0; i < n; i++ {
			acc += cands[i].p
			if acc >= opts.TopP {
				return i + 1, cut
			}
		}
	}
	return n, cut
}

// walk is the index where u, below the weights' sum, falls (the last one
// when rounding leaves u past the end).
func walk(ws []float64, u float64) int {
	for i, w := range ws {
		u -= w
		if u < 0 {
			return i
		}
	}
	return len(ws) - 1
}

// drawBackoff draws a token outside cands from the model's distribution
// restricted to non-candidates: it walks the interpolation chain from the
// longest context down (staying at a level with probability of its
// discounted mass, 1-γ), draws from that level's discounted counts or the
// uniform base, and rejects candidates, <unk> and <s>. It gives up after a
// bounded number of tries.
func (m *Model) drawBackoff(s *state, cands []cand, rng *rand.Rand, ids []uint32) (uint32, bool) {
	// A step's ids are at hand unless the cache changed its candidates;
	// only then is a set built (a map per draw showed in the profile).
	isCand := func(w uint32) bool {
		_, ok := slices.BinarySearch(ids, w)
		return ok
	}
	if ids == nil {
		set := make(map[uint32]bool, len(cands))
		for _, c := range cands {
			set[c.id] = true
		}
		isCand = func(w uint32) bool { return set[w] }
	}
	top := m.top(s)
	for try := 0; try < 64; try++ {
		w := m.drawOnce(s, top, rng)
		if w >= firstWordID && !isCand(w) || w == eosID && !isCand(w) {
			return w, true
		}
	}
	return 0, false
}

func (m *Model) drawOnce(s *state, top int, rng *rand.Rand) uint32 {
	for j := top; j >= 1; j-- {
		h := s.ctx[j-1]
		l := &m.lv[j-1]
		if rng.Float64() < float64(l.gamma[h]) {
			continue
		}
		return m.drawDiscounted(j, h, float64(l.den[h])*(1-float64(l.gamma[h])), rng)
	}
	if rng.Float64() >= m.uniGamma && len(m.uniCum) > 0 {
		// Binary search the cumulative discounted unigram mass.
		u := rng.Float64() * m.uniCum[len(m.uniCum)-1]
		lo, hi := 0, len(m.uniCum)
		for lo < hi {
			mid := (lo + hi) / 2
			if m.uniCum[mid] <= u {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		return uint32(min(lo, len(m.uniCum)-1))
	}
	return uint32(rng.IntN(len(m.vocab)))
}

// drawDiscounted draws a child of context node h of level j-1 in
// proportion to its discounted adjusted count; mass is the sum of those.
// The walk over the children subtracts each count from u in turn; for a
// context with many children its running sums are kept (cumulative) and
// searched instead, which finds the child the walk would whenever u is
// clear of the sums on either side by the bound of freshMargin (the
// walk's and the sums' rounding are under n·2^-52 of the mass), and
// otherwise the walk decides.
func (m *Model) drawDiscounted(j int, h uint32, mass float64, rng *rand.Rand) uint32 {
	u := rng.Float64() * mass
	lo, hi := m.lv[j-1].first[h], m.lv[j-1].first[h+1]
	if n := hi - lo; n >= minCumChildren && n <= maxFreshCands && m.memo != nil {
		if w, ok := m.searchDiscounted(j, h, u, mass); ok {
			return w
		}
	}
	return walkDiscounted(lo, hi, &m.lv[j], u, &m.disc[j])
}

// minCumChildren is the fewest children whose running sums are kept:
// below it the walk is short.
const minCumChildren = 32

// searchDiscounted finds the child the walk would return for u, by
// binary search of the running sums; false when u is too near a sum to
// tell.
func (m *Model) searchDiscounted(j int, h uint32, u, mass float64) (uint32, bool) {
	cum := m.cumulative(j, h)
	lo, hi := 0, len(cum)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if cum[mid] > u {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	err := freshMargin * max(mass, cum[len(cum)-1])
	if lo == len(cum) || cum[lo]-err <= u || lo > 0 && cum[lo-1]+err > u {
		return 0, false
	}
	return m.lv[j].word[m.lv[j-1].first[h]+uint32(lo)], true
}

// cumulative returns the running sums of the discounted counts of the
// children of node h of level j-1 (<s> counting 0), kept in the memo
// while its word budget lasts.
func (m *Model) cumulative(j int, h uint32) []float64 {
	key := uint64(j)<<32 | uint64(h)
	if c, ok := m.memo.cums.Load(key); ok {
		return c
	}
	lo, hi := m.lv[j-1].first[h], m.lv[j-1].first[h+1]
	l, d := &m.lv[j], &m.disc[j]
	dd := [4]float64{0, d[0], d[1], d[2]}
	cum := make([]float64, 0, hi-lo)
	acc := 0.0
	for c := lo; c < hi; c++ {
		if l.word[c] != bosID {
			acc += clampedCount(l.adj[c], &dd)
		}
		cum = append(cum, acc)
	}
	if m.memo.words.Add(int64(len(cum))) <= memoWords {
		m.memo.cums.Store(key, cum)
	}
	return cum
}

// walkDiscounted returns the child of lv.word[lo:hi] where u falls,
// subtracting each discounted count from it in turn (unkID when
// rounding leaves u past the end).
func walkDiscounted(lo, hi uint32, l *level, u float64, d *[3]float64) uint32 {
	// Children are sorted by id and <s> is id 1, so only the first two
	// can be <s>; the walk over the rest (often thousands, a tenth of a
	// served step) then reads the counts alone, each discounted by a
	// table lookup worth what discount gives, clamped at 0 inline as
	// discounted clamps it (math.Max, a call per child, was 4% of a
	// served request's instructions under callgrind).
	dd := [4]float64{0, d[0], d[1], d[2]}
	c := lo
	for ; c < hi && c < lo+2; c++ {
		a := l.adj[c]
		if l.word[c] == bosID {
			continue
		}
		if u -= clampedCount(a, &dd); u < 0 {
			return l.word[c]
		}
	}
	for _, a := range l.adj[c:hi] {
		if u -= clampedCount(a, &dd); u < 0 {
			return l.word[c]
		}
		c++
	}
	return unkID
}

// clampedCount is max(a − dd[min(a, 3)], 0) with math.Max's bits (see
// discounted: the difference is never −0).
func clampedCount(a uint32, dd *[4]float64) float64 {
	v := float64(a) - dd[min(a, 3)]
	if v < 0 {
		return 0
	}
	return v
}

// healCandidates keeps the candidates whose text extends heal (heal itself
// included) and renormalises their probabilities; ok is false when none
// does.
func (m *Model) healCandidates(cands []cand, heal string, cache *cacheLM) ([]cand, bool) {
	out := cands[:0:0]
	sum := 0.0
	for _, c := range cands {
		if c.id >= firstWordID && strings.HasPrefix(m.text(c.id, cache), heal) {
			out = append(out, c)
			sum += c.p
		}
	}
	if len(out) == 0 || sum <= 0 {
		return cands, false
	}
	ls := math.Log(sum)
	for i := range out {
		out[i].p /= sum
		out[i].lw -= ls
	}
	return out, true
}

// Fresh steps drawn without their list.
//
// Most steps of a served completion are first visits, computed afresh
// and dropped (about nine of a benchmark request's sixteen). Listing one
// costs passes over every candidate for its probability and the sum, a
// merge into sorted order and an exp per candidate for pick's weights,
// yet a draw reads only the total weight and the candidates before the
// one drawn. nextLazy gets both without the list. The table's words no
// deeper level reaches ("flat") keep the table's order, and their
// weights are e·wT[i]: wT the table's weights at this temperature
// (weightsAt, kept per table), e one factor of the step. The deep
// candidates are computed exactly as fromTable computes them. The flat
// weights differ from pick's in the last bits only, so the total, the
// rest weight and the point u are known to within a bound
// (freshMargin); when u is farther than that from the total and from
// the running sums on either side of it, pick on the full list takes
// the same branch and the same candidate, whose probability is exact.
// Otherwise (a draw in 10^8 or so) the step is listed and pick decides
// with the same random number, so draws are unchanged. A step visited
// again (a third of a benchmark request's lazy steps) draws the same
// way from a copy of its description made on its second visit and kept
// in the memo with its draw at the last temperature (keepStep): a few
// deep candidates, where a listed entry held up to maxCandidates and
// their weights, and was listed, copied and weighted to be made.

// freshMargin is the error bound of drawFresh's sums relative to their
// scale (the flat weights' sum plus the deep ones', at least 1, the top
// candidate's weight). It is far above their rounding: sums of at most
// maxFreshCands terms err by under maxFreshCands·2^-52 ≈ 3·10^-11, and
// splitting exp(invT·(lp+scale−ref)) into two exps by under 10^-12 for
// invT ≤ maxFreshInvT and log-probabilities above minFreshLogProb.
const (
	freshMargin     = 1e-9
	maxFreshCands   = 1 << 17
	maxFreshInvT    = 4
	minFreshLogProb = -150
)

// freshOK reports whether a sampler's steps after the first can be
// drawn by nextLazy: no cache (it changes the candidates), no top
// log-probabilities or top-k/top-p cut (they read the list), and a
// temperature within the bound's conditions.
func freshOK(opts SampleOptions, topLogprobs int, c *cacheLM) bool {
	return c == nil && topLogprobs == 0 && opts.TopK == 0 && !(opts.TopP > 0 && opts.TopP < 1) &&
		opts.Temperature > 0 && 1/opts.Temperature <= maxFreshInvT
}

// deepEntry is a deep candidate: its index in the table and probability.
type deepEntry struct {
	i int
	p float64
}

// freshStep is a step described for drawFresh: its base table (level
// base) and deepest usable context length (depth), the γ of the deeper
// levels and the deep candidates. Once prepared it is read-only (a
// revisited step's is kept in the memo and shared, with its draw); dw,
// dv2 and keys are the scratch of the pooled one that prepares.
type freshStep struct {
	t           *ctxTable
	base, depth int       // the table's level and the deepest usable context length
	gs          []float64 // γ of levels base+1..top, in order
	logScale    float64   // Σ log γ, summed as fromTable sums it
	dv, dv2     []deepEntry
	deep        []cand                    // the deep candidates in candCmp order
	dw          []float64                 // their weights (scratch)
	keys        []uint64                  // sortEntries' scratch
	draw        atomic.Pointer[freshDraw] // a kept step's (keptDraw)
	// mark has a bit per deep word of the table: a table with deep
	// candidates is the base's, which has at most maxCandidates
	// children (see base; nextLazy checks it), so all are covered.
	mark [maxCandidates / 64]uint64
}

var freshPool = sync.Pool{New: func() any { return new(freshStep) }}

// nextLazy draws the next token after s as pick would from the step's
// list (see Fresh steps). A step visited before draws the same way from
// its description kept in the memo (a few deep candidates, where an
// entry would hold the whole list and its weights), made on its second
// visit as entries are.
func (sp *sampler) nextLazy(s *state, rng *rand.Rand) (uint32, float64) {
	m := sp.m
	v := m.visitStep(s)
	if v.top == 0 {
		return sp.pickListed(s, v, rng)
	}
	if !v.first {
		if f, ok := v.g.fresh.Load(v.key); ok {
			return sp.drawStep(s, f, m.keptDraw(f, 1/sp.opts.Temperature), rng)
		}
	}
	base := m.base(s, v.top)
	t := m.table(s, base)
	if !t.kept || len(t.words) == 0 || len(t.words) > maxFreshCands || base < v.top && len(t.words) > maxCandidates {
		if !v.first {
			return sp.pickListed(s, v, rng)
		}
		cands, rest := m.fromTable(s, t, base, v.top, sp.buf)
		sp.buf = cands
		return m.pick(s, cands, rest, sp.opts, rng, nil, t.words)
	}
	f := freshPool.Get().(*freshStep)
	defer freshPool.Put(f)
	m.prepare(f, s, t, base, v.top)
	d := m.drawSetup(f, 1/sp.opts.Temperature, f.dw)
	f.dw = d.dw
	if !v.first {
		m.keepStep(v, f, d)
	}
	return sp.drawStep(s, f, &d, rng)
}

// pickListed is the step of s picked from its list: the unigram
// candidates (top 0) or a revisited step's memo entry.
func (sp *sampler) pickListed(s *state, v stepVisit, rng *rand.Rand) (uint32, float64) {
	m := sp.m
	var d draw
	if v.first {
		d.cands, d.rest, d.ids = m.candidatesAt(s, v.top, sp.buf)
	} else {
		d.cands, d.rest, d.ent, d.ids = m.revisit(s, v, sp.buf)
	}
	if d.ent == nil {
		sp.buf = d.cands
	}
	return m.pick(s, d.cands, d.rest, sp.opts, rng, d.ent, d.ids)
}

// keepStep stores a copy of the prepared step f, with its draw d, in
// the memo when the generation has room for its slots.
func (m *Model) keepStep(v stepVisit, f *freshStep, d freshDraw) {
	if m.memo.charge(v.g, len(f.dv)+2*len(f.deep)+len(f.gs)+1) {
		v.g.fresh.Store(v.key, f.keptCopy(&d)) // a racing writer's equal copy may be replaced
	}
}

// keptCopy is a copy of the prepared step f of its own, to be shared
// read-only, with the draw d when d is set.
func (f *freshStep) keptCopy(d *freshDraw) *freshStep {
	kept := &freshStep{t: f.t, base: f.base, depth: f.depth, gs: slices.Clone(f.gs), logScale: f.logScale,
		dv: slices.Clone(f.dv), deep: slices.Clone(f.deep), mark: f.mark}
	if d != nil {
		dc := *d
		dc.dw = slices.Clone(d.dw)
		kept.draw.Store(&dc)
	}
	return kept
}

// drawStep draws the next token after s from the prepared step f with
// its draw d at the sampler's temperature.
func (sp *sampler) drawStep(s *state, f *freshStep, d *freshDraw, rng *rand.Rand) (uint32, float64) {
	m := sp.m
	r := rng.Float64()
	c, backoff, ok := f.decide(d, r)
	switch {
	case !ok:
		cands, rest := m.fromTable(s, f.t, f.base, f.depth, sp.buf)
		sp.buf = cands
		return m.pickWith(s, cands, rest, sp.opts, r, rng, nil, f.t.words)
	case !backoff:
		return c.id, c.p
	}
	if w, ok := m.drawBackoff(s, nil, rng, f.t.words); ok {
		return w, m.prob(s, w)
	}
	return c.id, c.p // the top candidate, as pick falls back to it
}

// prepare describes in f the step of s with base table t (level base)
// and deepest usable context length top.
func (m *Model) prepare(f *freshStep, s *state, t *ctxTable, base, top int) {
	f.t, f.base, f.depth, f.gs, f.logScale, f.dv = t, base, top, f.gs[:0], 0, f.dv[:0]
	for j := base + 1; j <= top; j++ {
		h := s.ctx[j-1]
		l := &m.lv[j-1]
		g := float64(l.gamma[h])
		f.gs = append(f.gs, g)
		f.logScale += math.Log(g)
		lo, hi := l.first[h], l.first[h+1]
		out := m.deepen(j, f, m.lv[j].word[lo:hi], m.lv[j].adj[lo:hi], float64(l.den[h]))
		f.dv, f.dv2 = out, f.dv
	}
	f.setMarks()
	f.deep, f.keys = sortEntries(f.dv, t.words, f.deep, f.keys)
}

// isDeep reports whether word i of the table is a deep candidate. The
// mask keeps the index in the array: a table of more words has no deep
// candidates, so no marks.
func (f *freshStep) isDeep(i int) bool {
	return f.mark[uint(i)>>6%uint(len(f.mark))]>>(uint(i)%64)&1 != 0
}

// setMarks marks the deep candidates in f.mark.
func (f *freshStep) setMarks() {
	f.mark = [maxCandidates / 64]uint64{}
	for _, e := range f.dv {
		f.mark[e.i>>6] |= 1 << (e.i & 63)
	}
}

// deepen applies level j (children words with adjusted counts adj,
// denominator den; its γ is f.gs's last) to the deep entries f.dv,
// into f.dv2: each entry scaled by γ, each child's discounted count
// added, and a word first reached here entered with its table
// probability scaled through every γ so far — fromTable's terms in
// fromTable's order, so the values are its bits.
func (m *Model) deepen(j int, f *freshStep, words, adj []uint32, den float64) []deepEntry {
	tw, g, dv, out := f.t.words, f.gs[len(f.gs)-1], f.dv, f.dv2[:0]
	walk := len(tw) <= 8*len(words)
	i, k := 0, 0
	for c, w := range words {
		if walk {
			i = walkTo(tw, i, w)
		} else {
			i = searchFrom(tw, i, w)
		}
		if i == len(tw) {
			break
		}
		if tw[i] != w {
			continue
		}
		for ; k < len(dv) && dv[k].i < i; k++ {
			out = append(out, deepEntry{dv[k].i, g * dv[k].p})
		}
		var p float64
		if k < len(dv) && dv[k].i == i {
			p = g * dv[k].p
			k++
		} else {
			p = scaled(f.t.p[i], f.gs)
		}
		out = append(out, deepEntry{i, discounted(&m.disc[j], adj[c])/den + p})
	}
	for ; k < len(dv); k++ {
		out = append(out, deepEntry{dv[k].i, g * dv[k].p})
	}
	return out
}

// scaled is p times each γ of gs in turn, as fromTable scales a word no
// deeper level reaches.
func scaled(p float64, gs []float64) float64 {
	for _, g := range gs {
		p = g * p
	}
	return p
}

// nextFlat returns the first flat word at or after position pos of the
// table's order as mergeTable makes its candidate, its index, and the
// position after it; false at the end.
func (f *freshStep) nextFlat(pos int) (c cand, i, next int, ok bool) {
	t := f.t
	for ; pos < len(t.order); pos++ {
		if i = int(t.order[pos]); !f.isDeep(i) {
			return cand{id: t.words[i], p: scaled(t.p[i], f.gs), lw: t.lp[i] + f.logScale}, i, pos + 1, true
		}
	}
	return cand{}, 0, pos, false
}

// freshSums are drawFresh's estimates: the total weight, the bound on
// its error (and on every running sum's), and the rest weight's range.
type freshSums struct {
	total, err     float64
	restLo, restHi float64
}

// freshDraw is what drawFresh needs of a step at one temperature,
// whatever the random number: the table's weights, the top candidate
// and the flat words' factor, the sums and the deep candidates'
// weights; ok is false when the bound cannot be used.
type freshDraw struct {
	invT float64
	tw   *tableWeights
	c0   cand
	e    float64
	sm   freshSums
	dw   []float64
	ok   bool
}

// drawFresh draws from f's step at 1/T = invT with the random number r:
// the candidate pick would return, or backoff (then c is the top
// candidate); decided is false when the bound cannot tell. The deep
// candidates' weights go to *dw, so f is only read.
func (m *Model) drawFresh(f *freshStep, invT, r float64, dw *[]float64) (c cand, backoff, decided bool) {
	d := m.drawSetup(f, invT, *dw)
	*dw = d.dw
	return f.decide(&d, r)
}

// drawSetup computes the draw of f at invT, the deep weights in dw's
// storage.
func (m *Model) drawSetup(f *freshStep, invT float64, dw []float64) freshDraw {
	d := freshDraw{invT: invT, tw: m.weightsAt(f.t, invT), dw: dw[:0]}
	var ok bool
	if d.c0, ok = f.top(); !ok || !d.tw.ok {
		return d
	}
	if d.e = f.factor(d.c0, invT); math.IsInf(d.e, 0) || math.IsNaN(d.e) {
		return d
	}
	d.sm, d.dw = f.sums(d.tw, d.c0, invT, d.e, d.dw)
	d.ok = true
	return d
}

// keptDraw is drawSetup for a kept step, whose draw at the temperature
// last used is kept with it (the same values, so draws are unchanged).
func (m *Model) keptDraw(f *freshStep, invT float64) *freshDraw {
	if d := f.draw.Load(); d != nil && d.invT == invT {
		return d
	}
	d := m.drawSetup(f, invT, nil)
	f.draw.Store(&d) // racing writers store equal draws
	return &d
}

// decide is drawFresh's decision for the random number r.
func (f *freshStep) decide(d *freshDraw, r float64) (c cand, backoff, decided bool) {
	if !d.ok {
		return cand{}, false, false
	}
	sm := &d.sm
	uLo := r * (sm.total - sm.err + sm.restLo) * (1 - freshMargin)
	uHi := r * (sm.total + sm.err + sm.restHi) * (1 + freshMargin)
	switch {
	case uHi < sm.total-sm.err:
		c, ok := f.walk(d.tw, d.dw, d.e, uLo, uHi, sm.err)
		return c, false, ok
	case uLo >= sm.total+sm.err:
		return d.c0, true, true
	}
	return cand{}, false, false
}

// top is the step's first candidate in candCmp order.
func (f *freshStep) top() (cand, bool) {
	x, _, _, ok := f.nextFlat(0)
	if len(f.deep) > 0 && (!ok || candCmp(f.deep[0], x) < 0) {
		return f.deep[0], true
	}
	return x, ok
}

// factor is e, a flat word's weight over its table weight: the product
// of the γ over the top probability at T = 1, else exp(invT·(Σ log γ −
// log p_top)), since pick's weight is exp(invT·(lp + Σ log γ − log p_top)).
func (f *freshStep) factor(c0 cand, invT float64) float64 {
	if invT == 1 {
		return scaled(1, f.gs) / c0.p
	}
	return math.Exp(invT * (f.logScale - c0.lw))
}

// sums estimates the total weight (the flat words' from the table's sum
// less the deep words' share) and the rest mass, as fromTable's
// 1 − Σ p, and the rest weight's range; the deep candidates' weights
// are appended to ws.
func (f *freshStep) sums(tw *tableWeights, c0 cand, invT, e float64, ws []float64) (freshSums, []float64) {
	dw := 0.0
	for _, c := range f.deep {
		w := pickWeight(c, c0, invT)
		ws = append(ws, w)
		dw += w
	}
	var dwt, dtp, dp float64
	for _, d := range f.dv {
		dwt += tw.w[d.i]
		dtp += f.t.p[d.i]
		dp += d.p
	}
	g := scaled(1, f.gs)
	sum := g*(f.t.psum-dtp) + dp
	sumErr := freshMargin * (g*f.t.psum + dp + 1)
	sm := freshSums{total: e*(tw.total-dwt) + dw, err: freshMargin * (e*tw.total + dw)}
	sm.restLo = restWeight(max(0, 1-sum-sumErr), c0, invT) * (1 - freshMargin)
	sm.restHi = restWeight(max(0, 1-sum+sumErr), c0, invT) * (1 + freshMargin)
	return sm, ws
}

// restWeight is pick's weight of the rest bucket of mass rest.
func restWeight(rest float64, c0 cand, invT float64) float64 {
	if rest <= 0 {
		return 0
	}
	return pickWeight(cand{p: rest, lw: math.Log(rest)}, c0, invT)
}

// walk merges the flat words (in the table's order) with the deep ones
// (weights dw) and returns the candidate where u, in [uLo, uHi], falls, when every
// running sum (each within err) is clear of u. Scaling can make
// neighbours of the table's order tie, and candCmp orders ties by id,
// which the table's order need not: so each flat word taken must
// precede the next in candCmp order, and so must the words of the run
// of equal probabilities the first one not taken starts (flatRunOK);
// then the list's first candidates are the ones walked.
func (f *freshStep) walk(tw *tableWeights, dw []float64, e, uLo, uHi, err float64) (cand, bool) {
	x, xi, next, okx := f.nextFlat(0)
	cum, k := 0.0, 0
	for {
		var c cand
		switch {
		case k < len(f.deep) && (!okx || candCmp(f.deep[k], x) < 0):
			c = f.deep[k]
			cum += dw[k]
			k++
		case okx:
			c = x
			cum += e * tw.w[xi]
			y, yi, ynext, oky := f.nextFlat(next)
			if oky && candCmp(x, y) > 0 {
				return cand{}, false
			}
			x, xi, next, okx = y, yi, ynext, oky
		default:
			return cand{}, false // u past the end: rounding decides
		}
		if uLo-err >= cum {
			continue
		}
		if uHi+err >= cum || okx && !f.flatRunOK(x, next) {
			return cand{}, false
		}
		return c, true
	}
}

// flatRunOK reports whether the flat words from x (whose successor is at
// position next) that share its probability come in ascending ids, so
// none of the later flat words precedes x in candCmp order.
func (f *freshStep) flatRunOK(x cand, next int) bool {
	for {
		y, _, ynext, ok := f.nextFlat(next)
		if !ok || y.p < x.p {
			return true
		}
		if candCmp(x, y) > 0 {
			return false
		}
		x, next = y, ynext
	}
}
