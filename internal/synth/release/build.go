package release

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/judge"
)

// FormatVersion names the release layout; a check refuses other values.
// Version 2 added the core record's validation block (a judge or a JVM
// validated core) and the manifest's validated_by.
const FormatVersion = "benchforge-release/2"

// ManifestFile and DatasheetFile are fixed names inside a release.
const (
	ManifestFile  = "MANIFEST.json"
	DatasheetFile = "DATASHEET.md"
)

// fileSpec describes one data file of a release.
type fileSpec struct {
	Path, Format, Schema, Key, Title string
	typ                              any
}

// dataFiles are a release's data files, in manifest order.
var dataFiles = []fileSpec{
	{"core.jsonl", FormatJSONL, "schemas/core.schema.json", "pair_id", "Core pair", CorePair{}},
	{"excluded.jsonl", FormatJSONL, "schemas/excluded.schema.json", "pair_id", "Excluded candidate", ExcludedRecord{}},
	{"contrast.jsonl", FormatJSONL, "schemas/contrast.schema.json", "id", "Zero-shot contrast pair", ContrastRecord{}},
	{"seeds.json", FormatJSON, "schemas/seed.schema.json", "bug_id", "Real seed pair", SeedRecord{}},
	{"id_map.csv", FormatCSV, "schemas/id_map.schema.json", "id", "Identifier to source-bug map row", IDMapRow{}},
	{"generation.csv", FormatCSV, "schemas/generation.schema.json", "pair_id", "Per-pair generation metadata row", GenerationRow{}},
}

// Schemas returns the JSON Schema of every record type, keyed by its path
// inside a release.
func Schemas() (map[string]*Schema, error) {
	out := map[string]*Schema{}
	for _, f := range dataFiles {
		name := strings.TrimSuffix(filepath.Base(f.Schema), ".schema.json")
		s, err := SchemaFor(f.typ, "urn:benchforge:release:2:"+name, f.Title)
		if err != nil {
			return nil, err
		}
		out[f.Schema] = s
	}
	return out, nil
}

// Options describe the release.
type Options struct {
	Name    string // dataset name; default "benchforge synthetic corpus"
	Version string // release version; default "1.0.0"
	License string // data licence; default "CC-BY-4.0"
	// CodeLicense is the licence of generated code with no real source;
	// "" refuses such pairs (the release does not label code it cannot
	// attribute). Pairs from real code take their source's licence.
	CodeLicense string
	// Repos holds the clones of the pairs' source repositories, where
	// their licences are read (jvm.FindGitDir layouts).
	Repos string
	// ISEMaxConfidence is the ise_low_confidence threshold; nil means
	// judge.DefaultISEMaxConfidence (every IllegalStateException pair).
	ISEMaxConfidence *float64
}

// Manifest is MANIFEST.json: what the release is, every other file with
// its size and sha256, and the counts.
type Manifest struct {
	Format           string      `json:"format"`
	Name             string      `json:"name"`
	Version          string      `json:"version"`
	License          string      `json:"license"`
	CodeLicense      string      `json:"code_license"` // the one licence of all code, or "mixed"
	ISEMaxConfidence float64     `json:"ise_max_confidence"`
	ValidatedBy      string      `json:"validated_by"`
	Files            []FileEntry `json:"files"`
	Counts           Counts      `json:"counts"`
}

// FileEntry is one file of a release.
type FileEntry struct {
	Path    string `json:"path"`
	Format  string `json:"format"`
	Schema  string `json:"schema,omitempty"`
	Key     string `json:"key,omitempty"`
	Records int    `json:"records"`
	Bytes   int64  `json:"bytes"`
	SHA256  string `json:"sha256"`
}

// Result is what Build did.
type Result struct {
	Dir      string    `json:"dir"`
	Manifest *Manifest `json:"manifest"`
	// FlagChanges lists core pairs whose input flags differed from the
	// recomputed ones ("pair X: fix_introduces_label false → true").
	FlagChanges []string `json:"flag_changes,omitempty"`
}

// Build packages the inputs as a release in outDir, which must not exist
// or be empty. Flags are recomputed (§8.1); every exemplar id must resolve
// through the identifier map; pair ids must be unique across partitions;
// every core pair carries the evidence of in.ValidatedBy.
func Build(ctx context.Context, in Inputs, outDir string, opts Options) (*Result, error) {
	opts = opts.withDefaults()
	if in.ValidatedBy == "" {
		in.ValidatedBy = ValidatedByJudge
	}
	if err := emptyDir(outDir); err != nil {
		return nil, err
	}
	l, err := load(in)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	recs, changes, err := assemble(ctx, l, in, *opts.ISEMaxConfidence)
	if err != nil {
		return nil, err
	}
	if err := complete(ctx, recs, l, in, opts); err != nil {
		return nil, err
	}
	counts := computeCounts(recs)
	m := &Manifest{Format: FormatVersion, Name: opts.Name, Version: opts.Version, License: opts.License,
		CodeLicense: codeLicense(counts), ISEMaxConfidence: *opts.ISEMaxConfidence, ValidatedBy: in.ValidatedBy, Counts: counts}
	if err := write(outDir, recs, m); err != nil {
		return nil, err
	}
	return &Result{Dir: outDir, Manifest: m, FlagChanges: changes}, nil
}

// complete finishes the assembled records: the core pairs' licence and
// source, the executed candidates a jvm-validated release does not ship
// as exclusions, and the check that every candidate is accounted for.
func complete(ctx context.Context, recs *records, l *loaded, in Inputs, opts Options) error {
	if err := attributeCore(ctx, recs, l, in, opts); err != nil {
		return err
	}
	if in.ValidatedBy == ValidatedByJVM {
		recs.Excluded = append(recs.Excluded, jvmExclusions(recs, l)...)
	}
	return accountFor(recs, l, in)
}

func (o Options) withDefaults() Options {
	if o.Name == "" {
		o.Name = "benchforge synthetic corpus"
	}
	if o.Version == "" {
		o.Version = "1.0.0"
	}
	if o.License == "" {
		o.License = "CC-BY-4.0"
	}
	if o.ISEMaxConfidence == nil {
		v := judge.DefaultISEMaxConfidence
		o.ISEMaxConfidence = &v
	}
	return o
}

func emptyDir(dir string) error {
	if dir == "" {
		return fmt.Errorf("release: %w: no output directory", errs.ErrUsage)
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("release %s: %w", dir, err)
	}
	if len(ents) > 0 {
		return fmt.Errorf("release %s: %w: the output directory is not empty; choose a new one (a release is never written over another)", dir, errs.ErrUsage)
	}
	return nil
}

// assemble turns the loaded inputs into release records.
func assemble(ctx context.Context, l *loaded, in Inputs, iseMax float64) (*records, []string, error) {
	r := &records{}
	idSource, rows, err := buildIDMap(l, in)
	if err != nil {
		return nil, nil, err
	}
	r.IDMap = rows
	seen := pairIDs{}
	changes, err := assembleCore(ctx, r, l, in, iseMax, idSource, seen)
	if err != nil {
		return nil, nil, err
	}
	for i, e := range l.excluded {
		if err := seen.claim(e.PairID, fmt.Sprintf("excluded record %d", i+1)); err != nil {
			return nil, nil, err
		}
		if e.Generator == "" {
			e.Generator = l.candidates[e.PairID].Generator
		}
		r.Excluded = append(r.Excluded, e)
	}
	if err := assembleContrast(r, l, in, seen); err != nil {
		return nil, nil, err
	}
	for _, ls := range l.seeds {
		r.Seeds = append(r.Seeds, seedRecord(ls.Rec))
	}
	return r, changes, nil
}

// assembleCore adds the core pairs, with flags recomputed at iseMax, and
// their generation rows; it returns how the flags changed.
func assembleCore(ctx context.Context, r *records, l *loaded, in Inputs, iseMax float64, idSource map[string]string, seen pairIDs) ([]string, error) {
	var changes []string
	for i, lp := range l.core {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		where := fmt.Sprintf("%s:%d", in.Core, lp.Line)
		if err := seen.claim(lp.Rec.PairID, where); err != nil {
			return nil, err
		}
		cp, g, err := corePair(lp.Rec, where, l, in, idSource)
		if err != nil {
			return nil, err
		}
		cp.Flags = wantFlags(&cp, iseMax)
		changes = append(changes, flagChanges(lp.Rec, cp.Flags)...)
		r.Core = append(r.Core, cp)
		r.Generation = append(r.Generation, g)
	}
	return changes, nil
}

// pairIDs are the pair ids assembled so far, each with where it was first
// seen.
type pairIDs map[string]string

// claim records pair id at where, refusing an id already used.
func (seen pairIDs) claim(id, where string) error {
	if prev, ok := seen[id]; ok {
		return fmt.Errorf("%s: %w: pair id %q already used at %s; ids must be unique across core, excluded and contrast", where, errs.ErrInput, id, prev)
	}
	seen[id] = where
	return nil
}

// corePair builds the release record of core pair p (read at where) with
// the evidence of in.ValidatedBy, flags not yet set, and its generation
// row.
func corePair(p corpus.Pair, where string, l *loaded, in Inputs, idSource map[string]string) (CorePair, GenerationRow, error) {
	ids := nonNil(p.ExampleBugIDs)
	bugs, err := exemplarBugs(p, where, ids, idSource)
	if err != nil {
		return CorePair{}, GenerationRow{}, err
	}
	cp := CorePair{PairID: p.PairID, SampleID: p.SampleID, Partition: PartCore, ErrorType: p.ErrorType,
		BuggyMethod: p.BuggyMethod, FixedMethod: p.FixedMethod, ExampleBugIDs: ids, Generator: p.Generator,
		PromptHash: p.PromptHash, SizeTarget: max(p.SizeTarget, 0), Validation: CoreValidation{By: in.ValidatedBy}}
	switch in.ValidatedBy {
	case ValidatedByJudge:
		j := p.Judge
		if math.IsNaN(j.Confidence) || j.Confidence < 0 || j.Confidence > 1 {
			return CorePair{}, GenerationRow{}, fmt.Errorf("%s: pair %s: %w: judge confidence %v is outside [0, 1]", where, p.PairID, errs.ErrInput, j.Confidence)
		}
		cp.Judge = &CoreJudge{Model: j.Model, Confidence: j.Confidence, Site: j.Site, SiteLine: max(j.SiteLine, 0),
			Trigger: j.Trigger, Verdict: j.Verdict, Repaired: j.Repaired}
	case ValidatedByJVM:
		// Any judge on the input is dropped, not kept alongside: a
		// record states one validation, the one the release claims.
		e := l.executions[p.PairID]
		cp.Validation.JVM = jvmEvidence(e.Rec)
		if probs := validationProblems(&cp, in.ValidatedBy); len(probs) > 0 {
			return CorePair{}, GenerationRow{}, fmt.Errorf("%s: pair %s: %w: execution record %s:%d: %s", where, p.PairID, errs.ErrInput, in.Executions, e.Line, probs[0])
		}
	}
	return cp, genRow(PartCore, p, ids, bugs, l), nil
}

// exemplarBugs resolves pair p's exemplar ids to their distinct source
// bugs, in order; every id must be in the map and free of ';'.
func exemplarBugs(p corpus.Pair, where string, ids []string, idSource map[string]string) ([]string, error) {
	var bugs []string
	for _, id := range ids {
		sb, ok := idSource[id]
		if !ok {
			return nil, fmt.Errorf("%s: pair %s: %w: example_bug_ids entry %q is not in the identifier → source-bug map; add its seed to --seeds or a row to --id-map", where, p.PairID, errs.ErrInput, id)
		}
		if strings.Contains(id, ";") {
			return nil, fmt.Errorf("%s: pair %s: %w: example id %q contains ';', the CSV list separator", where, p.PairID, errs.ErrInput, id)
		}
		if !contains(bugs, sb) {
			bugs = append(bugs, sb)
		}
	}
	return bugs, nil
}

// flagChanges describes where the recomputed flags differ from pair p's
// input flags.
func flagChanges(p corpus.Pair, flags CoreFlags) []string {
	var changes []string
	if flags.ISELowConfidence != p.Flags.ISELowConfidence {
		changes = append(changes, fmt.Sprintf("pair %s: ise_low_confidence %t → %t", p.PairID, p.Flags.ISELowConfidence, flags.ISELowConfidence))
	}
	if flags.FixIntroducesLabel != p.Flags.FixIntroducesLabel {
		changes = append(changes, fmt.Sprintf("pair %s: fix_introduces_label %t → %t", p.PairID, p.Flags.FixIntroducesLabel, flags.FixIntroducesLabel))
	}
	return changes
}

// assembleContrast adds the zero-shot contrast pairs and their generation
// rows.
func assembleContrast(r *records, l *loaded, in Inputs, seen pairIDs) error {
	for _, lp := range l.contrast {
		p, where := lp.Rec, fmt.Sprintf("%s:%d", in.ZeroShot, lp.Line)
		if err := seen.claim(p.PairID, where); err != nil {
			return err
		}
		if p.Generator == "" {
			return fmt.Errorf("%s: pair %s: %w: generator is empty", where, p.PairID, errs.ErrInput)
		}
		r.Contrast = append(r.Contrast, ContrastRecord{ID: p.PairID, Partition: PartContrast, ErrorType: p.ErrorType,
			BuggyMethod: p.BuggyMethod, FixedMethod: p.FixedMethod, Generator: p.Generator, PromptHash: p.PromptHash})
		r.Generation = append(r.Generation, genRow(PartContrast, p, []string{}, []string{}, l))
	}
	return nil
}

// seedRecord is seed s as released.
func seedRecord(s corpus.Seed) SeedRecord {
	return SeedRecord{BugID: s.BugID, SourceBug: s.SourceBug, Benchmark: s.Benchmark, Project: s.Project,
		Exception: s.Exception, BuggyMethod: s.BuggyMethod, FixedMethod: s.FixedMethod, File: s.File,
		MethodSignature: s.MethodSignature, BuggySpan: SeedSpan(s.BuggySpan), FixedSpan: SeedSpan(s.FixedSpan), Diff: s.Diff, Repo: s.Repo, FixedCommit: s.FixedCommit}
}

// buildIDMap builds the identifier → source-bug map: every seed's bug_id
// and source_bug, then the aliases, which may only name known source bugs.
func buildIDMap(l *loaded, in Inputs) (map[string]string, []IDMapRow, error) {
	b := idMapBuilder{m: map[string]string{}, kind: map[string]string{}, bugs: map[string]bool{}}
	if err := b.seeds(l.seeds, in.Seeds); err != nil {
		return nil, nil, err
	}
	if err := b.aliases(l.aliases, in.IDMap); err != nil {
		return nil, nil, err
	}
	var rows []IDMapRow
	for _, id := range sortedKeys(b.m) {
		rows = append(rows, IDMapRow{ID: id, SourceBug: b.m[id], Kind: b.kind[id]})
	}
	return b.m, rows, nil
}

// idMapBuilder accumulates the identifier map: each id's source bug and
// kind, and the seeds' source bugs.
type idMapBuilder struct {
	m    map[string]string
	kind map[string]string
	bugs map[string]bool
}

// seeds maps every seed's bug_id to its source bug and every source bug to
// itself; a bug_id may appear once and be another seed's source bug only
// when it is its own.
func (b *idMapBuilder) seeds(seeds []lined[corpus.Seed], path string) error {
	for _, s := range seeds {
		b.bugs[s.Rec.SourceBug] = true
	}
	for _, ls := range seeds {
		s := ls.Rec
		if _, dup := b.kind[s.BugID]; dup && b.kind[s.BugID] == KindBugID {
			return fmt.Errorf("%s:%d: %w: seed bug_id %q appears twice", path, ls.Line, errs.ErrInput, s.BugID)
		}
		if b.bugs[s.BugID] && s.BugID != s.SourceBug {
			return fmt.Errorf("%s:%d: %w: seed bug_id %q is also another seed's source_bug but maps to %q", path, ls.Line, errs.ErrInput, s.BugID, s.SourceBug)
		}
		b.m[s.BugID], b.kind[s.BugID] = s.SourceBug, KindBugID
	}
	for bug := range b.bugs {
		if _, ok := b.m[bug]; !ok {
			b.m[bug], b.kind[bug] = bug, KindSourceBug
		}
	}
	return nil
}

// aliases adds the extra ids, each naming a known source bug and
// agreeing with any earlier mapping of the same id.
func (b *idMapBuilder) aliases(aliases []lined[aliasIn], path string) error {
	for _, a := range aliases {
		where := fmt.Sprintf("%s:%d", path, a.Line)
		switch {
		case a.Rec.ID == "" || a.Rec.SourceBug == "":
			return fmt.Errorf("%s: %w: id and source_bug must both be set", where, errs.ErrInput)
		case !b.bugs[a.Rec.SourceBug]:
			return fmt.Errorf("%s: %w: source bug %q of id %q is not a source_bug of any seed", where, errs.ErrInput, a.Rec.SourceBug, a.Rec.ID)
		}
		if prev, ok := b.m[a.Rec.ID]; ok {
			if prev != a.Rec.SourceBug {
				return fmt.Errorf("%s: %w: id %q maps to %q here but to %q already", where, errs.ErrInput, a.Rec.ID, a.Rec.SourceBug, prev)
			}
			continue
		}
		b.m[a.Rec.ID], b.kind[a.Rec.ID] = a.Rec.SourceBug, KindAlias
	}
	return nil
}

func genRow(part string, p corpus.Pair, ids, bugs []string, l *loaded) GenerationRow {
	g := GenerationRow{PairID: p.PairID, Partition: part, ErrorType: p.ErrorType, Generator: p.Generator,
		PromptHash: p.PromptHash, SizeTarget: max(p.SizeTarget, 0), ExampleBugIDs: ids, SourceBugs: nonNil(bugs)}
	if c, ok := l.candidates[p.PairID]; ok {
		g.Operator = c.Operator
		if c.Source != nil {
			g.SourceFile, g.SourceMethod = c.Source.File, c.Source.Method
			g.SourceStartLine, g.SourceSiteLine = max(c.Source.StartLine, 0), max(c.Source.SiteLine, 0)
		}
	}
	if le, ok := l.executions[p.PairID]; ok {
		e := le.Rec
		a, b, c := e.Criteria.A, e.Criteria.B, e.Criteria.C
		g.Execution, g.ExecA, g.ExecB, g.ExecC = e.Status, &a, &b, &c
	}
	return g
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// write renders every file of the release into dir, the manifest last.
func write(dir string, r *records, m *Manifest) error {
	schemas, err := Schemas()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "schemas"), 0o755); err != nil {
		return fmt.Errorf("release %s: %w", dir, err)
	}
	w := fileWriter{dir: dir, m: m}
	if err := w.dataFiles(r); err != nil {
		return err
	}
	if err := w.schemas(schemas); err != nil {
		return err
	}
	sheet, err := RenderDatasheet(m)
	if err != nil {
		return err
	}
	if err := w.put(DatasheetFile, FormatMarkdown, "", "", 0, sheet); err != nil {
		return err
	}
	// The manifest goes last and atomically: its presence says the
	// release directory is whole.
	if err := output.WriteJSON(filepath.Join(dir, ManifestFile), m); err != nil {
		return fmt.Errorf("release %s: %w", dir, err)
	}
	return nil
}

// fileWriter writes a release's files into dir, listing each in the
// manifest m.
type fileWriter struct {
	dir string
	m   *Manifest
}

// put writes one file and adds its entry (n records) to the manifest.
func (w fileWriter) put(path, format, schema, key string, n int, data []byte) error {
	if err := os.WriteFile(filepath.Join(w.dir, path), data, 0o644); err != nil {
		return fmt.Errorf("release %s: %w", w.dir, err)
	}
	sum := sha256.Sum256(data)
	w.m.Files = append(w.m.Files, FileEntry{Path: path, Format: format, Schema: schema, Key: key, Records: n,
		Bytes: int64(len(data)), SHA256: hex.EncodeToString(sum[:])})
	return nil
}

// dataFiles writes the data files in manifest order.
func (w fileWriter) dataFiles(r *records) error {
	enc := map[string]func() ([]byte, int, error){
		"core.jsonl":     func() ([]byte, int, error) { b, err := encodeJSONL(r.Core); return b, len(r.Core), err },
		"excluded.jsonl": func() ([]byte, int, error) { b, err := encodeJSONL(r.Excluded); return b, len(r.Excluded), err },
		"contrast.jsonl": func() ([]byte, int, error) { b, err := encodeJSONL(r.Contrast); return b, len(r.Contrast), err },
		"seeds.json":     func() ([]byte, int, error) { b, err := encodeJSONArray(r.Seeds); return b, len(r.Seeds), err },
		"id_map.csv":     func() ([]byte, int, error) { b, err := encodeCSV(r.IDMap); return b, len(r.IDMap), err },
		"generation.csv": func() ([]byte, int, error) { b, err := encodeCSV(r.Generation); return b, len(r.Generation), err },
	}
	for _, f := range dataFiles {
		data, n, err := enc[f.Path]()
		if err != nil {
			return fmt.Errorf("release %s: encode %s: %w", w.dir, f.Path, err)
		}
		if err := w.put(f.Path, f.Format, f.Schema, f.Key, n, data); err != nil {
			return err
		}
	}
	return nil
}

// schemas writes the data files' schemas, in the same order.
func (w fileWriter) schemas(schemas map[string]*Schema) error {
	for _, f := range dataFiles {
		data, err := schemas[f.Schema].Marshal()
		if err != nil {
			return fmt.Errorf("release %s: encode %s: %w", w.dir, f.Schema, err)
		}
		if err := w.put(f.Schema, FormatSchema, "", "", 0, data); err != nil {
			return err
		}
	}
	return nil
}
