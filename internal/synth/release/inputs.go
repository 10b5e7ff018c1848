package release

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/generate"
	"github.com/benchforge/benchforge/internal/synth/jvm"
)

// Inputs names the pipeline files a release is built from. Only the JSON
// field names listed here are read (unknown fields are ignored), so the
// release does not depend on how the producing stage is implemented.
type Inputs struct {
	// Core is the validated corpus: corpus.Pair lines (pair_id, sample_id,
	// error_type, buggy_method, fixed_method, example_bug_ids, generator,
	// prompt_hash, size_target, judge{model, confidence, site, site_line,
	// trigger, verdict, repaired}, flags). Validated by the judge, it is the
	// judge's core.jsonl and every pair carries an accepting judge; by the
	// JVM, it is synth verify's confirmed.jsonl and any judge is ignored.
	Core string
	// ValidatedBy is how Core was validated: ValidatedByJudge (the default
	// when empty) or ValidatedByJVM, which requires Executions with a
	// confirmed record for every core pair.
	ValidatedBy string
	// Excluded are rejection logs, any number: judge lines (pair_id,
	// sample_id, error_type, category, reason, model, rubric) and gate lines
	// (id, error_type, generator, operator, cause, detail) may be mixed.
	Excluded []string
	// ZeroShot is the zero-shot contrast collection: corpus.Pair lines with
	// no example_bug_ids. Optional.
	ZeroShot string
	// Seeds are the real seed pairs: corpus.Seed lines. Required.
	Seeds string
	// IDMap adds identifiers to the identifier → source-bug map built from
	// the seeds (every bug_id → its source_bug, every source_bug → itself):
	// a CSV file with columns id,source_bug or JSONL {id, source_bug}.
	// Optional.
	IDMap string
	// Candidates are generate.Candidate lines (id, operator, source{file,
	// method, start_line, site_line}), joined to pairs by id for the
	// generation metadata. Optional.
	Candidates string
	// Executions are synth verify's jvm.Execution lines, joined by pair id:
	// (pair_id, status, criteria{a, b, c}) for the generation metadata and,
	// for a JVM-validated core, (error_type, jdk, regime, site{buggy,
	// fixed}, inputs_tried, budget, c{input, buggy, fixed}) for the
	// evidence. Optional unless ValidatedBy is ValidatedByJVM.
	Executions string
}

// lined is a record with the line it was read from.
type lined[T any] struct {
	Line int
	Rec  T
}

// readLined decodes every non-blank line of the JSONL file at path.
func readLined[T any](path string) ([]lined[T], error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("read %s: %w: %v", path, errs.ErrNotFound, err)
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	var out []lined[T]
	var bad error
	err = jsonl.Scan(f, func(line int, raw []byte) error {
		var r T
		if err := json.Unmarshal(raw, &r); err != nil {
			bad = fmt.Errorf("%s:%d: %w: %v", path, line, errs.ErrInput, err)
			return bad
		}
		out = append(out, lined[T]{line, r})
		return nil
	})
	if bad != nil {
		return nil, bad
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}

// excludedIn is the union of the judge's and the gate's rejection lines.
type excludedIn struct {
	PairID    string `json:"pair_id"`
	ID        string `json:"id"`
	SampleID  string `json:"sample_id"`
	ErrorType string `json:"error_type"`
	Category  string `json:"category"`
	Reason    string `json:"reason"`
	Model     string `json:"model"`
	Rubric    string `json:"rubric"`
	Cause     string `json:"cause"`
	Detail    string `json:"detail"`
	Generator string `json:"generator"`
}

func (e excludedIn) record() (ExcludedRecord, error) {
	r := ExcludedRecord{PairID: e.PairID, SampleID: e.SampleID, Partition: PartExcluded, ErrorType: e.ErrorType,
		Generator: e.Generator, Model: e.Model, Rubric: e.Rubric}
	switch {
	case e.Category != "":
		r.Stage, r.Category, r.Reason = StageJudge, e.Category, e.Reason
	case e.Cause != "":
		r.Stage, r.Category, r.Reason = StageGate, "gate_"+e.Cause, e.Detail
		if r.PairID == "" {
			r.PairID = e.ID
		}
	default:
		return r, errors.New("neither a judge category nor a gate cause")
	}
	switch {
	case r.PairID == "":
		return r, errors.New("no pair_id (judge) or id (gate)")
	case !corpus.ValidType(r.ErrorType):
		return r, fmt.Errorf("error_type %q is not one of the seven in-scope types", r.ErrorType)
	}
	return r, nil
}

type aliasIn struct {
	ID        string `json:"id"`
	SourceBug string `json:"source_bug"`
}

// readAliases reads the extra id map: CSV (header id,source_bug) when the
// name ends in .csv, JSONL otherwise ("" gives none).
func readAliases(path string) ([]lined[aliasIn], error) {
	if path == "" {
		return nil, nil
	}
	if !strings.EqualFold(filepath.Ext(path), ".csv") {
		return readLined[aliasIn](path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("read %s: %w: %v", path, errs.ErrNotFound, err)
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return readAliasCSV(path, data)
}

// readAliasCSV reads the rows of an id,source_bug CSV file.
func readAliasCSV(path string, data []byte) ([]lined[aliasIn], error) {
	r := csv.NewReader(bytes.NewReader(data))
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s:1: %w: no CSV header: %v", path, errs.ErrInput, err)
	}
	ic, sc, ok := aliasColumns(header)
	if !ok {
		return nil, fmt.Errorf("%s:1: %w: header must name columns id and source_bug, got %q", path, errs.ErrInput, header)
	}
	var out []lined[aliasIn]
	for {
		row, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %v", path, errs.ErrInput, err)
		}
		line, _ := r.FieldPos(0)
		out = append(out, lined[aliasIn]{line, aliasIn{ID: strings.TrimSpace(row[ic]), SourceBug: strings.TrimSpace(row[sc])}})
	}
}

// aliasColumns finds the id and source_bug columns of a header.
func aliasColumns(header []string) (id, sourceBug int, ok bool) {
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimSpace(h)] = i
	}
	id, ok1 := col["id"]
	sourceBug, ok2 := col["source_bug"]
	return id, sourceBug, ok1 && ok2
}

// loaded holds everything Build read, keyed for joins.
type loaded struct {
	seeds      []lined[corpus.Seed]
	core       []lined[corpus.Pair]
	contrast   []lined[corpus.Pair]
	excluded   []ExcludedRecord
	aliases    []lined[aliasIn]
	candidates map[string]generate.Candidate
	executions map[string]lined[jvm.Execution]
}

func load(in Inputs) (*loaded, error) {
	if err := checkInputs(in); err != nil {
		return nil, err
	}
	var l loaded
	var err error
	if l.seeds, err = readSeeds(in.Seeds); err != nil {
		return nil, err
	}
	if l.core, err = readCore(in); err != nil {
		return nil, err
	}
	if l.contrast, err = readContrast(in.ZeroShot); err != nil {
		return nil, err
	}
	if l.excluded, err = readExcluded(in.Excluded); err != nil {
		return nil, err
	}
	if l.aliases, err = readAliases(in.IDMap); err != nil {
		return nil, err
	}
	if l.candidates, err = readCandidates(in.Candidates); err != nil {
		return nil, err
	}
	if l.executions, err = readExecutions(in.Executions); err != nil {
		return nil, err
	}
	if in.ValidatedBy == ValidatedByJVM {
		if err := confirmedCore(l.core, l.executions, in); err != nil {
			return nil, err
		}
	}
	return &l, nil
}

// confirmedCore checks that every core pair of a jvm-validated release is
// confirmed by its execution record (confirmedBy).
func confirmedCore(core []lined[corpus.Pair], execs map[string]lined[jvm.Execution], in Inputs) error {
	for _, p := range core {
		if err := confirmedBy(p, execs, in); err != nil {
			return err
		}
	}
	return nil
}

// checkInputs checks that the required files and a validation method with
// its evidence are given.
func checkInputs(in Inputs) error {
	if in.Core == "" || in.Seeds == "" {
		return fmt.Errorf("release inputs: %w: the core and seeds files are required", errs.ErrUsage)
	}
	switch {
	case !ValidMethod(in.ValidatedBy):
		return fmt.Errorf("release inputs: %w: validation method %q is neither %s nor %s", errs.ErrUsage, in.ValidatedBy, ValidatedByJudge, ValidatedByJVM)
	case in.ValidatedBy == ValidatedByJVM && in.Executions == "":
		return fmt.Errorf("release inputs: %w: a jvm-validated core needs the executions file (synth verify's executions.jsonl) holding its evidence", errs.ErrUsage)
	}
	return nil
}

// readSeeds reads the seeds file, each seed valid.
func readSeeds(path string) ([]lined[corpus.Seed], error) {
	seeds, err := readLined[corpus.Seed](path)
	if err != nil {
		return nil, err
	}
	for _, s := range seeds {
		if err := s.Rec.Validate(); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, s.Line, err)
		}
	}
	return seeds, nil
}

// readCore reads the core pairs, each valid, with its generator and, for
// a judge-validated release, an accepting judge.
func readCore(in Inputs) ([]lined[corpus.Pair], error) {
	core, err := readLined[corpus.Pair](in.Core)
	if err != nil {
		return nil, err
	}
	for _, p := range core {
		if err := p.Rec.Validate(); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", in.Core, p.Line, err)
		}
		if in.ValidatedBy == ValidatedByJudge && (p.Rec.Judge == nil || p.Rec.Judge.Verdict != "accept") {
			return nil, fmt.Errorf("%s:%d: pair %s: %w: no accepting judge; --core must be the judge's core.jsonl (for synth verify's confirmed.jsonl, validate by jvm)", in.Core, p.Line, p.Rec.PairID, errs.ErrInput)
		}
		if p.Rec.Generator == "" {
			return nil, fmt.Errorf("%s:%d: pair %s: %w: generator is empty", in.Core, p.Line, p.Rec.PairID, errs.ErrInput)
		}
	}
	return core, nil
}

// readContrast reads the zero-shot contrast pairs, each valid and
// without exemplars ("" gives none).
func readContrast(path string) ([]lined[corpus.Pair], error) {
	if path == "" {
		return nil, nil
	}
	contrast, err := readLined[corpus.Pair](path)
	if err != nil {
		return nil, err
	}
	for _, p := range contrast {
		if err := p.Rec.Validate(); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, p.Line, err)
		}
		if len(p.Rec.ExampleBugIDs) > 0 {
			return nil, fmt.Errorf("%s:%d: pair %s: %w: a zero-shot contrast pair has example_bug_ids %v; pass seed-grounded pairs as --core", path, p.Line, p.Rec.PairID, errs.ErrInput, p.Rec.ExampleBugIDs)
		}
	}
	return contrast, nil
}

// readExcluded reads the excluded records of every file, in order.
func readExcluded(paths []string) ([]ExcludedRecord, error) {
	var out []ExcludedRecord
	for _, path := range paths {
		recs, err := readLined[excludedIn](path)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			e, err := r.Rec.record()
			if err != nil {
				return nil, fmt.Errorf("%s:%d: excluded record: %w: %v", path, r.Line, errs.ErrInput, err)
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// readCandidates reads the generation candidates by id ("" gives none).
func readCandidates(path string) (map[string]generate.Candidate, error) {
	out := map[string]generate.Candidate{}
	if path == "" {
		return out, nil
	}
	recs, err := readLined[generate.Candidate](path)
	if err != nil {
		return nil, err
	}
	for _, c := range recs {
		out[c.Rec.ID] = c.Rec
	}
	return out, nil
}

// readExecutions reads synth verify's execution records by pair ("" gives
// none); each is confirmed or unconfirmed.
func readExecutions(path string) (map[string]lined[jvm.Execution], error) {
	out := map[string]lined[jvm.Execution]{}
	if path == "" {
		return out, nil
	}
	recs, err := readLined[jvm.Execution](path)
	if err != nil {
		return nil, err
	}
	for _, e := range recs {
		if e.Rec.Status != jvm.StatusConfirmed && e.Rec.Status != jvm.StatusUnconfirmed {
			return nil, fmt.Errorf("%s:%d: pair %s: %w: status %q is neither confirmed nor unconfirmed", path, e.Line, e.Rec.PairID, errs.ErrInput, e.Rec.Status)
		}
		out[e.Rec.PairID] = e
	}
	return out, nil
}

// confirmedBy checks that a core pair of a jvm-validated release has a
// confirmed execution record with a criterion (c) trigger; what to do is in
// the message, since the usual cause is files from different verify runs.
func confirmedBy(p lined[corpus.Pair], execs map[string]lined[jvm.Execution], in Inputs) error {
	where := fmt.Sprintf("%s:%d: pair %s", in.Core, p.Line, p.Rec.PairID)
	e, ok := execs[p.Rec.PairID]
	switch {
	case !ok:
		return fmt.Errorf("%s: %w: no execution record in %s; a jvm-validated core holds only pairs synth verify confirmed: pass the executions.jsonl of the run that wrote this confirmed.jsonl, or drop the pair", where, errs.ErrInput, in.Executions)
	case e.Rec.Status != jvm.StatusConfirmed:
		return fmt.Errorf("%s: %w: %s:%d says %s (%s); a jvm-validated core holds only pairs confirmed under criterion (c): use that run's confirmed.jsonl as --core", where, errs.ErrInput, in.Executions, e.Line, e.Rec.Status, e.Rec.Reason)
	case e.Rec.C == nil || e.Rec.C.Fixed == nil:
		return fmt.Errorf("%s: %w: %s:%d is confirmed but has no criterion (c) trigger with both outcomes; rerun synth verify", where, errs.ErrInput, in.Executions, e.Line)
	case e.Rec.ErrorType != "" && e.Rec.ErrorType != p.Rec.ErrorType:
		return fmt.Errorf("%s: %w: %s:%d verified the pair as %s, the core labels it %s; the files are from different runs", where, errs.ErrInput, in.Executions, e.Line, e.Rec.ErrorType, p.Rec.ErrorType)
	}
	return nil
}
