package patchcheck

import (
	"hash/fnv"
	"slices"
	"sort"
	"sync"

	"github.com/benchforge/benchforge/internal/code"
)

// This file is the AST alignment of benchchecker §4.2 (Algorithm 4, "we
// perform subtree matching using GumTree"): a focused GumTree matcher
// (Falleri et al., ASE 2014) over internal/code's flat pre-order trees.
//
//   - Top-down: subtrees are compared in decreasing height; isomorphic
//     subtrees (equal hash of kinds and leaf texts) that are unique in both
//     trees are mapped with all their descendants; ambiguous ones become
//     candidates, mapped afterwards in decreasing order of the dice
//     similarity of their parents. Subtrees lower than minHeight are not
//     mapped this way.
//   - Bottom-up: visiting the first tree in post-order, an unmapped inner
//     node with mapped descendants is mapped to the unmapped node of the
//     same kind in the second tree that contains most of those descendants'
//     partners, when dice(s, t) = 2·common / (|desc(s)| + |desc(t)|) ≥ 0.5.
//     The two roots are always mapped.
//
// GumTree's last phase (an optimal edit-script recovery inside small mapped
// subtrees) is left out: the alignment only needs to say which snapshot
// statement a patch statement became.

// tree is one side of a match: a subtree of a parsed file. Node i of the
// file is entry i-root of height and hash (subtrees are contiguous in
// pre-order).
type tree struct {
	f      *code.File
	nodes  []code.Node
	root   int
	height []int32
	hash   []uint64

	countsOnce sync.Once
	counts     map[uint64]int // subtrees per hash, see hashCounts
}

func newTree(f *code.File, root int) *tree {
	nodes := f.Nodes()
	n := nodes[root].End() - root
	t := &tree{f: f, nodes: nodes, root: root, height: make([]int32, n), hash: make([]uint64, n)}
	h := fnv.New64a()
	var b [8]byte
	for i := nodes[root].End() - 1; i >= root; i-- {
		h.Reset()
		h.Write([]byte(nodes[i].Kind()))
		ht := int32(1)
		if nodes[i].End() == i+1 {
			h.Write([]byte{0})
			h.Write([]byte(f.Text(i)))
		} else {
			for c := range f.Children(i) {
				v := t.hash[c-root]
				for k := range b {
					b[k] = byte(v >> (8 * k))
				}
				h.Write(b[:])
				ht = max(ht, t.height[c-root]+1)
			}
		}
		t.hash[i-root], t.height[i-root] = h.Sum64(), ht
	}
	return t
}

func (t *tree) size(i int) int { return t.nodes[i].End() - i }

func (t *tree) heightOf(i int) int { return int(t.height[i-t.root]) }

func (t *tree) hashOf(i int) uint64 { return t.hash[i-t.root] }

// contains reports whether node i lies in t's subtree.
func (t *tree) contains(i int) bool { return i >= t.root && i < t.nodes[t.root].End() }

// mapping is one direction of a node mapping: partner[i-root] is node i's
// partner, or -1.
type mapping struct {
	root    int
	partner []int32
}

func newMapping(t *tree) mapping {
	m := mapping{root: t.root, partner: make([]int32, len(t.hash))}
	for i := range m.partner {
		m.partner[i] = -1
	}
	return m
}

// get is node i's partner and whether it has one (false outside the
// subtree).
func (m mapping) get(i int) (int, bool) {
	k := i - m.root
	if k < 0 || k >= len(m.partner) || m.partner[k] < 0 {
		return -1, false
	}
	return int(m.partner[k]), true
}

func (m mapping) mapped(i int) bool { _, ok := m.get(i); return ok }

func (m mapping) set(i, p int) { m.partner[i-m.root] = int32(p) }

// matcher holds the mapping under construction.
type matcher struct {
	a, b   *tree
	ab, ba mapping
	// whole[i-a.root] marks a node of a whose subtree mapSubtrees mapped
	// node by node onto its partner's (see bestContainer).
	whole []bool
	// counts and touched are bestContainer's tally over b's nodes (by
	// q-b.root) and the nodes it touched, zeroed again after each use.
	counts  []int32
	seen    []uint32 // seen[q-b.root] == gen: q is in touched
	gen     uint32
	touched []int
	// first, next and used are matchLevel's index of one level's b side.
	first map[uint64]int32
	next  []int32
	used  []bool
}

// gumtree maps nodes of a's subtree at ra to nodes of b's subtree at rb.
func gumtree(a *code.File, ra int, b *code.File, rb int, minHeight int) mapping {
	return gumtreeTrees(newTree(a, ra), newTree(b, rb), minHeight)
}

// gumtreeTrees is gumtree on trees already built (a sample's fixed
// function is matched against every state of its walk).
func gumtreeTrees(ta, tb *tree, minHeight int) mapping {
	m := &matcher{a: ta, b: tb, ab: newMapping(ta), ba: newMapping(tb), whole: make([]bool, ta.size(ta.root))}
	m.topDown(minHeight)
	m.bottomUp()
	if !m.ab.mapped(ta.root) && !m.ba.mapped(tb.root) {
		m.link(ta.root, tb.root)
	}
	return m.ab
}

// link maps x to y unless either is already mapped.
func (m *matcher) link(x, y int) {
	if m.ab.mapped(x) || m.ba.mapped(y) {
		return
	}
	m.ab.set(x, y)
	m.ba.set(y, x)
}

// mapSubtrees maps two isomorphic subtrees node by node (isomorphic
// subtrees have the same pre-order shape).
func (m *matcher) mapSubtrees(x, y int) {
	whole := true
	for k := 0; k < m.a.size(x); k++ {
		m.link(x+k, y+k)
		if p, _ := m.ab.get(x + k); p != y+k {
			whole = false // a node was mapped elsewhere before
		}
	}
	m.whole[x-m.a.root] = whole
}

// heightList is a priority list of subtree roots by height: one bucket
// per height, each in the order its roots were added (the order a single
// list filtered by height gives, without scanning every root at each
// step: a 30 KB Jsoup state-machine method has thousands).
type heightList struct {
	t        *tree
	byHeight [][]int
	top      int // no bucket above is non-empty
}

func newHeightList(t *tree) *heightList {
	l := &heightList{t: t, byHeight: make([][]int, t.heightOf(t.root)+1)}
	l.push(t.root)
	return l
}

func (l *heightList) push(i int) {
	h := l.t.heightOf(i)
	l.byHeight[h] = append(l.byHeight[h], i)
	l.top = max(l.top, h)
}

// peek is the greatest height in the list, 0 when it is empty.
func (l *heightList) peek() int {
	for l.top > 0 && len(l.byHeight[l.top]) == 0 {
		l.top--
	}
	return l.top
}

// pop removes and returns the roots of height h. Opening them adds only
// lower roots, so the slice stays theirs.
func (l *heightList) pop(h int) []int {
	out := l.byHeight[h]
	l.byHeight[h] = nil
	return out
}

func (l *heightList) open(i int) {
	for c := range l.t.f.Children(i) {
		l.push(c)
	}
}

// cand is an ambiguous pair of isomorphic subtrees.
type cand struct{ x, y int }

// hashCounts is how many of t's subtrees have each hash, counted once per
// tree: a fixed function is matched with every state of its walk, and a
// state with every sample that reaches it.
func hashCounts(t *tree) map[uint64]int {
	t.countsOnce.Do(func() {
		t.counts = make(map[uint64]int, len(t.hash))
		for _, h := range t.hash {
			t.counts[h]++
		}
	})
	return t.counts
}

func (m *matcher) topDown(minHeight int) {
	countA, countB := hashCounts(m.a), hashCounts(m.b)
	la, lb := newHeightList(m.a), newHeightList(m.b)
	var cands []cand
	for {
		ha, hb := la.peek(), lb.peek()
		if min(ha, hb) < minHeight || ha == 0 || hb == 0 {
			break
		}
		if ha != hb {
			l, h := la, ha
			if hb > ha {
				l, h = lb, hb
			}
			for _, i := range l.pop(h) {
				l.open(i)
			}
			continue
		}
		xs, ys := la.pop(ha), lb.pop(hb)
		cands = m.matchLevel(la, lb, xs, ys, ha, countA, countB, cands)
	}
	m.mapCandidates(cands)
}

// matchLevel pairs the isomorphic subtrees of one height: unique ones are
// mapped, ambiguous ones appended to cands (in x, then y order); the
// unpaired are opened into their children.
func (m *matcher) matchLevel(la, lb *heightList, xs, ys []int, h int, countA, countB map[uint64]int, cands []cand) []cand {
	first, next, used := m.indexLevel(ys)
	for _, x := range xs {
		hx := m.a.hashOf(x)
		k, ok := first[hx]
		if !ok {
			la.open(x)
		}
		for ; ok && k >= 0; k = next[k] {
			y := ys[k]
			used[k] = true
			switch {
			case countA[hx] == 1 && countB[hx] == 1:
				m.mapSubtrees(x, y)
			case h > 1:
				// Ambiguous leaves (";", "x") are left to the
				// children recovery of the bottom-up phase.
				cands = append(cands, cand{x, y})
			}
		}
	}
	for k, y := range ys {
		if !used[k] {
			lb.open(y)
		}
	}
	return cands
}

// indexLevel indexes ys by hash for matchLevel: first[h] is the first
// position in ys with hash h, next[k] the next position after k with the
// same hash (-1 for none), used a cleared flag per position. The tables
// are the matcher's, reused level after level.
func (m *matcher) indexLevel(ys []int) (first map[uint64]int32, next []int32, used []bool) {
	if m.first == nil {
		m.first = map[uint64]int32{}
	}
	clear(m.first)
	m.next, m.used = slices.Grow(m.next[:0], len(ys))[:len(ys)], slices.Grow(m.used[:0], len(ys))[:len(ys)]
	clear(m.used)
	for k := len(ys) - 1; k >= 0; k-- {
		hy := m.b.hashOf(ys[k])
		if f, ok := m.first[hy]; ok {
			m.next[k] = f
		} else {
			m.next[k] = -1
		}
		m.first[hy] = int32(k)
	}
	return m.first, m.next, m.used
}

// Ambiguous candidates: best parent dice first, then source order.
func (m *matcher) mapCandidates(cands []cand) {
	type scored struct {
		cand
		d float64
	}
	ss := make([]scored, len(cands))
	for i, c := range cands {
		ss[i] = scored{c, m.dice(m.a.nodes[c.x].Parent(), m.b.nodes[c.y].Parent())}
	}
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].d > ss[j].d })
	for _, s := range ss {
		if !m.ab.mapped(s.x) && !m.ba.mapped(s.y) {
			m.mapSubtrees(s.x, s.y)
		}
	}
}

// dice is 2·|mapped descendants of x whose partner descends from y| /
// (|desc(x)| + |desc(y)|).
func (m *matcher) dice(x, y int) float64 {
	if !m.a.contains(x) || !m.b.contains(y) {
		return 0
	}
	dx, dy := m.a.size(x)-1, m.b.size(y)-1
	if dx+dy == 0 {
		return 0
	}
	common := 0
	for k := x + 1; k < m.a.nodes[x].End(); k++ {
		if p, ok := m.ab.get(k); ok && p > y && p < m.b.nodes[y].End() {
			common++
		}
	}
	return 2 * float64(common) / float64(dx+dy)
}

func (m *matcher) bottomUp() {
	for x := m.a.nodes[m.a.root].End() - 1; x >= m.a.root; x-- {
		if m.ab.mapped(x) || m.a.nodes[x].End() == x+1 {
			continue
		}
		if best := m.bestContainer(x); best >= 0 {
			m.link(x, best)
			m.recoverChildren(x, best)
		}
	}
	m.recoverChildren(m.a.root, m.b.root)
}

// bestContainer is the unmapped node of x's kind in b that holds most of
// the partners of x's mapped descendants, when their dice is at least 0.5
// (ties to the earliest), or -1.
//
// A descendant whose whole subtree is mapped onto its partner's counts
// once with its size: every node of that subtree has its partner inside
// the partner's subtree, which is all mapped, so each adds one to the same
// ancestors above it (the counts are those of walking every node up).
func (m *matcher) bestContainer(x int) int {
	nb := m.b.size(m.b.root)
	if m.counts == nil {
		m.counts, m.seen = make([]int32, nb), make([]uint32, nb)
	}
	m.gen++
	xn := m.a.nodes[x]
	touched := m.touched[:0]
	// A container q qualifies only when 2c/(dx+|desc(q)|) ≥ 0.5 with c ≤
	// dx, so |q| ≤ 3dx+1: the climb stops at the first larger ancestor
	// (every one above is larger still).
	limit := 3*(m.a.size(x)-1) + 1
	for k := x + 1; k < m.a.nodes[x].End(); k++ {
		p, ok := m.ab.get(k)
		if !ok {
			continue
		}
		n := int32(1)
		if m.whole[k-m.a.root] {
			n = int32(m.a.size(k))
			k = m.a.nodes[k].End() - 1
		}
		q := m.b.nodes[p].Parent()
		if q < m.b.root || m.b.size(q) > limit {
			continue
		}
		m.counts[q-m.b.root] += n
		// Each partner adds its count to its parent only; the ancestors are
		// listed once (the climb stops at one already listed) and summed
		// children first below, which gives every ancestor the counts of
		// walking each partner up.
		for ; q >= m.b.root && m.b.size(q) <= limit && m.seen[q-m.b.root] != m.gen; q = m.b.nodes[q].Parent() {
			m.seen[q-m.b.root] = m.gen
			touched = append(touched, q)
		}
	}
	slices.Sort(touched) // a parent comes before its children
	best, bestD := -1, 0.5
	dx := m.a.size(x) - 1
	for i := len(touched) - 1; i >= 0; i-- {
		q := touched[i]
		c := m.counts[q-m.b.root]
		m.counts[q-m.b.root] = 0
		if up := m.b.nodes[q].Parent(); up >= m.b.root && m.seen[up-m.b.root] == m.gen {
			m.counts[up-m.b.root] += c
		}
		if c == 0 || m.ba.mapped(q) || !m.b.nodes[q].SameKind(xn) {
			continue
		}
		d := 2 * float64(c) / float64(dx+m.b.size(q)-1)
		if d > bestD || d == bestD && (best < 0 || q < best) {
			best, bestD = q, d
		}
	}
	m.touched = touched
	return best
}

// recoverChildren maps, in order, the unmapped children of x and y that are
// isomorphic (a light stand-in for GumTree's recovery phase), so the tokens
// of an edited statement stay aligned.
func (m *matcher) recoverChildren(x, y int) {
	var ys []int
	for c := range m.b.f.Children(y) {
		if !m.ba.mapped(c) {
			ys = append(ys, c)
		}
	}
	j := 0
	for c := range m.a.f.Children(x) {
		if m.ab.mapped(c) {
			continue
		}
		for k := j; k < len(ys); k++ {
			if m.a.hashOf(c) == m.b.hashOf(ys[k]) {
				m.mapSubtrees(c, ys[k])
				j = k + 1
				break
			}
		}
	}
}
