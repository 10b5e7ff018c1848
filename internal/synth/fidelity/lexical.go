package fidelity

import (
	"github.com/benchforge/benchforge/internal/metrics"
	"github.com/benchforge/benchforge/internal/stats"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// FDRQ is the Benjamini–Hochberg false-discovery rate of Table 11 (§6.3).
const FDRQ = 0.05

// ConstructTable is Table 11 over every non-empty type × construct cell
// (a cell is empty when neither population has an occurrence; it is not
// tested and not counted in the BH family).
type ConstructTable struct {
	Q           float64        `json:"q"`
	Cells       int            `json:"cells"`
	Significant int            `json:"significant"`
	Rows        []ConstructRow `json:"rows"`
}

// ConstructRow is one type × construct cell. Ratio is corpus mean over
// real mean, nil when the real mean is 0. Direction is "fewer", "more" or
// "equal" (corpus relative to real, by mean).
type ConstructRow struct {
	Type        string   `json:"type"`
	Construct   string   `json:"construct"`
	NCorpus     int      `json:"n_corpus"`
	NReal       int      `json:"n_real"`
	CorpusMean  float64  `json:"corpus_mean"`
	RealMean    float64  `json:"real_mean"`
	Ratio       *float64 `json:"ratio"`
	U           float64  `json:"u"`
	P           float64  `json:"p"`
	QValue      float64  `json:"q_value"`
	Significant bool     `json:"significant"`
	Direction   string   `json:"direction"`
}

func constructColumn(ms []method, k int) ([]float64, float64) {
	out := make([]float64, len(ms))
	sum := 0.0
	for i, m := range ms {
		out[i] = float64(m.m.Constructs.Values()[k])
		sum += out[i]
	}
	if len(ms) == 0 {
		return out, 0
	}
	return out, sum / float64(len(ms))
}

func constructTable(syn, ref []method) (ConstructTable, error) {
	t := ConstructTable{Q: FDRQ, Rows: []ConstructRow{}}
	var ps []float64
	for _, typ := range corpus.Types {
		s, r := ofType(syn, typ), ofType(ref, typ)
		if len(s) == 0 || len(r) == 0 {
			continue
		}
		for k, name := range metrics.ConstructNames {
			row, ok, err := constructRow(typ, name, s, r, k)
			if err != nil {
				return t, err
			}
			if ok {
				t.Rows = append(t.Rows, row)
				ps = append(ps, row.P)
			}
		}
	}
	t.Cells = len(ps)
	if len(ps) == 0 {
		return t, nil
	}
	rej, adj, err := stats.BHReject(ps, FDRQ)
	if err != nil {
		return t, err
	}
	for i := range t.Rows {
		t.Rows[i].QValue, t.Rows[i].Significant = adj[i], rej[i]
		if rej[i] {
			t.Significant++
		}
	}
	return t, nil
}

// constructRow compares construct k (named name) of type typ between the
// corpus methods s and the real ones r; ok is false when neither side has
// it.
func constructRow(typ, name string, s, r []method, k int) (ConstructRow, bool, error) {
	x, mx := constructColumn(s, k)
	y, my := constructColumn(r, k)
	if mx == 0 && my == 0 {
		return ConstructRow{}, false, nil
	}
	mw, err := stats.MannWhitney(x, y, stats.TwoSided, stats.MWUAuto)
	if err != nil {
		return ConstructRow{}, false, err
	}
	row := ConstructRow{Type: typ, Construct: name, NCorpus: len(x), NReal: len(y),
		CorpusMean: mx, RealMean: my, U: mw.U, P: mw.P, Direction: "equal"}
	if my > 0 {
		ratio := mx / my
		row.Ratio = &ratio
	}
	switch {
	case mx < my:
		row.Direction = "fewer"
	case mx > my:
		row.Direction = "more"
	}
	return row, true, nil
}

// Prop is a proportion k/n with its Wilson 95% interval.
type Prop struct {
	K    int            `json:"k"`
	N    int            `json:"n"`
	Rate float64        `json:"rate"`
	CI   stats.Interval `json:"ci"`
}

func prop(k, n int) (Prop, error) {
	if n == 0 {
		return Prop{}, nil
	}
	ci, err := stats.Wilson(k, n, 0.95)
	if err != nil {
		return Prop{}, err
	}
	return Prop{K: k, N: n, Rate: float64(k) / float64(n), CI: ci}, nil
}

// RepairRow is the repair-style comparison (§6.3) for one type or pooled:
// how many fixes introduce a throw (k of n, Wilson 95%) and how many throw
// statements the fixes add in total, for the corpus and the seed pool.
type RepairRow struct {
	Type              string `json:"type"`
	Corpus            Prop   `json:"corpus"`
	CorpusThrowsAdded int    `json:"corpus_throws_added"`
	Seeds             Prop   `json:"seeds"`
	SeedThrowsAdded   int    `json:"seed_throws_added"`
}

func repairStyle(pairs []corpus.Pair, ms []Measured, pairOK []bool, seeds []corpus.Seed, seedM [][2]*Measured) ([]RepairRow, error) {
	cor, sd := repairTally{}, repairTally{}
	for _, typ := range scopes() {
		cor[typ], sd[typ] = &repairCount{}, &repairCount{}
	}
	for i, p := range pairs {
		if pairOK[i] {
			cor.add(p.ErrorType, ms[2*i], ms[2*i+1])
		}
	}
	for i, s := range seeds {
		if seedM[i][0] != nil && seedM[i][1] != nil {
			sd.add(s.Exception, *seedM[i][0], *seedM[i][1])
		}
	}
	var rows []RepairRow
	for _, typ := range scopes() {
		c, s := cor[typ], sd[typ]
		if c.n == 0 && s.n == 0 {
			continue
		}
		row := RepairRow{Type: typ, CorpusThrowsAdded: c.added, SeedThrowsAdded: s.added}
		var err error
		if row.Corpus, err = prop(c.k, c.n); err != nil {
			return nil, err
		}
		if row.Seeds, err = prop(s.k, s.n); err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// repairCount counts fixes (n), those adding a throw (k), and the throws
// they add.
type repairCount struct{ k, n, added int }

// repairTally is a repairCount per type and pooled.
type repairTally map[string]*repairCount

// add counts the fix from b to f of type typ, pooled and for its type.
func (t repairTally) add(typ string, b, f Measured) {
	added := f.Constructs.Throw - b.Constructs.Throw
	for _, key := range []string{Pooled, typ} {
		a := t[key]
		a.n++
		if added > 0 {
			a.k++
			a.added += added
		}
	}
}
