package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortedCopy: the radix path agrees with slices.Sort on values of all
// signs and magnitudes, ±0, ±Inf, subnormals and heavy ties, and leaves
// its input untouched.
func TestSortedCopy(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	special := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.MaxFloat64,
		-math.MaxFloat64, math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64, 1, -1}
	for _, n := range []int{0, 1, 5, radixMin - 1, radixMin, 10_000} {
		x := mixedFloats(r, n, special)
		orig := slices.Clone(x)
		got := sortedCopy(x)
		want := slices.Clone(x)
		slices.Sort(want)
		if !slices.Equal(x, orig) {
			t.Fatalf("n=%d: input modified", n)
		}
		checkSortedEqual(t, n, got, want)
	}
}

// mixedFloats draws n values mixing special ones, small integers (ties),
// normals over ±300 decades and raw bit patterns (NaN replaced by 2).
func mixedFloats(r *rand.Rand, n int, special []float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		switch r.IntN(4) {
		case 0:
			x[i] = special[r.IntN(len(special))]
		case 1:
			x[i] = float64(r.IntN(3))
		case 2:
			x[i] = r.NormFloat64() * math.Pow(10, float64(r.IntN(600)-300))
		default:
			x[i] = math.Float64frombits(r.Uint64())
			if math.IsNaN(x[i]) {
				x[i] = 2
			}
		}
	}
	return x
}

// checkSortedEqual compares with ==, which equates −0 and +0.
func checkSortedEqual(t *testing.T, n int, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("n=%d: len %d", n, len(got))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("n=%d: [%d] = %v, slices.Sort %v", n, i, got[i], want[i])
		}
	}
}
