package ml

import (
	"context"
	"math"
	"testing"
)

// irls is an independent reference fit written only for the tests: plain
// iteratively reweighted least squares with a fixed number of full Newton
// steps and Gauss–Jordan elimination with partial pivoting (no gonum, no
// line search). It minimises ½‖w‖² + C·Σ log-loss with b unpenalised.
func irls(X [][]float64, y []int, C float64, iters int) []float64 {
	d := len(X[0])
	p := d + 1
	theta := make([]float64, p)
	for range iters {
		A := newtonSystem(X, y, C, theta)
		gaussJordan(A)
		for k := range p {
			theta[k] += A[k][p] / A[k][k]
		}
	}
	return theta
}

// newtonSystem is the augmented system [H | −g] of one Newton step of the
// penalised log-loss at theta (the bias, last, unpenalised).
func newtonSystem(X [][]float64, y []int, C float64, theta []float64) [][]float64 {
	d := len(X[0])
	p := d + 1
	A := make([][]float64, p)
	for k := range A {
		A[k] = make([]float64, p+1)
	}
	for i, row := range X {
		xt := append(append([]float64(nil), row...), 1)
		var z float64
		for k := range xt {
			z += theta[k] * xt[k]
		}
		pr := 1 / (1 + math.Exp(-z))
		for a := range p {
			A[a][p] -= C * (pr - float64(y[i])) * xt[a]
			for b := range p {
				A[a][b] += C * pr * (1 - pr) * xt[a] * xt[b]
			}
		}
	}
	for a := range d {
		A[a][a]++
		A[a][p] -= theta[a]
	}
	return A
}

// gaussJordan reduces the augmented p×(p+1) system A to diagonal form,
// with partial pivoting.
func gaussJordan(A [][]float64) {
	p := len(A)
	for col := range p {
		piv := col
		for r := col + 1; r < p; r++ {
			if math.Abs(A[r][col]) > math.Abs(A[piv][col]) {
				piv = r
			}
		}
		A[col], A[piv] = A[piv], A[col]
		for r := range p {
			if r == col {
				continue
			}
			f := A[r][col] / A[col][col]
			for c := col; c <= p; c++ {
				A[r][c] -= f * A[col][c]
			}
		}
	}
}

func TestLogisticMatchesIndependentIRLS(t *testing.T) {
	nonSep, nonSepY := linear(1, 300, []float64{1.5, -2, 0.5, 0}, -0.3)
	// Separable: y = [x₀ + x₁ > 0]; the L2 penalty keeps w finite.
	sep := make([][]float64, len(nonSep))
	sepY := make([]int, len(nonSep))
	for i, r := range nonSep {
		sep[i] = r
		if r[0]+r[1] > 0 {
			sepY[i] = 1
		}
	}
	tests := []struct {
		name string
		X    [][]float64
		y    []int
		C    float64
	}{
		{"non-separable C=1", nonSep, nonSepY, 1},
		{"non-separable C=0.01", nonSep, nonSepY, 0.01},
		{"non-separable C=100", nonSep, nonSepY, 100},
		{"separable C=1", sep, sepY, 1},
		{"separable C=0.1", sep, sepY, 0.1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := &LogisticRegression{C: tc.C}
			if err := m.Fit(context.Background(), tc.X, tc.y); err != nil {
				t.Fatal(err)
			}
			want := irls(tc.X, tc.y, tc.C, 60)
			got := append(m.Coef(), m.Intercept())
			for k := range want {
				if math.Abs(got[k]-want[k]) > 1e-7*math.Max(1, math.Abs(want[k])) {
					t.Errorf("θ[%d] = %.10f, independent IRLS %.10f", k, got[k], want[k])
				}
			}
			if m.Iterations() == 0 || m.Iterations() > 50 {
				t.Errorf("Newton took %d iterations", m.Iterations())
			}
		})
	}
}

// With one binary feature the unpenalised MLE is closed form (the
// saturated 2×2 logit model, e.g. Agresti, Categorical Data Analysis,
// §5.1): b = logit(P(y=1 | x=0)) and w = logit(P(y=1 | x=1)) − b. A huge C
// makes the penalty negligible.
func TestLogisticBinaryFeatureClosedForm(t *testing.T) {
	var X [][]float64
	var y []int
	add := func(x float64, label, times int) {
		for range times {
			X = append(X, []float64{x})
			y = append(y, label)
		}
	}
	add(0, 1, 10) // x=0: 10 of 40 positive → logit(0.25) = −ln 3
	add(0, 0, 30)
	add(1, 1, 45) // x=1: 45 of 60 positive → logit(0.75) = ln 3
	add(1, 0, 15)
	m := &LogisticRegression{C: 1e12}
	if err := m.Fit(context.Background(), X, y); err != nil {
		t.Fatal(err)
	}
	wantB, wantW := -math.Log(3), 2*math.Log(3)
	if math.Abs(m.Intercept()-wantB) > 1e-6 || math.Abs(m.Coef()[0]-wantW) > 1e-6 {
		t.Errorf("(w, b) = (%.8f, %.8f), want (%.8f, %.8f)", m.Coef()[0], m.Intercept(), wantW, wantB)
	}
	p := m.PredictProba([][]float64{{0}, {1}})
	if math.Abs(p[0]-0.25) > 1e-6 || math.Abs(p[1]-0.75) > 1e-6 {
		t.Errorf("PredictProba = %v, want [0.25 0.75]", p)
	}
}

// The intercept is not penalised: with an uninformative feature and a
// strong penalty the intercept must still be the prior log-odds.
func TestLogisticInterceptUnpenalised(t *testing.T) {
	X := [][]float64{{-1}, {1}, {-1}, {1}, {-1}, {1}, {-1}, {1}}
	y := []int{1, 1, 1, 1, 1, 1, 0, 0} // 6/8 positive; 3 of 4 at each x, so w = 0 even unpenalised
	m := &LogisticRegression{C: 1e-8}
	if err := m.Fit(context.Background(), X, y); err != nil {
		t.Fatal(err)
	}
	if math.Abs(m.Coef()[0]) > 1e-6 {
		t.Errorf("w = %v, want ≈ 0 under C = 1e-8", m.Coef()[0])
	}
	if want := math.Log(3); math.Abs(m.Intercept()-want) > 1e-5 {
		t.Errorf("b = %v, want prior log-odds ln 3 = %v", m.Intercept(), want)
	}
}

// Well-specified data: the fit recovers the generating weights and ranks
// the zero-weight feature last.
func TestLogisticRecoversGeneratingModel(t *testing.T) {
	beta := []float64{2, -1, 0}
	X, y := linear(5, 5000, beta, 0.5)
	m := &LogisticRegression{}
	if err := m.Fit(context.Background(), X, y); err != nil {
		t.Fatal(err)
	}
	for j, b := range beta {
		if math.Abs(m.Coef()[j]-b) > 0.15 {
			t.Errorf("w[%d] = %.3f, generating %.3f", j, m.Coef()[j], b)
		}
	}
	imp := m.FeatureImportance()
	if !(imp[0] > imp[1] && imp[1] > imp[2]) {
		t.Errorf("FeatureImportance = %v, want decreasing", imp)
	}
}
