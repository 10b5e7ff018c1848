package testverify

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/gitrepo"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// TestParseSympy reads a real report: sympy's bin/test -C --verbose on
// sympy/polys/tests/test_polytools.py at the base commit of SWE-bench's
// sympy__sympy-18698 with its test patch, Python 3.11 (two failures, one
// expected failure, the last line carrying the file's "[FAIL]"). The
// report quotes two lines of sympy's tests (BSD-3-Clause).
func TestParseSympy(t *testing.T) {
	out, err := os.ReadFile(filepath.Join("testdata", "sympy-bin-test-py311.txt"))
	testcheck.Must(t, err)
	cases := ParseSympy(out)
	testcheck.Eq(t, "cases", len(cases), 150)
	got := map[string]Case{}
	for _, c := range cases {
		got[c.Name] = c
	}
	for name, want := range map[string]Case{
		"test_Poly_mixed_operations": {Name: "test_Poly_mixed_operations", Status: StatusPassed},
		"test_issue_5786":            {Name: "test_issue_5786", Status: StatusPassed},
		"test_factor_terms":          {Name: "test_factor_terms", Status: StatusFailed, Message: "AssertionError"},
		"test_issue_8695":            {Name: "test_issue_8695", Status: StatusFailed, Message: "AssertionError"},
		"test_as_list":               {Name: "test_as_list", Status: StatusPassed},
	} {
		testcheck.Eq(t, name, got[name], want)
	}
}

// TestParseSympyStatuses: every status word of the verbose report,
// including a skip's reason and output a test printed before its status.
func TestParseSympyStatuses(t *testing.T) {
	out := "sympy/x/tests/test_a.py[7] \n" +
		"test_ok ok\n" +
		"test_err E\n" +
		"test_skip  - s\n" +
		"test_slow Slow w\n" +
		"test_xpass X\n" +
		"test_printed hello world ok\n" +
		"test_nostatus\n" +
		"test_timeout T                                    [FAIL]\n" +
		"\n________________________________________________________________________________\n" +
		"_______________ sympy/x/tests/test_a.py:test_err _______________\n" +
		"Traceback (most recent call last):\n  File \"x\", line 1, in test_err\nZeroDivisionError: division by zero\n" +
		"\n== tests finished: 2 passed, 1 failed, 2 skipped, 1 exceptions, in 0.1 seconds ==\n"
	want := []Case{
		{Name: "test_ok", Status: StatusPassed},
		{Name: "test_err", Status: StatusError, Message: "ZeroDivisionError: division by zero"},
		{Name: "test_skip", Status: StatusSkipped},
		{Name: "test_slow", Status: StatusSkipped},
		{Name: "test_xpass", Status: StatusFailed},
		{Name: "test_printed", Status: StatusPassed},
		{Name: "test_timeout", Status: StatusError},
	}
	got := ParseSympy([]byte(out))
	testcheck.Eq(t, "cases", len(got), len(want))
	for i := range min(len(got), len(want)) {
		testcheck.Eq(t, want[i].Name, got[i], want[i])
	}
}

func TestTestPatchFiles(t *testing.T) {
	patch := "diff --git a/pkg/tests/test_a.py b/pkg/tests/test_a.py\n--- a/pkg/tests/test_a.py\n+++ b/pkg/tests/test_a.py\n@@ -1 +1,2 @@\n x = 1\n+y = 2\n" +
		"diff --git a/pkg/tests/test_new.py b/pkg/tests/test_new.py\nnew file mode 100644\n--- /dev/null\n+++ b/pkg/tests/test_new.py\n@@ -0,0 +1 @@\n+z = 3\n" +
		"diff --git a/pkg/tests/test_old.py b/pkg/tests/test_old.py\ndeleted file mode 100644\n--- a/pkg/tests/test_old.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-w = 4\n" +
		"diff --git a/pkg/tests/data.txt b/pkg/tests/data.txt\n--- a/pkg/tests/data.txt\n+++ b/pkg/tests/data.txt\n@@ -1 +1 @@\n-a\n+b\n"
	files, err := TestPatchFiles(patch)
	testcheck.Must(t, err)
	testcheck.Eq(t, "files", strings.Join(files, " "), "pkg/tests/test_a.py pkg/tests/test_new.py")
	none, err := TestPatchFiles("")
	testcheck.Must(t, err)
	testcheck.Eq(t, "no test patch", len(none), 0)
}

// TestDefiningFiles: without a test patch the runner runs the test files
// that define a requested test; a test no file defines is not run.
func TestDefiningFiles(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"sympy/a/tests/test_one.py": "def test_x():\n    pass\n\ndef test_y():\n    pass\n",
		"sympy/b/tests/test_two.py": "def test_y():\n    pass\n",
		"sympy/b/tests/helper.py":   "def test_x():\n    pass\n",
		"sympy/c/tests/test_tri.py": "    def test_x(self):\n        pass\n",
	} {
		testcheck.Must(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		testcheck.Must(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	files, err := definingFiles(dir, []string{"test_x"})
	testcheck.Must(t, err)
	testcheck.Eq(t, "test_x", strings.Join(files, " "), "sympy/a/tests/test_one.py")
	files, err = definingFiles(dir, []string{"test_y", "test_x"})
	testcheck.Must(t, err)
	testcheck.Eq(t, "test_y, test_x", strings.Join(files, " "), "sympy/a/tests/test_one.py sympy/b/tests/test_two.py")
	r := &SympyRunner{Python: "python3"}
	res, err := r.Run(context.Background(), dir, []string{"test_gone"})
	testcheck.Must(t, err)
	if len(res) != 1 || !res[0].NotRun || res[0].Passed {
		t.Errorf("undefined test: %+v, want not run", res)
	}
}

// TestSympyOnRealRepository runs SWE-bench's sympy__sympy-18698 (from the
// development set) on a real sympy clone with the system Python: the
// gold control holds, the buggy version fails test_factor_terms, a
// modified patch that keeps the bug fails and the gold fix itself passes.
// It runs only when $BENCHFORGE_SYMPY_GIT names a sympy clone (bare or
// not) and python3 has mpmath: four runs of sympy's polys tests take
// about a minute of CPU, minutes of wall time on a loaded machine, too
// long for every `make test`.
func TestSympyOnRealRepository(t *testing.T) {
	gitDir := os.Getenv("BENCHFORGE_SYMPY_GIT")
	if gitDir == "" || testing.Short() {
		t.Skip("set BENCHFORGE_SYMPY_GIT to a sympy clone (e.g. /work/repos/sympy__sympy.git) to run sympy's tests")
	}
	if _, err := os.Stat(gitDir); err != nil {
		t.Fatalf("BENCHFORGE_SYMPY_GIT=%s: %v", gitDir, err)
	}
	if _, err := NewSympyRunner(Options{}); err != nil {
		t.Skip(err)
	}
	ctx := context.Background()
	repo, err := gitrepo.Open(ctx, gitDir)
	testcheck.Must(t, err)
	defer repo.Close()
	s := devSample(t, "sympy__sympy-18698")
	v := &Verifier{Options: Options{Timeout: 10 * time.Minute}}
	passed, detail, err := v.Verify(ctx, s, repo, []byte(s.Patch))
	if err != nil || !passed {
		t.Fatalf("gold patch as the modified patch: %v, %q, %v", passed, detail, err)
	}
	// the fix's new merging of square-free factors, never taken
	keepsBug := strings.Replace(s.Patch, "+    if method == 'sqf':", "+    if method == 'never':", 1)
	if keepsBug == s.Patch {
		t.Fatal("the gold patch changed; adapt keepsBug")
	}
	passed, detail, err = v.Verify(ctx, s, repo, []byte(keepsBug))
	if err != nil || passed {
		t.Fatalf("a patch that keeps the bug: %v, %q, %v", passed, detail, err)
	}
	testcheck.Contains(t, "detail", detail, "test_factor_terms: failed: AssertionError")
}

// devSample is sample id of the Stage II development set.
func devSample(t *testing.T, id string) bench.Sample {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "labels", "stage2", "samples-python.jsonl"))
	testcheck.Must(t, err)
	for _, line := range strings.Split(string(data), "\n") {
		var s bench.Sample
		if json.Unmarshal([]byte(line), &s) == nil && s.ID == id {
			return s
		}
	}
	t.Fatalf("no sample %s in the development set", id)
	return bench.Sample{}
}
