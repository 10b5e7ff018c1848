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
	type cnt struct{ n, comp, a, b, c int }
	per := map[string]*cnt{}
	var all cnt
	for _, e := range recs {
		c := per[e.ErrorType]
		if c == nil {
			c = &cnt{}
			per[e.ErrorType] = c
		}
		for _, x := range []*cnt{c, &all} {
			x.n++
			if e.Compile.OK {
				x.comp++
			}
			if e.Criteria.A {
				x.a++
			}
			if e.Criteria.B {
				x.b++
			}
			if e.Criteria.C {
				x.c++
			}
		}
	}
	row := func(t string, c cnt) Row {
		return Row{Type: t, N: c.n, Compiled: rate(c.comp, c.n), A: rate(c.a, c.n), B: rate(c.b, c.n), C: rate(c.c, c.n)}
	}
	t := Table{Rows: []Row{}, Pooled: row("Overall", all)}
	for _, ty := range corpus.Types {
		if c := per[ty]; c != nil {
			t.Rows = append(t.Rows, row(ty, *c))
		}
	}
	return t
}
