package ml

import (
	"errors"
	"math"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestDatasetValidate(t *testing.T) {
	good := Dataset{X: [][]float64{{1, 2}, {3, 4}}, Y: []int{0, 1}, Names: []string{"a", "b"}}
	if err := good.Validate(); err != nil {
		t.Fatalf("Validate(good) = %v", err)
	}
	bad := []Dataset{
		{},
		{X: [][]float64{{1, 2}, {3, 4}}, Y: []int{0, 1}, Names: []string{"a"}},
		{X: [][]float64{{1, 2}, {3, 4}}, Y: []int{0, 0}},
		{X: [][]float64{{1, 2}, {3, math.NaN()}}, Y: []int{0, 1}},
	}
	for i, d := range bad {
		if err := d.Validate(); !errors.Is(err, errs.ErrInput) {
			t.Errorf("case %d: Validate = %v, want errs.ErrInput", i, err)
		}
	}
}

func TestSplit(t *testing.T) {
	d := Dataset{X: [][]float64{{0}, {1}, {2}, {3}, {4}}, Y: []int{0, 1, 0, 1, 0}, Names: []string{"x"}}
	tr, te, err := Split(d, []int{4, 0, 2}, []int{1, 3})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Dataset{X: [][]float64{{4}, {0}, {2}}, Y: []int{0, 0, 0}, Names: []string{"x"}}, tr); diff != "" {
		t.Errorf("train (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(Dataset{X: [][]float64{{1}, {3}}, Y: []int{1, 1}, Names: []string{"x"}}, te); diff != "" {
		t.Errorf("test (-want +got):\n%s", diff)
	}
	for _, c := range []struct{ train, test []int }{
		{[]int{0, 1}, []int{1, 2}}, // overlap leaks a row
		{[]int{0, 5}, []int{1}},    // out of range
		{[]int{0}, []int{-1}},      // negative
	} {
		if _, _, err := Split(d, c.train, c.test); !errors.Is(err, errs.ErrInput) {
			t.Errorf("Split(%v, %v) = %v, want errs.ErrInput", c.train, c.test, err)
		}
	}
	if _, err := (Dataset{X: [][]float64{{1}}, Y: nil}).Subset([]int{0}); !errors.Is(err, errs.ErrInput) {
		t.Errorf("Subset with missing labels = %v, want errs.ErrInput", err)
	}
}

func TestStandardizer(t *testing.T) {
	train := [][]float64{{1, 10, 5}, {2, 20, 5}, {3, 30, 5}, {4, 40, 5}}
	s, err := FitStandardizer(train)
	if err != nil {
		t.Fatal(err)
	}
	// Population sd of 1..4 is √1.25; the constant column keeps scale 1.
	sd := math.Sqrt(1.25)
	want := &Standardizer{Mean: []float64{2.5, 25, 5}, Scale: []float64{sd, 10 * sd, 1}}
	if diff := cmp.Diff(want, s, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("FitStandardizer (-want +got):\n%s", diff)
	}
	// Test rows use the training statistics, not their own.
	got, err := s.Transform([][]float64{{2.5, 25, 7}, {2.5 + sd, 25 - 20*sd, 5}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]float64{{0, 0, 2}, {1, -2, 0}}, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("Transform (-want +got):\n%s", diff)
	}
	if train[0][0] != 1 {
		t.Errorf("Transform modified its input")
	}
	if _, err := s.Transform([][]float64{{1, 2}}); !errors.Is(err, errs.ErrInput) {
		t.Errorf("Transform of a short row = %v, want errs.ErrInput", err)
	}
	var unfitted *Standardizer
	if _, err := unfitted.Transform(train); !errors.Is(err, errs.ErrInput) {
		t.Errorf("nil Standardizer Transform = %v, want errs.ErrInput", err)
	}
	if _, err := FitStandardizer(nil); !errors.Is(err, errs.ErrInput) {
		t.Errorf("FitStandardizer(nil) = %v, want errs.ErrInput", err)
	}
}

func TestBinEdges(t *testing.T) {
	tests := []struct {
		name    string
		v       []float64
		maxBins int
		want    []float64
	}{
		{"distinct midpoints", []float64{1, 1, 2, 4, 4, 4}, 256, []float64{1.5, 3}},
		{"single value", []float64{7, 7}, 256, []float64{}},
		// 8 distinct values, 4 bins: gaps above the values at ranks 2, 4, 6.
		{"quantiles", []float64{1, 2, 3, 4, 5, 6, 7, 8}, 4, []float64{3.5, 5.5, 7.5}},
		// Heavy ties: the quantile value repeats, edges are deduplicated.
		{"ties", []float64{0, 0, 0, 0, 0, 0, 1, 2, 3}, 2, []float64{0.5}},
		// Adjacent floats: the midpoint rounds to b, so a is used.
		{"adjacent floats", []float64{1, math.Nextafter(1, 2)}, 256, []float64{1}},
		{"huge", []float64{-math.MaxFloat64, math.MaxFloat64}, 256, []float64{0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := binEdges(tc.v, tc.maxBins)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("binEdges (-want +got):\n%s", diff)
			}
			for k := 1; k < len(got); k++ {
				if !(got[k] > got[k-1]) {
					t.Errorf("edges not increasing: %v", got)
				}
			}
		})
	}
}

// Continuous features with more distinct values than bins still train
// and the coded split agrees with the raw-threshold rule on every row.
func TestBinnedRoutingMatchesThresholds(t *testing.T) {
	X, y := nonlinear(4, 1000, 3)
	m := &GradientBoosting{NEstimators: 20, MaxBins: 16}
	if err := m.Fit(t.Context(), X, y); err != nil {
		t.Fatal(err)
	}
	b := binFeatures(X, 3, 16)
	for i, row := range X {
		for k := range m.trees {
			if a, c := m.trees[k].predict(row), m.trees[k].predictBinned(&b, i); a != c {
				t.Fatalf("row %d tree %d: threshold routing %v, bin routing %v", i, k, a, c)
			}
		}
	}
}
