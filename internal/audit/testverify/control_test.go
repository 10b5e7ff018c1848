package testverify

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// extraTest is a test file the fixture's test patches add: test_neg fails
// on the buggy add and passes on the fixed one; importLine goes first and
// pre is test_neg's first statement.
func extraTest(importLine, pre string) string {
	return importLine + "import collections\nimport unittest\n\nfrom calc import add\n\n\nclass TestExtra(unittest.TestCase):\n    def test_neg(self):\n" + pre + "        self.assertEqual(add(-1, 1), 0)\n"
}

// withTestPatch is the fixture's sample with a test patch that adds
// test_extra.py (extraTest(importLine, pre)) and lists its test_neg as
// FAIL_TO_PASS, as SWE-bench's samples do.
func withTestPatch(f fixture, importLine, pre string) bench.Sample {
	s := f.sample
	s.TestPatch = diff.Unified("/dev/null", "b/test_extra.py", nil, []byte(extraTest(importLine, pre)), 3).String()
	s.Tests.FailToPass = []string{"test_extra.py::TestExtra::test_neg"}
	s.Tests.PassToPass = []string{"test_calc.TestCalc.test_mul"}
	return s
}

// countingRunner counts the runs of a real runner.
type countingRunner struct {
	Runner
	runs atomic.Int32
}

func (c *countingRunner) Run(ctx context.Context, dir string, tests []string) ([]TestResult, error) {
	c.runs.Add(1)
	return c.Runner.Run(ctx, dir, tests)
}

// TestVerifyControls: the gold patch must pass under the harness and the
// buggy version must fail a FAIL_TO_PASS test; when either does not hold
// the result is inconclusive, not failed or passed.
func TestVerifyControls(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	runner := unittestRunner(t, Options{Timeout: 60 * time.Second})
	// An environment without a package the tests need: unittest cannot
	// load the test module in any run, the gold patch's too.
	missingPkg := withTestPatch(f, "import benchforge_not_installed_pkg\n", "")
	// An environment newer than the commit (as sympy 1.0 on Python 3.11):
	// the test runs but uses what Python 3.10 removed, so it errors
	// whatever the patch.
	tooNew := withTestPatch(f, "", "        collections.Mapping\n")
	// test_mul passes on the buggy version: the tests cannot tell the
	// fix from the bug.
	weakTests := f.sample
	weakTests.Tests.FailToPass = []string{"test_calc.TestCalc.test_mul"}
	noF2P := f.sample
	noF2P.Tests = bench.Tests{PassToPass: f.sample.Tests.PassToPass}
	badGold := f.sample
	badGold.Patch = strings.Replace(string(calcPatch("a + b")), "-    return a - b", "-    return a - c", 1)
	for _, tc := range []struct {
		name   string
		sample bench.Sample
		patch  []byte
		want   string
		cause  error
	}{
		{"gold not run: missing package", missingPkg, calcPatch("b + a"), "control: the gold patch's run is inconclusive: 1 of 2 selected tests were not collected or run (test_extra.py::TestExtra::test_neg)", nil},
		{"gold fails: environment too new", tooNew, calcPatch("b + a"), "control failed: the gold patch does not pass the listed tests under this harness (1 of 2 tests failed: test_extra.py::TestExtra::test_neg: error: AttributeError: module 'collections' has no attribute 'Mapping'", nil},
		{"gold fails: not a fix either", tooNew, calcPatch("a * b"), "control failed: the gold patch does not pass", nil},
		{"gold does not apply", badGold, calcPatch("b + a"), "control: the gold patch does not apply: ", errs.ErrInput},
		{"buggy version passes", weakTests, calcPatch("b + a"), "control failed: the buggy version already passes its 1 FAIL_TO_PASS tests", nil},
		{"no FAIL_TO_PASS", noF2P, calcPatch("b + a"), "control: the sample lists no FAIL_TO_PASS test", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := &Verifier{Runner: runner}
			passed, detail, err := v.Verify(ctx, tc.sample, f.repo, tc.patch)
			if passed || !errors.Is(err, ErrInconclusive) {
				t.Fatalf("Verify = %v, %q, %v; want inconclusive", passed, detail, err)
			}
			testcheck.Prefix(t, "detail", detail, tc.want)
			testcheck.Contains(t, "error", err.Error(), tc.want)
			testcheck.Contains(t, "error", err.Error(), "sample calc-1")
			if tc.cause != nil {
				testcheck.ErrIs(t, "cause", err, tc.cause)
			}
		})
	}
}

// TestVerifyControlsHold: with a test patch whose FAIL_TO_PASS test fails
// on the bug, a fix passes and a non-fix fails (a real verdict either
// way); the controls run once per sample: 3 runs for the first patch
// (gold, patch, buggy), 1 for the second.
func TestVerifyControlsHold(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	s := withTestPatch(f, "", "")
	runner := &countingRunner{Runner: unittestRunner(t, Options{Timeout: 60 * time.Second})}
	v := &Verifier{Runner: runner}
	passed, detail, err := v.Verify(ctx, s, f.repo, calcPatch("b + a"))
	if err != nil || !passed {
		t.Fatalf("fix: Verify = %v, %q, %v", passed, detail, err)
	}
	testcheck.Eq(t, "runs after the first patch", runner.runs.Load(), int32(3))
	passed, detail, err = v.Verify(ctx, s, f.repo, calcPatch("a * b"))
	if err != nil || passed {
		t.Fatalf("non-fix: Verify = %v, %q, %v", passed, detail, err)
	}
	testcheck.Prefix(t, "non-fix detail", detail, "1 of 2 tests failed: test_extra.py::TestExtra::test_neg: failed: AssertionError: -1 != 0")
	testcheck.Eq(t, "runs after the second patch", runner.runs.Load(), int32(4))
}

// TestVerifyNoGoldPatch: without a gold patch no control can be made.
func TestVerifyNoGoldPatch(t *testing.T) {
	f := newFixture(t)
	s := f.sample
	s.Patch = ""
	_, detail, err := (&Verifier{}).Verify(context.Background(), s, f.repo, calcPatch("a + b"))
	testcheck.ErrIs(t, "no gold patch", err, errs.ErrInput)
	testcheck.ErrSays(t, "no gold patch", err, "sample calc-1")
	testcheck.Eq(t, "detail", detail, "no gold patch")
}
