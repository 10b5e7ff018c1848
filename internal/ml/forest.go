package ml

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"

	"golang.org/x/sync/errgroup"
)

// RandomForest is Breiman's random forest of Gini CART trees. The zero
// value is scikit-learn's RandomForestClassifier default: 100 fully grown
// trees, bootstrap samples, ⌊√d⌋ features per split.
type RandomForest struct {
	// NTrees is the number of trees; 0 means 100.
	NTrees int
	// MaxDepth limits each tree's depth; 0 means unlimited.
	MaxDepth int
	// MinSamplesSplit (0 = 2) and MinSamplesLeaf (0 = 1) count distinct
	// rows of the bootstrap sample.
	MinSamplesSplit, MinSamplesLeaf int
	// MaxFeatures is the number of features tried per split; 0 means ⌊√d⌋
	// (at least 1), a value ≥ d means all.
	MaxFeatures int
	// MaxBins caps candidate thresholds per feature (2–256); 0 means 256.
	MaxBins int
	// NoBootstrap grows every tree on all rows with unit weights.
	NoBootstrap bool
	// OOB computes out-of-bag probabilities during Fit (see OOBProba).
	OOB bool
	// Seed: tree t draws its bootstrap and features from PCG(Seed, t).
	Seed uint64
	// Workers is how many trees grow at once; 0 means GOMAXPROCS. The
	// result does not depend on it.
	Workers int

	d     int
	trees []tree
	imp   []float64
	oob   []float64
}

// Fit grows the forest.
func (m *RandomForest) Fit(ctx context.Context, X [][]float64, y []int) error {
	const op = "ml.RandomForest.Fit"
	m.d, m.trees, m.imp, m.oob = 0, nil, nil, nil
	nTrees := m.NTrees
	if nTrees == 0 {
		nTrees = 100
	}
	if nTrees < 0 {
		return usageErr(op, "NTrees = %d must be ≥ 1", m.NTrees)
	}
	if m.Workers < 0 {
		return usageErr(op, "Workers = %d must be ≥ 0", m.Workers)
	}
	cfg := treeConfig{m.MaxDepth, m.MinSamplesSplit, m.MinSamplesLeaf, m.MaxFeatures, m.MaxBins}
	if err := cfg.check(op); err != nil {
		return err
	}
	d, err := validateXY(op, X, y)
	if err != nil {
		return err
	}
	if cfg.maxFeatures == 0 {
		cfg.maxFeatures = max(1, int(math.Sqrt(float64(d))))
	}
	b := binFeatures(X, d, cfg.maxBins)
	params := growParams{
		crit: gini, maxDepth: cfg.maxDepth, minSamplesSplit: cfg.minSplit,
		minSamplesLeaf: cfg.minLeaf, maxFeatures: cfg.maxFeatures,
	}
	workers := m.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	trees, imps, inBag, err := m.growAll(ctx, &b, d, y, params, nTrees, min(workers, nTrees))
	if err != nil {
		return ctxErr(op, err)
	}
	m.imp = meanImportance(imps, d)
	if m.OOB && !m.NoBootstrap {
		m.oob = oobScores(X, trees, inBag)
	}
	m.trees, m.d = trees, d
	return nil
}

// meanImportance averages the trees' feature importances over d features.
func meanImportance(imps [][]float64, d int) []float64 {
	mean := make([]float64, d)
	for _, imp := range imps {
		for j, v := range imp {
			mean[j] += v / float64(len(imps))
		}
	}
	return mean
}

// growAll grows nTrees trees on workers goroutines: tree t's draws come
// from its own seeded stream, so the forest does not depend on which
// worker grew what. It fails only with ctx's error.
func (m *RandomForest) growAll(ctx context.Context, b *binned, d int, y []int, params growParams, nTrees, workers int) (trees []tree, imps [][]float64, inBag [][]bool, err error) {
	n := len(y)
	trees, imps, inBag = make([]tree, nTrees), make([][]float64, nTrees), make([][]bool, nTrees)
	// A fixed set of workers drains a channel of tree indices, rather than
	// one task per tree, so each worker reuses its grower and row buffers
	// across the trees it grows. Growing cannot fail; ctx stops the feed.
	next := make(chan int)
	var pool errgroup.Group
	for range workers {
		pool.Go(func() error {
			g := newGrower(b, d, params)
			s1, s2 := make([]float64, n), make([]float64, n)
			rows := make([]int32, 0, n)
			for t := range next {
				rng := rand.New(rand.NewPCG(m.Seed, uint64(t)))
				var bag []bool
				rows, bag = m.sample(rng, y, s1, s2, rows[:0])
				imp := make([]float64, d)
				trees[t] = g.grow(rows, s1, s2, rng, imp)
				imps[t], inBag[t] = normalise(imp), bag
			}
			return nil
		})
	}
	for t := range nTrees {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- t
	}
	close(next)
	_ = pool.Wait() // no worker returns an error
	return trees, imps, inBag, err
}

// sample draws one tree's bootstrap (or, with NoBootstrap, every row
// once) into the weights s1 and the weighted labels s2, and returns the
// rows drawn and, with OOB, which rows are in the bag.
func (m *RandomForest) sample(rng *rand.Rand, y []int, s1, s2 []float64, rows []int32) ([]int32, []bool) {
	n := len(s1)
	clear(s1)
	if m.NoBootstrap {
		for i := range s1 {
			s1[i] = 1
		}
	} else {
		for range n {
			s1[rng.IntN(n)]++
		}
	}
	var bag []bool
	if m.OOB {
		bag = make([]bool, n)
	}
	for i, w := range s1 {
		s2[i] = w * float64(y[i])
		if w > 0 {
			rows = append(rows, int32(i))
			if bag != nil {
				bag[i] = true
			}
		}
	}
	return rows, bag
}

// oobScores averages, for each training row, the trees whose bootstrap
// left it out; NaN when every tree saw it.
func oobScores(X [][]float64, trees []tree, inBag [][]bool) []float64 {
	out := make([]float64, len(X))
	for i, row := range X {
		var s float64
		var k int
		for t := range trees {
			if !inBag[t][i] {
				s += trees[t].predict(row)
				k++
			}
		}
		if k == 0 {
			out[i] = math.NaN()
		} else {
			out[i] = s / float64(k)
		}
	}
	return out
}

// PredictProba returns the mean over trees of the leaf's class-1 fraction.
func (m *RandomForest) PredictProba(X [][]float64) []float64 {
	out := make([]float64, len(X))
	for i, row := range X {
		if !rowOK(row, m.d) || len(m.trees) == 0 {
			out[i] = math.NaN()
			continue
		}
		var s float64
		for t := range m.trees {
			s += m.trees[t].predict(row)
		}
		out[i] = s / float64(len(m.trees))
	}
	return out
}

// OOBProba returns the out-of-bag P(y = 1) of each training row (NaN for a
// row that was in every bootstrap sample); nil unless fitted with OOB and
// bootstrap.
func (m *RandomForest) OOBProba() []float64 { return append([]float64(nil), m.oob...) }

// FeatureImportance returns the mean over trees of each tree's normalised
// Gini decrease.
func (m *RandomForest) FeatureImportance() []float64 { return append([]float64(nil), m.imp...) }
