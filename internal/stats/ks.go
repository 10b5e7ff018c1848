package stats

import (
	"fmt"
	"math"

	"github.com/benchforge/benchforge/internal/errs"
)

// KSMethod selects how [KS2] computes its p-value.
type KSMethod int

const (
	// KSAuto uses KSExact when n·m < 10 000 and there are no ties between
	// or within the samples, and KSAsymptotic otherwise — R's default in
	// ks.test.
	KSAuto KSMethod = iota
	// KSExact computes the exact permutation p-value by the lattice-path
	// recursion (see [KS2]). With ties it is exact conditional on the
	// observed tie pattern. Refused when n·m > MaxExactKS.
	KSExact
	// KSAsymptotic uses the limiting Kolmogorov distribution.
	KSAsymptotic
)

// String returns "auto", "exact" or "asymptotic".
func (m KSMethod) String() string {
	switch m {
	case KSAuto:
		return "auto"
	case KSExact:
		return "exact"
	case KSAsymptotic:
		return "asymptotic"
	}
	return fmt.Sprintf("KSMethod(%d)", int(m))
}

// MarshalText encodes the method as its String form.
func (m KSMethod) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// MaxExactKS bounds n·m (and MaxExactKS/10 bounds n+m) for an explicitly
// requested exact KS p-value: the recursion costs O(n·m) time (about 1 s
// at 10⁸ on one core) and O(n+m) memory.
const MaxExactKS = 100_000_000

// KSResult is the outcome of a two-sample Kolmogorov–Smirnov test.
type KSResult struct {
	// D = sup_t |F_x(t) − F_y(t)|, in [0, 1].
	D float64 `json:"d"`
	// P is the two-sided p-value P(D' ≥ D) under H0: same distribution.
	P float64 `json:"p"`
	N int     `json:"n"`
	M int     `json:"m"`
	// Method is KSExact or KSAsymptotic: the method actually used.
	Method KSMethod `json:"method"`
	// Ties reports whether the pooled sample contains equal values.
	Ties bool `json:"ties"`
}

// KS2 runs the two-sided two-sample Kolmogorov–Smirnov test of x against
// y, as used for the structural-fidelity comparison of rxsynth §6.1.
//
// Statistic. D = max over the distinct pooled values t of
// |F_x(t) − F_y(t)| where F are the empirical CDFs (right-continuous).
// Ties are handled by evaluating both ECDFs only after all observations
// equal to t have been counted, so tied values never create a spurious
// jump. D is computed in integer arithmetic as max|i·m − j·n| / (n·m)
// where i, j count x and y values ≤ t, so comparisons below are exact.
//
// Exact p-value. Under H0 every one of the C(n+m, n) interleavings of the
// pooled sorted sample (a monotone lattice path from (0,0) to (n,m)) is
// equally likely; p is the fraction of paths that reach a point (i, j)
// with |i·m − j·n| ≥ n·m·D. This is the Hodges (1957) / Kim & Jennrich
// (1973) recursion used by R's psmirnov(exact = TRUE). We count paths
// that touch the boundary directly, normalised by the number of paths to
// each point (u(i,j) = [i·u(i−1,j) + j·u(i,j−1)]/(i+j), u = 1 on the
// boundary), so p is obtained without the cancellation of 1 − P(inside)
// and stays accurate far below 1e-16. With ties, only points that end a
// tie block are checked (Schröer & Trenkler 1995), which gives the exact
// permutation p-value conditional on the tie pattern.
//
// Asymptotic p-value. p = Q(λ), λ = sqrt(n·m/(n+m))·D, with the limiting
// Kolmogorov survival function Q(λ) = 2 Σ_{k≥1} (−1)^{k−1} e^{−2k²λ²}
// (for λ < 1 the equivalent theta-function form
// 1 − √(2π)/λ Σ e^{−(2k−1)²π²/(8λ²)} is summed instead). This is R's
// approach (psmirnov(exact = FALSE)); no Stephens (1970) small-sample
// correction is applied, so the p-value is conservative-to-accurate for
// moderate n and agrees with R, not with Numerical Recipes' probks.
//
// Errors: empty samples or NaN (ErrInput); KSExact with n·m > MaxExactKS
// (ErrUnsupported). ±Inf are ordinary values.
func KS2(x, y []float64, method KSMethod) (KSResult, error) {
	if err := checkKS2(x, y, method); err != nil {
		return KSResult{}, err
	}
	n, m := int64(len(x)), int64(len(y))
	nm := n * m
	xs, ys := sortedCopy(x), sortedCopy(y)

	// ends[k] is the pooled count (i+j) after the k-th distinct value.
	var (
		i, j  int64
		dnum  int64
		ties  bool
		ends  []int64
		exact = method == KSExact || (method == KSAuto && nm < 10000)
	)
	mergeBlocks(xs, ys, func(cx, cy int) {
		i += int64(cx)
		j += int64(cy)
		if cx+cy > 1 {
			ties = true
		}
		if d := absI64(i*m - j*n); d > dnum {
			dnum = d
		}
		if exact {
			ends = append(ends, i+j)
		}
	})
	if method == KSAuto && ties {
		exact = false
	}
	res := KSResult{D: float64(dnum) / (float64(n) * float64(m)), N: len(x), M: len(y), Ties: ties}
	if exact {
		res.Method = KSExact
		res.P = ksExactP(int(n), int(m), dnum, ends, ties)
	} else {
		res.Method = KSAsymptotic
		res.P = kolmogorovQ(math.Sqrt(float64(n)*float64(m)/float64(n+m)) * res.D)
	}
	return res, nil
}

// checkKS2 rejects KS2's bad inputs and an exact test beyond MaxExactKS.
func checkKS2(x, y []float64, method KSMethod) error {
	const op = "stats.KS2"
	if err := checkSample(op, "x", x, false); err != nil {
		return err
	}
	if err := checkSample(op, "y", y, false); err != nil {
		return err
	}
	if method < KSAuto || method > KSAsymptotic {
		return inputErr(op, "unknown method %d: use KSAuto, KSExact or KSAsymptotic", int(method))
	}
	n, m := int64(len(x)), int64(len(y))
	nm := n * m
	if method == KSExact && (nm > MaxExactKS || n+m > MaxExactKS/10) {
		return fmt.Errorf("%s: exact p-value for n = %d, m = %d exceeds the limit n·m ≤ %d, n+m ≤ %d: use KSAuto or KSAsymptotic: %w",
			op, n, m, MaxExactKS, MaxExactKS/10, errs.ErrUnsupported)
	}
	return nil
}

func absI64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// ksExactP returns the probability that a uniformly random lattice path
// from (0,0) to (n,m) touches a checked point with |i·m − j·n| ≥ dnum.
// Without ties every point is checked; with ties only points whose i+j is
// in ends.
func ksExactP(n, m int, dnum int64, ends []int64, ties bool) float64 {
	if m > n {
		// The boundary |i·m − j·n| and the tie positions i+j are symmetric
		// in (i, n) ↔ (j, m): keep the row buffer on the shorter side.
		n, m = m, n
	}
	checked := func(int) bool { return true }
	if ties {
		isEnd := make([]bool, n+m+1)
		isEnd[0] = true
		for _, e := range ends {
			isEnd[e] = true
		}
		checked = func(s int) bool { return isEnd[s] }
	}
	n64, m64 := int64(n), int64(m)
	hit := func(i, j int) bool {
		return checked(i+j) && absI64(int64(i)*m64-int64(j)*n64) >= dnum
	}
	u := make([]float64, m+1)
	for i := 0; i <= n; i++ {
		for j := 0; j <= m; j++ {
			switch {
			case hit(i, j):
				u[j] = 1
			case i == 0 && j == 0:
				u[j] = 0
			case i == 0:
				u[j] = u[j-1]
			case j == 0:
				// u[0] already holds row i−1; a single predecessor.
			default:
				u[j] = (float64(i)*u[j] + float64(j)*u[j-1]) / float64(i+j)
			}
		}
	}
	return clamp01(u[m])
}

// kolmogorovQ is the survival function of the Kolmogorov distribution,
// Q(λ) = P(K > λ), K = sup|B(t)| of a Brownian bridge.
func kolmogorovQ(lambda float64) float64 {
	if !(lambda > 0) {
		return 1
	}
	if lambda < 1 {
		// K(λ) = √(2π)/λ Σ_{k≥1} exp(−(2k−1)²π²/(8λ²)); converges fast for small λ.
		var s float64
		c := math.Pi * math.Pi / (8 * lambda * lambda)
		for k := 1; k <= 100; k++ {
			o := float64(2*k - 1)
			t := math.Exp(-o * o * c)
			s += t
			if t < 1e-17*s {
				break
			}
		}
		return clamp01(1 - math.Sqrt(2*math.Pi)/lambda*s)
	}
	var s float64
	sign := 1.0
	for k := 1; k <= 100; k++ {
		kf := float64(k)
		t := math.Exp(-2 * kf * kf * lambda * lambda)
		s += sign * t
		if t <= 1e-17*math.Abs(s) || t == 0 {
			break
		}
		sign = -sign
	}
	return clamp01(2 * s)
}

func clamp01(v float64) float64 {
	switch {
	case v < 0:
		return 0
	case v > 1:
		return 1
	}
	return v
}
