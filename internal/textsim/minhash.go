package textsim

import (
	"math"
	"slices"
)

// MinHasher computes MinHash signatures of shingle sets. The probability
// that two signatures agree at a position equals the sets' Jaccard
// similarity, which makes LSH banding possible.
type MinHasher struct {
	seeds []uint64
}

// NewMinHasher returns a hasher with k hash functions derived from seed.
func NewMinHasher(k int, seed uint64) *MinHasher {
	m := &MinHasher{seeds: make([]uint64, k)}
	s := seed
	for i := range m.seeds {
		s = mix(s + 0x9e3779b97f4a7c15)
		m.seeds[i] = s
	}
	return m
}

// Signature returns the MinHash signature of a shingle set. An empty set
// gets a signature of all MaxUint64.
func (m *MinHasher) Signature(shingles []uint64) []uint64 {
	sig := make([]uint64, len(m.seeds))
	for i := range sig {
		sig[i] = math.MaxUint64
	}
	// One full mix per shingle, then per hash function a cheap bijection
	// (xor with the seed, multiply by an odd constant, xor-shift): the k
	// permutations stay distinct while the inner loop costs three ops
	// instead of mix's seven.
	for _, x := range shingles {
		hx := mix(x)
		for i, s := range m.seeds {
			h := (hx ^ s) * 0x9e3779b97f4a7c15
			h ^= h >> 29
			if h < sig[i] {
				sig[i] = h
			}
		}
	}
	return sig
}

// LSH is a banded locality-sensitive hash index over MinHash signatures:
// items whose signatures agree on all rows of any one band become
// candidates. With b bands of r rows the chance that a pair of Jaccard
// similarity s is a candidate is 1-(1-s^r)^b.
type LSH struct {
	bands, rows int
	buckets     []map[uint64][]int
}

// NewLSH returns an index for signatures of bands*rows values.
func NewLSH(bands, rows int) *LSH {
	l := &LSH{bands: bands, rows: rows, buckets: make([]map[uint64][]int, bands)}
	for i := range l.buckets {
		l.buckets[i] = map[uint64][]int{}
	}
	return l
}

// BandsFor picks bands and rows for k hash functions so that the S-curve's
// threshold (1/b)^(1/r) is just below t: candidates are generous, and an
// exact check confirms them.
func BandsFor(k int, t float64) (bands, rows int) {
	bands, rows = k, 1
	for r := 1; r <= k; r++ {
		if k%r != 0 {
			continue
		}
		b := k / r
		if math.Pow(1/float64(b), 1/float64(r)) <= t*0.85 {
			bands, rows = b, r
		}
	}
	return bands, rows
}

func (l *LSH) bandKey(sig []uint64, b int) uint64 {
	h := uint64(b) + 1
	for _, v := range sig[b*l.rows : (b+1)*l.rows] {
		h = mix(h ^ v)
	}
	return h
}

// Add indexes item id with its signature.
func (l *LSH) Add(id int, sig []uint64) {
	for b := range l.bands {
		k := l.bandKey(sig, b)
		l.buckets[b][k] = append(l.buckets[b][k], id)
	}
}

// Candidates returns the ids sharing at least one band with sig, sorted
// and without repeats.
func (l *LSH) Candidates(sig []uint64) []int {
	var out []int
	for b := range l.bands {
		out = append(out, l.buckets[b][l.bandKey(sig, b)]...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Pair is a pair of item indexes (I < J) with their similarity.
type Pair struct {
	I, J int
	Sim  float64
}

// NearDuplicates returns every pair of docs whose token n-gram Jaccard
// similarity is at least threshold, finding candidates with MinHash-LSH
// and confirming each with the exact Jaccard. Pairs come sorted by (I, J).
// LSH can miss a qualifying pair with small probability (it is tuned to
// have candidates well below threshold); AllPairs is the exact reference.
func NearDuplicates(docs [][]string, n int, threshold float64) []Pair {
	const k = 128
	sh := make([][]uint64, len(docs))
	for i, d := range docs {
		sh[i] = Shingles(d, n)
	}
	mh := NewMinHasher(k, 1)
	b, r := BandsFor(k, threshold)
	idx := NewLSH(b, r)
	var out []Pair
	for i := range docs {
		sig := mh.Signature(sh[i])
		for _, j := range idx.Candidates(sig) {
			if s := JaccardSorted(sh[i], sh[j]); s >= threshold {
				out = append(out, Pair{I: j, J: i, Sim: s})
			}
		}
		idx.Add(i, sig)
	}
	slices.SortFunc(out, func(a, b Pair) int {
		if a.I != b.I {
			return a.I - b.I
		}
		return a.J - b.J
	})
	return out
}

// AllPairs is the exact O(n²) version of NearDuplicates, kept as the
// reference the LSH version is measured against.
func AllPairs(docs [][]string, n int, threshold float64) []Pair {
	sh := make([][]uint64, len(docs))
	for i, d := range docs {
		sh[i] = Shingles(d, n)
	}
	var out []Pair
	for i := range sh {
		for j := i + 1; j < len(sh); j++ {
			if s := JaccardSorted(sh[i], sh[j]); s >= threshold {
				out = append(out, Pair{I: i, J: j, Sim: s})
			}
		}
	}
	return out
}

// Visit calls fn once for each id sharing a band with sig, in no fixed
// order, until fn returns false. seen must have room for every id added
// so far; it is a scratch mark array that Visit stamps with stamp, so no
// candidate list is built or sorted (a hot bucket shared by many items
// costs its length, not a sort).
func (l *LSH) Visit(sig []uint64, seen []uint32, stamp uint32, fn func(id int) bool) {
	for b := range l.bands {
		for _, id := range l.buckets[b][l.bandKey(sig, b)] {
			if seen[id] == stamp {
				continue
			}
			seen[id] = stamp
			if !fn(id) {
				return
			}
		}
	}
}
