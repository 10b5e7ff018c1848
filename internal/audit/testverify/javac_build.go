package testverify

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/sandbox"
)

// javacFlags are the flags of every javac run: old projects warn a lot
// (-nowarn), annotation processors on the class path must not run
// (-proc:none), and the heap must hold a few hundred sources at once.
func (b *javacBuild) javacFlags(dst string) []string {
	return []string{b.r.Javac, "-J-Xmx2g", "-nowarn", "-proc:none", "-encoding", b.lay.Encoding,
		"--release", b.lay.Release, "-d", dst}
}

// compileMain compiles every main source (and expanded template) into
// out/main; a project without main sources compiles trivially.
func (b *javacBuild) compileMain(ctx context.Context) (sandbox.Result, error) {
	var files []string
	for _, root := range append(append([]string(nil), b.lay.Main...), b.rel("gen")) {
		files = append(files, filesWithSuffix(b.dir, root, ".java", b.lay.Test)...)
	}
	if len(files) == 0 {
		return sandbox.Result{}, nil
	}
	argv := append(b.javacFlags(b.rel("main")), "-cp", strings.Join(b.jars, ":"))
	return b.javac(ctx, "main", argv, files)
}

// compileTests compiles the requested test classes and the JUnit driver
// into out/test, with the test roots on -sourcepath (and the main roots
// too when the main sources did not all compile), so javac compiles only
// what those classes reach.
func (b *javacBuild) compileTests(ctx context.Context, reqs []javaTest) (sandbox.Result, error) {
	files := []string{b.rel("runner", junitRunnerClass+".java")}
	for _, t := range reqs {
		if t.file != "" && !slices.Contains(files, t.file) {
			files = append(files, t.file)
		}
	}
	srcPath := append([]string(nil), b.lay.Test...)
	cp := b.jars
	if b.mainOK {
		cp = append([]string{b.rel("main")}, cp...)
	} else {
		srcPath = append(append(srcPath, b.lay.Main...), b.rel("gen"))
	}
	argv := append(b.javacFlags(b.rel("test")), "-cp", strings.Join(cp, ":"), "-sourcepath", strings.Join(srcPath, ":"))
	return b.javac(ctx, "test", argv, files)
}

// javac runs argv with the files in an argument file (javac's @file:
// quoted, so paths with spaces survive, and no command-line length limit).
func (b *javacBuild) javac(ctx context.Context, what string, argv, files []string) (sandbox.Result, error) {
	var args strings.Builder
	for _, f := range files {
		args.WriteString(`"` + strings.ReplaceAll(strings.ReplaceAll(f, `\`, `\\`), `"`, `\"`) + "\"\n")
	}
	argFile := filepath.Join(b.out, what+".args")
	if err := os.WriteFile(argFile, []byte(args.String()), 0o644); err != nil {
		return sandbox.Result{}, fmt.Errorf("javac runner: %v: %w", err, errs.ErrUnavailable)
	}
	res, _, cleanup, err := b.opts().run(ctx, fixed(append(argv, "@"+b.rel(what+".args"))), b.dir)
	if err != nil {
		return res, fmt.Errorf("javac runner: javac %s: %w", what, err)
	}
	cleanup()
	return res, nil
}

// classDir is where the main classes are: out/main, or out/test when
// they were compiled with the tests.
func (b *javacBuild) classDir() string {
	if b.mainOK {
		return b.rel("main")
	}
	return b.rel("test")
}

// generateZones compiles Joda-Time's time-zone database, which its Maven
// and Ant builds do after compiling (the ZoneInfoCompiler writes
// org/joda/time/tz/data; without it every zone but UTC is unknown). Other
// projects have no such class and skip this.
func (b *javacBuild) generateZones(ctx context.Context) (sandbox.Result, error) {
	const pkg = "org/joda/time/tz"
	if !fileExists(filepath.Join(b.dir, b.classDir(), pkg, "ZoneInfoCompiler.class")) {
		return sandbox.Result{}, nil
	}
	var src string
	for _, root := range b.lay.Main {
		if isDir(b.dir, filepath.Join(root, pkg, "src")) {
			src = filepath.Join(root, pkg, "src")
		}
	}
	if src == "" {
		return sandbox.Result{}, nil
	}
	dst := filepath.Join(b.classDir(), pkg, "data")
	if err := os.MkdirAll(filepath.Join(b.dir, dst), 0o755); err != nil {
		return sandbox.Result{}, fmt.Errorf("javac runner: zone data: %v: %w", err, errs.ErrUnavailable)
	}
	ents, _ := os.ReadDir(filepath.Join(b.dir, src))
	argv := []string{b.r.Java, "-cp", strings.Join(append([]string{b.classDir()}, b.jars...), ":"),
		"-Dorg.joda.time.DateTimeZone.Provider=org.joda.time.tz.UTCProvider",
		"org.joda.time.tz.ZoneInfoCompiler", "-src", src, "-dst", dst}
	for _, e := range ents {
		if !e.IsDir() && !strings.Contains(e.Name(), ".") {
			argv = append(argv, e.Name())
		}
	}
	res, _, cleanup, err := b.opts().run(ctx, fixed(argv), b.dir)
	if err != nil {
		return res, fmt.Errorf("javac runner: zone compiler: %w", err)
	}
	cleanup()
	return res, nil
}

// runTests runs the requested tests in one JVM with the driver and reads
// its result file.
func (b *javacBuild) runTests(ctx context.Context, reqs []javaTest) ([]TestResult, error) {
	cp := []string{b.rel("test")}
	if b.mainOK {
		cp = append(cp, b.rel("main"))
	}
	cp = append(append(append(cp, b.lay.Resources...), b.lay.Test...), b.lay.Main...)
	results := b.rel("results.tsv")
	argv := append(append([]string{b.r.Java}, javaRunFlags...), "-cp", strings.Join(append(cp, b.jars...), ":"), junitRunnerClass, results)
	for _, t := range reqs {
		argv = append(argv, t.arg)
	}
	_ = os.Remove(filepath.Join(b.dir, results))
	res, _, cleanup, err := b.opts().run(ctx, fixed(argv), b.dir)
	if err != nil {
		return nil, fmt.Errorf("javac runner: java: %w", err)
	}
	cleanup()
	lines, _ := os.ReadFile(filepath.Join(b.dir, results))
	return b.judge(reqs, parseRunnerLines(lines), res), nil
}

// parseRunnerLines reads the driver's "test TAB STATUS TAB detail" lines.
func parseRunnerLines(data []byte) map[string][2]string {
	out := map[string][2]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), "\t", 3)
		if len(parts) == 3 {
			out[parts[0]] = [2]string{parts[1], parts[2]}
		}
	}
	return out
}

// judge turns the driver's lines into results: a test without a line
// (the JVM died or timed out before it) did not run, or timed out.
func (b *javacBuild) judge(reqs []javaTest, lines map[string][2]string, res sandbox.Result) []TestResult {
	out := make([]TestResult, 0, len(reqs))
	for _, t := range reqs {
		l, ok := lines[t.arg]
		switch {
		case !ok && res.TimedOut:
			out = append(out, TestResult{Name: t.name, TimedOut: true, Detail: "timed out after " + durationText(b.opts().timeout())})
		case !ok:
			out = append(out, TestResult{Name: t.name, NotRun: true, Detail: "the test JVM wrote no result for it",
				Exit: res.ExitCode, Tail: outputTail(res.Stdout, res.Stderr)})
		case l[0] == "PASS":
			out = append(out, TestResult{Name: t.name, Passed: true})
		case l[0] == "MISSING":
			out = append(out, TestResult{Name: t.name, Detail: "no such test: " + l[1]})
		case l[0] == "IGNORED":
			out = append(out, TestResult{Name: t.name, Detail: "skipped: " + l[1]})
		default:
			out = append(out, TestResult{Name: t.name, Detail: l[1]})
		}
	}
	return out
}

// rel is a path below the output directory, relative to the work tree
// (every process runs there).
func (b *javacBuild) rel(parts ...string) string {
	return filepath.ToSlash(filepath.Join(append([]string{javacOutName}, parts...)...))
}
