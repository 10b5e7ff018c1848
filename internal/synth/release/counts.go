package release

import (
	"sort"

	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// Counts are the figures the manifest records and the datasheet prints,
// computed from the release records alone (so a check can recompute them).
type Counts struct {
	Core     int `json:"core"`
	Excluded int `json:"excluded"`
	// Candidates are all pairs the release accounts for: core plus
	// excluded (gate, judge, or not JVM-confirmed).
	Candidates int `json:"candidates"`
	// CodeLicenses count core pairs per code licence.
	CodeLicenses []NameCount `json:"code_licenses"`
	Contrast     int         `json:"contrast"`
	Seeds        int         `json:"seeds"`
	// SourceBugs are the distinct source bugs of the seeds; IDMap the rows
	// of id_map.csv, Aliases those of kind alias.
	SourceBugs int `json:"source_bugs"`
	IDMap      int `json:"id_map"`
	Aliases    int `json:"aliases"`

	ByType      []TypeCount      `json:"by_type"`
	ByGenerator []GeneratorCount `json:"by_generator"`
	Exclusions  []CategoryCount  `json:"exclusions"`
	Benchmarks  []NameCount      `json:"seed_benchmarks"`
	Projects    []NameCount      `json:"seed_projects"`

	// Flags count core pairs flagged (Either: at least one flag).
	ISELowConfidence   int `json:"ise_low_confidence"`
	FixIntroducesLabel int `json:"fix_introduces_label"`
	EitherFlag         int `json:"either_flag"`
	// Repaired counts core pairs accepted after the one repair (§5.3).
	Repaired int `json:"repaired"`

	// How the core pairs were validated: by the judge (JudgeModels counts
	// them per judge model) or by JVM execution under criterion (c) (JDKs
	// per JDK, Harnesses per harness: the boundary search or a Table 8
	// regime). One release uses one method; both are counted so the
	// datasheet's text follows the records, not the manifest's claim.
	ValidatedByJudge int         `json:"validated_by_judge"`
	ValidatedByJVM   int         `json:"validated_by_jvm"`
	JudgeModels      []NameCount `json:"judge_models"`
	JDKs             []NameCount `json:"jvm_jdks"`
	Harnesses        []NameCount `json:"jvm_harnesses"`

	// Provenance: core pairs with at least one exemplar, the distinct
	// exemplar ids they cite, and the distinct source bugs those map to.
	WithExemplars      int `json:"core_with_exemplars"`
	ExemplarIDs        int `json:"exemplar_ids"`
	ExemplarSourceBugs int `json:"exemplar_source_bugs"`

	// Execution status of the core pairs (§5.4); NotRun when no record.
	Confirmed   int `json:"exec_confirmed"`
	Unconfirmed int `json:"exec_unconfirmed"`
	NotRun      int `json:"exec_not_run"`
}

// TypeCount is one exception type's row.
type TypeCount struct {
	Type               string `json:"type"`
	Core               int    `json:"core"`
	Excluded           int    `json:"excluded"`
	Contrast           int    `json:"contrast"`
	Seeds              int    `json:"seeds"`
	ISELowConfidence   int    `json:"ise_low_confidence"`
	FixIntroducesLabel int    `json:"fix_introduces_label"`
}

// GeneratorCount is one generator's row ("(unknown)" for exclusions whose
// generator was not recorded).
type GeneratorCount struct {
	Generator string `json:"generator"`
	Core      int    `json:"core"`
	Excluded  int    `json:"excluded"`
	Contrast  int    `json:"contrast"`
}

// CategoryCount counts exclusions of one stage and category.
type CategoryCount struct {
	Stage    string `json:"stage"`
	Category string `json:"category"`
	Count    int    `json:"count"`
}

// NameCount counts seeds by a name.
type NameCount struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// unknownGenerator labels exclusions without a recorded generator.
const unknownGenerator = "(unknown)"

// boundarySearch names synth verify's own harness (no model) in the
// harness counts.
const boundarySearch = "boundary-value search"

// records are a release's records, as built or as read back by a check.
type records struct {
	Core       []CorePair
	Excluded   []ExcludedRecord
	Contrast   []ContrastRecord
	Seeds      []SeedRecord
	IDMap      []IDMapRow
	Generation []GenerationRow
}

func computeCounts(r *records) Counts {
	c := Counts{Core: len(r.Core), Excluded: len(r.Excluded), Contrast: len(r.Contrast), Seeds: len(r.Seeds), IDMap: len(r.IDMap),
		Candidates: len(r.Core) + len(r.Excluded), CodeLicenses: licenseCounts(r.Core)}
	t := newTally(&c, r.IDMap)
	for _, p := range r.Core {
		t.core(p)
	}
	c.ExemplarIDs, c.ExemplarSourceBugs = len(t.exIDs), len(t.exBugs)
	for _, e := range r.Excluded {
		t.typ(e.ErrorType).Excluded++
		t.gen(e.Generator).Excluded++
		t.cats[[2]string{e.Stage, e.Category}]++
	}
	for _, p := range r.Contrast {
		t.typ(p.ErrorType).Contrast++
		t.gen(p.Generator).Contrast++
	}
	for _, s := range r.Seeds {
		t.typ(s.Exception).Seeds++
		t.bench[s.Benchmark]++
		t.proj[s.Project]++
		t.bugs[s.SourceBug] = true
	}
	c.SourceBugs = len(t.bugs)
	countExecution(&c, r.Generation)
	t.rows()
	return c
}

// tally accumulates the per-type, per-generator and per-name counts of
// computeCounts before they become Counts' sorted rows.
type tally struct {
	c         *Counts
	byType    map[string]*TypeCount
	byGen     map[string]*GeneratorCount
	idSource  map[string]string // id_map id → source bug
	exIDs     map[string]bool
	exBugs    map[string]bool
	models    map[string]int
	jdks      map[string]int
	harnesses map[string]int
	cats      map[[2]string]int // exclusions by stage and category
	bench     map[string]int
	proj      map[string]int
	bugs      map[string]bool
}

// newTally starts a tally with a row for every in-scope type and the
// id map read (its aliases counted in c).
func newTally(c *Counts, idMap []IDMapRow) *tally {
	t := &tally{c: c, byType: map[string]*TypeCount{}, byGen: map[string]*GeneratorCount{}, idSource: map[string]string{},
		exIDs: map[string]bool{}, exBugs: map[string]bool{}, models: map[string]int{}, jdks: map[string]int{}, harnesses: map[string]int{},
		cats: map[[2]string]int{}, bench: map[string]int{}, proj: map[string]int{}, bugs: map[string]bool{}}
	for _, ty := range corpus.Types {
		t.byType[ty] = &TypeCount{Type: ty}
	}
	for _, m := range idMap {
		t.idSource[m.ID] = m.SourceBug
		if m.Kind == KindAlias {
			c.Aliases++
		}
	}
	return t
}

// typ is type ty's row, added when ty is out of scope.
func (t *tally) typ(ty string) *TypeCount {
	if t.byType[ty] == nil {
		t.byType[ty] = &TypeCount{Type: ty}
	}
	return t.byType[ty]
}

// gen is generator g's row; "" is unknownGenerator.
func (t *tally) gen(g string) *GeneratorCount {
	if g == "" {
		g = unknownGenerator
	}
	if t.byGen[g] == nil {
		t.byGen[g] = &GeneratorCount{Generator: g}
	}
	return t.byGen[g]
}

// core counts one core pair: its type and generator, flags, validation
// and exemplars.
func (t *tally) core(p CorePair) {
	c := t.c
	ty := t.typ(p.ErrorType)
	ty.Core++
	t.gen(p.Generator).Core++
	if p.Flags.ISELowConfidence {
		c.ISELowConfidence++
		ty.ISELowConfidence++
	}
	if p.Flags.FixIntroducesLabel {
		c.FixIntroducesLabel++
		ty.FixIntroducesLabel++
	}
	if p.Flags.ISELowConfidence || p.Flags.FixIntroducesLabel {
		c.EitherFlag++
	}
	t.validation(p)
	if len(p.ExampleBugIDs) > 0 {
		c.WithExemplars++
	}
	for _, id := range p.ExampleBugIDs {
		t.exIDs[id] = true
		if sb, ok := t.idSource[id]; ok {
			t.exBugs[sb] = true
		}
	}
}

// validation counts how core pair p was validated: by which judge model,
// or on which JDK under which harness.
func (t *tally) validation(p CorePair) {
	c := t.c
	switch {
	case p.Validation.By == ValidatedByJudge && p.Judge != nil:
		c.ValidatedByJudge++
		t.models[p.Judge.Model]++
		if p.Judge.Repaired {
			c.Repaired++
		}
	case p.Validation.By == ValidatedByJVM && p.Validation.JVM != nil:
		c.ValidatedByJVM++
		t.jdks[p.Validation.JVM.JDK]++
		h := boundarySearch
		if p.Validation.JVM.Regime != "" {
			h = "model-built harness, regime " + p.Validation.JVM.Regime
		}
		t.harnesses[h]++
	}
}

// countExecution counts the core pairs' execution status (§5.4).
func countExecution(c *Counts, gen []GenerationRow) {
	for _, g := range gen {
		if g.Partition != PartCore {
			continue
		}
		switch g.Execution {
		case "confirmed":
			c.Confirmed++
		case "unconfirmed":
			c.Unconfirmed++
		}
	}
	c.NotRun = c.Core - c.Confirmed - c.Unconfirmed
}

// rows turns the tally into Counts' rows: types in Table 3 order, then
// out-of-scope ones (never in a valid release), everything else sorted.
func (t *tally) rows() {
	c := t.c
	for _, ty := range corpus.Types {
		c.ByType = append(c.ByType, *t.byType[ty])
		delete(t.byType, ty)
	}
	for _, k := range sortedKeys(t.byType) {
		c.ByType = append(c.ByType, *t.byType[k])
	}
	for _, k := range sortedKeys(t.byGen) {
		c.ByGenerator = append(c.ByGenerator, *t.byGen[k])
	}
	c.Exclusions = categoryCounts(t.cats)
	c.Benchmarks, c.Projects = nameCounts(t.bench), nameCounts(t.proj)
	c.JudgeModels, c.JDKs, c.Harnesses = nameCounts(t.models), nameCounts(t.jdks), nameCounts(t.harnesses)
}

// categoryCounts are the exclusion counts sorted by stage, then category.
func categoryCounts(cats map[[2]string]int) []CategoryCount {
	keys := make([][2]string, 0, len(cats))
	for k := range cats {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i][0] != keys[j][0] {
			return keys[i][0] < keys[j][0]
		}
		return keys[i][1] < keys[j][1]
	})
	var out []CategoryCount
	for _, k := range keys {
		out = append(out, CategoryCount{Stage: k[0], Category: k[1], Count: cats[k]})
	}
	return out
}

func nameCounts(m map[string]int) []NameCount {
	var out []NameCount
	for _, k := range sortedKeys(m) {
		out = append(out, NameCount{Name: k, Count: m[k]})
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
