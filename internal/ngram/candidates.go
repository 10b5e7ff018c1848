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
	psum  float64   // Σ p (in index order), for a fresh step's rest mass
	kept  bool      // held by the memo (so worth weights per temperature)
	wts   atomic.Pointer[[]*tableWeights]
}

// memoWords bounds the words held by all tables of a model (about 14
// bytes each): beyond it, tables are computed per step and not kept.
const memoWords = 4 << 20

type ctxMemo struct {
	m     shardMap[*ctxTable] // uint64(level)<<32 | node
	cums  shardMap[[]float64] // drawDiscounted's running sums, by the same key
	words atomic.Int64
	steps atomic.Pointer[stepMemo]
}

// table returns the candidate table of the level-base context of s.
func (m *Model) table(s *state, base int) *ctxTable {
	h := s.ctx[base-1]
	key := uint64(base)<<32 | uint64(h)
	if m.memo != nil {
		if t, ok := m.memo.m.Load(key); ok {
			return t
		}
	}
	lo, hi := m.lv[base-1].first[h], m.lv[base-1].first[h+1]
	// Sized once: grown by append, a table cost a dozen allocations.
	n := int(hi - lo)
	t := &ctxTable{words: make([]uint32, 0, n)}
	for _, w := range m.lv[base].word[lo:hi] {
		if w == eosID || w >= firstWordID {
			t.words = append(t.words, w)
		}
	}
	t.p = m.probsUpTo(s, t.words, base)
	t.order = sortedOrder(t.words, t.p)
	t.lp = make([]float64, len(t.p))
	for i, v := range t.p {
		t.lp[i] = math.Log(v)
		t.psum += v
	}
	if m.memo != nil && m.memo.words.Add(int64(len(t.words))) <= memoWords {
		t.kept = true
		if prev, loaded := m.memo.m.LoadOrStore(key, t); loaded {
			return prev
		}
	}
	return t
}

// tableWeights are a table's words' sampling weights at 1/T = invT
// before a step's scaling — exp(invT·lp), or p itself at T = 1 — and
// their sum; ok is false when a weight is too small for drawFresh's
// error bound (see freshMargin).
type tableWeights struct {
	invT  float64
	w     []float64
	total float64
	ok    bool
}

// weightsAt returns the table's weights at invT, computing them on
// first use and keeping those of the last maxStepTemps temperatures
// while the memo's word budget lasts.
func (m *Model) weightsAt(t *ctxTable, invT float64) *tableWeights {
	var have []*tableWeights
	if l := t.wts.Load(); l != nil {
		have = *l
		for _, w := range have {
			if w.invT == invT {
				return w
			}
		}
	}
	tw := &tableWeights{invT: invT, w: t.p, total: t.psum, ok: true}
	if invT != 1 {
		tw.w, tw.total = make([]float64, len(t.lp)), 0
		for i, lp := range t.lp {
			tw.w[i] = math.Exp(invT * lp)
			tw.total += tw.w[i]
		}
	}
	for _, lp := range t.lp {
		tw.ok = tw.ok && lp >= minFreshLogProb
	}
	if m.memo.words.Add(int64(len(t.lp))) <= memoWords {
		// Racing writers may drop each other's sets; both are correct.
		next := append(slices.Clone(have[max(0, len(have)-maxStepTemps+1):]), tw)
		t.wts.Store(&next)
	}
	return tw
}

// probsUpTo is prob restricted to the contexts of levels 1..top, for
// every w of words (ascending ids,
// none <s> or beyond the vocabulary), level by level: each level's
// children are searched from where the last word's search ended, not
// from the start for every word, which made a new table half the
// handler's time on a fresh server. The terms and their order are
// prob's, so the values are bit-identical.
func (m *Model) probsUpTo(s *state, words []uint32, top int) []float64 {
	p := make([]float64, len(words))
	for i, w := range words {
		p[i] = m.uniP[w]
	}
	// Every level up to top is usable (top bounds the usable ones and
	// the usable ones are a prefix), so prob never stops early here.
	for j := 1; j <= top; j++ {
		h := s.ctx[j-1]
		l := &m.lv[j-1]
		den, g := float64(l.den[h]), float64(l.gamma[h])
		lo, hi := l.first[h], l.first[h+1]
		cw, ca := m.lv[j].word[lo:hi], m.lv[j].adj[lo:hi]
		walk := len(cw) <= 8*len(words) // else binary search
		k := 0
		for i, w := range words {
			if walk {
				for k < len(cw) && cw[k] < w {
					k++
				}
			} else {
				off, _ := slices.BinarySearch(cw[k:], w)
				k += off
			}
			var a uint32
			if k < len(cw) && cw[k] == w {
				a = ca[k]
			}
			p[i] = discounted(&m.disc[j], a)/den + g*p[i]
		}
	}
	return p
}

// sortedOrder returns the permutation of indices that orders words/p by
// candCmp (descending p, then ascending id; words ascend, so ties go by
// index). Like mergeDeep it sorts integer keys, p's bits with the index
// below, and lets insertionFix settle what the dropped low bits tied.
func sortedOrder(words []uint32, p []float64) []uint32 {
	order := make([]uint32, len(words))
	if len(words) > 1<<16 {
		for i := range order {
			order[i] = uint32(i)
		}
		slices.SortFunc(order, func(a, b uint32) int {
			return candCmp(cand{id: words[a], p: p[a]}, cand{id: words[b], p: p[b]})
		})
		return order
	}
	keys := make([]uint64, len(words))
	for i, v := range p {
		keys[i] = ^math.Float64bits(v)&^0xffff | uint64(i)
	}
	slices.Sort(keys)
	for k, key := range keys {
		order[k] = uint32(key & 0xffff)
	}
	for i := 1; i < len(order); i++ {
		for j := i; j > 0; j-- {
			a, b := order[j-1], order[j]
			if p[a] > p[b] || p[a] == p[b] && a < b {
				break
			}
			order[j-1], order[j] = b, a
		}
	}
	return order
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
	m     shardMap[*stepEntry] // uint64(top)<<32 | node → entry
	fresh shardMap[*freshStep] // the same keys → a lazy sampler's kept step
	slots atomic.Int64
	// seen has a bit per hashed key, set on a key's first visit. A
	// map entry per mark cost a locked insert, and its growth, on every
	// fresh step; a bit is one atomic or. Two keys may share a bit, so
	// a key may be taken for seen and kept on its first visit: the
	// entry holds the same values, so only memory is affected.
	seen [seenBits / 64]atomic.Uint64
}

// seenBits is the size of a generation's seen set: with at most
// stepSlots/markSlots marks, under 7% of fresh keys share a bit.
const seenBits = 1 << 22

// visit marks key seen and reports whether it already was.
func (g *stepMemo) visit(key uint64) bool {
	h := (key * 0x9e3779b97f4a7c15) >> (64 - 22)
	bit := uint64(1) << (h % 64)
	w := &g.seen[h/64]
	if w.Load()&bit != 0 {
		return true
	}
	return w.Or(bit)&bit != 0
}

// stepSlots bounds the candidates (and cached weights, one slot per
// candidate and temperature) a generation holds: about 40 MB.
const stepSlots = 1 << 20

// markSlots is what a seen-once mark is charged. A mark is a bit of
// the seen set now, but it is charged what its map entry used to cost
// (a few candidates' bytes), so generations turn over with the traffic
// as often as before.
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
	if c.steps.Load() == g { // else another caller has renewed it
		c.steps.CompareAndSwap(g, &stepMemo{})
	}
	return false
}

// step returns the candidates of s like candidates, the memo entry
// they come from, and their ids in ascending order (read-only). With an
// entry the slice is the entry's and must not be modified; without one
// (computed afresh and not kept, or no memo) it is buf reused.
func (m *Model) step(s *state, buf []cand) ([]cand, float64, *stepEntry, []uint32) {
	v := m.visitStep(s)
	if v.first {
		cands, rest, ids := m.candidatesAt(s, v.top, buf)
		return cands, rest, nil, ids
	}
	return m.revisit(s, v, buf)
}

// stepVisit is a step's deepest usable context length, its memo key and
// generation, and whether it is the step's first visit (or there is no
// memo): then the step is computed and not kept.
type stepVisit struct {
	top   int
	key   uint64
	g     *stepMemo
	first bool
}

// visitStep marks the visit of s's step in the memo.
func (m *Model) visitStep(s *state) stepVisit {
	v := stepVisit{top: m.top(s)}
	if m.memo == nil {
		v.first = true
		return v
	}
	if v.top > 0 {
		v.key = uint64(v.top)<<32 | uint64(s.ctx[v.top-1])
	}
	v.g = m.memo.stepGen()
	if !v.g.visit(v.key) {
		// Most contexts of a completion are reached once: an entry (a
		// copy of the list and its weights) is made on the second visit.
		// An entry is stored only after its key's bit is set, so there
		// is none to look up.
		m.memo.charge(v.g, markSlots)
		v.first = true
	}
	return v
}

// revisit is step for a step visited before: its entry, or the list
// computed and kept.
func (m *Model) revisit(s *state, v stepVisit, buf []cand) ([]cand, float64, *stepEntry, []uint32) {
	top, key, g := v.top, v.key, v.g
	if e, _ := g.m.Load(key); e != nil {
		return e.cands, e.rest, e, e.ids
	}
	cands, rest, ids := m.candidatesAt(s, top, buf)
	if !m.memo.charge(g, len(cands)) {
		return cands, rest, nil, ids
	}
	e := &stepEntry{cands: slices.Clone(cands), rest: rest, ids: ids}
	g.m.Store(key, e) // a racing writer's equal entry may be replaced
	return e.cands, e.rest, e, ids
}

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

// stepScratch holds a step's working arrays.
type stepScratch struct {
	p    []float64
	deep []bool
	idx  []int
	d    []cand
	keys []uint64
	dv   []deepEntry
}

var scratchPool = sync.Pool{New: func() any { return new(stepScratch) }}

// addDeeper adds level j's discounted counts (words with adjusted counts
// adj, denominator den) to the probabilities p of the table's words,
// marking each word found as deep (idx lists them). A deeper context
// with few children among many candidates finds each by binary search
// from the last one's place; one with many walks the candidates once,
// as probsUpTo does (addDeeper was a seventh of a cold server's sampling
// time, searching every child). Both find the same places.
func (m *Model) addDeeper(j int, words, adj []uint32, den float64, tw []uint32, p []float64, deep []bool, idx []int) []int {
	n := len(tw)
	walk := n <= 8*len(words)
	i := 0
	for c, w := range words {
		if walk {
			i = walkTo(tw, i, w)
		} else {
			i = searchFrom(tw, i, w)
		}
		if i == n {
			break
		}
		if tw[i] == w {
			a := adj[c]
			p[i] = discounted(&m.disc[j], a)/den + p[i]
			if !deep[i] {
				deep[i] = true
				idx = append(idx, i)
			}
		}
	}
	return idx
}

// walkTo and searchFrom return the first index from i on whose word is
// not below w: tw walked from i, or binary searched when it is long
// beside the words sought; both find the same place. (Apart, the walk
// inlines.)
func walkTo(tw []uint32, i int, w uint32) int {
	for i < len(tw) && tw[i] < w {
		i++
	}
	return i
}

func searchFrom(tw []uint32, i int, w uint32) int {
	k, _ := slices.BinarySearch(tw[i:], w)
	return i + k
}

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
	idx := sc.idx[:0] // the deep candidates, in no particular order
	logScale := 0.0   // log of the product of the deeper γ, for weights
	for j := base + 1; j <= top; j++ {
		h := s.ctx[j-1]
		l := &m.lv[j-1]
		g, den := float64(l.gamma[h]), float64(l.den[h])
		logScale += math.Log(g)
		for i := range p {
			p[i] = g * p[i]
		}
		lo, hi := l.first[h], l.first[h+1]
		idx = m.addDeeper(j, m.lv[j].word[lo:hi], m.lv[j].adj[lo:hi], den, t.words, p, deep, idx)
	}
	sum := 0.0
	for _, v := range p {
		sum += v
	}
	d := sortDeep(idx, t.words, p, sc)
	out := mergeTable(buf, t, p, deep, logScale, d)
	sc.p, sc.deep, sc.idx = p, deep, idx
	return out, math.Max(0, 1-sum)
}

// mergeTable appends to buf[:0] the table's words that are not deep, in
// the table's order with the step's probabilities, merged with the
// sorted deep candidates d. Scaling can make neighbours of the table's
// order tie (ties go by id), so each candidate appended is moved back
// while it precedes the one before it: an insertion sort, linear when
// nothing moves, whose result is candCmp order whatever the input's. One
// forward pass replaced appending, fixing ties and merging from the back
// in three, which moved most of the list twice (the deep candidates,
// found in deeper contexts, are mostly the most probable).
func mergeTable(buf []cand, t *ctxTable, p []float64, deep []bool, logScale float64, d []cand) []cand {
	out := slices.Grow(buf[:0], len(t.words))
	k := 0
	for _, i := range t.order {
		if deep[i] {
			continue
		}
		c := cand{id: t.words[i], p: p[i], lw: t.lp[i] + logScale}
		for k < len(d) && candCmp(d[k], c) < 0 {
			out = append(out, d[k])
			k++
		}
		out = append(out, c)
		for j := len(out) - 1; j > 0 && candCmp(out[j-1], out[j]) > 0; j-- {
			out[j-1], out[j] = out[j], out[j-1]
		}
	}
	return append(out, d[k:]...)
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

// sortDeep returns the deeper contexts' children (indices idx into
// words/p) as candidates in candCmp order, in sc's d, using sc's keys as
// scratch.
func sortDeep(idx []int, words []uint32, p []float64, sc *stepScratch) []cand {
	dv := sc.dv[:0]
	for _, i := range idx {
		dv = append(dv, deepEntry{i, p[i]})
	}
	sc.d, sc.keys = sortEntries(dv, words, sc.d, sc.keys)
	sc.dv = dv
	return sc.d
}

// sortEntries returns the deep entries dv (indices into words, with
// their probabilities) as candidates in candCmp order in d[:0], using
// keys as scratch.
func sortEntries(dv []deepEntry, words []uint32, d []cand, keys []uint64) ([]cand, []uint64) {
	d = d[:0]
	if len(dv) > 1<<16 {
		for _, e := range dv {
			d = append(d, cand{id: words[e.i], p: e.p, lw: math.Log(e.p)})
		}
		sortCands(d)
		return d, keys
	}
	// Sorting the deep children by candCmp with a comparison function
	// was a tenth of a served step. Instead: sort plain integer keys,
	// the bits of p (which order like p, p ≥ 0) inverted for descending
	// order with the entry's index in the lowest 16 bits, then let
	// insertionFix order the few that agreed in all the higher bits.
	// The order is total (ids differ), so any correct sort gives this
	// same list.
	keys = keys[:0]
	for k, e := range dv {
		keys = append(keys, ^math.Float64bits(e.p)&^0xffff|uint64(k))
	}
	slices.Sort(keys)
	for _, key := range keys {
		e := dv[key&0xffff]
		d = append(d, cand{id: words[e.i], p: e.p, lw: math.Log(e.p)})
	}
	insertionFix(d)
	return d, keys
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
