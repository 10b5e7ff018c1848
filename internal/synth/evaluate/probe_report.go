package evaluate

import (
	"context"
	"fmt"
	"slices"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/report"
	"github.com/benchforge/benchforge/internal/stats"
)

// ProbeRow is one probe model's result on one task (Tables 13 and 18
// shape), computed from its answers alone. Every rate's denominator is the
// parsed answers; unparseable answers are counted, never scored. A rate
// whose denominator is zero is absent.
type ProbeRow struct {
	Model       string          `json:"model"`
	Task        string          `json:"task"`
	Asked       int             `json:"asked"`       // answers recorded
	Unparseable int             `json:"unparseable"` // answers whose verdict could not be read
	N           int             `json:"n"`           // parsed answers
	Correct     int             `json:"correct"`
	Accuracy    *float64        `json:"accuracy,omitempty"`
	CI          *stats.Interval `json:"ci,omitempty"` // pair-cluster bootstrap over the real pairs
	// Isolated task, the defective class positive.
	Specificity    *float64 `json:"specificity,omitempty"`     // fixed methods judged not defective
	Recall         *float64 `json:"recall,omitempty"`          // buggy methods judged defective
	Precision      *float64 `json:"precision,omitempty"`       // defective verdicts that are right
	F1             *float64 `json:"f1,omitempty"`              // of precision and recall
	DefectiveShare *float64 `json:"defective_share,omitempty"` // answers calling the method defective
	// Pair task.
	AccBuggyFirst *float64 `json:"acc_buggy_first,omitempty"` // Table 18's A: defective shown first
	AccFixedFirst *float64 `json:"acc_fixed_first,omitempty"` // Table 18's B: defective shown second
	Balanced      *float64 `json:"balanced,omitempty"`        // (A + B) / 2, §7.4.6's position-balanced rate
	FirstShare    *float64 `json:"first_share,omitempty"`     // answers choosing the method shown first
	Residual      *float64 `json:"residual,omitempty"`        // accuracy on the no-growth stratum (§7.4.5)
	ResidualN     int      `json:"residual_n,omitempty"`      // parsed answers on it
	// Note says why the answers are missing from the main tables, if they
	// are.
	Note string `json:"note,omitempty"`
}

func ratio(k, n int) *float64 {
	if n == 0 {
		return nil
	}
	v := float64(k) / float64(n)
	return &v
}

// ProbeAnalysis turns probe answers into Prediction records (Training
// "none", features "with-type": every prompt names the exception type;
// score 1 or 0 as the verdict) for Analyze, which then reports the probes
// like any other model, and computes the probe tables' rows. Unparseable
// answers give no prediction. A model whose parsed isolated answers cover
// only one class of methods has no ROC-AUC and stays out of the
// predictions, with a note on its row. Every record must name a seed.
func ProbeAnalysis(ctx context.Context, recs []ProbeRecord, seeds []SeedInfo, opt AnalyzeOptions) ([]Prediction, []ProbeRow, error) {
	if opt.Bootstrap == 0 {
		opt.Bootstrap = 10000
	}
	if opt.Conf == 0 {
		opt.Conf = 0.95
	}
	info := map[string]SeedInfo{}
	for _, s := range seeds {
		info[s.BugID] = s
	}
	groups, order, err := groupProbes(recs, info)
	if err != nil {
		return nil, nil, err
	}
	bopt := stats.BootstrapOptions{B: opt.Bootstrap, Conf: opt.Conf}
	var preds []Prediction
	var rows []ProbeRow
	for _, k := range order {
		row, ps, err := probeRow(ctx, k.model, k.task, groups[k], info, bopt)
		if err != nil {
			return nil, nil, fmt.Errorf("probe analysis %s %s: %w", k.model, k.task, err)
		}
		rows = append(rows, row)
		preds = append(preds, ps...)
	}
	return preds, rows, nil
}

// probeKey is one probe row: a model on a task.
type probeKey struct{ model, task string }

// groupProbes groups the answers by model and task, in order of first
// appearance; every answer must name a seed and a known task.
func groupProbes(recs []ProbeRecord, info map[string]SeedInfo) (map[probeKey][]ProbeRecord, []probeKey, error) {
	groups := map[probeKey][]ProbeRecord{}
	var order []probeKey
	for i, r := range recs {
		if _, ok := info[r.BugID]; !ok {
			return nil, nil, fmt.Errorf("probe analysis: answer %d (%s): %w: bug_id %q is not among the measured seeds", i+1, r.Model, errs.ErrInput, r.BugID)
		}
		if r.Task != Isolated && r.Task != PairTask {
			return nil, nil, fmt.Errorf("probe analysis: answer %d (%s): %w: unknown task %q", i+1, r.Model, errs.ErrInput, r.Task)
		}
		k := probeKey{r.Model, r.Task}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	return groups, order, nil
}

func probeRow(ctx context.Context, model, task string, recs []ProbeRecord, info map[string]SeedInfo, bopt stats.BootstrapOptions) (ProbeRow, []Prediction, error) {
	row := ProbeRow{Model: model, Task: task, Asked: len(recs)}
	var xs []scored
	var preds []Prediction
	t := probeTally{classes: map[int]bool{}}
	for _, r := range recs {
		if !r.Parsed() {
			row.Unparseable++
			continue
		}
		row.N++
		c := r.Correct()
		if c {
			row.Correct++
		}
		xs = append(xs, scored{r.BugID, float64(b2i(c))})
		p := Prediction{Task: task, Model: model, Features: WithType, Training: NoTraining, Fold: -1, BugID: r.BugID,
			Side: r.Side, Order: r.Order, Label: r.Label()}
		t.classes[p.Label] = true
		if task == Isolated {
			p.Score = t.isolated(r, p.Label)
		} else {
			p.Score = t.pair(r, c, info[r.BugID].Grows())
		}
		preds = append(preds, p)
	}
	row.Accuracy = ratio(row.Correct, row.N)
	if len(xs) > 0 {
		_, ci, err := pairAccuracy(ctx, xs, bopt)
		if err != nil {
			return row, nil, err
		}
		row.CI = ci
	}
	if task != Isolated {
		t.pairRates(&row)
		return row, preds, nil
	}
	t.isolatedRates(&row)
	if len(preds) > 0 && len(t.classes) < 2 {
		// One class only: Analyze's ROC-AUC is undefined for it.
		row.Note = "only one class of methods has a parsed answer, so there is no ROC-AUC row"
		preds = nil
	}
	return row, preds, nil
}

// probeTally counts a probe row's parsed answers.
type probeTally struct {
	tp, fp, tn, fn          int // isolated
	okA, nA, okB, nB, first int // pair
	okRes, nRes             int // pair, no-growth stratum
	classes                 map[int]bool
}

// isolated counts an isolated answer on a method of label and returns
// its score.
func (t *probeTally) isolated(r ProbeRecord, label int) float64 {
	switch {
	case *r.Defective && label == 1:
		t.tp++
	case *r.Defective:
		t.fp++
	case label == 1:
		t.fn++
	default:
		t.tn++
	}
	return float64(b2i(*r.Defective))
}

// pair counts a pair answer, correct or not, on a pair whose repair grows
// or not, and returns its score.
func (t *probeTally) pair(r ProbeRecord, correct, grows bool) float64 {
	if r.Choice == ChoiceA {
		t.first++
	}
	if r.Order == BuggyFirst {
		t.nA, t.okA = t.nA+1, t.okA+b2i(correct)
	} else {
		t.nB, t.okB = t.nB+1, t.okB+b2i(correct)
	}
	if !grows {
		t.nRes, t.okRes = t.nRes+1, t.okRes+b2i(correct)
	}
	return float64(b2i(r.Choice == ChoiceA))
}

// isolatedRates sets the isolated row's rates and F1.
func (t *probeTally) isolatedRates(row *ProbeRow) {
	row.Specificity, row.Recall, row.Precision = ratio(t.tn, t.tn+t.fp), ratio(t.tp, t.tp+t.fn), ratio(t.tp, t.tp+t.fp)
	row.DefectiveShare = ratio(t.tp+t.fp, row.N)
	if row.Precision != nil && row.Recall != nil && *row.Precision+*row.Recall > 0 {
		f1 := 2 * *row.Precision * *row.Recall / (*row.Precision + *row.Recall)
		row.F1 = &f1
	}
}

// pairRates sets the pair row's position-conditional accuracies, their
// balance, the share choosing the first method and the residual accuracy.
func (t *probeTally) pairRates(row *ProbeRow) {
	row.AccBuggyFirst, row.AccFixedFirst = ratio(t.okA, t.nA), ratio(t.okB, t.nB)
	if row.AccBuggyFirst != nil && row.AccFixedFirst != nil {
		b := (*row.AccBuggyFirst + *row.AccFixedFirst) / 2
		row.Balanced = &b
	}
	row.FirstShare = ratio(t.first, row.N)
	row.Residual, row.ResidualN = ratio(t.okRes, t.nRes), t.nRes
}

// AnalyzeWithProbes analyses preds together with the probe answers'
// predictions and attaches the probe rows. It returns the report and
// every prediction it analysed (for predictions.jsonl). Of the Config it
// fills the bootstrap settings and the probe fields; the caller sets
// Folds and the other run settings, as after Analyze.
func AnalyzeWithProbes(ctx context.Context, preds []Prediction, seeds []SeedInfo, recs []ProbeRecord, opt AnalyzeOptions) (*Report, []Prediction, error) {
	if opt.Bootstrap == 0 {
		opt.Bootstrap = 10000
	}
	if opt.Conf == 0 {
		opt.Conf = 0.95
	}
	pp, rows, err := ProbeAnalysis(ctx, recs, seeds, opt)
	if err != nil {
		return nil, nil, err
	}
	all := append(append([]Prediction(nil), preds...), pp...)
	rep, err := Analyze(ctx, all, seeds, opt)
	if err != nil {
		return nil, nil, err
	}
	rep.Probes = rows
	rep.Config.Bootstrap, rep.Config.Conf = opt.Bootstrap, opt.Conf
	rep.Config.ProbePrompt, rep.Config.ProbePromptHash = ProbeVersion, ProbePromptHash
	for _, r := range rows {
		if !slices.Contains(rep.Config.Probes, r.Model) {
			rep.Config.Probes = append(rep.Config.Probes, r.Model)
		}
	}
	return rep, all, nil
}

func ptr(v *float64, scale func(float64) string) string {
	if v == nil {
		return "—"
	}
	return scale(*v)
}

func probeAcc(row ProbeRow) string {
	if row.Accuracy == nil {
		return "—"
	}
	return fmt.Sprintf("%s (%d/%d)", pc(*row.Accuracy), row.Correct, row.N)
}

func probeCI(row ProbeRow) string {
	if row.CI == nil {
		return "—"
	}
	return interval(row.CI.Lo, row.CI.Hi, pc)
}

func (r *Report) probeNote() string {
	n := fmt.Sprintf("Prompts %s (sha256 %.12s). Rates are over the parsed answers (n); unparseable answers are counted, never guessed. 95%% CI: pair-cluster bootstrap (%d resamples), both items of a real pair resampled together.",
		r.Config.ProbePrompt, r.Config.ProbePromptHash, r.Config.Bootstrap)
	for _, row := range r.Probes {
		if row.Note != "" {
			n += fmt.Sprintf(" %s (%s): %s.", row.Model, row.Task, row.Note)
		}
	}
	return n
}

// ProbeIsolatedTable is Table 13's shape: zero-shot isolated-method
// classification of every real method, the labelled exception type given.
func (r *Report) ProbeIsolatedTable() *report.Table {
	t := &report.Table{
		Caption: "Zero-shot isolated-method probes (§7.3, Table 13 shape): is this method defective? Every real method, the labelled exception type given; accuracy in %",
		Header:  []string{"model", "asked", "unparseable", "n", "accuracy (k/n)", "95% CI", "F1", "specificity", "precision", "recall", "called defective"},
		Note: r.probeNote() + " Both methods of every pair are asked, so with nothing unparseable accuracy is balanced accuracy; " +
			"always answering defective scores 50.0%, specificity 0.000, recall 1.000.",
	}
	for _, row := range r.Probes {
		if row.Task != Isolated {
			continue
		}
		t.Rows = append(t.Rows, []string{row.Model, fmt.Sprint(row.Asked), fmt.Sprint(row.Unparseable), fmt.Sprint(row.N), probeAcc(row), probeCI(row),
			ptr(row.F1, f3), ptr(row.Specificity, f3), ptr(row.Precision, f3), ptr(row.Recall, f3), ptr(row.DefectiveShare, pc)})
	}
	return t
}

// ProbePairTable is Table 18's shape: zero-shot pair discrimination with
// the position-conditional accuracies and the share choosing the first
// method (position bias).
func (r *Report) ProbePairTable() *report.Table {
	t := &report.Table{
		Caption: "Zero-shot pair probes (§7.4.6, Table 18 shape): which of two versions is defective? Every real pair in both orderings; %",
		Header:  []string{"model", "asked", "unparseable", "n", "accuracy (k/n)", "95% CI", "A / B", "position-balanced", "chose first", "residual"},
		Note: r.probeNote() + " A / B: accuracy when the defective method is shown first / second; a model without position bias has A ≈ B and chooses first in about 50% of answers. " +
			fmt.Sprintf("Residual: answers on the %d pairs whose repair is not longer (§7.4.5). ", r.ResidualPairs) +
			"The two orderings of a pair are dependent, so no binomial test is made (§7.4.3 treats the pair as the unit).",
	}
	for _, row := range r.Probes {
		if row.Task != PairTask {
			continue
		}
		ab := ptr(row.AccBuggyFirst, pc) + " / " + ptr(row.AccFixedFirst, pc)
		res := "—"
		if row.Residual != nil {
			res = fmt.Sprintf("%s (n=%d)", pc(*row.Residual), row.ResidualN)
		}
		t.Rows = append(t.Rows, []string{row.Model, fmt.Sprint(row.Asked), fmt.Sprint(row.Unparseable), fmt.Sprint(row.N), probeAcc(row), probeCI(row),
			ab, ptr(row.Balanced, pc), ptr(row.FirstShare, pc), res})
	}
	return t
}

// ProbeTables returns the probe tables that have rows (none when no
// probe was run).
func (r *Report) ProbeTables() []*report.Table {
	var out []*report.Table
	for _, t := range []*report.Table{r.ProbeIsolatedTable(), r.ProbePairTable()} {
		if len(t.Rows) > 0 {
			out = append(out, t)
		}
	}
	return out
}
