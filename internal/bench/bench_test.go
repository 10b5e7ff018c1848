package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/shareddata"
)

// The real data's paths, relative to a data root (the vendored testdata/
// or the full copy; see internal/shareddata).
var (
	defects4jDir = []string{"defects4j"}
	verifiedRel  = []string{"swebench", "swebench_verified.jsonl"}
	multiRel     = []string{"swebench", "multi_swe_bench_java.jsonl"}
)

// TestLoadRealData loads every record of the real benchmark files and
// expects no problems: the vendored subset always, the full copies (with
// the benchmarks' published sizes) when $BENCHFORGE_SHARED_DATA has them.
func TestLoadRealData(t *testing.T) {
	tests := []struct {
		rel       []string
		format    Format
		vendored  int // records in the vendored subset
		full      int // records in the full copy
		benchmark string
		language  string
	}{
		{verifiedRel, FormatSWEBench, 10, 500, "swe-bench-verified", "python"},
		{multiRel, FormatMultiSWEBench, 3, 48, "multi-swe-bench", "java"},
		{defects4jDir, FormatDefects4J, 13, 854, "defects4j", "java"},
	}
	for _, tt := range tests {
		name := filepath.Base(filepath.Join(tt.rel...))
		t.Run(name+"/vendored", func(t *testing.T) {
			loadRealData(t, shareddata.Vendored(t, tt.rel...), tt.format, tt.vendored, tt.benchmark, tt.language)
		})
		t.Run(name, func(t *testing.T) {
			loadRealData(t, shareddata.Full(t, tt.rel...), tt.format, tt.full, tt.benchmark, tt.language)
		})
	}
}

func loadRealData(t *testing.T, path string, format Format, n int, benchmark, language string) {
	if got, err := Detect(path); err != nil || got != format {
		t.Fatalf("Detect = %q, %v; want %q", got, err, format)
	}
	samples, problems, err := Load(context.Background(), path, FormatAuto, LoadOptions{Strict: true})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if len(problems) != 0 || len(samples) != n {
		t.Fatalf("got %d samples, %d problems (%v); want %d, 0", len(samples), len(problems), problems, n)
	}
	ids := map[string]bool{}
	for _, s := range samples {
		if ids[s.ID] {
			t.Errorf("duplicate id %s", s.ID)
		}
		ids[s.ID] = true
		checkRealSample(t, s, format, benchmark, language)
	}
}

// checkRealSample: s is of benchmark and language, has a repository, a
// base commit and a patch, and (except Multi-SWE-bench) fail_to_pass tests.
func checkRealSample(t *testing.T, s Sample, format Format, benchmark, language string) {
	t.Helper()
	if s.Benchmark != benchmark || s.Language != language || s.Repo == "" || s.BaseCommit == "" || s.Patch == "" {
		t.Errorf("%s: incomplete sample: benchmark %q language %q repo %q base %q patch %d bytes", s.ID, s.Benchmark, s.Language, s.Repo, s.BaseCommit, len(s.Patch))
	}
	if format != FormatMultiSWEBench && len(s.Tests.FailToPass) == 0 {
		t.Errorf("%s: no fail_to_pass tests", s.ID)
	}
}

// TestLoadSpotChecks checks fields of three known records, all in the
// vendored subset.
func TestLoadSpotChecks(t *testing.T) {
	byID := loadVendoredByID(t)
	checkAstropy12907(t, byID["astropy__astropy-12907"])
	checkDubbo7041(t, byID["apache__dubbo-7041"])
	checkLang1(t, byID["Lang-1"])
}

// loadVendoredByID loads the vendored SWE-bench Verified, Multi-SWE-bench
// and Defects4J Lang subsets, by sample id.
func loadVendoredByID(t *testing.T) map[string]Sample {
	t.Helper()
	byID := map[string]Sample{}
	for _, p := range []string{shareddata.Vendored(t, verifiedRel...), shareddata.Vendored(t, multiRel...), shareddata.Vendored(t, "defects4j", "Lang")} {
		samples, _, err := Load(context.Background(), p, FormatAuto, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range samples {
			byID[s.ID] = s
		}
	}
	return byID
}

func checkAstropy12907(t *testing.T, a Sample) {
	t.Helper()
	if a.Repo != "astropy/astropy" || a.BaseCommit != "d16bfe05a744909de4b27f5875fe0d4ed41ce607" ||
		!a.CreatedAt.Equal(time.Date(2022, 3, 3, 15, 14, 54, 0, time.UTC)) || a.Difficulty != "15 min - 1 hour" ||
		len(a.Tests.FailToPass) != 2 || len(a.Tests.PassToPass) != 13 || a.Meta["version"] != "4.3" {
		t.Errorf("astropy__astropy-12907 = %+v", a)
	}
}

func checkDubbo7041(t *testing.T, m Sample) {
	t.Helper()
	if m.Repo != "apache/dubbo" || m.BaseCommit[:8] != "e84cdc21" || len(m.Tests.FailToPass) != 1 || len(m.Tests.PassToPass) != 127 ||
		m.Meta["pr_url"] != "https://github.com/apache/dubbo/pull/7041" || m.Meta["run_result"] != nil {
		t.Errorf("apache__dubbo-7041 = %+v", m)
	}
}

func checkLang1(t *testing.T, l Sample) {
	t.Helper()
	if l.Repo != "apache/commons-lang" || l.BaseCommit != "396afc3e4693cfee182efe582455f2d97058c068" ||
		l.FixCommit != "d1a45e9738de5b3e299bb51e987565dcce55fee6" ||
		!cmp.Equal(l.Tests.FailToPass, []string{"org.apache.commons.lang3.math.NumberUtilsTest::TestLang747"}) ||
		l.Meta["src_dir"] != "src/main/java" || l.Meta["report_id"] != "LANG-747" {
		t.Errorf("Lang-1 = %+v", l)
	}
	// The stored src.patch deletes the leading-zero loop (fixed → buggy);
	// the fix direction adds it.
	if !strings.Contains(l.Patch, "\n+            char firstSigDigit = 0; // strip leading zeroes\n") ||
		!strings.Contains(l.TestPatch, "\n+    public void TestLang747() {\n") {
		t.Errorf("Lang-1 patch is not in the fix direction:\n%s", l.Patch)
	}
}

// TestGenericRoundTrip writes real samples as generic JSONL and reads them
// back unchanged: the full copies (Defects4J's Chart, whose patches came
// from Subversion) when there, else the vendored subset.
func TestGenericRoundTrip(t *testing.T) {
	d4j := []string{"defects4j", "Chart"}
	if shareddata.Path(d4j...) == "" {
		d4j = defects4jDir
	}
	all := loadStrict(t, verifiedRel, multiRel, d4j)
	buf := encodeJSONL(t, all)
	path := filepath.Join(t.TempDir(), "samples.jsonl")
	write(t, filepath.Dir(path), filepath.Base(path), buf.String())
	if f, err := Detect(path); err != nil || f != FormatJSONL {
		t.Fatalf("Detect = %q, %v; want jsonl", f, err)
	}
	back, problems, err := Load(context.Background(), path, FormatAuto, LoadOptions{Strict: true})
	if err != nil || len(problems) > 0 {
		t.Fatalf("Load: %v %v", err, problems)
	}
	// JSON numbers come back as float64 in meta; compare through JSON.
	again := encodeJSONL(t, back)
	if d := cmp.Diff(buf.String(), again.String()); d != "" {
		t.Errorf("round trip changed samples (-want +got):\n%.2000s", d)
	}
}

// loadStrict loads, strictly, the full copy or the vendored subset of
// each of rels, and returns all their samples.
func loadStrict(t *testing.T, rels ...[]string) []Sample {
	t.Helper()
	var all []Sample
	for _, rel := range rels {
		p, _ := shareddata.Either(t, rel...)
		s, _, err := Load(context.Background(), p, FormatAuto, LoadOptions{Strict: true})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, s...)
	}
	return all
}

// encodeJSONL encodes samples one JSON object a line.
func encodeJSONL(t *testing.T, samples []Sample) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, s := range samples {
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
	}
	return &buf
}

// TestLoadProblems checks the problems reported for hand-made bad records
// against testdata/problems.golden.json, and that strict mode fails on the
// first with errs.ErrInput.
func TestLoadProblems(t *testing.T) {
	tests := []struct {
		path    string
		format  Format
		samples []string
	}{
		{"testdata/bad_swebench.jsonl", FormatSWEBench, []string{"o__r-1", "o__r-5"}},
		{"testdata/bad_multi_java.jsonl", FormatMultiSWEBench, []string{"o__r-1", "o__r-4"}},
		{"testdata/bad_generic.jsonl", FormatJSONL, []string{"g-1"}},
		{"testdata/d4j_bad", FormatDefects4J, []string{"Lang-1"}},
	}
	var all []Problem
	for _, tt := range tests {
		all = append(all, checkBadFile(t, tt.path, tt.format, tt.samples)...)
	}
	var lines []string
	for _, p := range all {
		lines = append(lines, p.String())
	}
	golden.Check(t, filepath.Join("testdata", "problems.golden"), []byte(strings.Join(lines, "\n")+"\n"))

	got, _, err := Load(context.Background(), "testdata/bad_multi_java.jsonl", FormatMultiSWEBench, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := Tests{FailToPass: []string{"T0", "T1"}, PassToPass: []string{"T2"}}
	if d := cmp.Diff(want, got[0].Tests); d != "" || got[0].Language != "java" || got[1].Language != "java" {
		t.Errorf("multi tests/language: %s %q %q", d, got[0].Language, got[1].Language)
	}
}

// checkBadFile loads path leniently, expecting the samples with ids want
// and at least one problem, then strictly, expecting ErrInput naming the
// first problem; it returns the problems.
func checkBadFile(t *testing.T, path string, format Format, want []string) []Problem {
	t.Helper()
	samples, problems, err := Load(context.Background(), path, format, LoadOptions{})
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	var ids []string
	for _, s := range samples {
		ids = append(ids, s.ID)
	}
	if !cmp.Equal(ids, want) {
		t.Errorf("Load(%s) samples = %v, want %v", path, ids, want)
	}
	if len(problems) == 0 {
		t.Errorf("Load(%s): no problems", path)
	}
	_, _, err = Load(context.Background(), path, format, LoadOptions{Strict: true})
	if !errors.Is(err, errs.ErrInput) || !strings.Contains(err.Error(), problems[0].String()) {
		t.Errorf("strict Load(%s) = %v, want ErrInput naming %q", path, err, problems[0])
	}
	return problems
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	badHeader := filepath.Join(dir, "P")
	write(t, dir, "P/active-bugs.csv", "a,b\n")
	unknown := filepath.Join(dir, "unknown.jsonl")
	write(t, dir, "unknown.jsonl", "\n{\"x\":1}\n")
	empty := filepath.Join(dir, "empty.jsonl")
	write(t, dir, "empty.jsonl", "\n\n")
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name   string
		ctx    context.Context
		path   string
		format Format
		want   error
		msg    string
	}{
		{"missing file", context.Background(), filepath.Join(dir, "nope.jsonl"), FormatSWEBench, errs.ErrNotFound, "nope.jsonl"},
		{"missing auto", context.Background(), filepath.Join(dir, "nope.jsonl"), FormatAuto, errs.ErrNotFound, "nope.jsonl"},
		{"bad header", context.Background(), badHeader, FormatDefects4J, errs.ErrInput, "active-bugs.csv:1"},
		{"not defects4j", context.Background(), dir + "/..", FormatAuto, errs.ErrInput, "not a Defects4J"},
		{"undetectable", context.Background(), unknown, FormatAuto, errs.ErrInput, "unknown.jsonl:2"},
		{"no records", context.Background(), empty, FormatAuto, errs.ErrInput, "no records"},
		{"bad format", context.Background(), unknown, Format("csv"), errs.ErrUsage, "unknown format"},
		{"canceled", canceled, "testdata/bad_generic.jsonl", FormatJSONL, context.Canceled, "bad_generic.jsonl:1"},
		{"canceled d4j", canceled, "testdata/d4j_bad/Lang", FormatDefects4J, context.Canceled, "d4j_bad/Lang"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Load(tt.ctx, tt.path, tt.format, LoadOptions{})
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("Load = %v, want %v naming %q", err, tt.want, tt.msg)
			}
		})
	}
}

func TestParseFormat(t *testing.T) {
	for _, s := range []string{"", "auto", "swebench", "multi-swebench", "defects4j", "jsonl"} {
		if _, err := ParseFormat(s); err != nil {
			t.Errorf("ParseFormat(%q): %v", s, err)
		}
	}
	if _, err := ParseFormat("parquet"); !errors.Is(err, errs.ErrUsage) {
		t.Errorf("ParseFormat(parquet) = %v, want ErrUsage", err)
	}
}

func TestLanguageInference(t *testing.T) {
	tests := []struct{ name, patch, want string }{
		{"multi_swe_bench_java.jsonl", "", "java"},
		{"ts-instances.jsonl", "", "typescript"},
		{"data.jsonl", "", ""},
	}
	for _, tt := range tests {
		if got := languageFromName(tt.name); got != tt.want {
			t.Errorf("languageFromName(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	patch := "--- a/x.py\n+++ b/x.py\n--- a/A.java\n+++ b/A.java\n--- a/B.java\n+++ b/B.java\t(rev 2)\n--- a/c\n+++ /dev/null\n"
	if got := languageFromPatch(patch); got != "java" {
		t.Errorf("languageFromPatch = %q, want java", got)
	}
	if got := languageFromPatch("--- a/x.py\n+++ b/x.py\n--- a/y.go\n+++ b/y.go\n"); got != "go" {
		t.Errorf("languageFromPatch tie = %q, want go (alphabetical)", got)
	}
}
