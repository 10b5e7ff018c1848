package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Mean returns the arithmetic mean of x, computed with a second
// correction pass (mean of residuals) so that large offsets do not lose
// precision. x must be non-empty and finite.
func Mean(x []float64) (float64, error) {
	if err := checkSample("stats.Mean", "x", x, true); err != nil {
		return 0, err
	}
	return mean(x), nil
}

// mean sums v/n (so finite values near ±MaxFloat64 cannot overflow the
// sum) and adds the mean residual as a correction when that is finite.
func mean(x []float64) float64 {
	n := float64(len(x))
	var s float64
	for _, v := range x {
		s += v / n
	}
	var r float64
	for _, v := range x {
		r += (v - s) / n
	}
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return s
	}
	return s + r
}

// finite reports an overflow of a derived quantity as an input error.
func finite(op, what string, v float64) error {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return inputErr(op, "%s overflows float64: rescale the values", what)
	}
	return nil
}

// SD returns the sample standard deviation of x with the n−1 denominator,
// sqrt(Σ(x−x̄)²/(n−1)). It needs at least two finite values; a single value
// has no sample standard deviation and is reported as an error.
func SD(x []float64) (float64, error) {
	const op = "stats.SD"
	if err := checkSample(op, "x", x, true); err != nil {
		return 0, err
	}
	if len(x) < 2 {
		return 0, inputErr(op, "need at least 2 values for a sample standard deviation, got 1")
	}
	v := sd(x, mean(x))
	return v, finite(op, "standard deviation", v)
}

func sd(x []float64, m float64) float64 {
	var ss, c float64
	for _, v := range x {
		d := v - m
		ss += d * d
		c += d
	}
	n := float64(len(x))
	// Corrected two-pass algorithm (Chan, Golub & LeVeque 1983).
	return math.Sqrt((ss - c*c/n) / (n - 1))
}

// Quantile returns the p-quantile of x by R's default definition (type 7,
// Hyndman & Fan 1996): with x sorted ascending and h = (n−1)p (0-based),
// Q(p) = x[⌊h⌋] + (h−⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]). p must be in [0, 1] and x
// non-empty and finite; a single value is every quantile of itself.
func Quantile(x []float64, p float64) (float64, error) {
	q, err := Quantiles(x, p)
	if err != nil {
		return 0, err
	}
	return q[0], nil
}

// Quantiles returns the type-7 quantiles of x at each of ps (see
// [Quantile]), sorting x once.
func Quantiles(x []float64, ps ...float64) ([]float64, error) {
	const op = "stats.Quantiles"
	if err := checkSample(op, "x", x, true); err != nil {
		return nil, err
	}
	for _, p := range ps {
		if err := checkProb(op, "p", p); err != nil {
			return nil, err
		}
	}
	s := sortedCopy(x)
	out := make([]float64, len(ps))
	for i, p := range ps {
		out[i] = quantileSorted(s, p)
	}
	return out, nil
}

// quantileSorted is the type-7 quantile of an ascending, finite, non-empty s.
func quantileSorted(s []float64, p float64) float64 {
	h := float64(len(s)-1) * p
	lo := int(math.Floor(h))
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	f := h - float64(lo)
	if f == 0 {
		return s[lo]
	}
	if d := s[lo+1] - s[lo]; !math.IsInf(d, 0) {
		return s[lo] + f*d
	}
	return (1-f)*s[lo] + f*s[lo+1] // the difference overflowed
}

// Median returns the type-7 0.5-quantile of x: the middle value, or the
// mean of the two middle values when len(x) is even.
func Median(x []float64) (float64, error) { return Quantile(x, 0.5) }

// IQR returns the interquartile range Q(0.75) − Q(0.25), type 7.
func IQR(x []float64) (float64, error) {
	q, err := Quantiles(x, 0.25, 0.75)
	if err != nil {
		return 0, err
	}
	return q[1] - q[0], nil
}

// Summary holds the descriptives printed in reports. SD is 0 when N = 1
// (reports show "—" for it; use [SD] to get an error instead).
type Summary struct {
	N      int     `json:"n"`
	Mean   float64 `json:"mean"`
	SD     float64 `json:"sd"`
	Min    float64 `json:"min"`
	Q1     float64 `json:"q1"`
	Median float64 `json:"median"`
	Q3     float64 `json:"q3"`
	Max    float64 `json:"max"`
}

// Describe returns the N, mean, sd (n−1), min, type-7 quartiles and max
// of a non-empty finite sample.
func Describe(x []float64) (Summary, error) {
	if err := checkSample("stats.Describe", "x", x, true); err != nil {
		return Summary{}, err
	}
	s := sortedCopy(x)
	m := mean(x)
	out := Summary{
		N: len(x), Mean: m,
		Min: s[0], Q1: quantileSorted(s, 0.25), Median: quantileSorted(s, 0.5),
		Q3: quantileSorted(s, 0.75), Max: s[len(s)-1],
	}
	if len(x) > 1 {
		out.SD = sd(x, m)
		if err := finite("stats.Describe", "standard deviation", out.SD); err != nil {
			return Summary{}, err
		}
	}
	return out, nil
}

// MeanInterval is a Student t confidence interval for a population mean.
type MeanInterval struct {
	N    int      `json:"n"`
	Mean float64  `json:"mean"`
	SD   float64  `json:"sd"`
	SE   float64  `json:"se"`
	Conf float64  `json:"conf"`
	CI   Interval `json:"ci"`
}

// MeanCI returns the two-sided Student t interval x̄ ± t_{(1+conf)/2, n−1}·s/√n
// (e.g. the across-seed "95% interval on the mean" of rxsynth §7.4.3). The
// t quantile comes from gonum distuv.StudentsT. n = 1 has no degrees of
// freedom and is an error; conf must be in (0, 1).
func MeanCI(x []float64, conf float64) (MeanInterval, error) {
	const op = "stats.MeanCI"
	if err := checkSample(op, "x", x, true); err != nil {
		return MeanInterval{}, err
	}
	if err := checkConf(op, conf); err != nil {
		return MeanInterval{}, err
	}
	n := len(x)
	if n < 2 {
		return MeanInterval{}, inputErr(op, "a t interval needs at least 2 values (n−1 degrees of freedom), got 1")
	}
	m := mean(x)
	s := sd(x, m)
	if err := finite(op, "standard deviation", s); err != nil {
		return MeanInterval{}, err
	}
	se := s / math.Sqrt(float64(n))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile((1 + conf) / 2)
	ci := Interval{Lo: m - t*se, Hi: m + t*se}
	if err := finite(op, "interval", ci.Hi-ci.Lo); err != nil {
		return MeanInterval{}, err
	}
	return MeanInterval{N: n, Mean: m, SD: s, SE: se, Conf: conf, CI: ci}, nil
}
