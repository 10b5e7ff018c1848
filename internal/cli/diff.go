package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/change"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/output"
)

func newDiffCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "diff",
		Short: "Inspect changes between two versions of a source file",
		Args:  usageArgs(cobra.NoArgs),
		RunE:  func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newDiffMethodsCmd(a))
	return cmd
}

type diffMethodsOptions struct {
	old, new string
	asJSON   bool
	patch    bool
	maxSize  int64
}

// diffMethodsReport is what `diff methods --json` prints.
type diffMethodsReport struct {
	Old       string            `json:"old"`
	New       string            `json:"new"`
	Lang      string            `json:"lang"`
	Functions []change.Function `json:"functions"`
	Warnings  []string          `json:"warnings,omitempty"`
}

func newDiffMethodsCmd(a *app) *cobra.Command {
	var o diffMethodsOptions
	cmd := &cobra.Command{
		Use:   "methods --old FILE --new FILE",
		Short: "List the functions a change touches",
		Long: `List the methods, constructors and functions that the change from --old to
--new touches (Java or Python), with added and deleted line counts. A change
outside every function is listed as (top level). BODY says whether every
changed line lies inside the function's body — the shape that seed
extraction keeps (rxsynth §3.2, F3).`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return runDiffMethods(a, o) },
	}
	cmd.Flags().StringVar(&o.old, "old", "", "the file before the change (required)")
	cmd.Flags().StringVar(&o.new, "new", "", "the file after the change (required)")
	cmd.Flags().BoolVar(&o.asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&o.patch, "patch", false, "also print the unified diff")
	cmd.Flags().Int64Var(&o.maxSize, "max-size", 2<<20, "refuse files larger than this many bytes")
	return cmd
}

func runDiffMethods(a *app, o diffMethodsOptions) error {
	if o.old == "" || o.new == "" {
		return fmt.Errorf("diff methods: both --old and --new are required: %w", errs.ErrUsage)
	}
	var srcs [2][]byte
	for i, p := range []string{o.old, o.new} {
		src, ok, err := readSource(a.warnings(), "diff methods", p, o.maxSize)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("diff methods: %s was skipped; raise --max-size to compare it: %w", p, errs.ErrInput)
		}
		srcs[i] = src
	}
	res, err := change.Methods(o.old, srcs[0], o.new, srcs[1])
	if err != nil {
		return err
	}
	rep := diffMethodsReport{Old: o.old, New: o.new, Lang: string(res.Lang), Functions: res.Functions}
	for _, w := range res.Warnings {
		rep.Warnings = append(rep.Warnings, w.Error())
		warn(a, "%v", w)
	}
	if o.asJSON {
		return writeJSON(a.stdout, rep)
	}
	return printDiffMethods(a.stdout, o, res)
}

// printDiffMethods is the text output: one row per changed function, then
// with --patch the unified diff.
func printDiffMethods(w io.Writer, o diffMethodsOptions, res *change.Result) error {
	if len(res.Functions) == 0 {
		_, err := fmt.Fprintf(w, "no changes between %s and %s\n", o.old, o.new)
		return err
	}
	t := &output.Table{Header: []string{"FUNCTION", "KIND", "SIDE", "OLD", "NEW", "+", "-", "BODY"}}
	for _, f := range res.Functions {
		name, kind := f.Key, f.Kind
		if name == "" {
			name, kind = "(top level)", "-"
		}
		body := "no"
		if f.BodyOnly {
			body = "yes"
		}
		t.Add(name, kind, f.Side, span(f.Old), span(f.New), f.Added, f.Deleted, body)
	}
	if err := t.Write(w); err != nil {
		return err
	}
	if o.patch {
		_, err := fmt.Fprint(w, "\n", strings.TrimRight(res.Diff.String(), "\n"), "\n")
		return err
	}
	return nil
}

func span(s change.Span) string {
	if s.Start == 0 {
		return "-"
	}
	return fmt.Sprintf("%d-%d", s.Start, s.End)
}
