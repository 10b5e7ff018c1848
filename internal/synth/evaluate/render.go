package evaluate

import (
	"fmt"
	"strings"

	"github.com/benchforge/benchforge/internal/report"
)

func pc(v float64) string { return fmt.Sprintf("%.1f", 100*v) }
func f3(v float64) string { return fmt.Sprintf("%.3f", v) }

func (k Key) label() string {
	s := k.Model
	if k.Features != "" {
		s += " (" + k.Features + ")"
	}
	return s
}

func meanSD(r ResultRow, scale func(float64) string) string {
	if r.SD == nil {
		return scale(r.Mean)
	}
	return scale(r.Mean) + " ± " + scale(*r.SD)
}

func interval(lo, hi float64, scale func(float64) string) string {
	return "[" + scale(lo) + ", " + scale(hi) + "]"
}

func tci(r ResultRow, scale func(float64) string) string {
	if r.CI == nil {
		return "—"
	}
	return interval(r.CI.Lo, r.CI.Hi, scale)
}

// FoldTable lists the training data left in every fold after provenance
// exclusion.
func (r *Report) FoldTable() *report.Table {
	t := &report.Table{
		Caption: "Folds: held-out source bugs and the synthetic pairs left for training after provenance exclusion (§7.2)",
		Header:  []string{"run seed", "fold", "held-out source bugs", "held-out real pairs", "training pairs", "dropped (descendants of held-out bugs)"},
	}
	lo, hi := -1, -1
	for _, f := range r.FoldStats {
		t.Rows = append(t.Rows, []string{fmt.Sprint(f.RunSeed), fmt.Sprint(f.Fold), fmt.Sprint(f.SourceBugs), fmt.Sprint(f.RealPairs), fmt.Sprint(f.TrainPairs), fmt.Sprint(f.Dropped)})
		if lo < 0 || f.TrainPairs < lo {
			lo = f.TrainPairs
		}
		hi = max(hi, f.TrainPairs)
	}
	if lo >= 0 {
		t.Note = fmt.Sprintf("Training pairs per fold: %d–%d. Folds are %s, at source-bug granularity.", lo, hi, map[bool]string{true: "exception-stratified", false: "not stratified"}[r.Config.Stratified])
	}
	return t
}

// IsolatedTable is Table 12's shape: ROC-AUC over real methods per model,
// without and with the exception type, plus every other isolated-task
// configuration (leaky diagnostic, imported and zero-shot predictions).
func (r *Report) IsolatedTable() *report.Table {
	t := &report.Table{
		Caption: "Isolated-method task (§7.3): ROC-AUC over the real methods, mean ± sd over run seeds",
		Header:  []string{"model", "features", "training", "seeds", "ROC-AUC", "95% t-interval", "accuracy@0.5", "specificity", "recall", "precision", "F1"},
		Note:    "Chance is 0.500. The t-interval is on the mean over run seeds, clipped to [0, 1]. Threshold rates are means over run seeds with P(defective) ≥ 0.5 called defective. The leaky row trains with the provenance filter off: a leakage diagnostic, not an estimate.",
	}
	for _, row := range r.Results {
		if row.Task != Isolated || row.TrainSize != 0 {
			continue
		}
		var acc, spec, rec, prec, f1 float64
		for _, m := range row.Runs {
			acc, spec, rec, prec, f1 = acc+m.Accuracy, spec+m.Specificity, rec+m.Recall, prec+m.Precision, f1+m.F1
		}
		n := float64(len(row.Runs))
		t.Rows = append(t.Rows, []string{row.Model, row.Features, row.Training, fmt.Sprint(len(row.Runs)), meanSD(row, f3), tci(row, f3),
			f3(acc / n), f3(spec / n), f3(rec / n), f3(prec / n), f3(f1 / n)})
	}
	return t
}

// PairTable is Table 17's shape: pair accuracy of every pair-task
// configuration with its across-seed summary, Cohen's h against chance,
// the residual no-growth stratum and the position-conditional accuracies
// (Table 18's A / B).
func (r *Report) PairTable() *report.Table {
	t := &report.Table{
		Caption: fmt.Sprintf("Pair discrimination (§7.4): accuracy (%%) over both orderings of %d real pairs; residual = the %d pairs whose repair is not longer", r.RealPairs, r.ResidualPairs),
		Header:  []string{"model", "features", "training", "seeds", "accuracy", "95% t-interval", "Cohen's h", "residual", "A / B"},
		Note:    "Chance is 50%. Mean ± sd over run seeds with the Student t interval on the mean (clipped to 0–100%); per-seed pair-cluster bootstrap intervals are in the next table. A / B: accuracy when the defective method is shown first / second. The length rule calls the longer method the repair, ties counting ½.",
	}
	for _, row := range r.Results {
		if row.Task != PairTask || row.TrainSize != 0 {
			continue
		}
		h, res := "—", "—"
		if row.CohensH != nil {
			h = fmt.Sprintf("%.2f", *row.CohensH)
		}
		if row.ResidualMean != nil {
			res = pc(*row.ResidualMean)
		}
		var a, b float64
		for _, m := range row.Runs {
			a, b = a+m.AccBuggyFirst, b+m.AccFixedFirst
		}
		n := float64(len(row.Runs))
		t.Rows = append(t.Rows, []string{row.Model, row.Features, row.Training, fmt.Sprint(len(row.Runs)), meanSD(row, pc), tci(row, pc), h, res, pc(a/n) + " / " + pc(b/n)})
	}
	return t
}

// PairRunTable is Table 15's shape: each run seed's pair accuracy with its
// pair-cluster bootstrap interval.
func (r *Report) PairRunTable() *report.Table {
	t := &report.Table{
		Caption: fmt.Sprintf("Pair accuracy (%%) by run seed with pair-cluster bootstrap %g%% intervals (%d resamples)", 100*r.Config.Conf, r.Config.Bootstrap),
		Header:  []string{"model", "features", "training", "run seed", "pairs", "accuracy", "bootstrap CI", "residual"},
	}
	for _, row := range r.Results {
		if row.Task != PairTask || row.TrainSize != 0 {
			continue
		}
		for _, m := range row.Runs {
			ci, res := "—", "—"
			if m.CI != nil {
				ci = interval(m.CI.Lo, m.CI.Hi, pc)
			}
			if m.Residual != nil {
				res = fmt.Sprintf("%s (n=%d)", pc(*m.Residual), m.ResidualN)
			}
			t.Rows = append(t.Rows, []string{row.Model, row.Features, row.Training, fmt.Sprint(m.RunSeed), fmt.Sprint(m.N), pc(m.Value), ci, res})
		}
	}
	return t
}

// TypeTable is the exploratory per-type table (Tables 12 and 16 shape).
func (r *Report) TypeTable(task string) *report.Table {
	t := &report.Table{Header: []string{"model", "features", "training", "type", "pairs", "value", "bootstrap CI"}}
	if task == PairTask {
		t.Caption = "Pair accuracy (%) by exception type, pooled over run seeds (exploratory: no type-wise tests)"
	} else {
		t.Caption = "Isolated-method ROC-AUC by exception type, pooled over run seeds (exploratory)"
	}
	for _, row := range r.PerType {
		if row.Task != task {
			continue
		}
		v, ci := f3(row.Value), "—"
		if task == PairTask {
			v = pc(row.Value)
			if row.CI != nil {
				ci = interval(row.CI.Lo, row.CI.Hi, pc)
			}
		}
		t.Rows = append(t.Rows, []string{row.Model, row.Features, row.Training, row.Type, fmt.Sprint(row.Pairs), v, ci})
	}
	return t
}

// SweepTable is Figure 6's data: Random Forest ROC-AUC against training
// size with and without the provenance filter (first run seed).
func (r *Report) SweepTable() *report.Table {
	t := &report.Table{
		Caption: "Training-size sweep (Figure 6 shape): isolated-method RF ROC-AUC vs synthetic training pairs",
		Header:  []string{"arm", "training pairs", "ROC-AUC"},
		Note:    "sweep-controlled subsamples each fold's provenance-filtered training set (fewer pairs when the fold has fewer); sweep-leaky subsamples the whole corpus and is evaluated on every real pair.",
	}
	for _, s := range r.sweep() {
		t.Rows = append(t.Rows, []string{s.arm, fmt.Sprint(s.size), f3(s.auc)})
	}
	return t
}

type sweepPoint struct {
	arm  string
	size int
	auc  float64
}

func (r *Report) sweep() []sweepPoint {
	var out []sweepPoint
	for _, row := range r.Results {
		if row.Training == SweepControlled || row.Training == SweepLeaky {
			out = append(out, sweepPoint{row.Training, row.TrainSize, row.Mean})
		}
	}
	return out
}

// Tables returns every table in page order, the probe tables last (only
// when probes were run, so a report without probes is unchanged).
func (r *Report) Tables() []*report.Table {
	ts := []*report.Table{r.FoldTable(), r.IsolatedTable(), r.PairTable(), r.PairRunTable(), r.TypeTable(Isolated), r.TypeTable(PairTask), r.SweepTable()}
	return append(ts, r.ProbeTables()...)
}

// MinGroupPairs is the smallest group whose evaluation figures are reported
// without a small-sample warning.
const MinGroupPairs = 30

// SmallSamples lists the groups of r evaluated on fewer than MinGroupPairs
// pairs: the real pairs, and each per-type row.
func (r *Report) SmallSamples() []string {
	var out []string
	if n := r.Data.MeasuredSeeds; n > 0 && n < MinGroupPairs {
		out = append(out, fmt.Sprintf("%d real pairs (fewer than %d): every AUC and accuracy is unreliable", n, MinGroupPairs))
	}
	seen := map[string]bool{}
	for _, t := range r.PerType {
		k := t.Task + "\x00" + t.Type
		if t.Pairs >= MinGroupPairs || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, fmt.Sprintf("%s task, %s: %d pairs (fewer than %d): its per-type rows are unreliable", t.Task, t.Type, t.Pairs, MinGroupPairs))
	}
	return out
}

// Markdown renders every table as Markdown.
func (r *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Leakage-controlled evaluation (rxsynth §7)\n\n%d synthetic pairs (%d measured) against %d real pairs (%d measured); %d folds at source-bug granularity; run seeds %v; models %v.\n\n",
		r.Data.Pairs, r.Data.MeasuredPairs, r.Data.Seeds, r.Data.MeasuredSeeds, r.Config.Folds, r.Config.RunSeeds, r.Config.Models)
	b.WriteString(report.SmallSampleMarkdown(r.SmallSamples()))
	for _, t := range r.Tables() {
		b.WriteString(t.Markdown())
		b.WriteString("\n")
	}
	return b.String()
}

// Page renders the HTML report, with the Figure 6 sweep plot.
func (r *Report) Page() (*report.Page, error) {
	p := &report.Page{Title: "Leakage-controlled evaluation", Subtitle: fmt.Sprintf("%d synthetic pairs, %d real pairs (rxsynth §7)", r.Data.MeasuredPairs, r.RealPairs)}
	ts := r.Tables()
	report.SmallSampleSection(p, r.SmallSamples())
	p.AddSection("folds", "Folds and provenance exclusion").Add(ts[0])
	p.AddSection("isolated", "Isolated-method task").Add(ts[1], ts[4])
	p.AddSection("pair", "Pair discrimination").Add(ts[2], ts[3], ts[5])
	sw := p.AddSection("sweep", "Training-size sweep").Add(ts[6])
	if pt := r.ProbeTables(); len(pt) > 0 {
		sec := p.AddSection("probes", "Zero-shot LLM probes")
		for _, t := range pt {
			sec.Add(t)
		}
	}
	series := map[string]*report.Series{}
	var order []string
	for _, s := range r.sweep() {
		if series[s.arm] == nil {
			series[s.arm] = &report.Series{Label: s.arm}
			order = append(order, s.arm)
		}
		series[s.arm].X = append(series[s.arm].X, float64(s.size))
		series[s.arm].Y = append(series[s.arm].Y, s.auc)
	}
	if len(order) > 0 {
		var ss []report.Series
		for _, a := range order {
			ss = append(ss, *series[a])
		}
		svg, err := report.Lines("RF ROC-AUC vs training size", "synthetic training pairs", "ROC-AUC", ss, false)
		if err != nil {
			return nil, fmt.Errorf("evaluation report: sweep plot: %w", err)
		}
		sw.Add(&report.Plot{Caption: "Figure 6 shape: with and without provenance overlap", SVG: svg})
	}
	if len(r.Data.Skipped) > 0 {
		p.AddSection("skipped", "Unmeasurable methods").Add(&report.Paragraph{Text: strings.Join(r.Data.Skipped, "\n")})
	}
	return p, nil
}
