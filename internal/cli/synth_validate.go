package cli

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/llm"
	_ "github.com/benchforge/benchforge/internal/llm/providers" // judge and repair providers
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/runkey"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/judge"
)

// validateOptions are the flags of `synth validate`.
type validateOptions struct {
	candidates, judgeSpec, repairSpec, out, rubric string
	retryFlags
	cacheDir, keyFile, recheck string
	noCache, asJSON            bool
	workers, maxTokens         int
	maxCost, iseMax            float64
}

// validateJSON is the synth_validate summary of `synth validate`.
type validateJSON struct {
	*judge.Summary
	Out      string        `json:"out"`
	Manifest *llm.Manifest `json:"manifest"`
}

func newSynthValidateCmd(a *app) *cobra.Command {
	var o validateOptions
	cmd := &cobra.Command{
		Use:   "validate --candidates FILE --judge SPEC [--repair-with SPEC] --out DIR",
		Short: "Judge candidate pairs with the patch-anchored two-stage judge and one fix-only repair (rxsynth §5.1–5.3)",
		Long: `validate judges every candidate pair (corpus.Pair JSONL, e.g. the pairs.jsonl
of 'synth generate' / 'synth gate') under the patch-anchored criterion:
Stage 1 localises a patch-local risk of the labelled exception T with a
throwing expression and a concrete trigger; Stage 2 asks whether that
trigger still reaches T at that site in the fixed method. A pair is
accepted iff Stage 1 confirms and Stage 2 confirms removal. A Stage 1
failure rejects the pair; a Stage 2 failure gets exactly one fix-only
regeneration by --repair-with (buggy method unchanged), gated (one method,
same signature) and re-judged once.

DIR/judgements.jsonl is append-only and keyed by pair id: rerunning the same
command resumes a killed run without judging a pair twice. Model answers are
cached (--cache-dir), so a rerun into a fresh DIR costs nothing.
DIR/core.jsonl (accepted pairs with judge metadata and release flags),
DIR/excluded.jsonl (category and reason), DIR/validation.json and
DIR/validation.md (Table 7) and DIR/manifest.json (model calls, tokens,
cost) are rewritten on every run.

--rubric whole-method judges existential throwability instead (can the buggy
method throw T anywhere, can the fixed one not; §5.2), for comparison with
'synth agree'; it has no repair.

Model specs: openai:MODEL[@BASE_URL], anthropic:MODEL, ... (keys from
OPENAI_API_KEY / ANTHROPIC_API_KEY or --key-file; loopback URLs need none).`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runSynthValidate(a, cmd, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.candidates, "candidates", "", "candidate pairs JSONL (corpus.Pair records)")
	f.StringVar(&o.judgeSpec, "judge", "", "judge model spec, e.g. openai:gpt-4.1-mini")
	f.StringVar(&o.repairSpec, "repair-with", "", "model spec regenerating the fix once after a Stage 2 rejection (none: no repair)")
	f.StringVar(&o.out, "out", "", "output directory (one validation pass per directory)")
	f.StringVar(&o.rubric, "rubric", judge.RubricPatch, "rubric: patch-anchored or whole-method")
	f.IntVar(&o.workers, "workers", 4, "pairs judged concurrently")
	f.IntVar(&o.maxTokens, "max-tokens", 1024, "largest judge answer, in tokens")
	f.Float64Var(&o.iseMax, "ise-max-confidence", judge.DefaultISEMaxConfidence, "flag accepted IllegalStateException pairs with judge confidence at most this (1: all, as rxsynth §8.1)")
	f.StringVar(&o.cacheDir, "cache-dir", "", "model answer cache directory (default: the user cache directory)")
	f.BoolVar(&o.noCache, "no-cache", false, "do not cache model answers")
	f.Float64Var(&o.maxCost, "max-cost", 0, "stop before spending more than this many US dollars (0: no limit)")
	f.StringVar(&o.keyFile, "key-file", "", "file holding the API key (default: the provider's environment variable)")
	o.retryFlags.add(f)
	f.BoolVar(&o.asJSON, "json", false, jsonUsage)
	f.StringVar(&o.recheck, "recheck", "", recheckUsage)
	return cmd
}

func runSynthValidate(a *app, cmd *cobra.Command, o validateOptions) error {
	if err := checkValidateFlags(cmd, o); err != nil {
		return err
	}
	pairs, err := jsonl.ReadFile[corpus.Pair](o.candidates)
	if err != nil {
		return fmt.Errorf("synth validate: --candidates: %w", err)
	}
	sess, j, err := openValidateJudge(o)
	if err != nil {
		return err
	}
	defer sess.Close()
	recheck, err := runkey.ParseRecheck(o.recheck)
	if err != nil {
		return fmt.Errorf("synth validate: %w", err)
	}
	h := a.stream("synth validate", o.asJSON, renderAs(printValidate))
	ropts := judge.RunOptions{Workers: o.workers, ISEMaxConfidence: &o.iseMax, Recheck: recheck, Progress: progressFunc(h, "judge")}
	sum, runErr := judge.Run(a.ctx, j, pairs, o.out, ropts)
	man := sess.Manifest()
	if err := sess.WriteManifest(filepath.Join(o.out, "manifest.json")); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return runErr
	}
	if err := warnAll(h, sum.Warnings...); err != nil {
		return err
	}
	return h.Summary(output.Summary{Kind: "synth_validate", Value: validateJSON{Summary: sum, Out: o.out, Manifest: &man}})
}

// checkValidateFlags refuses flag combinations that have no meaning.
func checkValidateFlags(cmd *cobra.Command, o validateOptions) error {
	if o.candidates == "" || o.judgeSpec == "" || o.out == "" {
		return fmt.Errorf("synth validate: %w: --candidates, --judge and --out are required (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
	}
	if o.rubric == judge.RubricWhole && o.repairSpec != "" {
		return fmt.Errorf("synth validate: %w: --repair-with belongs to the %s rubric; drop it with --rubric %s", errs.ErrUsage, judge.RubricPatch, judge.RubricWhole)
	}
	if o.iseMax < 0 || o.iseMax > 1 {
		return fmt.Errorf("synth validate: %w: --ise-max-confidence must be in [0, 1], got %g", errs.ErrUsage, o.iseMax)
	}
	return nil
}

// openValidateJudge opens the judge (and repair) models through one
// cached, budgeted session and checks that o.out holds a pass of the same
// settings; the caller closes the session.
func openValidateJudge(o validateOptions) (*llm.Session, *judge.Judge, error) {
	so, err := o.retryFlags.apply(llm.SessionOptions{CacheDir: o.cacheDir, NoCache: o.noCache, MaxCost: o.maxCost,
		Provider: llm.Options{KeyFile: o.keyFile}})
	if err != nil {
		return nil, nil, err
	}
	sess, err := llm.NewSession(so)
	if err != nil {
		return nil, nil, fmt.Errorf("synth validate: %w", err)
	}
	j, err := newValidateJudge(sess, o)
	if err != nil {
		sess.Close()
		return nil, nil, err
	}
	return sess, j, nil
}

func newValidateJudge(sess *llm.Session, o validateOptions) (*judge.Judge, error) {
	jm, err := sess.Open(o.judgeSpec)
	if err != nil {
		return nil, fmt.Errorf("synth validate: --judge: %w", err)
	}
	var rm llm.Model
	repair := ""
	if o.repairSpec != "" {
		if rm, err = sess.Open(o.repairSpec); err != nil {
			return nil, fmt.Errorf("synth validate: --repair-with: %w", err)
		}
		repair = rm.ID()
	}
	j, err := judge.New(jm, rm, judge.Options{Rubric: o.rubric, MaxTokens: o.maxTokens})
	if err != nil {
		return nil, fmt.Errorf("synth validate: %w", err)
	}
	// One directory holds one pass: the settings that decide a judgement.
	if err := runkey.CheckPass(filepath.Join(o.out, judge.JudgementsFile), "--out", runkey.Settings{
		"judge": jm.ID(), "rubric": o.rubric, "repair_with": repair, "max_tokens": o.maxTokens,
		"prompt_version": judge.PromptVersion, "prompt_hash": judge.PromptHash(o.rubric),
	}); err != nil {
		return nil, fmt.Errorf("synth validate: %w", err)
	}
	return j, nil
}

// printValidate prints Table 7 (per type, initial and final validity),
// the exclusion categories, the release flags and where the partitions
// went.
func printValidate(w io.Writer, v validateJSON) error {
	sum, man := v.Summary, v.Manifest
	fmt.Fprintf(w, "judge %s (%s rubric, prompts %s): %d pairs, %d judged now, %d from an earlier run; %d model calls, %d cache hits, $%.4f\n\n",
		sum.Model, sum.Rubric, judge.PromptVersion, sum.Submitted, sum.JudgedNow, sum.Resumed, man.Calls, man.CacheHits, man.CostUSD)
	t := output.Table{Header: []string{"type", "judged", "stage1", "initial", "%", "repair cand.", "repair acc.", "unparseable", "excl.", "final", "%", "95% CI"}}
	for _, r := range append(sum.Table.Rows, sum.Table.Total) {
		t.Add(r.Type, r.Judged, r.Stage1Pass, r.InitialValid, fmt.Sprintf("%.1f", 100*r.InitialRate), r.RepairCandidates,
			r.RepairAccepted, r.Unparseable, r.Excluded, r.Final, fmt.Sprintf("%.1f", 100*r.FinalRate), r.CIString())
	}
	if err := t.Write(w); err != nil {
		return err
	}
	if len(sum.Categories) > 0 {
		fmt.Fprintln(w)
		ct := output.Table{Header: []string{"excluded as", "pairs"}}
		for _, c := range sum.Categories {
			ct.Add(c.Category, c.Count)
		}
		if err := ct.Write(w); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\nflags: ise_low_confidence %d (confidence ≤ %g), fix_introduces_label %d\n", sum.Flags.ISELowConfidence, sum.Flags.ISEMaxConfidence, sum.Flags.FixIntroducesLabel)
	_, err := fmt.Fprintf(w, "core %d → %s, excluded %d → %s\n", sum.Core, filepath.Join(v.Out, judge.CoreFile), sum.Excluded, filepath.Join(v.Out, judge.ExcludedFile))
	return err
}
