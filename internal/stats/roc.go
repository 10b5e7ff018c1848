package stats

import (
	"encoding/json"
	"math"
	"slices"
)

// ROCPoint is one point of a ROC curve: classifying an item as positive
// iff its score ≥ Threshold yields false- and true-positive rates FPR and
// TPR. The first point of a curve has Threshold = +Inf (nothing
// positive); it is encoded as JSON null.
type ROCPoint struct {
	Threshold float64 `json:"threshold"`
	FPR       float64 `json:"fpr"`
	TPR       float64 `json:"tpr"`
}

// MarshalJSON encodes an infinite threshold as null (JSON has no Inf).
func (p ROCPoint) MarshalJSON() ([]byte, error) {
	var t *float64
	if !math.IsInf(p.Threshold, 0) {
		t = &p.Threshold
	}
	return json.Marshal(struct {
		Threshold *float64 `json:"threshold"`
		FPR       float64  `json:"fpr"`
		TPR       float64  `json:"tpr"`
	}{t, p.FPR, p.TPR})
}

// checkScored validates scores/labels and returns the counts of positives
// and negatives.
func checkScored(op string, scores []float64, labels []bool) (pos, neg int, err error) {
	if len(scores) != len(labels) {
		return 0, 0, inputErr(op, "%d scores but %d labels", len(scores), len(labels))
	}
	if err := checkSample(op, "scores", scores, true); err != nil {
		return 0, 0, err
	}
	for _, l := range labels {
		if l {
			pos++
		}
	}
	neg = len(labels) - pos
	if pos == 0 || neg == 0 {
		return 0, 0, inputErr(op, "labels have %d positives and %d negatives: ROC needs both classes", pos, neg)
	}
	return pos, neg, nil
}

// ROC returns the empirical ROC curve of scores against binary labels
// (true = positive; higher score = more positive): the point (0, 0) at
// Threshold +Inf, then one point per distinct score in descending order,
// ending at (1, 1). Tied scores move FPR and TPR together (a diagonal
// segment), which is what makes the trapezoidal area equal [AUC].
// Errors: length mismatch, empty input, non-finite scores, or only one
// class present.
func ROC(scores []float64, labels []bool) ([]ROCPoint, error) {
	pos, neg, err := checkScored("stats.ROC", scores, labels)
	if err != nil {
		return nil, err
	}
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	pts := []ROCPoint{{Threshold: math.Inf(1)}}
	tp, fp := 0, 0
	for k := 0; k < len(idx); {
		t := scores[idx[k]]
		for ; k < len(idx) && scores[idx[k]] == t; k++ {
			if labels[idx[k]] {
				tp++
			} else {
				fp++
			}
		}
		pts = append(pts, ROCPoint{Threshold: t, FPR: float64(fp) / float64(neg), TPR: float64(tp) / float64(pos)})
	}
	return pts, nil
}

// AUC returns the area under the ROC curve, computed as the probability
// that a random positive scores above a random negative, ties counting
// one half: AUC = (#{s⁺ > s⁻} + ½#{s⁺ = s⁻}) / (n₁·n₀) = U/(n₁·n₀) of
// [MannWhitney] with x = positive scores. Computed by sort-and-merge in
// O(N log N). Errors: as [ROC].
func AUC(scores []float64, labels []bool) (float64, error) {
	if _, _, err := checkScored("stats.AUC", scores, labels); err != nil {
		return 0, err
	}
	var p, q []float64
	for i, s := range scores {
		if labels[i] {
			p = append(p, s)
		} else {
			q = append(q, s)
		}
	}
	c, err := CliffsDelta(p, q)
	if err != nil {
		return 0, err
	}
	return (float64(c.Greater) + float64(c.Ties)/2) / (float64(len(p)) * float64(len(q))), nil
}

// RatesAt returns the true- and false-positive rates when every item with
// score ≥ threshold is classified positive. threshold may be ±Inf but not
// NaN. Errors: as [ROC].
func RatesAt(scores []float64, labels []bool, threshold float64) (tpr, fpr float64, err error) {
	const op = "stats.RatesAt"
	pos, neg, err := checkScored(op, scores, labels)
	if err != nil {
		return 0, 0, err
	}
	if math.IsNaN(threshold) {
		return 0, 0, inputErr(op, "threshold is NaN")
	}
	tp, fp := 0, 0
	for i, s := range scores {
		if s >= threshold {
			if labels[i] {
				tp++
			} else {
				fp++
			}
		}
	}
	return float64(tp) / float64(pos), float64(fp) / float64(neg), nil
}

// Youden returns the ROC point maximising Youden's J = TPR − FPR; among
// equal J it returns the one with the highest threshold (fewest positive
// calls). When no threshold beats chance the result is the +Inf point
// with J = 0. Errors: as [ROC].
func Youden(scores []float64, labels []bool) (ROCPoint, error) {
	pts, err := ROC(scores, labels)
	if err != nil {
		return ROCPoint{}, err
	}
	best := pts[0]
	for _, p := range pts[1:] {
		if p.TPR-p.FPR > best.TPR-best.FPR {
			best = p
		}
	}
	return best, nil
}

// BestAtFPR returns the point of ROC curve pts with the highest TPR among
// those with FPR ≤ maxFPR (the operating point a target such as "TPR ≥
// 0.95 at FPR ≤ 0.05" asks about); among equal TPR, the one with the
// highest threshold. pts must start at the +Inf point, as [ROC]'s do,
// which always qualifies; an empty curve gives the zero point.
func BestAtFPR(pts []ROCPoint, maxFPR float64) ROCPoint {
	var best ROCPoint
	for i, p := range pts {
		if p.FPR <= maxFPR && (i == 0 || p.TPR > best.TPR) {
			best = p
		}
	}
	return best
}

// ECDFPoint is a step of an empirical CDF: F = #{x_i ≤ X}/n.
type ECDFPoint struct {
	X float64 `json:"x"`
	F float64 `json:"f"`
}

// ECDF returns the empirical CDF of x for plotting: one point per distinct
// value, ascending, with F(X) the fraction of values ≤ X (the last F is
// 1). Errors: empty input or non-finite values.
func ECDF(x []float64) ([]ECDFPoint, error) {
	if err := checkSample("stats.ECDF", "x", x, true); err != nil {
		return nil, err
	}
	s := sortedCopy(x)
	n := float64(len(s))
	var out []ECDFPoint
	for i := 0; i < len(s); {
		v := s[i]
		for i < len(s) && s[i] == v {
			i++
		}
		out = append(out, ECDFPoint{X: v, F: float64(i) / n})
	}
	return out, nil
}
