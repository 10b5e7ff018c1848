package stats

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func benchPair(n int) (x, y []float64) {
	r := rand.New(rand.NewPCG(29, 30))
	x, y = make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = r.NormFloat64()
		y[i] = r.NormFloat64() + 0.05
	}
	return x, y
}

func BenchmarkSortedCopy100k(b *testing.B) {
	x, _ := benchPair(100_000)
	for b.Loop() {
		sortedCopy(x)
	}
}

func BenchmarkKS2_100k(b *testing.B) {
	x, y := benchPair(100_000)
	for b.Loop() {
		if _, err := KS2(x, y, KSAuto); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCliffsDelta100k(b *testing.B) {
	x, y := benchPair(100_000)
	for b.Loop() {
		if _, err := CliffsDelta(x, y); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMannWhitney100k(b *testing.B) {
	x, y := benchPair(100_000)
	for b.Loop() {
		if _, err := MannWhitney(x, y, TwoSided, MWUAuto); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkKS2Exact100x100(b *testing.B) {
	x, y := benchPair(100)
	for b.Loop() {
		if _, err := KS2(x, y, KSExact); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMannWhitneyExact50x50(b *testing.B) {
	x, y := benchPair(50)
	for b.Loop() {
		if _, err := MannWhitney(x, y, TwoSided, MWUExact); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSlicesSort100k is the pdqsort baseline for BenchmarkSortedCopy100k.
func BenchmarkSlicesSort100k(b *testing.B) {
	x, _ := benchPair(100_000)
	for b.Loop() {
		s := slices.Clone(x)
		slices.Sort(s)
	}
}
