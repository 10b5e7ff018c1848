// Package fidelity owns the corpus-fidelity analysis of rxsynth §6: how
// closely a synthetic bug/fix corpus (corpus.Pair records) resembles the
// real seed pairs (corpus.Seed records) it was grown from.
//
// Run computes, from the records alone:
//
//   - Table 10 (§6.1–6.2): the seven structural metrics of internal/metrics
//     for buggy methods (and fixed methods with Options.Fixed), pooled and per
//     exception type, against the fidelity reference set and against the
//     whole seed pool: medians, the two-sample KS D and two-sided p, and
//     Cliff's δ with Romano's magnitude label;
//   - per-type token-count ECDFs (Figure 3 shape);
//   - Table 11 (§6.3): the thirteen constructs per type, Mann–Whitney U
//     (two-sided, tie-corrected) on every non-empty type × construct cell,
//     Benjamini–Hochberg at q = 0.05 over those cells, the direction and
//     the corpus/real ratio of mean occurrences;
//   - repair style (§6.3): the share of fixes that introduce a throw (fixed
//     method has more throw statements than its buggy method), with Wilson
//     95% intervals, for the corpus and the seed pool;
//   - distance from seeds (§6.5): for every buggy and fixed synthetic method,
//     the nearest real method (buggy or fixed) of a same-type reference seed
//     under token-set Jaccard and token 5-gram Jaccard, their maxima, the
//     exact reproductions (identical non-comment token sequences) and how
//     many nearest neighbours change when the whole pool is the reference;
//   - exemplar fidelity (§6.6, Figure 5 shape): generated/exemplar LLOC and
//     PLOC ratios by exemplar LLOC band (medians and IQR), and physical lines
//     per statement for corpus and reference.
//
// Definitions. The fidelity reference set is, unless a list of bug_ids is
// given, the seeds left after a per-type upper-tail rule (see
// UpperTailDefinition). A pair's exemplar size is the mean size of the buggy
// methods of the seeds its example_bug_ids name; an id naming a source bug
// rather than a seed pair stands for all of that bug's pairs (the Lang-47
// ambiguity of §3.4). Methods that do not parse as exactly one Java method
// are left out of every statistic and listed in Report.Skipped.
//
// Measured speed (BenchmarkRun: 5,000 pairs × 200 seeds of the
// fidelitytest generator, 10,400 methods of ~10–60 lines, Fixed on;
// go test -run='^$' -bench=Run -benchtime=3x ./internal/synth/fidelity on
// the 2-core machine with nothing else running, 2026-11-30): 1.63 s per
// run against the 5 s target. About 40% of the CPU is tree-sitter parsing
// (cgo), ~13% the exact nearest-seed Jaccard merges.
package fidelity

import (
	"context"
	"fmt"
	"slices"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/metrics"
	"github.com/benchforge/benchforge/internal/stats"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// Pooled is the Type of rows that pool all exception types.
const Pooled = "pooled"

// Options configures Run.
type Options struct {
	// ReferenceSet lists the seed bug_ids of the fidelity reference set;
	// nil applies the upper-tail rule.
	ReferenceSet []string
	// Fixed adds Table 10 rows for the fixed methods.
	Fixed bool
	// Workers parse methods concurrently; 0 means GOMAXPROCS.
	Workers int
}

// Report is the whole fidelity analysis; it is written as JSON and every
// table, plot and Markdown summary is rendered from it alone.
type Report struct {
	Pairs      int              `json:"pairs"`
	Seeds      int              `json:"seeds"`
	Reference  Reference        `json:"reference"`
	Skipped    []Skipped        `json:"skipped"`
	Structural []StructRow      `json:"structural"`
	TokenECDF  []TypeECDF       `json:"token_ecdf"`
	Constructs ConstructTable   `json:"constructs"`
	Repair     []RepairRow      `json:"repair_style"`
	Distance   Distance         `json:"distance"`
	Exemplar   ExemplarFidelity `json:"exemplar"`
	// SmallSampleWarnings name the groups measured on fewer than
	// MinGroupPairs pairs (or reference seeds): their figures are shown but
	// unreliable.
	SmallSampleWarnings []string `json:"small_sample_warnings,omitempty"`
}

// MinGroupPairs is the smallest group whose fidelity figures are reported
// without a small-sample warning.
const MinGroupPairs = 30

// SmallSamples lists the groups of r measured on fewer than MinGroupPairs
// pairs or reference seeds, from the buggy-side structural rows.
func (r *Report) SmallSamples() []string {
	var out []string
	seen := map[string]bool{}
	for _, row := range r.Structural {
		if row.Side != "buggy" || seen[row.Type] {
			continue
		}
		seen[row.Type] = true
		if row.Corpus.N < MinGroupPairs {
			out = append(out, fmt.Sprintf("%s: %d synthetic pairs (fewer than %d): its rows are unreliable", row.Type, row.Corpus.N, MinGroupPairs))
		}
		if row.Reference != nil && row.Reference.N < MinGroupPairs {
			out = append(out, fmt.Sprintf("%s: %d reference seeds (fewer than %d): its comparisons are unreliable", row.Type, row.Reference.N, MinGroupPairs))
		}
	}
	return out
}

// Skipped is a method left out because it could not be measured.
type Skipped struct {
	ID     string `json:"id"` // pair_id or seed bug_id
	Kind   string `json:"kind"`
	Side   string `json:"side"` // buggy | fixed
	Reason string `json:"reason"`
}

// Summary is a sample's size and median.
type Summary struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
}

// Comparison is the corpus against one real reference for one metric.
type Comparison struct {
	N         int     `json:"n"`
	Median    float64 `json:"median"`
	D         float64 `json:"d"`
	P         float64 `json:"p"`
	KSMethod  string  `json:"ks_method"`
	Delta     float64 `json:"delta"` // Cliff's δ, corpus vs real
	Magnitude string  `json:"magnitude"`
}

// StructRow is one line of Table 10. Reference or Pool is nil when that
// real sample is empty for the row's type.
type StructRow struct {
	Side      string      `json:"side"`
	Type      string      `json:"type"`
	Metric    string      `json:"metric"`
	Corpus    Summary     `json:"corpus"`
	Reference *Comparison `json:"reference"`
	Pool      *Comparison `json:"pool"`
}

// TypeECDF is the token-count ECDF of one type's buggy methods.
type TypeECDF struct {
	Type      string            `json:"type"`
	Corpus    []stats.ECDFPoint `json:"corpus"`
	Reference []stats.ECDFPoint `json:"reference"`
}

// method is one measured population member.
type method struct {
	id, typ string
	m       Measured
}

type population struct {
	buggy, fixed []method
}

func (p population) side(s string) []method {
	if s == "fixed" {
		return p.fixed
	}
	return p.buggy
}

// Run computes the fidelity report of pairs against seeds.
func Run(ctx context.Context, pairs []corpus.Pair, seeds []corpus.Seed, opt Options) (*Report, error) {
	if err := validateInputs(pairs, seeds); err != nil {
		return nil, err
	}
	srcs := make([]string, 0, 2*(len(pairs)+len(seeds)))
	for _, p := range pairs {
		srcs = append(srcs, p.BuggyMethod, p.FixedMethod)
	}
	for _, s := range seeds {
		srcs = append(srcs, s.BuggyMethod, s.FixedMethod)
	}
	ms, fails, err := MeasureAll(ctx, srcs, opt.Workers)
	if err != nil {
		return nil, fmt.Errorf("fidelity: %w", err)
	}
	r := &Report{Pairs: len(pairs), Seeds: len(seeds), Skipped: []Skipped{}}
	in := inputs{pairs: pairs, seeds: seeds, ms: ms, fails: fails}
	in.syn, in.pairOK = r.synthetic(pairs, ms, fails)
	var lloc []int
	in.seedM, lloc = r.seedMeasures(seeds, ms[2*len(pairs):], fails[2*len(pairs):])
	if in.inRef, r.Reference, err = referenceSet(seeds, lloc, opt.ReferenceSet); err != nil {
		return nil, fmt.Errorf("fidelity: %w", err)
	}
	in.refPop, in.pool = seedPopulations(seeds, in.seedM, in.inRef)
	if err := r.tables(ctx, in, opt); err != nil {
		return nil, err
	}
	r.SmallSampleWarnings = r.SmallSamples()
	return r, nil
}

// validateInputs checks every record and that seed ids are unique.
func validateInputs(pairs []corpus.Pair, seeds []corpus.Seed) error {
	if len(pairs) == 0 || len(seeds) == 0 {
		return fmt.Errorf("fidelity: %w: need at least one pair and one seed (got %d pairs, %d seeds)", errs.ErrInput, len(pairs), len(seeds))
	}
	seen := make(map[string]bool, len(seeds))
	for i, s := range seeds {
		if err := s.Validate(); err != nil {
			return fmt.Errorf("fidelity: seed record %d: %w", i+1, err)
		}
		if seen[s.BugID] {
			return fmt.Errorf("fidelity: %w: seed bug_id %q appears twice; bug_ids must be unique", errs.ErrInput, s.BugID)
		}
		seen[s.BugID] = true
	}
	for i, p := range pairs {
		if err := p.Validate(); err != nil {
			return fmt.Errorf("fidelity: pair record %d: %w", i+1, err)
		}
	}
	return nil
}

// inputs are the measured pairs and seeds every table is computed from.
type inputs struct {
	pairs             []corpus.Pair
	seeds             []corpus.Seed
	ms                []Measured // buggy, fixed of each pair, then of each seed
	fails             []error    // as ms
	syn, refPop, pool population
	pairOK            []bool
	seedM             [][2]*Measured
	inRef             []bool
}

// synthetic is the population of the measured pair methods (ms and fails
// start with the pairs'); pairOK marks the pairs with both measured. The
// others are recorded as skipped.
func (r *Report) synthetic(pairs []corpus.Pair, ms []Measured, fails []error) (syn population, pairOK []bool) {
	pairOK = make([]bool, len(pairs))
	for i, p := range pairs {
		b, f := 2*i, 2*i+1
		r.skip(p.PairID, "pair", fails[b], fails[f])
		if fails[b] == nil {
			syn.buggy = append(syn.buggy, method{p.PairID, p.ErrorType, ms[b]})
		}
		if fails[f] == nil {
			syn.fixed = append(syn.fixed, method{p.PairID, p.ErrorType, ms[f]})
		}
		pairOK[i] = fails[b] == nil && fails[f] == nil
	}
	return syn, pairOK
}

// seedMeasures returns each seed's measured sides (nil when a side could
// not be measured, which is recorded as skipped) and its buggy LLOC (−1
// when unmeasured). ms and fails are the seeds' part.
func (r *Report) seedMeasures(seeds []corpus.Seed, ms []Measured, fails []error) ([][2]*Measured, []int) {
	seedM := make([][2]*Measured, len(seeds))
	lloc := make([]int, len(seeds))
	for i, s := range seeds {
		b, f := 2*i, 2*i+1
		r.skip(s.BugID, "seed", fails[b], fails[f])
		lloc[i] = -1
		if fails[b] == nil {
			seedM[i][0] = &ms[b]
			lloc[i] = ms[b].Metrics.LLOC
		}
		if fails[f] == nil {
			seedM[i][1] = &ms[f]
		}
	}
	return seedM, lloc
}

// seedPopulations returns the reference set's and the whole pool's
// measured seed methods.
func seedPopulations(seeds []corpus.Seed, seedM [][2]*Measured, inRef []bool) (refPop, pool population) {
	for i, s := range seeds {
		for side, m := range seedM[i] {
			if m == nil {
				continue
			}
			mm := method{s.BugID, s.Exception, *m}
			if side == 0 {
				pool.buggy = append(pool.buggy, mm)
				if inRef[i] {
					refPop.buggy = append(refPop.buggy, mm)
				}
			} else {
				pool.fixed = append(pool.fixed, mm)
				if inRef[i] {
					refPop.fixed = append(refPop.fixed, mm)
				}
			}
		}
	}
	return refPop, pool
}

// tables fills the report's tables from the measured inputs.
func (r *Report) tables(ctx context.Context, in inputs, opt Options) error {
	sides := []string{"buggy"}
	if opt.Fixed {
		sides = append(sides, "fixed")
	}
	for _, side := range sides {
		rows, err := structural(side, in.syn.side(side), in.refPop.side(side), in.pool.side(side))
		if err != nil {
			return fmt.Errorf("fidelity: table 10 (%s): %w", side, err)
		}
		r.Structural = append(r.Structural, rows...)
	}
	var err error
	if r.TokenECDF, err = tokenECDFs(in.syn.buggy, in.refPop.buggy); err != nil {
		return fmt.Errorf("fidelity: token ECDFs: %w", err)
	}
	if r.Constructs, err = constructTable(in.syn.buggy, in.refPop.buggy); err != nil {
		return fmt.Errorf("fidelity: table 11: %w", err)
	}
	if r.Repair, err = repairStyle(in.pairs, in.ms, in.pairOK, in.seeds, in.seedM); err != nil {
		return fmt.Errorf("fidelity: repair style: %w", err)
	}
	if r.Distance, err = distances(ctx, in.syn, in.seeds, in.seedM, in.inRef, opt.Workers); err != nil {
		return fmt.Errorf("fidelity: distance from seeds: %w", err)
	}
	if r.Exemplar, err = exemplarFidelity(in.pairs, in.ms, in.fails, in.seeds, in.seedM, in.syn.buggy, in.refPop.buggy); err != nil {
		return fmt.Errorf("fidelity: exemplar fidelity: %w", err)
	}
	return nil
}

func (r *Report) skip(id, kind string, fb, ff error) {
	if fb != nil {
		r.Skipped = append(r.Skipped, Skipped{ID: id, Kind: kind, Side: "buggy", Reason: fb.Error()})
	}
	if ff != nil {
		r.Skipped = append(r.Skipped, Skipped{ID: id, Kind: kind, Side: "fixed", Reason: ff.Error()})
	}
}

// scopes yields "pooled" then each type.
func scopes() []string { return append([]string{Pooled}, corpus.Types...) }

func ofType(ms []method, typ string) []method {
	if typ == Pooled {
		return ms
	}
	var out []method
	for _, m := range ms {
		if m.typ == typ {
			out = append(out, m)
		}
	}
	return out
}

func metricColumn(ms []method, k int) []float64 {
	out := make([]float64, len(ms))
	for i, m := range ms {
		out[i] = float64(m.m.Metrics.Values()[k])
	}
	return out
}

func structural(side string, syn, ref, pool []method) ([]StructRow, error) {
	var rows []StructRow
	for _, typ := range scopes() {
		s := ofType(syn, typ)
		if len(s) == 0 {
			continue
		}
		rs, ps := ofType(ref, typ), ofType(pool, typ)
		for k, name := range metrics.MetricNames {
			x := metricColumn(s, k)
			med, err := stats.Median(x)
			if err != nil {
				return nil, err
			}
			row := StructRow{Side: side, Type: typ, Metric: name, Corpus: Summary{N: len(x), Median: med}}
			if row.Reference, err = compare(x, metricColumn(rs, k)); err != nil {
				return nil, fmt.Errorf("%s %s vs reference: %w", typ, name, err)
			}
			if row.Pool, err = compare(x, metricColumn(ps, k)); err != nil {
				return nil, fmt.Errorf("%s %s vs pool: %w", typ, name, err)
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// compare is KS (auto method) and Cliff's δ of x against y; nil when y is
// empty.
func compare(x, y []float64) (*Comparison, error) {
	if len(y) == 0 {
		return nil, nil
	}
	med, err := stats.Median(y)
	if err != nil {
		return nil, err
	}
	ks, err := stats.KS2(x, y, stats.KSAuto)
	if err != nil {
		return nil, err
	}
	cd, err := stats.CliffsDelta(x, y)
	if err != nil {
		return nil, err
	}
	return &Comparison{N: len(y), Median: med, D: ks.D, P: ks.P, KSMethod: ks.Method.String(),
		Delta: cd.Delta, Magnitude: cd.Magnitude.String()}, nil
}

func tokenECDFs(syn, ref []method) ([]TypeECDF, error) {
	var out []TypeECDF
	for _, typ := range scopes() {
		s, rr := ofType(syn, typ), ofType(ref, typ)
		if len(s) == 0 && len(rr) == 0 {
			continue
		}
		e := TypeECDF{Type: typ}
		var err error
		tok := slices.Index(metrics.MetricNames, "tokens")
		if len(s) > 0 {
			if e.Corpus, err = stats.ECDF(metricColumn(s, tok)); err != nil {
				return nil, err
			}
		}
		if len(rr) > 0 {
			if e.Reference, err = stats.ECDF(metricColumn(rr, tok)); err != nil {
				return nil, err
			}
		}
		out = append(out, e)
	}
	return out, nil
}
