package cli

import (
	"fmt"
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

// generateJSON is what `synth generate --json` prints.
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

func newSynthGenerateCmd(a *app) *cobra.Command {
	var (
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
	)
	cmd := &cobra.Command{
		Use:   "generate --generator mutation|MODEL-SPEC --out DIR",
		Short: "Generate candidate bug/fix pairs and gate them (rxsynth §4)",
		Long: `generate grows candidate pairs and runs the generation-time gates on them.

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
'synth gate' does).`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return fmt.Errorf("%w: --out DIR is required (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
			}
			if perType < 0 {
				return fmt.Errorf("%w: --per-type must be ≥ 0, got %d", errs.ErrUsage, perType)
			}
			if len(corpusPaths) > 0 {
				corpusPath = strings.Join(corpusPaths, ",")
			}
			quotas := map[string]int{}
			for _, t := range strings.Split(types, ",") {
				t = strings.TrimSpace(t)
				if t == "" {
					continue
				}
				if !corpus.ValidType(t) {
					return fmt.Errorf("%w: --types: %q is not one of %s", errs.ErrUsage, t, strings.Join(corpus.Types, ", "))
				}
				quotas[t] = perType
			}
			var seeds []corpus.Seed
			if seedPath != "" {
				var err error
				if seeds, err = gate.ReadSeeds(seedPath); err != nil {
					return err
				}
			}
			// One directory holds candidates of one set of the settings
			// that decide them (the gates rerun on every call).
			settings := runkey.Settings{"generator": genSpec, "seed": seed}
			isGrounded := genSpec == "mutation" && ground && len(seeds) > 0
			if genSpec == "mutation" {
				settings["corpus"], settings["min_lines"], settings["max_lines"] = corpusPath, mopts.MinLines, mopts.MaxLines
				settings["chunk_files"], settings["public_only"] = mopts.ChunkFiles, mopts.PublicOnly
				if isGrounded {
					settings["ground"], settings["reference_set"], settings["seeds"] = true, refPath, seedPath
				}
			} else {
				settings["mode"], settings["max_tokens"], settings["temperature"] = mode, mf.maxTokens, mf.temperature
				settings["top_p"], settings["provider_defaults"], settings["pair_share"] = mf.topP, mf.providerDefaults, mf.pairShare
			}
			if err := runkey.CheckPass(filepath.Join(out, generate.CandidatesFile), "--out", settings); err != nil {
				return fmt.Errorf("synth generate: %w", err)
			}
			if genSpec != "mutation" {
				return runModelGenerate(a, cmd, modelGenRun{spec: genSpec, mode: mode, flags: mf, seed: seed, out: out, quotas: quotas,
					seeds: seeds, total: total, floor: floor, capN: capN, gopts: gopts, asJSON: asJSON})
			}
			mopts.Seed = seed
			for _, c := range corpusPaths {
				spec, err := resolveCorpusRevision(a, c, repos)
				if err != nil {
					return err
				}
				mopts.Corpora = append(mopts.Corpora, spec)
			}
			if isGrounded {
				gr, err := groundingFor(seeds, refPath, gopts)
				if err != nil {
					return err
				}
				mopts.Ground = gr
				if total > 0 {
					// Table 10 pools the types by the reference set's mix, so
					// the corpus follows that mix too; --floor/--cap only
					// when given.
					fl, cp := 0, 0
					if cmd.Flags().Changed("floor") {
						fl = floor
					}
					if cmd.Flags().Changed("cap") {
						cp = capN
					}
					by := grounded.Targets(gr.Reference, total, fl, cp)
					for t := range quotas {
						quotas[t] = by[t]
					}
				}
			} else if total > 0 {
				return fmt.Errorf("%w: --total with --generator mutation splits by the seeds' prevalence and needs --seeds (and grounding)", errs.ErrUsage)
			}
			g, err := mutation.New(mopts)
			if err != nil {
				return err
			}
			defer g.Close()
			ropts := generate.RunOptions{Dir: out, PerType: quotas, Seeds: seeds}
			if isTerminal(a.stderr) {
				ropts.Progress = func(chunk int, have map[string]int) {
					n := 0
					for _, v := range have {
						n += v
					}
					fmt.Fprintf(a.stderr, "\rchunk %d/%d: %d candidates", chunk+1, g.Chunks(), n)
				}
			}
			st, err := generate.Run(a.ctx, g, ropts)
			if ropts.Progress != nil {
				fmt.Fprintln(a.stderr)
			}
			if err != nil {
				return err
			}
			for _, w := range st.Warnings {
				fmt.Fprintf(a.stderr, "benchforge: warning: %s\n", w)
			}
			cands, err := gate.ReadCandidates(filepath.Join(out, generate.CandidatesFile))
			if err != nil {
				return err
			}
			res, err := gate.Run(a.ctx, cands, seeds, gopts)
			if err != nil {
				return err
			}
			if err := gate.WriteOutputs(out, res); err != nil {
				return err
			}
			patterns := mutation.MinePatterns(seeds)
			if asJSON {
				if patterns == nil {
					patterns = []mutation.PatternCount{}
				}
				return writeJSON(a.stdout, generateJSON{Generator: g.ID(), Corpus: g.CorpusPath(), Stats: st, Patterns: patterns, Gate: res, Out: out})
			}
			w := a.stdout
			fmt.Fprintf(w, "generator %s over %s: %d new candidates, %d from an earlier run, %d chunks\n\n", g.ID(), g.CorpusPath(), st.New, st.Resumed, st.Chunks)
			if len(seeds) > 0 {
				pt := output.Table{Header: []string{"seed type", "fix pattern", "seeds", "operators"}}
				for _, p := range patterns {
					pt.Add(p.Type, p.Pattern, p.Count, strings.Join(p.Operators, ","))
				}
				if err := pt.Write(w); err != nil {
					return err
				}
				fmt.Fprintln(w)
			}
			ct := output.Table{Header: []string{"type", "candidates"}}
			for _, t := range corpus.Types {
				if _, ok := quotas[t]; ok {
					ct.Add(t, st.Have[t])
				}
			}
			if err := ct.Write(w); err != nil {
				return err
			}
			fmt.Fprintln(w)
			return writeGateTables(w, res)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&genSpec, "generator", "mutation", "generator: mutation, or a model spec (openai:…, anthropic:…, ngram:FILE)")
	fl.StringVar(&mode, "mode", modeGrounded, "model generator mode: seed-grounded or zero-shot")
	fl.IntVar(&total, "total", 0, "model generators: total candidates split over the types by seed prevalence (0: --per-type each)")
	fl.IntVar(&floor, "floor", 500, "with --total: smallest per-type quota (rxsynth §4.4: 500)")
	fl.IntVar(&capN, "cap", 1000, "with --total: largest per-type quota, 0 for none (rxsynth §4.4: 1,000)")
	addModelGenFlags(cmd, &mf)
	fl.StringArrayVar(&corpusPaths, "corpus", nil, "Java sources to mutate: a src.zip, a directory, or REPO@REV of a clone under --repos (pairs then record repository, commit, path and method; test trees are skipped); repeat for several (default: the JDK's lib/src.zip)")
	fl.BoolVar(&ground, "ground", true, "with --seeds: choose host methods that follow the seed reference set's seven structural metrics per type (false: corpus order)")
	fl.StringVar(&refPath, "reference-set", "", "with --ground: file listing the seed bug_ids to follow (default: the fidelity upper-tail rule, as 'synth fidelity')")
	fl.StringVar(&repos, "repos", "", "directory of local clones (owner__name.git, owner+name/repo) for --corpus REPO@REV")
	fl.StringVar(&seedPath, "seeds", "", "real seed pairs JSONL (mined fix patterns, example_bug_ids, novelty gate)")
	fl.StringVar(&out, "out", "", "output directory")
	fl.StringVar(&types, "types", strings.Join(corpus.Types, ","), "exception types to generate, comma-separated")
	fl.IntVar(&perType, "per-type", 250, "candidates per exception type (before gating)")
	fl.Uint64Var(&seed, "seed", 1, "random seed: corpus order and mutation sites; exemplar and scaffold schedules")
	fl.BoolVar(&mopts.PublicOnly, "public-only", true, "mutate public methods only")
	fl.IntVar(&mopts.MinLines, "min-lines", 0, "smallest method to mutate, in lines (0: 5, grounded 3)")
	fl.IntVar(&mopts.MaxLines, "max-lines", 0, "largest method to mutate, in lines (0: 60, grounded 300)")
	fl.BoolVar(&asJSON, "json", false, "print the result as JSON")
	addGateFlags(cmd, &gopts)
	return cmd
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

func runModelGenerate(a *app, cmd *cobra.Command, r modelGenRun) error {
	if r.mode == modeGrounded && len(r.seeds) == 0 {
		return fmt.Errorf("synth generate: %w: --mode %s needs --seeds FILE (its exemplars); use --mode %s for prompts without exemplars", errs.ErrUsage, modeGrounded, modeZeroShot)
	}
	if r.total < 0 || r.floor < 0 || r.capN < 0 {
		return fmt.Errorf("synth generate: %w: --total, --floor and --cap must be ≥ 0", errs.ErrUsage)
	}
	if r.total > 0 {
		src := r.seeds
		if r.mode == modeZeroShot && len(src) == 0 {
			return fmt.Errorf("synth generate: %w: --total splits by seed prevalence and needs --seeds FILE", errs.ErrUsage)
		}
		by := grounded.Targets(src, r.total, r.floor, r.capN)
		for t := range r.quotas {
			r.quotas[t] = by[t]
		}
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
	ropts := generate.RunOptions{Dir: r.out, PerType: r.quotas, Seeds: r.seeds}
	if isTerminal(a.stderr) {
		ropts.Progress = func(chunk int, have map[string]int) {
			n := 0
			for _, v := range have {
				n += v
			}
			fmt.Fprintf(a.stderr, "\rchunk %d: %d candidates, $%.4f", chunk+1, n, sess.Spent())
		}
	}
	st, runErr := generate.Run(a.ctx, g, ropts)
	if ropts.Progress != nil {
		fmt.Fprintln(a.stderr)
	}
	man := sess.Manifest()
	if err := sess.WriteManifest(filepath.Join(r.out, "manifest.json")); err != nil && runErr == nil {
		runErr = err
	}
	if runErr != nil {
		return runErr
	}
	for _, w := range append(g.Warnings(), st.Warnings...) {
		fmt.Fprintf(a.stderr, "benchforge: warning: %s\n", w)
	}
	cands, err := gate.ReadCandidates(filepath.Join(r.out, generate.CandidatesFile))
	if err != nil {
		return err
	}
	res, err := gate.Run(a.ctx, cands, r.seeds, r.gopts)
	if err != nil {
		return err
	}
	if err := gate.WriteOutputs(r.out, res); err != nil {
		return err
	}
	if r.asJSON {
		return writeJSON(a.stdout, generateJSON{Generator: g.ID(), Stats: st, Patterns: []mutation.PatternCount{}, Gate: res, Out: r.out, Manifest: &man})
	}
	w := a.stdout
	fmt.Fprintf(w, "generator %s: %d new candidates, %d from an earlier run, %d chunks; %d model calls, %d cache hits, $%.4f\n\n",
		g.ID(), st.New, st.Resumed, st.Chunks, man.Calls, man.CacheHits, man.CostUSD)
	ct := output.Table{Header: []string{"type", "quota", "candidates"}}
	for _, t := range corpus.Types {
		if q, ok := r.quotas[t]; ok {
			ct.Add(t, q, st.Have[t])
		}
	}
	if err := ct.Write(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return writeGateTables(w, res)
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
