// Package testverify owns the test-suite fallback of Stage II (BenchChecker
// §3.4 "Testing Verification", §4.2): when similarity matching of a gold
// patch against the cutoff snapshot is inconclusive, a modified diff — the
// gold fix with each patch block replaced by its aligned snapshot code — is
// applied to the sample's buggy version and the benchmark's own tests decide:
// if the diff applies and every FAIL_TO_PASS and PASS_TO_PASS test passes,
// the snapshot already contains a fix and the sample counts as present.
//
// Verify builds a private copy of the base commit (git read-tree and
// checkout-index into a temporary directory with a temporary index, so bare
// clones work, the repository is never written and export-ignore attributes
// do not drop files), applies the SWE-bench test patch when there is one and
// then the modified patch with internal/diff, and runs the tests through a
// Runner. Every runner executes the tests with internal/sandbox: own process
// group, timeout, memory cap, private HOME/TMPDIR, no network when the OS
// allows, scrubbed environment.
//
// Controls (control.go): the gold patch runs first under the same harness
// and must pass every listed test, and before a pass counts the buggy
// version (test patch only) must fail a FAIL_TO_PASS test; otherwise the
// harness cannot tell fixed from buggy here (an old commit on a new
// Python, a missing package) and Verify is inconclusive, never "failed".
// Each control runs once per sample and base commit.
//
// Runners: CommandRunner (an argv template such as
// `python3 -m pytest -q {tests}`, split into words without a shell),
// PytestRunner, UnittestRunner, SympyRunner (sympy's bin/test on the test
// patch's files, as SWE-bench runs sympy), MavenRunner, GradleRunner and
// AntRunner. Detect picks one from the work tree and what is installed.
//
// Definitions:
//   - A Runner returns one TestResult per requested test, named exactly as
//     requested. A test the runner found no result for is failed, with a
//     Detail saying so; a skipped test is not a pass (it demonstrates
//     nothing).
//   - passed = the modified patch applied, every listed test passed and
//     both controls held. A sample that lists no tests, or has no gold
//     patch, cannot be verified and is an error.
//   - A run that collected or executed none of the listed tests, or not
//     all of them (pytest exit 4 "not found" or 5 "no tests collected",
//     a test id the report does not contain), is inconclusive, not a
//     failure: Verify returns an error wrapping ErrInconclusive whose
//     message (kept in the Stage II record) holds the runner's exit status
//     and the tail of its output.
//
// Test names are matched to what the tools report by their components (see
// TestKey): "pkg/test_x.py::TestC::test_m", "pkg.test_x.TestC.test_m",
// "test_m (pkg.test_x.TestC)" and a JUnit testcase with classname
// "pkg.test_x.TestC" and name "test_m" are the same test, as are Defects4J's
// "org.Foo::testBar" and Maven's "org.Foo#testBar".
package testverify

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo"
	"github.com/benchforge/benchforge/internal/sandbox"
)

// Verifier runs the test-suite fallback for samples. The zero value detects
// a runner per sample with default Options.
type Verifier struct {
	// Runner runs the tests; nil means Detect(worktree, sample.Language).
	Runner Runner
	// Options configure the runners Detect builds (timeout, memory, ...).
	Options Options
	// Apply tunes patch application (fuzz, offset); the zero value is
	// patch(1)'s default tolerance.
	Apply diff.ApplyOptions
	// TempDir is where work trees are made; empty means os.TempDir().
	TempDir string

	mu       sync.Mutex
	controls map[string]controlOutcome // see control.go
}

// ErrInconclusive marks a test run that did not run every listed test, or
// whose control did not hold, so its outcome says nothing about the patch.
// Its Inconclusive method lets callers that do not import this package
// (patchcheck) recognise it with errors.As.
var ErrInconclusive error = inconclusiveErr{}

type inconclusiveErr struct{}

func (inconclusiveErr) Error() string      { return "test run inconclusive" }
func (inconclusiveErr) Inconclusive() bool { return true }

// TestResult is the outcome of one requested test.
type TestResult struct {
	Name     string `json:"name"`
	Passed   bool   `json:"passed"`
	TimedOut bool   `json:"timed_out,omitempty"`
	Detail   string `json:"detail,omitempty"`
	// NotRun says the runner collected or executed no such test (it is not
	// a failure); Exit and Tail are the run's exit status and the end of
	// its output, for the record.
	NotRun bool   `json:"not_run,omitempty"`
	Exit   int    `json:"exit_status,omitempty"`
	Tail   string `json:"output_tail,omitempty"`
}

// Runner runs tests in a prepared work tree.
type Runner interface {
	// Run runs tests in dir and returns one result per test, in order. An
	// error means the runner itself could not run (tool missing, context
	// cancelled), not that tests failed.
	Run(ctx context.Context, dir string, tests []string) ([]TestResult, error)
}

// Verify applies modifiedPatch to sample's buggy version (BaseCommit, after
// its TestPatch) in a temporary work tree and runs the sample's tests; passed
// is true when every FAIL_TO_PASS and PASS_TO_PASS test passes and both
// controls hold (control.go; one that does not makes the result
// inconclusive). detail says what happened in one line. A patch that does
// not apply returns passed=false and an error wrapping a *diff.ApplyError
// (errs.ErrInput) that names the file and hunk.
func (v *Verifier) Verify(ctx context.Context, sample bench.Sample, repo *gitrepo.Repo, modifiedPatch []byte) (passed bool, detail string, err error) {
	op := fmt.Sprintf("test verification of sample %s", sample.ID)
	tests, err := checkRequest(op, sample, repo, modifiedPatch)
	if err != nil {
		return false, detailOf(err), err
	}
	commit, err := repo.Resolve(ctx, sample.BaseCommit)
	if err != nil {
		return false, "", fmt.Errorf("%s: base commit %q in %s: %w", op, sample.BaseCommit, repo.Path(), err)
	}
	tmp, err := v.workDir(op)
	if err != nil {
		return false, "", err
	}
	defer sandbox.ForceRemove(tmp)
	// The modified tree first: a patch that does not apply needs no
	// control run.
	work, detail, err := v.patchedTree(ctx, op, sample, repo, commit.Hash, tmp, "modified patch", modifiedPatch)
	if err != nil {
		return false, detail, err
	}
	run := func(what string, patch []byte, tests []string) (bool, string, error) {
		return v.runPatched(ctx, op, sample, repo, commit.Hash, what, patch, tests)
	}
	if detail, err := v.goldControl(ctx, op, sample, commit.Hash, tests, run); err != nil {
		return false, detail, err
	}
	if passed, detail, err = v.runTests(ctx, op, sample, work, tests); err != nil || !passed {
		return passed, detail, err
	}
	if d, err := v.buggyControl(ctx, op, sample, commit.Hash, run); err != nil {
		return false, d, err
	}
	return true, detail, nil
}

// checkRequest validates a Verify call and returns the sample's tests.
func checkRequest(op string, sample bench.Sample, repo *gitrepo.Repo, modifiedPatch []byte) ([]string, error) {
	if repo == nil {
		return nil, fmt.Errorf("%s: no repository: %w", op, errs.ErrUsage)
	}
	tests := sampleTests(sample)
	if len(tests) == 0 {
		return nil, &detailErr{"sample lists no tests", fmt.Errorf("%s: the sample lists no FAIL_TO_PASS or PASS_TO_PASS tests, so nothing can verify the patch: %w", op, errs.ErrInput)}
	}
	if len(strings.TrimSpace(string(modifiedPatch))) == 0 {
		return nil, &detailErr{"empty modified patch", fmt.Errorf("%s: empty modified patch: %w", op, errs.ErrInput)}
	}
	if len(strings.TrimSpace(sample.Patch)) == 0 {
		return nil, &detailErr{"no gold patch", fmt.Errorf("%s: the sample has no gold patch, so the control run (the gold fix must pass the tests here) cannot be made: %w", op, errs.ErrInput)}
	}
	return tests, nil
}

// detailErr is an error with the one-line detail Verify reports for it.
type detailErr struct {
	detail string
	err    error
}

func (e *detailErr) Error() string { return e.err.Error() }
func (e *detailErr) Unwrap() error { return e.err }

// detailOf is err's one-line detail ("" when it has none).
func detailOf(err error) string {
	var de *detailErr
	if errors.As(err, &de) {
		return de.detail
	}
	return ""
}

// runPatched runs tests on a private copy of commit hash with the sample's
// test patch and then patch (what it is, for messages; none: the buggy
// version) applied.
func (v *Verifier) runPatched(ctx context.Context, op string, sample bench.Sample, repo *gitrepo.Repo, hash, what string, patch []byte, tests []string) (bool, string, error) {
	tmp, err := v.workDir(op)
	if err != nil {
		return false, "", err
	}
	defer sandbox.ForceRemove(tmp)
	work, detail, err := v.patchedTree(ctx, op, sample, repo, hash, tmp, what, patch)
	if err != nil {
		return false, detail, err
	}
	return v.runTests(ctx, op, sample, work, tests)
}

// workDir makes a temporary directory for one work tree.
func (v *Verifier) workDir(op string) (string, error) {
	tmp, err := os.MkdirTemp(v.TempDir, "benchforge-verify-*")
	if err != nil {
		return "", fmt.Errorf("%s: work tree: %v: %w", op, err, errs.ErrUnavailable)
	}
	return tmp, nil
}

// patchedTree checks out the buggy version (commit hash, or for a
// Defects4J-style sample its fix commit minus the gold patch; see
// checkoutBuggy) in tmp/src and applies the sample's test patch, then patch
// (if any; what names it); detail says which did not apply.
func (v *Verifier) patchedTree(ctx context.Context, op string, sample bench.Sample, repo *gitrepo.Repo, hash, tmp, what string, patch []byte) (work, detail string, err error) {
	work = filepath.Join(tmp, "src")
	if err := checkoutBuggy(ctx, sample, repo, hash, work, tmp, v.Apply); err != nil {
		return "", "", fmt.Errorf("%s: %w", op, err)
	}
	if strings.TrimSpace(sample.TestPatch) != "" {
		if err := ApplyPatch(work, []byte(sample.TestPatch), v.Apply); err != nil {
			return "", "test patch does not apply", fmt.Errorf("%s: test patch on %.12s: %w", op, hash, err)
		}
	}
	if len(patch) == 0 {
		return work, "", nil
	}
	if err := ApplyPatch(work, patch, v.Apply); err != nil {
		return "", what + " does not apply: " + err.Error(), fmt.Errorf("%s: %s on %.12s: %w", op, what, hash, err)
	}
	return work, "", nil
}

// runTests runs the tests in work with the Verifier's runner (by default
// the one Detect finds) and decides: a run that did not run every test is
// inconclusive (ErrInconclusive).
func (v *Verifier) runTests(ctx context.Context, op string, sample bench.Sample, work string, tests []string) (bool, string, error) {
	runner := v.Runner
	if runner == nil {
		var err error
		if runner, err = Detect(work, sample.Language, v.Options); err != nil {
			return false, "", fmt.Errorf("%s: %w", op, err)
		}
	}
	if fs, ok := runner.(fileScoped); ok {
		files, err := TestPatchFiles(sample.TestPatch)
		if err != nil {
			return false, "", fmt.Errorf("%s: %w", op, err)
		}
		runner = fs.withFiles(files)
	}
	results, err := runner.Run(ctx, work, tests)
	if err != nil {
		return false, "", fmt.Errorf("%s: %w", op, err)
	}
	if d, ok := notRun(tests, results); ok {
		return false, d, fmt.Errorf("%s: %s; the patch is neither confirmed nor refuted (check the test ids or --test-cmd): %w", op, d, ErrInconclusive)
	}
	passed, detail := Summarise(tests, results)
	return passed, detail, nil
}

// fileScoped is a Runner that runs whole test files and is told the files
// of the sample's test patch (SWE-bench's test directives); with none it
// finds the files itself.
type fileScoped interface {
	withFiles(files []string) Runner
}

// notRun describes a run that did not run every requested test: how many,
// which (up to three), the exit status and the output's tail.
func notRun(tests []string, results []TestResult) (string, bool) {
	byName := map[string]TestResult{}
	for _, r := range results {
		byName[r.Name] = r
	}
	var missing []string
	var last TestResult
	for _, t := range tests {
		r, ok := byName[t]
		if !ok {
			r = TestResult{Name: t, NotRun: true}
		}
		if r.NotRun {
			missing = append(missing, t)
			last = r
		}
	}
	if len(missing) == 0 {
		return "", false
	}
	names := missing
	if len(names) > 3 {
		names = append(names[:3:3], fmt.Sprintf("and %d more", len(missing)-3))
	}
	d := fmt.Sprintf("inconclusive: %d of %d selected tests were not collected or run (%s)", len(missing), len(tests), strings.Join(names, ", "))
	if last.Exit != 0 || last.Tail != "" {
		d += fmt.Sprintf("; runner exit status %d, output ends: %s", last.Exit, last.Tail)
	}
	return d, true
}

// sampleTests is FAIL_TO_PASS then PASS_TO_PASS without duplicates or
// blanks.
func sampleTests(s bench.Sample) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range append(append([]string(nil), s.Tests.FailToPass...), s.Tests.PassToPass...) {
		if t = strings.TrimSpace(t); t != "" && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// Summarise decides pass/fail over the requested tests and describes the
// outcome in one line, naming up to five failing tests.
func Summarise(tests []string, results []TestResult) (bool, string) {
	failed, timedOut := failures(tests, results)
	if len(failed) == 0 {
		return true, fmt.Sprintf("all %d tests passed", len(tests))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d tests failed", len(failed), len(tests))
	if timedOut > 0 {
		fmt.Fprintf(&b, " (%d timed out)", timedOut)
	}
	b.WriteString(": ")
	for i, f := range failed {
		if i == 5 {
			fmt.Fprintf(&b, "; and %d more", len(failed)-5)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(oneLine(f, 200))
	}
	return false, b.String()
}

// failures is "test: detail" for each requested test that did not pass
// (or has no result), and how many of them timed out.
func failures(tests []string, results []TestResult) (failed []string, timedOut int) {
	byName := map[string]TestResult{}
	for _, r := range results {
		byName[r.Name] = r
	}
	for _, t := range tests {
		r, ok := byName[t]
		switch {
		case !ok:
			failed = append(failed, t+": no result")
		case !r.Passed:
			if r.TimedOut {
				timedOut++
			}
			msg := t
			if r.Detail != "" {
				msg += ": " + r.Detail
			}
			failed = append(failed, msg)
		}
	}
	return failed, timedOut
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}

// durationText renders d for messages ("30s").
func durationText(d time.Duration) string { return d.Round(time.Millisecond).String() }
