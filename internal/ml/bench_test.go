package ml

import (
	"context"
	"testing"
)

// The §7 evaluation refits every model per fold and seed (5 folds × 3
// seeds × 3 models must stay under a minute on 2 cores), so one fit on
// 3,000 × 20 must be well under a second.
func benchFit(b *testing.B, m Classifier) {
	X, y := nonlinear(1, 3000, 20)
	cpu0 := processCPU()
	for b.Loop() {
		if err := m.Fit(context.Background(), X, y); err != nil {
			b.Fatal(err)
		}
	}
	// CPU time summed over all threads: on a shared machine this is the
	// steadier figure; divide by cores for an unloaded wall-time estimate.
	b.ReportMetric(float64(processCPU()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
}

func BenchmarkFitLogistic(b *testing.B) { benchFit(b, &LogisticRegression{}) }
func BenchmarkFitTree(b *testing.B)     { benchFit(b, &DecisionTree{}) }
func BenchmarkFitForest200(b *testing.B) {
	benchFit(b, &RandomForest{NTrees: 200, Seed: 1})
}
func BenchmarkFitForest200OneWorker(b *testing.B) {
	benchFit(b, &RandomForest{NTrees: 200, Seed: 1, Workers: 1})
}
func BenchmarkFitGBT200(b *testing.B) {
	benchFit(b, &GradientBoosting{NEstimators: 200, Seed: 1})
}
func BenchmarkFitGBT200Subsample(b *testing.B) {
	benchFit(b, &GradientBoosting{NEstimators: 200, Subsample: 0.8, Seed: 1})
}

func BenchmarkPredictForest200(b *testing.B) {
	X, y := nonlinear(1, 3000, 20)
	m := &RandomForest{NTrees: 200, Seed: 1}
	if err := m.Fit(context.Background(), X, y); err != nil {
		b.Fatal(err)
	}
	cpu0 := processCPU()
	for b.Loop() {
		m.PredictProba(X)
	}
	b.ReportMetric(float64(processCPU()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
}
