package ml

import (
	"context"
	"fmt"
	"math"

	"github.com/benchforge/benchforge/internal/errs"
)

// Classifier is a binary classifier: Fit learns from rows X with labels
// y ∈ {0, 1}; PredictProba returns P(y = 1 | x) for each row of X, NaN for a
// row it cannot score (wrong width, NaN or ±Inf feature, model not fitted).
type Classifier interface {
	Fit(ctx context.Context, X [][]float64, y []int) error
	PredictProba(X [][]float64) []float64
}

// Importancer is implemented by fitted models that can say how much each
// feature contributed; the slice has one non-negative entry per feature.
type Importancer interface {
	FeatureImportance() []float64
}

// Dataset is a feature matrix with binary labels. Names, when set, names
// the columns of X.
type Dataset struct {
	X     [][]float64
	Y     []int
	Names []string
}

// Validate checks what Fit needs: at least one row, equal row widths (and
// len(Names) when Names is set), len(Y) = len(X), labels in {0, 1}, both
// classes present and only finite features.
func (d Dataset) Validate() error {
	if _, err := validateXY("ml.Dataset.Validate", d.X, d.Y); err != nil {
		return err
	}
	if d.Names != nil && len(d.Names) != len(d.X[0]) {
		return inputErr("ml.Dataset.Validate", "%d names for %d features", len(d.Names), len(d.X[0]))
	}
	return nil
}

// Subset returns the rows idx of d (in that order, repeats allowed). Rows
// are shared, not copied; Names is shared too.
func (d Dataset) Subset(idx []int) (Dataset, error) {
	if len(d.Y) != len(d.X) {
		return Dataset{}, inputErr("ml.Dataset.Subset", "%d rows but %d labels", len(d.X), len(d.Y))
	}
	out := Dataset{X: make([][]float64, len(idx)), Y: make([]int, len(idx)), Names: d.Names}
	for k, i := range idx {
		if i < 0 || i >= len(d.X) {
			return Dataset{}, inputErr("ml.Dataset.Subset", "index idx[%d] = %d outside [0, %d)", k, i, len(d.X))
		}
		out.X[k], out.Y[k] = d.X[i], d.Y[i]
	}
	return out, nil
}

// Split returns the train and test subsets named by two index lists, as
// produced by a grouped fold assignment. An index present in both lists is
// an error: it would leak a row from training into evaluation.
func Split(d Dataset, train, test []int) (Dataset, Dataset, error) {
	const op = "ml.Split"
	inTrain := make(map[int]bool, len(train))
	for _, i := range train {
		inTrain[i] = true
	}
	for _, i := range test {
		if inTrain[i] {
			return Dataset{}, Dataset{}, inputErr(op, "row %d is in both the train and the test index lists", i)
		}
	}
	tr, err := d.Subset(train)
	if err != nil {
		return Dataset{}, Dataset{}, fmt.Errorf("%s(train): %w", op, err)
	}
	te, err := d.Subset(test)
	if err != nil {
		return Dataset{}, Dataset{}, fmt.Errorf("%s(test): %w", op, err)
	}
	return tr, te, nil
}

// Standardizer centres each feature on its training mean and divides by
// its training (population, ddof = 0) standard deviation, like
// scikit-learn's StandardScaler; a constant feature (sd ≤ 1e-12·|mean|)
// keeps Scale = 1. Fit it
// on the training fold only and apply it to both folds.
type Standardizer struct {
	Mean  []float64
	Scale []float64
}

// FitStandardizer computes the per-feature mean and scale of X.
func FitStandardizer(X [][]float64) (*Standardizer, error) {
	const op = "ml.FitStandardizer"
	d, err := validateX(op, X)
	if err != nil {
		return nil, err
	}
	s := &Standardizer{Mean: make([]float64, d), Scale: make([]float64, d)}
	n := float64(len(X))
	for j := 0; j < d; j++ {
		// Two-pass mean/variance: stable for the counts the metrics produce.
		var sum float64
		for _, row := range X {
			sum += row[j]
		}
		mean := sum / n
		var ss float64
		for _, row := range X {
			dv := row[j] - mean
			ss += dv * dv
		}
		sd := math.Sqrt(ss / n)
		if math.IsInf(mean, 0) || math.IsNaN(ss) || math.IsInf(ss, 0) {
			return nil, inputErr(op, "feature %d overflows float64 (values near ±%g); rescale it before standardising", j, math.MaxFloat64)
		}
		if !(sd > 1e-12*math.Max(1, math.Abs(mean))) {
			sd = 1
		}
		s.Mean[j], s.Scale[j] = mean, sd
	}
	return s, nil
}

// Transform returns a standardised copy of X; X is not modified.
func (s *Standardizer) Transform(X [][]float64) ([][]float64, error) {
	const op = "ml.Standardizer.Transform"
	if s == nil || len(s.Mean) == 0 || len(s.Mean) != len(s.Scale) {
		return nil, inputErr(op, "standardizer is not fitted; call FitStandardizer on the training rows first")
	}
	out := make([][]float64, len(X))
	for i, row := range X {
		if len(row) != len(s.Mean) {
			return nil, inputErr(op, "row %d has %d features, the standardizer was fitted on %d", i, len(row), len(s.Mean))
		}
		r := make([]float64, len(row))
		for j, v := range row {
			r[j] = (v - s.Mean[j]) / s.Scale[j]
		}
		out[i] = r
	}
	return out, nil
}

func inputErr(op, format string, args ...any) error {
	return fmt.Errorf("%s: %s: %w", op, fmt.Sprintf(format, args...), errs.ErrInput)
}

func usageErr(op, format string, args ...any) error {
	return fmt.Errorf("%s: %s: %w", op, fmt.Sprintf(format, args...), errs.ErrUsage)
}

// validateX checks that X is non-empty, rectangular with at least one
// column, and finite; it returns the width.
func validateX(op string, X [][]float64) (int, error) {
	if len(X) == 0 {
		return 0, inputErr(op, "no rows; the training set is empty")
	}
	d := len(X[0])
	if d == 0 {
		return 0, inputErr(op, "rows have no features")
	}
	for i, row := range X {
		if len(row) != d {
			return 0, inputErr(op, "row %d has %d features, row 0 has %d", i, len(row), d)
		}
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, inputErr(op, "X[%d][%d] = %v; impute or drop non-finite features before fitting", i, j, v)
			}
		}
	}
	return d, nil
}

// validateXY is validateX plus the label checks; it returns the width.
func validateXY(op string, X [][]float64, y []int) (int, error) {
	if len(X) != len(y) {
		return 0, inputErr(op, "%d rows but %d labels", len(X), len(y))
	}
	d, err := validateX(op, X)
	if err != nil {
		return 0, err
	}
	var pos int
	for i, v := range y {
		if v != 0 && v != 1 {
			return 0, inputErr(op, "y[%d] = %d; labels must be 0 or 1", i, v)
		}
		pos += v
	}
	if pos == 0 || pos == len(y) {
		return 0, inputErr(op, "all %d labels are %d; both classes are needed to fit a classifier", len(y), y[0])
	}
	return d, nil
}

// rowOK reports whether row can be scored by a model fitted on d
// features: the right width and finite, as the training rows were.
func rowOK(row []float64, d int) bool {
	if d == 0 || len(row) != d {
		return false
	}
	for _, v := range row {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// ctxErr wraps a cancellation so the caller sees which fit stopped.
func ctxErr(op string, err error) error {
	return fmt.Errorf("%s: cancelled: %w", op, err)
}
