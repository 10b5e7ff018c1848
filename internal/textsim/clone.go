package textsim

import (
	"slices"
	"strings"
)

// CloneOptions tune CloneGroups.
type CloneOptions struct {
	// MinTokens drops blocks shorter than this (NiCad's default minimum is
	// 10 lines; in tokens, 50 is comparable). 0 means 50.
	MinTokens int
	// Similarity is the n-gram Jaccard at or above which two blocks are
	// near-miss (type-3) clones. 0 means exact rename-blind (type-2)
	// clones only.
	Similarity float64
	// N is the shingle size for near-miss detection; 0 means 5.
	N int
}

// CloneGroups groups code blocks that are clones of each other. Blocks are
// given as rename-blind token sequences (identifiers and literals already
// abstracted, as internal/code's RenameBlind produces), so identical
// sequences are type-2 clones; with opts.Similarity > 0, blocks whose
// token n-gram Jaccard reaches it are joined too (type-3). Groups of two or
// more blocks are returned, each sorted, largest group first.
func CloneGroups(blocks [][]string, opts CloneOptions) [][]int {
	if opts.MinTokens == 0 {
		opts.MinTokens = 50
	}
	if opts.N == 0 {
		opts.N = 5
	}
	uf := newUnionFind(len(blocks))
	eligible := joinExactClones(blocks, opts.MinTokens, uf)
	if opts.Similarity > 0 {
		docs := make([][]string, len(eligible))
		for k, i := range eligible {
			docs[k] = blocks[i]
		}
		for _, p := range NearDuplicates(docs, opts.N, opts.Similarity) {
			uf.union(eligible[p.I], eligible[p.J])
		}
	}
	return cloneGroups(eligible, uf)
}

// joinExactClones joins the blocks of at least minTokens tokens that are
// identical and returns those blocks' indexes.
func joinExactClones(blocks [][]string, minTokens int, uf unionFind) (eligible []int) {
	first := map[string]int{}
	for i, b := range blocks {
		if len(b) < minTokens {
			continue
		}
		eligible = append(eligible, i)
		key := strings.Join(b, "\x00")
		if j, ok := first[key]; ok {
			uf.union(j, i)
		} else {
			first[key] = i
		}
	}
	return eligible
}

// cloneGroups collects the eligible blocks by set and returns the sets of
// two or more, each sorted, largest first (ties: by first block).
func cloneGroups(eligible []int, uf unionFind) [][]int {
	byRoot := map[int][]int{}
	for _, i := range eligible {
		r := uf.find(i)
		byRoot[r] = append(byRoot[r], i)
	}
	var groups [][]int
	for _, g := range byRoot {
		if len(g) > 1 {
			slices.Sort(g)
			groups = append(groups, g)
		}
	}
	slices.SortFunc(groups, func(a, b []int) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return a[0] - b[0]
	})
	return groups
}

// unionFind is a disjoint-set forest whose roots are their sets' least
// elements.
type unionFind []int

func newUnionFind(n int) unionFind {
	parent := make(unionFind, n)
	for i := range parent {
		parent[i] = i
	}
	return parent
}

func (parent unionFind) find(x int) int {
	for parent[x] != x {
		parent[x] = parent[parent[x]]
		x = parent[x]
	}
	return x
}

func (parent unionFind) union(a, b int) {
	ra, rb := parent.find(a), parent.find(b)
	if ra != rb {
		if ra > rb {
			ra, rb = rb, ra
		}
		parent[rb] = ra
	}
}
