package textsim

import (
	"cmp"
	"math"
	"slices"
)

// FirstPassDedup keeps, in order, each doc that has no earlier kept doc
// with token n-gram Jaccard ≥ threshold, colliding with it in the
// MinHash-LSH of NearDuplicates (128 hashes, BandsFor(128, threshold)),
// for which same(kept, doc) holds, and returns the kept indexes. The
// decision for each doc is the one a pass over every qualifying earlier
// pair of NearDuplicates gives, since only kept docs can make a doc a
// duplicate and whether a pair collides depends on the pair alone.
//
// Candidates do not come from the LSH buckets, though: at a low
// threshold (0.4 gives 64 bands of 2 rows) a band of two common
// shingles puts most docs of a corpus in one bucket, and walking it
// makes the pass quadratic. They come from an exact similarity join
// instead (AllPairs/PPJoin: Bayardo et al., WWW 2007; Xiao et al., WWW
// 2008), whose filters drop only pairs below the threshold, and each
// survivor is then checked for a band collision from the two docs' band
// keys, so exactly the pairs NearDuplicates would confirm reach same.
func FirstPassDedup(docs [][]string, n int, threshold float64, same func(kept, doc int) bool) []int {
	if !(threshold > 0) {
		// Every pair qualifies on Jaccard; no filter can prune.
		return firstPassLSH(docs, n, threshold, same)
	}
	const k = 128
	mh := NewMinHasher(k, 1)
	bands, rows := BandsFor(k, threshold)
	lsh := &LSH{bands: bands, rows: rows}
	keys := make([]uint64, len(docs)*bands) // band keys of doc i at i*bands
	sh := make([][]uint64, len(docs))
	df := map[uint64]int32{}
	for i, d := range docs {
		sh[i] = Shingles(d, n)
		sig := mh.Signature(sh[i])
		for b := range bands {
			keys[i*bands+b] = lsh.bandKey(sig, b)
		}
		for _, x := range sh[i] {
			df[x]++
		}
	}
	// Each shingle is renamed by its rank, rare shingles first (then by
	// value, so the order is total). A doc's ranks, sorted, put its
	// prefix of rare shingles first, so the posting lists it probes are
	// short; the renaming is one to one, so Jaccard is unchanged.
	distinct := make([]uint64, 0, len(df))
	for x := range df {
		distinct = append(distinct, x)
	}
	slices.SortFunc(distinct, func(a, b uint64) int {
		if c := cmp.Compare(df[a], df[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	rankOf := make(map[uint64]uint32, len(distinct))
	for r, x := range distinct {
		rankOf[x] = uint32(r)
	}
	set := make([][]uint32, len(docs))
	for i, x := range sh {
		s := make([]uint32, len(x))
		for k, v := range x {
			s[k] = rankOf[v]
		}
		slices.Sort(s)
		set[i] = s
	}
	sh, df, rankOf = nil, nil, nil

	type posting struct{ doc, pos int32 }
	index := make([][]posting, len(distinct))
	need := make([]int, len(docs)) // least overlap for Jaccard ≥ threshold
	seen := make([]int32, len(docs))
	var empty []int // kept docs without shingles: Jaccard 1 with each other
	var kept []int
	for i, x := range set {
		ki := keys[i*bands : (i+1)*bands]
		collides := func(j int) bool {
			for b, v := range keys[j*bands : (j+1)*bands] {
				if ki[b] == v {
					return true
				}
			}
			return false
		}
		dup := false
		if len(x) == 0 {
			for _, j := range empty {
				if collides(j) && same(j, i) {
					dup = true
					break
				}
			}
			if !dup {
				empty = append(empty, i)
				kept = append(kept, i)
			}
			continue
		}
		need[i] = minOverlap(len(x), threshold)
		prefix := x[:len(x)-need[i]+1]
		stamp := int32(i + 1)
	probe:
		for px, tok := range prefix {
			for _, p := range index[tok] {
				j := int(p.doc)
				if seen[j] == stamp {
					continue
				}
				// The first shared shingle in rank order is where the
				// pair is first met (x's prefix is walked in order and
				// each posting list holds a prefix), so the overlap is
				// at most this one and what follows it in both docs.
				seen[j] = stamp
				y := set[j]
				lo, hi := min(len(x), len(y)), max(len(x), len(y))
				if float64(lo)/float64(hi) < threshold {
					continue // size filter: |x∩y|/|x∪y| ≤ lo/hi
				}
				if 1+min(len(x)-px-1, len(y)-int(p.pos)-1) < max(need[i], need[j]) {
					continue // positional filter
				}
				if collides(j) && jaccardRanks(y, x) >= threshold && same(j, i) {
					dup = true
					break probe
				}
			}
		}
		if dup {
			continue
		}
		kept = append(kept, i)
		for px, tok := range prefix {
			index[tok] = append(index[tok], posting{int32(i), int32(px)})
		}
	}
	return kept
}

// jaccardRanks is JaccardSorted of two sorted rank sets, computed the
// same way, so it gives the same value as on the shingles they rename.
func jaccardRanks(a, b []uint32) float64 {
	inter := IntersectSorted(a, b)
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// minOverlap is the least intersection a set of size n can have with a
// set of Jaccard similarity ≥ t as JaccardSorted computes it: the least
// o with float64(o)/float64(n) ≥ t, since o/n bounds o/|union| from
// above in floating point too (division rounds monotonically).
func minOverlap(n int, t float64) int {
	o := max(1, int(math.Floor(t*float64(n))))
	for o > 1 && float64(o-1)/float64(n) >= t {
		o--
	}
	for o < n && float64(o)/float64(n) < t {
		o++
	}
	return o
}

// firstPassLSH is FirstPassDedup walking the LSH buckets for candidates:
// the direct way, kept for thresholds where no filter can prune.
func firstPassLSH(docs [][]string, n int, threshold float64, same func(kept, doc int) bool) []int {
	const k = 128
	mh := NewMinHasher(k, 1)
	b, r := BandsFor(k, threshold)
	idx := NewLSH(b, r)
	sh := make([][]uint64, len(docs))
	seen := make([]uint32, len(docs))
	var kept []int
	for i, d := range docs {
		sh[i] = Shingles(d, n)
		sig := mh.Signature(sh[i])
		dup := false
		idx.Visit(sig, seen, uint32(i+1), func(j int) bool {
			dup = JaccardSorted(sh[j], sh[i]) >= threshold && same(j, i)
			return !dup
		})
		if !dup {
			kept = append(kept, i)
			idx.Add(i, sig)
		}
	}
	return kept
}
