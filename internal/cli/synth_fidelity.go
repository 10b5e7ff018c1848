package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/report"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/fidelity"
)

func newSynthFidelityCmd(a *app) *cobra.Command {
	var (
		corpusPath, seedsPath, refPath, out string
		fixed, renderOnly, asJSON           bool
		workers                             int
	)
	cmd := &cobra.Command{
		Use:   "fidelity --pairs FILE --seeds FILE --out DIR",
		Short: "Measure how closely a synthetic corpus resembles its real seeds (rxsynth §6)",
		Long: `fidelity compares the corpus's methods with the real seed pairs: Table 10
(seven structural metrics, pooled and per type, vs the fidelity reference
set and the whole seed pool: medians, KS D and p, Cliff's δ), per-type
token-count ECDFs, Table 11 (thirteen constructs per type, Mann–Whitney U
with Benjamini–Hochberg at q = 0.05), repair style (fixes introducing a
throw, Wilson 95% CIs), distance from seeds (nearest same-type seed under
token-set and token 5-gram Jaccard, exact reproductions) and exemplar
fidelity (generated/exemplar LLOC and PLOC by exemplar size band).

The fidelity reference set is the seeds left after excluding, within each
type, buggy methods with LLOC > Q3 + 1.5·IQR, unless --reference-set names
the seed bug_ids (one per line, # comments allowed).

Writes DIR/fidelity.json (every statistic), DIR/fidelity.md,
DIR/fidelity.html and DIR/ecdf-<type>.svg. --render-only rewrites the
Markdown, HTML and SVG files from DIR/fidelity.json alone.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return fmt.Errorf("%w: --out DIR is required (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
			}
			if !renderOnly && (corpusPath == "" || seedsPath == "") {
				return fmt.Errorf("%w: --pairs FILE and --seeds FILE are required (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
			}
			return runSynthFidelity(a, fidelityRun{pairs: corpusPath, seeds: seedsPath, ref: refPath, out: out,
				renderOnly: renderOnly, asJSON: asJSON, opt: fidelity.Options{Fixed: fixed, Workers: workers}})
		},
	}
	f := cmd.Flags()
	f.StringVar(&corpusPath, "pairs", "", "synthetic pairs JSONL (corpus.Pair records)")
	f.StringVar(&corpusPath, "corpus", "", "old name of --pairs")
	_ = f.MarkDeprecated("corpus", "use --pairs (--corpus names source code to learn from)")
	f.StringVar(&seedsPath, "seeds", "", "real seed pairs JSONL (corpus.Seed records)")
	f.StringVar(&refPath, "reference-set", "", "file listing the seed bug_ids of the fidelity reference set")
	f.StringVar(&out, "out", "", "output directory")
	f.BoolVar(&fixed, "fixed", false, "also compare fixed methods (Table 10)")
	f.BoolVar(&renderOnly, "render-only", false, "re-render DIR/fidelity.json without recomputing")
	f.IntVar(&workers, "workers", 0, "parallel parsers (0 = all CPUs)")
	f.BoolVar(&asJSON, "json", false, jsonUsage)
	return cmd
}

// fidelityRun is one `synth fidelity` run.
type fidelityRun struct {
	pairs, seeds, ref, out string
	renderOnly, asJSON     bool
	opt                    fidelity.Options
}

// fidelitySummary is the synth_fidelity summary: the report, and for the
// text header where it went.
type fidelitySummary struct {
	*fidelity.Report
	out string
}

// runSynthFidelity computes (or, --render-only, reads back) the report,
// writes its files and reports a synth_fidelity summary whose value is
// the report as DIR/fidelity.json holds it.
func runSynthFidelity(a *app, f fidelityRun) error {
	var (
		r   *fidelity.Report
		err error
	)
	if f.renderOnly {
		r, err = readFidelityReport(f.out)
	} else {
		r, err = computeFidelity(a, f)
	}
	if err != nil {
		return err
	}
	if err := writeFidelityReports(f.out, r); err != nil {
		return err
	}
	h := a.stream("synth fidelity", f.asJSON, renderAs(printFidelity))
	for _, s := range r.Skipped {
		if err := warnAll(h, fmt.Sprintf("%s %s %s method not measured: %s", s.Kind, s.ID, s.Side, s.Reason)); err != nil {
			return err
		}
	}
	return h.Summary(output.Summary{Kind: "synth_fidelity", Value: fidelitySummary{Report: r, out: f.out}})
}

func readFidelityReport(dir string) (*fidelity.Report, error) {
	path := filepath.Join(dir, "fidelity.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("render fidelity report: %w: %w (run without --render-only first)", errs.ErrNotFound, err)
	}
	r := new(fidelity.Report)
	if err := json.Unmarshal(b, r); err != nil {
		return nil, fmt.Errorf("render fidelity report: %s: %w: %w", path, errs.ErrInput, err)
	}
	return r, nil
}

// computeFidelity measures the pairs against the seeds and writes
// DIR/fidelity.json.
func computeFidelity(a *app, f fidelityRun) (*fidelity.Report, error) {
	pairs, err := jsonl.ReadFile[corpus.Pair](f.pairs)
	if err != nil {
		return nil, err
	}
	seeds, err := jsonl.ReadFile[corpus.Seed](f.seeds)
	if err != nil {
		return nil, err
	}
	opt := f.opt
	if f.ref != "" {
		if opt.ReferenceSet, err = readReferenceSet(f.ref); err != nil {
			return nil, err
		}
	}
	r, err := fidelity.Run(a.ctx, pairs, seeds, opt)
	if err != nil {
		return nil, err
	}
	if err := output.WriteJSON(filepath.Join(f.out, "fidelity.json"), r); err != nil {
		return nil, err
	}
	return r, nil
}

func readReferenceSet(path string) ([]string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reference set: %w: %w", errs.ErrNotFound, err)
	}
	defer fh.Close()
	return fidelity.ParseReferenceSet(path, fh)
}

func printFidelity(w io.Writer, s fidelitySummary) error {
	r := s.Report
	fmt.Fprintf(w, "%d pairs vs %d seeds; reference set %d seeds (%s rule); reports in %s\n\n", r.Pairs, r.Seeds, r.Reference.N, r.Reference.Rule, s.out)
	printSmallSamples(w, r.SmallSamples())
	return writeReportTables(w, r.Table10("buggy", false), r.Table11(true), r.RepairTable(), r.DistanceTable(), r.ExemplarTable())
}

// writeFidelityReports writes DIR/fidelity.md, the ECDF plots and
// DIR/fidelity.html, each atomically (a --render-only run replaces them
// in place).
func writeFidelityReports(dir string, r *fidelity.Report) error {
	if err := output.WriteFile(filepath.Join(dir, "fidelity.md"), []byte(r.Markdown())); err != nil {
		return fmt.Errorf("synth fidelity: %w", err)
	}
	for _, e := range r.TokenECDF {
		svg, err := fidelity.ECDFPlot(e)
		if err != nil {
			return err
		}
		name := "ecdf-" + strings.ToLower(strings.TrimSuffix(e.Type, "Exception")) + ".svg"
		if err := output.WriteFile(filepath.Join(dir, name), svg); err != nil {
			return fmt.Errorf("synth fidelity: %w", err)
		}
	}
	page, err := r.Page()
	if err != nil {
		return err
	}
	return writePage(filepath.Join(dir, "fidelity.html"), page)
}

// writePage renders an HTML report to path, atomically.
func writePage(path string, p *report.Page) error {
	var b bytes.Buffer
	if err := report.Render(&b, p); err != nil {
		return fmt.Errorf("render %s: %w", path, err)
	}
	if err := output.WriteFile(path, b.Bytes()); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// printSmallSamples prints the small-sample warnings above the tables.
func printSmallSamples(w io.Writer, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintf(w, "⚠ small sample: %s\n", s)
	}
	if len(warnings) > 0 {
		fmt.Fprintln(w)
	}
}

// writeReportTables prints report tables as aligned text, each under its
// caption.
func writeReportTables(w io.Writer, ts ...*report.Table) error {
	for _, t := range ts {
		fmt.Fprintln(w, t.Caption)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(t.Header, "\t"))
		for _, r := range t.Rows {
			fmt.Fprintln(tw, strings.Join(r, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if t.Note != "" {
			fmt.Fprintln(w, t.Note)
		}
		fmt.Fprintln(w)
	}
	return nil
}
