package patchcheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/stats"
)

// Evaluation scores verdicts against ground-truth labels (benchchecker
// Table 4): AUC over Score, and TPR / FPR of the Present decision.
type Evaluation struct {
	N         int              `json:"n"`
	Positives int              `json:"positives"`
	Negatives int              `json:"negatives"`
	Threshold float64          `json:"threshold"`
	AUC       float64          `json:"auc"`
	TPR       float64          `json:"tpr"`
	FPR       float64          `json:"fpr"`
	ROC       []stats.ROCPoint `json:"roc"`
	// AtFPR05 is the ROC's best operating point with FPR ≤ 0.05 (issue
	// targets read "TPR ≥ 0.95 at FPR ≤ 0.05"), whatever the threshold.
	AtFPR05   stats.ROCPoint `json:"at_fpr_05"`
	Skipped   map[string]int `json:"skipped"` // unknown, not_applicable, unlabelled
	Missing   []string       `json:"missing,omitempty"`
	Confusion map[string]int `json:"confusion"` // tp, fp, tn, fn
}

// Evaluate joins verdicts with labels (sample id → patch present). Unknown
// and not_applicable verdicts and verdicts without a label are skipped and
// counted; labelled samples without a verdict are listed in Missing.
func Evaluate(verdicts []Verdict, labels map[string]bool) (*Evaluation, error) {
	var ps []scored
	seen := map[string]bool{}
	skipped := map[string]int{}
	for _, v := range verdicts {
		seen[v.SampleID] = true
		y, ok := labels[v.SampleID]
		switch {
		case v.Verdict == Unknown || v.Verdict == NotApplicable:
			skipped[v.Verdict]++
		case !ok:
			skipped["unlabelled"]++
		default:
			ps = append(ps, scored{v, y})
		}
	}
	var missing []string
	for id := range labels {
		if !seen[id] {
			missing = append(missing, id)
		}
	}
	ev, err := evaluate(ps)
	for k, n := range skipped {
		ev.Skipped[k] += n
	}
	ev.Missing = missing
	return ev, err
}

// scored is one judged verdict with its label.
type scored struct {
	v Verdict
	y bool
}

// evaluate computes the confusion matrix, TPR / FPR and AUC of ps.
func evaluate(ps []scored) (*Evaluation, error) {
	ev := &Evaluation{Skipped: map[string]int{}, Confusion: map[string]int{"tp": 0, "fp": 0, "tn": 0, "fn": 0}}
	var scores []float64
	var ys []bool
	for _, p := range ps {
		v, y := p.v, p.y
		if ev.Threshold == 0 {
			ev.Threshold = v.Threshold
		}
		scores, ys = append(scores, evalScore(v)), append(ys, y)
		ev.Confusion[confusionCell(y, v.Present)]++
	}
	ev.N = len(scores)
	ev.Positives = ev.Confusion["tp"] + ev.Confusion["fn"]
	ev.Negatives = ev.Confusion["fp"] + ev.Confusion["tn"]
	if ev.Positives == 0 || ev.Negatives == 0 {
		return ev, fmt.Errorf("patchcheck: evaluate: need labelled present and absent samples with verdicts, have %d positive and %d negative: %w", ev.Positives, ev.Negatives, errs.ErrInput)
	}
	ev.TPR = float64(ev.Confusion["tp"]) / float64(ev.Positives)
	ev.FPR = float64(ev.Confusion["fp"]) / float64(ev.Negatives)
	return ev, ev.curves(scores, ys)
}

// evalScore is the score v is ranked by: a tests-verified sample counts as
// fully present.
func evalScore(v Verdict) float64 {
	if v.Method == MethodTests && v.Present {
		return 1
	}
	return v.Score
}

// confusionCells names the confusion-matrix cell of [label][predicted].
var confusionCells = [2][2]string{{"tn", "fp"}, {"fn", "tp"}}

func confusionCell(label, predicted bool) string {
	return confusionCells[b2i(label)][b2i(predicted)]
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// curves computes ev's AUC and ROC.
func (ev *Evaluation) curves(scores []float64, ys []bool) error {
	var err error
	if ev.AUC, err = stats.AUC(scores, ys); err != nil {
		return fmt.Errorf("patchcheck: evaluate: %w", err)
	}
	if ev.ROC, err = stats.ROC(scores, ys); err != nil {
		return fmt.Errorf("patchcheck: evaluate: %w", err)
	}
	ev.AtFPR05 = stats.BestAtFPR(ev.ROC, 0.05)
	return nil
}

// ReadLabels reads ground-truth labels: JSONL objects with "sample_id" (or
// "id") and "label" (or "present" / "contaminated"), a boolean or 0/1; or
// CSV lines "id,label" (a header line is allowed) with label
// true/false/1/0/present/absent. Errors name file:line.
func ReadLabels(path string) (map[string]bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("patchcheck: read labels %s: %w", path, errorsJoinInput(err))
	}
	return parseLabels(path, bytes.NewReader(data))
}

func errorsJoinInput(err error) error { return fmt.Errorf("%w: %w", errs.ErrInput, err) }

func parseLabels(path string, r io.Reader) (map[string]bool, error) {
	ls, err := parseLabelSet(path, r)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, l := range ls {
		out[l.ID] = l.Present
	}
	return out, nil
}

// Label is one ground-truth label: whether the sample's fix is present at
// Cutoff (when the label names one), how sure its labeller was
// (high | medium | low, "" when not said) and the sample's language.
type Label struct {
	ID         string `json:"sample_id"`
	Present    bool   `json:"present"`
	Confidence string `json:"confidence,omitempty"`
	Language   string `json:"language,omitempty"`
	Cutoff     string `json:"cutoff,omitempty"`
}

// ReadLabelSet reads labels as ReadLabels does, keeping each label's
// confidence, language and cutoff (JSONL fields of those names).
func ReadLabelSet(path string) ([]Label, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("patchcheck: read labels %s: %w", path, errorsJoinInput(err))
	}
	return parseLabelSet(path, bytes.NewReader(data))
}

func parseLabelSet(path string, r io.Reader) ([]Label, error) {
	var out []Label
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" {
			continue
		}
		var lab Label
		var ok bool
		if strings.HasPrefix(t, "{") {
			var err error
			if lab, ok, err = jsonLabel(t); err != nil {
				return nil, fmt.Errorf("patchcheck: labels %s:%d: %v: %w", path, line, err, errs.ErrInput)
			}
		} else {
			f := strings.Split(t, ",")
			if len(f) < 2 {
				return nil, fmt.Errorf("patchcheck: labels %s:%d: want \"id,label\": %w", path, line, errs.ErrInput)
			}
			lab.ID = strings.TrimSpace(f[0])
			lab.Present, ok = labelValue(strings.TrimSpace(f[1]))
			if !ok && line == 1 {
				continue // header
			}
		}
		if lab.ID == "" || !ok {
			return nil, fmt.Errorf("patchcheck: labels %s:%d: need an id and a boolean label: %w", path, line, errs.ErrInput)
		}
		lab.Confidence = strings.ToLower(strings.TrimSpace(lab.Confidence))
		lab.Language = strings.ToLower(strings.TrimSpace(lab.Language))
		out = append(out, lab)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("patchcheck: labels %s: %w", path, err)
	}
	return out, nil
}

// jsonLabel parses one JSONL label; ok is false without a boolean label.
func jsonLabel(t string) (lab Label, ok bool, err error) {
	var m map[string]any
	if err := json.Unmarshal([]byte(t), &m); err != nil {
		return lab, false, err
	}
	lab.ID, _ = m["sample_id"].(string)
	if lab.ID == "" {
		lab.ID, _ = m["id"].(string)
	}
	lab.Confidence, _ = m["confidence"].(string)
	lab.Language, _ = m["language"].(string)
	lab.Cutoff, _ = m["cutoff"].(string)
	for _, k := range []string{"label", "present", "contaminated"} {
		if val, has := m[k]; has {
			lab.Present, ok = labelValue(val)
			break
		}
	}
	return lab, ok, nil
}

func labelValue(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case float64:
		return x != 0, x == 0 || x == 1
	case string:
		switch strings.ToLower(x) {
		case "true", "1", "present", "yes", "contaminated":
			return true, true
		case "false", "0", "absent", "no", "clean":
			return false, true
		}
		if f, err := strconv.ParseFloat(x, 64); err == nil {
			return f != 0, f == 0 || f == 1
		}
	}
	return false, false
}
