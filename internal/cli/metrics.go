package cli

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/metrics"
	"github.com/benchforge/benchforge/internal/output"
)

type metricsOptions struct {
	asJSON     bool
	constructs bool
	maxSize    int64
}

// metricsRow is one method in `benchforge metrics --json`.
type metricsRow struct {
	File       string              `json:"file"`
	Class      string              `json:"class"`
	Method     string              `json:"method"`
	Kind       string              `json:"kind"`
	Signature  string              `json:"signature"`
	StartLine  int                 `json:"start_line"`
	EndLine    int                 `json:"end_line"`
	Metrics    metrics.Metrics     `json:"metrics"`
	Constructs *metrics.Constructs `json:"constructs,omitempty"`
}

func newMetricsCmd(a *app) *cobra.Command {
	var o metricsOptions
	cmd := &cobra.Command{
		Use:   "metrics FILE...",
		Short: "Structural metrics and lexical constructs of every method (rxsynth §6)",
		Long: `Print the seven structural metrics of rxsynth §6.1 (PLOC, LLOC, extended
cyclomatic complexity, maximum nesting, identifier occurrences, parameters,
tokens) for every method, constructor and function of Java (.java) and Python
(.py, .pyi) files, and with --constructs the thirteen lexical constructs of
§6.3. Definitions are in the internal/metrics package documentation.

Files that are not UTF-8 text or are larger than --max-size are skipped with
a warning; syntax errors are reported as warnings (file:line:col) and the
methods that parsed are still measured.`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error { return runMetrics(a, o, args) },
	}
	cmd.Flags().BoolVar(&o.asJSON, "json", false, jsonUsage)
	cmd.Flags().BoolVar(&o.constructs, "constructs", false, "also print the 13 lexical constructs")
	cmd.Flags().Int64Var(&o.maxSize, "max-size", 2<<20, "skip files larger than this many bytes")
	return cmd
}

// metricsSummary is the summary of `metrics`: the counts in --json (the
// methods went before it as method_metrics records), the rows for the
// text table.
type metricsSummary struct {
	Files   int `json:"files"`
	Skipped int `json:"skipped"`
	Methods int `json:"methods"`

	rows       []metricsRow
	constructs bool
}

func runMetrics(a *app, o metricsOptions, paths []string) error {
	if o.maxSize <= 0 {
		return fmt.Errorf("metrics: --max-size %d must be positive: %w", o.maxSize, errs.ErrUsage)
	}
	langs := make([]code.Lang, len(paths))
	for i, p := range paths {
		l, err := code.DetectLang(p)
		if err != nil {
			return fmt.Errorf("metrics: %w", err)
		}
		langs[i] = l
	}
	h := a.stream("metrics", o.asJSON, renderAs(printMetrics))
	sum := metricsSummary{constructs: o.constructs}
	for i, p := range paths {
		if err := a.ctx.Err(); err != nil {
			return err
		}
		ms, ok, err := measureFile(h, o, langs[i], p)
		if err != nil {
			return err
		}
		if !ok {
			sum.Skipped++
			continue
		}
		sum.Files++
		if err := emitMethods(h, o, ms, &sum); err != nil {
			return err
		}
	}
	if sum.Files == 0 {
		return fmt.Errorf("metrics: all %d file(s) were skipped; nothing to measure: %w", len(paths), errs.ErrInput)
	}
	return h.Summary(output.Summary{Kind: "metrics", Value: sum})
}

// emitMethods streams one method_metrics record per method (with the
// constructs in --json, where a consumer may want either) and keeps the
// rows for the text table.
func emitMethods(h output.Handler, o metricsOptions, ms []metrics.Method, sum *metricsSummary) error {
	for _, m := range ms {
		r := metricsRow{File: m.File, Class: m.Function.Class, Method: m.Function.Name,
			Kind: m.Function.Kind, Signature: m.Function.Signature,
			StartLine: m.Function.StartLine, EndLine: m.Function.EndLine, Metrics: m.Metrics}
		if o.constructs || o.asJSON {
			c := m.Constructs
			r.Constructs = &c
		}
		sum.Methods++
		sum.rows = append(sum.rows, r)
		if err := h.Record(output.Record{Kind: "method_metrics", Value: r}); err != nil {
			return err
		}
	}
	return nil
}

// printMetrics is the text table: one row per method.
func printMetrics(w io.Writer, s metricsSummary) error {
	t := &output.Table{Header: []string{"FILE", "CLASS", "METHOD", "LINES", "PLOC", "LLOC", "CC", "NEST", "IDS", "PARAMS", "TOKENS"}}
	if s.constructs {
		t.Header = append(t.Header, metrics.ConstructNames...)
	}
	for _, r := range s.rows {
		cells := []any{r.File, dash(r.Class), r.Method, strconv.Itoa(r.StartLine) + "-" + strconv.Itoa(r.EndLine)}
		for _, v := range r.Metrics.Values() {
			cells = append(cells, v)
		}
		if s.constructs {
			for _, v := range r.Constructs.Values() {
				cells = append(cells, v)
			}
		}
		t.Add(cells...)
	}
	return t.Write(w)
}

// measureFile returns the methods of one file, or ok=false when the file
// was skipped with a warning.
func measureFile(h output.Handler, o metricsOptions, lang code.Lang, path string) ([]metrics.Method, bool, error) {
	src, ok, err := readSource(h, "metrics", path, o.maxSize)
	if !ok || err != nil {
		return nil, false, err
	}
	f, err := code.Parse(lang, path, src)
	if errors.Is(err, errs.ErrInput) {
		return nil, false, warnAll(h, err.Error())
	}
	if err != nil {
		return nil, false, fmt.Errorf("metrics: %w", err)
	}
	defer f.Close()
	for _, se := range f.SyntaxErrors() {
		if err := warnAll(h, se.Error()); err != nil {
			return nil, false, err
		}
	}
	return metrics.OfFile(f), true, nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
