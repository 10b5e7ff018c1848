package fidelity

import (
	"fmt"
	"strings"

	"github.com/benchforge/benchforge/internal/report"
	"github.com/benchforge/benchforge/internal/stats"
)

func f3(v float64) string   { return fmt.Sprintf("%.3f", v) }
func g3(v float64) string   { return fmt.Sprintf("%.3g", v) }
func sgn2(v float64) string { return fmt.Sprintf("%+.2f", v) }

func star(c *Comparison) string {
	if c != nil && c.P < 0.05 {
		return "∗"
	}
	return ""
}

// Table10 renders the structural comparison for one side ("buggy" or
// "fixed") and scope ("pooled" or every type when perType).
func (r *Report) Table10(side string, perType bool) *report.Table {
	t := &report.Table{
		Header: []string{"type", "metric", "corpus n", "corpus med", "ref n", "ref med", "ref D", "ref δ", "ref |δ|", "pool n", "pool med", "pool D", "pool δ", "pool |δ|"},
		Note:   "∗ two-sided KS p < 0.05; δ is Cliff's δ of corpus vs real (positive: corpus larger), |δ| labelled by Romano's thresholds. Reference: " + r.Reference.Definition + ".",
	}
	if perType {
		t.Caption = fmt.Sprintf("Table 10 (per type, %s methods): structural metrics vs the fidelity reference set (n=%d seeds) and the seed pool (n=%d)", side, r.Reference.N, r.Seeds)
	} else {
		t.Caption = fmt.Sprintf("Table 10 (pooled, %s methods): structural metrics vs the fidelity reference set (n=%d seeds) and the seed pool (n=%d)", side, r.Reference.N, r.Seeds)
	}
	cmpCells := func(c *Comparison) []string {
		if c == nil {
			return []string{"0", "—", "—", "—", "—"}
		}
		return []string{fmt.Sprint(c.N), g3(c.Median), f3(c.D) + star(c), sgn2(c.Delta), c.Magnitude}
	}
	for _, row := range r.Structural {
		if row.Side != side || (row.Type == Pooled) == perType {
			continue
		}
		cells := []string{row.Type, row.Metric, fmt.Sprint(row.Corpus.N), g3(row.Corpus.Median)}
		cells = append(cells, cmpCells(row.Reference)...)
		cells = append(cells, cmpCells(row.Pool)...)
		t.Rows = append(t.Rows, cells)
	}
	return t
}

// Table11 renders the construct comparison; significantOnly keeps the
// cells rejected by BH (the paper's Table 11).
func (r *Report) Table11(significantOnly bool) *report.Table {
	t := &report.Table{
		Caption: fmt.Sprintf("Table 11: constructs per buggy method, corpus vs reference set (Mann–Whitney U, BH q=%.2f over %d non-empty cells; %d significant)", r.Constructs.Q, r.Constructs.Cells, r.Constructs.Significant),
		Header:  []string{"type", "construct", "corpus mean", "real mean", "ratio", "U", "p", "BH q", "significant", "direction"},
		Note:    "Mean occurrences per method; ratio is corpus over real (— when the real mean is 0).",
	}
	if significantOnly {
		t.Caption = fmt.Sprintf("Table 11 (significant cells only, BH q<%.2f)", r.Constructs.Q)
	}
	for _, c := range r.Constructs.Rows {
		if significantOnly && !c.Significant {
			continue
		}
		ratio := "—"
		if c.Ratio != nil {
			ratio = fmt.Sprintf("%.2f", *c.Ratio)
		}
		sig := ""
		if c.Significant {
			sig = "yes"
		}
		t.Rows = append(t.Rows, []string{c.Type, c.Construct, fmt.Sprintf("%.2f", c.CorpusMean), fmt.Sprintf("%.2f", c.RealMean),
			ratio, g3(c.U), g3(c.P), g3(c.QValue), sig, c.Direction})
	}
	return t
}

func pct(p Prop) string {
	if p.N == 0 {
		return "—"
	}
	return fmt.Sprintf("%d/%d (%.1f%%) [%.1f, %.1f]", p.K, p.N, 100*p.Rate, 100*p.CI.Lo, 100*p.CI.Hi)
}

// RepairTable renders the repair-style comparison.
func (r *Report) RepairTable() *report.Table {
	t := &report.Table{
		Caption: "Repair style: fixes introducing at least one throw statement (Wilson 95% CI)",
		Header:  []string{"type", "corpus", "corpus throws added", "seed pool", "seed throws added"},
	}
	for _, row := range r.Repair {
		t.Rows = append(t.Rows, []string{row.Type, pct(row.Corpus), fmt.Sprint(row.CorpusThrowsAdded), pct(row.Seeds), fmt.Sprint(row.SeedThrowsAdded)})
	}
	return t
}

// DistanceTable renders §6.5.
func (r *Report) DistanceTable() *report.Table {
	d := r.Distance
	t := &report.Table{
		Caption: fmt.Sprintf("Distance from seeds: nearest same-type reference seed method (%d comparisons)", d.Compared),
		Header:  []string{"type", "side", "n", "token-set median", "token-set max", "5-gram median", "5-gram max"},
		Note: fmt.Sprintf("Exact reproductions (identical token sequence to any same-type seed method in the pool): %d. Maximum 5-gram Jaccard %.3f (%s %s vs %s %s). Methods whose nearest seed is outside the reference set: %d.",
			d.Exact, d.MaxGram.Gram, d.MaxGram.PairID, d.MaxGram.Side, d.MaxGram.SeedID, d.MaxGram.SeedSide, d.PoolCloser),
	}
	for _, row := range d.Rows {
		t.Rows = append(t.Rows, []string{row.Type, row.Side, fmt.Sprint(row.N), f3(row.SetMedian), f3(row.SetMax), f3(row.GramMedian), f3(row.GramMax)})
	}
	return t
}

func iqr(q Quartiles) string {
	if q.N == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f [%.2f, %.2f]", q.Median, q.Q1, q.Q3)
}

// ExemplarTable renders the §6.6 size-ratio profile.
func (r *Report) ExemplarTable() *report.Table {
	t := &report.Table{
		Caption: "Exemplar fidelity: generated/exemplar size by exemplar LLOC band (median [Q1, Q3])",
		Header:  []string{"exemplar LLOC", "pairs", "exemplar LLOC med", "generated LLOC med", "LLOC ratio", "PLOC ratio"},
		Note:    fmt.Sprintf("Exemplar size is the mean over the seeds named by example_bug_ids; %d pairs name no measured seed.", r.Exemplar.Unresolved),
	}
	for _, b := range r.Exemplar.Bands {
		t.Rows = append(t.Rows, []string{b.Band, fmt.Sprint(b.N), g3(b.ExemplarLLOC), g3(b.GeneratedLLOC), iqr(b.LLOCRatio), iqr(b.PLOCRatio)})
	}
	return t
}

// DensityTable renders physical lines per statement.
func (r *Report) DensityTable() *report.Table {
	t := &report.Table{
		Caption: "Physical lines per statement (PLOC/LLOC of buggy methods), median [Q1, Q3]",
		Header:  []string{"type", "corpus n", "corpus", "reference n", "reference"},
	}
	for _, d := range r.Exemplar.LinesPerStatement {
		t.Rows = append(t.Rows, []string{d.Type, fmt.Sprint(d.Corpus.N), iqr(d.Corpus), fmt.Sprint(d.Reference.N), iqr(d.Reference)})
	}
	return t
}

// ReferenceTable lists the seeds outside the reference set.
func (r *Report) ReferenceTable() *report.Table {
	t := &report.Table{
		Caption: fmt.Sprintf("Fidelity reference set: %d of %d seeds (%s rule); excluded seeds", r.Reference.N, r.Seeds, r.Reference.Rule),
		Header:  []string{"bug_id", "type", "LLOC", "fence"},
		Note:    r.Reference.Definition + ".",
	}
	for _, e := range r.Reference.Excluded {
		fence := "—"
		if e.Fence > 0 {
			fence = g3(e.Fence)
		}
		t.Rows = append(t.Rows, []string{e.BugID, e.Exception, fmt.Sprint(e.LLOC), fence})
	}
	return t
}

// Tables returns every table of the report in page order.
func (r *Report) Tables(fixed bool) []*report.Table {
	ts := []*report.Table{r.ReferenceTable(), r.Table10("buggy", false), r.Table10("buggy", true)}
	if fixed {
		ts = append(ts, r.Table10("fixed", false), r.Table10("fixed", true))
	}
	return append(ts, r.Table11(true), r.Table11(false), r.RepairTable(), r.DistanceTable(), r.ExemplarTable(), r.DensityTable())
}

func (r *Report) hasFixed() bool {
	for _, s := range r.Structural {
		if s.Side == "fixed" {
			return true
		}
	}
	return false
}

// Markdown renders every table as Markdown.
func (r *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Corpus fidelity (rxsynth §6)\n\n%d pairs against %d seeds; %d methods could not be measured and are left out.\n\n", r.Pairs, r.Seeds, len(r.Skipped))
	b.WriteString(report.SmallSampleMarkdown(r.SmallSamples()))
	for _, t := range r.Tables(r.hasFixed()) {
		b.WriteString(t.Markdown())
		b.WriteString("\n")
	}
	return b.String()
}

// Page renders the HTML report with the ECDF and Figure 5 plots.
func (r *Report) Page() (*report.Page, error) {
	p := &report.Page{Title: "Corpus fidelity", Subtitle: fmt.Sprintf("%d synthetic pairs vs %d real seeds (rxsynth §6)", r.Pairs, r.Seeds)}
	ts := r.Tables(r.hasFixed())
	report.SmallSampleSection(p, r.SmallSamples())
	ref := p.AddSection("reference", "Fidelity reference set")
	ref.Add(&report.KeyValues{Items: []report.KV{
		{Key: "pairs", Value: fmt.Sprint(r.Pairs)}, {Key: "seeds", Value: fmt.Sprint(r.Seeds)},
		{Key: "reference set", Value: fmt.Sprint(r.Reference.N)}, {Key: "unmeasurable methods", Value: fmt.Sprint(len(r.Skipped))},
	}}, ts[0])
	st := p.AddSection("structural", "Structural distribution (Table 10)")
	n10 := 2
	if r.hasFixed() {
		n10 = 4
	}
	for _, t := range ts[1 : 1+n10] {
		st.Add(t)
	}
	ecdf := p.AddSection("ecdf", "Token-count ECDFs by type")
	for _, e := range r.TokenECDF {
		svg, err := ECDFPlot(e)
		if err != nil {
			return nil, err
		}
		ecdf.Add(&report.Plot{Caption: "Buggy-method token counts, " + e.Type, SVG: svg})
	}
	lex := p.AddSection("lexical", "Lexical constructs (Table 11) and repair style")
	lex.Add(ts[1+n10], ts[2+n10], ts[3+n10])
	p.AddSection("distance", "Distance from seeds").Add(ts[4+n10])
	ex := p.AddSection("exemplar", "Fidelity to the conditioning exemplar")
	ex.Add(ts[5+n10], ts[6+n10])
	if len(r.Exemplar.Bands) > 0 {
		var med, q1, q3 report.Series
		med.Label, q1.Label, q3.Label = "median", "Q1", "Q3"
		for _, b := range r.Exemplar.Bands {
			x := b.ExemplarLLOC
			med.X, med.Y = append(med.X, x), append(med.Y, b.LLOCRatio.Median)
			q1.X, q1.Y = append(q1.X, x), append(q1.Y, b.LLOCRatio.Q1)
			q3.X, q3.Y = append(q3.X, x), append(q3.Y, b.LLOCRatio.Q3)
		}
		svg, err := report.Lines("Generated/exemplar LLOC by exemplar size", "exemplar LLOC (band median)", "LLOC ratio", []report.Series{med, q1, q3}, false)
		if err != nil {
			return nil, fmt.Errorf("fidelity report: figure 5: %w", err)
		}
		ex.Add(&report.Plot{Caption: "Figure 5 shape: binned median and IQR of the generated/exemplar LLOC ratio", SVG: svg})
	}
	return p, nil
}

// ECDFPlot draws one type's token-count ECDFs (corpus and reference) as SVG.
func ECDFPlot(e TypeECDF) ([]byte, error) {
	var series []report.Series
	for _, s := range []struct {
		label string
		pts   []stats.ECDFPoint
	}{{"corpus", e.Corpus}, {"reference", e.Reference}} {
		if len(s.pts) == 0 {
			continue
		}
		sr := report.Series{Label: s.label}
		for _, pt := range s.pts {
			sr.X, sr.Y = append(sr.X, pt.X), append(sr.Y, pt.F)
		}
		series = append(series, sr)
	}
	svg, err := report.Lines(e.Type, "tokens", "F(x)", series, true)
	if err != nil {
		return nil, fmt.Errorf("fidelity report: ECDF %s: %w", e.Type, err)
	}
	return svg, nil
}
