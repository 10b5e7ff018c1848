package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Series is a named sequence of points for line, step and ROC plots.
type Series struct {
	Label string
	X, Y  []float64
}

// palette is colour-blind safe (Okabe–Ito).
var palette = []color.RGBA{
	{0, 114, 178, 255}, {230, 159, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255},
	{86, 180, 233, 255}, {213, 94, 0, 255}, {240, 228, 66, 255}, {0, 0, 0, 255},
}

func colour(i int) color.RGBA { return palette[i%len(palette)] }

const plotW, plotH = 6 * vg.Inch, 4 * vg.Inch

func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Legend.Top = true
	p.Legend.Left = false
	p.Add(plotter.NewGrid())
	return p
}

func svg(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	wt, err := p.WriterTo(w, h, "svg")
	if err != nil {
		return nil, fmt.Errorf("plot %q: %w", p.Title.Text, err)
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return nil, fmt.Errorf("plot %q: %w", p.Title.Text, err)
	}
	return b.Bytes(), nil
}

func xys(s Series) (plotter.XYs, error) {
	if len(s.X) != len(s.Y) {
		return nil, fmt.Errorf("series %q: %d x values but %d y values", s.Label, len(s.X), len(s.Y))
	}
	pts := make(plotter.XYs, 0, len(s.X))
	for i := range s.X {
		if math.IsNaN(s.X[i]) || math.IsNaN(s.Y[i]) || math.IsInf(s.X[i], 0) || math.IsInf(s.Y[i], 0) {
			continue // e.g. the +Inf threshold point of an ROC curve
		}
		pts = append(pts, plotter.XY{X: s.X[i], Y: s.Y[i]})
	}
	return pts, nil
}

// Lines draws each series as a line (step=true draws an ECDF-style step).
func Lines(title, xlabel, ylabel string, series []Series, step bool) ([]byte, error) {
	p := newPlot(title, xlabel, ylabel)
	for i, s := range series {
		pts, err := xys(s)
		if err != nil {
			return nil, err
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("plot %q series %q: %w", title, s.Label, err)
		}
		if step {
			l.StepStyle = plotter.PostStep
		}
		l.Color = colour(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		if s.Label != "" {
			p.Legend.Add(s.Label, l)
		}
	}
	return svg(p, plotW, plotH)
}

// ROC draws ROC curves (X = FPR, Y = TPR) with the chance diagonal.
func ROC(title string, curves []Series) ([]byte, error) {
	p := newPlot(title, "false positive rate", "true positive rate")
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	diag, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	diag.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
	diag.Color = color.Gray{Y: 150}
	p.Add(diag)
	for i, s := range curves {
		pts, err := xys(s)
		if err != nil {
			return nil, err
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("plot %q curve %q: %w", title, s.Label, err)
		}
		l.Color = colour(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s.Label, l)
	}
	p.Legend.Top = false
	return svg(p, 5*vg.Inch, 5*vg.Inch)
}

// Strip draws one row of points per category (e.g. per-repository
// p-values), with an optional vertical reference line at ref (e.g. α;
// NaN for none). logX uses a log10 axis for values in (0, 1].
func Strip(title, xlabel string, categories []string, values [][]float64, ref float64, logX bool) ([]byte, error) {
	if len(categories) != len(values) {
		return nil, fmt.Errorf("strip plot %q: %d categories but %d value lists", title, len(categories), len(values))
	}
	p := newPlot(title, xlabel, "")
	if logX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = labelledLogTicks{}
	}
	for i, vs := range values {
		pts := stripPoints(vs, float64(i), logX)
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, fmt.Errorf("strip plot %q: %w", title, err)
		}
		sc.GlyphStyle.Color = colour(i)
		sc.GlyphStyle.Radius = vg.Points(2.5)
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		p.Add(sc)
	}
	if !math.IsNaN(ref) && (!logX || ref > 0) {
		l, _ := plotter.NewLine(plotter.XYs{{X: ref, Y: -0.5}, {X: ref, Y: float64(len(categories)) - 0.5}})
		l.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		l.Color = color.RGBA{200, 0, 0, 255}
		p.Add(l)
	}
	p.NominalY(categories...)
	h := vg.Length(len(categories))*vg.Points(22) + vg.Inch
	return svg(p, plotW, max(h, 2*vg.Inch))
}

// stripPoints places one row's values at height y, jittered; NaN values
// (and non-positive ones on a log axis) are left out.
func stripPoints(vs []float64, y float64, logX bool) plotter.XYs {
	var pts plotter.XYs
	for j, v := range vs {
		if math.IsNaN(v) || (logX && v <= 0) {
			continue
		}
		// Small deterministic jitter keeps equal values visible.
		jit := (float64(j%7) - 3) * 0.04
		pts = append(pts, plotter.XY{X: v, Y: y + jit})
	}
	return pts
}

// Bars draws grouped bars: one group per label, one bar per series, each
// bar labelled with its value. A NaN value draws no bar and is marked
// "n/a" (a rate with no denominator is not a zero). The y range always
// includes 0 and leaves room above the tallest bar for the legend, so
// the legend never covers a bar.
func Bars(title, ylabel string, labels []string, series []Series) ([]byte, error) {
	p := newPlot(title, "", ylabel)
	w := vg.Points(14)
	n := len(series)
	lo, hi := finiteRange(series)
	if hi == lo {
		hi = lo + 1
	}
	for i, s := range series {
		if len(s.Y) != len(labels) {
			return nil, fmt.Errorf("bar plot %q series %q: %d values for %d labels", title, s.Label, len(s.Y), len(labels))
		}
		offset := w * vg.Length(float64(i)-float64(n-1)/2)
		if err := addBars(p, s, colour(i), w, offset); err != nil {
			return nil, fmt.Errorf("bar plot %q: %w", title, err)
		}
	}
	p.NominalX(labels...)
	// Half a group of margin each side, so the outer groups' bars and
	// labels are not cut at the axes.
	p.X.Min, p.X.Max = -0.5, float64(len(labels))-0.5
	// Headroom above the tallest bar for its value label and one legend
	// line per series; below 0 only when a value is negative.
	p.Y.Min = lo - 0.08*(hi-lo)*b2f(lo < 0)
	p.Y.Max = hi + (hi-lo)*(0.12+0.07*float64(n))
	return svg(p, plotW, plotH)
}

// finiteRange is the range of the series' finite values, 0 included.
func finiteRange(series []Series) (lo, hi float64) {
	for _, s := range series {
		for _, y := range s.Y {
			if !math.IsNaN(y) && !math.IsInf(y, 0) {
				lo, hi = math.Min(lo, y), math.Max(hi, y)
			}
		}
	}
	return lo, hi
}

// addBars adds one series' bars of width w at offset, with its legend
// entry and a label on each bar: its value, or "n/a" at 0 for a missing
// one.
func addBars(p *plot.Plot, s Series, c color.RGBA, w, offset vg.Length) error {
	ys := make(plotter.Values, len(s.Y))
	var at plotter.XYs
	var texts []string
	for j, y := range s.Y {
		switch {
		case math.IsNaN(y) || math.IsInf(y, 0):
			at, texts = append(at, plotter.XY{X: float64(j), Y: 0}), append(texts, "n/a")
		default:
			ys[j] = y
			at, texts = append(at, plotter.XY{X: float64(j), Y: y}), append(texts, fmt.Sprintf("%.3g", y))
		}
	}
	b, err := plotter.NewBarChart(ys, w)
	if err != nil {
		return err
	}
	b.Color = c
	b.LineStyle.Width = 0
	b.Offset = offset
	p.Add(b)
	p.Legend.Add(s.Label, b)
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: at, Labels: texts})
	if err != nil {
		return err
	}
	for k := range lb.TextStyle {
		lb.TextStyle[k].XAlign = draw.XCenter
		lb.TextStyle[k].Font.Size = vg.Points(8)
		if at[k].Y < 0 {
			lb.TextStyle[k].YAlign = draw.YTop
		}
	}
	lb.Offset = vg.Point{X: b.Offset, Y: 0}
	p.Add(lb)
	return nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// labelledLogTicks are log-scale ticks with at least two labels: powers of
// ten, and 2× and 5× them when the range spans less than a decade or two
// (plot.LogTicks labels only powers of ten, so a range such as 0.05–1
// would show one labelled tick).
type labelledLogTicks struct{}

func (labelledLogTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.LogTicks{Prec: -1}.Ticks(lo, hi)
	labelled := 0
	for _, t := range ticks {
		if t.Label != "" {
			labelled++
		}
	}
	if labelled >= 3 || lo <= 0 {
		return ticks
	}
	var out []plot.Tick
	for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if v < lo*(1-1e-9) || v > hi*(1+1e-9) {
				continue
			}
			out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', -1, 64)})
		}
	}
	if len(out) < 2 {
		return ticks
	}
	return out
}
