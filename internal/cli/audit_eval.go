package cli

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/benchforge/benchforge/internal/audit/patchcheck"
	"github.com/benchforge/benchforge/internal/audit/pipeline"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/stats"
)

type auditEvalOptions struct {
	verdicts, labels, rocJSON, rocSVG string
	asJSON                            bool
	stage, model                      string // --stage repo|combined: audit_eval_stage1.go
	confidence, cutoff                string
}

func newAuditEvalCmd(a *app) *cobra.Command {
	var o auditEvalOptions
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Score patch verdicts against ground-truth labels (AUC, TPR, FPR, ROC)",
		Long: `eval joins the verdicts of 'audit patch' with labels (JSONL {"sample_id", "label"}
or CSV "id,label") and reports AUC over the continuous score and TPR / FPR of
the present decision, as benchchecker Table 4 does. Unknown and
not_applicable verdicts are skipped and counted. --roc writes the ROC points
as JSON, --svg plots them.

Labels may carry "confidence" (high, medium, low), "language" and "cutoff";
--confidence high,medium evaluates on those labels only, and the figures are
given overall and per language. --labels takes several files,
comma-separated. With verdicts at several cutoffs each label is scored at
its own cutoff (or at --cutoff).`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runAuditEval(a, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.verdicts, "verdicts", "", "verdicts JSONL from 'audit patch' (required)")
	f.StringVar(&o.labels, "labels", "", "labels file(s), comma-separated (required)")
	f.StringVar(&o.confidence, "confidence", "", "keep only labels of these confidences, comma-separated (e.g. high,medium); default all")
	f.StringVar(&o.cutoff, "cutoff", "", "score the verdicts at this cutoff (default: each label's own cutoff)")
	f.StringVar(&o.rocJSON, "roc", "", "write ROC points as JSON to this file")
	f.StringVar(&o.rocSVG, "svg", "", "write the ROC curve as SVG to this file")
	f.BoolVar(&o.asJSON, "json", false, "print the evaluation as JSON")
	f.StringVar(&o.stage, "stage", "patch", evalStageHelp)
	f.StringVar(&o.model, "model", "", "with --stage repo|combined: the model whose records to evaluate")
	return cmd
}

func runAuditEval(a *app, o auditEvalOptions) error {
	if o.stage != "" && o.stage != "patch" {
		return runAuditEvalStage(a, o.stage, o.model, o)
	}
	if o.verdicts == "" || o.labels == "" {
		return fmt.Errorf("audit eval: --verdicts and --labels are required: %w", errs.ErrUsage)
	}
	vs, err := jsonl.ReadFile[patchcheck.Verdict](o.verdicts)
	if err != nil {
		return fmt.Errorf("audit eval: %w", err)
	}
	vs = jsonl.Latest(vs, pipeline.PatchKey)
	labels, err := readLabelSets(o.labels)
	if err != nil {
		return err
	}
	conf := confidenceLevels(o.confidence)
	se, err := patchcheck.EvaluateSet(vs, labels, patchcheck.EvalOptions{Confidence: conf, Cutoff: o.cutoff})
	if err != nil {
		return fmt.Errorf("audit eval: %w", err)
	}
	if err := writePatchROC(o, se.Overall); err != nil {
		return err
	}
	if o.asJSON {
		return writeJSON(a.stdout, se)
	}
	return printEvalSet(a, se, o.confidence)
}

// readLabelSets reads the comma-separated --labels files.
func readLabelSets(list string) ([]patchcheck.Label, error) {
	var labels []patchcheck.Label
	for _, p := range strings.Split(list, ",") {
		ls, err := patchcheck.ReadLabelSet(strings.TrimSpace(p))
		if err != nil {
			return nil, fmt.Errorf("audit eval: --labels: %w", err)
		}
		labels = append(labels, ls...)
	}
	return labels, nil
}

// confidenceLevels are the comma-separated --confidence levels, lower
// case, empty ones dropped.
func confidenceLevels(list string) []string {
	var conf []string
	for _, c := range strings.Split(list, ",") {
		if c = strings.ToLower(strings.TrimSpace(c)); c != "" {
			conf = append(conf, c)
		}
	}
	return conf
}

// writePatchROC writes the overall ROC as JSON (--roc) and SVG (--svg),
// each when asked for.
func writePatchROC(o auditEvalOptions, ev *patchcheck.Evaluation) error {
	if o.rocJSON != "" {
		if err := output.WriteJSON(o.rocJSON, ev.ROC); err != nil {
			return fmt.Errorf("audit eval: --roc %s: %w", o.rocJSON, err)
		}
	}
	if o.rocSVG != "" {
		if err := writeROCSVG(o.rocSVG, ev.ROC, ev.AUC); err != nil {
			return fmt.Errorf("audit eval: --svg %s: %w", o.rocSVG, err)
		}
	}
	return nil
}

// rocThreshold prints a ROC point's threshold (+Inf: nothing called
// present, "none").
func rocThreshold(t float64) string {
	if math.IsInf(t, 1) {
		return "none"
	}
	return fmt.Sprintf("%.3f", t)
}

func printEvalSet(a *app, se *patchcheck.SetEvaluation, conf string) error {
	ev := se.Overall
	if conf == "" {
		conf = "all"
	}
	fmt.Fprintf(a.stdout, "confidence %s (%d labels left out)\n", conf, se.Dropped)
	t := output.Table{Header: []string{"LANGUAGE", "N", "PRESENT", "ABSENT", "AUC", "TPR", "FPR", "TP", "FP", "TN", "FN", "TPR@FPR≤.05", "AT"}}
	row := func(name string, e *patchcheck.Evaluation) {
		c, b := e.Confusion, e.AtFPR05
		t.Add(name, e.N, e.Positives, e.Negatives, fmt.Sprintf("%.3f", e.AUC), fmt.Sprintf("%.3f", e.TPR), fmt.Sprintf("%.3f", e.FPR), c["tp"], c["fp"], c["tn"], c["fn"],
			fmt.Sprintf("%.3f", b.TPR), rocThreshold(b.Threshold))
	}
	row("all", ev)
	langs := make([]string, 0, len(se.ByLanguage))
	for l := range se.ByLanguage {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	for _, l := range langs {
		row(l, se.ByLanguage[l])
	}
	if err := t.Write(a.stdout); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "threshold %.2f (TPR@FPR≤.05: the ROC's best TPR with FPR ≤ 0.05, at threshold AT)\n", ev.Threshold)
	for _, l := range langs {
		if msg := se.LanguageErrors[l]; msg != "" {
			fmt.Fprintf(a.stdout, "%s: %s\n", l, msg)
		}
	}
	for _, l := range slices.Sorted(maps.Keys(se.Labels)) {
		m := se.Labels[l]
		fmt.Fprintf(a.stdout, "labels %s: high %d  medium %d  low %d  unrated %d\n", l, m["high"], m["medium"], m["low"], m[""])
	}
	for _, k := range slices.Sorted(maps.Keys(ev.Skipped)) {
		fmt.Fprintf(a.stdout, "skipped %s: %d\n", k, ev.Skipped[k])
	}
	if len(ev.Missing) > 0 {
		fmt.Fprintf(a.stdout, "labelled samples without a verdict: %d\n", len(ev.Missing))
	}
	return nil
}

func writeROCSVG(path string, roc []stats.ROCPoint, auc float64) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("ROC (AUC = %.3f)", auc)
	p.X.Label.Text, p.Y.Label.Text = "false-positive rate", "true-positive rate"
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	pts := make(plotter.XYs, len(roc))
	for i, r := range roc {
		pts[i].X, pts[i].Y = r.FPR, r.TPR
		if math.IsNaN(r.FPR) || math.IsNaN(r.TPR) {
			return fmt.Errorf("ROC point %d is NaN", i)
		}
	}
	line, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	diag, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		return err
	}
	diag.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(line, diag)
	return p.Save(4*vg.Inch, 4*vg.Inch, path)
}
