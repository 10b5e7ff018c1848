package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
	_ "github.com/benchforge/benchforge/internal/llm/providers" // openai:, anthropic:
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/runkey"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/fidelity"
	"github.com/benchforge/benchforge/internal/synth/gate"
	"github.com/benchforge/benchforge/internal/synth/generate"
	"github.com/benchforge/benchforge/internal/synth/generate/grounded"
	"github.com/benchforge/benchforge/internal/synth/generate/llmgen"
	"github.com/benchforge/benchforge/internal/synth/generate/mutation"
	"github.com/benchforge/benchforge/internal/synth/generate/zeroshot"
	"github.com/benchforge/benchforge/internal/synth/jvm"
)

// generateJSON is the value of the synth_generate summary.
type generateJSON struct {
	Generator string                  `json:"generator"`
	Corpus    string                  `json:"corpus"`
	Stats     *generate.Stats         `json:"stats"`
	Patterns  []mutation.PatternCount `json:"seed_patterns"`
	Gate      *gate.Result            `json:"gate"`
	Out       string                  `json:"out"`
	Manifest  *llm.Manifest           `json:"manifest,omitempty"`
}

// Generation modes of a model-backed generator.
const (
	modeGrounded = "seed-grounded"
	modeZeroShot = "zero-shot"
)

// modelGenFlags are the flags of the model-backed generators, shared with
// `synth screen`.
type modelGenFlags struct {
	workers, batch, maxTokens int
	temperature, topP         float64
	providerDefaults          bool
	pairShare                 float64
	retryFlags
	cacheDir, keyFile string
	noCache           bool
	maxCost           float64
}

func addModelGenFlags(cmd *cobra.Command, o *modelGenFlags) {
	f := cmd.Flags()
	f.IntVar(&o.workers, "workers", 4, "model calls in flight (model generators)")
	f.IntVar(&o.batch, "batch", 0, "prompts per resumable chunk (default 2×workers)")
	f.IntVar(&o.maxTokens, "max-tokens", 4096, "largest model answer, in tokens (rxsynth §4.2: 4,096)")
	f.Float64Var(&o.temperature, "temperature", 0.9, "sampling temperature (rxsynth §4.2: 0.9)")
	f.Float64Var(&o.topP, "top-p", 0.9, "nucleus sampling top-p (rxsynth §4.2: 0.9)")
	f.BoolVar(&o.providerDefaults, "provider-defaults", false, "send no temperature/top-p: the provider's default sampling (rxsynth §4.3)")
	f.Float64Var(&o.pairShare, "pair-share", 0, "share of seed-grounded prompts with k=2 exemplars (default 0.74; negative: k=1 only)")
	f.StringVar(&o.cacheDir, "cache-dir", "", "model answer cache directory (default: the user cache directory)")
	f.BoolVar(&o.noCache, "no-cache", false, "do not cache model answers (DIR/calls.jsonl still makes reruns free)")
	f.Float64Var(&o.maxCost, "max-cost", 0, "stop before spending more than this many US dollars (0: no limit); rerun to resume")
	f.StringVar(&o.keyFile, "key-file", "", "file holding the API key (default: the provider's environment variable)")
	o.retryFlags.add(f)
}

func (o modelGenFlags) session() (*llm.Session, error) {
	so, err := o.retryFlags.apply(llm.SessionOptions{CacheDir: o.cacheDir, NoCache: o.noCache, MaxCost: o.maxCost,
		Provider: llm.Options{KeyFile: o.keyFile}})
	if err != nil {
		return nil, err
	}
	return llm.NewSession(so)
}

func (o modelGenFlags) llmgenOptions(dir string, seed uint64, modelID string) llmgen.Options {
	return llmgen.Options{Dir: dir, Workers: o.workers, Batch: o.batch, MaxTokens: o.maxTokens, Temperature: o.temperature,
		TopP: o.topP, ProviderDefaults: o.providerDefaults, Seed: seed, ModelID: modelID}
}

// newModelGenerator builds the seed-grounded or zero-shot generator.
func newModelGenerator(m llm.Model, mode string, seed uint64, o modelGenFlags, gopts gate.Options, dir string) (*llmgen.Generator, error) {
	switch mode {
	case modeGrounded:
		return grounded.New(m, grounded.Options{Seed: seed, PairShare: o.pairShare, SizeTolerance: gopts.SizeTolerance, MinTarget: gopts.MinLLOC},
			o.llmgenOptions(dir, seed, ""))
	case modeZeroShot:
		return zeroshot.New(m, zeroshot.Options{Seed: seed}, o.llmgenOptions(dir, seed, ""))
	}
	return nil, fmt.Errorf("%w: --mode %q: want %s or %s", errs.ErrUsage, mode, modeGrounded, modeZeroShot)
}

// generateFlags are the flags of `synth generate`.
type generateFlags struct {
	genSpec, corpusPath, seedPath, out, types, repos string
	refPath                                          string
	ground                                           bool
	corpusPaths                                      []string
	perType                                          int
	seed                                             uint64
	mopts                                            mutation.Options
	gopts                                            gate.Options
	asJSON                                           bool
	mode                                             string
	mf                                               modelGenFlags
	total, floor, capN                               int
}

// synthGenerateLong is the help of `synth generate`.
const synthGenerateLong = `generate grows candidate pairs and runs the generation-time gates on them.

--generator mutation (offline, no API) mutates correct methods of a Java
source corpus (--corpus: a src.zip or directory; default the JDK's src.zip)
with the inverses of real fix patterns — removed null guard (NPE), removed or
loosened bounds check and off-by-one length (AIOOBE/SIOOBE), removed
NumberFormatException catch (NFE), removed instanceof guard (CCE), and an
unintended throw on a lenient argument (IAE) or state (ISE) branch — so the
fixed member of each pair is the original code; a removed parse guard
(NFE) and a removed Matcher state check (ISE) complete the seeds' repair
patterns. With --seeds, the seeds' fixes are classified into the same
patterns (the table is printed), and host methods are grounded (--ground,
default on): every pair the operators can make in the corpora is measured
on the seven structural metrics, and each seed of the fidelity reference
set (the upper-tail rule, or --reference-set) draws an equal share of its
nearest pairs of its type, within the gate's size band around its LLOC
(the size target), preferring the operator that inverts its own fix — so
the corpus follows the reference distribution per type. Each pair then
records the seed it was grounded on (example_bug_ids, source.seed).
--corpus may be repeated (one revision of each project); --total N splits
N over the types by the reference set's prevalence. --ground=false keeps
corpus order, with example_bug_ids listing the seeds of the pair's type
and pattern.

--generator MODEL-SPEC (openai:MODEL[@BASE_URL], anthropic:MODEL, or
ngram:FILE.bfng for the built-in n-gram LM, in-process) calls a model:
--mode seed-grounded (default; rxsynth §4.3, needs --seeds) shows one or two
real seed pairs of the type per prompt — k=2 by a shuffled queue of all seed
pairs, k=1 by LOC-stratified rotation — with their two-context diffs and an
exemplar-derived size target; --mode zero-shot (§4.1) prompts with
mechanism × trigger × context scaffolds and no exemplar (the contrast
corpus). With --total N, per-type quotas follow seed prevalence, clamped to
[--floor, --cap] (§4.4: 500 and 1,000). Every call (prompt, answer, prompt
hash, model, parameters, time) is appended to DIR/calls.jsonl, and the llm
manifest goes to DIR/manifest.json. --max-cost stops cleanly; rerunning the
same command resumes without paying twice.

DIR/candidates.jsonl and DIR/attempts.jsonl are append-only: rerunning the
same command resumes where a killed run stopped. The gates then rewrite
DIR/pairs.jsonl, DIR/rejections.jsonl and DIR/gate_summary.json (as
'synth gate' does).`

func newSynthGenerateCmd(a *app) *cobra.Command {
	f := &generateFlags{}
	cmd := &cobra.Command{
		Use:   "generate --generator mutation|MODEL-SPEC --out DIR",
		Short: "Generate candidate bug/fix pairs and gate them (rxsynth §4)",
		Long:  synthGenerateLong,
		Args:  usageArgs(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, args []string) error { return runSynthGenerate(a, cmd, f) },
	}
	f.addFlags(cmd)
	return cmd
}

// addFlags declares the flags of `synth generate` on cmd.
func (f *generateFlags) addFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVar(&f.genSpec, "generator", "mutation", "generator: mutation, or a model spec (openai:…, anthropic:…, ngram:FILE)")
	fl.StringVar(&f.mode, "mode", modeGrounded, "model generator mode: seed-grounded or zero-shot")
	fl.IntVar(&f.total, "total", 0, "model generators: total candidates split over the types by seed prevalence (0: --per-type each)")
	fl.IntVar(&f.floor, "floor", 500, "with --total: smallest per-type quota (rxsynth §4.4: 500)")
	fl.IntVar(&f.capN, "cap", 1000, "with --total: largest per-type quota, 0 for none (rxsynth §4.4: 1,000)")
	addModelGenFlags(cmd, &f.mf)
	fl.StringArrayVar(&f.corpusPaths, "corpus", nil, "Java sources to mutate: a src.zip, a directory, or REPO@REV of a clone under --repos (pairs then record repository, commit, path and method; test trees are skipped); repeat for several (default: the JDK's lib/src.zip)")
	fl.BoolVar(&f.ground, "ground", true, "with --seeds: choose host methods that follow the seed reference set's seven structural metrics per type (false: corpus order)")
	fl.StringVar(&f.refPath, "reference-set", "", "with --ground: file listing the seed bug_ids to follow (default: the fidelity upper-tail rule, as 'synth fidelity')")
	fl.StringVar(&f.repos, "repos", "", "directory of local clones (owner__name.git, owner+name/repo) for --corpus REPO@REV")
	fl.StringVar(&f.seedPath, "seeds", "", "real seed pairs JSONL (mined fix patterns, example_bug_ids, novelty gate)")
	fl.StringVar(&f.out, "out", "", "output directory")
	fl.StringVar(&f.types, "types", strings.Join(corpus.Types, ","), "exception types to generate, comma-separated")
	fl.IntVar(&f.perType, "per-type", 250, "candidates per exception type (before gating)")
	fl.Uint64Var(&f.seed, "seed", 1, "random seed: corpus order and mutation sites; exemplar and scaffold schedules")
	fl.BoolVar(&f.mopts.PublicOnly, "public-only", true, "mutate public methods only (grounded: default false, hosts of any visibility as the seeds, each seed preferring its own)")
	fl.IntVar(&f.mopts.MinLines, "min-lines", 0, "smallest method to mutate, in lines (0: 5, grounded 3)")
	fl.IntVar(&f.mopts.MaxLines, "max-lines", 0, "largest method to mutate, in lines (0: 60, grounded 300)")
	addJSON(fl, &f.asJSON)
	addGateFlags(cmd, &f.gopts)
}

// runSynthGenerate checks the flags and the resume key of --out, then
// runs the mutation or the model generator.
func runSynthGenerate(a *app, cmd *cobra.Command, f *generateFlags) error {
	quotas, err := checkGenerateFlags(cmd, f)
	if err != nil {
		return err
	}
	var seeds []corpus.Seed
	if f.seedPath != "" {
		if seeds, err = gate.ReadSeeds(f.seedPath); err != nil {
			return err
		}
	}
	isGrounded := f.genSpec == "mutation" && f.ground && len(seeds) > 0
	if isGrounded && !cmd.Flags().Changed("public-only") {
		// Grounded hosts are of any visibility, as the seeds are; each
		// seed prefers hosts of its own (mutation.DefaultVisibilityPenalty).
		f.mopts.PublicOnly = false
	}
	if err := runkey.CheckPass(filepath.Join(f.out, generate.CandidatesFile), "--out", generateSettings(f, isGrounded)); err != nil {
		return fmt.Errorf("synth generate: %w", err)
	}
	if f.genSpec != "mutation" {
		return runModelGenerate(a, modelGenRun{spec: f.genSpec, mode: f.mode, flags: f.mf, seed: f.seed, out: f.out, quotas: quotas,
			seeds: seeds, total: f.total, floor: f.floor, capN: f.capN, gopts: f.gopts, asJSON: f.asJSON})
	}
	return runMutationGenerate(a, cmd, f, quotas, seeds, isGrounded)
}

// checkGenerateFlags checks the flags every generator shares and returns
// the per-type quotas of --types and --per-type.
func checkGenerateFlags(cmd *cobra.Command, f *generateFlags) (map[string]int, error) {
	if f.out == "" {
		return nil, fmt.Errorf("%w: --out DIR is required (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
	}
	if f.perType < 0 {
		return nil, fmt.Errorf("%w: --per-type must be ≥ 0, got %d", errs.ErrUsage, f.perType)
	}
	if len(f.corpusPaths) > 0 {
		f.corpusPath = strings.Join(f.corpusPaths, ",")
	}
	quotas := map[string]int{}
	for _, t := range strings.Split(f.types, ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if !corpus.ValidType(t) {
			return nil, fmt.Errorf("%w: --types: %q is not one of %s", errs.ErrUsage, t, strings.Join(corpus.Types, ", "))
		}
		quotas[t] = f.perType
	}
	return quotas, nil
}

// generateSettings are the settings that decide a run's candidates: one
// directory holds candidates of one set of them (the gates rerun on every
// call).
func generateSettings(f *generateFlags, isGrounded bool) runkey.Settings {
	settings := runkey.Settings{"generator": f.genSpec, "seed": f.seed}
	if f.genSpec != "mutation" {
		settings["mode"], settings["max_tokens"], settings["temperature"] = f.mode, f.mf.maxTokens, f.mf.temperature
		settings["top_p"], settings["provider_defaults"], settings["pair_share"] = f.mf.topP, f.mf.providerDefaults, f.mf.pairShare
		return settings
	}
	settings["corpus"], settings["min_lines"], settings["max_lines"] = f.corpusPath, f.mopts.MinLines, f.mopts.MaxLines
	settings["chunk_files"], settings["public_only"] = f.mopts.ChunkFiles, f.mopts.PublicOnly
	if isGrounded {
		settings["ground"], settings["reference_set"], settings["seeds"] = true, f.refPath, f.seedPath
	}
	return settings
}

// generateSummary is the synth_generate summary: generateJSON, and for
// the text tables the quotas and whether seeds were given.
type generateSummary struct {
	generateJSON
	quotas    map[string]int
	withSeeds bool
}

// runMutationGenerate mutates the corpora, gates the candidates and
// reports a synth_generate summary; each chunk is a progress message.
func runMutationGenerate(a *app, cmd *cobra.Command, f *generateFlags, quotas map[string]int, seeds []corpus.Seed, isGrounded bool) error {
	mopts, err := mutationOptions(a, cmd, f, quotas, seeds, isGrounded)
	if err != nil {
		return err
	}
	g, err := mutation.New(mopts)
	if err != nil {
		return err
	}
	defer g.Close()
	h := a.stream("synth generate", f.asJSON, renderAs(printGenerate))
	ropts := generate.RunOptions{Dir: f.out, PerType: quotas, Seeds: seeds, Progress: func(chunk int, _ map[string]int) {
		// The chunk count is known: a bar on a terminal. A handler error
		// cannot stop generate.Run; it resurfaces at the summary.
		_ = h.Progress(output.Progress{Step: "chunks", Done: chunk + 1, Total: g.Chunks()})
	}}
	st, err := generate.Run(a.ctx, g, ropts)
	if err != nil {
		return err
	}
	if err := warnAll(h, st.Warnings...); err != nil {
		return err
	}
	res, err := gateGenerated(a, f.out, seeds, f.gopts)
	if err != nil {
		return err
	}
	patterns := mutation.MinePatterns(seeds)
	if patterns == nil {
		patterns = []mutation.PatternCount{}
	}
	v := generateJSON{Generator: g.ID(), Corpus: g.CorpusPath(), Stats: st, Patterns: patterns, Gate: res, Out: f.out}
	return h.Summary(output.Summary{Kind: "synth_generate", Value: generateSummary{generateJSON: v, quotas: quotas, withSeeds: len(seeds) > 0}})
}

// mutationOptions resolves the corpora and, when grounded, the grounding
// and the --total split of quotas (which it updates in place).
func mutationOptions(a *app, cmd *cobra.Command, f *generateFlags, quotas map[string]int, seeds []corpus.Seed, isGrounded bool) (mutation.Options, error) {
	mopts := f.mopts
	mopts.Seed = f.seed
	if !isGrounded && f.total > 0 {
		return mopts, fmt.Errorf("%w: --total with --generator mutation splits by the seeds' prevalence and needs --seeds (and grounding)", errs.ErrUsage)
	}
	for _, c := range f.corpusPaths {
		spec, err := resolveCorpusRevision(a, c, f.repos)
		if err != nil {
			return mopts, err
		}
		mopts.Corpora = append(mopts.Corpora, spec)
	}
	if !isGrounded {
		return mopts, nil
	}
	gr, err := groundingFor(seeds, f.refPath, f.gopts)
	if err != nil {
		return mopts, err
	}
	mopts.Ground = gr
	if f.total > 0 {
		splitGroundedTotal(cmd, f, gr, quotas)
	}
	return mopts, nil
}

// splitGroundedTotal splits --total over quotas' types. Table 10 pools
// the types by the reference set's mix, so the corpus follows that mix
// too; --floor/--cap only when given.
func splitGroundedTotal(cmd *cobra.Command, f *generateFlags, gr *mutation.Grounding, quotas map[string]int) {
	fl, cp := 0, 0
	if cmd.Flags().Changed("floor") {
		fl = f.floor
	}
	if cmd.Flags().Changed("cap") {
		cp = f.capN
	}
	by := grounded.Targets(gr.Reference, f.total, fl, cp)
	for t := range quotas {
		quotas[t] = by[t]
	}
}

// gateGenerated runs the gates over every candidate in out and rewrites
// the gate's outputs there.
func gateGenerated(a *app, out string, seeds []corpus.Seed, gopts gate.Options) (*gate.Result, error) {
	cands, err := gate.ReadCandidates(filepath.Join(out, generate.CandidatesFile))
	if err != nil {
		return nil, err
	}
	res, err := gate.Run(a.ctx, cands, seeds, gopts)
	if err != nil {
		return nil, err
	}
	return res, gate.WriteOutputs(out, res)
}

// modelGenRun is one `synth generate` run with a model-backed generator.
type modelGenRun struct {
	spec, mode, out    string
	flags              modelGenFlags
	seed               uint64
	quotas             map[string]int
	seeds              []corpus.Seed
	total, floor, capN int
	gopts              gate.Options
	asJSON             bool
}

// checkModelGenRun checks the model generator's flags and applies the
// --total split to r.quotas.
func checkModelGenRun(r modelGenRun) error {
	if r.mode == modeGrounded && len(r.seeds) == 0 {
		return fmt.Errorf("synth generate: %w: --mode %s needs --seeds FILE (its exemplars); use --mode %s for prompts without exemplars", errs.ErrUsage, modeGrounded, modeZeroShot)
	}
	if r.total < 0 || r.floor < 0 || r.capN < 0 {
		return fmt.Errorf("synth generate: %w: --total, --floor and --cap must be ≥ 0", errs.ErrUsage)
	}
	if r.total == 0 {
		return nil
	}
	if r.mode == modeZeroShot && len(r.seeds) == 0 {
		return fmt.Errorf("synth generate: %w: --total splits by seed prevalence and needs --seeds FILE", errs.ErrUsage)
	}
	by := grounded.Targets(r.seeds, r.total, r.floor, r.capN)
	for t := range r.quotas {
		r.quotas[t] = by[t]
	}
	return nil
}

// runModelGenerate calls the model, gates the candidates and reports a
// synth_generate summary with the llm manifest; each chunk is a progress
// message with the spend so far.
func runModelGenerate(a *app, r modelGenRun) error {
	if err := checkModelGenRun(r); err != nil {
		return err
	}
	sess, err := r.flags.session()
	if err != nil {
		return fmt.Errorf("synth generate: %w", err)
	}
	defer sess.Close()
	m, err := sess.Open(r.spec)
	if err != nil {
		return fmt.Errorf("synth generate: --generator: %w", err)
	}
	g, err := newModelGenerator(m, r.mode, r.seed, r.flags, r.gopts, r.out)
	if err != nil {
		return fmt.Errorf("synth generate: %w", err)
	}
	defer g.Close()
	h := a.stream("synth generate", r.asJSON, renderAs(printGenerate))
	ropts := generate.RunOptions{Dir: r.out, PerType: r.quotas, Seeds: r.seeds, Progress: func(chunk int, have map[string]int) {
		// The number of chunks is not known ahead (rejected answers are
		// asked again): a line per chunk, with the spend to watch. A
		// handler error resurfaces at the summary.
		_ = h.Progress(output.Progress{Step: "chunks", Done: chunk + 1, Message: fmt.Sprintf("%d candidates, $%.4f", sumCounts(have), sess.Spent())})
	}}
	st, runErr := generate.Run(a.ctx, g, ropts)
	man := sess.Manifest()
	if err := sess.WriteManifest(filepath.Join(r.out, "manifest.json")); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return runErr
	}
	if err := warnAll(h, append(g.Warnings(), st.Warnings...)...); err != nil {
		return err
	}
	res, err := gateGenerated(a, r.out, r.seeds, r.gopts)
	if err != nil {
		return err
	}
	v := generateJSON{Generator: g.ID(), Stats: st, Patterns: []mutation.PatternCount{}, Gate: res, Out: r.out, Manifest: &man}
	return h.Summary(output.Summary{Kind: "synth_generate", Value: generateSummary{generateJSON: v, quotas: r.quotas}})
}

func sumCounts(have map[string]int) int {
	n := 0
	for _, v := range have {
		n += v
	}
	return n
}

// printGenerate renders the synth_generate summary: the run's header, the
// seeds' fix patterns (mutation with --seeds), the candidates per type
// (with their quotas for a model) and the gate's tables.
func printGenerate(w io.Writer, s generateSummary) error {
	st := s.Stats
	ct := output.Table{Header: []string{"type", "candidates"}}
	if man := s.Manifest; man != nil {
		fmt.Fprintf(w, "generator %s: %d new candidates, %d from an earlier run, %d chunks; %d model calls, %d cache hits, $%.4f\n\n",
			s.Generator, st.New, st.Resumed, st.Chunks, man.Calls, man.CacheHits, man.CostUSD)
		ct.Header = []string{"type", "quota", "candidates"}
	} else {
		fmt.Fprintf(w, "generator %s over %s: %d new candidates, %d from an earlier run, %d chunks\n\n", s.Generator, s.Corpus, st.New, st.Resumed, st.Chunks)
	}
	if s.withSeeds {
		pt := output.Table{Header: []string{"seed type", "fix pattern", "seeds", "operators"}}
		for _, p := range s.Patterns {
			pt.Add(p.Type, p.Pattern, p.Count, strings.Join(p.Operators, ","))
		}
		if err := pt.Write(w); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	for _, t := range corpus.Types {
		q, ok := s.quotas[t]
		switch {
		case ok && s.Manifest != nil:
			ct.Add(t, q, st.Have[t])
		case ok:
			ct.Add(t, st.Have[t])
		}
	}
	if err := ct.Write(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return writeGateTables(w, s.Gate)
}

// resolveCorpusRevision turns one --corpus value into a source tree: a
// REPO@REV becomes an exported tree of that revision, recording the
// repository and commit for provenance.
func resolveCorpusRevision(a *app, c, repos string) (mutation.CorpusSpec, error) {
	if _, err := os.Stat(c); err == nil {
		return mutation.CorpusSpec{Path: c}, nil
	}
	repo, rev, ok := strings.Cut(c, "@")
	if !ok {
		return mutation.CorpusSpec{Path: c}, nil // a missing file: mutation.New says so
	}
	if repos == "" {
		return mutation.CorpusSpec{}, fmt.Errorf("%w: --corpus %s names a repository revision; add --repos DIR holding its clone", errs.ErrUsage, c)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir, err := jvm.ExportRevision(a.ctx, repos, repo, rev, filepath.Join(cache, "benchforge"))
	if err != nil {
		return mutation.CorpusSpec{}, fmt.Errorf("synth generate: --corpus: %w", err)
	}
	return mutation.CorpusSpec{Path: dir, Repo: repo, Commit: rev}, nil
}

// groundingFor builds the grounded selection's settings: the fidelity
// reference set of the seeds (the same rule or list 'synth fidelity'
// uses) and the gate's size bounds.
func groundingFor(seeds []corpus.Seed, refPath string, gopts gate.Options) (*mutation.Grounding, error) {
	var ids []string
	if refPath != "" {
		f, err := os.Open(refPath)
		if err != nil {
			return nil, fmt.Errorf("synth generate: --reference-set: %w: %w", errs.ErrNotFound, err)
		}
		ids, err = fidelity.ParseReferenceSet(refPath, f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("synth generate: %w", err)
		}
	}
	ref, _, err := fidelity.ReferenceSeeds(seeds, ids)
	if err != nil {
		return nil, fmt.Errorf("synth generate: %w", err)
	}
	if len(ref) == 0 {
		return nil, fmt.Errorf("synth generate: %w: no seed is in the reference set; nothing to ground on (use --ground=false)", errs.ErrInput)
	}
	return &mutation.Grounding{Reference: ref, MinLLOC: gopts.MinLLOC, MaxLLOC: gopts.MaxLLOC, SizeTolerance: gopts.SizeTolerance}, nil
}
