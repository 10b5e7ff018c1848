package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
	"gonum.org/v1/gonum/stat/distuv"
)

func TestBinomTestMendel(t *testing.T) {
	// R's ?binom.test example (Mendel's peas): binom.test(682, 925, 3/4)
	// prints p-value = 0.3825 and 95% CI 0.7076683 0.7654066. The digits
	// below come from exact rational arithmetic (Python fractions, the
	// minlike definition with relErr 1 + 1e-7, and direct tail sums).
	tests := []struct {
		alt  Alternative
		want float64
	}{
		{TwoSided, 0.3824915595748517},
		{Greater, 0.8240891223524226},
		{Less, 0.19600926705388336},
	}
	for _, tt := range tests {
		r, err := BinomTest(682, 925, 0.75, tt.alt)
		if err != nil {
			t.Fatal(err)
		}
		assertNear(t, tt.alt.String(), r.P, tt.want, 1e-10)
	}
	ci, err := ClopperPearson(682, 925, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	assertNear(t, "CP lo", ci.Lo, 0.7076683, 1e-7)
	assertNear(t, "CP hi", ci.Hi, 0.7654066, 1e-7)
}

// pmfDirect computes the Bin(n, p) pmf by the multiplicative recurrence
// P(i+1) = P(i)·(n−i)/(i+1)·p/(1−p) — a route independent of the
// log-gamma pmf and the incomplete-beta tails under test.
func pmfDirect(n int, p float64) []float64 {
	out := make([]float64, n+1)
	out[0] = math.Pow(1-p, float64(n))
	for i := 0; i < n; i++ {
		out[i+1] = out[i] * float64(n-i) / float64(i+1) * p / (1 - p)
	}
	return out
}

func TestBinomTestBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for range 300 {
		n := 1 + r.IntN(60)
		k := r.IntN(n + 1)
		p0 := 0.05 + 0.9*r.Float64()
		if r.IntN(5) == 0 {
			p0 = float64(1+r.IntN(3)) / 4 // exact ties in the minlike set
		}
		up, lo, two := binomTails(pmfDirect(n, p0), k)
		if float64(k) == float64(n)*p0 {
			two = 1
		}
		for alt, want := range map[Alternative]float64{Greater: up, Less: lo, TwoSided: math.Min(1, two)} {
			got, err := BinomTest(k, n, p0, alt)
			if err != nil {
				t.Fatal(err)
			}
			if !near(got.P, want, 1e-9) {
				t.Errorf("k=%d n=%d p0=%v %v: P = %.12g, direct sum %.12g", k, n, p0, alt, got.P, want)
			}
		}
	}
}

// binomTails sums the pmf pm over i ≥ k, over i ≤ k, and over the i no
// more likely than k (with a relative slack of 1e-7).
func binomTails(pm []float64, k int) (up, lo, two float64) {
	for i, v := range pm {
		if i >= k {
			up += v
		}
		if i <= k {
			lo += v
		}
		if v <= pm[k]*(1+1e-7) {
			two += v
		}
	}
	return up, lo, two
}

func TestBinomTestEdges(t *testing.T) {
	tests := []struct {
		k, n int
		p0   float64
		alt  Alternative
		want float64 // by hand
	}{
		{0, 5, 0, TwoSided, 1},   // X ≡ 0 and k = 0
		{1, 5, 0, TwoSided, 0},   // impossible outcome
		{1, 5, 0, Greater, 0},    // P(X ≥ 1) = 0
		{5, 5, 1, TwoSided, 1},   // X ≡ 5
		{4, 5, 1, Less, 0},       // P(X ≤ 4) = 0
		{0, 1, 0.5, Less, 0.5},   // n = 1
		{3, 6, 0.5, TwoSided, 1}, // k = n·p0
		// Tiny tail keeps relative precision: P(X ≥ 100 | n=100, p=0.01) = 1e-200.
		{100, 100, 0.01, Greater, 1e-200},
	}
	for _, tt := range tests {
		r, err := BinomTest(tt.k, tt.n, tt.p0, tt.alt)
		if err != nil {
			t.Fatal(err)
		}
		if !(math.Abs(r.P-tt.want) <= 1e-12*tt.want || math.Abs(r.P-tt.want) < 1e-300) {
			t.Errorf("BinomTest(%d, %d, %v, %v) = %v, want %v", tt.k, tt.n, tt.p0, tt.alt, r.P, tt.want)
		}
	}
	// Large n runs in O(log n) pmf evaluations and stays in [0, 1].
	r, err := BinomTest(500_300, 1_000_000, 0.5, TwoSided)
	if err != nil {
		t.Fatal(err)
	}
	// Normal approximation by hand: z = 300/500 = 0.6 → 2(1 − Φ(0.6)) ≈ 0.5485;
	// the exact value differs only by the continuity term.
	if math.Abs(r.P-2*distuv.UnitNormal.Survival(0.6)) > 0.002 {
		t.Errorf("large n: P = %v", r.P)
	}
}

func TestBinomErrors(t *testing.T) {
	for _, c := range []struct {
		k, n int
		p0   float64
		alt  Alternative
	}{{1, 0, 0.5, TwoSided}, {-1, 3, 0.5, TwoSided}, {4, 3, 0.5, TwoSided}, {1, 3, 1.5, TwoSided}, {1, 3, math.NaN(), TwoSided}, {1, 3, 0.5, Alternative(-1)}} {
		_, err := BinomTest(c.k, c.n, c.p0, c.alt)
		assertErrIs(t, err, errs.ErrInput)
	}
	for _, f := range []func(int, int, float64) (Interval, error){Wilson, WilsonCC, ClopperPearson} {
		_, err := f(1, 0, 0.95)
		assertErrIs(t, err, errs.ErrInput)
		_, err = f(1, 3, 1)
		assertErrIs(t, err, errs.ErrInput)
		_, err = f(1, 3, math.NaN())
		assertErrIs(t, err, errs.ErrInput)
	}
}

func TestWilson(t *testing.T) {
	// rxsynth §6.3: 12 of 170 real fixes, "Wilson 95% CI [4.1, 11.9]";
	// the closed form evaluated in Python gives the digits.
	ci, err := Wilson(12, 170, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	assertNear(t, "lo", ci.Lo, 0.04083741895307849, 1e-12)
	assertNear(t, "hi", ci.Hi, 0.11931689066653148, 1e-12)
	// Boundaries (by definition): k = 0 → lo = 0, k = n → hi = 1.
	if ci, _ := Wilson(0, 10, 0.95); ci.Lo != 0 || ci.Hi <= 0 {
		t.Errorf("k=0: %+v", ci)
	}
	if ci, _ := WilsonCC(10, 10, 0.95); ci.Hi != 1 || ci.Lo >= 1 {
		t.Errorf("k=n: %+v", ci)
	}
}

// scoreRoots finds the bounds of {p : |p̂ − p| − cc ≤ z·sqrt(p(1−p)/n)}
// by bisection: an independent numeric route to the Wilson interval.
func scoreRoots(k, n int, z, cc float64) Interval {
	ph := float64(k) / float64(n)
	in := func(p float64) bool {
		return math.Abs(ph-p)-cc <= z*math.Sqrt(p*(1-p)/float64(n))
	}
	bisect := func(a, b float64) float64 { // in(a) != in(b)
		ia := in(a)
		for range 200 {
			m := (a + b) / 2
			if in(m) == ia {
				a = m
			} else {
				b = m
			}
		}
		return (a + b) / 2
	}
	iv := Interval{Lo: 0, Hi: 1}
	if !in(0) {
		iv.Lo = bisect(0, ph)
	}
	if !in(1) {
		iv.Hi = bisect(ph, 1)
	}
	return iv
}

func TestWilsonProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for range 300 {
		n := 1 + r.IntN(500)
		k := r.IntN(n + 1)
		conf := []float64{0.5, 0.8, 0.9, 0.95, 0.99, 0.1}[r.IntN(6)]
		z := distuv.UnitNormal.Quantile((1 + conf) / 2)
		ph := float64(k) / float64(n)
		w, err := Wilson(k, n, conf)
		if err != nil {
			t.Fatal(err)
		}
		cc, err := WilsonCC(k, n, conf)
		if err != nil {
			t.Fatal(err)
		}
		if !w.Contains(ph) || !cc.Contains(ph) {
			t.Errorf("k=%d n=%d: p̂ %v not in Wilson %+v / CC %+v", k, n, ph, w, cc)
		}
		if cc.Lo > w.Lo+1e-12 || cc.Hi < w.Hi-1e-12 {
			t.Errorf("k=%d n=%d: CC %+v narrower than Wilson %+v", k, n, cc, w)
		}
		ref, refCC := scoreRoots(k, n, z, 0), scoreRoots(k, n, z, 0.5/float64(n))
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"lo", w.Lo, ref.Lo}, {"hi", w.Hi, ref.Hi}, {"cc lo", cc.Lo, refCC.Lo}, {"cc hi", cc.Hi, refCC.Hi}} {
			if math.Abs(c.got-c.want) > 1e-9 {
				t.Errorf("k=%d n=%d conf=%v %s = %.12g, bisection %.12g", k, n, conf, c.name, c.got, c.want)
			}
		}
	}
}

func TestCohensH(t *testing.T) {
	// 2·asin(√0.704) − 2·asin(√0.5) = 0.42026236324479394 (Python math).
	h, err := CohensH(0.704, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	assertNear(t, "h", h, 0.42026236324479394, 1e-14)
	// Extremes: h(1, 0) = π (hand).
	h, _ = CohensH(1, 0)
	assertNear(t, "h(1,0)", h, math.Pi, 1e-15)
	_, err = CohensH(1.2, 0.5)
	assertErrIs(t, err, errs.ErrInput)
	_, err = CohensH(0.5, math.NaN())
	assertErrIs(t, err, errs.ErrInput)
}
