package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/audit/pipeline"
	"github.com/benchforge/benchforge/internal/audit/refindex"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo"
	"github.com/benchforge/benchforge/internal/llm"
	_ "github.com/benchforge/benchforge/internal/llm/providers" // model providers
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/runkey"
)

// recheckUsage is the help of --recheck in every resumable command.
const recheckUsage = "redo finished records on resume: unknown (records whose cause may be gone: no clone, missing commit, failed service; also done by default) or all"

type auditRunOptions struct {
	bench                                benchmarkFlags
	repos                                repoFlags
	model, reference, index, cutoff, out string
	noBaselines, asJSON                  bool
	recheck                              string
	seed                                 uint64
	failOn                               float64
	p                                    pipeline.Options
	modelFlags
}

func newAuditRunCmd(a *app) *cobra.Command {
	var o auditRunOptions
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Full audit: Stage I per repository, Stage II per sample, combined verdicts, clean subset, report",
		Long: `run audits a benchmark for one target model (benchchecker §3): Stage I
(repository presence by black-box probing) once per repository at its
cutoff snapshot, Stage II (patch presence) once per sample, and
contaminated = repository present ∧ patch present. With a model that
returns log-probabilities the Loss, Zlib, Min-K% and Ref baselines are
computed too (--no-baselines to skip).

--out receives repos.jsonl, probes.jsonl, patch.jsonl, baselines.jsonl,
verdicts.jsonl, clean.jsonl (the benchmark minus contaminated samples, in
the input's own JSONL lines; generic Sample JSONL for a Defects4J
directory), manifest.json and report.html. Everything is resumable: rerun
the same command after an interruption, an unavailable endpoint or
--max-cost, and finished records are replayed without model calls.

Models are llm specs: openai:NAME[@URL] (any OpenAI-compatible server,
e.g. 'benchforge lm serve'), anthropic:NAME. --reference-model scores
context-independence and the Ref baseline; --reference-index (from
'benchforge index build') gives distinctiveness. Without them those
filters are off and the manifest says so.`,
		Example: `  benchforge lm serve --model jdk.bfng --addr 127.0.0.1:8088 &
  benchforge audit run --benchmark bench.jsonl --repos clones/ \
      --model openai:jdk@http://127.0.0.1:8088/v1 --cutoff 2023-09-01 \
      --reference-index ref.idx --out audit/`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runAuditRun(a, o) },
	}
	f := cmd.Flags()
	o.bench.add(f, true)
	o.repos.add(f, true)
	f.StringVar(&o.model, "model", "", "target model spec (required)")
	f.StringVar(&o.reference, "reference-model", "auto", "reference model spec (context-independence, Ref baseline); auto: the built-in n-gram model trained once on this machine's JDK sources and Python library; none: filter off")
	f.StringVar(&o.index, "reference-index", "auto", "reference index file (distinctiveness); auto: built once from this machine's JDK sources and Python library; none: filter off")
	f.StringVar(&o.cutoff, "cutoff", "", "the target model's training cutoff: 2023-09-01, 2023-09 or RFC 3339 (required)")
	f.Float64Var(&o.p.Alpha, "alpha", 0.05, "significance level of the repository presence test")
	f.Float64Var(&o.p.P0, "p0", 0, "null hit probability (0: per-language default, Java 0.2, Python 0.08)")
	f.Float64Var(&o.p.MaxRepoFrac, "max-repo-frac", 0, "distinctive targets are in at most this share of reference repositories (0: 0.01)")
	f.Float64Var(&o.p.MinEntropy, "min-entropy", 0, "context-independence: least target entropy in nats (0: 2.0)")
	f.IntVar(&o.p.MaxQueries, "max-queries", 0, "signature snippets per repository (0: 300)")
	f.IntVar(&o.p.Samples, "samples", 0, "candidates per query, k (0: 10)")
	f.IntVar(&o.p.MaxTokens, "max-tokens", 0, "tokens per candidate (0: 8)")
	f.Float64Var(&o.p.Temperature, "temperature", 1, "sampling temperature of the probes (benchchecker §5.5: 1.0)")
	f.Uint64Var(&o.seed, "seed", 1, "seed for query selection and sampling")
	f.BoolVar(&o.p.FixedN, "fixed-n", false, "probe every selected query and report Eq. 5's p-value, instead of stopping early with an always-valid p-value")
	f.IntVar(&o.p.MaxFiles, "max-files", 0, "source files mined per snapshot (0: 4000)")
	f.Float64Var(&o.p.Patch.Threshold, "threshold", 0.7, "Stage II line similarity threshold")
	f.IntVar(&o.p.Workers, "workers", 2, "Stage II samples checked in parallel")
	f.BoolVar(&o.noBaselines, "no-baselines", false, "skip the logit baselines")
	o.modelFlags.add(f)
	f.StringVar(&o.out, "out", "", "output directory (required)")
	f.StringVar(&o.recheck, "recheck", "", recheckUsage)
	f.Float64Var(&o.failOn, "fail-on-contaminated", -1, "CI gate: exit 8 when the share of contaminated samples exceeds this rate in [0, 1] (all outputs are still written; negative: off)")
	addJSON(f, &o.asJSON)
	return cmd
}

func runAuditRun(a *app, o auditRunOptions) error {
	p, err := o.pipelineOptions()
	if err != nil {
		return fmt.Errorf("audit run: %w", err)
	}
	sess, err := o.modelFlags.session()
	if err != nil {
		return fmt.Errorf("audit run: %w", err)
	}
	defer sess.Close()
	p.LLMManifest = sess.Manifest
	if err := o.openModels(a, sess, &p); err != nil {
		return fmt.Errorf("audit run: %w", err)
	}
	res, err := o.repos.resolver()
	if err != nil {
		return fmt.Errorf("audit run: %w", err)
	}
	defer res.Close()
	p.Source = res
	// The text summary's repository table is built from the same
	// repo_verdict records the --json stream carries.
	repos := &output.Collect{}
	h := output.Multi(repos, a.stream("audit run", o.asJSON, func(w io.Writer, s output.Summary) error {
		return printAuditRun(w, o.out, s.Value.(pipeline.Manifest), repos.Records(pipeline.KindRepoVerdict))
	}))
	p.Output = h
	out, err := pipeline.Run(a.ctx, p)
	if err != nil {
		return fmt.Errorf("audit run: %w", err)
	}
	if err := h.Summary(output.Summary{Kind: pipeline.KindRun, Value: out.Manifest}); err != nil {
		return err
	}
	return contaminatedGate(out.Manifest.Counts, o.failOn)
}

// checkUsage checks the required flags and --alpha.
func (o auditRunOptions) checkUsage() error {
	if o.bench.file == "" || o.model == "" || o.cutoff == "" || o.out == "" {
		return fmt.Errorf("--benchmark, --model, --cutoff and --out are required: %w", errs.ErrUsage)
	}
	if o.p.Alpha <= 0 || o.p.Alpha >= 1 {
		return fmt.Errorf("--alpha %v must be strictly between 0 and 1: %w", o.p.Alpha, errs.ErrUsage)
	}
	return nil
}

// pipelineOptions checks the flags that need no model and sets them on
// the pipeline's options.
func (o auditRunOptions) pipelineOptions() (pipeline.Options, error) {
	p := o.p
	if err := o.checkUsage(); err != nil {
		return p, err
	}
	cutoff, err := gitrepo.ParseTime(o.cutoff)
	if err != nil {
		return p, fmt.Errorf("--cutoff: %w", err)
	}
	format, err := o.bench.parseFormat()
	if err != nil {
		return p, err
	}
	if o.failOn > 1 {
		return p, fmt.Errorf("--fail-on-contaminated %v: want a share in [0, 1], e.g. 0.05: %w", o.failOn, errs.ErrUsage)
	}
	if p.Recheck, err = runkey.ParseRecheck(o.recheck); err != nil {
		return p, err
	}
	p.Seed = int64(o.seed)
	p.Benchmark, p.Format, p.Strict, p.Cutoff, p.OutDir = o.bench.file, format, o.bench.strict, cutoff, o.out
	p.Baselines = !o.noBaselines
	p.Patch.NoTests = true
	return p, nil
}

// resolveAuto replaces "auto" in --reference-model and --reference-index
// by the offline reference, built once.
func (o *auditRunOptions) resolveAuto(a *app) error {
	if o.reference != "auto" && o.index != "auto" {
		return nil
	}
	rf, err := defaultReference(a)
	if err != nil {
		return fmt.Errorf("the offline reference (--reference-model auto / --reference-index auto): %w", err)
	}
	if o.reference == "auto" {
		o.reference = "ngram:" + rf.Model
	}
	if o.index == "auto" {
		o.index = rf.Index
	}
	return nil
}

// openModels opens the target, the reference model and the reference
// index ("auto": the offline ones, built once; "none": off).
func (o *auditRunOptions) openModels(a *app, sess *llm.Session, p *pipeline.Options) error {
	var err error
	if p.Target, err = sess.Open(o.model); err != nil {
		return fmt.Errorf("--model %s: %w", o.model, err)
	}
	if err := o.resolveAuto(a); err != nil {
		return err
	}
	if o.reference != "" && o.reference != "none" {
		if p.Reference, err = sess.Open(o.reference); err != nil {
			return fmt.Errorf("--reference-model %s: %w", o.reference, err)
		}
	}
	if o.index == "" || o.index == "none" {
		return nil
	}
	ix, err := refindex.Load(o.index)
	if err != nil {
		return fmt.Errorf("--reference-index: %w", err)
	}
	p.Index, p.IndexID = ix, o.index
	return nil
}

// contaminatedGate is --fail-on-contaminated: an error wrapping
// errs.ErrFindings (exit 8) when the contaminated share exceeds rate.
func contaminatedGate(c pipeline.Counts, rate float64) error {
	if rate < 0 || c.Samples == 0 {
		return nil
	}
	share := float64(c.Contaminated) / float64(c.Samples)
	if share <= rate {
		return nil
	}
	return fmt.Errorf("audit run: %d of %d samples contaminated (%.1f%%), above --fail-on-contaminated %g: %w",
		c.Contaminated, c.Samples, 100*share, rate, errs.ErrFindings)
}

// printAuditRun is the text summary of `audit run`; repos are the run's
// repo_verdict records.
func printAuditRun(w io.Writer, dir string, m pipeline.Manifest, repos []any) error {
	c := m.Counts
	fmt.Fprintf(w, "audit run: %d samples in %d repositories, model %s, cutoff %s (%.1fs)\n", c.Samples, c.Repos, m.Model, m.Cutoff, m.WallSeconds)
	fmt.Fprintf(w, "contaminated %d  clean %d (flagged %d)\n", c.Contaminated, c.Clean, c.Flagged)
	fmt.Fprintf(w, "records: %s\n", recordCounts(m))
	fmt.Fprintf(w, "repositories: present %d  absent %d  insufficient %d  no local clone %d\n", c.RepoPresent, c.RepoAbsent, c.RepoInsufficient, c.RepoNoClone)
	fmt.Fprintf(w, "patches: present %d  absent %d  unknown %d  not_applicable %d\n", c.PatchPresent, c.PatchAbsent, c.PatchUnknown, c.PatchNA)
	t := output.Table{Header: []string{"REPOSITORY", "VERDICT", "P-VALUE", "P-VALUE KIND", "PROBED/QUERIES", "STOPPED EARLY", "HITS", "WEIGHTED HITS", "CALLS", "SAVED", "REASON"}}
	for _, v := range repos {
		rr := v.(*pipeline.RepoRecord)
		early := "no"
		if rr.StoppedEarly {
			early = "yes"
		}
		kind := rr.PValueKind
		if kind == "" {
			kind = "-"
		}
		t.Add(rr.Repo, rr.Verdict, fmt.Sprintf("%.3g", rr.PValue), kind, fmt.Sprintf("%d/%d", rr.Probed, rr.Queries), early,
			rr.Hits, fmt.Sprintf("%.2f", rr.WeightedHits), rr.Calls, rr.CallsSaved, rr.Reason)
	}
	if err := t.Write(w); err != nil {
		return err
	}
	if m.LLM != nil {
		fmt.Fprintf(w, "model calls %d, cache hits %d, cost $%.4f\n", m.LLM.Calls, m.LLM.CacheHits, m.LLM.CostUSD)
	}
	for _, n := range m.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	fmt.Fprintf(w, "wrote %s/{%s,%s,%s,%s}\n", dir, pipeline.FileVerdicts, pipeline.FileClean, pipeline.FileManifest, pipeline.FileReport)
	return nil
}

// recordCounts says, per file, how many records were reused, redone and
// newly written.
func recordCounts(m pipeline.Manifest) string {
	var parts []string
	for _, f := range []string{pipeline.FilePatch, pipeline.FileRepos, pipeline.FileBaselines} {
		if m.Resumed[f]+m.Rechecked[f]+m.Written[f] == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %d reused, %d rechecked, %d written", f, m.Resumed[f], m.Rechecked[f], m.Written[f]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}

// defaultReference builds (once) or reuses the offline reference model and
// index under the user cache directory.
func defaultReference(a *app) (*pipeline.ReferenceFiles, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	src, err := refindex.DefaultSources(a.ctx)
	if err != nil {
		return nil, err
	}
	return pipeline.BuildReference(a.ctx, filepath.Join(dir, "benchforge", "reference"), src, func(msg string) {
		fmt.Fprintf(a.stderr, "audit run: %s\n", msg)
	})
}
