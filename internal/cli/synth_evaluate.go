package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/report"
	"github.com/benchforge/benchforge/internal/runkey"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/evaluate"
)

func newSynthEvaluateCmd(a *app) *cobra.Command {
	var (
		corpusPath, seedsPath, predPath, out string
		runSeeds                             []uint
		sweep                                []int
		opt                                  evaluate.Options
		exportHF, renderOnly, asJSON         bool
		probe                                probeFlags
	)
	cmd := &cobra.Command{
		Use:   "evaluate --pairs FILE --seeds FILE --out DIR",
		Short: "Leakage-controlled detector evaluation: train on synthetic pairs, test on real ones (rxsynth §7)",
		Long: `evaluate assigns the real seed pairs to folds at source-bug granularity
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
` + modelSpecHelp,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return fmt.Errorf("%w: --out DIR is required (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
			}
			if renderOnly {
				path := filepath.Join(out, "evaluation.json")
				b, err := os.ReadFile(path)
				if err != nil {
					return fmt.Errorf("render evaluation report: %w: %w (run without --render-only first)", errs.ErrNotFound, err)
				}
				r := new(evaluate.Report)
				if err := json.Unmarshal(b, r); err != nil {
					return fmt.Errorf("render evaluation report: %s: %w: %w", path, errs.ErrInput, err)
				}
				return finishEvaluate(a, out, r, asJSON)
			}
			if seedsPath == "" || (corpusPath == "" && predPath == "" && len(probe.specs) == 0) {
				return fmt.Errorf("%w: --seeds FILE and --pairs FILE (or --predictions FILE, or --probe SPEC) are required (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
			}
			var pr *prober
			if len(probe.specs) > 0 {
				var err error
				if pr, err = probe.open(); err != nil {
					return err
				}
				defer pr.close()
			}
			seeds, err := jsonl.ReadFile[corpus.Seed](seedsPath)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return fmt.Errorf("synth evaluate: %w", err)
			}
			if predPath != "" || corpusPath == "" {
				return importPredictions(a, seeds, predPath, out, opt, pr, asJSON)
			}
			pairs, err := jsonl.ReadFile[corpus.Pair](corpusPath)
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("run-seeds") {
				opt.RunSeeds = nil
				for _, s := range runSeeds {
					opt.RunSeeds = append(opt.RunSeeds, uint64(s))
				}
				if len(opt.RunSeeds) == 0 {
					return fmt.Errorf("%w: --run-seeds needs at least one seed", errs.ErrUsage)
				}
			}
			if cmd.Flags().Changed("sweep") {
				opt.Sweep = sweep
			}
			if isTerminal(a.stderr) {
				bar := progressbar.NewOptions(-1, progressbar.OptionSetWriter(a.stderr), progressbar.OptionSetDescription("evaluate"))
				opt.Progress = func(done, total int) { bar.ChangeMax(total); bar.Set(done) }
				defer fmt.Fprintln(a.stderr)
			}
			res, err := evaluate.Run(a.ctx, pairs, seeds, opt)
			if err != nil {
				return err
			}
			if pr != nil {
				// Probe the seeds the run measured, then analyse everything
				// again so the probes sit in the same tables.
				recs, err := pr.run(a, seeds, res.Seeds, out)
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
			}
			for path, recs := range map[string]func(string) error{
				"folds.jsonl":       func(p string) error { return jsonl.Rewrite(p, res.Folds) },
				"predictions.jsonl": func(p string) error { return jsonl.Rewrite(p, res.Predictions) },
				"seeds_info.jsonl":  func(p string) error { return jsonl.Rewrite(p, res.Seeds) },
			} {
				if err := recs(filepath.Join(out, path)); err != nil {
					return fmt.Errorf("synth evaluate: %w", err)
				}
			}
			if exportHF {
				if err := evaluate.ExportHF(filepath.Join(out, "hf"), pairs, seeds, res.Folds); err != nil {
					return err
				}
			}
			res.Report.SmallSampleWarnings = res.Report.SmallSamples()
			if err := output.WriteJSON(filepath.Join(out, "evaluation.json"), res.Report); err != nil {
				return err
			}
			return finishEvaluate(a, out, res.Report, asJSON)
		},
	}
	f := cmd.Flags()
	f.StringVar(&corpusPath, "pairs", "", "synthetic pairs JSONL (corpus.Pair records)")
	f.StringVar(&corpusPath, "corpus", "", "old name of --pairs")
	_ = f.MarkDeprecated("corpus", "use --pairs (--corpus names source code to learn from)")
	f.StringVar(&seedsPath, "seeds", "", "real seed pairs JSONL (corpus.Seed records)")
	f.StringVar(&predPath, "predictions", "", "analyse these external predictions (JSONL) instead of training")
	f.StringVar(&out, "out", "", "output directory")
	f.IntVar(&opt.Folds, "folds", 5, "source-bug folds")
	f.UintSliceVar(&runSeeds, "run-seeds", []uint{42, 7, 123}, "run seeds (fold shuffle and model seeds)")
	f.BoolVar(&opt.Unstratified, "unstratified", false, "do not stratify folds by exception type")
	f.StringSliceVar(&opt.Models, "models", []string{evaluate.ModelLR, evaluate.ModelRF, evaluate.ModelGB}, "models: lr, rf, gb")
	f.IntVar(&opt.Trees, "trees", 100, "random-forest trees and boosting stages")
	f.IntVar(&opt.Bootstrap, "bootstrap", 10000, "pair-cluster bootstrap resamples")
	f.IntSliceVar(&sweep, "sweep", evaluate.DefaultSweep, "training sizes of the sweep (the whole corpus is always added)")
	f.BoolVar(&opt.NoSweep, "no-sweep", false, "skip the training-size sweep")
	f.BoolVar(&opt.NoLeaky, "no-leaky", false, "skip the leaky (provenance filter off) diagnostic")
	f.BoolVar(&opt.NoRealCV, "no-real-cv", false, "skip the real-to-real Δ-feature LR baseline")
	f.IntVar(&opt.Workers, "workers", 0, "concurrent model fits (0 = all CPUs)")
	f.BoolVar(&exportHF, "export-hf", false, "also write the folds as Hugging Face JSONL splits under DIR/hf")
	f.BoolVar(&renderOnly, "render-only", false, "re-render DIR/evaluation.json without recomputing")
	f.BoolVar(&asJSON, "json", false, "print the report as JSON")
	f.StringSliceVar(&probe.specs, "probe", nil, "zero-shot probe model spec (repeatable or comma-separated), e.g. openai:gpt-4o-mini or ngram:FILE.bfng")
	f.StringSliceVar(&probe.tasks, "probe-tasks", []string{evaluate.Isolated, evaluate.PairTask}, "probe tasks: isolated, pair")
	f.IntVar(&probe.workers, "probe-workers", 4, "concurrent probe model calls")
	f.IntVar(&probe.maxTokens, "probe-max-tokens", 256, "longest probe answer, in tokens")
	probe.models.add(f)
	return cmd
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
func (p *prober) run(a *app, seeds []corpus.Seed, measured []evaluate.SeedInfo, out string) ([]evaluate.ProbeRecord, error) {
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
	if isTerminal(a.stderr) {
		bar := progressbar.NewOptions(-1, progressbar.OptionSetWriter(a.stderr), progressbar.OptionSetDescription("probe"))
		opts.Progress = func(done, total int) { bar.ChangeMax(total); bar.Set(done) }
		defer fmt.Fprintln(a.stderr)
	}
	run, runErr := evaluate.RunProbes(a.ctx, p.models, kept, opts)
	if err := p.sess.WriteManifest(filepath.Join(out, "manifest.json")); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return nil, runErr
	}
	for _, w := range run.Warnings {
		fmt.Fprintf(a.stderr, "benchforge: warning: %s\n", w)
	}
	man := p.sess.Manifest()
	fmt.Fprintf(a.stderr, "probes: %d answers asked now, %d from an earlier run; %d model calls, %d cache hits, $%.4f\n",
		run.Asked, run.Resumed, man.Calls, man.CacheHits, man.CostUSD)
	return run.Records, nil
}

// importPredictions analyses external predictions (--predictions), the
// probes' answers (--probe) or both, with the length rule, without
// training.
func importPredictions(a *app, seeds []corpus.Seed, predPath, out string, opt evaluate.Options, probe *prober, asJSON bool) error {
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
		recs, err := probe.run(a, seeds, infos, out)
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
	return finishEvaluate(a, out, r, asJSON)
}

func finishEvaluate(a *app, out string, r *evaluate.Report, asJSON bool) error {
	if err := os.WriteFile(filepath.Join(out, "evaluation.md"), []byte(r.Markdown()), 0o644); err != nil {
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
		fmt.Fprintf(a.stderr, "benchforge: warning: not measured: %s\n", s)
	}
	if asJSON {
		return writeJSON(a.stdout, r)
	}
	fmt.Fprintf(a.stdout, "reports in %s\n\n", out)
	printSmallSamples(a.stdout, r.SmallSamples())
	return writeReportTables(a.stdout, append([]*report.Table{r.FoldTable(), r.IsolatedTable(), r.PairTable(), r.SweepTable()}, r.ProbeTables()...)...)
}
