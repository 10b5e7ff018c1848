package textsim

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortByDFThenValue compares the radix sort with a comparison sort.
func TestSortByDFThenValue(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 17, 1000, 5000} {
		a := make([]dfShingle, n)
		for i := range a {
			a[i] = dfShingle{df: int32(1 + rng.IntN(9)), v: rng.Uint64() >> uint(rng.IntN(60))}
		}
		want := slices.Clone(a)
		slices.SortFunc(want, func(x, y dfShingle) int {
			if c := cmp.Compare(x.df, y.df); c != 0 {
				return c
			}
			return cmp.Compare(x.v, y.v)
		})
		if got := sortByDFThenValue(slices.Clone(a)); !slices.Equal(got, want) {
			t.Fatalf("n=%d: radix order differs from the comparison sort", n)
		}
	}
}
