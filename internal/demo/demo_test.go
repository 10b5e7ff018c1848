package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/audit/patchcheck"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/jdk"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// goldenSeeds is the extracted seed file the repository ships.
const goldenSeeds = "../../testdata/demo/seeds.jsonl"

func TestExtractSeedsGolden(t *testing.T) {
	got, excl, err := ExtractSeeds(BugsFS())
	if err != nil {
		t.Fatal(err)
	}
	if len(excl) != 0 {
		t.Errorf("exclusions = %+v, want none: every shipped pair is a method-level fix", excl)
	}
	perType := map[string]int{}
	for _, s := range got {
		perType[s.Exception]++
		if !strings.Contains(s.Diff, "@@") {
			t.Errorf("%s: diff has no hunk:\n%s", s.BugID, s.Diff)
		}
	}
	for _, ty := range corpus.Types {
		if perType[ty] != 2 {
			t.Errorf("%s: %d seeds, want 2", ty, perType[ty])
		}
	}
	if golden.Updating() {
		if err := jsonl.Rewrite(goldenSeeds, got); err != nil {
			t.Fatal(err)
		}
	}
	want, err := jsonl.ReadFile[corpus.Seed](goldenSeeds)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/demo -run Golden -update)", err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("seeds differ from %s (-want +got; rerun with -update if intended):\n%s", goldenSeeds, d)
	}
}

func TestExtractSeedsProblems(t *testing.T) {
	cls := func(body, field string) string {
		return "package p;\nclass A {\n" + field + "    int f(int[] a) {\n" + body + "    }\n}\n"
	}
	for _, tc := range []struct {
		name    string
		fs      fstest.MapFS
		wantErr error
		filter  string // exclusion expected
	}{
		{"no list", fstest.MapFS{}, errs.ErrNotFound, ""},
		{"short line", fstest.MapFS{"bugs.tsv": {Data: []byte("X-1\tP\n")}}, errs.ErrInput, ""},
		{"bad type", fstest.MapFS{"bugs.tsv": {Data: []byte("X-1\tP\tIOException\tA.java\n")}}, errs.ErrInput, ""},
		{"missing file", fstest.MapFS{"bugs.tsv": {Data: []byte("X-1\tP\tNullPointerException\tA.java\n")}}, errs.ErrInput, ""},
		{"field changed (F3)", fstest.MapFS{
			"bugs.tsv":         {Data: []byte("X-1\tP\tArrayIndexOutOfBoundsException\tA.java\n")},
			"X-1/buggy/A.java": {Data: []byte(cls("        return a[0];\n", ""))},
			"X-1/fixed/A.java": {Data: []byte(cls("        return a.length > 0 ? a[0] : 0;\n", "    int g;\n"))},
		}, nil, "F3"},
		{"added IAE throw (F4)", fstest.MapFS{
			"bugs.tsv":         {Data: []byte("X-1\tP\tIllegalArgumentException\tA.java\n")},
			"X-1/buggy/A.java": {Data: []byte(cls("        return a[0];\n", ""))},
			"X-1/fixed/A.java": {Data: []byte(cls("        if (a.length == 0) {\n            throw new IllegalArgumentException(\"empty\");\n        }\n        return a[0];\n", ""))},
		}, nil, "F4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, excl, err := ExtractSeeds(tc.fs)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 0 || len(excl) != 1 || excl[0].Filter != tc.filter {
				t.Fatalf("seeds %d, exclusions %+v; want 0 seeds and one %s exclusion", len(got), excl, tc.filter)
			}
		})
	}
}

func TestReindentAndRefactor(t *testing.T) {
	if got, want := reindent("void f(int x) {\n\n    g(x);\n}", "    "), "    void f(int x) {\n\n        g(x);\n    }\n"; got != want {
		t.Errorf("reindent = %q, want %q", got, want)
	}
	file := []byte("class A {\n    int x;\n    void set(int x) {\n        if (x > 0) {\n            this.x = x;\n        }\n    }\n}\n")
	m := realMethod{Start: 3, End: 7, Params: []string{"x"}}
	want := "class A {\n    int x;\n    void set(int xValue)\n        {\n        if (xValue > 0)\n        {\n            this.x = xValue;\n        }\n    }\n}\n"
	if got := string(refactor(file, m)); got != want {
		t.Errorf("refactor:\n%s\nwant:\n%s", got, want)
	}
}

// TestStage2Histories builds histories from real JDK methods and checks the
// verdicts the variants must get.
func TestStage2Histories(t *testing.T) {
	src, err := jdk.SrcZip()
	if err != nil {
		t.Skipf("no JDK src.zip: %v", err)
	}
	ctx := context.Background()
	ms, err := pickMethods(ctx, src, 3, stage2Types[:2], 2)
	if err != nil {
		t.Fatal(err)
	}
	var samples []Stage2Sample
	for _, m := range ms {
		if !bytes.Contains(m.Fixed, []byte(m.FixedText[:strings.IndexByte(m.FixedText, '\n')])) {
			t.Errorf("%s: fixed file does not hold the method's first line", m.Name)
		}
		ss, err := buildHistory(ctx, filepath.Join(t.TempDir(), m.Name), m)
		if err != nil {
			t.Fatal(err)
		}
		samples = append(samples, ss...)
	}
	if err := checkStage2(ctx, filepath.Join(t.TempDir(), "stage2_verdicts.jsonl"), samples); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{VariantPersists: patchcheck.Present, VariantReverted: patchcheck.Absent, VariantRefactored: patchcheck.Present}
	for _, s := range samples {
		if s.Verdict.Verdict != want[s.Variant] {
			t.Errorf("%s: verdict %s (score %.3f, %s), want %s", s.Sample.ID, s.Verdict.Verdict, s.Verdict.Score, s.Verdict.Reason, want[s.Variant])
		}
		if s.Variant == VariantRefactored && s.Verdict.Method == patchcheck.MethodExact {
			t.Errorf("%s: refactored fix matched exactly; the renaming did not touch the patch lines", s.Sample.ID)
		}
	}
	// Same inputs, same commits: the histories are reproducible.
	again, err := buildHistory(ctx, filepath.Join(t.TempDir(), "again"), ms[0])
	if err != nil {
		t.Fatal(err)
	}
	if again[0].Sample.FixCommit != samples[0].Sample.FixCommit {
		t.Errorf("fix commit %s then %s: history is not reproducible", samples[0].Sample.FixCommit, again[0].Sample.FixCommit)
	}
}

func TestRunRejectsBadOptions(t *testing.T) {
	if _, err := Run(context.Background(), Options{}); !errors.Is(err, errs.ErrUsage) {
		t.Errorf("no --out: err = %v, want ErrUsage", err)
	}
	if _, err := Run(context.Background(), Options{Out: t.TempDir(), Skip: []string{"report"}}); !errors.Is(err, errs.ErrUsage) {
		t.Errorf("skip report: err = %v, want ErrUsage", err)
	}
	if _, err := Run(context.Background(), Options{Out: t.TempDir(), Skip: []string{"audit/nope"}}); !errors.Is(err, errs.ErrUsage) {
		t.Errorf("skip unknown: err = %v, want ErrUsage", err)
	}
}

// cheapSkip are the slow steps the package tests leave out; `benchforge
// demo` runs them (measured in the package documentation). The testbed
// runs (quick scale, a few seconds) because the re-scoring needs its
// models.
var cheapSkip = []string{"audit/index", "synth/verify"}

var cheap struct {
	once sync.Once
	dir  string
	res  *Result
	err  error
}

// cheapDemo runs the demo once per test binary without the slow steps and
// returns its output folder.
func cheapDemo(t *testing.T) (string, *Result) {
	t.Helper()
	if _, err := jdk.SrcZip(); err != nil {
		t.Skipf("no JDK src.zip: %v", err)
	}
	cheap.once.Do(func() {
		if cheap.dir, cheap.err = os.MkdirTemp("", "benchforge-demo-test-"); cheap.err != nil {
			return
		}
		cheap.res, cheap.err = Run(context.Background(), Options{Out: cheap.dir, Quick: true, Skip: cheapSkip})
	})
	if cheap.err != nil {
		t.Fatal(cheap.err)
	}
	return cheap.dir, cheap.res
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if cheap.dir != "" {
		os.RemoveAll(cheap.dir)
	}
	os.Exit(code)
}

func TestRunWritesRecordsAndPages(t *testing.T) {
	dir, res := cheapDemo(t)
	var skipped []string
	for _, s := range res.Steps {
		if s.Skipped != "" {
			skipped = append(skipped, s.Name)
		}
	}
	if d := cmp.Diff(cheapSkip, skipped); d != "" {
		t.Errorf("skipped steps (-want +got):\n%s", d)
	}
	if e := res.Audit.Stage2Eval; e == nil || e.AUC != 1 || e.TPR != 1 || e.FPR != 0 {
		t.Errorf("Stage II evaluation = %+v, want AUC 1, TPR 1, FPR 0", e)
	}
	if res.Synth.Accepted == 0 || res.Synth.Fidelity == nil || res.Synth.Evaluation == nil {
		t.Errorf("synth: %d accepted, fidelity %v, evaluation %v", res.Synth.Accepted, res.Synth.Fidelity != nil, res.Synth.Evaluation != nil)
	}
	checkOutputsExist(t, dir)
	checkRerender(t, dir)
	checkNavigation(t, dir)
}

// checkOutputsExist checks that the pages and the main records are in dir
// and not empty.
func checkOutputsExist(t *testing.T, dir string) {
	t.Helper()
	for _, f := range []string{"summary.json", PageOverview, PageAudit, PageSynth, PageFidelity, PageEvaluation,
		"audit/stage2_verdicts.jsonl", "synth/seeds.jsonl", "synth/pairs.jsonl", "synth/evaluation.json"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: missing or empty (%v)", f, err)
		}
	}
}

// checkRerender checks that the pages are a function of summary.json:
// re-rendering gives the same bytes, and summary.json reads back.
func checkRerender(t *testing.T, dir string) {
	t.Helper()
	before, err := os.ReadFile(filepath.Join(dir, PageAudit))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := RenderDir(dir); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, PageAudit))
	if !bytes.Equal(before, after) {
		t.Error("re-rendering audit.html from summary.json changed it")
	}
	var back Result
	b, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err := json.Unmarshal(b, &back); err != nil || back.Report == "" {
		t.Errorf("summary.json: %v, report %q", err, back.Report)
	}
}

// checkNavigation checks that every main page links the job pages.
func checkNavigation(t *testing.T, dir string) {
	t.Helper()
	for _, p := range []string{PageOverview, PageAudit, PageSynth} {
		html, _ := os.ReadFile(filepath.Join(dir, p))
		for _, link := range []string{`href="` + PageAudit + `"`, `href="` + PageSynth + `"`, `href="` + PageFidelity + `"`} {
			if !bytes.Contains(html, []byte(link)) {
				t.Errorf("%s: no navigation link %s", p, link)
			}
		}
	}
}

func TestRenderDirMissing(t *testing.T) {
	if _, err := RenderDir(t.TempDir()); !errors.Is(err, errs.ErrNotFound) {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
}

// FuzzExtractSeeds feeds arbitrary bugs.tsv lists and Java sides to the
// seed extraction: it must return seeds, exclusions or an error, never
// panic, and every seed it returns must validate.
func FuzzExtractSeeds(f *testing.F) {
	f.Add([]byte("X-1\tP\tNullPointerException\tA.java\n"), []byte("class A { int f(String s) { return s.length(); } }"), []byte("class A { int f(String s) { return s == null ? 0 : s.length(); } }"))
	f.Add([]byte("# c\n\nX-1\tP\tNPE\tA.java\n"), []byte(""), []byte("class A {}"))
	f.Add([]byte("X-1\tP\tIllegalStateException\tA.java\tx\n"), []byte("{"), []byte("}"))
	f.Fuzz(func(t *testing.T, list, buggy, fixed []byte) {
		fsys := fstest.MapFS{
			"bugs.tsv":         {Data: list},
			"X-1/buggy/A.java": {Data: buggy},
			"X-1/fixed/A.java": {Data: fixed},
		}
		got, _, err := ExtractSeeds(fsys)
		if err != nil {
			return
		}
		for _, s := range got {
			if err := s.Validate(); err != nil {
				t.Fatalf("invalid seed %s: %v", s.BugID, err)
			}
		}
	})
}
