package jvm

import (
	"github.com/benchforge/benchforge/internal/stats"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// Rate is k of n with its Wilson 95% interval (absent when n = 0).
type Rate struct {
	K    int             `json:"k"`
	N    int             `json:"n"`
	Rate float64         `json:"rate"`
	CI   *stats.Interval `json:"ci95,omitempty"`
}

func rate(k, n int) Rate {
	r := Rate{K: k, N: n}
	if n > 0 {
		r.Rate = float64(k) / float64(n)
		if ci, err := stats.Wilson(k, n, 0.95); err == nil {
			r.CI = &ci
		}
	}
	return r
}

// Row is one exception type's (or the pooled) confirmation counts: the
// shape of rxsynth Tables 8 and 9. Rates are over all N pairs, so an
// uncompilable pair counts as unconfirmed, as in the paper.
type Row struct {
	Type     string `json:"type"`
	N        int    `json:"n"`
	Compiled Rate   `json:"compiled"`
	A        Rate   `json:"a"`
	B        Rate   `json:"b"`
	C        Rate   `json:"c"`
}

// Table is the per-type confirmation table, in corpus.Types order (types
// with no pairs omitted), plus the pooled row.
type Table struct {
	Rows   []Row `json:"rows"`
	Pooled Row   `json:"pooled"`
}

// Confirmation tabulates execution records.
func Confirmation(recs []Execution) Table {
	per := map[string]*confirmCount{}
	var all confirmCount
	for _, e := range recs {
		c := per[e.ErrorType]
		if c == nil {
			c = &confirmCount{}
			per[e.ErrorType] = c
		}
		c.add(e)
		all.add(e)
	}
	t := Table{Rows: []Row{}, Pooled: all.row("Overall")}
	for _, ty := range corpus.Types {
		if c := per[ty]; c != nil {
			t.Rows = append(t.Rows, c.row(ty))
		}
	}
	return t
}

// confirmCount counts the records of one row: all, compiled, and meeting
// each criterion.
type confirmCount struct{ n, comp, a, b, c int }

func (x *confirmCount) add(e Execution) {
	x.n++
	x.comp += one(e.Compile.OK)
	x.a += one(e.Criteria.A)
	x.b += one(e.Criteria.B)
	x.c += one(e.Criteria.C)
}

// one counts a condition: 1 when it holds.
func one(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (x confirmCount) row(t string) Row {
	return Row{Type: t, N: x.n, Compiled: rate(x.comp, x.n), A: rate(x.a, x.n), B: rate(x.b, x.n), C: rate(x.c, x.n)}
}
