package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/benchforge/benchforge/internal/audit/patchcheck"
	"github.com/benchforge/benchforge/internal/audit/pipeline"
	"github.com/benchforge/benchforge/internal/audit/rescore"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/report"
)

// evalStages are the values of `audit eval --stage`.
const evalStageHelp = `stage to evaluate: patch (Stage II verdicts of 'audit patch' or patch.jsonl),
repo (Stage I: repos.jsonl of 'audit run' against repository labels) or
combined (verdicts.jsonl of 'audit run' against sample labels); repo and
combined print BenchChecker beside the Loss/Zlib/Min-K%/Ref baselines and
--roc writes the whole evaluation (name it DIR/eval-STAGE.json for 'report')`

// runAuditEvalStage evaluates Stage I or combined verdicts (benchchecker
// Tables 2 and 3) for `audit eval --stage repo|combined`.
func runAuditEvalStage(a *app, stage, model string, o auditEvalOptions) error {
	if o.verdicts == "" || o.labels == "" {
		return fmt.Errorf("audit eval: --verdicts and --labels are required: %w", errs.ErrUsage)
	}
	labels, err := patchcheck.ReadLabels(o.labels)
	if err != nil {
		return fmt.Errorf("audit eval: %w", err)
	}
	ev, err := evaluateStage(stage, model, o.verdicts, labels)
	if err != nil {
		return err
	}
	if o.rocJSON != "" {
		if err := output.WriteJSON(o.rocJSON, ev); err != nil {
			return fmt.Errorf("audit eval: --roc: %w", err)
		}
	}
	if o.rocSVG != "" {
		if err := writeStageROC(o.rocSVG, stage, ev); err != nil {
			return err
		}
	}
	if o.asJSON {
		return writeJSON(a.stdout, ev)
	}
	return printStageEval(a.stdout, ev)
}

// evaluateStage reads the records of stage from the verdicts file and
// scores them against the labels.
func evaluateStage(stage, model, verdicts string, labels map[string]bool) (*pipeline.StageEval, error) {
	switch stage {
	case pipeline.StageRepo:
		recs, err := jsonl.ReadFile[pipeline.RepoRecord](verdicts)
		if err != nil {
			return nil, fmt.Errorf("audit eval: %w", err)
		}
		ev, err := pipeline.EvaluateRepos(recs, labels, model)
		if err != nil {
			return nil, fmt.Errorf("audit eval --stage repo: %w", err)
		}
		return ev, nil
	case pipeline.StageCombined:
		vs, err := jsonl.ReadFile[rescore.Verdict](verdicts)
		if err != nil {
			return nil, fmt.Errorf("audit eval: %w", err)
		}
		ev, err := pipeline.EvaluateCombined(vs, labels, model)
		if err != nil {
			return nil, fmt.Errorf("audit eval --stage combined: %w", err)
		}
		return ev, nil
	}
	return nil, fmt.Errorf("audit eval: --stage %q: want patch, repo or combined: %w", stage, errs.ErrUsage)
}

// writeStageROC writes the SVG of every method's ROC curve to path.
func writeStageROC(path, stage string, ev *pipeline.StageEval) error {
	var curves []report.Series
	for _, me := range ev.Methods {
		s := report.Series{Label: me.Method}
		for _, p := range me.ROC {
			s.X, s.Y = append(s.X, p.FPR), append(s.Y, p.TPR)
		}
		if len(s.X) > 0 {
			curves = append(curves, s)
		}
	}
	svg, err := report.ROC("ROC, stage "+stage, curves)
	if err != nil {
		return fmt.Errorf("audit eval: --svg: %w", err)
	}
	if err := output.WriteFile(path, svg); err != nil {
		return fmt.Errorf("audit eval: --svg: %w", err)
	}
	return nil
}

// printStageEval is the text output: one row per method, then the
// skipped and unmatched counts.
func printStageEval(w io.Writer, ev *pipeline.StageEval) error {
	fmt.Fprintf(w, "stage %s, model %s\n", ev.Stage, ev.Model)
	t := output.Table{Header: []string{"METHOD", "N", "POS", "NEG", "AUC", "TPR", "FPR", "DECISION"}}
	for _, me := range ev.Methods {
		auc := "n/a"
		if me.AUC != nil {
			auc = fmt.Sprintf("%.3f", *me.AUC)
		}
		t.Add(me.Method, me.N, me.Positives, me.Negatives, auc, fmt.Sprintf("%.3f", me.TPR), fmt.Sprintf("%.3f", me.FPR), me.Decision)
	}
	if err := t.Write(w); err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(ev.Skipped)) {
		fmt.Fprintf(w, "%s: %d\n", k, ev.Skipped[k])
	}
	if len(ev.Missing) > 0 {
		fmt.Fprintf(w, "labelled without a record: %d (%s)\n", len(ev.Missing), strings.Join(ev.Missing[:min(5, len(ev.Missing))], ", "))
	}
	return nil
}
