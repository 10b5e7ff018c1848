package textsim

import (
	"math/bits"
	"strings"
	"unicode"
)

// SimHash returns the 64-bit SimHash (Charikar; Sadowski & Levin 2007) of
// text. Features follow the Python simhash library the BenchChecker paper
// used (leonsim/simhash): the text is lower-cased, reduced to its word
// characters joined together, and cut into overlapping character 4-grams,
// each weighted by its count. (That library hashes features with MD5; we
// use FNV-1a, which only changes which bits, not their distribution.)
func SimHash(text string) uint64 {
	var b strings.Builder
	for _, r := range strings.ToLower(text) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' {
			b.WriteRune(r)
		}
	}
	rs := []rune(b.String())
	const width = 4
	var feats []string
	if len(rs) <= width {
		if len(rs) > 0 {
			feats = []string{string(rs)}
		}
	} else {
		for i := 0; i+width <= len(rs); i++ {
			feats = append(feats, string(rs[i:i+width]))
		}
	}
	var v [64]int
	for _, f := range feats {
		h := hashString(f)
		for b := range 64 {
			if h&(1<<b) != 0 {
				v[b]++
			} else {
				v[b]--
			}
		}
	}
	var out uint64
	for b := range 64 {
		if v[b] > 0 {
			out |= 1 << b
		}
	}
	return out
}

// Hamming is the number of differing bits of a and b.
func Hamming(a, b uint64) int { return bits.OnesCount64(a ^ b) }

// ClusterSimHash groups texts whose SimHash is within maxDist bits of a
// cluster's key, following benchchecker Algorithm 1: texts are visited in
// order; a text joins the first existing cluster (in creation order) whose
// key hash is within maxDist, else it founds a new cluster keyed by its own
// hash. It returns clusters as lists of text indexes, in creation order.
//
// For maxDist < 8 the search uses the pigeonhole principle: two 64-bit
// hashes within maxDist bits agree exactly on at least one of maxDist+1
// blocks, so only clusters sharing a block are compared.
func ClusterSimHash(texts []string, maxDist int) [][]int {
	hashes := make([]uint64, len(texts))
	for i, t := range texts {
		hashes[i] = SimHash(t)
	}
	return ClusterHashes(hashes, maxDist)
}

// ClusterHashes is ClusterSimHash over precomputed hashes.
func ClusterHashes(hashes []uint64, maxDist int) [][]int {
	var keys []uint64
	var clusters [][]int
	blocks := maxDist + 1
	useIndex := maxDist >= 0 && maxDist < 8
	var index []map[uint64][]int // per block: block value -> cluster ids
	if useIndex {
		index = make([]map[uint64][]int, blocks)
		for i := range index {
			index[i] = map[uint64][]int{}
		}
	}
	block := func(h uint64, b int) uint64 {
		lo := 64 * b / blocks
		hi := 64 * (b + 1) / blocks
		w := uint(hi - lo)
		mask := uint64(1)<<w - 1
		if w == 64 {
			mask = ^uint64(0)
		}
		return (h >> uint(lo)) & mask
	}
	for i, h := range hashes {
		found := -1
		if useIndex {
			for b := range blocks {
				for _, c := range index[b][block(h, b)] {
					if Hamming(keys[c], h) <= maxDist && (found < 0 || c < found) {
						found = c
					}
				}
			}
		} else {
			for c, k := range keys {
				if Hamming(k, h) <= maxDist {
					found = c
					break
				}
			}
		}
		if found >= 0 {
			clusters[found] = append(clusters[found], i)
			continue
		}
		c := len(keys)
		keys = append(keys, h)
		clusters = append(clusters, []int{i})
		if useIndex {
			for b := range blocks {
				k := block(h, b)
				index[b][k] = append(index[b][k], c)
			}
		}
	}
	return clusters
}
