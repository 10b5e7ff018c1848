package stats

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestLargeSamples: 10⁶ pooled values (5·10⁵ per sample) run in a
// fraction of a second per procedure and give finite, in-range results
// that match the known shift.
func TestLargeSamples(t *testing.T) {
	if testing.Short() {
		t.Skip("large samples")
	}
	const n = 500_000
	r := rand.New(rand.NewPCG(27, 28))
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = r.NormFloat64()
		y[i] = r.NormFloat64() + 0.01
	}
	start := time.Now()
	ks, cd, mw := runTwoSample(t, x, y)
	elapsed := time.Since(start)
	t.Logf("KS D=%.5f p=%.3g, δ=%.5f, MWU z=%.3f p=%.3g in %v", ks.D, ks.P, cd.Delta, mw.Z, mw.P, elapsed)
	checkAllFinite(t, map[string]float64{"D": ks.D, "KS p": ks.P, "δ": cd.Delta, "z": mw.Z, "MWU p": mw.P})
	// A shift of 0.01σ: δ = 2Φ(−0.01/√2) − 1 ≈ −0.00564 (hand), sampling
	// sd of δ ≈ sqrt(2/(3n)) ≈ 0.0012; KS D ≈ 0.004.
	if math.Abs(cd.Delta+0.00564) > 0.004 || ks.D > 0.01 || ks.Method != KSAsymptotic || mw.Method != MWUNormal {
		t.Errorf("unexpected: KS %+v δ %+v", ks, cd)
	}
	assertNear(t, "δ vs rank-biserial", cd.Delta, mw.RankBiserial, 1e-12)
	if elapsed > 6*time.Second { // generous: 2 cores shared with other jobs
		t.Errorf("three procedures on 10⁶ values took %v", elapsed)
	}
	// Binomial tails for n = 10⁶ stay finite and tiny: k = 5500 is
	// 7.1 sd above the mean 5000 (normal tail ≈ 7e-13, hand).
	b, err := BinomTest(5500, 1_000_000, 0.005, Greater)
	if err != nil || !(b.P > 1e-14 && b.P < 1e-10) {
		t.Errorf("binomial tail: %+v %v", b, err)
	}
}

// runTwoSample runs KS, Cliff's δ and Mann–Whitney (auto methods) on x, y.
func runTwoSample(t *testing.T, x, y []float64) (KSResult, CliffResult, MWUResult) {
	t.Helper()
	ks, err := KS2(x, y, KSAuto)
	if err != nil {
		t.Fatal(err)
	}
	cd, err := CliffsDelta(x, y)
	if err != nil {
		t.Fatal(err)
	}
	mw, err := MannWhitney(x, y, TwoSided, MWUAuto)
	if err != nil {
		t.Fatal(err)
	}
	return ks, cd, mw
}

func checkAllFinite(t *testing.T, vals map[string]float64) {
	t.Helper()
	for name, v := range vals {
		if !finiteOK(v) {
			t.Errorf("%s = %v", name, v)
		}
	}
}
