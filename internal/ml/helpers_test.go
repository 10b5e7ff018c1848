package ml

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// rocAUC is the test-only ROC-AUC: the probability that a random positive
// scores above a random negative, ties counting ½ (Mann–Whitney U / n₁n₀).
// The production implementation lives in internal/stats.
func rocAUC(t testing.TB, score []float64, y []int) float64 {
	t.Helper()
	type sy struct {
		s float64
		y int
	}
	v := make([]sy, len(score))
	var pos int
	for i := range score {
		if math.IsNaN(score[i]) {
			t.Fatalf("rocAUC: score[%d] is NaN", i)
		}
		v[i] = sy{score[i], y[i]}
		pos += y[i]
	}
	neg := len(v) - pos
	if pos == 0 || neg == 0 {
		t.Fatalf("rocAUC: need both classes, got %d positives of %d", pos, len(v))
	}
	sort.Slice(v, func(a, b int) bool { return v[a].s < v[b].s })
	// Sum of positive ranks with mid-ranks for ties.
	var rankSum float64
	for i := 0; i < len(v); {
		j := i
		for j < len(v) && v[j].s == v[i].s {
			j++
		}
		mid := float64(i+j+1) / 2 // ranks i+1..j
		for k := i; k < j; k++ {
			if v[k].y == 1 {
				rankSum += mid
			}
		}
		i = j
	}
	u := rankSum - float64(pos)*float64(pos+1)/2
	return u / (float64(pos) * float64(neg))
}

func TestRocAUCHelper(t *testing.T) {
	tests := []struct {
		s    []float64
		y    []int
		want float64
	}{
		{[]float64{0.1, 0.2, 0.8, 0.9}, []int{0, 0, 1, 1}, 1},
		{[]float64{0.9, 0.8, 0.2, 0.1}, []int{0, 0, 1, 1}, 0},
		{[]float64{0.5, 0.5, 0.5, 0.5}, []int{0, 1, 0, 1}, 0.5},
		// Pairs (pos,neg): (0.4>0.3)=1, (0.4<0.6)=0, (0.6=0.6)=½, (0.6>0.3)=1 → 2.5/4.
		{[]float64{0.3, 0.4, 0.6, 0.6}, []int{0, 1, 0, 1}, 0.625},
	}
	for i, tc := range tests {
		if got := rocAUC(t, tc.s, tc.y); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("case %d: rocAUC = %v, want %v", i, got, tc.want)
		}
	}
}

// nonlinear draws a seeded synthetic problem with a curved boundary:
// y = 1 iff x₀² + x₁² + 0.5·sin(3x₂) < 1.3 (about half the rows), with
// label noise flipping 2% of rows; the other d−3 features are noise.
func nonlinear(seed uint64, n, d int) ([][]float64, []int) {
	rng := rand.New(rand.NewPCG(seed, 99))
	X := make([][]float64, n)
	y := make([]int, n)
	for i := range X {
		row := make([]float64, d)
		for j := range row {
			row[j] = rng.NormFloat64()
		}
		if row[0]*row[0]+row[1]*row[1]+0.5*math.Sin(3*row[2]) < 1.3 {
			y[i] = 1
		}
		if rng.Float64() < 0.02 {
			y[i] = 1 - y[i]
		}
		X[i] = row
	}
	return X, y
}

// xor draws noisy XOR: y = 1 iff x₀ and x₁ have the same sign.
func xor(seed uint64, n int) ([][]float64, []int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	X := make([][]float64, n)
	y := make([]int, n)
	for i := range X {
		a, b := rng.Float64()*2-1, rng.Float64()*2-1
		X[i] = []float64{a, b}
		if (a > 0) == (b > 0) {
			y[i] = 1
		}
	}
	return X, y
}

// linear draws a logistic model with known weights, so LR is well
// specified: P(y=1) = σ(β·x + β₀).
func linear(seed uint64, n int, beta []float64, b0 float64) ([][]float64, []int) {
	rng := rand.New(rand.NewPCG(seed, 3))
	X := make([][]float64, n)
	y := make([]int, n)
	for i := range X {
		row := make([]float64, len(beta))
		z := b0
		for j := range row {
			row[j] = rng.NormFloat64()
			z += beta[j] * row[j]
		}
		if rng.Float64() < sigmoid(z) {
			y[i] = 1
		}
		X[i] = row
	}
	return X, y
}

func logLossOf(p []float64, y []int) float64 {
	var s float64
	for i := range p {
		q := math.Min(math.Max(p[i], 1e-15), 1-1e-15)
		if y[i] == 1 {
			s -= math.Log(q)
		} else {
			s -= math.Log(1 - q)
		}
	}
	return s / float64(len(p))
}
