package stats

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
)

func meanStat(x []float64) float64 { return mean(x) }

func TestBootstrapDeterministic(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(19, 20))
	data := randSample(r, 60, false)
	opt := BootstrapOptions{B: 500, Conf: 0.95, Seed: 42}
	a, err := Bootstrap(ctx, data, meanStat, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Bootstrap(ctx, data, meanStat, opt)
	if a != b {
		t.Errorf("same seed, different results: %+v vs %+v", a, b)
	}
	opt.Seed = 43
	c, _ := Bootstrap(ctx, data, meanStat, opt)
	if c.CI == a.CI {
		t.Errorf("different seeds gave identical intervals %+v", c.CI)
	}
	// Singleton clusters draw the same numbers: identical result.
	opt.Seed = 42
	idx := make([]int, len(data))
	for i := range idx {
		idx[i] = i
	}
	cl, err := ClusterBootstrap(ctx, idx, func(i int) int { return i }, func(ix []int) float64 {
		s := 0.0
		for _, i := range ix {
			s += data[i]
		}
		return s / float64(len(ix))
	}, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !near(cl.CI.Lo, a.CI.Lo, 1e-12) || !near(cl.CI.Hi, a.CI.Hi, 1e-12) || cl.Clusters != len(data) {
		t.Errorf("singleton clusters %+v, plain %+v", cl, a)
	}
	if !a.CI.Contains(a.Estimate) {
		t.Errorf("estimate %v outside %+v", a.Estimate, a.CI)
	}
}

// TestBootstrapSE: the ideal bootstrap variance of the mean is the plug-in
// variance / n (Efron & Tibshirani 1993 §6.2), i.e.
// SE* = sd·sqrt((n−1)/n)/√n; with B = 4000 the Monte Carlo estimate lies
// within 5% of it.
func TestBootstrapSE(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	data := randSample(r, 100, false)
	res, err := Bootstrap(context.Background(), data, meanStat, BootstrapOptions{B: 4000, Conf: 0.9, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := SD(data)
	want := s * math.Sqrt(99.0/100) / 10
	if math.Abs(res.SE/want-1) > 0.05 {
		t.Errorf("bootstrap SE %v, theory %v", res.SE, want)
	}
	// The 90% percentile interval is close to mean ± 1.645·SE*.
	if math.Abs((res.CI.Hi-res.CI.Lo)/(2*1.6448536*want)-1) > 0.1 {
		t.Errorf("interval %+v vs ±1.645·%v", res.CI, want)
	}
}

// TestClusterBootstrapPairs: duplicating every observation (two items
// per pair, as both orderings of a pair in rxsynth §7.4.3) adds no
// information. The pair-cluster bootstrap SE matches the bootstrap of the
// unduplicated data, while the naive bootstrap over items understates it
// by about √2.
func TestClusterBootstrapPairs(t *testing.T) {
	type item struct {
		pair int
		v    float64
	}
	r := rand.New(rand.NewPCG(23, 24))
	base := randSample(r, 150, false)
	var items []item
	for i, v := range base {
		items = append(items, item{i, v}, item{i, v})
	}
	stat := func(xs []item) float64 {
		s := 0.0
		for _, x := range xs {
			s += x.v
		}
		return s / float64(len(xs))
	}
	opt := BootstrapOptions{B: 3000, Conf: 0.95, Seed: 7}
	ctx := context.Background()
	cl, err := ClusterBootstrap(ctx, items, func(x item) int { return x.pair }, stat, opt)
	if err != nil {
		t.Fatal(err)
	}
	naive, _ := Bootstrap(ctx, items, stat, opt)
	ref, _ := Bootstrap(ctx, base, meanStat, opt)
	if cl.Clusters != 150 {
		t.Errorf("Clusters = %d", cl.Clusters)
	}
	if math.Abs(cl.SE/ref.SE-1) > 0.08 {
		t.Errorf("cluster SE %v vs unduplicated %v", cl.SE, ref.SE)
	}
	if ratio := cl.SE / naive.SE; math.Abs(ratio-math.Sqrt2) > 0.12 {
		t.Errorf("cluster/naive SE ratio %v, want ≈ √2", ratio)
	}
}

func TestBootstrapErrors(t *testing.T) {
	ctx := context.Background()
	good := BootstrapOptions{B: 100, Conf: 0.95, Seed: 1}
	data := []float64{1, 2, 3}
	cases := []struct {
		name string
		err  error
		want error
	}{
		{"empty", func() error { _, err := Bootstrap(ctx, []float64{}, meanStat, good); return err }(), errs.ErrInput},
		{"B<2", func() error { _, err := Bootstrap(ctx, data, meanStat, BootstrapOptions{B: 1, Conf: 0.9}); return err }(), errs.ErrInput},
		{"conf", func() error { _, err := Bootstrap(ctx, data, meanStat, BootstrapOptions{B: 10, Conf: 1}); return err }(), errs.ErrInput},
		{"nil stat", func() error { _, err := Bootstrap[float64](ctx, data, nil, good); return err }(), errs.ErrInput},
		{"NaN stat", func() error {
			// Resamples consisting only of the value 1 make the statistic 0/0.
			_, err := Bootstrap(ctx, data, func(x []float64) float64 {
				s := 0.0
				for _, v := range x {
					s += v - 1
				}
				if s == 0 {
					return math.NaN()
				}
				return 1
			}, BootstrapOptions{B: 1000, Conf: 0.9, Seed: 3})
			return err
		}(), errs.ErrInput},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { assertErrIs(t, c.err, c.want) })
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err := Bootstrap(cctx, data, meanStat, good)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
