package stats

import "math"

// KappaResult is Cohen's κ for two raters with its approximate standard
// error and confidence interval.
type KappaResult struct {
	N          int     `json:"n"`
	Categories int     `json:"categories"` // distinct labels used by either rater
	Kappa      float64 `json:"kappa"`
	Po         float64 `json:"po"` // observed agreement
	Pe         float64 `json:"pe"` // chance agreement from the marginals
	// SE is Cohen's (1960) large-sample standard error
	// sqrt(po(1−po) / (n(1−pe)²)).
	SE   float64  `json:"se"`
	Conf float64  `json:"conf"`
	CI   Interval `json:"ci"` // κ ± z·SE, clipped to [−1, 1]
}

// CohensKappa returns Cohen's (1960) κ = (po − pe)/(1 − pe) for two
// raters who labelled the same n items, a[i] and b[i] being the two labels
// of item i (any comparable label type): po is the fraction of items with
// a[i] = b[i], pe = Σ_c pa(c)·pb(c) from each rater's marginal
// proportions. rxsynth §5.2–5.3 reports κ between human and model judges.
// The interval is the Wald interval κ ± z_{(1+conf)/2}·SE with Cohen's
// (1960) SE; it is an approximation (for small n or κ near ±1 prefer a
// bootstrap over items with [Bootstrap]).
//
// Errors: empty or different-length inputs, conf outside (0, 1), and
// pe = 1 (both raters used one and the same label for every item: κ is
// undefined).
func CohensKappa[T comparable](a, b []T, conf float64) (KappaResult, error) {
	const op = "stats.CohensKappa"
	if len(a) == 0 || len(b) == 0 {
		return KappaResult{}, inputErr(op, "no ratings (len(a) = %d, len(b) = %d)", len(a), len(b))
	}
	if len(a) != len(b) {
		return KappaResult{}, inputErr(op, "rater a has %d labels, rater b %d: both must label the same items", len(a), len(b))
	}
	if err := checkConf(op, conf); err != nil {
		return KappaResult{}, err
	}
	n := len(a)
	ca, cb := map[T]int{}, map[T]int{}
	agree := 0
	for i := range a {
		ca[a[i]]++
		cb[b[i]]++
		if a[i] == b[i] {
			agree++
		}
	}
	cats := len(ca)
	for c := range cb {
		if _, ok := ca[c]; !ok {
			cats++
		}
	}
	nf := float64(n)
	var pe float64
	for c, na := range ca {
		pe += float64(na) / nf * float64(cb[c]) / nf
	}
	po := float64(agree) / nf
	if pe >= 1 {
		return KappaResult{}, inputErr(op, "chance agreement is 1 (both raters gave every item the same single label): κ is undefined")
	}
	k := (po - pe) / (1 - pe)
	se := math.Sqrt(po*(1-po)/nf) / (1 - pe)
	z := normalQuantile2(conf)
	return KappaResult{
		N: n, Categories: cats, Kappa: k, Po: po, Pe: pe, SE: se, Conf: conf,
		CI: Interval{Lo: max(-1, k-z*se), Hi: min(1, k+z*se)},
	}, nil
}
