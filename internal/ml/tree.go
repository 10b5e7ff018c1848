package ml

import (
	"context"
	"math"
	"math/rand/v2"
)

// DecisionTree is a CART classification tree with the Gini criterion. The
// zero value grows a fully developed tree over all features.
type DecisionTree struct {
	// MaxDepth limits the depth (root = 0); 0 means unlimited.
	MaxDepth int
	// MinSamplesSplit is the fewest rows a node needs to be split; 0 means 2.
	MinSamplesSplit int
	// MinSamplesLeaf is the fewest rows each child must keep; 0 means 1.
	MinSamplesLeaf int
	// MaxFeatures, when in (0, d), is how many non-constant features are
	// drawn without replacement at each node; 0 means all d in order.
	MaxFeatures int
	// MaxBins caps the candidate thresholds per feature (2–256); 0 means 256.
	MaxBins int
	// Seed seeds the PCG generator used when MaxFeatures < d.
	Seed uint64

	d   int
	t   tree
	imp []float64
}

type treeConfig struct {
	maxDepth, minSplit, minLeaf, maxFeatures, maxBins int
}

func (c *treeConfig) check(op string) error {
	if c.maxDepth < 0 {
		return usageErr(op, "MaxDepth = %d must be ≥ 0 (0 = unlimited)", c.maxDepth)
	}
	if c.minSplit == 0 {
		c.minSplit = 2
	}
	if c.minSplit < 2 {
		return usageErr(op, "MinSamplesSplit = %d must be ≥ 2", c.minSplit)
	}
	if c.minLeaf == 0 {
		c.minLeaf = 1
	}
	if c.minLeaf < 1 {
		return usageErr(op, "MinSamplesLeaf = %d must be ≥ 1", c.minLeaf)
	}
	if c.maxFeatures < 0 {
		return usageErr(op, "MaxFeatures = %d must be ≥ 0 (0 = all)", c.maxFeatures)
	}
	if c.maxBins == 0 {
		c.maxBins = maxBinsLimit
	}
	if c.maxBins < 2 || c.maxBins > maxBinsLimit {
		return usageErr(op, "MaxBins = %d must be in [2, %d]", c.maxBins, maxBinsLimit)
	}
	return nil
}

// Fit grows the tree with unit sample weights.
func (m *DecisionTree) Fit(ctx context.Context, X [][]float64, y []int) error {
	return m.FitWeighted(ctx, X, y, nil)
}

// FitWeighted grows the tree with per-row sample weights w (nil = all 1).
// Weights must be finite and ≥ 0; rows of weight 0 are ignored, and both
// classes must keep positive weight.
func (m *DecisionTree) FitWeighted(ctx context.Context, X [][]float64, y []int, w []float64) error {
	const op = "ml.DecisionTree.Fit"
	m.d, m.t, m.imp = 0, tree{}, nil
	cfg := treeConfig{m.MaxDepth, m.MinSamplesSplit, m.MinSamplesLeaf, m.MaxFeatures, m.MaxBins}
	if err := cfg.check(op); err != nil {
		return err
	}
	d, err := validateXY(op, X, y)
	if err != nil {
		return err
	}
	if w, err = checkWeights(op, w, y); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return ctxErr(op, err)
	}
	b := binFeatures(X, d, cfg.maxBins)
	rows, s1, s2 := weightedRows(w, y)
	g := newGrower(&b, d, growParams{
		crit: gini, maxDepth: cfg.maxDepth, minSamplesSplit: cfg.minSplit,
		minSamplesLeaf: cfg.minLeaf, maxFeatures: cfg.maxFeatures,
	})
	rng := rand.New(rand.NewPCG(m.Seed, 0))
	imp := make([]float64, d)
	m.t = g.grow(rows, s1, s2, rng, imp)
	m.imp = normalise(imp)
	m.d = d
	return nil
}

// checkWeights returns the sample weights of the rows of y, all 1 when w
// is nil, and rejects weights that are negative or not finite or leave a
// class without weight.
func checkWeights(op string, w []float64, y []int) ([]float64, error) {
	if w == nil {
		w = make([]float64, len(y))
		for i := range w {
			w[i] = 1
		}
	}
	if len(w) != len(y) {
		return nil, inputErr(op, "%d sample weights for %d rows", len(w), len(y))
	}
	var wPos, wNeg float64
	for i, v := range w {
		if !(v >= 0) || math.IsInf(v, 0) {
			return nil, inputErr(op, "sample weight w[%d] = %v; weights must be finite and ≥ 0", i, v)
		}
		if y[i] == 1 {
			wPos += v
		} else {
			wNeg += v
		}
	}
	if !(wPos > 0 && wNeg > 0) || math.IsInf(wPos+wNeg, 0) {
		return nil, inputErr(op, "class weight totals are %v (y=0) and %v (y=1); both must be positive and finite", wNeg, wPos)
	}
	return w, nil
}

// weightedRows returns the rows of positive weight and each row's weight
// (s1) and weight of class 1 (s2).
func weightedRows(w []float64, y []int) (rows []int32, s1, s2 []float64) {
	s1, s2 = make([]float64, len(w)), make([]float64, len(w))
	rows = make([]int32, 0, len(w))
	for i, v := range w {
		if v > 0 {
			rows = append(rows, int32(i))
			s1[i], s2[i] = v, v*float64(y[i])
		}
	}
	return rows, s1, s2
}

// PredictProba returns the weighted fraction of class 1 in each row's leaf.
func (m *DecisionTree) PredictProba(X [][]float64) []float64 {
	out := make([]float64, len(X))
	for i, row := range X {
		if !rowOK(row, m.d) {
			out[i] = math.NaN()
			continue
		}
		out[i] = m.t.predict(row)
	}
	return out
}

// FeatureImportance returns the normalised weighted Gini decrease per
// feature (mean decrease in impurity).
func (m *DecisionTree) FeatureImportance() []float64 { return append([]float64(nil), m.imp...) }

// Depth returns the depth of the fitted tree (0 for a single leaf).
func (m *DecisionTree) Depth() int { return m.t.depth() }

// Leaves returns the number of leaves of the fitted tree.
func (m *DecisionTree) Leaves() int {
	var n int
	for _, nd := range m.t.nodes {
		if nd.feature < 0 {
			n++
		}
	}
	return n
}

// NodeSplit describes one internal node for inspection: rows with
// x[Feature] ≤ Threshold go left.
type NodeSplit struct {
	Depth     int
	Feature   int
	Threshold float64
	// Value is the node's prediction (P(y=1) for a classification tree).
	Value float64
}

// Splits lists the internal nodes in depth-first, left-first order.
func (m *DecisionTree) Splits() []NodeSplit {
	var out []NodeSplit
	var walk func(k int32, depth int)
	walk = func(k int32, depth int) {
		if int(k) >= len(m.t.nodes) {
			return
		}
		nd := m.t.nodes[k]
		if nd.feature < 0 {
			return
		}
		out = append(out, NodeSplit{depth, int(nd.feature), nd.threshold, nd.value})
		walk(nd.left, depth+1)
		walk(nd.right, depth+1)
	}
	walk(0, 0)
	return out
}

func (t *tree) depth() int {
	if len(t.nodes) == 0 {
		return 0
	}
	var walk func(k int32) int
	walk = func(k int32) int {
		nd := t.nodes[k]
		if nd.feature < 0 {
			return 0
		}
		return 1 + max(walk(nd.left), walk(nd.right))
	}
	return walk(0)
}
