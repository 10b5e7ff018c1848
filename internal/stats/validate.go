package stats

import (
	"fmt"
	"math"

	"github.com/benchforge/benchforge/internal/errs"
)

// inputErr builds "op: msg: invalid input".
func inputErr(op, format string, args ...any) error {
	return fmt.Errorf("%s: %s: %w", op, fmt.Sprintf(format, args...), errs.ErrInput)
}

// checkSample rejects an empty sample and NaN values. When finite is set
// it also rejects ±Inf.
func checkSample(op, name string, x []float64, finite bool) error {
	if len(x) == 0 {
		return inputErr(op, "%s is empty: need at least one value", name)
	}
	for i, v := range x {
		if math.IsNaN(v) {
			return inputErr(op, "%s[%d] is NaN: drop or impute missing values first", name, i)
		}
		if finite && math.IsInf(v, 0) {
			return inputErr(op, "%s[%d] is %v: only finite values are allowed here", name, i, v)
		}
	}
	return nil
}

// checkConf rejects a confidence level outside the open interval (0, 1).
func checkConf(op string, conf float64) error {
	if !(conf > 0 && conf < 1) {
		return inputErr(op, "confidence level %v is outside (0, 1): use e.g. 0.95", conf)
	}
	return nil
}

// checkProb rejects a probability outside the closed interval [0, 1].
func checkProb(op, name string, p float64) error {
	if !(p >= 0 && p <= 1) {
		return inputErr(op, "%s = %v is outside [0, 1]", name, p)
	}
	return nil
}

// mergeBlocks walks two ascending NaN-free slices together and calls fn
// once per distinct value v, in ascending order, with the number of
// elements equal to v in xs (cx) and in ys (cy). It is the shared core of
// the rank-based procedures: KS evaluates both ECDFs after each block,
// Cliff's δ and Mann–Whitney count pairs below, inside and above it.
func mergeBlocks(xs, ys []float64, fn func(cx, cy int)) {
	i, j := 0, 0
	for i < len(xs) || j < len(ys) {
		var v float64
		switch {
		case i == len(xs):
			v = ys[j]
		case j == len(ys):
			v = xs[i]
		default:
			v = min(xs[i], ys[j])
		}
		cx, cy := 0, 0
		for i < len(xs) && xs[i] == v {
			i++
			cx++
		}
		for j < len(ys) && ys[j] == v {
			j++
			cy++
		}
		fn(cx, cy)
	}
}

// Alternative selects the alternative hypothesis of a test.
type Alternative int

const (
	// TwoSided: the two distributions (or the proportion and p0) differ.
	TwoSided Alternative = iota
	// Less: x is stochastically smaller than y (proportion below p0).
	Less
	// Greater: x is stochastically larger than y (proportion above p0).
	Greater
)

// String returns "two-sided", "less" or "greater".
func (a Alternative) String() string {
	switch a {
	case TwoSided:
		return "two-sided"
	case Less:
		return "less"
	case Greater:
		return "greater"
	}
	return fmt.Sprintf("Alternative(%d)", int(a))
}

func checkAlt(op string, a Alternative) error {
	if a < TwoSided || a > Greater {
		return inputErr(op, "unknown alternative %d: use TwoSided, Less or Greater", int(a))
	}
	return nil
}

// Interval is a closed interval [Lo, Hi], e.g. a confidence interval.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// Contains reports whether Lo ≤ v ≤ Hi.
func (iv Interval) Contains(v float64) bool { return iv.Lo <= v && v <= iv.Hi }

// MarshalText encodes the alternative as its String form.
func (a Alternative) MarshalText() ([]byte, error) { return []byte(a.String()), nil }
