package judge

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// TestTable7PaperCounts rebuilds rxsynth Table 7 from records carrying its
// per-type counts (judged, initial valid, repair candidates and accepted)
// and compares the rendering with a golden file: the totals must come out
// as the paper's 4,900 / 4,112 (83.9%) / 168 / 163 / 625 / 4,275 (87.2%).
func TestTable7PaperCounts(t *testing.T) {
	paper := []struct {
		typ                             string
		judged, initial, cand, accepted int
	}{
		{corpus.NullPointer, 1000, 975, 1, 1},
		{corpus.IllegalArgument, 800, 649, 21, 20},
		{corpus.ClassCast, 700, 646, 8, 8},
		{corpus.NumberFormat, 700, 568, 28, 28},
		{corpus.ArrayIndexOOB, 700, 570, 5, 5},
		{corpus.IllegalState, 500, 305, 104, 100},
		{corpus.StringIndexOOB, 500, 399, 1, 1},
	}
	var recs []Record
	for _, p := range paper {
		for i := range p.judged {
			recs = append(recs, paperRecord(p.typ, i, p.initial, p.cand, p.accepted))
		}
	}
	tb := BuildTable(recs)
	tot := tb.Total
	testcheck.Eq(t, "totals (judged, initial valid, repair candidates, repair accepted, excluded, final)",
		[6]int{tot.Judged, tot.InitialValid, tot.RepairCandidates, tot.RepairAccepted, tot.Excluded, tot.Final},
		[6]int{4900, 4112, 168, 163, 625, 4275})
	testcheck.Eq(t, "rates", fmt.Sprintf("%.1f %.1f", 100*tot.InitialRate, 100*tot.FinalRate), "83.9 87.2")
	golden.Check(t, "testdata/table7_paper.golden.md", []byte(tb.Markdown()))
	b, err := json.MarshalIndent(tb.Rows[len(tb.Rows)-1], "", "  ")
	testcheck.Must(t, err)
	golden.Check(t, "testdata/table7_paper_ise_row.golden.json", append(b, '\n'))
}

// paperRecord is the i-th record of a type: the first initial are valid
// at once, the next cand are repair candidates (the first accepted of
// them accepted after the repair), the rest are excluded.
func paperRecord(typ string, i, initial, cand, accepted int) Record {
	r := Record{PairID: fmt.Sprintf("%s-%d", typ, i), ErrorType: typ,
		Stage1: &Stage1Result{Stage1: Stage1{CanThrowT: true}}}
	switch {
	case i < initial:
		r.Initial, r.Verdict = Accept, Accept
	case i < initial+cand:
		r.Initial, r.Repair, r.Verdict = Reject, &Repair{}, Reject
		if i < initial+accepted {
			r.Verdict = Accept
		}
	default:
		r.Stage1.CanThrowT = false
		r.Initial, r.Verdict = Reject, Reject
	}
	return r
}
