package stats

import "fmt"

// Magnitude is a verbal label for |δ| by the thresholds of Romano et al.
// (2006), as used in rxsynth §6.1.
type Magnitude int

const (
	// Negligible: |δ| < 0.147.
	Negligible Magnitude = iota
	// Small: 0.147 ≤ |δ| < 0.33.
	Small
	// Medium: 0.33 ≤ |δ| < 0.474.
	Medium
	// Large: |δ| ≥ 0.474.
	Large
)

// String returns "negligible", "small", "medium" or "large".
func (m Magnitude) String() string {
	switch m {
	case Negligible:
		return "negligible"
	case Small:
		return "small"
	case Medium:
		return "medium"
	case Large:
		return "large"
	}
	return fmt.Sprintf("Magnitude(%d)", int(m))
}

// MarshalText encodes the magnitude as its String form.
func (m Magnitude) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// DeltaMagnitude labels an effect size by Romano et al. (2006): |δ| <
// 0.147 negligible, < 0.33 small, < 0.474 medium, otherwise large.
func DeltaMagnitude(delta float64) Magnitude {
	a := delta
	if a < 0 {
		a = -a
	}
	switch {
	case a < 0.147:
		return Negligible
	case a < 0.33:
		return Small
	case a < 0.474:
		return Medium
	}
	return Large
}

// CliffResult is Cliff's δ with its counts and Romano magnitude.
type CliffResult struct {
	// Delta = (#{x_i > y_j} − #{x_i < y_j}) / (n·m), in [−1, 1];
	// positive when x tends to be larger.
	Delta     float64   `json:"delta"`
	Greater   int64     `json:"greater"` // #{(i,j): x_i > y_j}
	Less      int64     `json:"less"`    // #{(i,j): x_i < y_j}
	Ties      int64     `json:"ties"`    // #{(i,j): x_i = y_j}
	Magnitude Magnitude `json:"magnitude"`
}

// CliffsDelta returns Cliff's (1993) dominance statistic
// δ = P(X > Y) − P(X < Y) estimated over all n·m pairs, computed in
// O((n+m) log(n+m)) by sorting both samples and merging: each block of
// equal pooled values contributes cx·(#y below) to Greater and cx·(#y
// above) to Less. δ equals the rank-biserial correlation 2U/(nm) − 1 of
// [MannWhitney]. Pairs with x_i = y_j count as neither. Empty samples and
// NaN are errors; ±Inf are ordinary values.
func CliffsDelta(x, y []float64) (CliffResult, error) {
	const op = "stats.CliffsDelta"
	if err := checkSample(op, "x", x, false); err != nil {
		return CliffResult{}, err
	}
	if err := checkSample(op, "y", y, false); err != nil {
		return CliffResult{}, err
	}
	xs, ys := sortedCopy(x), sortedCopy(y)
	m := int64(len(ys))
	var below int64 // y values strictly below the current block
	var r CliffResult
	mergeBlocks(xs, ys, func(cx, cy int) {
		c := int64(cx)
		r.Greater += c * below
		r.Ties += c * int64(cy)
		r.Less += c * (m - below - int64(cy))
		below += int64(cy)
	})
	r.Delta = float64(r.Greater-r.Less) / (float64(len(x)) * float64(len(y)))
	r.Magnitude = DeltaMagnitude(r.Delta)
	return r, nil
}
