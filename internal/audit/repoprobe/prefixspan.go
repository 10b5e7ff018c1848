package repoprobe

import (
	"context"
	"slices"
	"strings"
)

// SeqPattern is a frequent sequential pattern: a sequence of itemsets
// (for word sequences every itemset has one item), the number of database
// sequences containing it, and which ones (sorted indexes).
type SeqPattern struct {
	Items   [][]string
	Support int
	Seqs    []int
}

// Len is the number of items of the pattern (its length in PrefixSpan's
// sense).
func (p SeqPattern) Len() int {
	n := 0
	for _, is := range p.Items {
		n += len(is)
	}
	return n
}

// Words flattens a pattern of single-item itemsets.
func (p SeqPattern) Words() []string {
	var out []string
	for _, is := range p.Items {
		out = append(out, is...)
	}
	return out
}

// PrefixSpan mines every sequential pattern of at most maxLen items (0: no
// limit) contained in at least minSup sequences of db, where each sequence
// is a list of itemsets (Pei et al., ICDE 2001: prefix-projected pattern
// growth with pseudo-projection). Items inside an itemset may come in any
// order and repeat; they are treated as a set. Patterns come in
// depth-first prefix order. Mining stops early, returning what it has,
// when ctx is done or maxPatterns (>0) patterns were found.
func PrefixSpan(ctx context.Context, db [][][]string, minSup, maxLen, maxPatterns int) []SeqPattern {
	if minSup < 1 {
		minSup = 1
	}
	vocab, idb := encodeItems(db)
	m := &miner{ctx: ctx, db: idb, vocab: vocab, minSup: minSup, maxLen: maxLen, maxPatterns: maxPatterns}
	root := make([]proj, 0, len(idb))
	for si := range idb {
		root = append(root, proj{s: si, e: -1, i: -1})
	}
	m.grow(nil, 0, root)
	return m.out
}

// encodeItems maps items to ints ordered like the strings, so sorted
// itemsets compare as the strings do, and rewrites the database as sorted
// sets of ints (empty itemsets dropped).
func encodeItems(db [][][]string) ([]string, [][][]int) {
	var vocab []string
	seen := map[string]bool{}
	for _, s := range db {
		for _, is := range s {
			for _, it := range is {
				if !seen[it] {
					seen[it] = true
					vocab = append(vocab, it)
				}
			}
		}
	}
	slices.Sort(vocab)
	id := make(map[string]int, len(vocab))
	for i, w := range vocab {
		id[w] = i
	}
	idb := make([][][]int, len(db))
	for si, s := range db {
		for _, is := range s {
			var set []int
			for _, it := range is {
				set = append(set, id[it])
			}
			slices.Sort(set)
			set = slices.Compact(set)
			if len(set) > 0 {
				idb[si] = append(idb[si], set)
			}
		}
	}
	return vocab, idb
}

// proj is a pseudo-projection: the prefix's earliest embedding in sequence
// s ends at item i of element e (e = -1: nothing matched yet).
type proj struct{ s, e, i int }

type miner struct {
	ctx         context.Context
	db          [][][]int
	vocab       []string
	minSup      int
	maxLen      int
	maxPatterns int
	out         []SeqPattern
	stopped     bool
}

func (m *miner) done() bool {
	if m.stopped {
		return true
	}
	if (m.maxPatterns > 0 && len(m.out) >= m.maxPatterns) || m.ctx.Err() != nil {
		m.stopped = true
	}
	return m.stopped
}

// grow extends prefix (of n items) whose projected database is pdb.
func (m *miner) grow(prefix [][]int, n int, pdb []proj) {
	if m.done() || (m.maxLen > 0 && n >= m.maxLen) {
		return
	}
	var last []int
	if len(prefix) > 0 {
		last = prefix[len(prefix)-1]
	}
	sCount, iCount := m.extensions(pdb, last)
	// I-extensions first, then S-extensions, each by item order: the
	// depth-first order of the PrefixSpan paper's tables.
	for _, x := range sortedFrequent(iCount, m.minSup) {
		if m.done() {
			return
		}
		next := slices.Clone(prefix)
		next[len(next)-1] = append(slices.Clone(last), x)
		m.emitAndGrow(next, n+1, m.projectI(pdb, last, x))
	}
	for _, x := range sortedFrequent(sCount, m.minSup) {
		if m.done() {
			return
		}
		next := append(slices.Clone(prefix), []int{x})
		m.emitAndGrow(next, n+1, m.projectS(pdb, x))
	}
}

// extensions counts, once per sequence of the projected database, the
// items that extend the prefix (whose last element is last) as a new
// element (S-extension) or into its last element (I-extension).
func (m *miner) extensions(pdb []proj, last []int) (sCount, iCount map[int]int) {
	sCount, iCount = map[int]int{}, map[int]int{}
	sMark, iMark := map[int]int{}, map[int]int{}
	// once counts x for sequence s unless it was counted already.
	once := func(count, mark map[int]int, x, s int) {
		if mark[x] != s+1 {
			mark[x] = s + 1
			count[x]++
		}
	}
	for _, p := range pdb {
		seq := m.db[p.s]
		if p.e >= 0 {
			for _, x := range seq[p.e][p.i+1:] {
				once(iCount, iMark, x, p.s)
			}
		}
		for k := p.e + 1; k < len(seq); k++ {
			for _, x := range seq[k] {
				once(sCount, sMark, x, p.s)
			}
			if last == nil || !containsAll(seq[k], last) {
				continue
			}
			for _, x := range seq[k] {
				if x > last[len(last)-1] {
					once(iCount, iMark, x, p.s)
				}
			}
		}
	}
	return sCount, iCount
}

func (m *miner) emitAndGrow(pat [][]int, n int, pdb []proj) {
	sp := SeqPattern{Support: len(pdb)}
	for _, is := range pat {
		words := make([]string, len(is))
		for i, x := range is {
			words[i] = m.vocab[x]
		}
		sp.Items = append(sp.Items, words)
	}
	sp.Seqs = make([]int, len(pdb))
	for i, p := range pdb {
		sp.Seqs[i] = p.s
	}
	m.out = append(m.out, sp)
	m.grow(pat, n, pdb)
}

func (m *miner) projectS(pdb []proj, x int) []proj {
	var out []proj
	for _, p := range pdb {
		seq := m.db[p.s]
		for k := p.e + 1; k < len(seq); k++ {
			if j, ok := slices.BinarySearch(seq[k], x); ok {
				out = append(out, proj{s: p.s, e: k, i: j})
				break
			}
		}
	}
	return out
}

func (m *miner) projectI(pdb []proj, last []int, x int) []proj {
	var out []proj
	for _, p := range pdb {
		seq := m.db[p.s]
		if j, ok := slices.BinarySearch(seq[p.e][p.i+1:], x); ok {
			out = append(out, proj{s: p.s, e: p.e, i: p.i + 1 + j})
			continue
		}
		for k := p.e + 1; k < len(seq); k++ {
			if j, ok := slices.BinarySearch(seq[k], x); ok && containsAll(seq[k], last) {
				out = append(out, proj{s: p.s, e: k, i: j})
				break
			}
		}
	}
	return out
}

func containsAll(set, sub []int) bool {
	for _, x := range sub {
		if _, ok := slices.BinarySearch(set, x); !ok {
			return false
		}
	}
	return true
}

func sortedFrequent(count map[int]int, minSup int) []int {
	var xs []int
	for x, c := range count {
		if c >= minSup {
			xs = append(xs, x)
		}
	}
	slices.Sort(xs)
	return xs
}

// MergeClosed refines word co-occurrence patterns per benchchecker
// Algorithm 2: a pattern that is a subsequence of another pattern with the
// same support adds nothing and is merged into it (only closed patterns
// remain). It suffices to look one item up: if A ⊂ C with equal support,
// every B with A ⊂ B ⊆ C, |B| = |A|+1, has that support too. The input
// order is kept.
func MergeClosed(pats []SeqPattern) []SeqPattern {
	key := func(items [][]string) string {
		parts := make([]string, len(items))
		for i, is := range items {
			parts[i] = strings.Join(is, "\x01")
		}
		return strings.Join(parts, "\x00")
	}
	support := make(map[string]int, len(pats))
	for _, p := range pats {
		support[key(p.Items)] = p.Support
	}
	absorbed := map[string]bool{}
	for _, p := range pats {
		// Every one-item deletion of p.
		for e, is := range p.Items {
			for i := range is {
				k := key(deleteItem(p.Items, e, i))
				if s, ok := support[k]; ok && s == p.Support {
					absorbed[k] = true
				}
			}
		}
	}
	var out []SeqPattern
	for _, p := range pats {
		if !absorbed[key(p.Items)] {
			out = append(out, p)
		}
	}
	return out
}

// deleteItem is items without item i of element e (the element dropped
// when that leaves it empty); items is not modified.
func deleteItem(items [][]string, e, i int) [][]string {
	var sub [][]string
	for e2, is2 := range items {
		if e2 != e {
			sub = append(sub, is2)
			continue
		}
		rest := append(slices.Clone(is2[:i]), is2[i+1:]...)
		if len(rest) > 0 {
			sub = append(sub, rest)
		}
	}
	return sub
}
