package testverify

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
)

// javaTool finds a build tool on PATH.
func javaTool(name string) (string, error) {
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s is not installed; install it or pass a test command: %w", name, errs.ErrUnavailable)
	}
	return p, nil
}

// classMethods groups Java test names by class: "org.Foo::testA",
// "org.Foo#testB", "org.Foo.testC" (when the last component starts lower
// case) and a bare class "org.Bar" → {org.Foo: [testA testB testC], org.Bar: []}.
func classMethods(tests []string) ([]string, map[string][]string) {
	by := map[string][]string{}
	var order []string
	for _, t := range tests {
		k := TestKey(t)
		if len(k) == 0 {
			continue
		}
		cls, method := classMethod(t, k)
		if _, ok := by[cls]; !ok {
			order = append(order, cls)
			by[cls] = nil
		}
		if method != "" {
			by[cls] = append(by[cls], method)
		}
	}
	return order, by
}

// classMethod splits test t (its key k) into a class and a method: the
// last component is a method when t names one with :: or #, or when it
// starts lower case; a bare class has no method.
func classMethod(t string, k []string) (cls, method string) {
	last := k[len(k)-1]
	if len(k) > 1 && (strings.Contains(t, "::") || strings.Contains(t, "#") || (last != "" && last[0] >= 'a' && last[0] <= 'z')) {
		return strings.Join(k[:len(k)-1], "."), last
	}
	return strings.Join(k, "."), ""
}

// surefireSelector is Surefire's -Dtest value: "C1#m1+m2,C2".
func surefireSelector(tests []string) string {
	order, by := classMethods(tests)
	parts := make([]string, 0, len(order))
	for _, c := range order {
		if ms := by[c]; len(ms) > 0 {
			parts = append(parts, c+"#"+strings.Join(ms, "+"))
		} else {
			parts = append(parts, c)
		}
	}
	return strings.Join(parts, ",")
}

// findReports parses every TEST-*.xml under a directory named dirName
// anywhere below root (multi-module builds), skipping .git.
func findReports(root, dirName string) ([]Case, error) {
	var out []Case
	for _, f := range reportFiles(root, dirName) {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		cases, err := ParseJUnit(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, cases...)
	}
	return out, nil
}

// reportFiles is the TEST-*.xml files under a directory named dirName
// ("": any) below root, skipping .git, in path order.
func reportFiles(root, dirName string) []string {
	var files []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), "TEST-") && strings.HasSuffix(d.Name(), ".xml") &&
			(dirName == "" || strings.Contains(filepath.ToSlash(p), "/"+dirName+"/")) {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return files
}

// userDir is a directory in the invoking user's real home (tests run with
// HOME pointed elsewhere, so build caches must be passed explicitly).
func userDir(parts ...string) string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(append([]string{home}, parts...)...)
}

// MavenRunner runs `mvn test -Dtest=Class#method+...` and reads Surefire's
// XML reports. Without network (the default) Maven runs offline (-o) against
// the invoking user's ~/.m2/repository, so plugins and dependencies must
// already be there.
type MavenRunner struct {
	Mvn       string   // the mvn executable
	RepoLocal string   // local repository; empty: ~/.m2/repository
	Args      []string // extra arguments before the "test" goal
	Options
}

// NewMavenRunner finds mvn on PATH.
func NewMavenRunner(opts Options) (*MavenRunner, error) {
	mvn, err := javaTool("mvn")
	if err != nil {
		return nil, fmt.Errorf("maven runner: %w", err)
	}
	return &MavenRunner{Mvn: mvn, RepoLocal: userDir(".m2", "repository"), Options: opts}, nil
}

// Argv is the command line for tests.
func (r *MavenRunner) Argv(tests []string) []string {
	argv := []string{r.Mvn, "-B", "-Dtest=" + surefireSelector(tests), "-DfailIfNoTests=false",
		"-Dsurefire.failIfNoSpecifiedTests=false", "-DtrimStackTrace=true"}
	if !r.AllowNetwork {
		argv = append(argv, "-o")
	}
	if r.RepoLocal != "" {
		argv = append(argv, "-Dmaven.repo.local="+r.RepoLocal)
	}
	return append(append(argv, r.Args...), "test")
}

// Run implements Runner.
func (r *MavenRunner) Run(ctx context.Context, dir string, tests []string) ([]TestResult, error) {
	return runJava(ctx, "maven runner", r.Options, r.Argv(tests), dir, "surefire-reports", tests)
}

// GradleRunner runs `gradle test --tests Class.method ...` and reads the
// XML reports under build/test-results. Without network it runs --offline
// with the invoking user's ~/.gradle as GRADLE_USER_HOME.
type GradleRunner struct {
	Gradle   string
	UserHome string // GRADLE_USER_HOME; empty: ~/.gradle
	Args     []string
	Options
}

// NewGradleRunner finds gradle on PATH (a repository's ./gradlew would
// download a distribution, which the sandbox's missing network forbids).
func NewGradleRunner(opts Options) (*GradleRunner, error) {
	g, err := javaTool("gradle")
	if err != nil {
		return nil, fmt.Errorf("gradle runner: %w", err)
	}
	return &GradleRunner{Gradle: g, UserHome: userDir(".gradle"), Options: opts}, nil
}

// Argv is the command line for tests.
func (r *GradleRunner) Argv(tests []string) []string {
	argv := []string{r.Gradle, "--no-daemon", "test"}
	if !r.AllowNetwork {
		argv = append(argv, "--offline")
	}
	order, by := classMethods(tests)
	for _, c := range order {
		if len(by[c]) == 0 {
			argv = append(argv, "--tests", c)
		}
		for _, m := range by[c] {
			argv = append(argv, "--tests", c+"."+m)
		}
	}
	return append(argv, r.Args...)
}

// Run implements Runner.
func (r *GradleRunner) Run(ctx context.Context, dir string, tests []string) ([]TestResult, error) {
	opts := r.Options
	if r.UserHome != "" {
		opts.Env = append([]string{"GRADLE_USER_HOME=" + r.UserHome}, opts.Env...)
	}
	return runJava(ctx, "gradle runner", opts, r.Argv(tests), dir, "test-results", tests)
}

// AntRunner runs an Ant target (default "test") — Ant has no standard way
// to select tests, so the whole target runs — and reads every TEST-*.xml
// report below the work tree (the <junit> task's XML formatter).
type AntRunner struct {
	Ant    string
	Target string
	Args   []string
	Options
}

// NewAntRunner finds ant on PATH.
func NewAntRunner(opts Options) (*AntRunner, error) {
	a, err := javaTool("ant")
	if err != nil {
		return nil, fmt.Errorf("ant runner: %w", err)
	}
	return &AntRunner{Ant: a, Target: "test", Options: opts}, nil
}

// Argv is the command line.
func (r *AntRunner) Argv() []string {
	t := r.Target
	if t == "" {
		t = "test"
	}
	return append(append([]string{r.Ant}, r.Args...), t)
}

// Run implements Runner.
func (r *AntRunner) Run(ctx context.Context, dir string, tests []string) ([]TestResult, error) {
	return runJava(ctx, "ant runner", r.Options, r.Argv(), dir, "", tests)
}

func runJava(ctx context.Context, what string, opts Options, argv []string, dir, reportDir string, tests []string) ([]TestResult, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, fmt.Errorf("%s: no executable configured: %w", what, errs.ErrUsage)
	}
	if opts.MemoryBytes == 0 {
		opts.MemoryBytes = 8 << 30 // build tools fork JVMs; RLIMIT_DATA counts each process
	}
	res, _, cleanup, err := opts.run(ctx, fixed(argv), dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer cleanup()
	cases, err := findReports(dir, reportDir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return matchCases(tests, cases, res, opts.timeout()), nil
}
