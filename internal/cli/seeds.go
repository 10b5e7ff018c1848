package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/synth/seeds"
)

func newSeedsCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "seeds",
		Short: "Real bug/fix seeds: scan benchmark failures for in-scope runtime exceptions, extract method pairs",
		Args:  usageArgs(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newSeedsScanCmd(a), newSeedsExtractCmd(a))
	return cmd
}

// seedsScanJSON is the seeds_scan summary of `seeds scan`.
type seedsScanJSON struct {
	Rows     []seeds.Row          `json:"rows"`
	Pooled   seeds.Row            `json:"pooled"`
	Bugs     []seedsBugJSON       `json:"bugs"`
	Unknown  []seeds.UnknownClass `json:"unknown_classes"`
	Problems []bench.Problem      `json:"problems"`

	prevalence *seeds.Prevalence // for the text tables
}

type seedsBugJSON struct {
	ID     string       `json:"id"`
	Status seeds.Status `json:"status"`
	Types  []seeds.Type `json:"types,omitempty"`
	// RemovedBy is the rule that drops a bug the widest reading counts.
	RemovedBy seeds.Rule `json:"removed_by,omitempty"`
}

func newSeedsScanCmd(a *app) *cobra.Command {
	var (
		dir    string
		opts   seeds.ScanOptions
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "scan --defects4j DIR",
		Short: "Bug-level prevalence of the seven in-scope runtime exceptions (rxsynth §3.2, Table 2)",
		Long: `scan reads every active bug's trigger_tests file under a Defects4J
framework/projects directory (or one project directory), classifies the
thrown exceptions and their "Caused by:" chains into the seven in-scope
types (NPE IAE AIOOBE NFE CCE SIOOBE ISE), applies filters F1 (JUnit
artefacts only) and F2 (checked exceptions only), and prints per project
and pooled: total bugs, runtime bugs, their percentage, the bugs per type
(a bug with two types counts in both), and why the others fall out.
Classes the built-in hierarchy does not know are listed, not counted.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if dir == "" {
				return fmt.Errorf("%w: --defects4j DIR is required (see '%s --help')", errs.ErrUsage, cmd.CommandPath())
			}
			return runSeedsScan(a, dir, opts, asJSON)
		},
	}
	cmd.Flags().StringVar(&dir, "defects4j", "", "Defects4J framework/projects directory, or one project directory")
	cmd.Flags().BoolVar(&opts.Subclasses, "subclasses", false, "also count project subclasses of the seven types (default: the seven exact java.lang classes, rxsynth §3.1)")
	cmd.Flags().BoolVar(&opts.AnyOrigin, "any-origin", false, "count an in-scope root cause wherever it was thrown (default: production code only, not test classes, test frameworks or JDK code called from a test)")
	cmd.Flags().BoolVar(&asJSON, "json", false, jsonUsage)
	return cmd
}

// runSeedsScan scans dir and reports a seeds_scan summary: the rows, the
// pooled row, every bug's status, the unknown classes and the skipped
// input lines (each also a warning).
func runSeedsScan(a *app, dir string, opts seeds.ScanOptions, asJSON bool) error {
	p, err := seeds.ScanDefects4J(a.ctx, dir, opts)
	if err != nil {
		return err
	}
	h := a.stream("seeds scan", asJSON, renderAs(printSeedsScan))
	for _, pr := range p.Problems {
		if err := warnAll(h, "skipped "+pr.String()); err != nil {
			return err
		}
	}
	out := seedsScanJSON{Rows: p.Rows, Pooled: p.Pooled, Unknown: p.Unknown, Problems: p.Problems, Bugs: []seedsBugJSON{}, prevalence: p}
	for _, b := range p.Bugs {
		out.Bugs = append(out.Bugs, seedsBugJSON{ID: b.ID, Status: b.Status, Types: b.Types, RemovedBy: b.RemovedBy})
	}
	if out.Unknown == nil {
		out.Unknown = []seeds.UnknownClass{}
	}
	if out.Problems == nil {
		out.Problems = []bench.Problem{}
	}
	return h.Summary(output.Summary{Kind: "seeds_scan", Value: out})
}

func printSeedsScan(w io.Writer, s seedsScanJSON) error {
	return writeSeedsTable(w, s.prevalence)
}

func writeSeedsTable(w io.Writer, p *seeds.Prevalence) error {
	t := output.Table{Header: []string{"project", "bugs", "runtime", "%"}}
	for _, ty := range seeds.Types {
		t.Header = append(t.Header, string(ty))
	}
	t.Header = append(t.Header, "F1-junit", "F2-checked", "other-unchecked", "unknown", "rm-subclass", "rm-test-origin")
	for _, r := range append(append([]seeds.Row{}, p.Rows...), p.Pooled) {
		cells := []any{r.Project, r.Total, r.Runtime, fmt.Sprintf("%.1f", r.Percent)}
		for _, ty := range seeds.Types {
			cells = append(cells, r.ByType[ty])
		}
		cells = append(cells, r.JUnitOnly, r.CheckedOnly, r.Unchecked, r.Unknown, r.RemovedSubclass, r.RemovedTestOrigin)
		t.Add(cells...)
	}
	if err := t.Write(w); err != nil {
		return err
	}
	if err := writeRuleBreakdown(w, p.Pooled); err != nil {
		return err
	}
	if len(p.Unknown) == 0 {
		return nil
	}
	if _, err := fmt.Fprintln(w, "\nUnknown exception classes (not counted as in scope):"); err != nil {
		return err
	}
	for _, u := range p.Unknown {
		if _, err := fmt.Fprintf(w, "  %s  %s  bugs: %s\n", u.Class, u.Guess, strings.Join(u.Bugs, " ")); err != nil {
			return err
		}
	}
	return nil
}

// writeRuleBreakdown prints, pooled, how many bugs each scope rule removes
// from the widest reading, so the count compares with Table 2 line by line.
func writeRuleBreakdown(w io.Writer, r seeds.Row) error {
	wide := r.Runtime + r.RemovedSubclass + r.RemovedTestOrigin
	_, err := fmt.Fprintf(w, "\nScope rules (pooled): %d bugs with any in-scope root cause (subclasses, any origin)\n"+
		"  - %d only a project subclass of the seven (rule: exact types; --subclasses keeps them)\n"+
		"  - %d root cause thrown in test code, a test framework or JDK code called from a test (rule: production origin; --any-origin keeps them)\n"+
		"  = %d runtime bugs; besides, F1 drops %d JUnit-only bugs and F2 %d checked-only bugs\n",
		wide, r.RemovedSubclass, r.RemovedTestOrigin, r.Runtime, r.JUnitOnly, r.CheckedOnly)
	return err
}
