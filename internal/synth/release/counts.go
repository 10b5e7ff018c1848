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
	byType := map[string]*TypeCount{}
	for _, t := range corpus.Types {
		byType[t] = &TypeCount{Type: t}
	}
	tc := func(t string) *TypeCount {
		if byType[t] == nil {
			byType[t] = &TypeCount{Type: t}
		}
		return byType[t]
	}
	byGen := map[string]*GeneratorCount{}
	gc := func(g string) *GeneratorCount {
		if g == "" {
			g = unknownGenerator
		}
		if byGen[g] == nil {
			byGen[g] = &GeneratorCount{Generator: g}
		}
		return byGen[g]
	}
	idSource := map[string]string{}
	for _, m := range r.IDMap {
		idSource[m.ID] = m.SourceBug
		if m.Kind == KindAlias {
			c.Aliases++
		}
	}
	exIDs, exBugs := map[string]bool{}, map[string]bool{}
	models, jdks, harnesses := map[string]int{}, map[string]int{}, map[string]int{}
	for _, p := range r.Core {
		t := tc(p.ErrorType)
		t.Core++
		gc(p.Generator).Core++
		if p.Flags.ISELowConfidence {
			c.ISELowConfidence++
			t.ISELowConfidence++
		}
		if p.Flags.FixIntroducesLabel {
			c.FixIntroducesLabel++
			t.FixIntroducesLabel++
		}
		if p.Flags.ISELowConfidence || p.Flags.FixIntroducesLabel {
			c.EitherFlag++
		}
		switch {
		case p.Validation.By == ValidatedByJudge && p.Judge != nil:
			c.ValidatedByJudge++
			models[p.Judge.Model]++
			if p.Judge.Repaired {
				c.Repaired++
			}
		case p.Validation.By == ValidatedByJVM && p.Validation.JVM != nil:
			c.ValidatedByJVM++
			jdks[p.Validation.JVM.JDK]++
			h := boundarySearch
			if p.Validation.JVM.Regime != "" {
				h = "model-built harness, regime " + p.Validation.JVM.Regime
			}
			harnesses[h]++
		}
		if len(p.ExampleBugIDs) > 0 {
			c.WithExemplars++
		}
		for _, id := range p.ExampleBugIDs {
			exIDs[id] = true
			if sb, ok := idSource[id]; ok {
				exBugs[sb] = true
			}
		}
	}
	c.ExemplarIDs, c.ExemplarSourceBugs = len(exIDs), len(exBugs)
	cats := map[[2]string]int{}
	for _, e := range r.Excluded {
		tc(e.ErrorType).Excluded++
		gc(e.Generator).Excluded++
		cats[[2]string{e.Stage, e.Category}]++
	}
	for _, p := range r.Contrast {
		tc(p.ErrorType).Contrast++
		gc(p.Generator).Contrast++
	}
	bench, proj, bugs := map[string]int{}, map[string]int{}, map[string]bool{}
	for _, s := range r.Seeds {
		tc(s.Exception).Seeds++
		bench[s.Benchmark]++
		proj[s.Project]++
		bugs[s.SourceBug] = true
	}
	c.SourceBugs = len(bugs)
	for _, g := range r.Generation {
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

	for _, t := range corpus.Types {
		c.ByType = append(c.ByType, *byType[t])
		delete(byType, t)
	}
	for _, k := range sortedKeys(byType) { // out-of-scope types (never in a valid release)
		c.ByType = append(c.ByType, *byType[k])
	}
	for _, k := range sortedKeys(byGen) {
		c.ByGenerator = append(c.ByGenerator, *byGen[k])
	}
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
	for _, k := range keys {
		c.Exclusions = append(c.Exclusions, CategoryCount{Stage: k[0], Category: k[1], Count: cats[k]})
	}
	c.Benchmarks, c.Projects = nameCounts(bench), nameCounts(proj)
	c.JudgeModels, c.JDKs, c.Harnesses = nameCounts(models), nameCounts(jdks), nameCounts(harnesses)
	return c
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
