package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
)

func TestKS2Statistic(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		d    float64 // reference, worked by hand as noted
		ties bool
	}{
		// Ties across samples. ECDFs at distinct values: t=1: 1/4 vs 0;
		// t=2: 3/4 vs 2/3; t=3: 1 vs 2/3; t=4: 1 vs 1 → D = 1/3 (hand).
		{"ties", []float64{1, 2, 2, 3}, []float64{2, 2, 4}, 1.0 / 3, true},
		// Complete separation: D = 1 (hand).
		{"separated", []float64{1, 2, 3}, []float64{4, 5, 6}, 1, false},
		// Identical samples: D = 0 (hand).
		{"identical", []float64{1, 2, 3}, []float64{3, 2, 1}, 0, true},
		// n = m = 1: D = 1 (hand).
		{"n=1", []float64{0}, []float64{1}, 1, false},
		// Infinities are ordinary values: x = {-Inf, 0}, y = {0, +Inf};
		// t=-Inf: 1/2 vs 0 → D = 1/2 (hand).
		{"inf", []float64{math.Inf(-1), 0}, []float64{0, math.Inf(1)}, 0.5, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := KS2(tt.x, tt.y, KSAuto)
			if err != nil {
				t.Fatal(err)
			}
			assertNear(t, "D", r.D, tt.d, 1e-15)
			if r.Ties != tt.ties {
				t.Errorf("Ties = %v, want %v", r.Ties, tt.ties)
			}
			if r.P < 0 || r.P > 1 {
				t.Errorf("P = %v outside [0, 1]", r.P)
			}
		})
	}
}

func TestKS2ExactHand(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		p    float64
	}{
		// Only the two extreme paths (all x first, all y first) reach
		// D = 1: p = 2 / C(6,3) = 0.1 (hand).
		{"separated 3v3", []float64{1, 2, 3}, []float64{4, 5, 6}, 0.1},
		// n = m = 1: both orders give D = 1, p = 1 (hand).
		{"n=1", []float64{0}, []float64{1}, 1},
		// n = 1, m = 3, x at the top: D = 1 for x = max or x = min: p = 2/4 (hand).
		{"1v3", []float64{9}, []float64{1, 2, 3}, 0.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := KS2(tt.x, tt.y, KSExact)
			if err != nil {
				t.Fatal(err)
			}
			if r.Method != KSExact {
				t.Errorf("Method = %v", r.Method)
			}
			assertNear(t, "P", r.P, tt.p, 1e-14)
		})
	}
}

// TestKS2ExactBruteForce: the exact p-value equals the fraction of all
// C(n+m, n) relabellings of the pooled sample whose D is at least the
// observed one — enumerated directly, with and without ties.
func TestKS2ExactBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 60 {
		n, m := 1+r.IntN(6), 1+r.IntN(6)
		ties := trial%2 == 1
		x, y := randSample(r, n, ties), randSample(r, m, ties)
		got, err := KS2(x, y, KSExact)
		if err != nil {
			t.Fatal(err)
		}
		obs := bruteKSNum(x, y)
		hit, total := 0, 0
		splits(append(append([]float64{}, x...), y...), n, func(a, b []float64) {
			total++
			if bruteKSNum(a, b) >= obs {
				hit++
			}
		})
		want := float64(hit) / float64(total)
		if !near(got.P, want, 1e-12) {
			t.Errorf("trial %d x=%v y=%v: exact P = %.15g, brute force %d/%d = %.15g", trial, x, y, got.P, hit, total, want)
		}
		assertNear(t, "D", got.D, float64(obs)/float64(n*m), 1e-15)
	}
}

func TestKolmogorovQ(t *testing.T) {
	tests := []struct{ lambda, q float64 }{
		// Critical values of the limiting Kolmogorov distribution (Smirnov
		// 1948 table, as in Conover 1999 Table A14): 1.2238 → 0.10,
		// 1.3581 → 0.05, 1.6276 → 0.01. Series 2Σ(−1)^{k−1}e^{−2k²λ²}
		// summed independently in Python to 200 terms gave the digits.
		{1.2238, 0.1000234278356778},
		{1.3581, 0.0499996304316674},
		{1.6276, 0.010001537333060776},
		{2.0, 0.0006709252557796953},
		{1.0, 0.26999967167735456},
		// λ = 0: no difference, p = 1 (by definition).
		{0, 1},
	}
	for _, tt := range tests {
		assertNear(t, "Q", kolmogorovQ(tt.lambda), tt.q, 1e-12)
	}
	// The λ < 1 theta-function branch joins the alternating series at 1.
	if d := math.Abs(kolmogorovQ(1-1e-12) - kolmogorovQ(1)); d > 1e-10 {
		t.Errorf("branches differ by %g at λ = 1", d)
	}
	// Monotone non-increasing on a grid.
	prev := 1.0
	for l := 0.01; l < 4; l += 0.01 {
		q := kolmogorovQ(l)
		if q > prev+1e-15 || q < 0 {
			t.Fatalf("Q(%v) = %v not monotone (prev %v)", l, q, prev)
		}
		prev = q
	}
}

func TestKS2Auto(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	tests := []struct {
		name   string
		n, m   int
		ties   bool
		method KSMethod
	}{
		{"small no ties → exact", 40, 60, false, KSExact},
		{"small with ties → asymptotic", 40, 60, true, KSAsymptotic},
		{"n·m = 10000 → asymptotic", 100, 100, false, KSAsymptotic},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := KS2(randSample(r, tt.n, tt.ties), randSample(r, tt.m, tt.ties), KSAuto)
			if err != nil {
				t.Fatal(err)
			}
			if res.Method != tt.method {
				t.Errorf("Method = %v, want %v", res.Method, tt.method)
			}
		})
	}
}

// TestKS2ExactVsAsymptotic: for n = m = 90 the two p-values agree to a
// few hundredths across the range (the limit law is accurate there).
func TestKS2ExactVsAsymptotic(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for shift := 0.0; shift <= 0.6; shift += 0.15 {
		x, y := randSample(r, 90, false), randSample(r, 90, false)
		for i := range y {
			y[i] += shift
		}
		e, err := KS2(x, y, KSExact)
		if err != nil {
			t.Fatal(err)
		}
		a, err := KS2(x, y, KSAsymptotic)
		if err != nil {
			t.Fatal(err)
		}
		if e.D != a.D || math.Abs(e.P-a.P) > 0.03 {
			t.Errorf("shift %v: exact (D %v, p %v) vs asymptotic (D %v, p %v)", shift, e.D, e.P, a.D, a.P)
		}
	}
}

func TestKS2Errors(t *testing.T) {
	big := make([]float64, 20000)
	for i := range big {
		big[i] = float64(i)
	}
	tests := []struct {
		name   string
		x, y   []float64
		method KSMethod
		want   error
	}{
		{"empty x", nil, []float64{1}, KSAuto, errs.ErrInput},
		{"empty y", []float64{1}, []float64{}, KSAuto, errs.ErrInput},
		{"NaN", []float64{1, math.NaN()}, []float64{1}, KSAuto, errs.ErrInput},
		{"bad method", []float64{1}, []float64{2}, KSMethod(9), errs.ErrInput},
		{"exact too large", big, big, KSExact, errs.ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := KS2(tt.x, tt.y, tt.method)
			assertErrIs(t, err, tt.want)
		})
	}
}
