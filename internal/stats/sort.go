package stats

import (
	"math"
	"slices"
)

// radixMin is the length from which sortedCopy uses the radix sort; below
// it pdqsort (slices.Sort) is faster.
const radixMin = 2048

// sortedCopy returns an ascending copy of x, which must be NaN-free.
// Large inputs are sorted by an LSD radix sort on order-preserving uint64
// keys (6 passes of 11 bits), about 3–4× faster than slices.Sort at 10⁵
// values; −0 sorts before +0, which compare equal, so every consumer that
// groups equal values with == sees the same blocks.
func sortedCopy(x []float64) []float64 {
	if len(x) < radixMin {
		s := slices.Clone(x)
		slices.Sort(s)
		return s
	}
	const (
		bitsPer = 11
		buckets = 1 << bitsPer
		passes  = (64 + bitsPer - 1) / bitsPer
	)
	keys := make([]uint64, len(x))
	for i, v := range x {
		b := math.Float64bits(v)
		if b>>63 == 1 {
			b = ^b
		} else {
			b |= 1 << 63
		}
		keys[i] = b
	}
	var count [passes][buckets]int
	for _, k := range keys {
		for p := range passes {
			count[p][(k>>(p*bitsPer))&(buckets-1)]++
		}
	}
	tmp := make([]uint64, len(keys))
	src, dst := keys, tmp
	for p := range passes {
		c := &count[p]
		if c[(src[0]>>(p*bitsPer))&(buckets-1)] == len(src) {
			continue // every key has the same digit: the pass is a no-op
		}
		sum := 0
		for i := range c {
			c[i], sum = sum, sum+c[i]
		}
		for _, k := range src {
			d := (k >> (p * bitsPer)) & (buckets - 1)
			dst[c[d]] = k
			c[d]++
		}
		src, dst = dst, src
	}
	out := make([]float64, len(x))
	for i, b := range src {
		if b>>63 == 1 {
			b &^= 1 << 63
		} else {
			b = ^b
		}
		out[i] = math.Float64frombits(b)
	}
	return out
}
