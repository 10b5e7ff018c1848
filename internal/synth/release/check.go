package release

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
)

// CheckResult is what Check found.
type CheckResult struct {
	Dir      string    `json:"dir"`
	Files    int       `json:"files"`
	Records  int       `json:"records"`
	Problems []Problem `json:"problems"`
}

// OK reports whether the release passed every check.
func (r *CheckResult) OK() bool { return len(r.Problems) == 0 }

// maxProblemsPerFile bounds the record problems reported for one file.
const maxProblemsPerFile = 50

// Check validates the release in dir:
//
//   - MANIFEST.json is well formed and of this format; every file it lists
//     exists with the listed size and sha256, and no other file is present;
//   - every record of every data file is valid against the release's own
//     schema for it (schemas/*.schema.json, parsed with ParseSchema) and
//     the manifest's record counts are right;
//   - ids are unique in each file, and pair ids across core, excluded and
//     contrast; every example_bug_ids entry is in id_map.csv; every seed's
//     bug_id maps to its source_bug; generation.csv has one row per
//     released pair, consistent with it;
//   - every core pair is validated the way the manifest's validated_by
//     says and carries exactly that evidence: the judge block, or JVM
//     evidence that is a criterion (c) trigger at the patched site of its
//     methods, with generation.csv recording the confirmed execution;
//   - the release flags of every core pair are what judge.ISELowConfidence
//     (at the manifest's threshold; never for a jvm-validated pair) and
//     judge.FixIntroducesLabel give;
//   - the manifest's counts and DATASHEET.md are what the records give.
//
// Problems name file:line and the field. The error is non-nil only when
// the release cannot be examined at all (no readable manifest).
func Check(ctx context.Context, dir string) (*CheckResult, error) {
	res := &CheckResult{Dir: dir}
	raw, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("check release %s: %w: no %s; is this a release directory?", dir, errs.ErrNotFound, ManifestFile)
		}
		return nil, fmt.Errorf("check release %s: %w", dir, err)
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("check release %s: %s: %w: %v", dir, ManifestFile, errs.ErrInput, err)
	}
	if m.Format != FormatVersion {
		return nil, fmt.Errorf("check release %s: %s: %w: format %q, this benchforge reads %q", dir, ManifestFile, errs.ErrUnsupported, m.Format, FormatVersion)
	}
	add := func(p Problem) { res.Problems = append(res.Problems, p) }

	entries := checkFiles(dir, &m, add)
	res.Files = len(entries)
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	var recs records
	lines := map[string][]int{} // data file → line of each typed record
	for _, spec := range dataFiles {
		e, ok := entries[spec.Path]
		if !ok {
			continue
		}
		if e.Format != spec.Format || e.Schema != spec.Schema || e.Key != spec.Key {
			add(Problem{File: ManifestFile, Msg: fmt.Sprintf("entry %s: format/schema/key %q/%q/%q, want %q/%q/%q", spec.Path, e.Format, e.Schema, e.Key, spec.Format, spec.Schema, spec.Key)})
		}
		sdata, err := os.ReadFile(filepath.Join(dir, spec.Schema))
		if err != nil {
			add(Problem{File: spec.Schema, Msg: "cannot read the schema: " + err.Error()})
			continue
		}
		schema, err := ParseSchema(sdata)
		if err != nil {
			add(Problem{File: spec.Schema, Msg: err.Error()})
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, spec.Path))
		if err != nil {
			continue // reported by checkFiles
		}
		var rr []rawRecord
		var probs []Problem
		switch spec.Format {
		case FormatJSONL:
			rr, probs = readJSONL(spec.Path, data)
		case FormatJSON:
			rr, probs = readJSONArray(spec.Path, data)
		case FormatCSV:
			rr, probs = readCSV(spec.Path, data, schema)
		}
		n := len(probs)
		for _, p := range probs {
			add(p)
		}
		keys := map[string]int{}
		for _, r := range rr {
			for _, fe := range schema.Validate(r.Value) {
				if n++; n <= maxProblemsPerFile {
					add(Problem{File: spec.Path, Line: r.Line, Field: fe.Field, Msg: fe.Msg})
				}
			}
			if obj, ok := r.Value.(map[string]any); ok {
				if k, ok := obj[spec.Key].(string); ok {
					if prev, dup := keys[k]; dup {
						add(Problem{File: spec.Path, Line: r.Line, Field: spec.Key, Msg: fmt.Sprintf("id %q already used at line %d", k, prev)})
					} else {
						keys[k] = r.Line
					}
				}
			}
			if decodeInto(&recs, spec.Path, r.JSON) {
				lines[spec.Path] = append(lines[spec.Path], r.Line)
			}
		}
		if n > maxProblemsPerFile {
			add(Problem{File: spec.Path, Msg: fmt.Sprintf("%d more record problems not shown", n-maxProblemsPerFile)})
		}
		res.Records += len(rr)
		if len(rr) != e.Records {
			add(Problem{File: ManifestFile, Field: "files[" + spec.Path + "].records", Msg: fmt.Sprintf("manifest says %d records, the file has %d", e.Records, len(rr))})
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	if !ValidMethod(m.ValidatedBy) {
		add(Problem{File: ManifestFile, Field: "validated_by", Msg: fmt.Sprintf("%q is neither %s nor %s", m.ValidatedBy, ValidatedByJudge, ValidatedByJVM)})
	}
	checkRefs(&recs, lines, &m, add)
	checkCounts(dir, &m, &recs, add)
	return res, nil
}

// checkFiles verifies the manifest's file list against the directory and
// returns the entries by path.
func checkFiles(dir string, m *Manifest, add func(Problem)) map[string]FileEntry {
	entries := map[string]FileEntry{}
	for i, e := range m.Files {
		field := fmt.Sprintf("files[%d]", i)
		if e.Path == "" || path.IsAbs(e.Path) || path.Clean(e.Path) != e.Path || strings.HasPrefix(e.Path, "..") || e.Path == ManifestFile {
			add(Problem{File: ManifestFile, Field: field + ".path", Msg: fmt.Sprintf("path %q is not a clean relative path inside the release", e.Path)})
			continue
		}
		if _, dup := entries[e.Path]; dup {
			add(Problem{File: ManifestFile, Field: field + ".path", Msg: fmt.Sprintf("path %q listed twice", e.Path)})
			continue
		}
		entries[e.Path] = e
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(e.Path)))
		if err != nil {
			add(Problem{File: e.Path, Msg: "listed in the manifest but cannot be read: " + err.Error()})
			continue
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != e.SHA256 {
			add(Problem{File: e.Path, Msg: fmt.Sprintf("sha256 %s does not match the manifest's %s (the file was changed after release)", got, e.SHA256)})
		}
		if int64(len(data)) != e.Bytes {
			add(Problem{File: e.Path, Msg: fmt.Sprintf("size %d bytes, the manifest says %d", len(data), e.Bytes)})
		}
	}
	want := []string{DatasheetFile}
	for _, f := range dataFiles {
		want = append(want, f.Path, f.Schema)
	}
	for _, w := range want {
		if _, ok := entries[w]; !ok {
			add(Problem{File: ManifestFile, Msg: fmt.Sprintf("required file %s is not listed", w)})
		}
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, rerr := filepath.Rel(dir, p)
		if rerr != nil {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if _, ok := entries[rel]; !ok && rel != ManifestFile {
			add(Problem{File: rel, Msg: "file is not listed in the manifest"})
		}
		return nil
	})
	return entries
}

// decodeInto appends the record to the typed slice of its file; a record
// that does not decode (a type error the schema already reported) is
// skipped.
func decodeInto(r *records, file string, raw []byte) bool {
	var err error
	switch file {
	case "core.jsonl":
		var v CorePair
		if err = json.Unmarshal(raw, &v); err == nil {
			r.Core = append(r.Core, v)
		}
	case "excluded.jsonl":
		var v ExcludedRecord
		if err = json.Unmarshal(raw, &v); err == nil {
			r.Excluded = append(r.Excluded, v)
		}
	case "contrast.jsonl":
		var v ContrastRecord
		if err = json.Unmarshal(raw, &v); err == nil {
			r.Contrast = append(r.Contrast, v)
		}
	case "seeds.json":
		var v SeedRecord
		if err = json.Unmarshal(raw, &v); err == nil {
			r.Seeds = append(r.Seeds, v)
		}
	case "id_map.csv":
		var v IDMapRow
		if err = json.Unmarshal(raw, &v); err == nil {
			r.IDMap = append(r.IDMap, v)
		}
	case "generation.csv":
		var v GenerationRow
		if err = json.Unmarshal(raw, &v); err == nil {
			r.Generation = append(r.Generation, v)
		}
	default:
		return false
	}
	return err == nil
}

// checkRefs checks identifiers across files and the release flags.
func checkRefs(r *records, lines map[string][]int, m *Manifest, add func(Problem)) {
	iseMax := m.ISEMaxConfidence
	at := func(file string, i int) int {
		if ls := lines[file]; i < len(ls) {
			return ls[i]
		}
		return 0
	}
	idSource := map[string]string{}
	for _, row := range r.IDMap {
		idSource[row.ID] = row.SourceBug
	}
	pairs := map[string]string{} // pair id → partition
	claim := func(id, part, file string, line int, field string) {
		if prev, ok := pairs[id]; ok {
			if prev != part {
				add(Problem{File: file, Line: line, Field: field, Msg: fmt.Sprintf("pair id %q is also in the %s partition", id, prev)})
			}
			return
		}
		pairs[id] = part
	}
	for i, p := range r.Core {
		line := at("core.jsonl", i)
		claim(p.PairID, PartCore, "core.jsonl", line, "pair_id")
		for k, id := range p.ExampleBugIDs {
			if _, ok := idSource[id]; !ok {
				add(Problem{File: "core.jsonl", Line: line, Field: fmt.Sprintf("example_bug_ids[%d]", k), Msg: fmt.Sprintf("exemplar id %q is not in id_map.csv", id)})
			}
		}
		for _, fe := range validationProblems(&p, m.ValidatedBy) {
			add(Problem{File: "core.jsonl", Line: line, Field: fe.Field, Msg: fe.Msg})
		}
		want := wantFlags(&p, iseMax)
		switch {
		case want.ISELowConfidence == p.Flags.ISELowConfidence:
		case p.Judge == nil:
			add(Problem{File: "core.jsonl", Line: line, Field: "flags.ise_low_confidence", Msg: fmt.Sprintf("is %t, but a pair without a judge has no confidence to flag; it is always false", p.Flags.ISELowConfidence)})
		default:
			add(Problem{File: "core.jsonl", Line: line, Field: "flags.ise_low_confidence", Msg: fmt.Sprintf("is %t, but type %s at confidence %v with threshold %v gives %t", p.Flags.ISELowConfidence, p.ErrorType, p.Judge.Confidence, iseMax, want.ISELowConfidence)})
		}
		if want.FixIntroducesLabel != p.Flags.FixIntroducesLabel {
			add(Problem{File: "core.jsonl", Line: line, Field: "flags.fix_introduces_label", Msg: fmt.Sprintf("is %t, but the methods give %t", p.Flags.FixIntroducesLabel, want.FixIntroducesLabel)})
		}
	}
	for i, e := range r.Excluded {
		claim(e.PairID, PartExcluded, "excluded.jsonl", at("excluded.jsonl", i), "pair_id")
	}
	for i, c := range r.Contrast {
		claim(c.ID, PartContrast, "contrast.jsonl", at("contrast.jsonl", i), "id")
	}
	for i, s := range r.Seeds {
		if sb, ok := idSource[s.BugID]; !ok {
			add(Problem{File: "seeds.json", Line: at("seeds.json", i), Field: "bug_id", Msg: fmt.Sprintf("seed %q is not in id_map.csv", s.BugID)})
		} else if sb != s.SourceBug {
			add(Problem{File: "id_map.csv", Field: "source_bug", Msg: fmt.Sprintf("id %q maps to %q, but its seed's source_bug is %q", s.BugID, sb, s.SourceBug)})
		}
	}
	byJVM := map[string]bool{}
	for _, p := range r.Core {
		byJVM[p.PairID] = p.Validation.By == ValidatedByJVM
	}
	genSeen := map[string]bool{}
	for i, g := range r.Generation {
		line := at("generation.csv", i)
		if byJVM[g.PairID] && (g.Execution != "confirmed" || g.ExecC == nil || !*g.ExecC) {
			add(Problem{File: "generation.csv", Line: line, Field: "execution", Msg: fmt.Sprintf("pair %q is jvm-validated, but its row does not record a confirmed execution meeting criterion (c)", g.PairID)})
		}
		part, ok := pairs[g.PairID]
		switch {
		case !ok || part == PartExcluded:
			add(Problem{File: "generation.csv", Line: line, Field: "pair_id", Msg: fmt.Sprintf("pair %q is not a released core or contrast pair", g.PairID)})
		case part != g.Partition:
			add(Problem{File: "generation.csv", Line: line, Field: "partition", Msg: fmt.Sprintf("%q, but pair %q is in %s", g.Partition, g.PairID, part)})
		}
		genSeen[g.PairID] = true
		var bugs []string
		for k, id := range g.ExampleBugIDs {
			sb, ok := idSource[id]
			if !ok {
				add(Problem{File: "generation.csv", Line: line, Field: fmt.Sprintf("example_bug_ids[%d]", k), Msg: fmt.Sprintf("exemplar id %q is not in id_map.csv", id)})
				continue
			}
			if !contains(bugs, sb) {
				bugs = append(bugs, sb)
			}
		}
		if !reflect.DeepEqual(nonNil(bugs), nonNil(g.SourceBugs)) {
			add(Problem{File: "generation.csv", Line: line, Field: "source_bugs", Msg: fmt.Sprintf("%v, but the exemplars map to %v", g.SourceBugs, bugs)})
		}
	}
	for i, p := range r.Core {
		if !genSeen[p.PairID] {
			add(Problem{File: "core.jsonl", Line: at("core.jsonl", i), Field: "pair_id", Msg: fmt.Sprintf("pair %q has no generation.csv row", p.PairID)})
		}
	}
	for i, c := range r.Contrast {
		if !genSeen[c.ID] {
			add(Problem{File: "contrast.jsonl", Line: at("contrast.jsonl", i), Field: "id", Msg: fmt.Sprintf("pair %q has no generation.csv row", c.ID)})
		}
	}
}

// checkCounts recomputes the counts and the datasheet from the records.
func checkCounts(dir string, m *Manifest, r *records, add func(Problem)) {
	checkAccounting(m, add)
	got := computeCounts(r)
	var a, b any
	ja, _ := json.Marshal(m.Counts)
	jb, _ := json.Marshal(got)
	_ = json.Unmarshal(ja, &a)
	_ = json.Unmarshal(jb, &b)
	for _, d := range diffJSON("counts", a, b) {
		add(Problem{File: ManifestFile, Field: d.Field, Msg: d.Msg})
	}
	mm := *m
	mm.Counts = got
	want, err := RenderDatasheet(&mm)
	if err != nil {
		add(Problem{File: DatasheetFile, Msg: err.Error()})
		return
	}
	have, err := os.ReadFile(filepath.Join(dir, DatasheetFile))
	if err != nil {
		return // reported by checkFiles
	}
	wl, hl := strings.Split(string(want), "\n"), strings.Split(string(have), "\n")
	n := 0
	for i := 0; i < max(len(wl), len(hl)) && n < 10; i++ {
		var w, h string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(hl) {
			h = hl[i]
		}
		if w != h {
			n++
			add(Problem{File: DatasheetFile, Line: i + 1, Msg: fmt.Sprintf("reads %q, the records give %q", h, w)})
		}
	}
}

// diffJSON lists the paths where two decoded JSON values differ.
func diffJSON(path string, want, got any) []FieldError {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			break
		}
		keys := map[string]bool{}
		for k := range w {
			keys[k] = true
		}
		for k := range g {
			keys[k] = true
		}
		var ks []string
		for k := range keys {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		var out []FieldError
		for _, k := range ks {
			out = append(out, diffJSON(path+"."+k, w[k], g[k])...)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			break
		}
		var out []FieldError
		for i := range w {
			out = append(out, diffJSON(fmt.Sprintf("%s[%d]", path, i), w[i], g[i])...)
		}
		return out
	}
	if reflect.DeepEqual(want, got) {
		return nil
	}
	return []FieldError{{Field: path, Msg: fmt.Sprintf("manifest says %s, the records give %s", short(want), short(got))}}
}

// checkAccounting verifies the manifest's own arithmetic: every candidate
// is core or excluded, the exclusions by stage and category add up to the
// excluded count, the licences to the core count, and code_license is the
// one licence or "mixed".
func checkAccounting(m *Manifest, add func(Problem)) {
	c := m.Counts
	if c.Core+c.Excluded != c.Candidates {
		add(Problem{File: ManifestFile, Field: "counts.candidates", Msg: fmt.Sprintf("%d candidates, but %d core + %d excluded = %d", c.Candidates, c.Core, c.Excluded, c.Core+c.Excluded)})
	}
	ex := 0
	for _, e := range c.Exclusions {
		ex += e.Count
	}
	if ex != c.Excluded {
		add(Problem{File: ManifestFile, Field: "counts.exclusions", Msg: fmt.Sprintf("exclusions by stage and category sum to %d, the excluded count is %d", ex, c.Excluded)})
	}
	lic := 0
	for _, n := range c.CodeLicenses {
		lic += n.Count
		if n.Name == "" {
			add(Problem{File: ManifestFile, Field: "counts.code_licenses", Msg: fmt.Sprintf("%d core pairs have no code licence", n.Count)})
		}
	}
	if lic != c.Core {
		add(Problem{File: ManifestFile, Field: "counts.code_licenses", Msg: fmt.Sprintf("code licences cover %d core pairs of %d", lic, c.Core)})
	}
	if want := codeLicense(c); m.CodeLicense != want {
		add(Problem{File: ManifestFile, Field: "code_license", Msg: fmt.Sprintf("%q, but the core pairs' licences make it %q", m.CodeLicense, want)})
	}
}
