package judge

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/benchforge/benchforge/internal/stats"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// Row is one exception type's line of the validation and repair table
// (rxsynth Table 7).
//
//   - Judged: pairs submitted to the pass (invalid records included).
//   - Stage1Pass: Stage 1 confirmed a patch-local T-risk on the pair as
//     submitted (whole-method rubric: the buggy method can throw T).
//   - InitialValid: accepted on the first pass, before any repair.
//   - RepairCandidates: Stage 2 rejections sent to the one regeneration;
//     RepairAccepted: those accepted on re-judgement.
//   - Unparseable: excluded because a judge answer could not be read.
//   - Excluded: every pair not finally accepted (Unparseable included).
//   - Final: InitialValid + RepairAccepted; FinalRate = Final/Judged with
//     its Wilson 95% interval.
type Row struct {
	Type             string         `json:"type"`
	Judged           int            `json:"judged"`
	Stage1Pass       int            `json:"stage1_pass"`
	InitialValid     int            `json:"initial_valid"`
	InitialRate      float64        `json:"initial_rate"`
	RepairCandidates int            `json:"repair_candidates"`
	RepairAccepted   int            `json:"repair_accepted"`
	Unparseable      int            `json:"unparseable"`
	Excluded         int            `json:"excluded"`
	Final            int            `json:"final"`
	FinalRate        float64        `json:"final_rate"`
	FinalCI          stats.Interval `json:"final_ci95"`
}

// Table is the per-type validation and repair table of one pass.
type Table struct {
	Model  string `json:"model,omitempty"`
	Rubric string `json:"rubric,omitempty"`
	Rows   []Row  `json:"rows"`
	Total  Row    `json:"total"`
}

// BuildTable tabulates judgement records by error type: the seven in-scope
// types in corpus.Types order, then any other label met (invalid records),
// then the total.
func BuildTable(recs []Record) Table {
	rows := map[string]*Row{}
	total := &Row{Type: "Total"}
	for _, r := range recs {
		row := rows[r.ErrorType]
		if row == nil {
			row = &Row{Type: r.ErrorType}
			rows[r.ErrorType] = row
		}
		for _, x := range []*Row{row, total} {
			x.add(r)
		}
	}
	var t Table
	for _, typ := range corpus.Types {
		if row := rows[typ]; row != nil {
			t.Rows = append(t.Rows, row.finish())
			delete(rows, typ)
		}
	}
	t.Rows = append(t.Rows, otherRows(rows)...)
	if t.Rows == nil {
		t.Rows = []Row{}
	}
	t.Total = total.finish()
	return t
}

// otherRows finishes the rows of labels outside corpus.Types, by label.
func otherRows(rows map[string]*Row) []Row {
	var out []Row
	for _, typ := range slices.Sorted(maps.Keys(rows)) {
		row := rows[typ]
		if row.Type == "" {
			row.Type = "(no type)"
		}
		out = append(out, row.finish())
	}
	return out
}

func (x *Row) add(r Record) {
	x.Judged++
	if passedStage1(r) {
		x.Stage1Pass++
	}
	if r.Initial == Accept {
		x.InitialValid++
	}
	if r.Repair != nil {
		x.RepairCandidates++
		if r.Verdict == Accept {
			x.RepairAccepted++
		}
	}
	if r.Verdict != Accept {
		x.Excluded++
		if r.Verdict == Unparseable {
			x.Unparseable++
		}
	}
}

// passedStage1 reports whether the judge's first stage (of either rubric)
// read its answer and found the buggy method can throw the label.
func passedStage1(r Record) bool {
	return r.Stage1 != nil && r.Stage1.Unparseable == "" && r.Stage1.CanThrowT ||
		r.Whole != nil && r.Whole.Unparseable == "" && r.Whole.BuggyCanThrowT
}

func (x *Row) finish() Row {
	x.Final = x.InitialValid + x.RepairAccepted
	if x.Judged > 0 {
		x.InitialRate = float64(x.InitialValid) / float64(x.Judged)
		x.FinalRate = float64(x.Final) / float64(x.Judged)
		if ci, err := stats.Wilson(x.Final, x.Judged, 0.95); err == nil {
			x.FinalCI = ci
		}
	}
	return *x
}

// Markdown renders the table in Table 7's shape.
func (t Table) Markdown() string {
	var b strings.Builder
	if t.Model != "" || t.Rubric != "" {
		fmt.Fprintf(&b, "Validation and repair outcome per exception type (judge %s, %s rubric).\n\n", t.Model, t.Rubric)
	}
	b.WriteString("| Exception type | Judged | Stage 1 pass | Initial valid n | % | Repair cand. | Repair acc. | Unparseable | Excl. | Final n | % | 95% CI |\n")
	b.WriteString("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n")
	for _, r := range append(slices.Clone(t.Rows), t.Total) {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %.1f | %d | %d | %d | %d | %d | %.1f | %s |\n", r.Type, r.Judged, r.Stage1Pass,
			r.InitialValid, 100*r.InitialRate, r.RepairCandidates, r.RepairAccepted, r.Unparseable, r.Excluded, r.Final, 100*r.FinalRate, r.CIString())
	}
	return b.String()
}

// CIString renders the final-rate interval in percent.
func (r Row) CIString() string {
	if r.Judged == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f–%.1f", 100*r.FinalCI.Lo, 100*r.FinalCI.Hi)
}
