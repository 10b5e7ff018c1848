package stats

import (
	"encoding/binary"
	"math"
	"testing"
)

// twoSamples decodes fuzz bytes into two small-integer samples (so ties
// are common): the first byte sets len(x), each further byte is a value.
func twoSamples(data []byte) (x, y []float64) {
	if len(data) == 0 {
		return nil, nil
	}
	nx := int(data[0]) % 12
	for i, b := range data[1:] {
		v := float64(b % 9)
		if i < nx {
			x = append(x, v)
		} else if len(y) < 12 {
			y = append(y, v)
		}
	}
	return x, y
}

// FuzzTwoSample checks the exact procedures against brute-force
// enumeration on small random samples with ties, and that nothing panics
// or leaves [0, 1] on any input (including empty samples).
func FuzzTwoSample(f *testing.F) {
	f.Add([]byte{3, 1, 2, 3, 4, 5, 6})
	f.Add([]byte{1, 0, 0})
	f.Add([]byte{0, 1, 2})
	f.Add([]byte{5, 7, 7, 7, 7, 7, 7, 7, 7})
	f.Fuzz(func(t *testing.T, data []byte) {
		x, y := twoSamples(data)
		ks, kerr := KS2(x, y, KSExact)
		mw, merr := MannWhitney(x, y, TwoSided, MWUExact)
		cd, cerr := CliffsDelta(x, y)
		if len(x) == 0 || len(y) == 0 {
			checkAllRejected(t, kerr, merr, cerr)
			return
		}
		if kerr != nil || merr != nil || cerr != nil {
			t.Fatalf("x=%v y=%v: %v %v %v", x, y, kerr, merr, cerr)
		}
		checkTwoSampleRanges(t, x, y, ks, mw, cd)
		if len(x)+len(y) > 12 {
			return
		}
		checkTwoSampleBrute(t, x, y, ks, mw)
	})
}

func checkAllRejected(t *testing.T, kerr, merr, cerr error) {
	t.Helper()
	if kerr == nil || merr == nil || cerr == nil {
		t.Fatalf("empty sample accepted: %v %v %v", kerr, merr, cerr)
	}
}

func inUnitOpen(p float64) bool { return p > 0 && p <= 1 }

func checkTwoSampleRanges(t *testing.T, x, y []float64, ks KSResult, mw MWUResult, cd CliffResult) {
	t.Helper()
	if !inUnitOpen(ks.P) || !inUnitOpen(mw.P) || ks.D < 0 || ks.D > 1 {
		t.Fatalf("x=%v y=%v: KS %+v MWU %+v", x, y, ks, mw)
	}
	if cd.Greater+cd.Less+cd.Ties != int64(len(x)*len(y)) || math.Abs(cd.Delta-mw.RankBiserial) > 1e-12 {
		t.Fatalf("x=%v y=%v: Cliff %+v vs MWU %+v", x, y, cd, mw)
	}
}

// checkTwoSampleBrute compares the exact KS and two-sided MWU p-values
// with the permutation distribution obtained by enumeration.
func checkTwoSampleBrute(t *testing.T, x, y []float64, ks KSResult, mw MWUResult) {
	t.Helper()
	if p := bruteKSP(x, y); !near(ks.P, p, 1e-12) {
		t.Fatalf("x=%v y=%v: KS exact %v, brute %v", x, y, ks.P, p)
	}
	le, ge, total := bruteUCounts(x, y)
	p := math.Min(1, 2*math.Min(float64(le), float64(ge))/float64(total))
	if !near(mw.P, p, 1e-12) {
		t.Fatalf("x=%v y=%v: MWU exact %v, brute %v", x, y, mw.P, p)
	}
}

// floats decodes fuzz bytes as raw float64 bit patterns: any value,
// including NaN, ±Inf, subnormals and ±MaxFloat64.
func floats(data []byte) []float64 {
	var out []float64
	for len(data) >= 8 {
		out = append(out, math.Float64frombits(binary.LittleEndian.Uint64(data)))
		data = data[8:]
	}
	return out
}

// nonDecreasing reports whether xs is in non-decreasing order.
func nonDecreasing(xs ...float64) bool {
	for i := 1; i < len(xs); i++ {
		if !(xs[i-1] <= xs[i]) {
			return false
		}
	}
	return true
}

func finiteOK(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// FuzzArbitraryFloats feeds arbitrary float64 values to every procedure:
// none may panic, and whenever no error is returned the results must be
// NaN-free (and finite where the procedure requires finite input).
func FuzzArbitraryFloats(f *testing.F) {
	seed := func(v ...float64) []byte {
		b := make([]byte, 0, 8*len(v))
		for _, x := range v {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
		return b
	}
	f.Add(seed(1, 2, 3, 4))
	f.Add(seed(math.MaxFloat64, -math.MaxFloat64, 0))
	f.Add(seed(math.Inf(1), math.NaN(), 1))
	f.Add(seed(math.SmallestNonzeroFloat64, 5e-324, -0.0))
	f.Fuzz(func(t *testing.T, data []byte) {
		x := floats(data)
		half := len(x) / 2
		checkDescribeFinite(t, x)
		checkTwoSampleNaNFree(t, x[:half], x[half:])
		checkCurvesInRange(t, x)
		checkBHInRange(t, x)
		if len(data) >= 3 {
			n := int(data[0]) + 1
			checkBinomialInRange(t, int(data[1])%(n+1), n, float64(data[2])/255)
		}
	})
}

func checkDescribeFinite(t *testing.T, x []float64) {
	t.Helper()
	if ci, err := MeanCI(x, 0.95); err == nil && !finiteInterval(ci.CI) {
		t.Fatalf("MeanCI(%v) = %+v", x, ci)
	}
	s, err := Describe(x)
	if err != nil {
		return
	}
	for _, v := range []float64{s.Mean, s.SD, s.Min, s.Q1, s.Median, s.Q3, s.Max} {
		if !finiteOK(v) {
			t.Fatalf("Describe(%v) = %+v", x, s)
		}
	}
	if !nonDecreasing(s.Min, s.Q1, s.Median, s.Q3, s.Max) {
		t.Fatalf("Describe(%v): quantiles out of order %+v", x, s)
	}
}

// finiteInterval reports whether iv has finite ends in order.
func finiteInterval(iv Interval) bool { return finiteOK(iv.Lo) && finiteOK(iv.Hi) && iv.Lo <= iv.Hi }

func checkTwoSampleNaNFree(t *testing.T, a, b []float64) {
	t.Helper()
	if r, err := KS2(a, b, KSAuto); err == nil && (math.IsNaN(r.P) || math.IsNaN(r.D)) {
		t.Fatalf("KS2 = %+v", r)
	}
	if r, err := MannWhitney(a, b, Greater, MWUAuto); err == nil && (math.IsNaN(r.P) || math.IsNaN(r.Z)) {
		t.Fatalf("MannWhitney = %+v", r)
	}
	if r, err := CliffsDelta(a, b); err == nil && math.IsNaN(r.Delta) {
		t.Fatalf("CliffsDelta = %+v", r)
	}
}

// checkCurvesInRange: AUC (with alternating labels) lies in [0, 1] and
// the ECDF ends at 1.
func checkCurvesInRange(t *testing.T, x []float64) {
	t.Helper()
	labels := make([]bool, len(x))
	for i := range labels {
		labels[i] = i%2 == 0
	}
	if auc, err := AUC(x, labels); err == nil && !(auc >= 0 && auc <= 1) {
		t.Fatalf("AUC = %v", auc)
	}
	if pts, err := ECDF(x); err == nil && pts[len(pts)-1].F != 1 {
		t.Fatalf("ECDF ends at %+v", pts[len(pts)-1])
	}
}

// checkBHInRange maps x into [0, 1) and checks p ≤ BH(p) ≤ 1.
func checkBHInRange(t *testing.T, x []float64) {
	t.Helper()
	ps := make([]float64, len(x))
	for i, v := range x {
		ps[i] = math.Abs(math.Mod(v, 1))
	}
	adj, err := BH(ps)
	if err != nil {
		return
	}
	for i := range adj {
		if !(adj[i] >= ps[i] && adj[i] <= 1) {
			t.Fatalf("BH(%v) = %v", ps, adj)
		}
	}
}

func checkBinomialInRange(t *testing.T, k, n int, p0 float64) {
	t.Helper()
	for _, alt := range []Alternative{TwoSided, Less, Greater} {
		if r, err := BinomTest(k, n, p0, alt); err != nil || !(r.P >= 0 && r.P <= 1) {
			t.Fatalf("BinomTest(%d, %d, %v, %v) = %+v, %v", k, n, p0, alt, r, err)
		}
	}
	for _, fn := range []func(int, int, float64) (Interval, error){Wilson, WilsonCC, ClopperPearson} {
		if iv, err := fn(k, n, 0.95); err != nil || !(iv.Lo >= 0 && iv.Lo <= iv.Hi && iv.Hi <= 1) {
			t.Fatalf("interval(%d, %d) = %+v, %v", k, n, iv, err)
		}
	}
}
