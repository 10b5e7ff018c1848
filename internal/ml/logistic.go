package ml

import (
	"context"
	"fmt"
	"math"

	"github.com/benchforge/benchforge/internal/errs"
	"gonum.org/v1/gonum/mat"
)

// LogisticRegression is L2-penalised binary logistic regression with an
// unpenalised intercept (scikit-learn's default LogisticRegression). The
// zero value is ready to use with C = 1.
type LogisticRegression struct {
	// C is the inverse regularisation strength (> 0); 0 means 1.0.
	C float64
	// MaxIter caps Newton iterations; 0 means 100.
	MaxIter int

	coef      []float64
	intercept float64
	iters     int
}

// Coef returns the fitted weights, one per feature (nil before Fit).
func (m *LogisticRegression) Coef() []float64 { return append([]float64(nil), m.coef...) }

// Intercept returns the fitted intercept.
func (m *LogisticRegression) Intercept() float64 { return m.intercept }

// Iterations returns how many Newton iterations the last Fit took.
func (m *LogisticRegression) Iterations() int { return m.iters }

// Fit minimises ½‖w‖² + C·Σᵢ log(1+exp(−ỹᵢ(w·xᵢ+b))), ỹ = 2y−1, as
// scikit-learn does (internally divided by C·n). The objective is strictly convex in w
// and, with both classes present, bounded below in b, so the optimum is
// unique even for separable data.
func (m *LogisticRegression) Fit(ctx context.Context, X [][]float64, y []int) error {
	const op = "ml.LogisticRegression.Fit"
	m.coef, m.intercept, m.iters = nil, 0, 0
	C := m.C
	if C == 0 {
		C = 1
	}
	if !(C > 0) || math.IsInf(C, 0) {
		return usageErr(op, "C = %v; the inverse regularisation strength must be a positive finite number", m.C)
	}
	maxIter := m.MaxIter
	if maxIter == 0 {
		maxIter = 100
	}
	if maxIter < 0 {
		return usageErr(op, "MaxIter = %d must be ≥ 0", m.MaxIter)
	}
	d, err := validateXY(op, X, y)
	if err != nil {
		return err
	}
	theta, iters, err := newtonLogistic(ctx, X, y, d, C, maxIter)
	if err != nil {
		if ctx.Err() != nil {
			return ctxErr(op, ctx.Err())
		}
		return fmt.Errorf("%s: %w: %w", op, err, errs.ErrInput)
	}
	m.coef = theta[:d:d]
	m.intercept = theta[d]
	m.iters = iters
	return nil
}

// newtonLogistic minimises f(θ) = (½‖w‖²/C + Σᵢ softplus(−ỹᵢ zᵢ))/n,
// zᵢ = w·xᵢ + b, θ = (w, b), by Newton's method with Armijo backtracking
// (Boyd & Vandenberghe, Convex Optimization, §9.5). f is strictly convex,
// so the damped iteration converges globally and quadratically near the
// optimum. It stops when the gradient max-norm is ≤ 1e-10.
func newtonLogistic(ctx context.Context, X [][]float64, y []int, d int, C float64, maxIter int) ([]float64, int, error) {
	p := d + 1
	theta := make([]float64, p)
	grad := make([]float64, p)
	step := make([]float64, p)
	trial := make([]float64, p)
	hess := mat.NewSymDense(p, nil)
	var chol mat.Cholesky
	f := logLoss(X, y, d, C, theta)
	for it := 0; it < maxIter; it++ {
		if err := ctx.Err(); err != nil {
			return nil, it, err
		}
		logGradHess(X, y, d, C, theta, grad, hess)
		gmax := maxAbs(grad)
		if gmax <= 1e-10 {
			return theta, it, nil
		}
		if !newtonStep(hess, grad, step, &chol) {
			return nil, it, fmt.Errorf("Newton step: Hessian is not positive definite at iteration %d; standardise the features or lower C", it)
		}
		t, fNew := lineSearch(f, theta, grad, step, trial, func(th []float64) float64 { return logLoss(X, y, d, C, th) })
		if t < 1e-12 {
			// No decrease is representable: θ is optimal to working
			// precision unless the gradient is still large.
			if gmax > 1e-6 {
				return nil, it, fmt.Errorf("line search stalled with gradient max-norm %.3g; standardise the features", gmax)
			}
			return theta, it, nil
		}
		copy(theta, trial)
		f = fNew
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, it, fmt.Errorf("objective became %v; standardise the features", f)
		}
	}
	logGradHess(X, y, d, C, theta, grad, hess)
	if g := maxAbs(grad); g > 1e-6 {
		return nil, maxIter, fmt.Errorf("no convergence in %d Newton iterations (gradient max-norm %.3g); raise MaxIter or standardise the features", maxIter, g)
	}
	return theta, maxIter, nil
}

// newtonStep solves H·step = −grad; on numerical loss of definiteness it
// adds a growing ridge (Levenberg damping). It reports whether a step was
// found.
func newtonStep(hess *mat.SymDense, grad, step []float64, chol *mat.Cholesky) bool {
	p := len(grad)
	for ridge := 0.0; ridge < 1e6; ridge = max(1e-10, 100*ridge) {
		hr := mat.NewSymDense(p, nil)
		hr.CopySym(hess)
		for k := 0; k < p; k++ {
			hr.SetSym(k, k, hr.At(k, k)+ridge)
		}
		if !chol.Factorize(hr) {
			continue
		}
		var sv mat.VecDense
		if err := chol.SolveVecTo(&sv, mat.NewVecDense(p, grad)); err == nil {
			for k := range step {
				step[k] = -sv.AtVec(k)
			}
			return true
		}
	}
	return false
}

// lineSearch halves t from 1 until θ + t·step (left in trial) decreases the
// objective loss from f enough (Armijo, c = 1e-4) or t drops below 1e-12,
// and returns t and the loss at trial.
func lineSearch(f float64, theta, grad, step, trial []float64, loss func([]float64) float64) (t, fNew float64) {
	var slope float64
	for k := range step {
		slope += grad[k] * step[k]
	}
	for t = 1.0; ; t /= 2 {
		for k := range trial {
			trial[k] = theta[k] + t*step[k]
		}
		fNew = loss(trial)
		if fNew <= f+1e-4*t*slope || t < 1e-12 {
			return t, fNew
		}
	}
}

func logLoss(X [][]float64, y []int, d int, C float64, theta []float64) float64 {
	var f float64
	for i, row := range X {
		z := theta[d]
		for j, v := range row {
			z += theta[j] * v
		}
		f += softplus(-float64(2*y[i]-1) * z)
	}
	var pen float64
	for j := 0; j < d; j++ {
		pen += theta[j] * theta[j]
	}
	return (0.5*pen/C + f) / float64(len(X))
}

// logGradHess fills the gradient and Hessian of logLoss at θ. Row i adds
// (pᵢ − yᵢ)·x̃ᵢ to the gradient and pᵢ(1−pᵢ)·x̃ᵢx̃ᵢᵀ to the Hessian, with
// x̃ = (x, 1); the penalty adds w/C and I/C on the weight block.
func logGradHess(X [][]float64, y []int, d int, C float64, theta, grad []float64, hess *mat.SymDense) {
	p := d + 1
	clear(grad)
	h := make([]float64, p*p) // upper triangle, row-major
	for i, row := range X {
		z := theta[d]
		for j, v := range row {
			z += theta[j] * v
		}
		pr := sigmoid(z)
		r := pr - float64(y[i])
		wt := pr * (1 - pr)
		for j := 0; j < p; j++ {
			xj := 1.0
			if j < d {
				xj = row[j]
			}
			grad[j] += r * xj
			if wt == 0 {
				continue
			}
			c := wt * xj
			hr := h[j*p:]
			for k := j; k < d; k++ {
				hr[k] += c * row[k]
			}
			hr[d] += c
		}
	}
	n := float64(len(X))
	for j := 0; j < p; j++ {
		if j < d {
			grad[j] += theta[j] / C
			h[j*p+j] += 1 / C
		}
		grad[j] /= n
		for k := j; k < p; k++ {
			hess.SetSym(j, k, h[j*p+k]/n)
		}
	}
}

// PredictProba returns σ(w·x + b) per row.
func (m *LogisticRegression) PredictProba(X [][]float64) []float64 {
	out := make([]float64, len(X))
	for i, row := range X {
		if !rowOK(row, len(m.coef)) {
			out[i] = math.NaN()
			continue
		}
		z := m.intercept
		for j, v := range row {
			z += m.coef[j] * v
		}
		out[i] = sigmoid(z)
	}
	return out
}

// FeatureImportance returns |w|; meaningful as a ranking only when the
// features share a scale (standardise them first).
func (m *LogisticRegression) FeatureImportance() []float64 {
	out := make([]float64, len(m.coef))
	for j, w := range m.coef {
		out[j] = math.Abs(w)
	}
	return out
}

// sigmoid is 1/(1+e^−z), computed without overflow for either sign.
func sigmoid(z float64) float64 {
	if z >= 0 {
		return 1 / (1 + math.Exp(-z))
	}
	e := math.Exp(z)
	return e / (1 + e)
}

// softplus is log(1+e^z) without overflow.
func softplus(z float64) float64 {
	if z > 0 {
		return z + math.Log1p(math.Exp(-z))
	}
	return math.Log1p(math.Exp(z))
}

func maxAbs(v []float64) float64 {
	var m float64
	for _, x := range v {
		m = math.Max(m, math.Abs(x))
	}
	return m
}
