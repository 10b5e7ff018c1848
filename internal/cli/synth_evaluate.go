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
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/evaluate"
)

func init() { synthSubcommands = append(synthSubcommands, newSynthEvaluateCmd) }

func newSynthEvaluateCmd(a *app) *cobra.Command {
	var (
		corpusPath, seedsPath, predPath, out string
		runSeeds                             []uint
		sweep                                []int
		opt                                  evaluate.Options
		exportHF, renderOnly, asJSON         bool
	)
	cmd := &cobra.Command{
		Use:   "evaluate --corpus FILE --seeds FILE --out DIR",
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
training; --render-only re-renders DIR/evaluation.json.`,
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
			if seedsPath == "" || (corpusPath == "" && predPath == "") {
				return fmt.Errorf("%w: --seeds FILE and --corpus FILE (or --predictions FILE) are required (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
			}
			seeds, err := jsonl.ReadFile[corpus.Seed](seedsPath)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return fmt.Errorf("synth evaluate: %w", err)
			}
			if predPath != "" {
				return importPredictions(a, seeds, predPath, out, opt, asJSON)
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
			if err := writeFileJSON(filepath.Join(out, "evaluation.json"), res.Report); err != nil {
				return err
			}
			return finishEvaluate(a, out, res.Report, asJSON)
		},
	}
	f := cmd.Flags()
	f.StringVar(&corpusPath, "corpus", "", "synthetic pairs JSONL (corpus.Pair records)")
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
	return cmd
}

func importPredictions(a *app, seeds []corpus.Seed, predPath, out string, opt evaluate.Options, asJSON bool) error {
	raw, err := jsonl.ReadFile[evaluate.Prediction](predPath)
	if err != nil {
		return err
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
	r, err := evaluate.Analyze(a.ctx, preds, infos, evaluate.AnalyzeOptions{Bootstrap: opt.Bootstrap})
	if err != nil {
		return err
	}
	r.Config.Bootstrap, r.Config.Conf = opt.Bootstrap, 0.95
	r.Data = evaluate.DataSummary{Seeds: len(seeds), MeasuredSeeds: len(infos), Skipped: skipped}
	if err := writeFileJSON(filepath.Join(out, "evaluation.json"), r); err != nil {
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
	return writeReportTables(a.stdout, r.FoldTable(), r.IsolatedTable(), r.PairTable(), r.SweepTable())
}
