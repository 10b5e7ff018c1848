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
	m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	add := func(p Problem) { res.Problems = append(res.Problems, p) }

	entries := checkFiles(dir, m, add)
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
		n, ok := checkDataFile(dir, spec, e, &recs, lines, add)
		if !ok {
			continue
		}
		res.Records += n
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	if !ValidMethod(m.ValidatedBy) {
		add(Problem{File: ManifestFile, Field: "validated_by", Msg: fmt.Sprintf("%q is neither %s nor %s", m.ValidatedBy, ValidatedByJudge, ValidatedByJVM)})
	}
	checkRefs(&recs, lines, m, add)
	checkCounts(dir, m, &recs, add)
	return res, nil
}

// readManifest reads dir's MANIFEST.json, refusing unknown fields and
// other formats.
func readManifest(dir string) (*Manifest, error) {
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
	return &m, nil
}

// checkDataFile checks one data file listed in the manifest (entry e)
// against its schema and record count, decoding its records into recs
// and their lines into lines. It returns the number of records, and
// false when the schema or the file cannot be read.
func checkDataFile(dir string, spec fileSpec, e FileEntry, recs *records, lines map[string][]int, add func(Problem)) (int, bool) {
	if e.Format != spec.Format || e.Schema != spec.Schema || e.Key != spec.Key {
		add(Problem{File: ManifestFile, Msg: fmt.Sprintf("entry %s: format/schema/key %q/%q/%q, want %q/%q/%q", spec.Path, e.Format, e.Schema, e.Key, spec.Format, spec.Schema, spec.Key)})
	}
	sdata, err := os.ReadFile(filepath.Join(dir, spec.Schema))
	if err != nil {
		add(Problem{File: spec.Schema, Msg: "cannot read the schema: " + err.Error()})
		return 0, false
	}
	schema, err := ParseSchema(sdata)
	if err != nil {
		add(Problem{File: spec.Schema, Msg: err.Error()})
		return 0, false
	}
	data, err := os.ReadFile(filepath.Join(dir, spec.Path))
	if err != nil {
		return 0, false // reported by checkFiles
	}
	rr, probs := readRecords(spec, data, schema)
	for _, p := range probs {
		add(p)
	}
	checkRecords(spec, schema, rr, len(probs), recs, lines, add)
	if len(rr) != e.Records {
		add(Problem{File: ManifestFile, Field: "files[" + spec.Path + "].records", Msg: fmt.Sprintf("manifest says %d records, the file has %d", e.Records, len(rr))})
	}
	return len(rr), true
}

// readRecords splits a data file into records by its format.
func readRecords(spec fileSpec, data []byte, schema *Schema) ([]rawRecord, []Problem) {
	switch spec.Format {
	case FormatJSONL:
		return readJSONL(spec.Path, data)
	case FormatJSON:
		return readJSONArray(spec.Path, data)
	case FormatCSV:
		return readCSV(spec.Path, data, schema)
	}
	return nil, nil
}

// checkRecords validates each record against the schema and its key for
// uniqueness, reporting at most maxProblemsPerFile problems (n are
// already reported), and decodes the records into recs.
func checkRecords(spec fileSpec, schema *Schema, rr []rawRecord, n int, recs *records, lines map[string][]int, add func(Problem)) {
	keys := map[string]int{}
	for _, r := range rr {
		for _, fe := range schema.Validate(r.Value) {
			if n++; n <= maxProblemsPerFile {
				add(Problem{File: spec.Path, Line: r.Line, Field: fe.Field, Msg: fe.Msg})
			}
		}
		checkKey(spec, r, keys, add)
		if decodeInto(recs, spec.Path, r.JSON) {
			lines[spec.Path] = append(lines[spec.Path], r.Line)
		}
	}
	if n > maxProblemsPerFile {
		add(Problem{File: spec.Path, Msg: fmt.Sprintf("%d more record problems not shown", n-maxProblemsPerFile)})
	}
}

// checkKey reports a record whose key was already used in its file;
// keys holds each key's first line.
func checkKey(spec fileSpec, r rawRecord, keys map[string]int, add func(Problem)) {
	obj, ok := r.Value.(map[string]any)
	if !ok {
		return
	}
	k, ok := obj[spec.Key].(string)
	if !ok {
		return
	}
	if prev, dup := keys[k]; dup {
		add(Problem{File: spec.Path, Line: r.Line, Field: spec.Key, Msg: fmt.Sprintf("id %q already used at line %d", k, prev)})
	} else {
		keys[k] = r.Line
	}
}

// checkFiles verifies the manifest's file list against the directory and
// returns the entries by path.
func checkFiles(dir string, m *Manifest, add func(Problem)) map[string]FileEntry {
	entries := map[string]FileEntry{}
	for i, e := range m.Files {
		checkEntry(dir, fmt.Sprintf("files[%d]", i), e, entries, add)
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
	unlistedFiles(dir, entries, add)
	return entries
}

// checkEntry checks one file entry of the manifest (at field) — a clean
// path listed once, with the file's sha256 and size — and adds it to
// entries.
func checkEntry(dir, field string, e FileEntry, entries map[string]FileEntry, add func(Problem)) {
	if !insideRelease(e.Path) {
		add(Problem{File: ManifestFile, Field: field + ".path", Msg: fmt.Sprintf("path %q is not a clean relative path inside the release", e.Path)})
		return
	}
	if _, dup := entries[e.Path]; dup {
		add(Problem{File: ManifestFile, Field: field + ".path", Msg: fmt.Sprintf("path %q listed twice", e.Path)})
		return
	}
	entries[e.Path] = e
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(e.Path)))
	if err != nil {
		add(Problem{File: e.Path, Msg: "listed in the manifest but cannot be read: " + err.Error()})
		return
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != e.SHA256 {
		add(Problem{File: e.Path, Msg: fmt.Sprintf("sha256 %s does not match the manifest's %s (the file was changed after release)", got, e.SHA256)})
	}
	if int64(len(data)) != e.Bytes {
		add(Problem{File: e.Path, Msg: fmt.Sprintf("size %d bytes, the manifest says %d", len(data), e.Bytes)})
	}
}

// insideRelease reports whether p is a clean relative path inside the
// release, other than the manifest's own.
func insideRelease(p string) bool {
	return p != "" && !path.IsAbs(p) && path.Clean(p) == p && !strings.HasPrefix(p, "..") && p != ManifestFile
}

// unlistedFiles reports every file in dir the manifest does not list.
func unlistedFiles(dir string, entries map[string]FileEntry, add func(Problem)) {
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
}

// decoders append a record of each data file to its typed slice.
var decoders = map[string]func(r *records, raw []byte) error{
	"core.jsonl":     func(r *records, raw []byte) error { return appendJSON(&r.Core, raw) },
	"excluded.jsonl": func(r *records, raw []byte) error { return appendJSON(&r.Excluded, raw) },
	"contrast.jsonl": func(r *records, raw []byte) error { return appendJSON(&r.Contrast, raw) },
	"seeds.json":     func(r *records, raw []byte) error { return appendJSON(&r.Seeds, raw) },
	"id_map.csv":     func(r *records, raw []byte) error { return appendJSON(&r.IDMap, raw) },
	"generation.csv": func(r *records, raw []byte) error { return appendJSON(&r.Generation, raw) },
}

// decodeInto appends the record to the typed slice of its file; a record
// that does not decode (a type error the schema already reported) is
// skipped.
func decodeInto(r *records, file string, raw []byte) bool {
	dec, ok := decoders[file]
	return ok && dec(r, raw) == nil
}

// appendJSON decodes raw and appends it to dst.
func appendJSON[T any](dst *[]T, raw []byte) error {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	*dst = append(*dst, v)
	return nil
}

// refCheck checks identifiers across a release's files: pair ids claimed
// by one partition each, exemplar and seed ids in id_map.csv.
type refCheck struct {
	r        *records
	lines    map[string][]int
	add      func(Problem)
	idSource map[string]string // id_map id → source bug
	pairs    map[string]string // pair id → partition
}

// at is the line of the i-th typed record of file, 0 when unknown.
func (c *refCheck) at(file string, i int) int {
	if ls := c.lines[file]; i < len(ls) {
		return ls[i]
	}
	return 0
}

// claim records pair id in partition part, reporting an id already in
// another partition.
func (c *refCheck) claim(id, part, file string, line int, field string) {
	if prev, ok := c.pairs[id]; ok {
		if prev != part {
			c.add(Problem{File: file, Line: line, Field: field, Msg: fmt.Sprintf("pair id %q is also in the %s partition", id, prev)})
		}
		return
	}
	c.pairs[id] = part
}

// checkRefs checks identifiers across files and the release flags.
func checkRefs(r *records, lines map[string][]int, m *Manifest, add func(Problem)) {
	c := &refCheck{r: r, lines: lines, add: add, idSource: map[string]string{}, pairs: map[string]string{}}
	for _, row := range r.IDMap {
		c.idSource[row.ID] = row.SourceBug
	}
	for i := range r.Core {
		c.core(&r.Core[i], c.at("core.jsonl", i), m)
	}
	for i, e := range r.Excluded {
		c.claim(e.PairID, PartExcluded, "excluded.jsonl", c.at("excluded.jsonl", i), "pair_id")
	}
	for i, p := range r.Contrast {
		c.claim(p.ID, PartContrast, "contrast.jsonl", c.at("contrast.jsonl", i), "id")
	}
	c.seeds()
	c.generation()
}

// core checks core pair p at line: its pair id, exemplars, validation
// evidence and release flags.
func (c *refCheck) core(p *CorePair, line int, m *Manifest) {
	c.claim(p.PairID, PartCore, "core.jsonl", line, "pair_id")
	for k, id := range p.ExampleBugIDs {
		if _, ok := c.idSource[id]; !ok {
			c.add(Problem{File: "core.jsonl", Line: line, Field: fmt.Sprintf("example_bug_ids[%d]", k), Msg: fmt.Sprintf("exemplar id %q is not in id_map.csv", id)})
		}
	}
	for _, fe := range validationProblems(p, m.ValidatedBy) {
		c.add(Problem{File: "core.jsonl", Line: line, Field: fe.Field, Msg: fe.Msg})
	}
	iseMax := m.ISEMaxConfidence
	want := wantFlags(p, iseMax)
	switch {
	case want.ISELowConfidence == p.Flags.ISELowConfidence:
	case p.Judge == nil:
		c.add(Problem{File: "core.jsonl", Line: line, Field: "flags.ise_low_confidence", Msg: fmt.Sprintf("is %t, but a pair without a judge has no confidence to flag; it is always false", p.Flags.ISELowConfidence)})
	default:
		c.add(Problem{File: "core.jsonl", Line: line, Field: "flags.ise_low_confidence", Msg: fmt.Sprintf("is %t, but type %s at confidence %v with threshold %v gives %t", p.Flags.ISELowConfidence, p.ErrorType, p.Judge.Confidence, iseMax, want.ISELowConfidence)})
	}
	if want.FixIntroducesLabel != p.Flags.FixIntroducesLabel {
		c.add(Problem{File: "core.jsonl", Line: line, Field: "flags.fix_introduces_label", Msg: fmt.Sprintf("is %t, but the methods give %t", p.Flags.FixIntroducesLabel, want.FixIntroducesLabel)})
	}
}

// seeds checks that every seed's bug_id maps to its source bug.
func (c *refCheck) seeds() {
	for i, s := range c.r.Seeds {
		if sb, ok := c.idSource[s.BugID]; !ok {
			c.add(Problem{File: "seeds.json", Line: c.at("seeds.json", i), Field: "bug_id", Msg: fmt.Sprintf("seed %q is not in id_map.csv", s.BugID)})
		} else if sb != s.SourceBug {
			c.add(Problem{File: "id_map.csv", Field: "source_bug", Msg: fmt.Sprintf("id %q maps to %q, but its seed's source_bug is %q", s.BugID, sb, s.SourceBug)})
		}
	}
}

// generation checks generation.csv: one row per released pair, in its
// partition, with its exemplars' source bugs and, for a jvm-validated
// pair, the confirmed execution.
func (c *refCheck) generation() {
	byJVM := map[string]bool{}
	for _, p := range c.r.Core {
		byJVM[p.PairID] = p.Validation.By == ValidatedByJVM
	}
	genSeen := map[string]bool{}
	for i, g := range c.r.Generation {
		line := c.at("generation.csv", i)
		c.generationRow(g, line, byJVM[g.PairID])
		genSeen[g.PairID] = true
		c.generationExemplars(g, line)
	}
	c.missingGeneration(genSeen)
}

// generationRow checks that row g names a released pair in its partition
// and, for a jvm-validated pair, records the confirmed execution.
func (c *refCheck) generationRow(g GenerationRow, line int, byJVM bool) {
	if byJVM && (g.Execution != "confirmed" || g.ExecC == nil || !*g.ExecC) {
		c.add(Problem{File: "generation.csv", Line: line, Field: "execution", Msg: fmt.Sprintf("pair %q is jvm-validated, but its row does not record a confirmed execution meeting criterion (c)", g.PairID)})
	}
	part, ok := c.pairs[g.PairID]
	switch {
	case !ok || part == PartExcluded:
		c.add(Problem{File: "generation.csv", Line: line, Field: "pair_id", Msg: fmt.Sprintf("pair %q is not a released core or contrast pair", g.PairID)})
	case part != g.Partition:
		c.add(Problem{File: "generation.csv", Line: line, Field: "partition", Msg: fmt.Sprintf("%q, but pair %q is in %s", g.Partition, g.PairID, part)})
	}
}

// missingGeneration reports the core and contrast pairs without a
// generation.csv row (genSeen holds the rows' pair ids).
func (c *refCheck) missingGeneration(genSeen map[string]bool) {
	for i, p := range c.r.Core {
		if !genSeen[p.PairID] {
			c.add(Problem{File: "core.jsonl", Line: c.at("core.jsonl", i), Field: "pair_id", Msg: fmt.Sprintf("pair %q has no generation.csv row", p.PairID)})
		}
	}
	for i, p := range c.r.Contrast {
		if !genSeen[p.ID] {
			c.add(Problem{File: "contrast.jsonl", Line: c.at("contrast.jsonl", i), Field: "id", Msg: fmt.Sprintf("pair %q has no generation.csv row", p.ID)})
		}
	}
}

// generationExemplars checks that row g's exemplars are in id_map.csv and
// its source_bugs are theirs, distinct, in order.
func (c *refCheck) generationExemplars(g GenerationRow, line int) {
	var bugs []string
	for k, id := range g.ExampleBugIDs {
		sb, ok := c.idSource[id]
		if !ok {
			c.add(Problem{File: "generation.csv", Line: line, Field: fmt.Sprintf("example_bug_ids[%d]", k), Msg: fmt.Sprintf("exemplar id %q is not in id_map.csv", id)})
			continue
		}
		if !contains(bugs, sb) {
			bugs = append(bugs, sb)
		}
	}
	if !reflect.DeepEqual(nonNil(bugs), nonNil(g.SourceBugs)) {
		c.add(Problem{File: "generation.csv", Line: line, Field: "source_bugs", Msg: fmt.Sprintf("%v, but the exemplars map to %v", g.SourceBugs, bugs)})
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
	diffDatasheet(string(want), string(have), add)
}

// diffDatasheet reports the first ten lines where the datasheet have
// differs from the one the records give (want).
func diffDatasheet(want, have string, add func(Problem)) {
	wl, hl := strings.Split(want, "\n"), strings.Split(have, "\n")
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
		return diffJSONObject(path, w, g)
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

// diffJSONObject is diffJSON over the union of two objects' keys, sorted.
func diffJSONObject(path string, w, g map[string]any) []FieldError {
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
