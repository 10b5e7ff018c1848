package cli

import (
	"fmt"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/jvm"
)

func init() { synthSubcommands = append(synthSubcommands, newSynthVerifyCmd) }

// synthVerifyJSON is what `synth verify --json` prints.
type synthVerifyJSON struct {
	Executions string    `json:"executions"`
	Confirmed  string    `json:"confirmed"`
	NConfirmed int       `json:"n_confirmed"`
	Verified   int       `json:"verified"`
	Skipped    int       `json:"skipped"`
	Table      jvm.Table `json:"table"`
}

func newSynthVerifyCmd(a *app) *cobra.Command {
	var (
		corpusPath, out string
		opts            jvm.Options
		asJSON          bool
	)
	cmd := &cobra.Command{
		Use:   "verify --corpus FILE --out DIR",
		Short: "Run bug/fix pairs on a real JVM and confirm the labelled exception at the patched site (rxsynth §5.4)",
		Long: `verify compiles every pair's buggy and fixed method verbatim into harnesses
(stubbing undeclared symbols with non-null defaults), searches boundary
inputs within --budget calls per pair on a sandboxed worker JVM, and judges
rxsynth §5.4's criteria: (a) the buggy method raises the labelled type,
(b) (a) and the fixed method returns normally, (c) the buggy method raises
it at the patched site and the fixed method does not. Records go to
DIR/executions.jsonl, one per pair; a rerun skips pairs already there.
DIR/confirmed.jsonl, rewritten on every run, holds the input pairs that
meet (c): an execution-validated corpus for 'synth fidelity' and 'synth
evaluate' that no judge model decided.
Prints per-type counts with Wilson 95% intervals (Tables 8 and 9).
Needs a JDK (JAVA_HOME or javac on PATH).`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if corpusPath == "" || out == "" {
				return fmt.Errorf("%w: --corpus FILE and --out DIR are required (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
			}
			pairs, err := jsonl.ReadFile[corpus.Pair](corpusPath)
			if err != nil {
				return err
			}
			if isTerminal(a.stderr) {
				bar := progressbar.NewOptions(len(pairs), progressbar.OptionSetWriter(a.stderr), progressbar.OptionSetDescription("verify"))
				opts.Progress = func(done, total int) { bar.Set(done) }
				defer fmt.Fprintln(a.stderr)
			}
			s, err := jvm.Run(a.ctx, pairs, out, opts)
			for _, w := range s.Warnings {
				fmt.Fprintf(a.stderr, "benchforge: warning: %s\n", w)
			}
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(a.stdout, synthVerifyJSON{Executions: s.Path, Confirmed: s.ConfirmedPath, NConfirmed: s.Confirmed, Verified: s.Verified, Skipped: s.Skipped, Table: s.Table})
			}
			fmt.Fprintf(a.stdout, "%s: %d verified, %d already there\n\n", s.Path, s.Verified, s.Skipped)
			t := table{header: []string{"type", "n", "compiled", "(a) buggy-side", "(b) both-sides", "(c) site-anchored", "(c) Wilson 95% CI"}}
			for _, r := range append(s.Table.Rows, s.Table.Pooled) {
				t.add(r.Type, r.N, frac(r.Compiled), frac(r.A), frac(r.B), frac(r.C), ci(r.C))
			}
			if err := t.write(a.stdout); err != nil {
				return err
			}
			_, err = fmt.Fprintf(a.stdout, "\n%d pairs confirmed by (c) → %s\n", s.Confirmed, s.ConfirmedPath)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&corpusPath, "corpus", "", "pairs JSONL (corpus.Pair records)")
	f.StringVar(&out, "out", "", "output directory for executions.jsonl and confirmed.jsonl")
	f.IntVar(&opts.Budget, "budget", 200, "most method calls per pair")
	f.DurationVar(&opts.Timeout, "timeout", 2*time.Second, "wall-clock limit per call")
	f.IntVar(&opts.Workers, "workers", 1, "worker JVMs")
	f.IntVar(&opts.Batch, "batch", 100, "pairs per javac run")
	f.BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func frac(r jvm.Rate) string {
	if r.N == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d (%.1f%%)", r.K, r.N, 100*r.Rate)
}

func ci(r jvm.Rate) string {
	if r.CI == nil {
		return "-"
	}
	return fmt.Sprintf("[%.1f, %.1f]", 100*r.CI.Lo, 100*r.CI.Hi)
}
