package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
	"gonum.org/v1/gonum/stat/distuv"
)

// Hollander & Wolfe (1999) permeability data, the example of R's
// ?wilcox.test: wilcox.test(x, y, alternative = "greater") gives W = 35,
// p-value = 0.1272.
var (
	hwX = []float64{0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46}
	hwY = []float64{1.15, 0.88, 0.90, 0.74, 1.21}
)

func TestMannWhitneyHollanderWolfe(t *testing.T) {
	r, err := MannWhitney(hwX, hwY, Greater, MWUAuto)
	if err != nil {
		t.Fatal(err)
	}
	if r.U != 35 { // R's W = 35; all-pairs count in Python gives 35 too.
		t.Errorf("U = %v, want 35", r.U)
	}
	if r.Method != MWUExact {
		t.Errorf("Method = %v, want exact", r.Method)
	}
	// 382/3003 = 0.12720612720612720: enumeration of all C(15,5)
	// relabellings in Python; R prints 0.1272.
	assertNear(t, "P", r.P, 382.0/3003, 1e-13)
	// Rank-biserial 2·35/50 − 1 = 0.4 (hand).
	assertNear(t, "RankBiserial", r.RankBiserial, 0.4, 1e-15)

	n, err := MannWhitney(hwX, hwY, Greater, MWUNormal)
	if err != nil {
		t.Fatal(err)
	}
	// By hand: μ = 25, σ² = 10·5·16/12, z = (35 − 25 − ½)/σ = 1.1635076278,
	// p = 1 − Φ(z) = 0.1223118026 (erf from Python's math module).
	assertNear(t, "Z", n.Z, 1.1635076278220096, 1e-12)
	assertNear(t, "P normal", n.P, 0.12231180256349167, 1e-10)
}

// TestMannWhitneyExactBruteForce: exact p-values (all alternatives, with
// and without ties) equal the permutation distribution of 2U obtained by
// enumerating all relabellings.
func TestMannWhitneyExactBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for trial := range 60 {
		n, m := 1+r.IntN(6), 1+r.IntN(6)
		ties := trial%2 == 1
		x, y := randSample(r, n, ties), randSample(r, m, ties)
		obs := bruteU2(x, y)
		le, ge, total := bruteUCounts(x, y)
		pl, pg := float64(le)/float64(total), float64(ge)/float64(total)
		want := map[Alternative]float64{Less: pl, Greater: pg, TwoSided: math.Min(1, 2*math.Min(pl, pg))}
		for _, alt := range []Alternative{TwoSided, Less, Greater} {
			checkExactMWU(t, trial, x, y, alt, float64(obs)/2, want[alt])
		}
	}
}

// checkExactMWU runs the exact test and compares U and P with the
// brute-force values.
func checkExactMWU(t *testing.T, trial int, x, y []float64, alt Alternative, wantU, wantP float64) {
	t.Helper()
	got, err := MannWhitney(x, y, alt, MWUExact)
	if err != nil {
		t.Fatal(err)
	}
	if got.U != wantU {
		t.Errorf("trial %d: U = %v, brute %v", trial, got.U, wantU)
	}
	if !near(got.P, wantP, 1e-12) {
		t.Errorf("trial %d %v x=%v y=%v: P = %.15g, brute %.15g", trial, alt, x, y, got.P, wantP)
	}
}

// TestMannWhitneyNormalVariance: the tie-corrected variance used by the
// normal approximation equals the exact permutation variance of U, which
// we get by enumeration; the p-value is then recomputed by hand from it.
func TestMannWhitneyNormalVariance(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for trial := range 20 {
		n, m := 2+r.IntN(5), 2+r.IntN(5)
		x, y := randSample(r, n, true), randSample(r, m, true)
		mu, variance := bruteUMoments(x, y)
		u := float64(bruteU2(x, y)) / 2
		got, err := MannWhitney(x, y, TwoSided, MWUNormal)
		if err != nil {
			t.Fatal(err)
		}
		if variance < 1e-12 {
			if got.P != 1 || got.Z != 0 {
				t.Errorf("trial %d: degenerate null, got z %v p %v", trial, got.Z, got.P)
			}
			continue
		}
		assertNear(t, "mean of U", mu, float64(n*m)/2, 1e-12)
		d := u - mu
		c := continuity(d)
		z := (d - c) / math.Sqrt(variance)
		want := math.Min(1, 2*distuv.UnitNormal.CDF(-math.Abs(z)))
		assertNear(t, "Z", got.Z, z, 1e-9)
		assertNear(t, "P", got.P, want, 1e-9)
	}
}

// bruteUMoments is the mean and variance of U over all relabellings.
func bruteUMoments(x, y []float64) (mu, variance float64) {
	var s, ss, total float64
	splits(append(append([]float64{}, x...), y...), len(x), func(a, b []float64) {
		u := float64(bruteU2(a, b)) / 2
		s += u
		ss += u * u
		total++
	})
	mu = s / total
	return mu, ss/total - mu*mu
}

// continuity is the ±½ continuity correction toward zero for d.
func continuity(d float64) float64 {
	switch {
	case d > 0:
		return 0.5
	case d < 0:
		return -0.5
	}
	return 0
}

func TestMannWhitneyEdges(t *testing.T) {
	// All values equal: U = nm/2 always, p = 1, z = 0 (hand).
	r, err := MannWhitney([]float64{3, 3}, []float64{3, 3, 3}, TwoSided, MWUAuto)
	if err != nil {
		t.Fatal(err)
	}
	if r.U != 3 || r.P != 1 || r.Z != 0 || r.Method != MWUNormal {
		t.Errorf("all tied: %+v", r)
	}
	// n = m = 1, x > y: U = 1; P(U ≥ 1) = 1/2 (hand), two-sided min(1, 2·½) = 1.
	for alt, want := range map[Alternative]float64{Greater: 0.5, Less: 1, TwoSided: 1} {
		r, err := MannWhitney([]float64{2}, []float64{1}, alt, MWUAuto)
		if err != nil {
			t.Fatal(err)
		}
		assertNear(t, alt.String(), r.P, want, 1e-15)
	}
	// Auto switches to normal above 50.
	rr := rand.New(rand.NewPCG(1, 1))
	checkAutoMethod(t, "n = 51", randSample(rr, 51, false), randSample(rr, 10, false), MWUNormal)
	checkAutoMethod(t, "n = m = 50", randSample(rr, 50, false), randSample(rr, 50, false), MWUExact)
	// Exact and normal agree closely at n = m = 50 without ties.
	x, y := randSample(rr, 50, false), randSample(rr, 50, false)
	for i := range y {
		y[i] += 0.4
	}
	e, _ := MannWhitney(x, y, TwoSided, MWUExact)
	a, _ := MannWhitney(x, y, TwoSided, MWUNormal)
	if math.Abs(e.P-a.P) > 0.005 {
		t.Errorf("n = m = 50: exact %v vs normal %v", e.P, a.P)
	}
}

func checkAutoMethod(t *testing.T, name string, x, y []float64, want MWUMethod) {
	t.Helper()
	r, err := MannWhitney(x, y, TwoSided, MWUAuto)
	if err != nil || r.Method != want {
		t.Errorf("%s: method %v err %v", name, r.Method, err)
	}
}

func TestMannWhitneyErrors(t *testing.T) {
	big := make([]float64, 1000)
	tests := []struct {
		name   string
		x, y   []float64
		alt    Alternative
		method MWUMethod
		want   error
	}{
		{"empty", nil, []float64{1}, TwoSided, MWUAuto, errs.ErrInput},
		{"NaN", []float64{math.NaN()}, []float64{1}, TwoSided, MWUAuto, errs.ErrInput},
		{"bad alt", []float64{1}, []float64{1}, Alternative(7), MWUAuto, errs.ErrInput},
		{"bad method", []float64{1}, []float64{1}, TwoSided, MWUMethod(7), errs.ErrInput},
		{"exact too large", big, big, TwoSided, MWUExact, errs.ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := MannWhitney(tt.x, tt.y, tt.alt, tt.method)
			assertErrIs(t, err, tt.want)
		})
	}
}

func TestCliffsDelta(t *testing.T) {
	// Hand: x = {1,2,3}, y = {2,2}: pairs (1,2)×2 less, (2,2)×2 ties,
	// (3,2)×2 greater → δ = (2 − 2)/6 = 0.
	c, err := CliffsDelta([]float64{1, 2, 3}, []float64{2, 2})
	if err != nil {
		t.Fatal(err)
	}
	want := CliffResult{Greater: 2, Less: 2, Ties: 2, Delta: 0, Magnitude: Negligible}
	if c != want {
		t.Errorf("hand example: %+v", c)
	}
	// Random samples: fast δ equals the O(nm) all-pairs count, and equals
	// the rank-biserial correlation of MannWhitney.
	r := rand.New(rand.NewPCG(11, 12))
	for trial := range 100 {
		x, y := randSample(r, 1+r.IntN(40), trial%2 == 0), randSample(r, 1+r.IntN(40), trial%2 == 0)
		checkCliffAllPairs(t, trial, x, y)
	}
	if _, err := CliffsDelta(nil, []float64{1}); err == nil {
		t.Error("empty x accepted")
	}
	if _, err := CliffsDelta([]float64{1}, []float64{math.NaN()}); err == nil {
		t.Error("NaN accepted")
	}
}

// allPairs counts the pairs with x > y and x < y.
func allPairs(x, y []float64) (gt, lt int64) {
	for _, a := range x {
		for _, b := range y {
			if a > b {
				gt++
			} else if a < b {
				lt++
			}
		}
	}
	return gt, lt
}

// checkCliffAllPairs: fast δ equals the O(nm) all-pairs count, and
// equals the rank-biserial correlation of MannWhitney.
func checkCliffAllPairs(t *testing.T, trial int, x, y []float64) {
	t.Helper()
	gt, lt := allPairs(x, y)
	want := float64(gt-lt) / float64(len(x)*len(y))
	c, err := CliffsDelta(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if c.Greater != gt || c.Less != lt || !near(c.Delta, want, 1e-15) {
		t.Errorf("trial %d: %+v, all-pairs gt %d lt %d δ %v", trial, c, gt, lt, want)
	}
	u, _ := MannWhitney(x, y, TwoSided, MWUNormal)
	assertNear(t, "rank-biserial", u.RankBiserial, c.Delta, 1e-12)
}

func TestDeltaMagnitude(t *testing.T) {
	// Romano et al. (2006) thresholds 0.147 / 0.33 / 0.474, both signs.
	tests := []struct {
		d    float64
		want Magnitude
	}{
		{0, Negligible}, {0.1469, Negligible}, {-0.1469, Negligible},
		{0.147, Small}, {-0.3299, Small},
		{0.33, Medium}, {0.4739, Medium},
		{0.474, Large}, {-1, Large},
	}
	for _, tt := range tests {
		if got := DeltaMagnitude(tt.d); got != tt.want {
			t.Errorf("DeltaMagnitude(%v) = %v, want %v", tt.d, got, tt.want)
		}
	}
}
