package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/report"
	"github.com/benchforge/benchforge/internal/runkey"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/evaluate"
)

// synthEvaluateLong is the help of `synth evaluate`.
const synthEvaluateLong = `evaluate assigns the real seed pairs to folds at source-bug granularity
(exception-stratified unless --unstratified, shuffled by each run seed) and,
for every fold, trains on the synthetic pairs whose provenance is disjoint
from the held-out source bugs: a pair is dropped when any example_bug_id
maps (through the seeds' bug_id → source_bug table) to a held-out bug, and
an id missing from the table is an error.

Tasks: isolated-method (ROC-AUC over real methods; features = the seven
structural metrics and thirteen constructs) and pair discrimination (2AFC,
both orderings, Δ-features, pair-cluster bootstrap intervals); models lr,
rf, gb, each with and without the exception type. Also: the leaky
diagnostic (filter off), a training-size sweep, the repair-length sign
rule, a real-to-real Δ-LR, the no-growth residual stratum, across-seed
mean/sd/t-interval, Cohen's h and per-type tables.

Writes DIR/folds.jsonl, DIR/predictions.jsonl, DIR/seeds_info.jsonl,
DIR/evaluation.json, .md and .html; --export-hf also writes the folds as
Hugging Face JSONL splits under DIR/hf (large: every fold's training set).
--predictions FILE analyses external predictions (format in DIR/hf/README.md
and 'go doc evaluate.Prediction') with the same statistics instead of
training; --render-only re-renders DIR/evaluation.json.

--probe SPEC (repeatable or comma-separated) also asks each model zero-shot
about every real pair (rxsynth §7.3 Table 13, §7.4.6 Table 18): is this
method defective (each method alone, the exception type given), and which
of two versions is defective (both orderings). Answers are read as JSON,
else as a plain verdict (yes/no, A/B); an unreadable answer is counted as
unparseable, never guessed. They go to DIR/probes.jsonl as they arrive, so
a killed run resumes without asking again, and are analysed like every
other model (training "none") plus a probe table with specificity, recall,
position-conditional accuracies and the share choosing the first method.
The model calls are recorded in DIR/manifest.json. --probe needs no
--pairs: with --seeds alone only the probes and the length rule run.
` + modelSpecHelp

// evaluateFlags are the flags of `synth evaluate`: the run, and the flags
// the run takes converted.
type evaluateFlags struct {
	evaluateRun
	runSeeds []uint
	sweep    []int
}

func newSynthEvaluateCmd(a *app) *cobra.Command {
	o := &evaluateFlags{}
	cmd := &cobra.Command{
		Use:   "evaluate --pairs FILE --seeds FILE --out DIR",
		Short: "Leakage-controlled detector evaluation: train on synthetic pairs, test on real ones (rxsynth §7)",
		Long:  synthEvaluateLong,
		Args:  usageArgs(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, args []string) error { return o.run(a, cmd) },
	}
	o.addFlags(cmd.Flags())
	return cmd
}

// addFlags declares the flags of `synth evaluate`.
func (o *evaluateFlags) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.pairs, "pairs", "", "synthetic pairs JSONL (corpus.Pair records)")
	f.StringVar(&o.pairs, "corpus", "", "old name of --pairs")
	_ = f.MarkDeprecated("corpus", "use --pairs (--corpus names source code to learn from)")
	f.StringVar(&o.seeds, "seeds", "", "real seed pairs JSONL (corpus.Seed records)")
	f.StringVar(&o.predictions, "predictions", "", "analyse these external predictions (JSONL) instead of training")
	f.StringVar(&o.out, "out", "", "output directory")
	f.IntVar(&o.opt.Folds, "folds", 5, "source-bug folds")
	f.UintSliceVar(&o.runSeeds, "run-seeds", []uint{42, 7, 123}, "run seeds (fold shuffle and model seeds)")
	f.BoolVar(&o.opt.Unstratified, "unstratified", false, "do not stratify folds by exception type")
	f.StringSliceVar(&o.opt.Models, "models", []string{evaluate.ModelLR, evaluate.ModelRF, evaluate.ModelGB}, "models: lr, rf, gb")
	f.IntVar(&o.opt.Trees, "trees", 100, "random-forest trees and boosting stages")
	f.IntVar(&o.opt.Bootstrap, "bootstrap", 10000, "pair-cluster bootstrap resamples")
	f.IntSliceVar(&o.sweep, "sweep", evaluate.DefaultSweep, "training sizes of the sweep (the whole corpus is always added)")
	f.BoolVar(&o.opt.NoSweep, "no-sweep", false, "skip the training-size sweep")
	f.BoolVar(&o.opt.NoLeaky, "no-leaky", false, "skip the leaky (provenance filter off) diagnostic")
	f.BoolVar(&o.opt.NoRealCV, "no-real-cv", false, "skip the real-to-real Δ-feature LR baseline")
	f.IntVar(&o.opt.Workers, "workers", 0, "concurrent model fits (0 = all CPUs)")
	f.BoolVar(&o.exportHF, "export-hf", false, "also write the folds as Hugging Face JSONL splits under DIR/hf")
	f.BoolVar(&o.renderOnly, "render-only", false, "re-render DIR/evaluation.json without recomputing")
	f.BoolVar(&o.asJSON, "json", false, jsonUsage)
	f.StringSliceVar(&o.probe.specs, "probe", nil, "zero-shot probe model spec (repeatable or comma-separated), e.g. openai:gpt-4o-mini or ngram:FILE.bfng")
	f.StringSliceVar(&o.probe.tasks, "probe-tasks", []string{evaluate.Isolated, evaluate.PairTask}, "probe tasks: isolated, pair")
	f.IntVar(&o.probe.workers, "probe-workers", 4, "concurrent probe model calls")
	f.IntVar(&o.probe.maxTokens, "probe-max-tokens", 256, "longest probe answer, in tokens")
	o.probe.models.add(f)
}

// run checks --out, takes --run-seeds and --sweep when given, and runs.
func (o *evaluateFlags) run(a *app, cmd *cobra.Command) error {
	if o.out == "" {
		return fmt.Errorf("%w: --out DIR is required (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
	}
	if cmd.Flags().Changed("run-seeds") {
		o.opt.RunSeeds = nil
		for _, s := range o.runSeeds {
			o.opt.RunSeeds = append(o.opt.RunSeeds, uint64(s))
		}
	}
	if cmd.Flags().Changed("sweep") {
		o.opt.Sweep = o.sweep
	}
	return runSynthEvaluate(a, cmd, o.evaluateRun)
}

// evaluateRun is one `synth evaluate` run.
type evaluateRun struct {
	pairs, seeds, predictions, out string
	opt                            evaluate.Options
	exportHF, renderOnly, asJSON   bool
	probe                          probeFlags
}

func runSynthEvaluate(a *app, cmd *cobra.Command, e evaluateRun) error {
	h := a.stream("synth evaluate", e.asJSON, renderAs(printEvaluate))
	if e.renderOnly {
		r, err := readEvaluationReport(e.out)
		if err != nil {
			return err
		}
		return finishEvaluate(h, e.out, r)
	}
	if err := checkEvaluateFlags(cmd, e); err != nil {
		return err
	}
	var pr *prober
	if len(e.probe.specs) > 0 {
		var err error
		if pr, err = e.probe.open(); err != nil {
			return err
		}
		defer pr.close()
	}
	seeds, err := jsonl.ReadFile[corpus.Seed](e.seeds)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(e.out, 0o755); err != nil {
		return fmt.Errorf("synth evaluate: %w", err)
	}
	if e.predictions != "" || e.pairs == "" {
		return importPredictions(a, h, seeds, e.predictions, e.out, e.opt, pr)
	}
	return trainEvaluate(a, h, e, seeds, pr)
}

// checkEvaluateFlags says which inputs a computing run lacks.
func checkEvaluateFlags(cmd *cobra.Command, e evaluateRun) error {
	if e.seeds == "" || (e.pairs == "" && e.predictions == "" && len(e.probe.specs) == 0) {
		return fmt.Errorf("%w: --seeds FILE and --pairs FILE (or --predictions FILE, or --probe SPEC) are required (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
	}
	if cmd.Flags().Changed("run-seeds") && len(e.opt.RunSeeds) == 0 {
		return fmt.Errorf("%w: --run-seeds needs at least one seed", errs.ErrUsage)
	}
	return nil
}

func readEvaluationReport(dir string) (*evaluate.Report, error) {
	path := filepath.Join(dir, "evaluation.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("render evaluation report: %w: %w (run without --render-only first)", errs.ErrNotFound, err)
	}
	r := new(evaluate.Report)
	if err := json.Unmarshal(b, r); err != nil {
		return nil, fmt.Errorf("render evaluation report: %s: %w: %w", path, errs.ErrInput, err)
	}
	return r, nil
}

// trainEvaluate trains the detectors on the pairs fold by fold, adds the
// probes when asked, and writes every output file.
func trainEvaluate(a *app, h output.Handler, e evaluateRun, seeds []corpus.Seed, pr *prober) error {
	pairs, err := jsonl.ReadFile[corpus.Pair](e.pairs)
	if err != nil {
		return err
	}
	opt := e.opt
	opt.Progress = progressFunc(h, "evaluate")
	res, err := evaluate.Run(a.ctx, pairs, seeds, opt)
	if err != nil {
		return err
	}
	if pr != nil {
		if err := addProbes(a, h, res, seeds, pr, opt, e.out); err != nil {
			return err
		}
	}
	for path, recs := range map[string]func(string) error{
		"folds.jsonl":       func(p string) error { return jsonl.Rewrite(p, res.Folds) },
		"predictions.jsonl": func(p string) error { return jsonl.Rewrite(p, res.Predictions) },
		"seeds_info.jsonl":  func(p string) error { return jsonl.Rewrite(p, res.Seeds) },
	} {
		if err := recs(filepath.Join(e.out, path)); err != nil {
			return fmt.Errorf("synth evaluate: %w", err)
		}
	}
	if e.exportHF {
		if err := evaluate.ExportHF(filepath.Join(e.out, "hf"), pairs, seeds, res.Folds); err != nil {
			return err
		}
	}
	res.Report.SmallSampleWarnings = res.Report.SmallSamples()
	if err := output.WriteJSON(filepath.Join(e.out, "evaluation.json"), res.Report); err != nil {
		return err
	}
	return finishEvaluate(h, e.out, res.Report)
}

// addProbes probes the seeds the run measured, then analyses everything
// again so the probes sit in the same tables.
func addProbes(a *app, h output.Handler, res *evaluate.Result, seeds []corpus.Seed, pr *prober, opt evaluate.Options, out string) error {
	recs, err := pr.run(a, h, seeds, res.Seeds, out)
	if err != nil {
		return err
	}
	rep, all, err := evaluate.AnalyzeWithProbes(a.ctx, res.Predictions, res.Seeds, recs, evaluate.AnalyzeOptions{Bootstrap: opt.Bootstrap, Conf: opt.Conf})
	if err != nil {
		return err
	}
	cfg := res.Report.Config
	cfg.Probes, cfg.ProbePrompt, cfg.ProbePromptHash = rep.Config.Probes, rep.Config.ProbePrompt, rep.Config.ProbePromptHash
	rep.Config, rep.Data, rep.FoldStats = cfg, res.Report.Data, res.Report.FoldStats
	res.Report, res.Predictions = rep, all
	return nil
}

// probeFlags are the zero-shot probe settings of synth evaluate.
type probeFlags struct {
	specs, tasks       []string
	workers, maxTokens int
	models             modelFlags
}

// prober is an opened probe setup: the session and its models.
type prober struct {
	probeFlags
	sess   *llm.Session
	models []llm.Model
}

// open checks the probe flags and opens every --probe model before any
// work, so a bad spec or a missing key fails fast rather than after the
// model fits.
func (p probeFlags) open() (*prober, error) {
	if p.workers <= 0 || p.maxTokens <= 0 {
		return nil, fmt.Errorf("synth evaluate: %w: --probe-workers and --probe-max-tokens must be > 0", errs.ErrUsage)
	}
	for _, t := range p.tasks {
		if t != evaluate.Isolated && t != evaluate.PairTask {
			return nil, fmt.Errorf("synth evaluate: %w: --probe-tasks %q: want %s or %s", errs.ErrUsage, t, evaluate.Isolated, evaluate.PairTask)
		}
	}
	if len(p.tasks) == 0 {
		return nil, fmt.Errorf("synth evaluate: %w: --probe-tasks is empty", errs.ErrUsage)
	}
	sess, err := p.models.session()
	if err != nil {
		return nil, fmt.Errorf("synth evaluate: %w", err)
	}
	pr := &prober{probeFlags: p, sess: sess}
	for _, spec := range p.specs {
		m, err := sess.Open(spec)
		if err != nil {
			sess.Close()
			return nil, fmt.Errorf("synth evaluate: --probe %s: %w", spec, err)
		}
		pr.models = append(pr.models, m)
	}
	return pr, nil
}

// close releases the session; nil-safe, for runs without --probe.
func (p *prober) close() {
	if p != nil {
		p.sess.Close()
	}
}

// run asks every model about the measured seeds, appending to
// DIR/probes.jsonl, and writes the session's manifest even when the pass
// stops early (a budget stop is resumable).
func (p *prober) run(a *app, h output.Handler, seeds []corpus.Seed, measured []evaluate.SeedInfo, out string) ([]evaluate.ProbeRecord, error) {
	ok := map[string]bool{}
	for _, s := range measured {
		ok[s.BugID] = true
	}
	var kept []corpus.Seed
	for _, s := range seeds {
		if ok[s.BugID] {
			kept = append(kept, s)
		}
	}
	opts := evaluate.ProbeOptions{Tasks: p.tasks, Workers: p.workers, MaxTokens: p.maxTokens, Log: filepath.Join(out, evaluate.ProbeLogFile)}
	// The answer length limit decides an answer (models and tasks may be
	// added to a log; the prompts are checked per record).
	if err := runkey.CheckPass(opts.Log, "--out", runkey.Settings{"probe_max_tokens": p.maxTokens, "prompt_hash": evaluate.ProbePromptHash}); err != nil {
		return nil, fmt.Errorf("synth evaluate --probe: %w", err)
	}
	opts.Progress = progressFunc(h, "probe")
	run, runErr := evaluate.RunProbes(a.ctx, p.models, kept, opts)
	if err := p.sess.WriteManifest(filepath.Join(out, "manifest.json")); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return nil, runErr
	}
	if err := warnAll(h, run.Warnings...); err != nil {
		return nil, err
	}
	man := p.sess.Manifest()
	// The tally is for whoever watches the run (stderr, as before the
	// stream): the summary's report holds the probes' results.
	fmt.Fprintf(a.stderr, "probes: %d answers asked now, %d from an earlier run; %d model calls, %d cache hits, $%.4f\n",
		run.Asked, run.Resumed, man.Calls, man.CacheHits, man.CostUSD)
	return run.Records, nil
}

// importPredictions analyses external predictions (--predictions), the
// probes' answers (--probe) or both, with the length rule, without
// training.
func importPredictions(a *app, h output.Handler, seeds []corpus.Seed, predPath, out string, opt evaluate.Options, probe *prober) error {
	var raw []evaluate.Prediction
	if predPath != "" {
		var err error
		if raw, err = jsonl.ReadFile[evaluate.Prediction](predPath); err != nil {
			return err
		}
	}
	infos, skipped, err := evaluate.SeedInfos(a.ctx, seeds, opt.Workers)
	if err != nil {
		return err
	}
	preds, err := evaluate.ImportPredictions(raw, infos)
	if err != nil {
		return fmt.Errorf("%s: %w", predPath, err)
	}
	preds = append(preds, evaluate.LengthRule(infos)...)
	aopt := evaluate.AnalyzeOptions{Bootstrap: opt.Bootstrap}
	var r *evaluate.Report
	if probe != nil {
		recs, err := probe.run(a, h, seeds, infos, out)
		if err != nil {
			return err
		}
		if r, preds, err = evaluate.AnalyzeWithProbes(a.ctx, preds, infos, recs, aopt); err != nil {
			return err
		}
		// The answers as predictions, so the analysis can be redone
		// (or joined with others) without the models.
		if err := jsonl.Rewrite(filepath.Join(out, "predictions.jsonl"), preds); err != nil {
			return fmt.Errorf("synth evaluate: %w", err)
		}
		if err := jsonl.Rewrite(filepath.Join(out, "seeds_info.jsonl"), infos); err != nil {
			return fmt.Errorf("synth evaluate: %w", err)
		}
	} else if r, err = evaluate.Analyze(a.ctx, preds, infos, aopt); err != nil {
		return err
	}
	r.Config.Bootstrap, r.Config.Conf = opt.Bootstrap, 0.95
	r.Data = evaluate.DataSummary{Seeds: len(seeds), MeasuredSeeds: len(infos), Skipped: skipped}
	r.SmallSampleWarnings = r.SmallSamples()
	if err := output.WriteJSON(filepath.Join(out, "evaluation.json"), r); err != nil {
		return err
	}
	return finishEvaluate(h, out, r)
}

// evaluateSummary is the synth_evaluate summary: the report, and for the
// text header where the files went.
type evaluateSummary struct {
	*evaluate.Report
	out string
}

// finishEvaluate writes the Markdown and HTML reports (atomically: a
// --render-only run replaces them in place) and reports the summary.
func finishEvaluate(h output.Handler, out string, r *evaluate.Report) error {
	if err := output.WriteFile(filepath.Join(out, "evaluation.md"), []byte(r.Markdown())); err != nil {
		return fmt.Errorf("synth evaluate: %w", err)
	}
	page, err := r.Page()
	if err != nil {
		return err
	}
	if err := writePage(filepath.Join(out, "evaluation.html"), page); err != nil {
		return err
	}
	for _, s := range r.Data.Skipped {
		if err := warnAll(h, fmt.Sprintf("not measured: %s", s)); err != nil {
			return err
		}
	}
	return h.Summary(output.Summary{Kind: "synth_evaluate", Value: evaluateSummary{Report: r, out: out}})
}

func printEvaluate(w io.Writer, s evaluateSummary) error {
	r := s.Report
	fmt.Fprintf(w, "reports in %s\n\n", s.out)
	printSmallSamples(w, r.SmallSamples())
	return writeReportTables(w, append([]*report.Table{r.FoldTable(), r.IsolatedTable(), r.PairTable(), r.SweepTable()}, r.ProbeTables()...)...)
}
