package ml

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// One Newton stump on handData, derived by hand. F₀ = ln(2/4) = −ln 2, so
// every p = 1/3: gᵢ = 1/3 for y = 0 and −2/3 for y = 1, hᵢ = 2/9. With
// λ = 1 and S = G²/(H+λ) (parent G = 0, so S_P = 0):
//
//	x0 ≤ 3.5: L G = 1,    H = 2/3 → S = 3/5; R G = −1, H = 2/3 → 3/5; gain ½·6/5 = 0.6
//	x0 ≤ 2.5: L G = 2/3,  H = 4/9 → 4/13; R G = −2/3, H = 8/9 → 4/17; gain 0.27
//	x1 ≤ 0.5: the same partition sizes as x0 ≤ 2.5                    gain 0.27
//
// Leaves −G/(H+λ): left −3/5, right +3/5.
func TestBoostingNewtonStumpByHand(t *testing.T) {
	X, y := handData()
	m := &GradientBoosting{NEstimators: 1, MaxDepth: 1, LearningRate: 1}
	if err := m.Fit(context.Background(), X, y); err != nil {
		t.Fatal(err)
	}
	ln2 := math.Log(2)
	want := []float64{-ln2 - 0.6, -ln2 - 0.6, -ln2 - 0.6, -ln2 + 0.6, -ln2 + 0.6, -ln2 + 0.6}
	if diff := cmp.Diff(want, m.DecisionFunction(X), cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("DecisionFunction (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{1, 0}, m.FeatureImportance()); diff != "" {
		t.Errorf("FeatureImportance (-want +got):\n%s", diff)
	}
	// The learning rate scales every leaf.
	m.LearningRate = 0.5
	if err := m.Fit(context.Background(), X, y); err != nil {
		t.Fatal(err)
	}
	if got := m.DecisionFunction(X[:1])[0]; math.Abs(got-(-ln2-0.3)) > 1e-12 {
		t.Errorf("with learning rate ½, F(x₀) = %v, want %v", got, -ln2-0.3)
	}
}

// The initial score is the prior log-odds: with a feature that carries no
// information every stage's gain is ≤ 0 and the model stays at the prior.
func TestBoostingPriorOnly(t *testing.T) {
	X := [][]float64{{1}, {1}, {1}, {1}}
	y := []int{1, 0, 0, 0}
	m := &GradientBoosting{NEstimators: 5}
	if err := m.Fit(context.Background(), X, y); err != nil {
		t.Fatal(err)
	}
	for _, p := range m.PredictProba(X) {
		if math.Abs(p-0.25) > 1e-12 {
			t.Fatalf("PredictProba = %v, want the prior 0.25", p)
		}
	}
}

// Each Newton stage with shrinkage lowers the training log-loss.
func TestBoostingTrainingLossDecreases(t *testing.T) {
	X, y := nonlinear(9, 800, 5)
	prev := math.Inf(1)
	for _, n := range []int{1, 5, 20, 80} {
		m := &GradientBoosting{NEstimators: n}
		if err := m.Fit(context.Background(), X, y); err != nil {
			t.Fatal(err)
		}
		loss := logLossOf(m.PredictProba(X), y)
		if !(loss < prev) {
			t.Errorf("training log-loss with %d stages = %.4f, not below %.4f", n, loss, prev)
		}
		prev = loss
	}
}

func TestCancellation(t *testing.T) {
	X, y := nonlinear(1, 300, 4)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, m := range []Classifier{&LogisticRegression{}, &DecisionTree{}, &RandomForest{}, &GradientBoosting{}} {
		err := m.Fit(ctx, X, y)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%T.Fit on a cancelled context: %v, want context.Canceled", m, err)
		}
		if p := m.PredictProba(X[:1]); !math.IsNaN(p[0]) {
			t.Errorf("%T after a cancelled Fit predicts %v, want NaN (not fitted)", m, p[0])
		}
	}
}
