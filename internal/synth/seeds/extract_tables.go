package seeds

import (
	"fmt"
	"slices"
	"sort"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/metrics"
	"github.com/benchforge/benchforge/internal/stats"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// FunnelRow counts one project's bugs and pairs through the extraction
// stages: Total bugs, Runtime bugs (in scope after F1/F2), the bugs and
// method pairs surviving F3 (pairs that parse alone), F4 and F5, and the
// seeds kept; Excluded counts bugs by excluding stage.
type FunnelRow struct {
	Project  string        `json:"project"`
	Total    int           `json:"total_bugs"`
	Runtime  int           `json:"runtime_bugs"`
	F3Bugs   int           `json:"f3_bugs"`
	F3Pairs  int           `json:"f3_pairs"`
	F4Pairs  int           `json:"f4_pairs"`
	F5Pairs  int           `json:"f5_pairs"`
	SeedBugs int           `json:"seed_bugs"`
	Seeds    int           `json:"seeds"`
	Excluded map[Stage]int `json:"excluded"`
}

// Funnel tabulates extraction logs per project (sorted) and pooled.
func Funnel(logs []BugLog) ([]FunnelRow, FunnelRow) {
	rows := map[string]*FunnelRow{}
	pooled := FunnelRow{Project: "Pooled", Excluded: map[Stage]int{}}
	for _, l := range logs {
		r := rows[l.Project]
		if r == nil {
			r = &FunnelRow{Project: l.Project, Excluded: map[Stage]int{}}
			rows[l.Project] = r
		}
		for _, x := range []*FunnelRow{r, &pooled} {
			x.add(l)
		}
	}
	var out []FunnelRow
	for _, r := range rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Project < out[j].Project })
	return out, pooled
}

func (r *FunnelRow) add(l BugLog) {
	r.Total++
	if l.Exception != "" {
		r.Runtime++
	}
	if !l.Kept {
		r.Excluded[l.Stage]++
	}
	if f3 := r.addMethods(l.Methods); f3 > 0 {
		r.F3Bugs++
	}
	if l.Kept {
		r.SeedBugs++
	}
}

// addMethods counts a bug's method pairs by the stage each passed and
// returns how many passed F3 (parsed alone).
func (r *FunnelRow) addMethods(ms []MethodLog) int {
	f3 := 0
	for _, m := range ms {
		if m.Stage == StageF3 {
			continue // did not parse alone
		}
		f3++
		if m.Stage != StageF4 {
			r.F4Pairs++
			if m.Stage != StageF5 {
				r.F5Pairs++
			}
		}
		if m.Kept {
			r.Seeds++
		}
	}
	r.F3Pairs += f3
	return f3
}

// SourceRow is one line of Table 3: seed pairs per type for one benchmark.
type SourceRow struct {
	Benchmark string       `json:"benchmark"`
	ByType    map[Type]int `json:"by_type"`
	Total     int          `json:"total"`
}

// TypeRow describes one type's seeds: pairs, distinct source bugs and
// projects, the buggy methods' LLOC distribution (type-7 quartiles) and
// the reference-set rule's threshold and exclusions.
type TypeRow struct {
	Type       Type    `json:"type"`
	Pairs      int     `json:"pairs"`
	Bugs       int     `json:"bugs"`
	Projects   int     `json:"projects"`
	LLOCMedian float64 `json:"lloc_median"`
	LLOCQ1     float64 `json:"lloc_q1"`
	LLOCQ3     float64 `json:"lloc_q3"`
	LLOCIQR    float64 `json:"lloc_iqr"`
	Threshold  float64 `json:"reference_threshold"`
	Reference  int     `json:"reference_pairs"`
	Excluded   int     `json:"reference_excluded"`
}

// Distribution is the seed pool's distribution (rxsynth §3.3, Table 3
// shape) with the per-type size summary.
type Distribution struct {
	Sources []SourceRow `json:"sources"`
	Total   SourceRow   `json:"total"`
	Types   []TypeRow   `json:"types"`
}

// ReferenceEntry is one seed's membership in the fidelity reference set.
type ReferenceEntry struct {
	BugID       string  `json:"bug_id"`
	SourceBug   string  `json:"source_bug"`
	Exception   string  `json:"exception"`
	LLOC        int     `json:"lloc"`
	Threshold   float64 `json:"threshold"`
	InReference bool    `json:"in_reference"`
}

// ReferenceSet applies the fidelity reference-set rule (rxsynth §3.4) to
// the seeds. The paper excludes "upper-tail pairs" per type without
// publishing the cutoff; the rule here is Tukey's upper fence within
// type: a seed is excluded when the LLOC of its buggy method exceeds
// Q3 + 1.5·IQR of its type's buggy-method LLOC (type-7 quartiles,
// stats.Quantiles). A type's seeds are all kept when its fence is not
// exceeded, so small types lose nothing unless a seed is an outlier among
// them. Seeds whose buggy method does not parse alone are an error.
func ReferenceSet(seeds []corpus.Seed) ([]ReferenceEntry, error) {
	out := make([]ReferenceEntry, len(seeds))
	byType := map[string][]int{}
	for i, s := range seeds {
		m, err := metrics.OfMethodSource([]byte(s.BuggyMethod))
		if err != nil {
			return nil, fmt.Errorf("seeds.ReferenceSet(%s): buggy method: %w", s.BugID, err)
		}
		out[i] = ReferenceEntry{BugID: s.BugID, SourceBug: s.SourceBug, Exception: s.Exception, LLOC: m.Metrics.LLOC}
		byType[s.Exception] = append(byType[s.Exception], i)
	}
	for _, idx := range byType {
		xs := make([]float64, len(idx))
		for k, i := range idx {
			xs[k] = float64(out[i].LLOC)
		}
		q, err := stats.Quantiles(xs, 0.25, 0.75)
		if err != nil {
			return nil, fmt.Errorf("seeds.ReferenceSet: %w", err)
		}
		fence := q[1] + 1.5*(q[1]-q[0])
		for _, i := range idx {
			out[i].Threshold = fence
			out[i].InReference = float64(out[i].LLOC) <= fence
		}
	}
	return out, nil
}

// Distribute tabulates seeds by benchmark and type (Table 3) and per type,
// with reference-set membership from ref (matched by bug_id; seeds missing
// from ref count as in the reference set only if ref is nil).
func Distribute(seeds []corpus.Seed, ref []ReferenceEntry) (*Distribution, error) {
	inRef := map[string]ReferenceEntry{}
	for _, r := range ref {
		inRef[r.BugID] = r
	}
	d := &Distribution{Total: SourceRow{Benchmark: "Total", ByType: zeroTypes()}}
	srcs := map[string]*SourceRow{}
	per := map[Type]*typeTally{}
	for _, t := range Types {
		per[t] = &typeTally{bugs: map[string]bool{}, projects: map[string]bool{}, row: TypeRow{Type: t}}
	}
	for _, s := range seeds {
		t, ok := ParseType(s.Exception)
		if !ok {
			return nil, fmt.Errorf("seeds.Distribute(%s): %w: exception %q is none of the seven types", s.BugID, errs.ErrInput, s.Exception)
		}
		r := srcs[s.Benchmark]
		if r == nil {
			r = &SourceRow{Benchmark: s.Benchmark, ByType: zeroTypes()}
			srcs[s.Benchmark] = r
		}
		r.ByType[t]++
		r.Total++
		d.Total.ByType[t]++
		d.Total.Total++
		e, listed := inRef[s.BugID]
		if err := per[t].add(s, e, listed, ref == nil); err != nil {
			return nil, err
		}
	}
	for _, r := range srcs {
		d.Sources = append(d.Sources, *r)
	}
	sort.Slice(d.Sources, func(i, j int) bool { return d.Sources[i].Benchmark < d.Sources[j].Benchmark })
	for _, t := range Types {
		row, err := per[t].finish()
		if err != nil {
			return nil, err
		}
		d.Types = append(d.Types, row)
	}
	return d, nil
}

// typeTally accumulates one type's row of Distribute.
type typeTally struct {
	lloc     []float64
	bugs     map[string]bool
	projects map[string]bool
	row      TypeRow
}

// add counts seed s, with its reference-set entry e when listed; an
// unlisted seed is measured, and is in the reference set only when there
// is none (noRef).
func (a *typeTally) add(s corpus.Seed, e ReferenceEntry, listed, noRef bool) error {
	a.row.Pairs++
	a.bugs[s.SourceBug] = true
	a.projects[s.Benchmark+"/"+s.Project] = true
	lloc := e.LLOC
	if !listed {
		m, err := metrics.OfMethodSource([]byte(s.BuggyMethod))
		if err != nil {
			return fmt.Errorf("seeds.Distribute(%s): buggy method: %w", s.BugID, err)
		}
		lloc = m.Metrics.LLOC
	}
	a.lloc = append(a.lloc, float64(lloc))
	switch {
	case listed && e.InReference, !listed && noRef:
		a.row.Reference++
	default:
		a.row.Excluded++
	}
	if listed {
		a.row.Threshold = e.Threshold
	}
	return nil
}

// finish is the type's row with its bug and project counts and LLOC
// quartiles.
func (a *typeTally) finish() (TypeRow, error) {
	a.row.Bugs, a.row.Projects = len(a.bugs), len(a.projects)
	if len(a.lloc) > 0 {
		q, err := stats.Quantiles(a.lloc, 0.25, 0.5, 0.75)
		if err != nil {
			return TypeRow{}, fmt.Errorf("seeds.Distribute: %w", err)
		}
		a.row.LLOCQ1, a.row.LLOCMedian, a.row.LLOCQ3 = q[0], q[1], q[2]
		a.row.LLOCIQR = q[2] - q[0]
	}
	return a.row, nil
}

func zeroTypes() map[Type]int {
	m := map[Type]int{}
	for _, t := range Types {
		m[t] = 0
	}
	return m
}

// CheckReference reports the seeds a stored reference set does not list
// and the listed ids no seed has, so a stale --reference-set file is
// noticed.
func CheckReference(seeds []corpus.Seed, ref []ReferenceEntry) (unlisted, stale []string) {
	have := map[string]bool{}
	for _, s := range seeds {
		have[s.BugID] = true
	}
	listed := map[string]bool{}
	for _, r := range ref {
		listed[r.BugID] = true
		if !have[r.BugID] {
			stale = append(stale, r.BugID)
		}
	}
	for _, s := range seeds {
		if !listed[s.BugID] {
			unlisted = append(unlisted, s.BugID)
		}
	}
	slices.Sort(stale)
	return unlisted, stale
}
