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
	steps atomic.Pointer[stepMemo]
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

// Finished steps.
//
// A step's whole candidate list — base table, deeper levels, order and
// rest mass — is a function of its deepest usable context node alone
// (level top, node ctx[top-1]): a trie node stands for one k-gram, so it
// fixes every shorter context, and the first unusable level ends the
// search whatever lies beyond it. So the finished list is memoised too,
// with the sampling weights of the temperatures it was drawn at and its
// ids sorted for the rest-bucket draw; a step that has been taken before
// is then a copy and a short walk, with no exp per candidate. Values are
// the ones fromTable and pick compute, stored, so draws are unchanged.

// stepEntry is one finished step.
type stepEntry struct {
	cands []cand
	rest  float64
	ids   []uint32 // the candidates' ids, ascending (shared, read-only)
	wts   atomic.Pointer[[]*stepWeights]
}

// stepWeights are pick's weights of every candidate at one temperature
// and their running sums, taken in candidate order as pick sums them, so
// cum[n-1] is pick's total over the first n.
type stepWeights struct {
	invT float64
	w    []float64
	cum  []float64
}

// stepMemo is one generation of finished steps. When its budget is spent
// the model starts a new one, so a long-running server follows its
// traffic instead of keeping the first contexts it saw.
type stepMemo struct {
	m     sync.Map // uint64(top)<<32 | node → *stepEntry or seenOnce
	slots atomic.Int64
}

// stepSlots bounds the candidates (and cached weights, one slot per
// candidate and temperature) a generation holds: about 40 MB.
const stepSlots = 1 << 20

// markSlots is what a seenOnce mark is charged: a sync.Map entry is
// about four candidates' bytes.
const markSlots = 4

// maxStepTemps bounds the temperatures whose weights an entry keeps.
const maxStepTemps = 4

func (c *ctxMemo) stepGen() *stepMemo {
	if g := c.steps.Load(); g != nil {
		return g
	}
	c.steps.CompareAndSwap(nil, &stepMemo{})
	return c.steps.Load()
}

// charge takes n slots from generation g, starting a new generation
// when g is full; false means the caller must not store.
func (c *ctxMemo) charge(g *stepMemo, n int) bool {
	if g.slots.Add(int64(n)) <= stepSlots {
		return true
	}
	c.steps.CompareAndSwap(g, &stepMemo{})
	return false
}

// step returns the candidates of s like candidates, and the memo entry
// they come from. With an entry the slice is the entry's and must not
// be modified; without one (computed afresh and not kept, or no memo)
// it is buf reused.
func (m *Model) step(s *state, buf []cand) ([]cand, float64, *stepEntry) {
	top := m.top(s)
	if m.memo == nil {
		cands, rest, _ := m.candidatesAt(s, top, buf)
		return cands, rest, nil
	}
	var key uint64
	if top > 0 {
		key = uint64(top)<<32 | uint64(s.ctx[top-1])
	}
	g := m.memo.stepGen()
	v, seen := g.m.Load(key)
	if e, ok := v.(*stepEntry); ok {
		return e.cands, e.rest, e
	}
	cands, rest, ids := m.candidatesAt(s, top, buf)
	if !seen {
		// Most contexts of a completion are reached once: an entry (a
		// copy of the list and its weights) is made on the second visit.
		if m.memo.charge(g, markSlots) {
			g.m.LoadOrStore(key, seenOnce{})
		}
		return cands, rest, nil
	}
	if !m.memo.charge(g, len(cands)) {
		return cands, rest, nil
	}
	e := &stepEntry{cands: slices.Clone(cands), rest: rest, ids: ids}
	g.m.Store(key, e) // a racing writer's equal entry may be replaced
	return e.cands, e.rest, e
}

// seenOnce marks a step memo key visited once.
type seenOnce struct{}

// weights returns the entry's weights at 1/T = invT, computing and
// keeping them on first use.
func (m *Model) weights(e *stepEntry, invT float64) *stepWeights {
	var have []*stepWeights
	if l := e.wts.Load(); l != nil {
		have = *l
		for _, w := range have {
			if w.invT == invT {
				return w
			}
		}
	}
	w := &stepWeights{invT: invT, w: make([]float64, len(e.cands)), cum: make([]float64, len(e.cands))}
	total := 0.0
	for i, c := range e.cands {
		w.w[i] = pickWeight(c, e.cands[0], invT)
		total += w.w[i]
		w.cum[i] = total
	}
	if g := m.memo.stepGen(); m.memo.charge(g, len(e.cands)) {
		// Racing writers may drop each other's sets; both are correct.
		next := append(slices.Clone(have[max(0, len(have)-maxStepTemps+1):]), w)
		e.wts.Store(&next)
	}
	return w
}

// has reports whether id is one of the entry's candidates.
func (e *stepEntry) has(id uint32) bool {
	_, ok := slices.BinarySearch(e.ids, id)
	return ok
}

// stepScratch holds a step's working arrays.
type stepScratch struct {
	p    []float64
	deep []bool
	idx  []int
	d    []cand
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
	out := slices.Grow(buf[:0], n)
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
		out, sc.d = mergeDeep(out, idx, t.words, p, sc.d)
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
// words/p) into the sorted list c, using d as scratch; it returns the
// list and the scratch for reuse.
func mergeDeep(c []cand, idx []int, words []uint32, p []float64, d []cand) ([]cand, []cand) {
	d = d[:0]
	for _, i := range idx {
		d = append(d, cand{id: words[i], p: p[i], lw: math.Log(p[i])})
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
	return c, d
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
