package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/audit/rescore"
	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/report"
)

func newAuditRescoreCmd(a *app) *cobra.Command {
	var (
		verdicts, leaderboard, model, out string
		bm                                benchmarkFlags
		unjudged                          string
		asJSON                            bool
	)
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
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := requireFlag(cmd, "verdicts", verdicts); err != nil {
				return err
			}
			if err := requireFlag(cmd, "leaderboard", leaderboard); err != nil {
				return err
			}
			fmtv, err := bm.parseFormat()
			if err != nil {
				return err
			}
			var samples []bench.Sample
			if bm.file != "" {
				var problems []bench.Problem
				samples, problems, err = bench.Load(a.ctx, bm.file, fmtv, bench.LoadOptions{})
				if err != nil {
					return err
				}
				for _, p := range problems {
					fmt.Fprintf(a.stderr, "benchforge: skipped benchmark record: %s\n", p)
				}
			}
			v, err := rescore.ReadVerdicts(verdicts)
			if err != nil {
				return fmt.Errorf("audit rescore: --verdicts: %w", err)
			}
			subs, err := rescore.ReadLeaderboard(leaderboard)
			if err != nil {
				return fmt.Errorf("audit rescore: --leaderboard: %w", err)
			}
			res, err := rescore.Rescore(samples, v, subs, rescore.Options{Model: model, Unjudged: unjudged})
			if err != nil {
				return err
			}
			if out != "" {
				if err := writeRescore(out, res); err != nil {
					return err
				}
			}
			if asJSON {
				return writeJSON(a.stdout, res)
			}
			fmt.Fprintf(a.stdout, "%s\n\n", res.Summary())
			for i, t := range res.Tables() {
				if i > 0 {
					fmt.Fprintln(a.stdout)
				}
				fmt.Fprintln(a.stdout, t.Caption)
				tt := &output.Table{Header: t.Header, Rows: t.Rows}
				if err := tt.Write(a.stdout); err != nil {
					return err
				}
				if t.Note != "" {
					fmt.Fprintln(a.stdout, t.Note)
				}
			}
			if out != "" {
				fmt.Fprintf(a.stdout, "\nwrote %s\n", filepath.Join(out, "rescore.{json,md,html}"))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&verdicts, "verdicts", "", "verdicts.jsonl (Verdict or PatchVerdict records)")
	f.StringVar(&leaderboard, "leaderboard", "", "leaderboard submissions with resolved ids (JSONL, JSON array or results.json)")
	bm.add(f, false)
	f.StringVar(&model, "model", "", "use the verdicts of this model for every submission")
	f.StringVar(&unjudged, "unjudged", rescore.UnjudgedExclude, "samples the audit could not judge: exclude (from both rates), clean or contaminated")
	f.StringVar(&out, "out", "", "directory for rescore.json, rescore.md and rescore.html")
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
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
