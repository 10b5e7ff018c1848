package rescore

import (
	"fmt"
	"math"
	"strings"

	"github.com/benchforge/benchforge/internal/report"
)

// FormatCell renders a cell as the paper's tables do:
// "394/500 → 130/174 ↓5.2%" (↑ for a rise, "n/a" without clean samples).
func FormatCell(c Cell) string {
	s := fmt.Sprintf("%d/%d → %d/%d", c.All.Resolved, c.All.Total, c.Clean.Resolved, c.Clean.Total)
	if c.Drop == nil {
		return s + " n/a"
	}
	d := *c.Drop
	if d < 0 {
		return fmt.Sprintf("%s ↑%.1f%%", s, -100*d)
	}
	return fmt.Sprintf("%s ↓%.1f%%", s, 100*d)
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

func pctPtr(x *float64) string {
	if x == nil {
		return "n/a"
	}
	return pct(*x)
}

// Tables returns the report tables: submissions (all vs clean, overall and
// per difficulty), the timeline by year, bucket sizes, and skipped
// submissions when there are any.
func (r *Result) Tables() []*report.Table {
	subs := &report.Table{
		Caption: "Resolution rate on all vs clean samples (resolved/total all → resolved/total clean, relative drop)",
		Header:  append([]string{"Submission", "Date", "Verdict model", "Overall"}, r.Difficulties...),
	}
	for _, s := range r.Submissions {
		row := []any{s.Submission, dash(s.Date), dash(s.Model), FormatCell(s.Overall)}
		for _, c := range s.ByDifficulty {
			row = append(row, FormatCell(c))
		}
		subs.AddRow(row...)
	}
	subs.Note = "Relative drop = (all rate − clean rate) / all rate; ↑ marks a higher rate on clean samples."
	out := []*report.Table{subs}

	if len(r.ByYear) > 0 {
		years := &report.Table{
			Caption: "By submission year (unweighted means over submissions)",
			Header:  append([]string{"Year", "Submissions", "All rate", "Clean rate", "Relative drop"}, r.Difficulties...),
		}
		for _, y := range r.ByYear {
			row := []any{y.Year, y.Submissions, pct(y.AllRate), pct(y.CleanRate), pct(y.Drop)}
			for _, d := range y.ByDifficulty {
				row = append(row, pctPtr(d))
			}
			years.AddRow(row...)
		}
		out = append(out, years)
	}
	if len(r.Buckets) > 0 {
		b := &report.Table{Caption: "Samples per difficulty", Header: []string{"Difficulty", "All", "Clean", "Contaminated"}}
		for _, c := range r.Buckets {
			b.AddRow(c.Bucket, c.All, c.Clean, c.All-c.Clean)
		}
		b.AddRow("total", r.Samples, r.Clean, r.Contaminated)
		out = append(out, b)
	}
	if len(r.Skipped) > 0 {
		sk := &report.Table{Caption: "Submissions not rescored", Header: []string{"Submission", "Reason"}}
		for _, s := range r.Skipped {
			sk.AddRow(s.Submission, s.Reason)
		}
		out = append(out, sk)
	}
	return out
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// summary is the one-paragraph description of the clean subset.
func (r *Result) summary() string {
	if r.Clean+r.Contaminated == 0 {
		return fmt.Sprintf("%d samples; verdicts from several models (see each submission's verdict model).", r.Samples)
	}
	s := fmt.Sprintf("%d samples: %d contaminated, %d clean (%s)", r.Samples, r.Contaminated, r.Clean, pct(float64(r.Clean)/float64(r.Samples)))
	if r.Unjudged > 0 {
		s += fmt.Sprintf("; %d had no verdict and count as clean", r.Unjudged)
	}
	return s + "."
}

// Markdown renders the summary and tables as Markdown.
func (r *Result) Markdown() string {
	var b strings.Builder
	b.WriteString("# Leaderboard re-scored on clean samples\n\n")
	b.WriteString(r.summary() + "\n")
	for _, t := range r.Tables() {
		b.WriteString("\n" + t.Markdown())
	}
	return b.String()
}

// Page builds the HTML report: the tables and a bar chart of the relative
// drop per difficulty bucket for the top submissions.
func (r *Result) Page(title string) (*report.Page, error) {
	p := &report.Page{Title: title, Subtitle: "benchchecker §6: resolution rate on all vs clean samples"}
	sec := p.AddSection("rescore", "Re-scored leaderboard")
	sec.Add(&report.Paragraph{Text: r.summary()})
	for _, t := range r.Tables() {
		sec.Add(t)
	}
	plot, err := r.DropPlot()
	if err != nil {
		return nil, err
	}
	if plot != nil {
		sec.Add(plot)
	}
	if len(r.ByYear) > 1 {
		var xs, all, clean []float64
		for _, y := range r.ByYear {
			xs = append(xs, float64(y.Year))
			all = append(all, 100*y.AllRate)
			clean = append(clean, 100*y.CleanRate)
		}
		svg, err := report.Lines("Mean resolution rate by submission year", "year", "resolution rate (%)",
			[]report.Series{{Label: "all samples", X: xs, Y: all}, {Label: "clean samples", X: xs, Y: clean}}, false)
		if err != nil {
			return nil, fmt.Errorf("rescore: plot: %w", err)
		}
		sec.Add(&report.Plot{Caption: "Mean resolution rate on all vs clean samples, by submission year.", SVG: svg})
	}
	return p, nil
}

// DropPlot is the bar chart of the relative drop overall and per
// difficulty bucket for the five highest-ranked submissions; nil when
// there is no submission or no difficulty bucket.
func (r *Result) DropPlot() (*report.Plot, error) {
	if len(r.Submissions) == 0 || len(r.Difficulties) == 0 {
		return nil, nil
	}
	labels := append([]string{"overall"}, r.Difficulties...)
	var series []report.Series
	top := r.Submissions[:min(len(r.Submissions), 5)]
	for _, s := range top {
		ys := []float64{100 * orNaN(s.Overall.Drop)}
		for _, c := range s.ByDifficulty {
			ys = append(ys, 100*orNaN(c.Drop))
		}
		series = append(series, report.Series{Label: s.Submission, Y: ys})
	}
	svg, err := report.Bars("Relative drop by difficulty (top submissions)", "relative drop (%)", labels, series)
	if err != nil {
		return nil, fmt.Errorf("rescore: plot: %w", err)
	}
	return &report.Plot{Caption: "Relative drop of the resolution rate on clean samples, per difficulty, for the five highest-ranked submissions (n/a: no clean sample in the bucket).", SVG: svg}, nil
}

// orNaN is *x, or NaN (no bar, marked n/a) when the drop is undefined.
func orNaN(x *float64) float64 {
	if x == nil {
		return math.NaN()
	}
	return *x
}
