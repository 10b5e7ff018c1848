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
	return s + " " + FormatDrop(c.Drop)
}

// FormatDrop renders a relative drop with the one arrow convention of
// every table: "↓5.2%" lower on clean samples, "↑3.0%" higher, "n/a"
// undefined.
func FormatDrop(d *float64) string {
	switch {
	case d == nil:
		return "n/a"
	case *d < 0:
		return fmt.Sprintf("↑%.1f%%", -100**d)
	}
	return fmt.Sprintf("↓%.1f%%", 100**d)
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// PolicyLabel names the unjudged policy beside a rate.
func PolicyLabel(policy string) string {
	switch policy {
	case UnjudgedClean:
		return "unjudged counted clean"
	case UnjudgedContaminated:
		return "unjudged counted contaminated"
	}
	return "unjudged excluded"
}

func (r *Result) rated(name string) string { return name + " [" + PolicyLabel(r.UnjudgedPolicy) + "]" }

// Tables returns the report tables: submissions (all vs clean, overall and
// per difficulty), the timeline by year, bucket sizes, and skipped
// submissions when there are any.
func (r *Result) Tables() []*report.Table {
	out := []*report.Table{r.submissionTable()}
	if len(r.ByYear) > 0 {
		out = append(out, r.yearTable())
	}
	if len(r.Buckets) > 0 {
		out = append(out, r.bucketTable())
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

// submissionTable is one row per submission: all vs clean, overall and
// per difficulty.
func (r *Result) submissionTable() *report.Table {
	subs := &report.Table{
		Caption: "Resolution rate on all vs clean samples (resolved/total all → resolved/total clean, relative drop; " + PolicyLabel(r.UnjudgedPolicy) + ")",
		Header:  []string{"Submission", "Date", "Verdict model", r.rated("Overall"), "Unjudged"},
	}
	for _, d := range r.Difficulties {
		subs.Header = append(subs.Header, r.rated(d))
	}
	for _, s := range r.Submissions {
		row := []any{s.Submission, dash(s.Date), dash(s.Model), FormatCell(s.Overall), s.Overall.Unjudged}
		for _, c := range s.ByDifficulty {
			row = append(row, FormatCell(c))
		}
		subs.AddRow(row...)
	}
	subs.Note = "Relative drop = (all rate − clean rate) / all rate; ↓ marks a lower, ↑ a higher rate on clean samples. " + r.policyNote()
	return subs
}

// yearTable is the timeline: one row per submission year.
func (r *Result) yearTable() *report.Table {
	years := &report.Table{
		Caption: "By submission year (unweighted means over submissions)",
		Header:  []string{"Year", "Submissions", r.rated("All rate"), r.rated("Clean rate"), "Relative drop"},
	}
	for _, d := range r.Difficulties {
		years.Header = append(years.Header, d+" drop")
	}
	for _, y := range r.ByYear {
		d := y.Drop
		row := []any{y.Year, y.Submissions, pct(y.AllRate), pct(y.CleanRate), FormatDrop(&d)}
		for _, d := range y.ByDifficulty {
			row = append(row, FormatDrop(d))
		}
		years.AddRow(row...)
	}
	return years
}

// bucketTable is the samples per difficulty, as judged, and the total.
func (r *Result) bucketTable() *report.Table {
	b := &report.Table{Caption: "Samples per difficulty, as judged (before the unjudged policy)", Header: []string{"Difficulty", "All", "Clean", "Contaminated", "Unjudged"}}
	for _, c := range r.Buckets {
		b.AddRow(c.Bucket, c.All, c.Clean, c.All-c.Clean-c.Unjudged, c.Unjudged)
	}
	b.AddRow("total", r.Samples, r.Clean, r.Contaminated, r.Unjudged)
	return b
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
	s := fmt.Sprintf("%d samples: %d contaminated, %d clean (%s), %d unjudged (%s)", r.Samples, r.Contaminated, r.Clean,
		pct(float64(r.Clean)/float64(r.Samples)), r.Unjudged, pct(float64(r.Unjudged)/float64(r.Samples)))
	return s + ". " + r.policyNote()
}

// policyNote says what the policy did with the unjudged samples.
func (r *Result) policyNote() string {
	switch r.UnjudgedPolicy {
	case UnjudgedClean:
		return "Unjudged samples (no verdict, or a verdict that could not tell) are counted clean (--unjudged clean)."
	case UnjudgedContaminated:
		return "Unjudged samples (no verdict, or a verdict that could not tell) are counted contaminated (--unjudged contaminated)."
	}
	return "Unjudged samples (no verdict, or a verdict that could not tell) are left out of both rates (--unjudged exclude)."
}

// Summary is the one-paragraph description of the clean subset, for the
// terminal.
func (r *Result) Summary() string { return r.summary() }

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
