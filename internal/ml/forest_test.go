package ml

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestForestAndBoostingLearnNonlinearBoundary(t *testing.T) {
	X, y := nonlinear(1, 2000, 10)
	Xt, yt := nonlinear(2, 1000, 10)
	tests := []struct {
		name    string
		m       Classifier
		minAUC  float64
		topFeat []int // the informative features must rank above all noise
	}{
		{"forest", &RandomForest{NTrees: 100, Seed: 42}, 0.95, []int{0, 1}},
		{"boosting", &GradientBoosting{NEstimators: 200, Seed: 42}, 0.95, []int{0, 1}},
		{"boosting subsample", &GradientBoosting{NEstimators: 200, Subsample: 0.7, Seed: 42}, 0.95, []int{0, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.m.Fit(context.Background(), X, y); err != nil {
				t.Fatal(err)
			}
			p := tc.m.PredictProba(Xt)
			checkProbaRange(t, p)
			auc := rocAUC(t, p, yt)
			if auc < tc.minAUC {
				t.Errorf("test AUC = %.4f, want ≥ %.2f", auc, tc.minAUC)
			}
			t.Logf("test AUC = %.4f", auc)
			checkImportances(t, tc.m.(Importancer).FeatureImportance(), tc.topFeat, 3)
		})
	}
}

func checkProbaRange(t *testing.T, p []float64) {
	t.Helper()
	for i, v := range p {
		if !(v >= 0 && v <= 1) {
			t.Fatalf("PredictProba[%d] = %v outside [0, 1]", i, v)
		}
	}
}

// checkImportances: imp sums to 1 and each of top ranks above every
// feature from noise on.
func checkImportances(t *testing.T, imp []float64, top []int, noise int) {
	t.Helper()
	var sum float64
	for _, v := range imp {
		sum += v
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("importances sum to %v, want 1", sum)
	}
	for _, f := range top {
		for j := noise; j < len(imp); j++ {
			if imp[f] <= imp[j] {
				t.Errorf("importance[%d] = %.4f ≤ noise importance[%d] = %.4f", f, imp[f], j, imp[j])
			}
		}
	}
}

// A logistic model beats chance but not the trees on the curved boundary
// (its AUC is bounded well below the forest's).
func TestLogisticWeakOnNonlinear(t *testing.T) {
	X, y := nonlinear(1, 2000, 10)
	Xt, yt := nonlinear(2, 1000, 10)
	m := &LogisticRegression{}
	if err := m.Fit(context.Background(), X, y); err != nil {
		t.Fatal(err)
	}
	if auc := rocAUC(t, m.PredictProba(Xt), yt); auc > 0.75 {
		t.Errorf("logistic AUC on a circular boundary = %.3f; the test data are not nonlinear enough", auc)
	}
}

func TestDeterminism(t *testing.T) {
	X, y := nonlinear(5, 600, 6)
	Xt, _ := nonlinear(6, 200, 6)
	fits := []struct {
		name        string
		a, b, other Classifier
	}{
		{"forest", &RandomForest{NTrees: 30, Seed: 7, Workers: 1}, &RandomForest{NTrees: 30, Seed: 7, Workers: 4}, &RandomForest{NTrees: 30, Seed: 8}},
		{"boosting", &GradientBoosting{NEstimators: 50, Subsample: 0.5, Seed: 7}, &GradientBoosting{NEstimators: 50, Subsample: 0.5, Seed: 7}, &GradientBoosting{NEstimators: 50, Subsample: 0.5, Seed: 8}},
		{"tree", &DecisionTree{MaxFeatures: 2, Seed: 7}, &DecisionTree{MaxFeatures: 2, Seed: 7}, &DecisionTree{MaxFeatures: 2, Seed: 8}},
	}
	for _, tc := range fits {
		t.Run(tc.name, func(t *testing.T) {
			var p [3][]float64
			for k, m := range []Classifier{tc.a, tc.b, tc.other} {
				if err := m.Fit(context.Background(), X, y); err != nil {
					t.Fatal(err)
				}
				p[k] = m.PredictProba(Xt)
			}
			if diff := cmp.Diff(p[0], p[1]); diff != "" {
				t.Errorf("same seed, different predictions (-a +b):\n%s", diff)
			}
			if slices.Equal(p[0], p[2]) {
				t.Errorf("different seeds gave identical predictions; the seed is not used")
			}
			// Refitting the same value must also reproduce itself.
			if err := tc.a.Fit(context.Background(), X, y); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(p[0], tc.a.PredictProba(Xt)); diff != "" {
				t.Errorf("refit changed predictions:\n%s", diff)
			}
		})
	}
}

func TestForestOOB(t *testing.T) {
	X, y := nonlinear(1, 1500, 6)
	m := &RandomForest{NTrees: 60, Seed: 1, OOB: true}
	if err := m.Fit(context.Background(), X, y); err != nil {
		t.Fatal(err)
	}
	oob := m.OOBProba()
	if len(oob) != len(X) {
		t.Fatalf("OOBProba has %d rows, want %d", len(oob), len(X))
	}
	// With 60 trees a row is in every bootstrap with probability
	// (1−e⁻¹)⁶⁰ ≈ 1e-12, so all rows have an OOB estimate.
	if auc := rocAUC(t, oob, y); auc < 0.93 {
		t.Errorf("OOB AUC = %.3f, want ≥ 0.93", auc)
	}
	// In-bag training predictions are optimistic; OOB ones are not.
	if train := rocAUC(t, m.PredictProba(X), y); train <= rocAUC(t, oob, y) {
		t.Errorf("training AUC %.3f ≤ OOB AUC; OOB is not out of bag", train)
	}
	if (&RandomForest{}).OOBProba() != nil {
		t.Errorf("unfitted forest has OOB scores")
	}
}

func TestForestNoBootstrapAllFeaturesIsOneTree(t *testing.T) {
	X, y := nonlinear(3, 400, 4)
	f := &RandomForest{NTrees: 5, NoBootstrap: true, MaxFeatures: 4}
	tr := &DecisionTree{}
	if err := f.Fit(context.Background(), X, y); err != nil {
		t.Fatal(err)
	}
	if err := tr.Fit(context.Background(), X, y); err != nil {
		t.Fatal(err)
	}
	Xt, _ := nonlinear(4, 100, 4)
	if diff := cmp.Diff(tr.PredictProba(Xt), f.PredictProba(Xt)); diff != "" {
		t.Errorf("deterministic forest differs from a single tree (-tree +forest):\n%s", diff)
	}
}
