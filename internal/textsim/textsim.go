// Package textsim owns benchforge's text and token similarity measures:
// token-set and token n-gram Jaccard, MinHash signatures with LSH banding
// for near-duplicate search, SimHash with Hamming-distance clustering,
// SequenceMatcher-style templates, and rename-blind clone grouping.
//
// Callers tokenise (internal/code does it for Java and Python); this package
// works on token sequences and strings and knows no language.
//
// Where each is used:
//   - n-gram Jaccard and MinHash-LSH: the generation gates' novelty and
//     near-duplicate checks and the distance-from-seeds analysis
//     (rxsynth §4.4, §6.5: token 5-grams);
//   - SimHash clustering: the text-duplication patterns of Stage I
//     (benchchecker §4.1, Algorithm 1);
//   - templates: Stage I template extraction with a SequenceMatcher
//     (benchchecker §4.1) and syntactic query deduplication;
//   - clone groups: Stage I code-block clones (the paper uses NiCad; we
//     group rename-blind normalised blocks, i.e. NiCad's blind-renamed
//     type-2 clones, and type-3 near-miss clones by n-gram Jaccard).
package textsim

import (
	"cmp"
	"hash/fnv"
	"slices"
)

// hashString is FNV-1a 64, stable across runs and platforms, so stored
// signatures stay comparable.
func hashString(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// mix is SplitMix64's finaliser: a cheap, well-distributed 64-bit mixer.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Shingles returns the sorted, de-duplicated hashes of the contiguous
// n-grams of tokens. A sequence shorter than n yields one shingle of the
// whole sequence, so short methods still compare; an empty one yields none.
func Shingles(tokens []string, n int) []uint64 {
	if n < 1 {
		n = 1
	}
	if len(tokens) == 0 {
		return nil
	}
	th := make([]uint64, len(tokens))
	for i, t := range tokens {
		th[i] = hashString(t)
	}
	if len(th) < n {
		n = len(th)
	}
	out := make([]uint64, 0, len(th)-n+1)
	for i := 0; i+n <= len(th); i++ {
		var h uint64 = uint64(n)
		for _, x := range th[i : i+n] {
			h = mix(h ^ x)
		}
		out = append(out, h)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// JaccardSorted is |a∩b| / |a∪b| of two sorted, de-duplicated sets. Two
// empty sets are identical (1).
func JaccardSorted(a, b []uint64) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter := IntersectSorted(a, b)
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// IntersectSorted is the size of the intersection of two sorted lists
// (as multisets: a value twice in both counts twice).
func IntersectSorted[T cmp.Ordered](a, b []T) int {
	i, j, n := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			n++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return n
}

// NGramJaccard is the Jaccard similarity of the token n-gram sets of a and b.
func NGramJaccard(a, b []string, n int) float64 {
	return JaccardSorted(Shingles(a, n), Shingles(b, n))
}

// TokenSetJaccard is the Jaccard similarity of the token vocabularies of a
// and b (unordered, occurrences ignored).
func TokenSetJaccard(a, b []string) float64 {
	return NGramJaccard(a, b, 1)
}
