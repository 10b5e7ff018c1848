package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/gate"
	"github.com/benchforge/benchforge/internal/synth/generate"
	"github.com/benchforge/benchforge/internal/synth/generate/mutation"
)

func init() { synthSubcommands = append(synthSubcommands, newSynthGenerateCmd) }

// generateJSON is what `synth generate --json` prints.
type generateJSON struct {
	Generator string                  `json:"generator"`
	Corpus    string                  `json:"corpus"`
	Stats     *generate.Stats         `json:"stats"`
	Patterns  []mutation.PatternCount `json:"seed_patterns"`
	Gate      *gate.Result            `json:"gate"`
	Out       string                  `json:"out"`
}

func newSynthGenerateCmd(a *app) *cobra.Command {
	var (
		genSpec, corpusPath, seedPath, out, types string
		perType                                   int
		seed                                      uint64
		mopts                                     mutation.Options
		gopts                                     gate.Options
		asJSON                                    bool
	)
	cmd := &cobra.Command{
		Use:   "generate --generator mutation --out DIR",
		Short: "Generate candidate bug/fix pairs and gate them (rxsynth §4)",
		Long: `generate grows candidate pairs and runs the generation-time gates on them.

--generator mutation (offline, no API) mutates correct methods of a Java
source corpus (--corpus: a src.zip or directory; default the JDK's src.zip)
with the inverses of real fix patterns — removed null guard (NPE), removed or
loosened bounds check and off-by-one length (AIOOBE/SIOOBE), removed
NumberFormatException catch (NFE), removed instanceof guard (CCE), and an
unintended throw on a lenient argument (IAE) or state (ISE) branch — so the
fixed member of each pair is the original code. With --seeds, the seeds'
fixes are classified into the same patterns (the table is printed) and
each pair's example_bug_ids lists the seeds of its type and pattern.

DIR/candidates.jsonl and DIR/attempts.jsonl are append-only: rerunning the
same command resumes where a killed run stopped. The gates then rewrite
DIR/pairs.jsonl, DIR/rejections.jsonl and DIR/gate_summary.json (as
'synth gate' does).`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return fmt.Errorf("%w: --out DIR is required (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
			}
			if genSpec != "mutation" {
				return fmt.Errorf("synth generate: generator %q: only \"mutation\" is built so far (model-backed generators come through internal/llm): %w", genSpec, errs.ErrUnsupported)
			}
			if perType < 0 {
				return fmt.Errorf("%w: --per-type must be ≥ 0, got %d", errs.ErrUsage, perType)
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
			mopts.Corpus, mopts.Seed = corpusPath, seed
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
				pt := table{header: []string{"seed type", "fix pattern", "seeds", "operators"}}
				for _, p := range patterns {
					pt.add(p.Type, p.Pattern, p.Count, strings.Join(p.Operators, ","))
				}
				if err := pt.write(w); err != nil {
					return err
				}
				fmt.Fprintln(w)
			}
			ct := table{header: []string{"type", "candidates"}}
			for _, t := range corpus.Types {
				if _, ok := quotas[t]; ok {
					ct.add(t, st.Have[t])
				}
			}
			if err := ct.write(w); err != nil {
				return err
			}
			fmt.Fprintln(w)
			return writeGateTables(w, res)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&genSpec, "generator", "mutation", "generator: mutation")
	fl.StringVar(&corpusPath, "corpus", "", "Java sources to mutate: a src.zip or a directory (default: the JDK's lib/src.zip)")
	fl.StringVar(&seedPath, "seeds", "", "real seed pairs JSONL (mined fix patterns, example_bug_ids, novelty gate)")
	fl.StringVar(&out, "out", "", "output directory")
	fl.StringVar(&types, "types", strings.Join(corpus.Types, ","), "exception types to generate, comma-separated")
	fl.IntVar(&perType, "per-type", 250, "candidates per exception type (before gating)")
	fl.Uint64Var(&seed, "seed", 1, "random seed: corpus order and mutation sites")
	fl.BoolVar(&mopts.PublicOnly, "public-only", true, "mutate public methods only")
	fl.IntVar(&mopts.MinLines, "min-lines", 5, "smallest method to mutate, in lines")
	fl.IntVar(&mopts.MaxLines, "max-lines", 60, "largest method to mutate, in lines")
	fl.BoolVar(&asJSON, "json", false, "print the result as JSON")
	addGateFlags(cmd, &gopts)
	return cmd
}
