package ngram

import (
	"fmt"
	"math"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
)

// Cache configures the cache component of a model: a second n-gram model
// estimated on the text of the request itself (the prompt, then what has
// been generated or scored so far), mixed in with weight Weight whenever
// the last tokens occurred earlier in the text:
//
//	p(w|h) = (1−λ)·p_KN(w|h) + λ·p_cache(w|h),  λ = Weight if the cache has
//	         a context of h (longest of the last Order..1 tokens), else 0
//
// p_cache is the relative frequency of what followed that context earlier
// in the text. This is the cache language model of Kuhn & De Mori (1990)
// that Tu, Su & Devanbu ("On the localness of software", FSE 2014) showed
// captures the local repetitiveness of code; for a testbed target it
// plays the part of a transformer's copying from its context, so a model
// can predict an identifier it never saw in training once the prompt
// uses it — the "strong contextual cues" false positive of
// benchchecker §3.3. Tokens of the text that are not in the vocabulary
// can be produced through the cache. Both parts are distributions, so the
// mixture is one.
type Cache struct {
	Weight float64 `json:"weight"` // λ in [0, 1); 0 = no cache
	Order  int     `json:"order"`  // longest cache context, in tokens [3]
	// Pieces adds the copy of identifier pieces by content (pieceCopy,
	// piececopy.go): alone where the suffix cache has no context, mixed
	// evenly with it where it has one [off].
	Pieces bool        `json:"pieces,omitempty"`
	table  *pieceTable // built by WithCache when Pieces
}

// WithCache returns a model that shares m's counts and adds the cache
// component c to every prediction (Score, Sample, the server). It fails
// with errs.ErrUsage for a weight outside [0, 1).
func (m *Model) WithCache(c Cache) (*Model, error) {
	if !(c.Weight >= 0 && c.Weight < 1) || c.Order < 0 {
		return nil, fmt.Errorf("ngram.WithCache(%+v): weight must be in [0, 1), order >= 0: %w", c, errs.ErrUsage)
	}
	if c.Order == 0 {
		c.Order = 3
	}
	cp := *m
	cp.cache = c
	if c.Pieces {
		cp.cache.table = newPieceTable(m)
	}
	return &cp, nil
}

// CacheSettings is the model's cache component (zero without one).
func (m *Model) CacheSettings() Cache { return m.cache }

// cacheLM is the per-request cache: counts of what followed each context
// of up to order tokens, and an overlay vocabulary giving ids above the
// model's to token texts it does not know. Additions are logged so a
// sampler can roll back to the prompt between completions.
type cacheLM struct {
	order  int
	hist   []string
	counts map[string]map[string]int32
	log    []string // keys incremented, each followed by its token
	extra  []string
	extraI map[string]uint32
	base   uint32 // first overlay id = len(model vocab)
	kbuf   []string
	pieces *pieceCopy // nil unless Cache.Pieces
}

func (m *Model) newCache() *cacheLM {
	if m.cache.Weight <= 0 {
		return nil
	}
	c := &cacheLM{order: m.cache.Order, counts: map[string]map[string]int32{}, extraI: map[string]uint32{}, base: uint32(len(m.vocab))}
	if m.cache.Pieces {
		c.pieces = newPieceCopy(m)
	}
	return c
}

func (c *cacheLM) key(j int) string {
	return strings.Join(c.hist[len(c.hist)-j:], "\x00")
}

// keys sets buf to the keys of the contexts of the last 1..n tokens,
// shortest first. Each is a suffix of the longest, so one string is
// built; only a history whose tokens hold the separator itself takes the
// slow path, one join per key.
func (c *cacheLM) keys(n int, buf []string) []string {
	buf = buf[:0]
	if n == 0 {
		return buf
	}
	long := c.key(n)
	if strings.Count(long, "\x00") != n-1 {
		for j := 1; j <= n; j++ {
			buf = append(buf, c.key(j))
		}
		return buf
	}
	pos := len(long)
	for j := 1; j < n; j++ {
		sep := strings.LastIndexByte(long[:pos], 0)
		buf = append(buf, long[sep+1:])
		pos = sep
	}
	return append(buf, long)
}

// add appends token text t to the history and counts it after each of
// the contexts ending before it.
func (c *cacheLM) add(t string) {
	c.kbuf = c.keys(min(c.order, len(c.hist)), c.kbuf)
	for _, k := range c.kbuf {
		next := c.counts[k]
		if next == nil {
			next = map[string]int32{}
			c.counts[k] = next
		}
		next[t]++
		c.log = append(c.log, k, t)
	}
	if c.pieces != nil {
		c.pieces.add(t, c.hist)
	}
	c.hist = append(c.hist, t)
}

func (c *cacheLM) mark() (int, int) { return len(c.hist), len(c.log) }

// rollback undoes the additions since mark.
func (c *cacheLM) rollback(h, l int) {
	for i := len(c.log) - 2; i >= l; i -= 2 {
		next := c.counts[c.log[i]]
		if next[c.log[i+1]]--; next[c.log[i+1]] <= 0 {
			delete(next, c.log[i+1])
		}
		if len(next) == 0 {
			delete(c.counts, c.log[i])
		}
	}
	c.hist, c.log = c.hist[:h], c.log[:l]
	if c.pieces != nil {
		c.pieces.rollback(h)
	}
}

// dist returns the successors of the longest context of the history seen
// before, with their total count (nil when none).
func (c *cacheLM) dist() (map[string]int32, int32) {
	c.kbuf = c.keys(min(c.order, len(c.hist)), c.kbuf)
	for j := len(c.kbuf); j >= 1; j-- {
		if next := c.counts[c.kbuf[j-1]]; len(next) > 0 {
			var total int32
			for _, n := range next {
				total += n
			}
			return c.pieces.with(next, total, c.hist)
		}
	}
	return c.pieces.with(nil, 0, c.hist)
}

// overlay returns the id of token text t, giving an unknown text an id
// above the vocabulary.
func (c *cacheLM) overlay(m *Model, t string) uint32 {
	if id, ok := m.ids[t]; ok {
		return id
	}
	if id, ok := c.extraI[t]; ok {
		return id
	}
	id := c.base + uint32(len(c.extra))
	c.extra = append(c.extra, t)
	c.extraI[t] = id
	return id
}

// text is the token text of id, overlay ids included.
func (m *Model) text(id uint32, c *cacheLM) string {
	if int(id) < len(m.vocab) {
		return m.vocab[id]
	}
	return c.extra[id-c.base]
}

// known maps an overlay id to <unk> for the n-gram state.
func (m *Model) known(id uint32) uint32 {
	if int(id) < len(m.vocab) {
		return id
	}
	return unkID
}

// ngramProb is the n-gram part's probability of token text t (an unknown
// text spelled by the byte model).
func (m *Model) ngramProb(s *state, t string) float64 {
	w := m.id(t)
	p := m.prob(s, w)
	if w == unkID {
		p *= math.Exp(m.spellLogProb(t))
	}
	return p
}

// mixedProb is the model's probability of token text t with the cache.
func (m *Model) mixedProb(s *state, c *cacheLM, t string) float64 {
	p := m.ngramProb(s, t)
	if c == nil {
		return p
	}
	next, total := c.dist()
	if total == 0 {
		return p
	}
	lam := m.cache.Weight
	return (1-lam)*p + lam*float64(next[t])/float64(total)
}

// mixCandidates folds the cache into the n-gram candidates: every
// probability and the rest bucket scaled by 1−λ, the cache's successors
// added with λ·p_cache (joining the set with their n-gram probability,
// which leaves the rest bucket), sorted again.
func (m *Model) mixCandidates(s *state, c *cacheLM, cands []cand, rest float64) ([]cand, float64) {
	if c == nil {
		return cands, rest
	}
	next, total := c.dist()
	if total == 0 {
		return cands, rest
	}
	lam := m.cache.Weight
	for i := range cands {
		cands[i].p *= 1 - lam
	}
	// The cache has a few successors; finding each among the n-gram
	// candidates by a scan is cheaper than indexing them all in a map.
	nc := len(cands)
	rest *= 1 - lam
	for t, n := range next {
		pc := lam * float64(n) / float64(total)
		id := c.overlay(m, t)
		if i := candIndex(cands[:nc], id); i >= 0 {
			cands[i].p += pc
			continue
		}
		png := (1 - lam) * m.ngramProb(s, t)
		rest = math.Max(0, rest-png)
		cands = append(cands, cand{id: id, p: png + pc})
	}
	for i := range cands {
		cands[i].lw = math.Log(cands[i].p)
	}
	sortCands(cands)
	return cands, rest
}

// candIndex is the index of the last candidate with id, or -1.
func candIndex(cands []cand, id uint32) int {
	for i := len(cands) - 1; i >= 0; i-- {
		if cands[i].id == id {
			return i
		}
	}
	return -1
}
