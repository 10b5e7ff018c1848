package stats

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// BootstrapOptions configures [Bootstrap] and [ClusterBootstrap].
type BootstrapOptions struct {
	// B is the number of resamples (≥ 2; rxsynth §7.4.3 uses 10 000).
	B int
	// Conf is the confidence level of the percentile interval, in (0, 1).
	Conf float64
	// Seed seeds the PCG generator (math/rand/v2 NewPCG(Seed, pcgStream)):
	// equal seeds give identical results.
	Seed uint64
}

// pcgStream is the fixed second PCG seed word (the golden-ratio constant).
const pcgStream = 0x9e3779b97f4a7c15

// BootstrapResult is a bootstrap estimate with its percentile interval.
type BootstrapResult struct {
	// Estimate is the statistic on the original data.
	Estimate float64 `json:"estimate"`
	// CI is the percentile interval: the type-7 α/2 and 1−α/2 quantiles of
	// the B resampled statistics, α = 1 − Conf.
	CI Interval `json:"ci"`
	// SE is the standard deviation of the resampled statistics.
	SE       float64 `json:"se"`
	B        int     `json:"b"`
	Conf     float64 `json:"conf"`
	Clusters int     `json:"clusters"` // resampling units (= len(data) for Bootstrap)
	Seed     uint64  `json:"seed"`
}

// Bootstrap returns the percentile bootstrap (Efron & Tibshirani 1993,
// §13.3) of stat over data: B resamples of len(data) items drawn with
// replacement by a PCG generator seeded with opt.Seed. stat receives a
// scratch slice that is reused between calls and must not retain it; it
// must return a finite value (a NaN or ±Inf statistic is reported as an
// error naming the resample). ctx is checked between resamples.
//
// Bootstrap draws exactly the same random numbers as [ClusterBootstrap]
// with one cluster per item, so the two agree for singleton clusters.
func Bootstrap[T any](ctx context.Context, data []T, stat func([]T) float64, opt BootstrapOptions) (BootstrapResult, error) {
	clusters := make([][]int, len(data))
	for i := range data {
		clusters[i] = []int{i}
	}
	return bootstrap(ctx, "stats.Bootstrap", data, clusters, stat, opt)
}

// ClusterBootstrap is the cluster (block) bootstrap with the cluster as
// the unit of independence — rxsynth §7.4.3's "pair-cluster bootstrap",
// where both orderings of a real pair stay together. Items are grouped by
// key; each resample draws as many cluster ids as there are clusters,
// with replacement, and concatenates all members of every chosen cluster
// (so resample sizes vary with cluster sizes). Clusters are numbered in
// order of first appearance in data, which makes the result deterministic
// for a given seed and data order. Everything else is as [Bootstrap].
func ClusterBootstrap[T any, K comparable](ctx context.Context, data []T, key func(T) K, stat func([]T) float64, opt BootstrapOptions) (BootstrapResult, error) {
	ids := map[K]int{}
	var clusters [][]int
	for i, v := range data {
		k := key(v)
		c, ok := ids[k]
		if !ok {
			c = len(clusters)
			ids[k] = c
			clusters = append(clusters, nil)
		}
		clusters[c] = append(clusters[c], i)
	}
	return bootstrap(ctx, "stats.ClusterBootstrap", data, clusters, stat, opt)
}

func bootstrap[T any](ctx context.Context, op string, data []T, clusters [][]int, stat func([]T) float64, opt BootstrapOptions) (BootstrapResult, error) {
	if len(data) == 0 {
		return BootstrapResult{}, inputErr(op, "no data to resample")
	}
	if stat == nil {
		return BootstrapResult{}, inputErr(op, "nil statistic")
	}
	if opt.B < 2 {
		return BootstrapResult{}, inputErr(op, "B = %d resamples: need at least 2 (use ≥ 2000 for a 95%% interval)", opt.B)
	}
	if err := checkConf(op, opt.Conf); err != nil {
		return BootstrapResult{}, err
	}
	est := stat(data)
	if math.IsNaN(est) || math.IsInf(est, 0) {
		return BootstrapResult{}, inputErr(op, "statistic on the original data is %v", est)
	}
	rng := rand.New(rand.NewPCG(opt.Seed, pcgStream))
	nc := len(clusters)
	buf := make([]T, 0, len(data))
	reps := make([]float64, opt.B)
	for b := range reps {
		if b%64 == 0 {
			if err := ctx.Err(); err != nil {
				return BootstrapResult{}, fmt.Errorf("%s: cancelled after %d of %d resamples: %w", op, b, opt.B, err)
			}
		}
		buf = buf[:0]
		for range nc {
			for _, i := range clusters[rng.IntN(nc)] {
				buf = append(buf, data[i])
			}
		}
		v := stat(buf)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return BootstrapResult{}, inputErr(op, "statistic on resample %d (seed %d) is %v: make the statistic total (e.g. define 0/0)", b, opt.Seed, v)
		}
		reps[b] = v
	}
	slices.Sort(reps)
	a := 1 - opt.Conf
	se := sd(reps, mean(reps))
	if err := finite(op, "bootstrap standard error", se); err != nil {
		return BootstrapResult{}, err
	}
	return BootstrapResult{
		Estimate: est,
		CI:       Interval{Lo: quantileSorted(reps, a/2), Hi: quantileSorted(reps, 1-a/2)},
		SE:       se,
		B:        opt.B, Conf: opt.Conf, Clusters: nc, Seed: opt.Seed,
	}, nil
}
