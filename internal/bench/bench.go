// Package bench owns the benchmark Sample — the unit every audit stage works
// on — and the loaders that turn benchmark files into Samples.
//
// # Formats
//
//   - FormatSWEBench: SWE-bench / SWE-bench Verified / Lite JSONL as published
//     on Hugging Face (instance_id, repo, base_commit, patch, test_patch,
//     created_at, FAIL_TO_PASS, PASS_TO_PASS, difficulty, ...). FAIL_TO_PASS
//     and PASS_TO_PASS may be JSON arrays or JSON-encoded strings holding an
//     array. Language is "python". The benchmark name is "swe-bench",
//     "swe-bench-verified" or "swe-bench-lite" from the file name, unless
//     LoadOptions.Benchmark says otherwise. Every other string field
//     (problem_statement, hints_text, version, environment_setup_commit, ...)
//     is kept in Meta under its own name.
//
//   - FormatMultiSWEBench: Multi-SWE-bench JSONL (org, repo, number,
//     base{label,ref,sha}, fix_patch, test_patch, f2p_tests, s2p_tests,
//     n2p_tests, p2p_tests, instance_id, ...). Repo is "org/repo"; Patch is
//     fix_patch. FailToPass is the sorted union of the keys of f2p_tests,
//     s2p_tests and n2p_tests — the tests Multi-SWE-bench requires to pass
//     after the fix that did not pass before it — and PassToPass the keys of
//     p2p_tests. The records carry no language field, so Language is
//     LoadOptions.Language, else a language named in the file name
//     (multi_swe_bench_java.jsonl → "java"), else the language of the
//     majority of files the fix patch touches. Meta keeps org, number, title,
//     body, state, base_ref, base_label, resolved_issues and pr_url; the
//     per-run test status maps are dropped after conversion.
//
//   - FormatDefects4J: the Defects4J framework/projects layout (see
//     defects4j.go). Either the root holding one directory per project or a
//     single project directory.
//
//   - FormatJSONL: generic JSONL, one Sample per line, exactly the JSON of
//     the Sample type below:
//
//     id           string, required, unique within the file
//     benchmark    string, required (e.g. "swe-bench-verified", "defects4j")
//     repo         string, required, "owner/name" of the upstream repository
//     language     string, required, lower case ("python", "java", ...)
//     base_commit  string, required: the commit the gold patch applies to
//     fix_commit   string, optional: the commit that contains the fix
//     patch        string, required: the gold fix as a unified diff
//     test_patch   string, optional: the test changes as a unified diff
//     created_at   string, optional, RFC 3339 (when the fix was proposed)
//     tests        object, optional: {"fail_to_pass": [..], "pass_to_pass": [..]}
//     difficulty   string, optional, as the benchmark labels it
//     meta         object, optional: anything else, kept verbatim
//
//     Unknown top-level fields are reported as problems, so a misspelt
//     field is not silently ignored.
//
// # Problems
//
// A record that cannot become a Sample is reported as a Problem naming the
// file, line, id (when known) and field. Load skips such records and returns
// the problems, or — with LoadOptions.Strict — fails on the first one with
// an error wrapping errs.ErrInput. No record is dropped without a Problem.
package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
)

// Sample is one benchmark task: a repository at a base commit, the gold fix
// and the tests that decide it. Field names are the JSON contract of
// DESIGN.md's data model.
type Sample struct {
	ID         string         `json:"id"`
	Benchmark  string         `json:"benchmark"`
	Repo       string         `json:"repo"`
	Language   string         `json:"language"`
	BaseCommit string         `json:"base_commit"`
	FixCommit  string         `json:"fix_commit,omitempty"`
	Patch      string         `json:"patch"`
	TestPatch  string         `json:"test_patch,omitempty"`
	CreatedAt  time.Time      `json:"created_at,omitzero"`
	Tests      Tests          `json:"tests"`
	Difficulty string         `json:"difficulty,omitempty"`
	Meta       map[string]any `json:"meta,omitempty"`
}

// Tests are the tests that decide a sample: those that fail before the fix
// and pass after it, and those that pass on both sides.
type Tests struct {
	FailToPass []string `json:"fail_to_pass"`
	PassToPass []string `json:"pass_to_pass"`
}

// Format names a benchmark file layout.
type Format string

// The formats Load understands. FormatAuto detects the format with Detect.
const (
	FormatAuto          Format = ""
	FormatSWEBench      Format = "swebench"
	FormatMultiSWEBench Format = "multi-swebench"
	FormatDefects4J     Format = "defects4j"
	FormatJSONL         Format = "jsonl"
)

// Formats lists the concrete formats, for flag help and validation.
var Formats = []Format{FormatSWEBench, FormatMultiSWEBench, FormatDefects4J, FormatJSONL}

// ParseFormat maps a user-supplied name ("auto" or one of Formats) to a
// Format.
func ParseFormat(s string) (Format, error) {
	if s == "" || s == "auto" {
		return FormatAuto, nil
	}
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	names := make([]string, len(Formats))
	for i, f := range Formats {
		names[i] = string(f)
	}
	return "", fmt.Errorf("bench.ParseFormat(%q): %w: want auto or one of %s", s, errs.ErrUsage, strings.Join(names, ", "))
}

// LoadOptions tune Load.
type LoadOptions struct {
	// Strict makes the first invalid record fatal (an error wrapping
	// errs.ErrInput) instead of a returned Problem.
	Strict bool
	// Benchmark overrides the benchmark name stored in each Sample
	// (SWE-bench and Multi-SWE-bench only; generic JSONL records carry
	// their own and Defects4J is always "defects4j").
	Benchmark string
	// Language is the language of Multi-SWE-bench records, which do not
	// carry one. Empty means: infer it (see the package doc).
	Language string
}

// Problem is one record that could not be loaded.
type Problem struct {
	File  string `json:"file"`
	Line  int    `json:"line,omitempty"`
	ID    string `json:"id,omitempty"`
	Field string `json:"field,omitempty"`
	Msg   string `json:"msg"`
}

func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
	}
	if p.ID != "" {
		fmt.Fprintf(&b, ": %s", p.ID)
	}
	if p.Field != "" {
		fmt.Fprintf(&b, ": field %s", p.Field)
	}
	fmt.Fprintf(&b, ": %s", p.Msg)
	return b.String()
}

// problems collects Problems and turns the first into an error when strict.
type problems struct {
	strict bool
	list   []Problem
}

// add records p; in strict mode it returns the error that must stop the
// load.
func (ps *problems) add(p Problem) error {
	if ps.strict {
		return errs.Hint(nil, errs.ErrInput, fmt.Sprintf("bench.Load: %s: {err} (fix the record or load without {strict} to skip it)", p))
	}
	ps.list = append(ps.list, p)
	return nil
}

// addFields records a problem for each of fe, the field problems of the
// record at file:line with id; in strict mode it returns the error of the
// first.
func (ps *problems) addFields(file string, line int, id string, fe []fieldErr) error {
	for _, f := range fe {
		if err := ps.add(Problem{File: file, Line: line, ID: id, Field: f.field, Msg: f.msg}); err != nil {
			return err
		}
	}
	return nil
}

// Load reads the benchmark at path in the given format (FormatAuto detects
// it) and returns its samples in file order together with the problems of
// the records it skipped.
func Load(ctx context.Context, path string, format Format, opts LoadOptions) ([]Sample, []Problem, error) {
	if format == FormatAuto {
		f, err := Detect(path)
		if err != nil {
			return nil, nil, err
		}
		format = f
	}
	ps := &problems{strict: opts.Strict}
	var (
		samples []Sample
		err     error
	)
	switch format {
	case FormatDefects4J:
		samples, err = loadDefects4J(ctx, path, ps)
	case FormatSWEBench, FormatMultiSWEBench, FormatJSONL:
		samples, err = loadJSONLFile(ctx, path, format, opts, ps)
	default:
		return nil, nil, fmt.Errorf("bench.Load(%s): %w: unknown format %q", path, errs.ErrUsage, format)
	}
	if err != nil {
		return nil, nil, err
	}
	return samples, ps.list, nil
}

func loadJSONLFile(ctx context.Context, path string, format Format, opts LoadOptions, ps *problems) ([]Sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, openErr("read benchmark", path, err)
	}
	defer f.Close()
	return decodeJSONL(ctx, skipBOM(f), path, format, opts, ps)
}

// skipBOM drops a UTF-8 byte-order mark at the start of r (Windows
// editors write one).
func skipBOM(r io.Reader) *bufio.Reader {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && string(b) == "\xef\xbb\xbf" {
		br.Discard(3)
	}
	return br
}

func openErr(op, path string, err error) error {
	if os.IsNotExist(err) {
		return fmt.Errorf("%s %s: %w: %v", op, path, errs.ErrNotFound, err)
	}
	return fmt.Errorf("%s %s: %w: %v", op, path, errs.ErrInput, err)
}

// Detect decides the format of path: a directory holding active-bugs.csv
// (a Defects4J project) or subdirectories that do (the Defects4J root) is
// FormatDefects4J; a file is classified by the fields of its first
// non-blank line.
func Detect(path string) (Format, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", openErr("detect the format of", path, err)
	}
	if st.IsDir() {
		if _, err := defects4jProjects(path); err != nil {
			return "", fmt.Errorf("detect the format of %s: %w: directory is not a Defects4J project or projects root (no active-bugs.csv)", path, errs.ErrInput)
		}
		return FormatDefects4J, nil
	}
	return detectFile(path)
}

// detectFile classifies a JSONL file by its first non-blank line.
func detectFile(path string) (Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", openErr("detect the format of", path, err)
	}
	defer f.Close()
	r := skipBOM(f)
	for lineNo := 1; ; lineNo++ {
		line, err := readLine(r)
		if len(strings.TrimSpace(string(line))) > 0 {
			format, derr := detectRecord(line)
			if derr != nil {
				return "", errs.Hint(nil, errs.ErrInput, fmt.Sprintf("detect the format of %s:%d: {err}: %v; pass {format} explicitly", path, lineNo, derr))
			}
			return format, nil
		}
		if err == io.EOF {
			return "", fmt.Errorf("detect the format of %s: %w: file has no records", path, errs.ErrInput)
		}
		if err != nil {
			return "", fmt.Errorf("detect the format of %s:%d: %w: %v", path, lineNo, errs.ErrInput, err)
		}
	}
}

func detectRecord(line []byte) (Format, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return "", fmt.Errorf("first record is not a JSON object: %v", err)
	}
	has := func(keys ...string) bool {
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				return false
			}
		}
		return true
	}
	switch {
	case has("fix_patch", "org", "repo", "number"):
		return FormatMultiSWEBench, nil
	case has("instance_id", "repo", "base_commit", "patch"):
		return FormatSWEBench, nil
	case has("id", "benchmark", "base_commit", "patch"):
		return FormatJSONL, nil
	}
	return "", fmt.Errorf("fields match none of SWE-bench (instance_id, base_commit, patch), Multi-SWE-bench (org, number, fix_patch) or generic JSONL (id, benchmark, base_commit, patch)")
}

// benchmarkName picks the SWE-bench family name from the file name.
func benchmarkName(path string, format Format, opts LoadOptions) string {
	if opts.Benchmark != "" {
		return opts.Benchmark
	}
	if format == FormatMultiSWEBench {
		return "multi-swe-bench"
	}
	base := strings.ToLower(filepath.Base(path))
	switch {
	case strings.Contains(base, "verified"):
		return "swe-bench-verified"
	case strings.Contains(base, "lite"):
		return "swe-bench-lite"
	}
	return "swe-bench"
}
