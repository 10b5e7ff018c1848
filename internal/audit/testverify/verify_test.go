package testverify

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo"
	"github.com/benchforge/benchforge/internal/gitrepo/gittest"
)

const (
	buggyCalc = `def add(a, b):
    return a - b


def mul(a, b):
    return a * b
`
	testCalc = `import unittest

from calc import add, mul


class TestCalc(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 3), 5)

    def test_mul(self):
        self.assertEqual(mul(2, 3), 6)
`
)

// fixture is a Python project whose base commit has a bug in add.
type fixture struct {
	repo   *gitrepo.Repo
	bare   *gitrepo.Repo
	base   string
	sample bench.Sample
}

var (
	fixtureOnce sync.Once
	shared      fixture
)

// newFixture builds the fixture repository once per test binary (in a
// directory TestMain removes) and opens it for t.
func newFixture(t *testing.T) fixture {
	t.Helper()
	fixtureOnce.Do(func() { shared = buildFixture(t) })
	if shared.repo == nil {
		t.Fatal("fixture build failed")
	}
	return shared
}

var fixtureDir string

func TestMain(m *testing.M) {
	d, err := os.MkdirTemp("", "testverify-fixture-*")
	if err != nil {
		panic(err)
	}
	fixtureDir = d
	code := m.Run()
	if shared.repo != nil {
		shared.repo.Close()
		shared.bare.Close()
	}
	os.RemoveAll(d)
	os.Exit(code)
}

func buildFixture(t *testing.T) fixture {
	t.Helper()
	b := gittest.NewIn(t, fixtureDir)
	b.Write("calc.py", buggyCalc)
	b.Write("test_calc.py", testCalc)
	b.Write(".gitattributes", "test_calc.py export-ignore\n")
	base := b.Commit("calc with a bug", gittest.Date(2021, 3, 1))
	b.Write("calc.py", strings.Replace(buggyCalc, "a - b", "a + b", 1))
	b.Commit("fix add", gittest.Date(2021, 4, 1))
	ctx := context.Background()
	repo, err := gitrepo.Open(ctx, b.Dir())
	if err != nil {
		t.Fatal(err)
	}
	bare, err := gitrepo.Open(ctx, b.CloneBare())
	if err != nil {
		t.Fatal(err)
	}
	return fixture{repo: repo, bare: bare, base: base, sample: bench.Sample{
		ID: "calc-1", Benchmark: "test", Repo: "example/calc", Language: "python", BaseCommit: base,
		Patch: string(calcPatch("a + b")),
		Tests: bench.Tests{
			FailToPass: []string{"test_calc.TestCalc.test_add"},
			PassToPass: []string{"test_mul (test_calc.TestCalc)"},
		},
	}}
}

// calcPatch is the diff from the buggy calc.py to one whose add returns expr.
func calcPatch(expr string) []byte {
	fd := diff.Unified("a/calc.py", "b/calc.py", []byte(buggyCalc), []byte(strings.Replace(buggyCalc, "a - b", expr, 1)), 3)
	return []byte(fd.String())
}

func unittestRunner(t *testing.T, opts Options) *UnittestRunner {
	t.Helper()
	r, err := NewUnittestRunner(opts)
	if err != nil {
		t.Skipf("python3 unavailable: %v", err)
	}
	return r
}

func TestVerify(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	runner := unittestRunner(t, Options{Timeout: 60 * time.Second})
	badContext := strings.Replace(string(calcPatch("b + a")), "-    return a - b", "-    return a - c", 1)
	tests := []struct {
		name       string
		repo       *gitrepo.Repo
		patch      []byte
		opts       Options
		wantPassed bool
		wantDetail string
		wantErr    error
	}{
		{"fix present", f.repo, calcPatch("b + a"), Options{}, true, "all 2 tests passed", nil},
		{"fix present, bare clone", f.bare, calcPatch("a + b"), Options{}, true, "all 2 tests passed", nil},
		{"not a fix", f.repo, calcPatch("a * b"), Options{}, false, "1 of 2 tests failed: test_calc.TestCalc.test_add: failed: AssertionError: 6 != 5", nil},
		{"does not apply", f.repo, []byte(badContext), Options{}, false, "modified patch does not apply", errs.ErrInput},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := &Verifier{Runner: runner}
			passed, detail, err := v.Verify(ctx, f.sample, tc.repo, tc.patch)
			checkVerifyErr(t, err, tc.wantErr)
			if passed != tc.wantPassed || !strings.HasPrefix(detail, tc.wantDetail) {
				t.Errorf("Verify = %v, %q; want %v, %q…", passed, detail, tc.wantPassed, tc.wantDetail)
			}
		})
	}
}

// checkVerifyErr: with want nil, err is nil; otherwise err wraps want
// and is an *diff.ApplyError naming calc.py and hunk 1.
func checkVerifyErr(t *testing.T, err, want error) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	if !errors.Is(err, want) {
		t.Fatalf("err = %v, want %v", err, want)
	}
	var ae *diff.ApplyError
	if !errors.As(err, &ae) || ae.Hunk != 1 || !strings.Contains(err.Error(), "calc.py") || !strings.Contains(err.Error(), "hunk") {
		t.Errorf("error %q does not name the file and hunk", err)
	}
}

func TestVerifyHangingTestTimesOut(t *testing.T) {
	f := newFixture(t)
	runner := unittestRunner(t, Options{Timeout: 2 * time.Second})
	hang := diff.Unified("a/calc.py", "b/calc.py", []byte(buggyCalc),
		[]byte(strings.Replace(buggyCalc, "    return a - b", "    while True:\n        pass", 1)), 3)
	start := time.Now()
	results, err := runner.Run(context.Background(), prepare(t, f, []byte(hang.String())), []string{"test_calc.TestCalc.test_add"})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 1 || !timedOutFailure(results[0], "timed out after 2s") {
		t.Fatalf("results = %+v, want one timed-out failure", results)
	}
	if el := time.Since(start); el > 30*time.Second {
		t.Errorf("took %v for a 3s timeout", el)
	}
	passed, detail := Summarise([]string{"test_calc.TestCalc.test_add"}, results)
	if passed || !strings.Contains(detail, "(1 timed out)") {
		t.Errorf("Summarise = %v, %q", passed, detail)
	}
}

// timedOutFailure reports whether r failed by timing out, saying detail.
func timedOutFailure(r TestResult, detail string) bool {
	return !r.Passed && r.TimedOut && strings.Contains(r.Detail, detail)
}

// prepare checks out the fixture's base commit, applies patch and returns
// the work tree.
func prepare(t *testing.T, f fixture, patch []byte) string {
	t.Helper()
	dir := t.TempDir()
	work := dir + "/src"
	if err := Checkout(context.Background(), f.repo.GitDir(), f.base, work, dir+"/index"); err != nil {
		t.Fatal(err)
	}
	if err := ApplyPatch(work, patch, diff.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	return work
}

func TestVerifyTestPatch(t *testing.T) {
	f := newFixture(t)
	s := f.sample
	extra := "import unittest\n\nfrom calc import add\n\n\nclass TestExtra(unittest.TestCase):\n    def test_neg(self):\n        self.assertEqual(add(-1, 1), 0)\n"
	s.TestPatch = diff.Unified("/dev/null", "b/test_extra.py", nil, []byte(extra), 3).String()
	s.Tests.FailToPass = append(s.Tests.FailToPass, "test_extra.py::TestExtra::test_neg")
	v := &Verifier{Runner: unittestRunner(t, Options{Timeout: 60 * time.Second})}
	passed, detail, err := v.Verify(context.Background(), s, f.repo, calcPatch("a + b"))
	if err != nil || !passed || detail != "all 3 tests passed" {
		t.Fatalf("Verify = %v, %q, %v", passed, detail, err)
	}
}

func TestVerifyErrors(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	v := &Verifier{Runner: &CommandRunner{Argv: []string{"false"}}}
	noTests := f.sample
	noTests.Tests = bench.Tests{}
	missing := f.sample
	missing.BaseCommit = "0123456789abcdef0123456789abcdef01234567"
	noLang := f.sample
	noLang.Language = "cobol"
	tests := []struct {
		name   string
		v      *Verifier
		sample bench.Sample
		repo   *gitrepo.Repo
		patch  []byte
		want   error
	}{
		{"no tests", v, noTests, f.repo, calcPatch("a + b"), errs.ErrInput},
		{"empty patch", v, f.sample, f.repo, nil, errs.ErrInput},
		{"no repo", v, f.sample, nil, calcPatch("a + b"), errs.ErrUsage},
		{"missing commit", v, missing, f.repo, calcPatch("a + b"), errs.ErrNotFound},
		{"no runner for language", &Verifier{}, noLang, f.repo, calcPatch("a + b"), errs.ErrUnsupported},
		{"patch escapes tree", v, f.sample, f.repo, []byte("--- a/../x.py\n+++ b/../x.py\n@@ -1 +1 @@\n-a\n+b\n"), errs.ErrInput},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := tc.v.Verify(ctx, tc.sample, tc.repo, tc.patch)
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), "calc-1") {
				t.Fatalf("err = %v, want %v naming the sample", err, tc.want)
			}
		})
	}
}

func TestVerifyDetectedRunner(t *testing.T) {
	f := newFixture(t)
	v := &Verifier{Options: Options{Timeout: 60 * time.Second}}
	passed, detail, err := v.Verify(context.Background(), f.sample, f.repo, calcPatch("a + b"))
	if err != nil || !passed {
		t.Fatalf("Verify = %v, %q, %v", passed, detail, err)
	}
}

func TestCommandRunner(t *testing.T) {
	f := newFixture(t)
	py, err := findPython("")
	if err != nil {
		t.Skip(err)
	}
	work := prepare(t, f, calcPatch("a * 1 + b"))
	dotted := []string{"test_calc.TestCalc.test_add", "test_calc.TestCalc.test_mul"}
	nodeIDs := []string{"test_calc.py::TestCalc::test_add", "test_calc.py::TestCalc::test_mul"}
	cases := []struct {
		name     string
		template string
		junit    string
		tests    []string
		want     []bool
		needs    string
	}{
		{"per test", py + " -m unittest {test}", "", dotted, []bool{true, true}, ""},
		{"one run", py + " -m unittest {tests}", "", dotted, []bool{true, true}, ""},
		{"one run fails all", `sh -c "exit 1" {tests}`, "", dotted, []bool{false, false}, ""},
		{"junit", "{python} -m pytest -p no:cacheprovider -q --junitxml '{dir}/out/report.xml' {tests}", "out/*.xml", nodeIDs, []bool{true, true}, "pytest"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseCommand(withPython(t, tc.template, tc.needs), Options{Timeout: 60 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			r.JUnitXML = tc.junit
			results, err := r.Run(context.Background(), work, tc.tests)
			if err != nil {
				t.Fatal(err)
			}
			for i, res := range results {
				if res.Name != tc.tests[i] || res.Passed != tc.want[i] {
					t.Errorf("result %d = %+v, want passed=%v", i, res, tc.want[i])
				}
			}
		})
	}
}

// withPython replaces {python} in tmpl by a Python that has module needs,
// skipping the test when there is none; with needs "" tmpl is returned
// as it is.
func withPython(t *testing.T, tmpl, needs string) string {
	t.Helper()
	if needs == "" {
		return tmpl
	}
	p, err := findPython(needs)
	if err != nil {
		t.Skip(err)
	}
	return strings.ReplaceAll(tmpl, "{python}", p)
}

func TestParseCommandErrors(t *testing.T) {
	for _, tmpl := range []string{"", "   ", "x --k={tests}", "x {test} {tests}", "x 'unterminated"} {
		if _, err := ParseCommand(tmpl, Options{}); !errors.Is(err, errs.ErrUsage) {
			t.Errorf("ParseCommand(%q) err = %v, want ErrUsage", tmpl, err)
		}
	}
}

func TestJavaRunnersUnavailable(t *testing.T) {
	for name, ctor := range map[string]func(Options) (Runner, error){
		"mvn":    func(o Options) (Runner, error) { return NewMavenRunner(o) },
		"gradle": func(o Options) (Runner, error) { return NewGradleRunner(o) },
		"ant":    func(o Options) (Runner, error) { return NewAntRunner(o) },
	} {
		_, lookErr := exec.LookPath(name)
		_, err := ctor(Options{})
		if (lookErr != nil) != errors.Is(err, errs.ErrUnavailable) {
			t.Errorf("%s: installed=%v but constructor err = %v", name, lookErr == nil, err)
		}
	}
	dir := t.TempDir()
	os.WriteFile(dir+"/build.xml", []byte("<project/>"), 0o644)
	_, lookErr := exec.LookPath("ant")
	r, err := Detect(dir, "java", Options{})
	if _, isAnt := r.(*AntRunner); (lookErr == nil) != isAnt {
		t.Errorf("Detect(build.xml) = %T, %v with ant installed=%v", r, err, lookErr == nil)
	}
}

// TestVerifyTestsNotRunAreInconclusive: a listed test the runner never
// collected (a wrong id: pytest exit 4, or no result in the report) is not
// "the tests fail": Verify says inconclusive and keeps the exit status and
// the output's tail.
func TestVerifyTestsNotRunAreInconclusive(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	s := f.sample
	s.Tests.PassToPass = []string{"test_calc.TestCalc.test_gone"}
	pytest, cmd := pytestRunners(t)
	for _, tc := range []struct {
		name   string
		runner Runner
		sample bench.Sample
		want   string
	}{
		// pytest refuses the whole run when one id is not found (exit 4,
		// "no tests ran"): neither test has a result.
		{"pytest, one id missing", pytest, s, "2 of 2 selected tests were not collected or run (test_calc.TestCalc.test_add, test_calc.TestCalc.test_gone); runner exit status 4"},
		{"command, pytest exit 4", cmd, s, "2 of 2 selected tests were not collected or run"},
		{"unittest, one id missing", unittestRunner(t, Options{Timeout: 60 * time.Second}), s, "1 of 2 selected tests were not collected or run"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := &Verifier{Runner: tc.runner}
			passed, detail, err := v.Verify(ctx, tc.sample, f.repo, calcPatch("a + b"))
			checkInconclusive(t, passed, detail, err, tc.want)
		})
	}
	// Every test collected: a real verdict as before.
	v := &Verifier{Runner: pytest}
	if passed, detail, err := v.Verify(ctx, f.sample, f.repo, calcPatch("a * b")); err != nil || passed || !strings.HasPrefix(detail, "1 of 2 tests failed") {
		t.Errorf("all collected, not a fix: %v, %q, %v", passed, detail, err)
	}
}

// pytestRunners are the pytest runner and a command runner calling
// pytest; the test is skipped without pytest.
func pytestRunners(t *testing.T) (pytest, cmd Runner) {
	t.Helper()
	pyt, err := findPython("pytest")
	if err != nil {
		t.Skip(err)
	}
	pytest, err = NewPytestRunner(Options{Timeout: 60 * time.Second})
	if err != nil {
		t.Skip(err)
	}
	cmd, err = ParseCommand(pyt+" -m pytest -p no:cacheprovider -q {tests}", Options{Timeout: 60 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return pytest, cmd
}

// checkInconclusive: the verdict is inconclusive (not passed), its detail
// and error say want, and the detail has the output's tail.
func checkInconclusive(t *testing.T, passed bool, detail string, err error, want string) {
	t.Helper()
	if !errors.Is(err, ErrInconclusive) || passed {
		t.Fatalf("Verify = %v, %q, %v; want inconclusive", passed, detail, err)
	}
	if !strings.Contains(detail, want) || !strings.Contains(err.Error(), want) {
		t.Errorf("detail %q / error %q lack %q", detail, err, want)
	}
	if !strings.Contains(detail, "output ends: ") {
		t.Errorf("detail %q lacks the output tail", detail)
	}
}
