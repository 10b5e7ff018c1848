package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/benchforge/benchforge/internal/errs"
)

// fieldErr is one reason a record is invalid.
type fieldErr struct{ field, msg string }

// decodeJSONL reads one record per line from r (named name in problems) and
// converts each with the decoder of format.
func decodeJSONL(ctx context.Context, r io.Reader, name string, format Format, opts LoadOptions, ps *problems) ([]Sample, error) {
	bench := benchmarkName(name, format, opts)
	lang := opts.Language
	if lang == "" && format == FormatMultiSWEBench {
		lang = languageFromName(name)
	}
	br := bufio.NewReaderSize(r, 1<<16)
	seen := map[string]int{}
	var out []Sample
	for lineNo := 1; ; lineNo++ {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("bench.Load(%s:%d): %w", name, lineNo, err)
		}
		line, rerr := readLine(br)
		if rerr != nil && rerr != io.EOF {
			return nil, fmt.Errorf("bench.Load(%s:%d): %w: %v", name, lineNo, errs.ErrInput, rerr)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			s, id, ferrs := decodeRecord(line, format, bench, lang)
			ferrs = checkUniqueID(seen, id, lineNo, ferrs)
			if len(ferrs) == 0 {
				out = append(out, s)
			}
			if err := ps.addFields(name, lineNo, id, ferrs); err != nil {
				return nil, err
			}
		}
		if rerr == io.EOF {
			return out, nil
		}
	}
}

// checkUniqueID adds a problem to ferrs when a record that is otherwise
// sound repeats an id seen before; seen maps ids to their first line.
func checkUniqueID(seen map[string]int, id string, lineNo int, ferrs []fieldErr) []fieldErr {
	if id == "" || len(ferrs) > 0 {
		return ferrs
	}
	if first, dup := seen[id]; dup {
		return append(ferrs, fieldErr{"id", fmt.Sprintf("duplicate id, first seen at line %d", first)})
	}
	seen[id] = lineNo
	return ferrs
}

// readLine returns the next line without its "\n" or "\r\n"; at the end of
// input it returns the last (possibly empty) line with io.EOF.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadBytes('\n')
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	return line, err
}

// decodeRecord converts one JSON line. It returns the record id (when one
// could be read) and every field problem found.
func decodeRecord(line []byte, format Format, bench, lang string) (Sample, string, []fieldErr) {
	if !json.Valid(line) {
		var x any
		err := json.Unmarshal(line, &x)
		return Sample{}, "", []fieldErr{{"", fmt.Sprintf("not valid JSON: %v", err)}}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil || m == nil {
		return Sample{}, "", []fieldErr{{"", "want a JSON object, got " + jsonKind(line)}}
	}
	r := record{m: m}
	var s Sample
	switch format {
	case FormatSWEBench:
		s = r.sweBench(bench)
	case FormatMultiSWEBench:
		s = r.multiSWEBench(bench, lang)
	default:
		s = r.generic()
	}
	return s, s.ID, r.errs
}

// record reads typed fields out of a decoded JSON object, collecting
// problems as it goes.
type record struct {
	m    map[string]json.RawMessage
	used map[string]bool
	errs []fieldErr
}

func (r *record) fail(field, format string, args ...any) {
	r.errs = append(r.errs, fieldErr{field, fmt.Sprintf(format, args...)})
}

// raw returns the field's JSON, or nil when it is absent or null.
func (r *record) raw(key string) json.RawMessage {
	if r.used == nil {
		r.used = map[string]bool{}
	}
	r.used[key] = true
	v, ok := r.m[key]
	if !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		return nil
	}
	return v
}

func (r *record) str(key string, required bool) string {
	v := r.raw(key)
	if v == nil {
		if required {
			r.fail(key, "missing")
		}
		return ""
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		r.fail(key, "want a string, got %s", jsonKind(v))
		return ""
	}
	if required && strings.TrimSpace(s) == "" {
		r.fail(key, "empty")
	}
	return s
}

// testList accepts a JSON array of strings or a string holding one (the
// SWE-bench Hugging Face export stores lists that way).
func (r *record) testList(key string) []string {
	v := r.raw(key)
	if v == nil {
		return nil
	}
	var list []string
	if err := json.Unmarshal(v, &list); err == nil {
		return list
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		r.fail(key, "want an array of strings or a string holding one, got %s", jsonKind(v))
		return nil
	}
	if strings.TrimSpace(s) == "" {
		return nil
	}
	if err := json.Unmarshal([]byte(s), &list); err != nil {
		r.fail(key, "string does not hold a JSON array of strings: %v", err)
		return nil
	}
	return list
}

// testKeys returns the sorted keys of an object of test name → status.
func (r *record) testKeys(key string) []string {
	v := r.raw(key)
	if v == nil {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(v, &m); err != nil {
		r.fail(key, "want an object keyed by test name, got %s", jsonKind(v))
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// createdAtLayouts are the timestamp spellings seen in benchmark exports.
var createdAtLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02 15:04:05Z07:00", "2006-01-02"}

func (r *record) time(key string) time.Time {
	s := r.str(key, false)
	if s == "" {
		return time.Time{}
	}
	for _, layout := range createdAtLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	r.fail(key, "cannot parse time %q (want RFC 3339, e.g. 2022-03-03T15:14:54Z)", truncate(s, 40))
	return time.Time{}
}

// rest decodes every field not read so far into a meta map.
func (r *record) rest(meta map[string]any, skip ...string) {
	for _, k := range skip {
		r.used[k] = true
	}
	for k, v := range r.m {
		if r.used[k] {
			continue
		}
		var x any
		if err := json.Unmarshal(v, &x); err == nil {
			meta[k] = x
		}
	}
}

func (r *record) sweBench(bench string) Sample {
	s := Sample{
		ID:         r.str("instance_id", true),
		Benchmark:  bench,
		Repo:       r.str("repo", true),
		Language:   "python",
		BaseCommit: r.str("base_commit", true),
		Patch:      r.str("patch", true),
		TestPatch:  r.str("test_patch", false),
		CreatedAt:  r.time("created_at"),
		Tests:      Tests{FailToPass: r.testList("FAIL_TO_PASS"), PassToPass: r.testList("PASS_TO_PASS")},
		Difficulty: r.str("difficulty", false),
		Meta:       map[string]any{},
	}
	r.rest(s.Meta)
	return s
}

func (r *record) multiSWEBench(bench, lang string) Sample {
	org, repo := r.str("org", true), r.str("repo", true)
	s := Sample{
		ID:         r.str("instance_id", false),
		Benchmark:  bench,
		Repo:       org + "/" + repo,
		Patch:      r.str("fix_patch", true),
		TestPatch:  r.str("test_patch", false),
		CreatedAt:  r.time("created_at"),
		Difficulty: r.str("difficulty", false),
		Meta:       map[string]any{"org": org},
	}
	number, numberOK := r.prNumber()
	s.Meta["number"] = number
	if s.ID == "" && org != "" && repo != "" && numberOK {
		s.ID = fmt.Sprintf("%s__%s-%d", org, repo, number)
	}
	if org != "" && repo != "" && numberOK {
		s.Meta["pr_url"] = fmt.Sprintf("https://github.com/%s/%s/pull/%d", org, repo, number)
	}
	base := r.baseRef()
	s.BaseCommit = base.Sha
	s.Meta["base_ref"], s.Meta["base_label"] = base.Ref, base.Label
	s.Tests = r.multiSWEBenchTests()
	s.Language = r.patchLanguage(lang, s.Patch)
	r.rest(s.Meta, "fixed_tests", "run_result", "test_patch_result", "fix_patch_result")
	return s
}

// multiSWEBenchTests reads the tests a fix must make pass (those that
// failed, were skipped or did not exist before it, sorted, without
// repeats) and those that must keep passing.
func (r *record) multiSWEBenchTests() Tests {
	f2p := r.testKeys("f2p_tests")
	f2p = append(f2p, r.testKeys("s2p_tests")...)
	f2p = append(f2p, r.testKeys("n2p_tests")...)
	sort.Strings(f2p)
	return Tests{FailToPass: compact(f2p), PassToPass: r.testKeys("p2p_tests")}
}

// patchLanguage is lang, or when it is "" the language of most files the
// fix patch touches; a patch of no known language fails the record.
func (r *record) patchLanguage(lang, patch string) string {
	if lang == "" {
		lang = languageFromPatch(patch)
	}
	if lang == "" && patch != "" {
		r.fail("language", "records carry no language and the fix patch touches no file of a known language; set the language explicitly")
	}
	return lang
}

// prNumber reads Multi-SWE-bench's pull-request "number"; ok is false
// (and the field failed) when it is missing or not positive.
func (r *record) prNumber() (number int64, ok bool) {
	v := r.raw("number")
	if v == nil {
		r.fail("number", "missing")
		return 0, false
	}
	if err := json.Unmarshal(v, &number); err != nil || number <= 0 {
		r.fail("number", "want a positive integer pull-request number, got %s", truncate(string(v), 20))
		return number, false
	}
	return number, true
}

// gitRef is Multi-SWE-bench's "base" object.
type gitRef struct{ Label, Ref, Sha string }

// baseRef reads Multi-SWE-bench's "base", failing the field when it is
// missing, malformed or has no sha.
func (r *record) baseRef() gitRef {
	var base gitRef
	if v := r.raw("base"); v == nil {
		r.fail("base", "missing")
	} else if err := json.Unmarshal(v, &base); err != nil {
		r.fail("base", "want an object {label, ref, sha}, got %s", jsonKind(v))
	} else if strings.TrimSpace(base.Sha) == "" {
		r.fail("base.sha", "missing or empty")
	}
	return base
}

// genericFields are the top-level fields of the generic JSONL format.
var genericFields = map[string]bool{"id": true, "benchmark": true, "repo": true, "language": true, "base_commit": true, "fix_commit": true, "patch": true, "test_patch": true, "created_at": true, "tests": true, "difficulty": true, "meta": true}

// genericTests reads the generic format's "tests" object v, failing its
// malformed and unknown fields.
func (r *record) genericTests(v json.RawMessage) Tests {
	var t map[string]json.RawMessage
	if err := json.Unmarshal(v, &t); err != nil {
		r.fail("tests", "want an object {fail_to_pass, pass_to_pass}, got %s", jsonKind(v))
		return Tests{}
	}
	sub := record{m: t}
	tests := Tests{FailToPass: sub.testList("fail_to_pass"), PassToPass: sub.testList("pass_to_pass")}
	for _, fe := range sub.errs {
		r.fail("tests."+fe.field, "%s", fe.msg)
	}
	for k := range t {
		if !sub.used[k] {
			r.fail("tests."+k, "unknown field (want fail_to_pass or pass_to_pass)")
		}
	}
	return tests
}

func (r *record) generic() Sample {
	s := Sample{
		ID:         r.str("id", true),
		Benchmark:  r.str("benchmark", true),
		Repo:       r.str("repo", true),
		Language:   r.str("language", true),
		BaseCommit: r.str("base_commit", true),
		FixCommit:  r.str("fix_commit", false),
		Patch:      r.str("patch", true),
		TestPatch:  r.str("test_patch", false),
		CreatedAt:  r.time("created_at"),
		Difficulty: r.str("difficulty", false),
	}
	if v := r.raw("tests"); v != nil {
		s.Tests = r.genericTests(v)
	}
	if v := r.raw("meta"); v != nil {
		if err := json.Unmarshal(v, &s.Meta); err != nil {
			r.fail("meta", "want an object, got %s", jsonKind(v))
		}
	}
	keys := make([]string, 0, len(r.m))
	for k := range r.m {
		if !genericFields[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		r.fail(k, "unknown field; put extra data under meta")
	}
	return s
}

func compact(sorted []string) []string {
	out := sorted[:0]
	for i, s := range sorted {
		if i == 0 || s != sorted[i-1] {
			out = append(out, s)
		}
	}
	return out
}

// jsonKind names the JSON type of v for messages.
func jsonKind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// languageByToken maps a word of a file name to a language.
var languageByToken = map[string]string{
	"java": "java", "python": "python", "py": "python", "go": "go", "golang": "go",
	"rust": "rust", "typescript": "typescript", "ts": "typescript",
	"javascript": "javascript", "js": "javascript", "c": "c", "cpp": "cpp", "kotlin": "kotlin",
}

// languageFromName finds a language word in a file's base name
// (multi_swe_bench_java.jsonl → java).
func languageFromName(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	words := strings.FieldsFunc(strings.ToLower(base), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, w := range words {
		if l, ok := languageByToken[w]; ok {
			return l
		}
	}
	return ""
}

var languageByExt = map[string]string{
	".java": "java", ".py": "python", ".go": "go", ".rs": "rust", ".ts": "typescript", ".tsx": "typescript",
	".js": "javascript", ".jsx": "javascript", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".kt": "kotlin",
}

// languageFromPatch returns the language of most files a unified diff
// touches (ties broken alphabetically), or "" when none is known.
func languageFromPatch(patch string) string {
	count := map[string]int{}
	for _, line := range strings.Split(patch, "\n") {
		if !strings.HasPrefix(line, "+++ ") {
			continue
		}
		name := strings.TrimSpace(strings.TrimPrefix(line, "+++ "))
		if i := strings.IndexByte(name, '\t'); i >= 0 {
			name = name[:i]
		}
		if l, ok := languageByExt[strings.ToLower(filepath.Ext(name))]; ok {
			count[l]++
		}
	}
	return mostCommon(count)
}

// mostCommon returns the key with the highest count (ties: the least key),
// or "" when count is empty.
func mostCommon(count map[string]int) string {
	best := ""
	for l, n := range count {
		if best == "" || n > count[best] || (n == count[best] && l < best) {
			best = l
		}
	}
	return best
}
