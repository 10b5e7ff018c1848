package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/audit/pipeline"
	"github.com/benchforge/benchforge/internal/audit/rescore"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/report"
)

// auditRescoreOptions are the flags of `audit rescore`.
type auditRescoreOptions struct {
	verdicts, leaderboard, model, out string
	bench                             benchmarkFlags
	unjudged                          string
	asJSON                            bool
}

func newAuditRescoreCmd(a *app) *cobra.Command {
	var o auditRescoreOptions
	cmd := &cobra.Command{
		Use:   "rescore --verdicts FILE --leaderboard FILE [--benchmark FILE] [--out DIR]",
		Short: "Re-score leaderboard submissions on the clean (not contaminated) samples",
		Long: `rescore reports each submission's resolution rate on all samples vs on
the clean samples (those not judged contaminated), the relative drop, by
difficulty bucket and by submission year (benchchecker §6, Tables 6-9).

--verdicts is a JSONL file of Verdict records (contaminated) or of Stage II
PatchVerdict records (present). --leaderboard is a JSONL file of
submissions with their resolved instance ids (submission, date, name,
models, resolved), a JSON array of them, or one SWE-bench experiments
results.json. --benchmark (any format 'bench' loads) fixes the sample set
and gives the difficulty buckets; without it the samples are those of the
verdict file. With --out, writes rescore.json, rescore.md and rescore.html.

Samples the audit could not judge (no verdict; Stage II unknown or
not_applicable; a combined verdict with neither stage saying absent, e.g.
the repository insufficient and the patch unknown) are their own bucket,
never silently clean: --unjudged exclude (default) leaves them out of both
rates, clean counts them clean, contaminated counts them contaminated.
Every rate is printed with the policy beside it.`,
		Example: `  benchforge audit rescore --verdicts run/verdicts.jsonl \
      --leaderboard testdata/swebench/leaderboard_verified.jsonl \
      --benchmark testdata/swebench/swebench_verified.jsonl --out rescored`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runAuditRescore(a, cmd, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.verdicts, "verdicts", "", "verdicts.jsonl (Verdict or PatchVerdict records)")
	f.StringVar(&o.leaderboard, "leaderboard", "", "leaderboard submissions with resolved ids (JSONL, JSON array or results.json)")
	o.bench.add(f, false)
	f.StringVar(&o.model, "model", "", "use the verdicts of this model for every submission")
	f.StringVar(&o.unjudged, "unjudged", rescore.UnjudgedExclude, "samples the audit could not judge: exclude (from both rates), clean or contaminated")
	f.StringVar(&o.out, "out", "", "directory for rescore.json, rescore.md and rescore.html")
	f.BoolVar(&o.asJSON, "json", false, "print the result as JSON")
	return cmd
}

// runAuditRescore checks the flags, re-scores the files (pipeline.Rescore,
// as the demo does), writes --out and prints the result.
func runAuditRescore(a *app, cmd *cobra.Command, o auditRescoreOptions) error {
	if err := requireFlag(cmd, "verdicts", o.verdicts); err != nil {
		return err
	}
	if err := requireFlag(cmd, "leaderboard", o.leaderboard); err != nil {
		return err
	}
	format, err := o.bench.parseFormat()
	if err != nil {
		return err
	}
	res, problems, err := pipeline.Rescore(a.ctx, pipeline.RescoreFiles{
		Benchmark: o.bench.file, Format: format, Verdicts: o.verdicts, Leaderboard: o.leaderboard,
	}, rescore.Options{Model: o.model, Unjudged: o.unjudged})
	for _, p := range problems {
		fmt.Fprintf(a.stderr, "benchforge: skipped benchmark record: %s\n", p)
	}
	if err != nil {
		return err
	}
	if o.out != "" {
		if err := writeRescore(o.out, res); err != nil {
			return err
		}
	}
	if o.asJSON {
		return writeJSON(a.stdout, res)
	}
	return printRescore(a.stdout, res, o.out)
}

// printRescore is the text output of `audit rescore`: the summary, then
// each table with its caption and note.
func printRescore(w io.Writer, res *rescore.Result, out string) error {
	fmt.Fprintf(w, "%s\n\n", res.Summary())
	for i, t := range res.Tables() {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, t.Caption)
		tt := &output.Table{Header: t.Header, Rows: t.Rows}
		if err := tt.Write(w); err != nil {
			return err
		}
		if t.Note != "" {
			fmt.Fprintln(w, t.Note)
		}
	}
	if out != "" {
		fmt.Fprintf(w, "\nwrote %s\n", filepath.Join(out, "rescore.{json,md,html}"))
	}
	return nil
}

func writeRescore(dir string, res *rescore.Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("audit rescore: %w", err)
	}
	// Each file is replaced atomically: a rerun over the same directory
	// never leaves a half-written report beside a whole one.
	if err := output.WriteJSON(filepath.Join(dir, "rescore.json"), res); err != nil {
		return fmt.Errorf("audit rescore: %w", err)
	}
	if err := output.WriteFile(filepath.Join(dir, "rescore.md"), []byte(res.Markdown())); err != nil {
		return fmt.Errorf("audit rescore: %w", err)
	}
	page, err := res.Page("Leaderboard re-scored on clean samples")
	if err != nil {
		return err
	}
	path := filepath.Join(dir, "rescore.html")
	if err := output.Write(path, func(w io.Writer) error { return report.Render(w, page) }); err != nil {
		return fmt.Errorf("audit rescore: %w", err)
	}
	return nil
}
