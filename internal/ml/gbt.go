package ml

import (
	"context"
	"math"
	"math/rand/v2"
)

// GradientBoosting is binary log-loss gradient boosting with Newton
// (second-order) regression trees; see the package doc for the reference
// formulas. The zero value uses the defaults listed there.
type GradientBoosting struct {
	// NEstimators is the number of boosting stages; 0 means 100.
	NEstimators int
	// LearningRate shrinks each tree, in (0, 1]; 0 means 0.1.
	LearningRate float64
	// MaxDepth limits each tree; 0 means 3.
	MaxDepth int
	// Subsample is the fraction of rows drawn (without replacement) per
	// stage, in (0, 1]; 0 means 1.
	Subsample float64
	// Lambda is the L2 penalty on leaf values; 0 means 1 (XGBoost's
	// default), so pass a tiny positive value for (almost) none.
	Lambda float64
	// MinChildWeight is the least hessian sum per child; 0 means 1e-3.
	MinChildWeight float64
	// MinSamplesLeaf is the fewest rows per child; 0 means 1.
	MinSamplesLeaf int
	// MaxBins caps candidate thresholds per feature (2–256); 0 means 256.
	MaxBins int
	// Seed: stage s subsamples with PCG(Seed, s).
	Seed uint64

	d     int
	base  float64
	lr    float64
	trees []tree
	imp   []float64
}

// Fit runs the boosting stages.
func (m *GradientBoosting) Fit(ctx context.Context, X [][]float64, y []int) error {
	const op = "ml.GradientBoosting.Fit"
	m.d, m.trees, m.imp = 0, nil, nil
	c := m.config()
	if err := c.check(op, m); err != nil {
		return err
	}
	d, err := validateXY(op, X, y)
	if err != nil {
		return err
	}
	n := len(X)
	var pos float64
	for _, v := range y {
		pos += float64(v)
	}
	base := math.Log(pos / (float64(n) - pos))
	b := binFeatures(X, d, c.maxBins)
	g := newGrower(&b, d, growParams{
		crit: newton, maxDepth: c.depth, minSamplesSplit: 2 * c.minLeaf,
		minSamplesLeaf: c.minLeaf, lambda: c.lambda, minChildWeight: c.mcw,
	})
	F := make([]float64, n)
	for i := range F {
		F[i] = base
	}
	grad, hess := make([]float64, n), make([]float64, n)
	all := make([]int32, n)
	rows := make([]int32, n)
	for i := range all {
		all[i] = int32(i)
	}
	nSub := max(1, int(math.Round(c.sub*float64(n))))
	imp := make([]float64, d)
	trees := make([]tree, 0, c.nEst)
	for s := range c.nEst {
		if err := ctx.Err(); err != nil {
			return ctxErr(op, err)
		}
		logLossGradients(F, y, grad, hess)
		copy(rows, all)
		rs := sampleRows(rows, nSub, m.Seed, uint64(s))
		t := g.grow(rs, grad, hess, nil, imp)
		for k := range t.nodes {
			t.nodes[k].value *= c.lr
		}
		for i := range F {
			F[i] += t.predictBinned(&b, i)
		}
		trees = append(trees, t)
	}
	m.d, m.base, m.lr, m.trees, m.imp = d, base, c.lr, trees, normalise(imp)
	return nil
}

// gbtConfig is GradientBoosting's settings with the defaults filled in.
type gbtConfig struct {
	nEst, depth, minLeaf, maxBins int
	lr, sub, lambda, mcw          float64
}

func (m *GradientBoosting) config() gbtConfig {
	return gbtConfig{
		nEst:    cmpDefault(m.NEstimators, 100),
		lr:      cmpDefault(m.LearningRate, 0.1),
		depth:   cmpDefault(m.MaxDepth, 3),
		sub:     cmpDefault(m.Subsample, 1.0),
		lambda:  cmpDefault(m.Lambda, 1.0),
		mcw:     cmpDefault(m.MinChildWeight, 1e-3),
		minLeaf: cmpDefault(m.MinSamplesLeaf, 1),
		maxBins: cmpDefault(m.MaxBins, maxBinsLimit),
	}
}

// check rejects settings out of range, naming them as set on m.
func (c gbtConfig) check(op string, m *GradientBoosting) error {
	switch {
	case c.nEst < 1:
		return usageErr(op, "NEstimators = %d must be ≥ 1", m.NEstimators)
	case !(c.lr > 0 && c.lr <= 1):
		return usageErr(op, "LearningRate = %v must be in (0, 1]", m.LearningRate)
	case c.depth < 1:
		return usageErr(op, "MaxDepth = %d must be ≥ 1", m.MaxDepth)
	case !(c.sub > 0 && c.sub <= 1):
		return usageErr(op, "Subsample = %v must be in (0, 1]", m.Subsample)
	case !(c.lambda >= 0) || math.IsInf(c.lambda, 0):
		return usageErr(op, "Lambda = %v must be finite and ≥ 0", m.Lambda)
	case !(c.mcw >= 0) || math.IsInf(c.mcw, 0):
		return usageErr(op, "MinChildWeight = %v must be finite and ≥ 0", m.MinChildWeight)
	case c.minLeaf < 1:
		return usageErr(op, "MinSamplesLeaf = %d must be ≥ 1", m.MinSamplesLeaf)
	case c.maxBins < 2 || c.maxBins > maxBinsLimit:
		return usageErr(op, "MaxBins = %d must be in [2, %d]", m.MaxBins, maxBinsLimit)
	}
	return nil
}

// logLossGradients sets the log-loss gradient and hessian of every row at
// the current scores F.
func logLossGradients(F []float64, y []int, grad, hess []float64) {
	for i := range F {
		p := sigmoid(F[i])
		grad[i] = p - float64(y[i])
		hess[i] = max(p*(1-p), 1e-16)
	}
}

// sampleRows returns rows, or when nSub is fewer, a uniform sample of
// nSub of them without replacement drawn with PCG(seed, stage): a partial
// Fisher–Yates shuffle in place.
func sampleRows(rows []int32, nSub int, seed, stage uint64) []int32 {
	n := len(rows)
	if nSub >= n {
		return rows
	}
	rng := rand.New(rand.NewPCG(seed, stage))
	for k := range nSub {
		r := k + rng.IntN(n-k)
		rows[k], rows[r] = rows[r], rows[k]
	}
	return rows[:nSub]
}

// PredictProba returns σ(F₀ + Σ_s η·f_s(x)).
func (m *GradientBoosting) PredictProba(X [][]float64) []float64 {
	out := make([]float64, len(X))
	for i, row := range X {
		out[i] = sigmoid(m.decision(row))
	}
	return out
}

// DecisionFunction returns the raw log-odds score F(x) per row (NaN for a
// row that cannot be scored).
func (m *GradientBoosting) DecisionFunction(X [][]float64) []float64 {
	out := make([]float64, len(X))
	for i, row := range X {
		out[i] = m.decision(row)
	}
	return out
}

func (m *GradientBoosting) decision(row []float64) float64 {
	if !rowOK(row, m.d) {
		return math.NaN()
	}
	F := m.base
	for t := range m.trees {
		F += m.trees[t].predict(row)
	}
	return F
}

// FeatureImportance returns each feature's share of the total split gain.
func (m *GradientBoosting) FeatureImportance() []float64 { return append([]float64(nil), m.imp...) }

// cmpDefault returns def when v is the zero value.
func cmpDefault[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
