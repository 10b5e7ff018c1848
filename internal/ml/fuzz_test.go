package ml

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
)

// fuzzValues is the palette fuzz bytes index into: ordinary values, ties,
// extremes and non-finite values.
var fuzzValues = []float64{
	0, 1, -1, 0.5, 2, 3, 1e-300, -1e-300, 1e300, -1e300, math.MaxFloat64,
	-math.MaxFloat64, math.SmallestNonzeroFloat64, math.Nextafter(1, 2),
	math.NaN(), math.Inf(1), math.Inf(-1), 42, -7.25, 1e6,
}

// decodeDataset turns fuzz bytes into a small, possibly invalid dataset:
// byte 0 → rows (1–24), byte 1 → features (1–4), then per row one label
// byte (values 0–2, 2 being invalid) and one palette byte per feature.
// A ragged row appears when a 0xFF byte is met.
func decodeDataset(data []byte) ([][]float64, []int) {
	if len(data) < 2 {
		return nil, nil
	}
	n, d := 1+int(data[0])%24, 1+int(data[1])%4
	data = data[2:]
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	X := make([][]float64, n)
	y := make([]int, n)
	for i := range X {
		lb := next()
		y[i] = int(lb) % 2
		if lb == 0xFE {
			y[i] = 2
		}
		row := make([]float64, 0, d)
		for range d {
			b := next()
			if b == 0xFF {
				break
			}
			row = append(row, fuzzValues[int(b)%len(fuzzValues)])
		}
		X[i] = row
	}
	return X, y
}

// checkInputErr: err wraps errs.ErrInput.
func checkInputErr(t *testing.T, what string, err error) {
	t.Helper()
	if !errors.Is(err, errs.ErrInput) {
		t.Fatalf("%s error %v does not wrap errs.ErrInput", what, err)
	}
}

// checkStandardizerFinite: fitting a standardiser on X fails with
// ErrInput or transforms X into finite values.
func checkStandardizerFinite(t *testing.T, X [][]float64) {
	t.Helper()
	s, err := FitStandardizer(X)
	if err != nil {
		checkInputErr(t, "FitStandardizer", err)
		return
	}
	Z, err := s.Transform(X)
	if err != nil {
		t.Fatalf("Transform of the fitting rows: %v", err)
	}
	for i, row := range Z {
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("standardised Z[%d][%d] = %v from X = %v", i, j, v, X[i][j])
			}
		}
	}
}

// checkProbaInUnit: every probability of p lies in [0, 1].
func checkProbaInUnit(t *testing.T, name string, p []float64) {
	t.Helper()
	for i, v := range p {
		if !(v >= 0 && v <= 1) {
			t.Fatalf("%s: PredictProba[%d] = %v on a training row", name, i, v)
		}
	}
}

func checkImportanceFinite(t *testing.T, m Classifier) {
	t.Helper()
	for _, v := range m.(Importancer).FeatureImportance() {
		if !(v >= 0) || math.IsInf(v, 0) {
			t.Fatalf("%s: importance %v", typeName(m), v)
		}
	}
}

func FuzzFit(f *testing.F) {
	f.Add([]byte{6, 2, 0, 1, 2, 0, 3, 4, 1, 5, 6, 1, 0, 0, 0, 2, 3})
	f.Add([]byte{4, 1, 0, 8, 1, 9, 0, 10, 1, 11})
	f.Add([]byte{3, 3, 0, 14, 1, 2, 1, 15, 3, 4, 0, 1, 2, 3})
	f.Add([]byte{5, 0, 0, 6, 1, 6, 0, 6, 1, 6, 0, 6})
	f.Add([]byte{2, 1, 0, 0xFF, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		X, y := decodeDataset(data)
		checkStandardizerFinite(t, X)
		models := []Classifier{
			&LogisticRegression{MaxIter: 30},
			&DecisionTree{},
			&RandomForest{NTrees: 4, Seed: 1, Workers: 1, OOB: true},
			&GradientBoosting{NEstimators: 4, Subsample: 0.7, Seed: 1},
		}
		for _, m := range models {
			err := m.Fit(context.Background(), X, y)
			if err != nil {
				checkInputErr(t, typeName(m)+".Fit", err)
				continue
			}
			checkProbaInUnit(t, typeName(m), m.PredictProba(X))
			checkImportanceFinite(t, m)
		}
	})
}
