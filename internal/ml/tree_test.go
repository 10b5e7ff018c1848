package ml

import (
	"context"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// handData is the tiny dataset whose CART splits are derived by hand in
// TestTreeHandComputed.
//
//	row  x0  x1  y
//	 0    1   0  0
//	 1    2   1  0
//	 2    3   0  0
//	 3    4   1  1
//	 4    5   1  1
//	 5    6   1  0
func handData() ([][]float64, []int) {
	return [][]float64{{1, 0}, {2, 1}, {3, 0}, {4, 1}, {5, 1}, {6, 1}}, []int{0, 0, 0, 1, 1, 0}
}

// TestTreeHandComputed checks splits derived by hand. With S(node) =
// Σ_k n_k²/n (so n·Gini = n − S), a split's weighted Gini decrease is
// S_L + S_R − S_P.
//
// Root (y = 0,0,0,1,1,0): S_P = (4² + 2²)/6 = 20/6.
//
//	x0 ≤ 1.5: 1 + (3²+2²)/5 = 3.600 → gain 0.267
//	x0 ≤ 2.5: 2 + (2²+2²)/4 = 4.000 → gain 0.667
//	x0 ≤ 3.5: 3 + (1²+2²)/3 = 4.667 → gain 1.333  ← best
//	x0 ≤ 4.5: (3²+1²)/4 + (1²+1²)/2 = 3.500 → gain 0.167
//	x0 ≤ 5.5: (3²+2²)/5 + 1 = 3.600 → gain 0.267
//	x1 ≤ 0.5: 2 + (2²+2²)/4 = 4.000 → gain 0.667
//
// Left child {rows 0,1,2} is pure. Right child {3,4,5} (y = 1,1,0, x1
// constant), S_P = 5/3: x0 ≤ 4.5 gives 1 + 1 = 2 (gain 1/3), x0 ≤ 5.5 gives
// 2 + 1 = 3 (gain 4/3) ← best. Leaves: {0,1,2} → 0, {3,4} → 1, {5} → 0.
// All gain is on x0, so its importance is 1.
func TestTreeHandComputed(t *testing.T) {
	X, y := handData()
	m := &DecisionTree{}
	if err := m.Fit(context.Background(), X, y); err != nil {
		t.Fatal(err)
	}
	want := []NodeSplit{
		{Depth: 0, Feature: 0, Threshold: 3.5, Value: 2.0 / 6},
		{Depth: 1, Feature: 0, Threshold: 5.5, Value: 2.0 / 3},
	}
	if diff := cmp.Diff(want, m.Splits(), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("Splits() mismatch (-want +got):\n%s", diff)
	}
	if m.Depth() != 2 || m.Leaves() != 3 {
		t.Errorf("Depth, Leaves = %d, %d; want 2, 3", m.Depth(), m.Leaves())
	}
	if diff := cmp.Diff([]float64{1, 0}, m.FeatureImportance()); diff != "" {
		t.Errorf("FeatureImportance mismatch (-want +got):\n%s", diff)
	}
	got := m.PredictProba([][]float64{{3.5, 9}, {3.6, -9}, {5.5, 0}, {5.51, 0}, {-100, 0}})
	if diff := cmp.Diff([]float64{0, 1, 1, 0, 0}, got); diff != "" {
		t.Errorf("PredictProba at thresholds mismatch (-want +got):\n%s", diff)
	}
}

func TestTreeControls(t *testing.T) {
	X, y := handData()
	tests := []struct {
		name   string
		m      DecisionTree
		splits []NodeSplit
	}{
		// Depth 1 keeps only the root split.
		{"MaxDepth=1", DecisionTree{MaxDepth: 1}, []NodeSplit{{0, 0, 3.5, 2.0 / 6}}},
		// With ≥ 3 rows per child only x0 ≤ 3.5 is allowed at the root and
		// neither 3-row child can be split again.
		{"MinSamplesLeaf=3", DecisionTree{MinSamplesLeaf: 3}, []NodeSplit{{0, 0, 3.5, 2.0 / 6}}},
		// A 3-row node may not be split when 4 rows are required.
		{"MinSamplesSplit=4", DecisionTree{MinSamplesSplit: 4}, []NodeSplit{{0, 0, 3.5, 2.0 / 6}}},
		// MinSamplesSplit above n leaves a single leaf.
		{"MinSamplesSplit=7", DecisionTree{MinSamplesSplit: 7}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.m
			if err := m.Fit(context.Background(), X, y); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.splits, m.Splits(), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("Splits() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// Equal gains: here x1 ≤ 0.5 separates {0,0,0} from {1,1,0}, exactly the
// partition (and gain 4/3) of x0 ≤ 3.5. The first feature in visit order
// wins.
func TestTreeTieBreakFirstFeature(t *testing.T) {
	X := [][]float64{{1, 0}, {2, 0}, {3, 0}, {4, 1}, {5, 1}, {6, 1}}
	y := []int{0, 0, 0, 1, 1, 0}
	m := &DecisionTree{MaxDepth: 1}
	if err := m.Fit(context.Background(), X, y); err != nil {
		t.Fatal(err)
	}
	if s := m.Splits(); !oneSplit(s, 0, 3.5) {
		t.Errorf("Splits() = %+v, want x0 ≤ 3.5 (first of two equal-gain splits)", s)
	}
	// Swapping the columns makes the former x1 the first feature.
	for _, r := range X {
		r[0], r[1] = r[1], r[0]
	}
	if err := m.Fit(context.Background(), X, y); err != nil {
		t.Fatal(err)
	}
	if s := m.Splits(); !oneSplit(s, 0, 0.5) {
		t.Errorf("after swapping columns Splits() = %+v, want x0 ≤ 0.5", s)
	}
}

// oneSplit reports whether s is a single split on feature at threshold.
func oneSplit(s []NodeSplit, feature int, threshold float64) bool {
	return len(s) == 1 && s[0].Feature == feature && s[0].Threshold == threshold
}

// A weight of 2 is a duplicated row and a weight of 0 a removed row.
func TestTreeWeightsEqualReplication(t *testing.T) {
	X, y := nonlinear(11, 300, 4)
	w := make([]float64, len(X))
	var Xr [][]float64
	var yr []int
	for i := range X {
		w[i] = float64(i % 3) // 0, 1, 2
		for range i % 3 {
			Xr = append(Xr, X[i])
			yr = append(yr, y[i])
		}
	}
	var a, b DecisionTree
	if err := a.FitWeighted(context.Background(), X, y, w); err != nil {
		t.Fatal(err)
	}
	if err := b.Fit(context.Background(), Xr, yr); err != nil {
		t.Fatal(err)
	}
	// Bin edges come from the rows present, so compare on the training
	// rows' values, where both trees' thresholds separate the same values.
	pa, pb := a.PredictProba(Xr), b.PredictProba(Xr)
	if diff := cmp.Diff(pb, pa, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("weighted vs replicated predictions differ (-replicated +weighted):\n%s", diff)
	}
	if a.Leaves() != b.Leaves() {
		t.Errorf("leaves: weighted %d, replicated %d", a.Leaves(), b.Leaves())
	}
}

// XOR: logistic regression cannot separate it (AUC ≈ ½), trees can. A
// greedy depth-2 tree is not enough on noisy XOR — every root split has
// near-zero gain, so the root threshold lands anywhere — hence depth 6.
func TestXORTreesVersusLogistic(t *testing.T) {
	X, y := xor(1, 2000)
	Xt, yt := xor(2, 1000)
	lr := &LogisticRegression{}
	if err := lr.Fit(context.Background(), X, y); err != nil {
		t.Fatal(err)
	}
	if auc := rocAUC(t, lr.PredictProba(Xt), yt); auc > 0.6 || auc < 0.4 {
		t.Errorf("logistic regression AUC on XOR = %.3f, want ≈ 0.5", auc)
	}
	tr := &DecisionTree{MaxDepth: 6}
	if err := tr.Fit(context.Background(), X, y); err != nil {
		t.Fatal(err)
	}
	if auc := rocAUC(t, tr.PredictProba(Xt), yt); auc < 0.97 {
		t.Errorf("depth-6 tree AUC on XOR = %.3f, want ≥ 0.97", auc)
	}
	gb := &GradientBoosting{}
	if err := gb.Fit(context.Background(), X, y); err != nil {
		t.Fatal(err)
	}
	if auc := rocAUC(t, gb.PredictProba(Xt), yt); auc < 0.97 {
		t.Errorf("gradient boosting AUC on XOR = %.3f, want ≥ 0.97", auc)
	}
}

// The exact 4-point XOR has zero gain everywhere at the root; CART still
// splits (scikit-learn does too) and reaches zero training error.
func TestTreeExactXOR(t *testing.T) {
	X := [][]float64{{0, 0}, {0, 1}, {1, 0}, {1, 1}}
	y := []int{1, 0, 0, 1}
	m := &DecisionTree{}
	if err := m.Fit(context.Background(), X, y); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]float64{1, 0, 0, 1}, m.PredictProba(X)); diff != "" {
		t.Errorf("training predictions (-want +got):\n%s", diff)
	}
	if imp := m.FeatureImportance(); imp[0]+imp[1] != 1 && imp[0]+imp[1] != 0 {
		t.Errorf("FeatureImportance = %v", imp)
	}
}

func TestTreeMaxFeaturesSeeded(t *testing.T) {
	X, y := nonlinear(3, 500, 8)
	fit := func(seed uint64) []NodeSplit {
		m := &DecisionTree{MaxFeatures: 2, Seed: seed}
		if err := m.Fit(context.Background(), X, y); err != nil {
			t.Fatal(err)
		}
		return m.Splits()
	}
	a, b, c := fit(1), fit(1), fit(2)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("same seed, different trees:\n%s", diff)
	}
	if cmp.Equal(a, c) {
		t.Errorf("seeds 1 and 2 grew identical trees; MaxFeatures sampling is not seeded")
	}
	if math.IsNaN(a[0].Threshold) {
		t.Errorf("NaN threshold")
	}
}
