package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/runkey"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/judge"
	"github.com/benchforge/benchforge/internal/synth/jvm"
)

// synthVerifyJSON is the synth_verify summary of `synth verify`.
type synthVerifyJSON struct {
	Executions string            `json:"executions"`
	Confirmed  string            `json:"confirmed"`
	NConfirmed int               `json:"n_confirmed"`
	Verified   int               `json:"verified"`
	Skipped    int               `json:"skipped"`
	Regime     string            `json:"regime,omitempty"`
	Model      *jvm.ModelCounts  `json:"model,omitempty"`
	Manifest   *llm.Manifest     `json:"manifest,omitempty"`
	Table      jvm.Table         `json:"table"`
	Builds     []jvm.BuildReport `json:"project_builds,omitempty"`
}

// verifyOptions are the flags of `synth verify`.
type verifyOptions struct {
	corpus, out                 string
	harnessModel, regime, judge string
	judges                      []string
	models                      modelFlags
	opts                        jvm.Options
	asJSON                      bool
	project                     verifyProjectFlags
}

func newSynthVerifyCmd(a *app) *cobra.Command {
	var o verifyOptions
	cmd := &cobra.Command{
		Use:   "verify --pairs FILE --out DIR [--harness-model SPEC --regime REGIME [--judgements FILE]]",
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
Needs a JDK (JAVA_HOME or javac on PATH).

With --harness-model a model builds the inputs instead (Table 8's
model-built harnesses): one call per pair proposes at most 5 argument
vectors as Java expressions, and only those run, with the same stubs,
sandbox and criteria. --regime says what the model sees besides the label:
  methods-only  the buggy and fixed methods (the localisation control)
  diff-aided    the methods and their unified diff (the paper's primary arm)
  judge-fed     the methods and the judge's site, line, trigger and
                explanation from --judgements (judgements.jsonl of 'synth
                validate'); a pair without a usable judgement gets no call
                and is recorded as "no judgement"
A vector that does not compile is dropped with javac's message; the model
cannot configure stubs, which stay non-null (§5.4's independence rule). An
answer that cannot be read is recorded as unparseable, never guessed.
Records (regime, model, prompt hash, raw answer, inputs) go to
DIR/harness-REGIME.jsonl, resumable by pair id; DIR/confirmed-REGIME.jsonl
and DIR/manifest-REGIME.json (model calls, cost) are rewritten each run.
` + modelSpecHelp,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runSynthVerify(a, cmd, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.corpus, "pairs", "", "pairs JSONL (corpus.Pair records)")
	f.StringVar(&o.corpus, "corpus", "", "old name of --pairs")
	_ = f.MarkDeprecated("corpus", "use --pairs (--corpus names source code to learn from)")
	f.StringVar(&o.out, "out", "", "output directory (executions.jsonl, or harness-REGIME.jsonl with --harness-model)")
	f.IntVar(&o.opts.Budget, "budget", 200, "most method calls per pair")
	f.DurationVar(&o.opts.Timeout, "timeout", 2*time.Second, "wall-clock limit per call")
	f.IntVar(&o.opts.Workers, "workers", 1, "worker JVMs")
	f.IntVar(&o.opts.Batch, "batch", 100, "pairs per javac run")
	f.BoolVar(&o.opts.NoAnchors, "no-anchors", false, "no patch-anchored inputs (values derived from the fix's guards, tried first): the boundary search alone, for comparison")
	f.StringVar(&o.harnessModel, "harness-model", "", "model spec proposing the inputs (model-built harness; needs --regime)")
	f.StringVar(&o.regime, "regime", "", "what the harness model sees: "+strings.Join(jvm.Regimes, ", "))
	f.StringArrayVar(&o.judges, "judgements", nil, "judgements.jsonl of 'synth validate', one (judge-fed regime only)")
	o.models.add(f)
	o.project.add(f)
	f.BoolVar(&o.asJSON, "json", false, jsonUsage)
	return cmd
}

func runSynthVerify(a *app, cmd *cobra.Command, o verifyOptions) error {
	o, err := checkVerifyFlags(cmd, o)
	if err != nil {
		return err
	}
	pairs, err := o.project.readPairs(o.corpus)
	if err != nil {
		return err
	}
	if o.opts.Projects, err = o.project.projectSource(); err != nil {
		return err
	}
	judged, err := readVerifyJudgements(o.judge)
	if err != nil {
		return err
	}
	opts := o.opts
	log := filepath.Join(o.out, jvm.ExecutionsFile)
	if o.harnessModel != "" {
		log = filepath.Join(o.out, jvm.HarnessFile(o.regime))
	}
	// One log holds one set of the settings that decide an execution.
	settings := runkey.Settings{
		"budget": opts.Budget, "timeout": opts.Timeout.String(), "harness_model": o.harnessModel, "regime": o.regime,
		"judgements": o.judge, "harness_prompts": jvm.HarnessPromptVersion, "search": jvm.SearchVersion,
	}
	if opts.NoAnchors {
		settings["anchors"] = "off" // only when set: logs written before the flag keep resuming
	}
	if err := runkey.CheckPass(log, "--out", settings); err != nil {
		return fmt.Errorf("synth verify: %w", err)
	}
	h := a.stream("synth verify", o.asJSON, renderAs(printVerify))
	opts.Progress = progressFunc(h, "verify")
	var (
		s   jvm.Summary
		man *llm.Manifest
	)
	if o.harnessModel == "" {
		s, err = jvm.Run(a.ctx, pairs, o.out, opts)
	} else {
		s, man, err = runHarnessModel(a, o, pairs, judged, opts)
	}
	if werr := warnAll(h, s.Warnings...); werr != nil && err == nil {
		err = werr
	}
	if err != nil {
		return err
	}
	return h.Summary(output.Summary{Kind: "synth_verify", Value: synthVerifyJSON{Executions: s.Path, Confirmed: s.ConfirmedPath, NConfirmed: s.Confirmed, Verified: s.Verified,
		Skipped: s.Skipped, Regime: o.regime, Model: s.Model, Manifest: man, Table: s.Table, Builds: s.Builds}})
}

// checkVerifyFlags refuses flag combinations that have no meaning and
// returns o with its one --judgements file in o.judge.
func checkVerifyFlags(cmd *cobra.Command, o verifyOptions) (verifyOptions, error) {
	if o.corpus == "" && o.project.seeds == "" || o.out == "" {
		return o, fmt.Errorf("synth verify: %w: --pairs FILE (or --seeds FILE) and --out DIR are required (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
	}
	switch len(o.judges) {
	case 0:
	case 1:
		o.judge = o.judges[0]
	default:
		return o, fmt.Errorf("synth verify: %w: --judgements given %d times; the harness model is shown one pass", errs.ErrUsage, len(o.judges))
	}
	return o, checkRegime(o)
}

// checkRegime refuses a harness regime or judgements without a harness
// model, and a regime that does not match the judgements.
func checkRegime(o verifyOptions) error {
	switch {
	case o.harnessModel == "" && (o.regime != "" || o.judge != ""):
		return fmt.Errorf("synth verify: %w: --regime and --judgements belong to a model-built harness; add --harness-model SPEC", errs.ErrUsage)
	case o.harnessModel != "" && !slices.Contains(jvm.Regimes, o.regime):
		return fmt.Errorf("synth verify: %w: --harness-model needs --regime %s (got %q)", errs.ErrUsage, strings.Join(jvm.Regimes, "|"), o.regime)
	case o.regime == jvm.RegimeJudgeFed && o.judge == "":
		return fmt.Errorf("synth verify: %w: --regime %s needs --judgements FILE (judgements.jsonl of 'synth validate')", errs.ErrUsage, jvm.RegimeJudgeFed)
	case o.judge != "" && o.regime != jvm.RegimeJudgeFed:
		return fmt.Errorf("synth verify: %w: --judgements is shown to the model only with --regime %s, not %s", errs.ErrUsage, jvm.RegimeJudgeFed, o.regime)
	}
	return nil
}

// readVerifyJudgements reads the judge-fed regime's judgements, the latest
// per pair; no file: nil.
func readVerifyJudgements(path string) ([]judge.Record, error) {
	if path == "" {
		return nil, nil
	}
	judged, err := jsonl.ReadFile[judge.Record](path)
	if err != nil {
		return nil, fmt.Errorf("synth verify: --judgements: %w", err)
	}
	judged = jsonl.Latest(judged, judge.Key)
	if judged == nil {
		judged = []judge.Record{} // an empty file: every pair is "no judgement"
	}
	return judged, nil
}

// printVerify prints the run's counts, the harness model's answers, the
// per-type criteria table (Tables 8 and 9) and the project builds.
func printVerify(w io.Writer, v synthVerifyJSON) error {
	fmt.Fprintf(w, "%s: %d verified, %d already there\n", v.Executions, v.Verified, v.Skipped)
	if m := v.Model; m != nil {
		fmt.Fprintf(w, "harness model %s (%s, prompts %s): %d answers, %d unparseable, %d declined, %d no judgement; %d inputs proposed, %d dropped",
			strings.Join(m.Models, ", "), m.Regime, jvm.HarnessPromptVersion, m.Asked, m.Unparseable, m.Declined, m.NoJudgement, m.Proposed, m.Dropped)
		if man := v.Manifest; man != nil {
			fmt.Fprintf(w, "; %d model calls, %d cache hits, $%.4f", man.Calls, man.CacheHits, man.CostUSD)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	regime := "boundary search"
	if v.Regime != "" {
		regime = v.Regime
	}
	t := output.Table{Header: []string{"regime", "type", "n", "compiled", "(a) buggy-side", "(b) both-sides", "(c) site-anchored", "(c) Wilson 95% CI"}}
	for _, r := range append(v.Table.Rows, v.Table.Pooled) {
		t.Add(regime, r.Type, r.N, frac(r.Compiled), frac(r.A), frac(r.B), frac(r.C), ci(r.C))
	}
	if err := t.Write(w); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "\n%d pairs confirmed by (c) → %s\n", v.NConfirmed, v.Confirmed); err != nil {
		return err
	}
	return writeBuilds(w, v.Builds)
}

// runHarnessModel runs the model-built harness regime: it opens the
// model through a cached, budgeted session and writes the run's manifest
// next to the records, even after a failure (the calls were made).
func runHarnessModel(a *app, o verifyOptions, pairs []corpus.Pair, judged []judge.Record, opts jvm.Options) (jvm.Summary, *llm.Manifest, error) {
	sess, err := o.models.session()
	if err != nil {
		return jvm.Summary{}, nil, fmt.Errorf("synth verify: %w", err)
	}
	defer sess.Close()
	m, err := sess.Open(o.harnessModel)
	if err != nil {
		return jvm.Summary{}, nil, fmt.Errorf("synth verify: --harness-model: %w", err)
	}
	b, err := jvm.NewBuilder(m, o.regime, judged)
	if err != nil {
		return jvm.Summary{}, nil, fmt.Errorf("synth verify: %w", err)
	}
	s, runErr := jvm.RunModel(a.ctx, pairs, o.out, b, opts)
	man := sess.Manifest()
	if err := sess.WriteManifest(filepath.Join(o.out, "manifest-"+o.regime+".json")); err != nil && runErr == nil {
		runErr = err
	}
	return s, &man, runErr
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
