package textsim

import (
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
	bands, rows := BandsFor(k, threshold)
	sh, keys := shinglesAndBandKeys(docs, n, k, bands, rows)
	set, distinct := rankSets(sh)
	pj := &prefixJoin{
		set: set, keys: keys, bands: bands, threshold: threshold,
		index: make([][]posting, distinct),
		need:  make([]int, len(docs)),
		seen:  make([]int32, len(docs)),
	}
	return pj.run(same)
}

// shinglesAndBandKeys returns each doc's n-gram shingles and the LSH band
// keys of its k-hash MinHash signature (doc i's at i*bands).
func shinglesAndBandKeys(docs [][]string, n, k, bands, rows int) (sh [][]uint64, keys []uint64) {
	mh := NewMinHasher(k, 1)
	lsh := &LSH{bands: bands, rows: rows}
	keys = make([]uint64, len(docs)*bands)
	sh = make([][]uint64, len(docs))
	for i, d := range docs {
		sh[i] = Shingles(d, n)
		sig := mh.Signature(sh[i])
		for b := range bands {
			keys[i*bands+b] = lsh.bandKey(sig, b)
		}
	}
	return sh, keys
}

// rankSets renames each shingle by its rank, rare shingles first (then by
// value, so the order is total), and returns each doc's ranks sorted and
// the number of distinct shingles. A doc's sorted ranks put its prefix of
// rare shingles first, so the posting lists it probes are short; the
// renaming is one to one, so Jaccard is unchanged.
func rankSets(sh [][]uint64) (set [][]uint32, distinct int) {
	df := map[uint64]int32{}
	for _, x := range sh {
		for _, v := range x {
			df[v]++
		}
	}
	byRank := make([]dfShingle, 0, len(df))
	for x, n := range df {
		byRank = append(byRank, dfShingle{df: n, v: x})
	}
	byRank = sortByDFThenValue(byRank)
	rankOf := make(map[uint64]uint32, len(byRank))
	for r, x := range byRank {
		rankOf[x.v] = uint32(r)
	}
	set = make([][]uint32, len(sh))
	for i, x := range sh {
		s := make([]uint32, len(x))
		for k, v := range x {
			s[k] = rankOf[v]
		}
		slices.Sort(s)
		set[i] = s
	}
	return set, len(byRank)
}

// dfShingle is a shingle and the number of docs holding it.
type dfShingle struct {
	df int32
	v  uint64
}

// sortByDFThenValue orders shingles by df, then by value, in linear time:
// an LSD radix sort on the value, then a stable counting sort on df (a
// comparison sort here made the whole dedup grow as n log n).
func sortByDFThenValue(a []dfShingle) []dfShingle {
	b := make([]dfShingle, len(a))
	var count [256]int
	for shift := uint(0); shift < 64; shift += 8 {
		clear(count[:])
		for _, x := range a {
			count[byte(x.v>>shift)]++
		}
		pos := 0
		for i, c := range count {
			count[i], pos = pos, pos+c
		}
		for _, x := range a {
			k := byte(x.v >> shift)
			b[count[k]] = x
			count[k]++
		}
		a, b = b, a
	}
	maxDF := int32(0)
	for _, x := range a {
		maxDF = max(maxDF, x.df)
	}
	start := make([]int, maxDF+2)
	for _, x := range a {
		start[x.df+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	for _, x := range a {
		b[start[x.df]] = x
		start[x.df]++
	}
	return b
}

// prefixJoin is FirstPassDedup's exact similarity join: kept docs are
// indexed by their prefix of rarest shingles, and each doc probes the
// index with its own prefix.
type prefixJoin struct {
	set       [][]uint32 // each doc's sorted shingle ranks
	keys      []uint64   // band keys of doc i at i*bands
	bands     int
	threshold float64
	index     [][]posting // by rank: the kept docs whose prefix holds it
	need      []int       // least overlap for Jaccard ≥ threshold
	seen      []int32     // doc j was met while probing for doc i when seen[j] == i+1
}

type posting struct{ doc, pos int32 }

// run decides each doc in order and returns the kept ones.
func (pj *prefixJoin) run(same func(kept, doc int) bool) []int {
	var empty []int // kept docs without shingles: Jaccard 1 with each other
	var kept []int
	for i, x := range pj.set {
		if len(x) == 0 {
			if !pj.emptyDup(i, empty, same) {
				empty = append(empty, i)
				kept = append(kept, i)
			}
			continue
		}
		pj.need[i] = minOverlap(len(x), pj.threshold)
		prefix := x[:len(x)-pj.need[i]+1]
		if pj.dup(i, prefix, same) {
			continue
		}
		kept = append(kept, i)
		for px, tok := range prefix {
			pj.index[tok] = append(pj.index[tok], posting{int32(i), int32(px)})
		}
	}
	return kept
}

// collides reports whether docs i and j share an LSH band key.
func (pj *prefixJoin) collides(i, j int) bool {
	ki := pj.keys[i*pj.bands : (i+1)*pj.bands]
	for b, v := range pj.keys[j*pj.bands : (j+1)*pj.bands] {
		if ki[b] == v {
			return true
		}
	}
	return false
}

// emptyDup reports whether doc i, which has no shingles, duplicates one of
// the empty kept docs.
func (pj *prefixJoin) emptyDup(i int, empty []int, same func(kept, doc int) bool) bool {
	for _, j := range empty {
		if pj.collides(i, j) && same(j, i) {
			return true
		}
	}
	return false
}

// dup reports whether doc i, probing the index with prefix, duplicates a
// kept doc.
func (pj *prefixJoin) dup(i int, prefix []uint32, same func(kept, doc int) bool) bool {
	x, set, need, seen, threshold := pj.set[i], pj.set, pj.need, pj.seen, pj.threshold
	stamp := int32(i + 1)
	for px, tok := range prefix {
		for _, p := range pj.index[tok] {
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
			if pj.collides(i, j) && jaccardRanks(y, x) >= threshold && same(j, i) {
				return true
			}
		}
	}
	return false
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
