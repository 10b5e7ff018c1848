package fidelity

import (
	"fmt"

	"github.com/benchforge/benchforge/internal/stats"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// Band is an exemplar-size band [Lo, Hi) in exemplar LLOC; Hi = 0 means
// unbounded.
type Band struct{ Lo, Hi float64 }

// Bands are the exemplar LLOC bands of the §6.6 profile: width 5 up to 30
// statements (the paper's regimes turn at 15, 20 and 25), then wider.
var Bands = []Band{{0, 5}, {5, 10}, {10, 15}, {15, 20}, {20, 25}, {25, 30}, {30, 40}, {40, 60}, {60, 0}}

func (b Band) String() string {
	if b.Hi == 0 {
		return fmt.Sprintf("≥%g", b.Lo)
	}
	return fmt.Sprintf("[%g,%g)", b.Lo, b.Hi)
}

func (b Band) contains(x float64) bool { return x >= b.Lo && (b.Hi == 0 || x < b.Hi) }

// Quartiles are a sample's n, Q1, median and Q3 (type 7).
type Quartiles struct {
	N      int     `json:"n"`
	Q1     float64 `json:"q1"`
	Median float64 `json:"median"`
	Q3     float64 `json:"q3"`
}

func quartiles(x []float64) (Quartiles, error) {
	if len(x) == 0 {
		return Quartiles{}, nil
	}
	q, err := stats.Quantiles(x, 0.25, 0.5, 0.75)
	if err != nil {
		return Quartiles{}, err
	}
	return Quartiles{N: len(x), Q1: q[0], Median: q[1], Q3: q[2]}, nil
}

// ExemplarFidelity is §6.6: generated size relative to the mean size of
// the conditioning exemplars (the buggy methods of the seeds named by
// example_bug_ids), by exemplar LLOC band, and physical lines per
// statement (PLOC/LLOC of buggy methods with LLOC > 0).
type ExemplarFidelity struct {
	// Unresolved counts measured pairs none of whose example ids names a
	// measured seed (they have no exemplar size).
	Unresolved        int             `json:"unresolved"`
	Bands             []BandRow       `json:"bands"`
	LinesPerStatement []DensityRow    `json:"lines_per_statement"`
	Points            []ExemplarPoint `json:"points"`
}

// BandRow is one exemplar-size band. Ratios are generated/exemplar; pairs
// whose exemplar size is 0 have no ratio.
type BandRow struct {
	Band          string    `json:"band"`
	N             int       `json:"n"`
	ExemplarLLOC  float64   `json:"exemplar_lloc_median"`
	GeneratedLLOC float64   `json:"generated_lloc_median"`
	LLOCRatio     Quartiles `json:"lloc_ratio"`
	PLOCRatio     Quartiles `json:"ploc_ratio"`
}

// DensityRow is physical lines per statement for one type (or pooled).
type DensityRow struct {
	Type      string    `json:"type"`
	Corpus    Quartiles `json:"corpus"`
	Reference Quartiles `json:"reference"`
}

// ExemplarPoint is one pair of the Figure 5 scatter.
type ExemplarPoint struct {
	PairID        string  `json:"pair_id"`
	Type          string  `json:"type"`
	ExemplarLLOC  float64 `json:"exemplar_lloc"`
	ExemplarPLOC  float64 `json:"exemplar_ploc"`
	GeneratedLLOC int     `json:"generated_lloc"`
	GeneratedPLOC int     `json:"generated_ploc"`
}

// exemplarSeeds resolves example ids: a seed bug_id names that seed, a
// source_bug names all of its seeds.
func exemplarSeeds(seeds []corpus.Seed) func(id string) []int {
	byID, bySource := map[string]int{}, map[string][]int{}
	for i, s := range seeds {
		byID[s.BugID] = i
		bySource[s.SourceBug] = append(bySource[s.SourceBug], i)
	}
	return func(id string) []int {
		if i, ok := byID[id]; ok {
			return []int{i}
		}
		return bySource[id]
	}
}

func exemplarFidelity(pairs []corpus.Pair, ms []Measured, fails []error, seeds []corpus.Seed, seedM [][2]*Measured, syn, ref []method) (ExemplarFidelity, error) {
	e := ExemplarFidelity{Points: []ExemplarPoint{}}
	resolve := exemplarSeeds(seeds)
	for i, p := range pairs {
		if fails[2*i] != nil {
			continue
		}
		lloc, ploc, ok := exemplarSize(p, resolve, seedM)
		if !ok {
			e.Unresolved++
			continue
		}
		g := ms[2*i].Metrics
		e.Points = append(e.Points, ExemplarPoint{PairID: p.PairID, Type: p.ErrorType,
			ExemplarLLOC: lloc, ExemplarPLOC: ploc, GeneratedLLOC: g.LLOC, GeneratedPLOC: g.PLOC})
	}
	for _, b := range Bands {
		row, ok, err := bandRow(b, e.Points)
		if err != nil {
			return e, err
		}
		if ok {
			e.Bands = append(e.Bands, row)
		}
	}
	for _, typ := range scopes() {
		c, r := density(ofType(syn, typ)), density(ofType(ref, typ))
		if len(c) == 0 && len(r) == 0 {
			continue
		}
		row := DensityRow{Type: typ}
		var err error
		if row.Corpus, err = quartiles(c); err != nil {
			return e, err
		}
		if row.Reference, err = quartiles(r); err != nil {
			return e, err
		}
		e.LinesPerStatement = append(e.LinesPerStatement, row)
	}
	return e, nil
}

// exemplarSize is the mean LLOC and PLOC of the measured buggy methods of
// pair p's exemplars; ok is false when none is measured.
func exemplarSize(p corpus.Pair, resolve func(string) []int, seedM [][2]*Measured) (lloc, ploc float64, ok bool) {
	n := 0
	for _, id := range p.ExampleBugIDs {
		for _, si := range resolve(id) {
			if m := seedM[si][0]; m != nil {
				lloc += float64(m.Metrics.LLOC)
				ploc += float64(m.Metrics.PLOC)
				n++
			}
		}
	}
	if n == 0 {
		return 0, 0, false
	}
	return lloc / float64(n), ploc / float64(n), true
}

// bandRow summarises the points whose exemplar size is in band b; ok is
// false when there are none.
func bandRow(b Band, points []ExemplarPoint) (BandRow, bool, error) {
	var ex, gen, rl, rp []float64
	for _, pt := range points {
		if !b.contains(pt.ExemplarLLOC) {
			continue
		}
		ex = append(ex, pt.ExemplarLLOC)
		gen = append(gen, float64(pt.GeneratedLLOC))
		if pt.ExemplarLLOC > 0 {
			rl = append(rl, float64(pt.GeneratedLLOC)/pt.ExemplarLLOC)
		}
		if pt.ExemplarPLOC > 0 {
			rp = append(rp, float64(pt.GeneratedPLOC)/pt.ExemplarPLOC)
		}
	}
	if len(ex) == 0 {
		return BandRow{}, false, nil
	}
	row := BandRow{Band: b.String(), N: len(ex)}
	var err error
	if row.ExemplarLLOC, err = stats.Median(ex); err != nil {
		return row, false, err
	}
	if row.GeneratedLLOC, err = stats.Median(gen); err != nil {
		return row, false, err
	}
	if row.LLOCRatio, err = quartiles(rl); err != nil {
		return row, false, err
	}
	if row.PLOCRatio, err = quartiles(rp); err != nil {
		return row, false, err
	}
	return row, true, nil
}

// density is physical lines per statement of the methods with LLOC > 0.
func density(ms []method) []float64 {
	var out []float64
	for _, m := range ms {
		if m.m.Metrics.LLOC > 0 {
			out = append(out, float64(m.m.Metrics.PLOC)/float64(m.m.Metrics.LLOC))
		}
	}
	return out
}
