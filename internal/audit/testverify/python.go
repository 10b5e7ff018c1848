package testverify

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/benchforge/benchforge/internal/errs"
)

// findPython returns the real interpreter (sys.executable) of the first
// candidate that runs and, when module is set, can import it. Resolving
// through sys.executable skips wrapper scripts such as pyenv shims.
func findPython(module string, candidates ...string) (string, error) {
	key := module + "\x00" + strings.Join(candidates, "\x00")
	if v, ok := pythonCache.Load(key); ok {
		return v.(string), nil
	}
	p, err := lookupPython(module, candidates)
	if err == nil {
		pythonCache.Store(key, p)
	}
	return p, err
}

// pythonCache remembers interpreters found by findPython.
var pythonCache sync.Map

func lookupPython(module string, candidates []string) (string, error) {
	if len(candidates) == 0 {
		candidates = []string{"python3", "/usr/bin/python3"}
	}
	code := "import sys; print(sys.executable)"
	if module != "" {
		code = "import " + module + "; " + code
	}
	var tried []string
	for _, c := range candidates {
		out, err := exec.Command(c, "-c", code).Output()
		if err != nil {
			tried = append(tried, c)
			continue
		}
		if p := strings.TrimSpace(string(out)); p != "" {
			return p, nil
		}
	}
	what := "python3"
	if module != "" {
		what = "python3 with " + module
	}
	return "", fmt.Errorf("%s not found (tried %s): %w", what, strings.Join(tried, ", "), errs.ErrUnavailable)
}

// UnittestRunner runs Python tests with `python -m unittest -v` and reads
// the outcomes from its verbose output. Test names in any spelling TestKey
// knows are passed as dotted unittest ids.
type UnittestRunner struct {
	// Python is the interpreter; empty means python3 resolved on PATH.
	Python string
	Options
}

// NewUnittestRunner resolves the interpreter.
func NewUnittestRunner(opts Options) (*UnittestRunner, error) {
	py, err := findPython("")
	if err != nil {
		return nil, fmt.Errorf("unittest runner: %w", err)
	}
	return &UnittestRunner{Python: py, Options: opts}, nil
}

// Run implements Runner.
func (r *UnittestRunner) Run(ctx context.Context, dir string, tests []string) ([]TestResult, error) {
	py := r.Python
	if py == "" {
		var err error
		if py, err = findPython(""); err != nil {
			return nil, fmt.Errorf("unittest runner: %w", err)
		}
	}
	argv := []string{py, "-m", "unittest", "-v"}
	for _, t := range tests {
		argv = append(argv, strings.Join(TestKey(t), "."))
	}
	res, _, cleanup, err := r.run(ctx, fixed(argv), dir)
	if err != nil {
		return nil, fmt.Errorf("unittest runner: %w", err)
	}
	defer cleanup()
	return matchCases(tests, ParseUnittest(res.Stderr), res, r.timeout()), nil
}

var (
	unittestLine   = regexp.MustCompile(`^(\S+) \(([\w.]+)\)(?: \[.*\])?(.*)$`)
	unittestBlock  = regexp.MustCompile(`^(FAIL|ERROR|UNEXPECTED SUCCESS): (\S+) \(([\w.]+)\)`)
	unittestStatus = []struct {
		prefix string
		status Status
	}{
		{"ok", StatusPassed}, {"expected failure", StatusPassed},
		{"FAIL", StatusFailed}, {"unexpected success", StatusFailed},
		{"ERROR", StatusError}, {"skipped", StatusSkipped},
	}
)

func parseStatus(s string) (Status, bool) {
	s = strings.TrimSpace(s)
	for _, st := range unittestStatus {
		if s == st.prefix || strings.HasPrefix(s, st.prefix+" ") {
			return st.status, true
		}
	}
	return "", false
}

// ParseUnittest reads `python -m unittest -v` output (stderr): one Case per
// "name (module.Class) ... status" line — the status may follow a docstring
// line or output the test printed — with the last line of the test's
// FAIL/ERROR traceback block as Message.
func ParseUnittest(out []byte) []Case {
	lines := strings.Split(strings.ReplaceAll(string(out), "\r\n", "\n"), "\n")
	p := &unittestParser{index: map[string]int{}, pending: -1}
	for i := 0; i < len(lines); i++ {
		if next, ok := p.block(lines, i); ok {
			i = next - 1
			continue
		}
		if !p.caseLine(lines[i]) {
			p.status(lines[i])
		}
	}
	kept := p.cases[:0]
	for _, c := range p.cases {
		if c.Status != "" {
			kept = append(kept, c)
		}
	}
	return kept
}

// unittestParser is ParseUnittest's state: the cases so far, by id, and
// the one awaiting its status (-1: none).
type unittestParser struct {
	cases   []Case
	index   map[string]int
	pending int
}

// block reads the FAIL/ERROR traceback block at lines[i] (a "=====" line
// then its header): its last line is its case's Message. ok is false when
// no block starts there; next is the index where it ends.
func (p *unittestParser) block(lines []string, i int) (next int, ok bool) {
	if !strings.HasPrefix(lines[i], "=====") || i+1 >= len(lines) {
		return 0, false
	}
	m := unittestBlock.FindStringSubmatch(lines[i+1])
	if m == nil {
		return 0, false
	}
	msg, next := blockMessage(lines, i+2)
	if j, ok := p.index[caseID(m[2], m[3])]; ok && p.cases[j].Message == "" {
		p.cases[j].Message = msg
	}
	p.pending = -1
	return next, true
}

// caseLine reads a "name (module.Class) ... status" line, the status
// possibly still to come; it reports whether the line is one.
func (p *unittestParser) caseLine(line string) bool {
	m := unittestLine.FindStringSubmatch(line)
	if m == nil || strings.HasPrefix(line, "FAIL:") || strings.HasPrefix(line, "ERROR:") {
		return false
	}
	id := caseID(m[1], m[2])
	st, hasStatus := statusAfterDots(m[3])
	if j, ok := p.index[id]; ok && p.cases[j].Status != "" {
		// a subTest line for a test already seen: keep the worst
		if hasStatus && st != StatusPassed {
			p.cases[j].Status = st
		}
		return true
	}
	p.index[id] = len(p.cases)
	p.cases = append(p.cases, Case{Name: m[1], Class: strings.TrimSuffix(m[2], "."+m[1])})
	p.pending = len(p.cases) - 1
	if hasStatus {
		p.cases[p.pending].Status = st
		p.pending = -1
	}
	return true
}

// statusAfterDots is the status after the last " ... " of rest.
func statusAfterDots(rest string) (Status, bool) {
	k := strings.LastIndex(rest, " ... ")
	if k < 0 {
		return "", false
	}
	return parseStatus(rest[k+5:])
}

// status reads a line that may carry the pending case's status: after a
// docstring line or output the test printed, alone or after " ... ".
func (p *unittestParser) status(line string) {
	if p.pending < 0 {
		return
	}
	s := line
	if k := strings.LastIndex(s, " ... "); k >= 0 {
		s = s[k+5:]
	}
	if st, ok := parseStatus(s); ok {
		p.cases[p.pending].Status = st
		p.pending = -1
	}
}

func caseID(name, class string) string {
	return name + " " + strings.TrimSuffix(class, "."+name)
}

// blockMessage returns the last non-blank line of a traceback block that
// starts at lines[from] (after the "FAIL: ..." header and its dashes) and
// the index where the block ends.
func blockMessage(lines []string, from int) (string, int) {
	i := from
	if i < len(lines) && strings.HasPrefix(lines[i], "-----") {
		i++
	}
	msg := ""
	for ; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "=====") || strings.HasPrefix(lines[i], "-----") {
			break
		}
		if l := strings.TrimSpace(lines[i]); l != "" {
			msg = l
		}
	}
	return oneLine(msg, 200), i
}

// PytestRunner runs Python tests with `python -m pytest`, writing a JUnit
// XML report into the run's private temp dir and reading the outcomes from
// it. Test names are passed as given (pytest node ids).
type PytestRunner struct {
	// Python is an interpreter that can import pytest.
	Python string
	Options
}

// NewPytestRunner finds an interpreter with pytest (python3 on PATH, then
// /usr/bin/python3). Without one it returns an error wrapping
// errs.ErrUnavailable; on Debian/Ubuntu the package is python3-pytest.
func NewPytestRunner(opts Options) (*PytestRunner, error) {
	py, err := findPython("pytest")
	if err != nil {
		return nil, fmt.Errorf("pytest runner (Debian: apt-get install python3-pytest): %w", err)
	}
	return &PytestRunner{Python: py, Options: opts}, nil
}

// Run implements Runner.
func (r *PytestRunner) Run(ctx context.Context, dir string, tests []string) ([]TestResult, error) {
	if r.Python == "" {
		return nil, fmt.Errorf("pytest runner: no interpreter configured (use NewPytestRunner): %w", errs.ErrUsage)
	}
	ids := make([]string, len(tests))
	for i, t := range tests {
		ids[i] = PytestID(dir, t)
	}
	argv := func(tmp string) []string {
		return append([]string{r.Python, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-o", "junit_family=xunit1",
			"--junitxml=" + filepath.Join(tmp, "pytest-junit.xml")}, ids...)
	}
	res, tmp, cleanup, err := r.run(ctx, argv, dir)
	if err != nil {
		return nil, fmt.Errorf("pytest runner: %w", err)
	}
	defer cleanup()
	cases, err := readReports(tmp, "pytest-junit.xml")
	if err != nil {
		return nil, fmt.Errorf("pytest runner: %w", err)
	}
	if len(cases) == 0 && bytes.Contains(res.Stderr, []byte("No module named pytest")) {
		return nil, fmt.Errorf("pytest runner: %s cannot import pytest: %w", r.Python, errs.ErrUnavailable)
	}
	return matchCases(tests, cases, res, r.timeout()), nil
}

// PytestID turns a test name into a pytest node id for the tree at dir:
// names with "::" or "/" are node ids already; a dotted or unittest-style
// name is split at the longest module prefix that is a .py file under dir
// ("pkg.test_x.TestC.test_m" → "pkg/test_x.py::TestC::test_m"). A name
// whose module is not found is returned unchanged.
func PytestID(dir, name string) string {
	if strings.Contains(name, "::") || strings.Contains(name, "/") {
		return name
	}
	k := TestKey(name)
	for i := len(k); i >= 1; i-- {
		file := filepath.Join(k[:i]...) + ".py"
		if exists(dir, file) {
			return strings.Join(append([]string{filepath.ToSlash(file)}, k[i:]...), "::")
		}
	}
	return name
}
