package stats

import (
	"math"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

func checkCounts(op string, k, n int) error {
	if n < 1 {
		return inputErr(op, "number of trials n = %d: need n ≥ 1", n)
	}
	if k < 0 || k > n {
		return inputErr(op, "successes k = %d outside [0, n = %d]", k, n)
	}
	return nil
}

// normalQuantile2 returns z_{(1+conf)/2}, conf already validated.
func normalQuantile2(conf float64) float64 {
	return distuv.UnitNormal.Quantile((1 + conf) / 2)
}

// Wilson returns the Wilson (1927) score interval for a binomial
// proportion k/n at confidence conf, as reported in rxsynth §6.3:
//
//	(p̂ + z²/2n ± z·sqrt(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n),  z = Φ⁻¹((1+conf)/2).
//
// It is the set of p with |p̂ − p| ≤ z·sqrt(p(1−p)/n). The bounds are
// exactly 0 when k = 0 and 1 when k = n. Errors: n < 1, k outside [0, n],
// conf outside (0, 1).
func Wilson(k, n int, conf float64) (Interval, error) {
	const op = "stats.Wilson"
	if err := checkCounts(op, k, n); err != nil {
		return Interval{}, err
	}
	if err := checkConf(op, conf); err != nil {
		return Interval{}, err
	}
	p := float64(k) / float64(n)
	return Interval{Lo: wilsonLo(p, float64(n), normalQuantile2(conf), k == 0),
		Hi: wilsonHi(p, float64(n), normalQuantile2(conf), k == n)}, nil
}

// WilsonCC returns the continuity-corrected Wilson interval (Newcombe
// 1998, method 4): the set of p with |p̂ − p| − 1/(2n) ≤ z·sqrt(p(1−p)/n).
// Its lower bound is the Wilson lower bound evaluated at p̂ − 1/(2n) and
// its upper bound the Wilson upper bound at p̂ + 1/(2n), clipped to
// [0, 1] — the form R's prop.test(correct = TRUE) uses for its interval.
func WilsonCC(k, n int, conf float64) (Interval, error) {
	const op = "stats.WilsonCC"
	if err := checkCounts(op, k, n); err != nil {
		return Interval{}, err
	}
	if err := checkConf(op, conf); err != nil {
		return Interval{}, err
	}
	nf := float64(n)
	p := float64(k) / nf
	z := normalQuantile2(conf)
	lo, hi := p-0.5/nf, p+0.5/nf
	return Interval{Lo: wilsonLo(lo, nf, z, lo <= 0), Hi: wilsonHi(hi, nf, z, hi >= 1)}, nil
}

func wilsonLo(p, n, z float64, zero bool) float64 {
	if zero {
		return 0
	}
	z2 := z * z
	v := (p + z2/(2*n) - z*math.Sqrt(p*(1-p)/n+z2/(4*n*n))) / (1 + z2/n)
	return clamp01(v)
}

func wilsonHi(p, n, z float64, one bool) float64 {
	if one {
		return 1
	}
	z2 := z * z
	v := (p + z2/(2*n) + z*math.Sqrt(p*(1-p)/n+z2/(4*n*n))) / (1 + z2/n)
	return clamp01(v)
}

// ClopperPearson returns the exact (Clopper & Pearson 1934) interval
// [B⁻¹(α/2; k, n−k+1), B⁻¹(1−α/2; k+1, n−k)] with α = 1−conf, the
// interval R's binom.test reports; bounds are 0 when k = 0 and 1 when k = n.
func ClopperPearson(k, n int, conf float64) (Interval, error) {
	const op = "stats.ClopperPearson"
	if err := checkCounts(op, k, n); err != nil {
		return Interval{}, err
	}
	if err := checkConf(op, conf); err != nil {
		return Interval{}, err
	}
	a := 1 - conf
	iv := Interval{Lo: 0, Hi: 1}
	if k > 0 {
		iv.Lo = mathext.InvRegIncBeta(float64(k), float64(n-k+1), a/2)
	}
	if k < n {
		iv.Hi = mathext.InvRegIncBeta(float64(k+1), float64(n-k), 1-a/2)
	}
	return iv, nil
}

// BinomResult is the outcome of an exact binomial test.
type BinomResult struct {
	K           int         `json:"k"`
	N           int         `json:"n"`
	P0          float64     `json:"p0"`
	Estimate    float64     `json:"estimate"` // k/n
	P           float64     `json:"p"`
	Alternative Alternative `json:"alternative"`
}

// BinomTest runs the exact binomial test of H0: π = p0 for k successes in
// n trials.
//
//   - Greater: p = P(X ≥ k) = Σ_{i≥k} C(n,i) p0^i (1−p0)^{n−i} — the
//     Stage I repository-presence p-value of benchchecker §3.3;
//   - Less: p = P(X ≤ k);
//   - TwoSided: the "minlike" p-value of R's binom.test, the total
//     probability of all outcomes i with P(X = i) ≤ P(X = k)·(1 + 10⁻⁷).
//
// Tails are evaluated with the regularised incomplete beta function
// (gonum mathext.RegIncBeta: P(X ≥ k) = I_{p0}(k, n−k+1)), so p-values far
// below 10⁻¹⁶ keep their relative precision. The two-sided set uses the
// unimodality of the binomial pmf (computed with log-gamma) to find the
// opposite-tail cut-off by binary search in O(log n). p0 = 0 and p0 = 1
// are allowed (degenerate null). Errors: n < 1, k outside [0, n], p0
// outside [0, 1], unknown alternative.
func BinomTest(k, n int, p0 float64, alt Alternative) (BinomResult, error) {
	const op = "stats.BinomTest"
	if err := checkCounts(op, k, n); err != nil {
		return BinomResult{}, err
	}
	if err := checkProb(op, "p0", p0); err != nil {
		return BinomResult{}, err
	}
	if err := checkAlt(op, alt); err != nil {
		return BinomResult{}, err
	}
	r := BinomResult{K: k, N: n, P0: p0, Estimate: float64(k) / float64(n), Alternative: alt}
	switch alt {
	case Greater:
		r.P = binomUpper(k, n, p0)
	case Less:
		r.P = binomLower(k, n, p0)
	default:
		r.P = binomTwoSided(k, n, p0)
	}
	return r, nil
}

// binomUpper is P(X ≥ k) for X ~ Bin(n, p).
func binomUpper(k, n int, p float64) float64 {
	switch {
	case k <= 0:
		return 1
	case k > n:
		return 0
	}
	return clamp01(mathext.RegIncBeta(float64(k), float64(n-k+1), p))
}

// binomLower is P(X ≤ k) for X ~ Bin(n, p).
func binomLower(k, n int, p float64) float64 {
	switch {
	case k < 0:
		return 0
	case k >= n:
		return 1
	}
	return clamp01(mathext.RegIncBeta(float64(n-k), float64(k+1), 1-p))
}

// binomPMF is P(X = i) for X ~ Bin(n, p), 0 ≤ i ≤ n.
func binomPMF(i, n int, p float64) float64 {
	switch p {
	case 0:
		if i == 0 {
			return 1
		}
		return 0
	case 1:
		if i == n {
			return 1
		}
		return 0
	}
	lc, _ := math.Lgamma(float64(n + 1))
	li, _ := math.Lgamma(float64(i + 1))
	lr, _ := math.Lgamma(float64(n - i + 1))
	return math.Exp(lc - li - lr + float64(i)*math.Log(p) + float64(n-i)*math.Log1p(-p))
}

// binomTwoSided is R's binom.test two-sided ("minlike") p-value.
func binomTwoSided(k, n int, p float64) float64 {
	const relErr = 1 + 1e-7
	d := binomPMF(k, n, p) * relErr
	m := float64(n) * p
	kf := float64(k)
	switch {
	case kf == m:
		return 1
	case kf < m:
		// pmf is non-increasing on [ceil(m), n]: find the first i there
		// with pmf(i) ≤ d; all of i..n are at least as extreme.
		lo, hi := int(math.Ceil(m)), n+1
		for lo < hi {
			mid := lo + (hi-lo)/2
			if binomPMF(mid, n, p) <= d {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		return min(1, binomLower(k, n, p)+binomUpper(lo, n, p))
	default:
		// pmf is non-decreasing on [0, floor(m)]: find the last i there
		// with pmf(i) ≤ d; all of 0..i are at least as extreme.
		lo, hi := 0, int(math.Floor(m))+1 // first index with pmf > d
		for lo < hi {
			mid := lo + (hi-lo)/2
			if binomPMF(mid, n, p) > d {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		return min(1, binomLower(lo-1, n, p)+binomUpper(k, n, p))
	}
}

// CohensH returns Cohen's (1988) effect size for two proportions,
// h = 2·asin(√p1) − 2·asin(√p2), in [−π, π] (|h| ≈ 0.2 small, 0.5 medium,
// 0.8 large); rxsynth §7.4.3 reports it against chance (p2 = 0.5).
// Errors: p1 or p2 outside [0, 1].
func CohensH(p1, p2 float64) (float64, error) {
	const op = "stats.CohensH"
	if err := checkProb(op, "p1", p1); err != nil {
		return 0, err
	}
	if err := checkProb(op, "p2", p2); err != nil {
		return 0, err
	}
	return 2*math.Asin(math.Sqrt(p1)) - 2*math.Asin(math.Sqrt(p2)), nil
}
