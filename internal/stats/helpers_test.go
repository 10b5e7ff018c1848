package stats

import (
	"errors"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// near reports |got − want| ≤ tol·max(1, |want|).
func near(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

func assertNear(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	if !near(got, want, tol) {
		t.Errorf("%s = %.12g, want %.12g (tol %g)", name, got, want, tol)
	}
}

func assertErrIs(t *testing.T, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("error = %v, want one wrapping %v", err, target)
	}
}

// randSample draws n values; with ties it draws small integers so that
// equal values are frequent.
func randSample(r *rand.Rand, n int, ties bool) []float64 {
	x := make([]float64, n)
	for i := range x {
		if ties {
			x[i] = float64(r.IntN(5))
		} else {
			x[i] = r.NormFloat64()
		}
	}
	return x
}

// splits enumerates every way to label n of the pooled values as x (the
// rest as y), calling fn with the two groups: the C(N, n) equally likely
// permutations of the null hypothesis. N must be small (≤ 16).
func splits(pool []float64, n int, fn func(x, y []float64)) {
	N := len(pool)
	x := make([]float64, 0, n)
	y := make([]float64, 0, N-n)
	for mask := uint(0); mask < 1<<N; mask++ {
		if bits.OnesCount(mask) != n {
			continue
		}
		x, y = x[:0], y[:0]
		for i, v := range pool {
			if mask&(1<<i) != 0 {
				x = append(x, v)
			} else {
				y = append(y, v)
			}
		}
		fn(x, y)
	}
}

// bruteUCounts enumerates the relabellings of x ∪ y and counts those
// whose 2U is ≤ and ≥ the observed one, and all of them.
func bruteUCounts(x, y []float64) (le, ge, total int) {
	obs := bruteU2(x, y)
	splits(append(append([]float64{}, x...), y...), len(x), func(a, b []float64) {
		u := bruteU2(a, b)
		total++
		if u <= obs {
			le++
		}
		if u >= obs {
			ge++
		}
	})
	return le, ge, total
}

// bruteKSP is the exact two-sided KS p-value by enumeration: the share
// of relabellings whose statistic is at least the observed one.
func bruteKSP(x, y []float64) float64 {
	obs := bruteKSNum(x, y)
	hit, total := 0, 0
	splits(append(append([]float64{}, x...), y...), len(x), func(a, b []float64) {
		total++
		if bruteKSNum(a, b) >= obs {
			hit++
		}
	})
	return float64(hit) / float64(total)
}

// bruteKSNum is max over pooled t of |#{x ≤ t}·m − #{y ≤ t}·n|, straight
// from the definition in O(N²) (no sorting, no merging).
func bruteKSNum(x, y []float64) int {
	n, m := len(x), len(y)
	best := 0
	for _, t := range append(append([]float64{}, x...), y...) {
		cx, cy := 0, 0
		for _, v := range x {
			if v <= t {
				cx++
			}
		}
		for _, v := range y {
			if v <= t {
				cy++
			}
		}
		d := cx*m - cy*n
		if d < 0 {
			d = -d
		}
		best = max(best, d)
	}
	return best
}

// bruteU2 is 2U = 2·#{x > y} + #{x = y} over all pairs.
func bruteU2(x, y []float64) int {
	u := 0
	for _, a := range x {
		for _, b := range y {
			switch {
			case a > b:
				u += 2
			case a == b:
				u++
			}
		}
	}
	return u
}
