package patchcheck

import (
	"hash/fnv"
	"sort"

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

// tree is one side of a match: a subtree of a parsed file.
type tree struct {
	f      *code.File
	nodes  []code.Node
	root   int
	height map[int]int
	hash   map[int]uint64
}

func newTree(f *code.File, root int) *tree {
	t := &tree{f: f, nodes: f.Nodes(), root: root, height: map[int]int{}, hash: map[int]uint64{}}
	end := t.nodes[root].End
	for i := end - 1; i >= root; i-- {
		h := fnv.New64a()
		h.Write([]byte(t.nodes[i].Kind))
		ht := 1
		if t.nodes[i].End == i+1 {
			h.Write([]byte{0})
			h.Write([]byte(f.Text(i)))
		} else {
			for c := range f.Children(i) {
				var b [8]byte
				v := t.hash[c]
				for k := range b {
					b[k] = byte(v >> (8 * k))
				}
				h.Write(b[:])
				if t.height[c]+1 > ht {
					ht = t.height[c] + 1
				}
			}
		}
		t.hash[i], t.height[i] = h.Sum64(), ht
	}
	return t
}

func (t *tree) size(i int) int { return t.nodes[i].End - i }

// matcher holds the mapping under construction.
type matcher struct {
	a, b     *tree
	ab, ba   map[int]int
	minDepth int
}

// gumtree maps nodes of a's subtree at ra to nodes of b's subtree at rb.
func gumtree(a *code.File, ra int, b *code.File, rb int, minHeight int) map[int]int {
	m := &matcher{a: newTree(a, ra), b: newTree(b, rb), ab: map[int]int{}, ba: map[int]int{}}
	m.topDown(minHeight)
	m.bottomUp()
	if _, ok := m.ab[ra]; !ok {
		if _, ok := m.ba[rb]; !ok {
			m.link(ra, rb)
		}
	}
	return m.ab
}

// link maps x to y unless either is already mapped.
func (m *matcher) link(x, y int) {
	if _, ok := m.ab[x]; ok {
		return
	}
	if _, ok := m.ba[y]; ok {
		return
	}
	m.ab[x], m.ba[y] = y, x
}

// mapSubtrees maps two isomorphic subtrees node by node (isomorphic
// subtrees have the same pre-order shape).
func (m *matcher) mapSubtrees(x, y int) {
	for k := 0; k < m.a.size(x); k++ {
		m.link(x+k, y+k)
	}
}

// heightList is a priority list of subtree roots by height.
type heightList struct {
	t     *tree
	items []int
}

func (l *heightList) peek() int {
	best := 0
	for _, i := range l.items {
		if h := l.t.height[i]; h > best {
			best = h
		}
	}
	return best
}

func (l *heightList) pop(h int) []int {
	var out, keep []int
	for _, i := range l.items {
		if l.t.height[i] == h {
			out = append(out, i)
		} else {
			keep = append(keep, i)
		}
	}
	l.items = keep
	return out
}

func (l *heightList) open(i int) {
	for c := range l.t.f.Children(i) {
		l.items = append(l.items, c)
	}
}

func (m *matcher) topDown(minHeight int) {
	countA, countB := map[uint64]int{}, map[uint64]int{}
	for i := range m.a.hash {
		countA[m.a.hash[i]]++
	}
	for i := range m.b.hash {
		countB[m.b.hash[i]]++
	}
	la := &heightList{t: m.a, items: []int{m.a.root}}
	lb := &heightList{t: m.b, items: []int{m.b.root}}
	type cand struct{ x, y int }
	var cands []cand
	for {
		ha, hb := la.peek(), lb.peek()
		if min(ha, hb) < minHeight || ha == 0 || hb == 0 {
			break
		}
		if ha != hb {
			if ha > hb {
				for _, i := range la.pop(ha) {
					la.open(i)
				}
			} else {
				for _, i := range lb.pop(hb) {
					lb.open(i)
				}
			}
			continue
		}
		xs, ys := la.pop(ha), lb.pop(hb)
		usedA, usedB := map[int]bool{}, map[int]bool{}
		for _, x := range xs {
			for _, y := range ys {
				hx := m.a.hash[x]
				if hx != m.b.hash[y] {
					continue
				}
				usedA[x], usedB[y] = true, true
				switch {
				case countA[hx] == 1 && countB[hx] == 1:
					m.mapSubtrees(x, y)
				case ha > 1:
					// Ambiguous leaves (";", "x") are left to the
					// children recovery of the bottom-up phase.
					cands = append(cands, cand{x, y})
				}
			}
		}
		for _, x := range xs {
			if !usedA[x] {
				la.open(x)
			}
		}
		for _, y := range ys {
			if !usedB[y] {
				lb.open(y)
			}
		}
	}
	// Ambiguous candidates: best parent dice first, then source order.
	type scored struct {
		cand
		d float64
	}
	ss := make([]scored, len(cands))
	for i, c := range cands {
		ss[i] = scored{c, m.dice(m.a.nodes[c.x].Parent, m.b.nodes[c.y].Parent)}
	}
	sort.SliceStable(ss, func(i, j int) bool { return ss[i].d > ss[j].d })
	for _, s := range ss {
		if _, ok := m.ab[s.x]; ok {
			continue
		}
		if _, ok := m.ba[s.y]; ok {
			continue
		}
		m.mapSubtrees(s.x, s.y)
	}
}

// dice is 2·|mapped descendants of x whose partner descends from y| /
// (|desc(x)| + |desc(y)|).
func (m *matcher) dice(x, y int) float64 {
	if x < m.a.root || y < m.b.root || x >= m.a.nodes[m.a.root].End || y >= m.b.nodes[m.b.root].End {
		return 0
	}
	dx, dy := m.a.size(x)-1, m.b.size(y)-1
	if dx+dy == 0 {
		return 0
	}
	common := 0
	for k := x + 1; k < m.a.nodes[x].End; k++ {
		if p, ok := m.ab[k]; ok && p > y && p < m.b.nodes[y].End {
			common++
		}
	}
	return 2 * float64(common) / float64(dx+dy)
}

func (m *matcher) bottomUp() {
	for x := m.a.nodes[m.a.root].End - 1; x >= m.a.root; x-- {
		if _, ok := m.ab[x]; ok || m.a.nodes[x].End == x+1 {
			continue
		}
		// Partners' ancestors of the same kind, with how many of x's
		// mapped descendants each contains.
		counts := map[int]int{}
		for k := x + 1; k < m.a.nodes[x].End; k++ {
			p, ok := m.ab[k]
			if !ok {
				continue
			}
			for q := m.b.nodes[p].Parent; q >= m.b.root; q = m.b.nodes[q].Parent {
				if _, used := m.ba[q]; !used && m.b.nodes[q].Kind == m.a.nodes[x].Kind {
					counts[q]++
				}
			}
		}
		best, bestD := -1, 0.5
		dx := m.a.size(x) - 1
		for q, c := range counts {
			d := 2 * float64(c) / float64(dx+m.b.size(q)-1)
			if d > bestD || d == bestD && best >= 0 && q < best || d == bestD && best < 0 {
				best, bestD = q, d
			}
		}
		if best >= 0 {
			m.link(x, best)
			m.recoverChildren(x, best)
		}
	}
	m.recoverChildren(m.a.root, m.b.root)
}

// recoverChildren maps, in order, the unmapped children of x and y that are
// isomorphic (a light stand-in for GumTree's recovery phase), so the tokens
// of an edited statement stay aligned.
func (m *matcher) recoverChildren(x, y int) {
	var ys []int
	for c := range m.b.f.Children(y) {
		if _, ok := m.ba[c]; !ok {
			ys = append(ys, c)
		}
	}
	j := 0
	for c := range m.a.f.Children(x) {
		if _, ok := m.ab[c]; ok {
			continue
		}
		for k := j; k < len(ys); k++ {
			if m.a.hash[c] == m.b.hash[ys[k]] {
				m.mapSubtrees(c, ys[k])
				j = k + 1
				break
			}
		}
	}
}
