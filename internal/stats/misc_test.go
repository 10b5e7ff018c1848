package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestBH(t *testing.T) {
	approx := cmpopts.EquateApprox(0, 1e-15)
	tests := []struct {
		name string
		p    []float64
		want []float64
	}{
		// By hand: sorted 0.005, 0.01, 0.03, 0.04 (m = 4) → 4p/i =
		// 0.02, 0.02, 0.04, 0.04; cumulative minimum from the top keeps
		// them; back in input order.
		{"hand", []float64{0.01, 0.04, 0.03, 0.005}, []float64{0.02, 0.04, 0.04, 0.02}},
		// R: p.adjust(c(.01,.02,.03,.04,.05), "BH") = all 0.05 (m·p/i = 0.05).
		{"R doc", []float64{0.01, 0.02, 0.03, 0.04, 0.05}, []float64{0.05, 0.05, 0.05, 0.05, 0.05}},
		// Capped at 1 (hand: 2·0.9/1 = 1.8 → min with 0.9·2/2 = 0.9).
		{"cap", []float64{0.9, 0.9}, []float64{0.9, 0.9}},
		{"one", []float64{0.3}, []float64{0.3}},
		// Monotone step-down: 3·0.6/1 = 1.8 → 1 capped, then min(1, .., 0.7) (hand).
		{"cap2", []float64{0.6, 0.65, 0.7}, []float64{0.7, 0.7, 0.7}},
	}
	for _, tt := range tests {
		got, err := BH(tt.p)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tt.want, got, approx); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, d)
		}
	}
	// Properties against the O(m²) definition, with random ties.
	r := rand.New(rand.NewPCG(17, 18))
	for range 50 {
		m := 1 + r.IntN(30)
		p := make([]float64, m)
		for i := range p {
			p[i] = math.Round(r.Float64()*20) / 20 * r.Float64()
		}
		checkBHProperties(t, p)
	}
	for _, bad := range [][]float64{nil, {0.5, math.NaN()}, {-0.1}, {1.1}} {
		_, err := BH(bad)
		assertErrIs(t, err, errs.ErrInput)
	}
	_, _, err := BHReject([]float64{0.1}, 0)
	assertErrIs(t, err, errs.ErrInput)
}

// checkBHProperties checks BH(p) against its definition and monotonicity,
// and BHReject(p, 0.1) against the step-up definition.
func checkBHProperties(t *testing.T, p []float64) {
	t.Helper()
	adj, err := BH(p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range p {
		want := bhDefinition(p, i)
		if !near(adj[i], want, 1e-14) || adj[i] < p[i] {
			t.Errorf("p=%v: adj[%d] = %v, definition %v", p, i, adj[i], want)
		}
		for j := range p {
			if p[i] < p[j] && adj[i] > adj[j] {
				t.Errorf("not monotone: p %v→%v, adj %v→%v", p[i], p[j], adj[i], adj[j])
			}
		}
	}
	rej, adj2, err := BHReject(p, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	cut := stepUpCut(p, 0.1)
	for i := range p {
		if rej[i] != (p[i] <= cut) || adj2[i] != adj[i] {
			t.Errorf("p=%v: reject[%d] = %v, step-up cut %v", p, i, rej[i], cut)
		}
	}
}

// rankOf is the largest rank among values equal to v: #{p_k ≤ v}.
func rankOf(p []float64, v float64) int {
	rank := 0
	for _, pk := range p {
		if pk <= v {
			rank++
		}
	}
	return rank
}

// bhDefinition is the O(m²) definition of p_i's adjusted value: the
// minimum over p_j ≥ p_i of min(1, m·p_j/rank_j).
func bhDefinition(p []float64, i int) float64 {
	want := 1.0
	for j := range p {
		if p[j] >= p[i] {
			want = math.Min(want, math.Min(1, float64(len(p))*p[j]/float64(rankOf(p, p[j]))))
		}
	}
	return want
}

// stepUpCut is the step-up definition's threshold: p_(k) for k = max{i :
// p_(i) ≤ i·q/m}, or -1 when there is none; p ≤ p_(k) is rejected.
func stepUpCut(p []float64, q float64) float64 {
	cut := -1.0
	for _, pj := range p {
		if pj <= float64(rankOf(p, pj))*q/float64(len(p)) {
			cut = math.Max(cut, pj)
		}
	}
	return cut
}

func TestCohensKappa(t *testing.T) {
	// Wikipedia "Cohen's kappa" 2×2 example: yes/yes 20, yes/no 5,
	// no/yes 10, no/no 15 (n = 50): po = 0.7, pe = 0.5·0.6 + 0.5·0.4 = 0.5,
	// κ = 0.4. SE by hand: sqrt(0.7·0.3/50)/0.5 = 0.12961481396815720.
	var a, b []string
	add := func(x, y string, c int) {
		for range c {
			a, b = append(a, x), append(b, y)
		}
	}
	add("yes", "yes", 20)
	add("yes", "no", 5)
	add("no", "yes", 10)
	add("no", "no", 15)
	k, err := CohensKappa(a, b, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	assertNear(t, "kappa", k.Kappa, 0.4, 1e-14)
	assertNear(t, "po", k.Po, 0.7, 1e-15)
	assertNear(t, "pe", k.Pe, 0.5, 1e-15)
	assertNear(t, "se", k.SE, 0.12961481396815720, 1e-14)
	// 0.4 ± 1.959963984540054·SE (z from the normal table).
	assertNear(t, "ci lo", k.CI.Lo, 0.4-1.959963984540054*0.1296148139681572, 1e-9)
	if k.Categories != 2 || k.N != 50 {
		t.Errorf("%+v", k)
	}
	// Perfect agreement over 3 labels: κ = 1, SE = 0 (hand).
	k, err = CohensKappa([]int{1, 2, 3, 1}, []int{1, 2, 3, 1}, 0.95)
	if err != nil || k.Kappa != 1 || k.SE != 0 || k.CI != (Interval{1, 1}) {
		t.Errorf("perfect: %+v %v", k, err)
	}
	// Systematic disagreement on a balanced 2×2: po = 0, pe = 0.5, κ = −1 (hand).
	k, _ = CohensKappa([]bool{true, false}, []bool{false, true}, 0.95)
	assertNear(t, "kappa", k.Kappa, -1, 1e-15)
	// Errors.
	_, err = CohensKappa([]string{"a", "a"}, []string{"a", "a"}, 0.95)
	assertErrIs(t, err, errs.ErrInput) // pe = 1
	_, err = CohensKappa([]string{"a"}, []string{"a", "b"}, 0.95)
	assertErrIs(t, err, errs.ErrInput)
	_, err = CohensKappa([]string{}, []string{}, 0.95)
	assertErrIs(t, err, errs.ErrInput)
	_, err = CohensKappa([]string{"a", "b"}, []string{"a", "b"}, 0)
	assertErrIs(t, err, errs.ErrInput)
}

func TestDescriptives(t *testing.T) {
	one10 := []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}
	tests := []struct {
		name string
		f    func() (float64, error)
		want float64
	}{
		// R: quantile(1:10, .25) = 3.25 (type 7: h = 9·0.25 = 2.25 → 3 + 0.25).
		{"Q(.25) 1..10", func() (float64, error) { return Quantile(one10, 0.25) }, 3.25},
		{"Q(0)", func() (float64, error) { return Quantile(one10, 0) }, 1},
		{"Q(1)", func() (float64, error) { return Quantile(one10, 1) }, 10},
		{"median odd", func() (float64, error) { return Median([]float64{3, 1, 2}) }, 2},
		{"median even", func() (float64, error) { return Median([]float64{4, 1, 3, 2}) }, 2.5},
		{"median n=1", func() (float64, error) { return Median([]float64{7}) }, 7},
		// IQR(1:10) = 7.75 − 3.25 = 4.5 (hand, type 7).
		{"IQR", func() (float64, error) { return IQR(one10) }, 4.5},
		{"mean", func() (float64, error) { return Mean([]float64{1, 2, 3, 4}) }, 2.5},
		// {2,4,4,4,5,5,7,9}: mean 5, Σ(x−5)² = 32, sd = sqrt(32/7) (hand).
		{"sd", func() (float64, error) { return SD([]float64{2, 4, 4, 4, 5, 5, 7, 9}) }, math.Sqrt(32.0 / 7)},
		// Large offset: mean of 1e15+{1,2,3} is 1e15+2 exactly.
		{"mean offset", func() (float64, error) { return Mean([]float64{1e15 + 1, 1e15 + 2, 1e15 + 3}) }, 1e15 + 2},
		// Values near MaxFloat64 do not overflow the mean.
		{"mean huge", func() (float64, error) { return Mean([]float64{math.MaxFloat64, math.MaxFloat64}) }, math.MaxFloat64},
		{"quantile huge", func() (float64, error) { return Quantile([]float64{-math.MaxFloat64, math.MaxFloat64}, 0.5) }, 0},
	}
	for _, tt := range tests {
		got, err := tt.f()
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		assertNear(t, tt.name, got, tt.want, 1e-15)
	}
	s, err := Describe(one10)
	if err != nil {
		t.Fatal(err)
	}
	// sd(1:10) = sqrt(82.5/9) = 3.0276503540974917 (hand); quartiles type 7.
	want := Summary{N: 10, Mean: 5.5, SD: math.Sqrt(82.5 / 9), Min: 1, Q1: 3.25, Median: 5.5, Q3: 7.75, Max: 10}
	if d := cmp.Diff(want, s, cmpopts.EquateApprox(0, 1e-15)); d != "" {
		t.Errorf("Describe (-want +got):\n%s", d)
	}
	if s, err := Describe([]float64{4}); err != nil || s.SD != 0 || s.Median != 4 {
		t.Errorf("Describe n=1: %+v %v", s, err)
	}
	errCases := []func() error{
		func() error { _, err := Mean(nil); return err },
		func() error { _, err := Mean([]float64{1, math.NaN()}); return err },
		func() error { _, err := Mean([]float64{math.Inf(1)}); return err },
		func() error { _, err := SD([]float64{1}); return err },
		func() error { _, err := SD([]float64{-math.MaxFloat64, math.MaxFloat64}); return err },
		func() error { _, err := Quantile([]float64{1}, 1.5); return err },
		func() error { _, err := Quantile([]float64{1}, math.NaN()); return err },
		func() error { _, err := Median(nil); return err },
		func() error { _, err := Describe(nil); return err },
		func() error { _, err := MeanCI([]float64{1}, 0.95); return err },
		func() error { _, err := MeanCI([]float64{1, 2}, 1); return err },
	}
	for i, f := range errCases {
		assertErrIs(t, f(), errs.ErrInput)
		_ = i
	}
}

func TestMeanCI(t *testing.T) {
	// x = 1..5: mean 3, sd = sqrt(2.5), se = sqrt(0.5); t_{0.975,4} =
	// 2.776445105 (Student t table) → 3 ± 1.9632432 (hand).
	ci, err := MeanCI([]float64{1, 2, 3, 4, 5}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	assertNear(t, "mean", ci.Mean, 3, 1e-15)
	assertNear(t, "se", ci.SE, math.Sqrt(0.5), 1e-15)
	assertNear(t, "lo", ci.CI.Lo, 3-2.776445105197793*math.Sqrt(0.5), 1e-9)
	assertNear(t, "hi", ci.CI.Hi, 3+2.776445105197793*math.Sqrt(0.5), 1e-9)
	// n = 2: t_{0.975,1} = 12.70620474 (table); x = {0, 2}: sd √2, se 1.
	ci, err = MeanCI([]float64{0, 2}, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	assertNear(t, "hi n=2", ci.CI.Hi, 1+12.706204736174698, 1e-8)
	// Constant sample: zero-width interval, not NaN.
	ci, err = MeanCI([]float64{4, 4, 4}, 0.9)
	if err != nil || ci.CI != (Interval{4, 4}) {
		t.Errorf("constant: %+v %v", ci, err)
	}
}
