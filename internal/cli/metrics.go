package cli

import (
	"errors"
	"fmt"
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
	cmd.Flags().BoolVar(&o.asJSON, "json", false, "print one JSON object per method (JSON lines)")
	cmd.Flags().BoolVar(&o.constructs, "constructs", false, "also print the 13 lexical constructs")
	cmd.Flags().Int64Var(&o.maxSize, "max-size", 2<<20, "skip files larger than this many bytes")
	return cmd
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
	var rows []metricsRow
	processed := 0
	for i, p := range paths {
		if err := a.ctx.Err(); err != nil {
			return err
		}
		ms, ok, err := measureFile(a, o, langs[i], p)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		processed++
		for _, m := range ms {
			r := metricsRow{File: m.File, Class: m.Function.Class, Method: m.Function.Name,
				Kind: m.Function.Kind, Signature: m.Function.Signature,
				StartLine: m.Function.StartLine, EndLine: m.Function.EndLine, Metrics: m.Metrics}
			if o.constructs || o.asJSON {
				c := m.Constructs
				r.Constructs = &c
			}
			rows = append(rows, r)
		}
	}
	if processed == 0 {
		return fmt.Errorf("metrics: all %d file(s) were skipped; nothing to measure: %w", len(paths), errs.ErrInput)
	}
	if o.asJSON {
		return writeJSONL(a.stdout, rows)
	}
	t := &output.Table{Header: []string{"FILE", "CLASS", "METHOD", "LINES", "PLOC", "LLOC", "CC", "NEST", "IDS", "PARAMS", "TOKENS"}}
	if o.constructs {
		t.Header = append(t.Header, metrics.ConstructNames...)
	}
	for _, r := range rows {
		cells := []any{r.File, dash(r.Class), r.Method, strconv.Itoa(r.StartLine) + "-" + strconv.Itoa(r.EndLine)}
		for _, v := range r.Metrics.Values() {
			cells = append(cells, v)
		}
		if o.constructs {
			for _, v := range r.Constructs.Values() {
				cells = append(cells, v)
			}
		}
		t.Add(cells...)
	}
	return t.Write(a.stdout)
}

// measureFile returns the methods of one file, or ok=false when the file
// was skipped with a warning.
func measureFile(a *app, o metricsOptions, lang code.Lang, path string) ([]metrics.Method, bool, error) {
	src, ok, err := readSource(a, "metrics", path, o.maxSize)
	if !ok || err != nil {
		return nil, false, err
	}
	f, err := code.Parse(lang, path, src)
	if errors.Is(err, errs.ErrInput) {
		warn(a, "%v", err)
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("metrics: %w", err)
	}
	defer f.Close()
	for _, se := range f.SyntaxErrors() {
		warn(a, "%v", se)
	}
	return metrics.OfFile(f), true, nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
