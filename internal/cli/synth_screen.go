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
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/gate"
	"github.com/benchforge/benchforge/internal/synth/generate"
	"github.com/benchforge/benchforge/internal/synth/screen"
)

// screenJSON is the synth_screen summary of `synth screen`.
type screenJSON struct {
	Report   *screen.Report `json:"report"`
	Out      string         `json:"out,omitempty"`
	Manifest *llm.Manifest  `json:"manifest"`
}

// screenRun is one `synth screen` run.
type screenRun struct {
	specs              []string
	seedPath, typ, out string
	perQ, rounds       int
	seed               uint64
	mf                 modelGenFlags
	gopts              gate.Options
	asJSON             bool
}

func newSynthScreenCmd(a *app) *cobra.Command {
	var (
		gens string
		r    screenRun
	)
	cmd := &cobra.Command{
		Use:   "screen --generators A,B,... --seeds FILE --type TYPE",
		Short: "Rank candidate generators by structural alignment with the seeds (rxsynth §4.2, Table 4)",
		Long: `screen runs each generator (a model spec: openai:MODEL[@BASE_URL],
anthropic:MODEL, ngram:FILE) seed-grounded under identical prompts, exemplars
and per-quartile budgets on the seeds of one exception type, gates the
candidates, and ranks the generators by mean |Cliff's δ| over six structural
metrics (LLOC, cyclomatic complexity, nesting, identifiers, parameters,
tokens) against the seeds, per seed-size quartile (lower is better).

The type's seeds that parse, minus the upper tail (LLOC > Q3 + 1.5·IQR),
are cut into four equal-count LLOC quartiles; each generator makes
--per-quartile pairs per quartile from that quartile's exemplars (asked
again for the shortfall up to --rounds times when the gates reject some).

With --out DIR every generator/quartile keeps its candidates, attempts,
model calls and gate outputs in DIR, so a rerun resumes without new calls
(the model answer cache also serves reruns without --out).`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			r.specs = splitSpecs(gens)
			if err := checkScreenFlags(cmd, r); err != nil {
				return err
			}
			return runSynthScreen(a, r)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&gens, "generators", "", "model specs to screen, comma-separated")
	fl.StringVar(&r.seedPath, "seeds", "", "real seed pairs JSONL")
	fl.StringVar(&r.typ, "type", corpus.NullPointer, "exception type whose seeds are used (rxsynth §4.2: NullPointerException)")
	fl.IntVar(&r.perQ, "per-quartile", 19, "pairs compared per generator and quartile (rxsynth §4.2: 19)")
	fl.IntVar(&r.rounds, "rounds", 3, "generate-and-gate rounds per quartile to make up for rejected candidates")
	fl.StringVar(&r.out, "out", "", "working directory kept for resuming (default: a temporary one)")
	fl.Uint64Var(&r.seed, "seed", 1, "random seed of the exemplar schedules (the same for every generator)")
	addJSON(fl, &r.asJSON)
	addModelGenFlags(cmd, &r.mf)
	addGateFlags(cmd, &r.gopts)
	return cmd
}

// splitSpecs splits a comma-separated --generators list, dropping blanks.
func splitSpecs(gens string) []string {
	var specs []string
	for _, g := range strings.Split(gens, ",") {
		if g = strings.TrimSpace(g); g != "" {
			specs = append(specs, g)
		}
	}
	return specs
}

func checkScreenFlags(cmd *cobra.Command, r screenRun) error {
	if len(r.specs) == 0 || r.seedPath == "" {
		return fmt.Errorf("synth screen: %w: --generators and --seeds are required (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
	}
	if !corpus.ValidType(r.typ) {
		return fmt.Errorf("synth screen: %w: --type %q is not one of %s", errs.ErrUsage, r.typ, strings.Join(corpus.Types, ", "))
	}
	if r.perQ <= 0 {
		return fmt.Errorf("synth screen: %w: --per-quartile must be > 0, got %d", errs.ErrUsage, r.perQ)
	}
	return nil
}

// runSynthScreen screens the generators and reports a synth_screen
// summary; each finished generator/quartile is a progress message.
func runSynthScreen(a *app, r screenRun) error {
	seeds, err := gate.ReadSeeds(r.seedPath)
	if err != nil {
		return err
	}
	dir := r.out
	if dir == "" {
		if dir, err = os.MkdirTemp("", "benchforge-screen-"); err != nil {
			return fmt.Errorf("synth screen: %w", err)
		}
		defer os.RemoveAll(dir)
	}
	sess, err := r.mf.session()
	if err != nil {
		return fmt.Errorf("synth screen: %w", err)
	}
	defer sess.Close()
	cs, err := screenContenders(sess, r)
	if err != nil {
		return err
	}
	h := a.stream("synth screen", r.asJSON, renderAs(printScreen))
	opts := screen.Options{Type: r.typ, PerQuartile: r.perQ, Dir: dir, Gate: r.gopts, Rounds: r.rounds,
		Progress: func(g string, q, acc int) {
			// A handler error cannot stop screen.Run; it resurfaces at
			// the summary.
			_ = h.Progress(output.Progress{Step: g, Message: fmt.Sprintf("quartile %d: %d accepted", q, acc)})
		}}
	rep, runErr := screen.Run(a.ctx, cs, seeds, opts)
	man := sess.Manifest()
	if r.out != "" {
		if err := sess.WriteManifest(filepath.Join(r.out, "manifest.json")); err != nil && runErr == nil {
			runErr = err
		}
	}
	if runErr != nil {
		return runErr
	}
	return h.Summary(output.Summary{Kind: "synth_screen", Value: screenJSON{Report: rep, Out: r.out, Manifest: &man}})
}

// screenContenders opens every generator spec in sess.
func screenContenders(sess *llm.Session, r screenRun) ([]screen.Contender, error) {
	var cs []screen.Contender
	for _, spec := range r.specs {
		m, err := sess.Open(spec)
		if err != nil {
			return nil, fmt.Errorf("synth screen: --generators %s: %w", spec, err)
		}
		cs = append(cs, screen.Contender{Name: spec, New: func(d string) (generate.Generator, error) {
			return newModelGenerator(m, modeGrounded, r.seed, r.mf, r.gopts, d)
		}})
	}
	return cs, nil
}

// printScreen renders the synth_screen summary: the quartiles and the
// ranking.
func printScreen(w io.Writer, s screenJSON) error {
	rep, man := s.Report, s.Manifest
	fmt.Fprintf(w, "%s screening: %d seeds in %d quartiles, %d excluded; %d pairs per quartile; %d model calls, %d cache hits, $%.4f\n\n",
		rep.Type, seedCount(rep), len(rep.Quartiles), len(rep.Excluded), rep.PerQuartile, man.Calls, man.CacheHits, man.CostUSD)
	qt := output.Table{Header: []string{"quartile", "seeds", "LLOC"}}
	for _, q := range rep.Quartiles {
		qt.Add(fmt.Sprintf("Q%d", q.Q), len(q.SeedIDs), fmt.Sprintf("%d–%d", q.LLOCMin, q.LLOCMax))
	}
	if err := qt.Write(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	header := []string{"generator"}
	for _, q := range rep.Quartiles {
		header = append(header, fmt.Sprintf("Q%d", q.Q))
	}
	header = append(header, "mean", "rank", "compared")
	t := output.Table{Header: header}
	for _, r := range rep.Rows {
		cells := []any{r.Generator}
		var compared []string
		for _, c := range r.Cells {
			cells = append(cells, fmt.Sprintf("%.3f", c.Score))
			compared = append(compared, fmt.Sprint(c.Compared))
		}
		cells = append(cells, fmt.Sprintf("%.3f", r.Mean), r.Rank, strings.Join(compared, "/"))
		t.Add(cells...)
	}
	if err := t.Write(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nmean |Cliff's δ| over %s (lower is better); a quartile with no accepted pair scores 1\n", strings.Join(rep.Metrics, ", "))
	return nil
}

func seedCount(rep *screen.Report) int {
	n := 0
	for _, q := range rep.Quartiles {
		n += len(q.SeedIDs)
	}
	return n
}
