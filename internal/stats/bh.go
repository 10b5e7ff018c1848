package stats

import (
	"math"
	"slices"
)

// BH returns Benjamini–Hochberg (1995) adjusted p-values ("q-values" in
// the sense of R's p.adjust(method = "BH")), in the original order:
//
//	p̃_(i) = min_{j ≥ i} min(1, m·p_(j)/j)
//
// over the ascending order p_(1) ≤ … ≤ p_(m). The adjusted values are
// monotone in the raw ones, ≥ the raw ones and capped at 1. Equal raw
// p-values receive equal adjusted values. Errors: empty input, NaN or a
// value outside [0, 1].
func BH(p []float64) ([]float64, error) {
	const op = "stats.BH"
	if len(p) == 0 {
		return nil, inputErr(op, "no p-values")
	}
	for i, v := range p {
		if !(v >= 0 && v <= 1) {
			return nil, inputErr(op, "p[%d] = %v is not a p-value in [0, 1]", i, v)
		}
	}
	m := len(p)
	order := make([]int, m)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return 0
	})
	adj := make([]float64, m)
	running := 1.0
	for r := m - 1; r >= 0; r-- {
		i := order[r]
		// m/(r+1) ≥ 1, so v ≥ p[i]; the Max undoes a rounding of m·p/m
		// one ulp below p.
		v := math.Max(p[i], math.Min(1, float64(m)*p[i]/float64(r+1)))
		running = math.Min(running, v)
		adj[i] = running
	}
	return adj, nil
}

// BHReject applies the Benjamini–Hochberg step-up procedure at false
// discovery rate q: it rejects H_(1..k) for the largest k with
// p_(k) ≤ k·q/m, equivalently every hypothesis whose [BH]-adjusted
// p-value is ≤ q. It returns the rejections in the original order and the
// adjusted p-values. Errors: as [BH], and q outside (0, 1].
func BHReject(p []float64, q float64) (reject []bool, adjusted []float64, err error) {
	const op = "stats.BHReject"
	if !(q > 0 && q <= 1) {
		return nil, nil, inputErr(op, "FDR level q = %v is outside (0, 1]: use e.g. 0.05", q)
	}
	adj, err := BH(p)
	if err != nil {
		return nil, nil, err
	}
	reject = make([]bool, len(p))
	for i, a := range adj {
		reject[i] = a <= q
	}
	return reject, adj, nil
}
