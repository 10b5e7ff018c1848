package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/gate"
)

// addGateFlags binds the §4.4 gate thresholds to cmd's flags.
func addGateFlags(cmd *cobra.Command, o *gate.Options) {
	*o = gate.DefaultOptions()
	fl := cmd.Flags()
	fl.Float64Var(&o.MaxSeedSim, "max-seed-sim", o.MaxSeedSim, "novelty: reject a method whose token 5-gram Jaccard with any seed of its type reaches this")
	fl.Float64Var(&o.MaxPairSim, "max-pair-sim", o.MaxPairSim, "reject a pair whose buggy/fixed token 5-gram Jaccard reaches this (trivial patch)")
	fl.IntVar(&o.MinLLOC, "min-lloc", o.MinLLOC, "smallest logical size (statements) of either method")
	fl.IntVar(&o.MaxLLOC, "max-lloc", o.MaxLLOC, "largest logical size (statements) of either method")
	fl.Float64Var(&o.SizeTolerance, "size-tolerance", o.SizeTolerance, "allowed relative deviation from a candidate's size target")
	fl.Float64Var(&o.DupThreshold, "dup-threshold", o.DupThreshold, "near-duplicate: normalised token 5-gram Jaccard at or above which a later pair is dropped")
	fl.BoolVar(&o.NoClones, "no-clones", false, "skip rename-blind clone detection")
}

// gateJSON is the synth_gate summary of `synth gate`.
type gateJSON struct {
	Summary *gate.Result `json:"summary"`
	Out     string       `json:"out"`
}

func newSynthGateCmd(a *app) *cobra.Command {
	var (
		candPath, seedPath, out string
		opts                    gate.Options
		asJSON                  bool
	)
	cmd := &cobra.Command{
		Use:   "gate --candidates FILE --out DIR",
		Short: "Re-run the generation-time quality gates on candidate pairs (rxsynth §4.4)",
		Long: `gate checks every candidate of a candidates JSONL file (as written by
'synth generate') against the generation-time gates of rxsynth §4.4 — two
fenced Java blocks for model answers, one parseable method per side,
identical signatures, non-trivial patch, size, novelty against the seeds of
the type, near-duplicates (MinHash-LSH over token 5-grams, exact check) and
rename-blind clones — and writes DIR/pairs.jsonl (accepted pairs: a model's
comments stripped, a mutation's host comments kept), DIR/rejections.jsonl (one line per rejection with its cause) and
DIR/gate_summary.json, then prints the per-cause table.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if candPath == "" || out == "" {
				return fmt.Errorf("%w: --candidates FILE and --out DIR are required (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
			}
			return runSynthGate(a, candPath, seedPath, out, opts, asJSON)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&candPath, "candidates", "", "candidates JSONL file")
	fl.StringVar(&seedPath, "seeds", "", "seed pairs JSONL file (for the novelty gate; without it novelty is not checked)")
	fl.StringVar(&out, "out", "", "output directory")
	fl.BoolVar(&asJSON, "json", false, jsonUsage)
	addGateFlags(cmd, &opts)
	return cmd
}

// runSynthGate gates the candidates, rewrites the gate's outputs in out
// and reports a synth_gate summary.
func runSynthGate(a *app, candPath, seedPath, out string, opts gate.Options, asJSON bool) error {
	cands, err := gate.ReadCandidates(candPath)
	if err != nil {
		return err
	}
	var seeds []corpus.Seed
	if seedPath != "" {
		if seeds, err = gate.ReadSeeds(seedPath); err != nil {
			return err
		}
	}
	res, err := gate.Run(a.ctx, cands, seeds, opts)
	if err != nil {
		return err
	}
	if err := gate.WriteOutputs(out, res); err != nil {
		return err
	}
	h := a.stream("synth gate", asJSON, renderAs(func(w io.Writer, g gateJSON) error { return writeGateTables(w, g.Summary) }))
	return h.Summary(output.Summary{Kind: "synth_gate", Value: gateJSON{Summary: res, Out: out}})
}

// writeGateTables prints the per-cause rejection table and the accepted
// pairs per type.
func writeGateTables(w io.Writer, res *gate.Result) error {
	rejected := len(res.Rejected)
	fmt.Fprintf(w, "%d candidates: %d accepted, %d rejected\n\n", res.Total, len(res.Accepted), rejected)
	t := output.Table{Header: []string{"cause", "rejected", "%"}}
	for _, c := range res.Causes {
		t.Add(c.Cause, c.Count, fmt.Sprintf("%.1f", 100*float64(c.Count)/float64(max(rejected, 1))))
	}
	if err := t.Write(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	bt := output.Table{Header: []string{"type", "accepted"}}
	for _, ty := range corpus.Types {
		bt.Add(ty, res.ByType[ty])
	}
	return bt.Write(w)
}
