package testverify

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/sandbox"
)

// Defaults for Options.
const (
	DefaultTimeout = 10 * time.Minute
	DefaultMemory  = 4 << 30
)

// Options configure how runners execute tests in the sandbox.
type Options struct {
	// Timeout bounds each sandboxed run (one per test in per-test mode);
	// 0 means DefaultTimeout.
	Timeout time.Duration
	// MemoryBytes caps each run (RLIMIT_DATA); 0 means DefaultMemory,
	// negative means no cap.
	MemoryBytes int64
	// AllowNetwork lets tests reach the network (they are isolated by
	// default where the OS allows).
	AllowNetwork bool
	// Env holds KEY=VALUE entries passed to the tests unscrubbed.
	Env []string
	// MaxOutput caps the bytes kept of each output stream; 0 means the
	// sandbox default.
	MaxOutput int
}

func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

func (o Options) spec(argv []string, dir, tmp string) sandbox.Spec {
	mem := o.MemoryBytes
	if mem == 0 {
		mem = DefaultMemory
	} else if mem < 0 {
		mem = 0
	}
	return sandbox.Spec{
		Argv: argv, Dir: dir, Env: o.Env, Timeout: o.timeout(), MemoryBytes: mem,
		NoNetwork: !o.AllowNetwork, MaxOutput: o.MaxOutput, TempDir: tmp,
		// The suite builds in its work tree; the rest of the disk is
		// read-only to it.
		Writable: []string{dir},
	}
}

// run executes argv(tmp) in the sandbox, where tmp is a fresh private dir
// (HOME, TMPDIR) that the caller may read until it calls cleanup.
func (o Options) run(ctx context.Context, argv func(tmp string) []string, dir string) (sandbox.Result, string, func(), error) {
	tmp, cleanup, err := sandbox.MkdirTemp("benchforge-tests-*")
	if err != nil {
		return sandbox.Result{}, "", nil, err
	}
	res, err := sandbox.Run(ctx, o.spec(argv(tmp), dir, tmp))
	if err != nil {
		cleanup()
		return res, "", nil, err
	}
	return res, tmp, cleanup, nil
}

// fixed adapts a ready argv to Options.run.
func fixed(argv []string) func(string) []string { return func(string) []string { return argv } }

// CommandRunner runs a user-supplied argv template. Placeholders:
//
//	{tests}  a whole word: replaced by the requested tests as separate words;
//	         one run for all tests
//	{test}   inside any word: one run per test (pass = exit status 0)
//	{dir}    inside any word: the work tree's absolute path
//
// A template with neither {test} nor {tests} runs once. In a single run,
// per-test outcomes come from the JUnit XML reports matched by JUnitXML;
// without it, exit status 0 passes every test and any other status fails
// them all (the Detail says why).
type CommandRunner struct {
	Argv []string
	// JUnitXML is a glob, relative to the work tree unless absolute ({dir}
	// allowed), of the JUnit XML reports a single run writes.
	JUnitXML string
	Options
}

// ParseCommand splits template into words the way a POSIX shell would
// (single and double quotes, backslash escapes; no expansions, no
// operators) and validates its placeholders.
func ParseCommand(template string, opts Options) (*CommandRunner, error) {
	argv, err := SplitWords(template)
	if err != nil {
		return nil, err
	}
	r := &CommandRunner{Argv: argv, Options: opts}
	if err := r.validate(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *CommandRunner) validate() error {
	if len(r.Argv) == 0 || r.Argv[0] == "" {
		return fmt.Errorf("test command: empty: %w", errs.ErrUsage)
	}
	one, all := false, false
	for _, w := range r.Argv {
		if strings.Contains(w, "{test}") {
			one = true
		}
		if strings.Contains(w, "{tests}") {
			if w != "{tests}" {
				return fmt.Errorf("test command: {tests} must be a word of its own, not part of %q (use {test} for one run per test): %w", w, errs.ErrUsage)
			}
			all = true
		}
	}
	if one && all {
		return fmt.Errorf("test command %q: use either {test} or {tests}, not both: %w", strings.Join(r.Argv, " "), errs.ErrUsage)
	}
	return nil
}

func (r *CommandRunner) perTest() bool {
	for _, w := range r.Argv {
		if strings.Contains(w, "{test}") {
			return true
		}
	}
	return false
}

// expand builds one argv from the template.
func (r *CommandRunner) expand(dir string, tests []string, test string) []string {
	var out []string
	for _, w := range r.Argv {
		if w == "{tests}" {
			out = append(out, tests...)
			continue
		}
		w = strings.ReplaceAll(w, "{dir}", dir)
		w = strings.ReplaceAll(w, "{test}", test)
		out = append(out, w)
	}
	return out
}

// Run implements Runner.
func (r *CommandRunner) Run(ctx context.Context, dir string, tests []string) ([]TestResult, error) {
	if err := r.validate(); err != nil {
		return nil, err
	}
	if r.perTest() {
		return r.runEach(ctx, dir, tests)
	}
	if r.JUnitXML != "" {
		if err := removeReports(dir, r.JUnitXML); err != nil {
			return nil, err
		}
	}
	res, _, cleanup, err := r.run(ctx, fixed(r.expand(dir, tests, "")), dir)
	if err != nil {
		return nil, fmt.Errorf("test command: %w", err)
	}
	defer cleanup()
	if r.JUnitXML == "" {
		return r.sharedExit(tests, res), nil
	}
	cases, err := readReports(dir, strings.ReplaceAll(r.JUnitXML, "{dir}", dir))
	if err != nil {
		return nil, err
	}
	return matchCases(tests, cases, res, r.timeout()), nil
}

// runEach runs the command once per test ({test}), each decided by its
// exit status.
func (r *CommandRunner) runEach(ctx context.Context, dir string, tests []string) ([]TestResult, error) {
	out := make([]TestResult, 0, len(tests))
	for _, t := range tests {
		res, _, cleanup, err := r.run(ctx, fixed(r.expand(dir, tests, t)), dir)
		if err != nil {
			return nil, fmt.Errorf("test command for %s: %w", t, err)
		}
		cleanup()
		out = append(out, r.exitResult(t, res))
	}
	return out, nil
}

// sharedExit decides every test by the exit status of the one run for
// all of them (no JUnit XML report), saying so on a failure.
func (r *CommandRunner) sharedExit(tests []string, res sandbox.Result) []TestResult {
	out := make([]TestResult, 0, len(tests))
	for _, t := range tests {
		tr := r.exitResult(t, res)
		if !tr.Passed && !tr.TimedOut && !tr.NotRun {
			tr.Detail = fmt.Sprintf("command exited %d (one run for all tests: per-test outcomes need {test} or a JUnit XML report); %s", res.ExitCode, tr.Detail)
		}
		out = append(out, tr)
	}
	return out
}

// exitResult is exitResult, with pytest's "not found" (4) and "no tests
// collected" (5) exit statuses meaning the test did not run.
func (r *CommandRunner) exitResult(name string, res sandbox.Result) TestResult {
	tr := exitResult(name, res, r.timeout())
	if (res.ExitCode == 4 || res.ExitCode == 5) && !res.TimedOut && r.isPytest() {
		tr.NotRun = true
		tr.Detail = fmt.Sprintf("not collected or run (pytest exit status %d: %s)", res.ExitCode, lastLine(res.Stderr, res.Stdout))
	}
	if !tr.Passed {
		tr.Exit, tr.Tail = res.ExitCode, outputTail(res.Stdout, res.Stderr)
	}
	return tr
}

// isPytest reports whether the command runs pytest.
func (r *CommandRunner) isPytest() bool {
	for _, w := range r.Argv {
		if strings.Contains(filepath.Base(w), "pytest") {
			return true
		}
	}
	return false
}

// outputTail is the last lines of a run's output (stdout, then stderr),
// at most 600 bytes, for the record.
func outputTail(streams ...[]byte) string {
	var b []byte
	for _, s := range streams {
		if t := bytes.TrimSpace(s); len(t) > 0 {
			b = append(append(b, t...), '\n')
		}
	}
	b = bytes.TrimSpace(b)
	if len(b) > 600 {
		b = b[len(b)-600:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 && i < 200 {
			b = b[i+1:]
		}
		b = append([]byte("…"), b...)
	}
	return string(b)
}

// exitResult judges one test by its run's exit status.
func exitResult(name string, res sandbox.Result, timeout time.Duration) TestResult {
	switch {
	case res.TimedOut:
		return TestResult{Name: name, TimedOut: true, Detail: "timed out after " + durationText(timeout)}
	case res.OOM:
		return TestResult{Name: name, Detail: "ran out of memory"}
	case res.Success():
		return TestResult{Name: name, Passed: true}
	case res.Signal != "":
		return TestResult{Name: name, Detail: "killed by signal " + res.Signal}
	}
	return TestResult{Name: name, Detail: fmt.Sprintf("exit status %d: %s", res.ExitCode, lastLine(res.Stderr, res.Stdout))}
}

// lastLine is the last non-blank line of the first stream that has one.
func lastLine(streams ...[]byte) string {
	for _, s := range streams {
		lines := strings.Split(strings.TrimSpace(string(s)), "\n")
		if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
			return oneLine(l, 200)
		}
	}
	return "no output"
}

// removeReports deletes stale reports matching glob before a run.
func removeReports(dir, glob string) error {
	matches, err := filepath.Glob(reportGlob(dir, glob))
	if err != nil {
		return fmt.Errorf("JUnit XML glob %q: %v: %w", glob, err, errs.ErrUsage)
	}
	for _, m := range matches {
		_ = os.Remove(m)
	}
	return nil
}

func reportGlob(dir, glob string) string {
	glob = strings.ReplaceAll(glob, "{dir}", dir)
	if !filepath.IsAbs(glob) {
		glob = filepath.Join(dir, glob)
	}
	return glob
}

// SplitWords splits s into words like a POSIX shell without expanding
// anything: whitespace separates words; '...' is literal; "..." is literal
// except for \" \\ \$ \` and backslash-newline; an unquoted backslash
// quotes the next character. Unterminated quotes are an error.
func SplitWords(s string) ([]string, error) {
	w := &wordSplitter{s: s, rs: []rune(s)}
	for i := 0; i < len(w.rs); i++ {
		var err error
		if i, err = w.step(i); err != nil {
			return nil, err
		}
	}
	w.endWord()
	return w.words, nil
}

// wordSplitter is SplitWords' state: the words so far and the one being
// read.
type wordSplitter struct {
	s      string
	rs     []rune
	words  []string
	cur    strings.Builder
	inWord bool
}

// step reads the rune at i, and what it quotes, and returns the index of
// the last rune read.
func (w *wordSplitter) step(i int) (int, error) {
	switch c := w.rs[i]; c {
	case ' ', '\t', '\n', '\r':
		w.endWord()
		return i, nil
	case '\'':
		return w.singleQuoted(i)
	case '"':
		return w.doubleQuoted(i)
	case '\\':
		return w.backslash(i)
	default:
		w.cur.WriteRune(c)
		w.inWord = true
		return i, nil
	}
}

// endWord ends the word being read, if any.
func (w *wordSplitter) endWord() {
	if w.inWord {
		w.words = append(w.words, w.cur.String())
		w.cur.Reset()
		w.inWord = false
	}
}

// singleQuoted reads the literal '...' opened at i.
func (w *wordSplitter) singleQuoted(i int) (int, error) {
	w.inWord = true
	j := i + 1
	for j < len(w.rs) && w.rs[j] != '\'' {
		j++
	}
	if j >= len(w.rs) {
		return 0, fmt.Errorf("split %q: unterminated single quote at offset %d: %w", w.s, i, errs.ErrUsage)
	}
	w.cur.WriteString(string(w.rs[i+1 : j]))
	return j, nil
}

// doubleQuoted reads the "..." opened at i: literal but for \" \\ \$ \`
// and backslash-newline.
func (w *wordSplitter) doubleQuoted(i int) (int, error) {
	w.inWord = true
	rs := w.rs
	j := i + 1
	for ; j < len(rs) && rs[j] != '"'; j++ {
		if rs[j] == '\\' && j+1 < len(rs) && strings.ContainsRune("\"\\$`\n", rs[j+1]) {
			if rs[j+1] != '\n' {
				w.cur.WriteRune(rs[j+1])
			}
			j++
			continue
		}
		w.cur.WriteRune(rs[j])
	}
	if j >= len(rs) {
		return 0, fmt.Errorf("split %q: unterminated double quote at offset %d: %w", w.s, i, errs.ErrUsage)
	}
	return j, nil
}

// backslash reads the unquoted backslash at i, which quotes the next rune
// (a newline: a line continuation).
func (w *wordSplitter) backslash(i int) (int, error) {
	if i+1 >= len(w.rs) {
		return 0, fmt.Errorf("split %q: trailing backslash: %w", w.s, errs.ErrUsage)
	}
	i++
	if w.rs[i] != '\n' {
		w.cur.WriteRune(w.rs[i])
		w.inWord = true
	}
	return i, nil
}
