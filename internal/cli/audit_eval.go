package cli

import (
	"fmt"
	"math"
	"os"

	"github.com/spf13/cobra"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/benchforge/benchforge/internal/audit/patchcheck"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/stats"
)

func init() { auditSubcommands = append(auditSubcommands, newAuditEvalCmd) }

type auditEvalOptions struct {
	verdicts, labels, rocJSON, rocSVG string
	asJSON                            bool
	stage, model                      string // --stage repo|combined: audit_eval_stage1.go
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
as JSON, --svg plots them.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runAuditEval(a, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.verdicts, "verdicts", "", "verdicts JSONL from 'audit patch' (required)")
	f.StringVar(&o.labels, "labels", "", "labels file (required)")
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
	labels, err := patchcheck.ReadLabels(o.labels)
	if err != nil {
		return fmt.Errorf("audit eval: %w", err)
	}
	ev, err := patchcheck.Evaluate(vs, labels)
	if err != nil {
		return fmt.Errorf("audit eval: %w", err)
	}
	if o.rocJSON != "" {
		f, err := os.Create(o.rocJSON)
		if err != nil {
			return fmt.Errorf("audit eval: --roc: %w", err)
		}
		err = writeJSON(f, ev.ROC)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("audit eval: --roc %s: %w", o.rocJSON, err)
		}
	}
	if o.rocSVG != "" {
		if err := writeROCSVG(o.rocSVG, ev.ROC, ev.AUC); err != nil {
			return fmt.Errorf("audit eval: --svg %s: %w", o.rocSVG, err)
		}
	}
	if o.asJSON {
		return writeJSON(a.stdout, ev)
	}
	fmt.Fprintf(a.stdout, "n %d (%d present, %d absent)  AUC %.3f  TPR %.3f  FPR %.3f  at threshold %.2f\n",
		ev.N, ev.Positives, ev.Negatives, ev.AUC, ev.TPR, ev.FPR, ev.Threshold)
	fmt.Fprintf(a.stdout, "tp %d  fp %d  tn %d  fn %d\n", ev.Confusion["tp"], ev.Confusion["fp"], ev.Confusion["tn"], ev.Confusion["fn"])
	for k, n := range ev.Skipped {
		fmt.Fprintf(a.stdout, "skipped %s: %d\n", k, n)
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
