package ngram

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"
)

// Candidate scoring without a full sort per step.
//
// A step's candidates are the children of its base context node h (the
// shortest context, widened from the longest, with at most maxCandidates
// children). Their probabilities up to h's level depend on h alone — a
// trie node fixes its suffixes — so they are computed once per node into
// a table with the permutation that sorts them (descending probability,
// then id), kept in a bounded, concurrency-safe memo. A step then applies
// only the deeper levels of its own context: every candidate's
// probability is multiplied by γ(h_j), and the few children of h_j get
// their discounted count added, exactly as prob computes it term by term
// (so the values are bit-identical to prob's), and the sorted order is the
// table's order with the deeper children merged back in.

// ctxTable is a base context's candidates in word order with their
// probabilities up to the context's level, and the sorting permutation.
type ctxTable struct {
	words []uint32
	p     []float64
	lp    []float64 // log p, for sampling weights
	order []uint32  // indices into words, by descending p then id
}

// memoWords bounds the words held by all tables of a model (about 14
// bytes each): beyond it, tables are computed per step and not kept.
const memoWords = 4 << 20

type ctxMemo struct {
	m     sync.Map // uint64(level)<<32 | node → *ctxTable
	words atomic.Int64
}

// table returns the candidate table of the level-base context of s.
func (m *Model) table(s *state, base int) *ctxTable {
	h := s.ctx[base-1]
	key := uint64(base)<<32 | uint64(h)
	if m.memo != nil {
		if t, ok := m.memo.m.Load(key); ok {
			return t.(*ctxTable)
		}
	}
	lo, hi := m.lv[base-1].first[h], m.lv[base-1].first[h+1]
	t := &ctxTable{}
	for _, w := range m.lv[base].word[lo:hi] {
		if w == eosID || w >= firstWordID {
			t.words = append(t.words, w)
			t.p = append(t.p, m.probUpTo(s, w, base))
		}
	}
	t.order = make([]uint32, len(t.words))
	for i := range t.order {
		t.order[i] = uint32(i)
	}
	slices.SortFunc(t.order, func(a, b uint32) int {
		return candCmp(cand{id: t.words[a], p: t.p[a]}, cand{id: t.words[b], p: t.p[b]})
	})
	t.lp = make([]float64, len(t.p))
	for i, v := range t.p {
		t.lp[i] = math.Log(v)
	}
	if m.memo != nil && m.memo.words.Add(int64(len(t.words))) <= memoWords {
		if prev, loaded := m.memo.m.LoadOrStore(key, t); loaded {
			return prev.(*ctxTable)
		}
	}
	return t
}

// probUpTo is prob restricted to the contexts of levels 1..top.
func (m *Model) probUpTo(s *state, w uint32, top int) float64 {
	ctx := s.ctx
	if top < len(ctx) {
		sh := state{ctx: ctx[:top]}
		return m.prob(&sh, w)
	}
	return m.prob(s, w)
}

// stepScratch holds a step's working arrays.
type stepScratch struct {
	p    []float64
	deep []bool
	idx  []int
}

var scratchPool = sync.Pool{New: func() any { return new(stepScratch) }}

// fromTable computes the step's candidates from the base table t and the
// deeper contexts base+1..top of s, appending them sorted to buf, and the
// rest mass. The sum is taken in word order, as prob's callers always did.
func (m *Model) fromTable(s *state, t *ctxTable, base, top int, buf []cand) ([]cand, float64) {
	sc := scratchPool.Get().(*stepScratch)
	defer scratchPool.Put(sc)
	n := len(t.words)
	p := append(sc.p[:0], t.p...)
	deep := slices.Grow(sc.deep[:0], n)[:n]
	clear(deep)
	anyDeep := false
	logScale := 0.0 // log of the product of the deeper γ, for weights
	for j := base + 1; j <= top; j++ {
		h := s.ctx[j-1]
		l := &m.lv[j-1]
		g, den := float64(l.gamma[h]), float64(l.den[h])
		logScale += math.Log(g)
		for i := range p {
			p[i] = g * p[i]
		}
		lo, hi := l.first[h], l.first[h+1]
		words, adj := m.lv[j].word[lo:hi], m.lv[j].adj[lo:hi]
		i := 0
		for c, w := range words {
			for i < n && t.words[i] < w {
				i++
			}
			if i == n {
				break
			}
			if t.words[i] == w {
				a := adj[c]
				p[i] = math.Max(float64(a)-discount(&m.disc[j], a), 0)/den + p[i]
				deep[i], anyDeep = true, true
			}
		}
	}
	sum := 0.0
	for _, v := range p {
		sum += v
	}
	out := buf[:0]
	for _, k := range t.order {
		if !deep[k] {
			out = append(out, cand{id: t.words[k], p: p[k], lw: t.lp[k] + logScale})
		}
	}
	insertionFix(out) // scaling can make neighbours tie; ties go by id
	if anyDeep {
		idx := sc.idx[:0]
		for i, d := range deep {
			if d {
				idx = append(idx, i)
			}
		}
		out = mergeDeep(out, idx, t.words, p)
		sc.idx = idx
	}
	sc.p, sc.deep = p, deep
	return out, math.Max(0, 1-sum)
}

// insertionFix restores candCmp order in a list that is already sorted
// but for a few equal neighbours (linear when nothing moves).
func insertionFix(c []cand) {
	for i := 1; i < len(c); i++ {
		for j := i; j > 0 && candCmp(c[j-1], c[j]) > 0; j-- {
			c[j-1], c[j] = c[j], c[j-1]
		}
	}
}

// mergeDeep merges the deeper contexts' children (indices idx into
// words/p) into the sorted list c.
func mergeDeep(c []cand, idx []int, words []uint32, p []float64) []cand {
	d := make([]cand, len(idx))
	for k, i := range idx {
		d[k] = cand{id: words[i], p: p[i], lw: math.Log(p[i])}
	}
	sortCands(d)
	n := len(c)
	c = slices.Grow(c, len(d))[:n+len(d)]
	// Merge from the back in place.
	i, j, k := n-1, len(d)-1, len(c)-1
	for j >= 0 {
		if i >= 0 && candCmp(c[i], d[j]) > 0 {
			c[k] = c[i]
			i--
		} else {
			c[k] = d[j]
			j--
		}
		k--
	}
	return c
}

// candCmp orders by descending probability, then ascending id.
func candCmp(a, b cand) int {
	switch {
	case a.p > b.p:
		return -1
	case a.p < b.p:
		return 1
	case a.id < b.id:
		return -1
	case a.id > b.id:
		return 1
	}
	return 0
}
