package fidelity

import (
	"context"
	"fmt"
	"runtime"

	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/metrics"
	"github.com/benchforge/benchforge/internal/step"
)

// Measured is one Java method's measurements: the seven structural metrics
// and thirteen constructs of internal/metrics (rxsynth §6.1, §6.3) and its
// non-comment token texts (for the §6.5 distances and the §7.4.5 length
// rule).
type Measured struct {
	Metrics    metrics.Metrics
	Constructs metrics.Constructs
	Tokens     []string
}

// Features returns the 20 per-method features (MetricNames then
// ConstructNames order) as floats.
func (m Measured) Features() []float64 {
	out := make([]float64, 0, len(metrics.MetricNames)+len(metrics.ConstructNames))
	for _, v := range m.Metrics.Values() {
		out = append(out, float64(v))
	}
	for _, v := range m.Constructs.Values() {
		out = append(out, float64(v))
	}
	return out
}

// FeatureNames names the columns of Features.
func FeatureNames() []string {
	return append(append([]string(nil), metrics.MetricNames...), metrics.ConstructNames...)
}

// Measure parses one lone Java method (as metrics.OfMethodSource does: in a
// dummy class, exactly one top-level method or constructor, no syntax
// errors) and measures it, reading the tokens from the same parse.
func Measure(src string) (Measured, error) {
	f, err := code.ParseJavaMethod([]byte(src))
	if err != nil {
		return Measured{}, fmt.Errorf("measure method: %w", err)
	}
	defer f.Close()
	if se := f.SyntaxErrors(); len(se) > 0 {
		return Measured{}, fmt.Errorf("measure method: %d syntax error(s), first at line %d col %d: %s: %w",
			len(se), se[0].Line, se[0].Col, se[0].Msg, errs.ErrInput)
	}
	var top []metrics.Method
	for _, m := range metrics.OfFile(f) {
		if m.Function.Class == "" {
			top = append(top, m)
		}
	}
	if len(top) != 1 {
		return Measured{}, fmt.Errorf("measure method: found %d top-level methods, want exactly one: %w", len(top), errs.ErrInput)
	}
	m := top[0]
	return Measured{Metrics: m.Metrics, Constructs: m.Constructs, Tokens: methodTokens(f, m.Function)}, nil
}

// methodTokens are the texts of fn's tokens, comments left out.
func methodTokens(f *code.File, fn code.Function) []string {
	var toks []string
	for _, t := range f.Tokens() {
		if t.Kind != code.Comment && t.StartByte >= fn.StartByte && t.EndByte <= fn.EndByte {
			toks = append(toks, t.Text)
		}
	}
	return toks
}

// MeasureAll measures srcs on workers goroutines (0 = GOMAXPROCS). errs[i]
// is non-nil when srcs[i] could not be measured; ctx is checked between
// methods and its error returned.
func MeasureAll(ctx context.Context, srcs []string, workers int) ([]Measured, []error, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := make([]Measured, len(srcs))
	fails := make([]error, len(srcs))
	// A method that cannot be measured is a fails entry, not a pool
	// error: the pool stops only for ctx.
	if err := step.EachIndex(ctx, workers, len(srcs), func(_ context.Context, i int) error {
		out[i], fails[i] = Measure(srcs[i])
		return nil
	}); err != nil {
		return nil, nil, fmt.Errorf("measure methods: %w", err)
	}
	return out, fails, nil
}
