package testverify

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/errs"
)

// SympyRunner runs sympy's tests with sympy's own runner, `bin/test -C
// --verbose FILE...`, as the SWE-bench harness does for sympy: SWE-bench
// names sympy's tests by bare function name ("test_issue_11617"), which
// only the test files resolve, and the verbose report prints one
// "test_name status" line per test. -C turns off sympy's cache so that
// one test cannot hide another's state.
type SympyRunner struct {
	// Python is an interpreter that imports mpmath (sympy's one hard
	// dependency).
	Python string
	// Files are the test files to run, relative to the work tree; empty
	// means every test file that defines one of the requested tests.
	Files []string
	Options
}

// NewSympyRunner finds an interpreter with mpmath (python3 on PATH, then
// /usr/bin/python3); on Debian/Ubuntu the package is python3-mpmath.
func NewSympyRunner(opts Options) (*SympyRunner, error) {
	py, err := findPython("mpmath")
	if err != nil {
		return nil, fmt.Errorf("sympy runner (Debian: apt-get install python3-mpmath): %w", err)
	}
	return &SympyRunner{Python: py, Options: opts}, nil
}

// isSympyTree reports whether dir is a sympy work tree with its runner.
func isSympyTree(dir string) bool {
	return exists(dir, "bin/test") && exists(dir, "sympy/__init__.py")
}

// withFiles implements fileScoped: the files of the sample's test patch.
func (r *SympyRunner) withFiles(files []string) Runner {
	c := *r
	c.Files = files
	return &c
}

// Run implements Runner. A requested test that no file to run defines is
// not run (inconclusive), not failed.
func (r *SympyRunner) Run(ctx context.Context, dir string, tests []string) ([]TestResult, error) {
	if r.Python == "" {
		return nil, fmt.Errorf("sympy runner: no interpreter configured (use NewSympyRunner): %w", errs.ErrUsage)
	}
	files := r.Files
	if len(files) == 0 {
		var err error
		if files, err = definingFiles(dir, tests); err != nil {
			return nil, fmt.Errorf("sympy runner: %w", err)
		}
	}
	if len(files) == 0 {
		return notDefined(dir, tests), nil
	}
	argv := append([]string{r.Python, "bin/test", "-C", "--verbose"}, files...)
	res, _, cleanup, err := r.run(ctx, fixed(argv), dir)
	if err != nil {
		return nil, fmt.Errorf("sympy runner: %w", err)
	}
	defer cleanup()
	return matchCases(tests, ParseSympy(res.Stdout), res, r.timeout()), nil
}

// notDefined is every test not run: no test file under dir defines it.
func notDefined(dir string, tests []string) []TestResult {
	out := make([]TestResult, len(tests))
	for i, t := range tests {
		out[i] = TestResult{Name: t, NotRun: true, Detail: "no test file under " + dir + " defines it"}
	}
	return out
}

// definingFiles are the test files (test_*.py) under dir that define a
// function named by one of tests, sorted.
func definingFiles(dir string, tests []string) ([]string, error) {
	var names []string
	for _, t := range tests {
		if k := TestKey(t); len(k) > 0 {
			names = append(names, regexp.QuoteMeta(k[len(k)-1]))
		}
	}
	if len(names) == 0 {
		return nil, nil
	}
	def := regexp.MustCompile(`(?m)^def (?:` + strings.Join(names, "|") + `)\(`)
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasPrefix(d.Name(), "test_") || !strings.HasSuffix(d.Name(), ".py") {
			return err
		}
		if b, rerr := os.ReadFile(p); rerr == nil && def.Match(b) {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("find test files under %s: %v: %w", dir, err, errs.ErrUnavailable)
	}
	sort.Strings(out)
	return out, nil
}

// sympyStatus maps the verbose report's status words: "ok" passed, "F"
// failed, "E" an exception, "T" a timeout (reported as an exception),
// "f" an expected failure (passed, as unittest's), "X" an unexpected pass
// (failed, as unittest's), "s", "w" (slow), "K" skipped.
var sympyStatus = map[string]Status{
	"ok": StatusPassed, "f": StatusPassed,
	"F": StatusFailed, "X": StatusFailed,
	"E": StatusError, "T": StatusError,
	"s": StatusSkipped, "w": StatusSkipped, "K": StatusSkipped,
}

var (
	sympyCase  = regexp.MustCompile(`^(test_\w+)(?:\s+(.*?))?\s*(?:\[(?:OK|FAIL)\])?$`)
	sympyBlock = regexp.MustCompile(`^_+ (\S+\.py):(test_\w+) _+$`)
)

// ParseSympy reads the verbose report of sympy's bin/test (stdout): one
// Case per "test_name status" line (the status is the line's last word,
// so output a test printed on its line does not hide it), with the last
// line of the test's traceback block as Message.
func ParseSympy(out []byte) []Case {
	lines := strings.Split(strings.ReplaceAll(string(out), "\r\n", "\n"), "\n")
	var cases []Case
	index := map[string]int{}
	for i := 0; i < len(lines); i++ {
		if m := sympyBlock.FindStringSubmatch(lines[i]); m != nil {
			msg, next := sympyMessage(lines, i+1)
			if j, ok := index[m[2]]; ok && cases[j].Message == "" {
				cases[j].Message = msg
			}
			i = next - 1
			continue
		}
		if c, ok := sympyLine(lines[i]); ok {
			index[c.Name] = len(cases)
			cases = append(cases, c)
		}
	}
	return cases
}

// sympyMessage is the last non-blank line of the traceback block that
// starts at lines[from] and the index where it ends: at the next block's
// rule of underscores or the "== tests finished" summary.
func sympyMessage(lines []string, from int) (string, int) {
	msg, i := "", from
	for ; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "____") || strings.HasPrefix(lines[i], "==") {
			break
		}
		if l := strings.TrimSpace(lines[i]); l != "" {
			msg = l
		}
	}
	return oneLine(msg, 200), i
}

// sympyLine reads one "test_name [output] status" line.
func sympyLine(line string) (Case, bool) {
	m := sympyCase.FindStringSubmatch(strings.TrimRight(line, " "))
	if m == nil {
		return Case{}, false
	}
	words := strings.Fields(m[2])
	if len(words) == 0 {
		return Case{}, false
	}
	st, ok := sympyStatus[words[len(words)-1]]
	if !ok {
		return Case{}, false
	}
	return Case{Name: m[1], Status: st}, true
}

// TestPatchFiles are the Python files a test patch leaves in the tree
// (new or changed, not deleted), in patch order: SWE-bench's "test
// directives", the files its harness runs.
func TestPatchFiles(testPatch string) ([]string, error) {
	if strings.TrimSpace(testPatch) == "" {
		return nil, nil
	}
	fds, err := diff.ParseString(testPatch)
	if err != nil {
		return nil, fmt.Errorf("test patch: %w", err)
	}
	var out []string
	for _, fd := range fds {
		if !fd.IsDeleted && strings.HasSuffix(fd.NewPath, ".py") {
			out = append(out, fd.NewPath)
		}
	}
	return out, nil
}
