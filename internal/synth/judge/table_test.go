package judge

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/synth/corpus"
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
			r := Record{PairID: fmt.Sprintf("%s-%d", p.typ, i), ErrorType: p.typ,
				Stage1: &Stage1Result{Stage1: Stage1{CanThrowT: true}}}
			switch {
			case i < p.initial:
				r.Initial, r.Verdict = Accept, Accept
			case i < p.initial+p.cand:
				r.Initial, r.Repair, r.Verdict = Reject, &Repair{}, Reject
				if i < p.initial+p.accepted {
					r.Verdict = Accept
				}
			default:
				r.Stage1.CanThrowT = false
				r.Initial, r.Verdict = Reject, Reject
			}
			recs = append(recs, r)
		}
	}
	tb := BuildTable(recs)
	tot := tb.Total
	if tot.Judged != 4900 || tot.InitialValid != 4112 || tot.RepairCandidates != 168 || tot.RepairAccepted != 163 || tot.Excluded != 625 || tot.Final != 4275 {
		t.Errorf("totals = %+v", tot)
	}
	if s := fmt.Sprintf("%.1f %.1f", 100*tot.InitialRate, 100*tot.FinalRate); s != "83.9 87.2" {
		t.Errorf("rates = %s, want 83.9 87.2", s)
	}
	golden.Check(t, "testdata/table7_paper.golden.md", []byte(tb.Markdown()))
	b, err := json.MarshalIndent(tb.Rows[len(tb.Rows)-1], "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/table7_paper_ise_row.golden.json", append(b, '\n'))
}
