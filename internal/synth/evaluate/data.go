package evaluate

import (
	"fmt"
	"math"
	"slices"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/fidelity"
)

// Task names.
const (
	Isolated = "isolated" // §7.3: one method, defective or not (ROC-AUC)
	PairTask = "pair"     // §7.4: which of two methods is defective (2AFC)
)

// Feature-set names.
const (
	NoType   = "no-type"
	WithType = "with-type"
)

// Training regimes recorded on predictions.
const (
	LeaveSeedsOut   = "leave-seeds-out" // provenance filter on (§7.2)
	Leaky           = "leaky"           // provenance filter off: the §7.3 diagnostic
	SweepControlled = "sweep-controlled"
	SweepLeaky      = "sweep-leaky"
	RealCV          = "real-cv" // trained on the other folds' real pairs
	NoTraining      = "none"    // parameter-free baselines and zero-shot probes
)

// Orderings of a pair shown to a pair-task model.
const (
	BuggyFirst = "buggy-first"
	FixedFirst = "fixed-first"
)

// Prediction is one scored item, out of fold. Written one per line to
// predictions.jsonl, and the format external predictions are imported in
// (see ImportPredictions): for Task "isolated", Side is "buggy" or "fixed"
// and Score is the predicted P(defective); for Task "pair", Order is
// "buggy-first" or "fixed-first" and Score is P(the first method is the
// defective one). Label is derived (1 for buggy / buggy-first).
type Prediction struct {
	Task      string  `json:"task"`
	Model     string  `json:"model"`
	Features  string  `json:"features,omitempty"`
	Training  string  `json:"training"`
	TrainSize int     `json:"train_size,omitempty"`
	RunSeed   uint64  `json:"run_seed"`
	Fold      int     `json:"fold"`
	BugID     string  `json:"bug_id"`
	Side      string  `json:"side,omitempty"`
	Order     string  `json:"order,omitempty"`
	Label     int     `json:"label"`
	Score     float64 `json:"score"`
}

// SeedInfo is what the analysis needs to know about a real pair.
type SeedInfo struct {
	BugID       string `json:"bug_id"`
	SourceBug   string `json:"source_bug"`
	Exception   string `json:"exception"`
	BuggyTokens int    `json:"buggy_tokens"`
	FixedTokens int    `json:"fixed_tokens"`
}

// Grows reports whether the repair is longer than the defective method
// (in tokens); pairs that do not grow form the §7.4.5 residual stratum.
func (s SeedInfo) Grows() bool { return s.FixedTokens > s.BuggyTokens }

// typeIndex is the one-hot position of an exception type.
func typeIndex(t string) int { return slices.Index(corpus.Types, t) }

func oneHot(t string) []float64 {
	v := make([]float64, len(corpus.Types))
	if i := typeIndex(t); i >= 0 {
		v[i] = 1
	}
	return v
}

// isoRow is the isolated-task feature row of one method.
func isoRow(m fidelity.Measured, typ string, withType bool) []float64 {
	f := m.Features()
	if withType {
		f = append(f, oneHot(typ)...)
	}
	return f
}

// pairRow is the Δ-feature row f(first) − f(second) (§7.4.5), with the
// type one-hot appended (not differenced) when withType.
func pairRow(first, second fidelity.Measured, typ string, withType bool) []float64 {
	a, b := first.Features(), second.Features()
	for i := range a {
		a[i] -= b[i]
	}
	if withType {
		a = append(a, oneHot(typ)...)
	}
	return a
}

// FeatureNames names the columns of the isolated rows (the pair rows are
// their differences) for a feature set.
func FeatureNames(features string) []string {
	n := fidelity.FeatureNames()
	if features == WithType {
		for _, t := range corpus.Types {
			n = append(n, "type="+t)
		}
	}
	return n
}

// correct scores a pair-task prediction: 1 when the score points at the
// defective method, 0 when it points at the repair, ½ at exactly 0.5.
func correct(p Prediction) float64 {
	switch {
	case p.Score == 0.5:
		return 0.5
	case (p.Score > 0.5) == (p.Label == 1):
		return 1
	}
	return 0
}

// ImportPredictions validates external predictions (for example from a
// fine-tuned CodeBERT run elsewhere on the exported folds) against the
// seeds and fills in Label and defaults: Training defaults to
// "leave-seeds-out", Features to "no-type". Required per line: task,
// model, bug_id, side (isolated) or order (pair), and a finite score in
// [0, 1]. Errors wrap errs.ErrInput and name the record (1-based).
func ImportPredictions(preds []Prediction, seeds []SeedInfo) ([]Prediction, error) {
	known := map[string]bool{}
	for _, s := range seeds {
		known[s.BugID] = true
	}
	out := make([]Prediction, len(preds))
	for i, p := range preds {
		where := fmt.Sprintf("prediction %d (model %q, bug_id %q)", i+1, p.Model, p.BugID)
		if p.Model == "" || !known[p.BugID] {
			return nil, fmt.Errorf("import predictions: %s: %w: model must be set and bug_id must name a seed", where, errs.ErrInput)
		}
		if math.IsNaN(p.Score) || p.Score < 0 || p.Score > 1 {
			return nil, fmt.Errorf("import predictions: %s: %w: score %v is not a probability in [0, 1]", where, errs.ErrInput, p.Score)
		}
		label, ok := importedLabel(p)
		if !ok {
			return nil, fmt.Errorf("import predictions: %s: %w: want task %q with side buggy|fixed or task %q with order %s|%s", where, errs.ErrInput, Isolated, PairTask, BuggyFirst, FixedFirst)
		}
		p.Label = label
		if p.Training == "" {
			p.Training = LeaveSeedsOut
		}
		if p.Features == "" {
			p.Features = NoType
		}
		out[i] = p
	}
	return out, nil
}

// importedLabel is the label an imported prediction's side (isolated) or
// order (pair) gives; ok is false for any other combination.
func importedLabel(p Prediction) (int, bool) {
	switch {
	case p.Task == Isolated && (p.Side == "buggy" || p.Side == "fixed"):
		return b2i(p.Side == "buggy"), true
	case p.Task == PairTask && (p.Order == BuggyFirst || p.Order == FixedFirst):
		return b2i(p.Order == BuggyFirst), true
	}
	return 0, false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
