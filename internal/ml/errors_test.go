package ml

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
)

func allModels() []Classifier {
	return []Classifier{&LogisticRegression{}, &DecisionTree{}, &RandomForest{NTrees: 3}, &GradientBoosting{NEstimators: 3}}
}

func TestFitRejectsBadInput(t *testing.T) {
	ok := [][]float64{{0, 1}, {1, 0}, {2, 2}}
	tests := []struct {
		name string
		X    [][]float64
		y    []int
		msg  string // the error must name the offending place
	}{
		{"empty", nil, nil, "no rows"},
		{"no features", [][]float64{{}, {}}, []int{0, 1}, "no features"},
		{"length mismatch", ok, []int{0, 1}, "3 rows but 2 labels"},
		{"ragged", [][]float64{{0, 1}, {1}, {2, 2}}, []int{0, 1, 0}, "row 1 has 1 features"},
		{"one class", ok, []int{1, 1, 1}, "all 3 labels are 1"},
		{"bad label", ok, []int{0, 2, 1}, "y[1] = 2"},
		{"NaN", [][]float64{{0, 1}, {1, math.NaN()}, {2, 2}}, []int{0, 1, 0}, "X[1][1] = NaN"},
		{"+Inf", [][]float64{{0, 1}, {1, 0}, {math.Inf(1), 2}}, []int{0, 1, 0}, "X[2][0] = +Inf"},
	}
	for _, m := range allModels() {
		for _, tc := range tests {
			t.Run(typeName(m)+"/"+tc.name, func(t *testing.T) {
				err := m.Fit(context.Background(), tc.X, tc.y)
				if !errors.Is(err, errs.ErrInput) {
					t.Fatalf("Fit error = %v, want one wrapping errs.ErrInput", err)
				}
				if !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), ".Fit") {
					t.Errorf("Fit error %q does not name the op and %q", err, tc.msg)
				}
			})
		}
	}
}

func TestFitRejectsBadHyperParameters(t *testing.T) {
	X, y := handData()
	bad := []Classifier{
		&LogisticRegression{C: -1},
		&LogisticRegression{C: math.NaN()},
		&LogisticRegression{C: math.Inf(1)},
		&LogisticRegression{MaxIter: -1},
		&DecisionTree{MaxDepth: -1},
		&DecisionTree{MinSamplesSplit: 1},
		&DecisionTree{MinSamplesLeaf: -2},
		&DecisionTree{MaxFeatures: -1},
		&DecisionTree{MaxBins: 1},
		&DecisionTree{MaxBins: 257},
		&RandomForest{NTrees: -1},
		&RandomForest{Workers: -1},
		&RandomForest{MaxBins: 1000},
		&GradientBoosting{NEstimators: -5},
		&GradientBoosting{LearningRate: 1.5},
		&GradientBoosting{LearningRate: math.NaN()},
		&GradientBoosting{MaxDepth: -1},
		&GradientBoosting{Subsample: 2},
		&GradientBoosting{Lambda: -1},
		&GradientBoosting{MinChildWeight: math.Inf(1)},
		&GradientBoosting{MinSamplesLeaf: -1},
		&GradientBoosting{MaxBins: 300},
	}
	for _, m := range bad {
		if err := m.Fit(context.Background(), X, y); !errors.Is(err, errs.ErrUsage) {
			t.Errorf("%+v: Fit error = %v, want one wrapping errs.ErrUsage", m, err)
		}
	}
}

func TestFitWeightedRejectsBadWeights(t *testing.T) {
	X, y := handData()
	for _, w := range [][]float64{
		{1, 1, 1},                          // wrong length
		{1, 1, -1, 1, 1, 1},                // negative
		{1, math.NaN(), 1, 1, 1, 1},        // NaN
		{1, 1, 1, 0, 0, 1},                 // class 1 has no weight
		{1, 1, 1, 1, math.Inf(1), 1},       // infinite
		{1e308, 1e308, 1e308, 1, 1, 1e308}, // total overflows
	} {
		var m DecisionTree
		if err := m.FitWeighted(context.Background(), X, y, w); !errors.Is(err, errs.ErrInput) {
			t.Errorf("weights %v: error = %v, want errs.ErrInput", w, err)
		}
	}
}

func TestPredictNeverPanics(t *testing.T) {
	X, y := handData()
	for _, m := range allModels() {
		// Unfitted: every row is NaN.
		for _, p := range m.PredictProba([][]float64{{1, 2}, nil}) {
			if !math.IsNaN(p) {
				t.Errorf("%s unfitted PredictProba = %v, want NaN", typeName(m), p)
			}
		}
		if err := m.Fit(context.Background(), X, y); err != nil {
			t.Fatal(err)
		}
		checkInvalidRowsNaN(t, m)
		if len(m.PredictProba(nil)) != 0 {
			t.Errorf("%s: PredictProba(nil) not empty", typeName(m))
		}
	}
}

// checkInvalidRowsNaN: a fitted m scores a valid row in [0, 1] and rows
// of the wrong width, or with NaN or ±Inf, as NaN.
func checkInvalidRowsNaN(t *testing.T, m Classifier) {
	t.Helper()
	p := m.PredictProba([][]float64{{1, 2}, {1}, nil, {1, 2, 3}, {math.NaN(), 0}, {math.Inf(-1), math.Inf(1)}})
	if !(p[0] >= 0 && p[0] <= 1) {
		t.Errorf("%s: valid row scored %v", typeName(m), p[0])
	}
	for _, v := range p[1:] {
		if !math.IsNaN(v) {
			t.Errorf("%s: invalid rows scored %v, want NaN", typeName(m), p[1:])
		}
	}
}

// A failed refit must not leave the previous model in place.
func TestFailedFitLeavesModelUnfitted(t *testing.T) {
	X, y := handData()
	for _, m := range allModels() {
		if err := m.Fit(context.Background(), X, y); err != nil {
			t.Fatal(err)
		}
		if err := m.Fit(context.Background(), X, []int{1, 1, 1, 1, 1, 1}); err == nil {
			t.Fatalf("%s: one-class refit succeeded", typeName(m))
		}
		if p := m.PredictProba(X[:1]); !math.IsNaN(p[0]) {
			t.Errorf("%s: after a failed refit PredictProba = %v, want NaN", typeName(m), p[0])
		}
	}
}

func typeName(m Classifier) string {
	switch m.(type) {
	case *LogisticRegression:
		return "LogisticRegression"
	case *DecisionTree:
		return "DecisionTree"
	case *RandomForest:
		return "RandomForest"
	case *GradientBoosting:
		return "GradientBoosting"
	}
	return "?"
}
