package ngram

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

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
	return m.sampleTokens(ctx, m.tokenize(prompt), opts, topLogprobs)
}

// sampleTokens is sample of a prompt already tokenized (ptoks is not
// modified), for the server, which also counts the prompt's tokens.
func (m *Model) sampleTokens(ctx context.Context, ptoks []Token, opts SampleOptions, topLogprobs int) ([]Completion, error) {
	if opts.N == 0 {
		opts.N = 1
	}
	if opts.N < 0 || opts.MaxTokens < 0 || opts.Temperature < 0 || opts.TopK < 0 ||
		opts.TopP < 0 || opts.TopP > 1 || math.IsNaN(opts.Temperature) || math.IsNaN(opts.TopP) {
		return nil, fmt.Errorf("ngram.Sample: invalid options %+v: %w", opts, errs.ErrUsage)
	}
	base := m.newState(false)
	heal := ""
	if n := len(ptoks); n > 0 {
		heal = ptoks[n-1].Text
		ptoks = ptoks[:n-1]
	}
	cache := m.newCache()
	for _, t := range ptoks {
		m.push(&base, m.id(t.Text))
		if cache != nil {
			cache.add(t.Text)
		}
	}
	var markH, markL int
	if cache != nil {
		markH, markL = cache.mark()
	}
	out := make([]Completion, opts.N)
	// A pooled buffer: steps computed afresh fill it, and a first step
	// would otherwise grow it to a few hundred candidates per request.
	bp := candPool.Get().(*[]cand)
	defer candPool.Put(bp)
	buf := (*bp)[:0]
	defer func() { *bp = buf[:0] }()
	for i := range out {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if cache != nil {
			cache.rollback(markH, markL)
		}
		rng := rand.New(rand.NewPCG(opts.Seed, uint64(i)))
		s := state{ctx: append(make([]uint32, 0, m.order), base.ctx...)}
		// Sized for the usual completion, so they are not regrown per token.
		c := Completion{FinishReason: FinishLength, Tokens: make([]string, 0, min(opts.MaxTokens, 64)), LogProbs: make([]float64, 0, min(opts.MaxTokens, 64))}
		var text strings.Builder
		text.Grow(8 * min(opts.MaxTokens, 64))
		stopped := false
		healing := heal != ""
		for len(c.Tokens) < opts.MaxTokens {
			// ent is the memo entry cands were copied from while they
			// are unchanged, so pick can use its stored weights.
			// Slices from an entry are read-only: buf is kept apart.
			cands, rest, ent, ids := m.step(&s, buf)
			cands, rest, ent, ids = m.mixStep(&s, cache, cands, rest, ent, ids, buf)
			if ent == nil {
				buf = cands
			}
			skip := 0 // bytes of the token already in the prompt
			if healing {
				healing = false
				var ok bool
				if cands, ok = m.healCandidates(cands, heal, cache); ok {
					rest, skip, ent, ids = 0, len(heal), nil, nil
				} else {
					m.push(&s, m.id(heal))
					if cache != nil {
						cache.add(heal)
					}
					cands, rest, ent, ids = m.step(&s, buf)
					cands, rest, ent, ids = m.mixStep(&s, cache, cands, rest, ent, ids, buf)
				}
				if ent == nil {
					buf = cands
				}
			}
			w, p := m.pick(&s, cands, rest, opts, rng, ent, ids)
			if cache != nil && skip == 0 && !slices.ContainsFunc(cands, func(x cand) bool { return x.id == w }) {
				p = m.mixedProb(&s, cache, m.text(w, cache)) // drawn from the backoff chain
			}
			if skip > 0 && m.text(w, cache) == heal {
				// The prompt's last token stands: continue after it.
				m.push(&s, m.known(w))
				if cache != nil {
					cache.add(heal)
				}
				continue
			}
			if topLogprobs > 0 {
				c.TopLogProbs = append(c.TopLogProbs, m.toCandidates(cands, topLogprobs, cache))
			}
			if w == eosID {
				c.FinishReason = FinishStop
				if topLogprobs > 0 {
					c.TopLogProbs = c.TopLogProbs[:len(c.Tokens)]
				}
				break
			}
			full := m.text(w, cache)
			tok := full[skip:]
			c.Tokens = append(c.Tokens, tok)
			c.LogProbs = append(c.LogProbs, math.Log(p))
			text.WriteString(tok)
			m.push(&s, m.known(w))
			if cache != nil {
				cache.add(full)
			}
			if cut, ok := stopAt(text.String(), opts.Stop, len(tok)); ok {
				c.Text = text.String()[:cut]
				c.FinishReason = FinishStop
				trimTokens(&c, cut)
				stopped = true
				break
			}
		}
		if !stopped {
			c.Text = text.String()
		}
		out[i] = c
	}
	return out, nil
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
	n := len(cands)
	if opts.TopK > 0 && opts.TopK < n {
		n = opts.TopK
	}
	cut := opts.TopK > 0 || (opts.TopP > 0 && opts.TopP < 1)
	if opts.TopP > 0 && opts.TopP < 1 {
		acc := 0.0
		for i := 0; i < n; i++ {
			acc += cands[i].p
			if acc >= opts.TopP {
				n = i + 1
				break
			}
		}
	}
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
	u := rng.Float64() * (total + restW)
	if u < total {
		for i := 0; i < n; i++ {
			u -= ws[i]
			if u < 0 {
				return cands[i].id, cands[i].p
			}
		}
		return cands[n-1].id, cands[n-1].p
	}
	if w, ok := m.drawBackoff(s, cands, rng, ids); ok {
		return w, m.prob(s, w)
	}
	return cands[0].id, cands[0].p
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
		return m.drawDiscounted(l.first[h], l.first[h+1], &m.lv[j], float64(l.den[h])*(1-float64(l.gamma[h])), &m.disc[j], rng)
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

// drawDiscounted draws a node from lv.word[lo:hi] in proportion to its
// discounted adjusted count; mass is the sum of those.
func (m *Model) drawDiscounted(lo, hi uint32, l *level, mass float64, d *[3]float64, rng *rand.Rand) uint32 {
	u := rng.Float64() * mass
	// Children are sorted by id and <s> is id 1, so only the first two
	// can be <s>; the walk over the rest (often thousands, a tenth of a
	// served step) then reads the counts alone, each discounted by a
	// table lookup worth what discount gives.
	dd := [4]float64{0, d[0], d[1], d[2]}
	c := lo
	for ; c < hi && c < lo+2; c++ {
		a := l.adj[c]
		if l.word[c] == bosID {
			continue
		}
		u -= math.Max(float64(a)-dd[min(a, 3)], 0)
		if u < 0 {
			return l.word[c]
		}
	}
	for _, a := range l.adj[c:hi] {
		u -= math.Max(float64(a)-dd[min(a, 3)], 0)
		if u < 0 {
			return l.word[c]
		}
		c++
	}
	return unkID
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
