package testverify

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jdk"
	"github.com/benchforge/benchforge/internal/pom"
	"github.com/benchforge/benchforge/internal/sandbox"
)

// junitRunnerSource is the small JUnit 4 driver the javac runner compiles
// with the tests: it runs each requested method with JUnitCore and
// Request.method (JUnit 3 TestCases too) and writes one result line each.
//
//go:embed javarunner/BenchforgeJUnitRunner.java
var junitRunnerSource []byte

const junitRunnerClass = "BenchforgeJUnitRunner"

// Debian's jars: JUnit 4 and its Hamcrest are always on the class path;
// the libraries a pom names are looked up in Debian's Maven repository.
var (
	junitJars    = []string{"/usr/share/java/junit4.jar", "/usr/share/java/hamcrest-core.jar", "/usr/share/java/hamcrest-library.jar"}
	debianMaven  = "/usr/share/maven-repo"
	javacOutName = ".benchforge-javac"
)

// The JVM settings of a test run. Defects4J requires TZ=America/Los_Angeles
// (its README; several Time and Lang tests format dates in the default
// zone) and ran on Java 8: COMPAT locale data is Java 8's (JDK 9 switched
// the default to CLDR, which changes date and number formats the old tests
// assert), and the --add-opens give back the deep reflection into
// java.base that Java 8 allowed and JDK 17 refuses (reflection-based
// builders, mocking libraries).
var javaRunFlags = []string{
	"-Xmx2g", "-Xss4m", "-Djava.awt.headless=true",
	"-Duser.timezone=America/Los_Angeles", "-Duser.language=en", "-Duser.country=US",
	"-Djava.locale.providers=COMPAT,CLDR",
	"--add-opens=java.base/java.lang=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
	"--add-opens=java.base/java.lang.reflect=ALL-UNNAMED", "--add-opens=java.base/java.text=ALL-UNNAMED",
	"--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/java.math=ALL-UNNAMED",
	"--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
}

// JavacRunner builds a Java work tree without a build tool — javac on the
// production and test sources, JUnit 4 from Debian — and runs the
// requested test methods in one JVM. It is the Java runner where Maven or
// Gradle cannot run (no network to Maven Central, nothing in ~/.m2), as on
// Defects4J checkouts here. Every javac and java process runs in the
// sandbox with the work tree as its only writable directory.
//
// The build: the source roots come from pom.xml (sourceDirectory,
// testSourceDirectory, resources) or the usual layouts (src/main/java,
// src/java, src; src/test/java, src/test, test); the encoding from the pom,
// else UTF-8, with sources that are not valid UTF-8 read as ISO-8859-1
// (latin1ToUTF8). All main sources are compiled first (so classes that tests
// load by name exist); when that fails — a library the pom names that
// Debian lacks, say — the tests are compiled with the main and test roots
// on -sourcepath, which compiles only what the requested test classes
// reach. A test class compile error makes every test not run (the run is
// inconclusive) with javac's first errors in the record.
type JavacRunner struct {
	Javac, Java string
	// Jars are on every class path (JUnit 4, Hamcrest, jars of the work
	// tree's lib directory); the pom's dependencies found in MavenRepo are
	// added per work tree.
	Jars      []string
	MavenRepo string
	Options
}

// NewJavacRunner finds javac, java and JUnit 4.
func NewJavacRunner(opts Options) (*JavacRunner, error) {
	javac, err := jdk.Tool("javac")
	if err != nil {
		return nil, fmt.Errorf("javac runner: %w", err)
	}
	java, err := jdk.Tool("java")
	if err != nil {
		return nil, fmt.Errorf("javac runner: %w", err)
	}
	var jars []string
	for _, j := range junitJars {
		if _, err := os.Stat(j); err == nil {
			jars = append(jars, j)
		}
	}
	if len(jars) < 2 {
		return nil, fmt.Errorf("javac runner: JUnit 4 not found at %s: install it (apt-get install junit4): %w", strings.Join(junitJars[:2], ", "), errs.ErrUnavailable)
	}
	return &JavacRunner{Javac: javac, Java: java, Jars: jars, MavenRepo: debianMaven, Options: opts}, nil
}

// javaTest is one requested test: its name as requested, the runner's
// "Class::method" for it and the test class's source file ("" when no
// test root has it).
type javaTest struct {
	name, arg, file string
}

// javacBuild is one Run: the work tree, its layout and the output
// directories under dir/.benchforge-javac.
type javacBuild struct {
	r      *JavacRunner
	dir    string
	lay    javaLayout
	out    string
	jars   []string
	mainOK bool
}

// Run implements Runner.
func (r *JavacRunner) Run(ctx context.Context, dir string, tests []string) ([]TestResult, error) {
	if r.Javac == "" || r.Java == "" {
		return nil, fmt.Errorf("javac runner: no javac or java configured: %w", errs.ErrUsage)
	}
	b := &javacBuild{r: r, dir: dir, lay: readLayout(dir), out: filepath.Join(dir, javacOutName)}
	if len(b.lay.Test) == 0 {
		return notRunAll(tests, fmt.Sprintf("no test source root in %s (looked for a pom testSourceDirectory and %s)", dir, strings.Join(testRoots, ", ")), sandbox.Result{}), nil
	}
	b.jars = b.classpathJars()
	reqs := b.requests(tests)
	if err := b.prepare(); err != nil {
		return nil, fmt.Errorf("javac runner: %w", err)
	}
	res, ok, err := b.build(ctx, reqs)
	if err != nil {
		return nil, err
	}
	if !ok {
		return notRunAll(tests, "the build failed: "+javacErrors(res), res), nil
	}
	return b.runTests(ctx, reqs)
}

// build compiles the main sources (remembering whether that worked), the
// test classes with the runner, and runs the build's generators. ok is
// false, with the failing run's result, when the tests cannot be built.
func (b *javacBuild) build(ctx context.Context, reqs []javaTest) (sandbox.Result, bool, error) {
	res, err := b.compileMain(ctx)
	if err != nil {
		return res, false, err
	}
	b.mainOK = res.Success()
	if res, err = b.compileTests(ctx, reqs); err != nil || !res.Success() {
		return res, false, err
	}
	res, err = b.generateZones(ctx)
	return res, err == nil && res.Success(), err
}

// opts are the runner's sandbox options, with room for the JVM: javac
// and the test JVM reserve and map more than a script does (RLIMIT_DATA
// counts each mapping), as for the build tools' runs.
func (b *javacBuild) opts() Options {
	o := b.r.Options
	if o.MemoryBytes == 0 {
		o.MemoryBytes = 8 << 30
	}
	return o
}

// prepare makes the output directories, writes the JUnit driver, rewrites
// ISO-8859-1 sources of a UTF-8 build and expands Maven source templates
// (*.java.in) of the main roots into gen.
func (b *javacBuild) prepare() error {
	for _, d := range []string{"main", "test", "gen", "runner"} {
		if err := os.MkdirAll(filepath.Join(b.out, d), 0o755); err != nil {
			return fmt.Errorf("%v: %w", err, errs.ErrUnavailable)
		}
	}
	if err := os.WriteFile(filepath.Join(b.out, "runner", junitRunnerClass+".java"), junitRunnerSource, 0o644); err != nil {
		return fmt.Errorf("%v: %w", err, errs.ErrUnavailable)
	}
	if strings.EqualFold(strings.ReplaceAll(b.lay.Encoding, "-", ""), "UTF8") {
		latin1ToUTF8(b.dir, append(append([]string(nil), b.lay.Main...), b.lay.Test...))
	}
	for _, root := range b.lay.Main {
		for _, t := range filesWithSuffix(b.dir, root, ".java.in", b.lay.Test) {
			if err := b.expand(root, filepath.Join(b.dir, t)); err != nil {
				return err
			}
		}
	}
	return nil
}

// expand writes the filled template t (below root) into gen.
func (b *javacBuild) expand(root, t string) error {
	src, err := os.ReadFile(t)
	if err != nil {
		return fmt.Errorf("%v: %w", err, errs.ErrUnavailable)
	}
	rel, _ := filepath.Rel(filepath.Join(b.dir, root), t)
	dst := filepath.Join(b.out, "gen", strings.TrimSuffix(rel, ".in"))
	if _, err := os.Stat(filepath.Join(b.dir, root, strings.TrimSuffix(rel, ".in"))); err == nil {
		return nil // the source is checked in; the template is not used
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("%v: %w", err, errs.ErrUnavailable)
	}
	return os.WriteFile(dst, b.lay.expandTemplate(src, root, filepath.ToSlash(filepath.Join(root, rel))), 0o644)
}

// requests maps the requested names to the runner's Class::method and the
// test class's source file.
func (b *javacBuild) requests(tests []string) []javaTest {
	out := make([]javaTest, 0, len(tests))
	for _, t := range tests {
		k := TestKey(t)
		jt := javaTest{name: t}
		if len(k) > 0 {
			cls, method := classMethod(t, k)
			jt.arg = cls
			if method != "" {
				jt.arg = cls + "::" + method
			}
			jt.file = b.testFile(cls)
		}
		out = append(out, jt)
	}
	return out
}

// testFile is the source of class cls (an inner class's outer file) in
// the first test root that has it.
func (b *javacBuild) testFile(cls string) string {
	top, _, _ := strings.Cut(cls, "$")
	rel := strings.ReplaceAll(top, ".", "/") + ".java"
	for _, root := range b.lay.Test {
		if p := filepath.ToSlash(filepath.Join(root, rel)); fileExists(filepath.Join(b.dir, p)) {
			return p
		}
	}
	return ""
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// classpathJars is JUnit's jars, the pom dependencies Debian's Maven
// repository has and the jars of the work tree's lib directory (old
// projects such as Mockito 1 check their libraries in).
func (b *javacBuild) classpathJars() []string {
	jars := append([]string(nil), b.r.Jars...)
	for _, d := range b.lay.Deps {
		if j := debianJar(b.r.MavenRepo, d); j != "" && !slices.Contains(jars, j) {
			jars = append(jars, j)
		}
	}
	return append(jars, libJars(b.dir)...)
}

// debianJar is the jar of dependency d in Debian's Maven repository
// (<repo>/<group path>/<artifact>/<version>/<artifact>-<version>.jar),
// preferring the "debian" version link; "" when it has none. JUnit itself
// is already on the class path.
func debianJar(repo string, d pom.Dep) string {
	if repo == "" || d.GroupID == "" || d.ArtifactID == "" || d.ArtifactID == "junit" {
		return ""
	}
	base := filepath.Join(repo, filepath.FromSlash(strings.ReplaceAll(d.GroupID, ".", "/")), d.ArtifactID)
	jars, _ := filepath.Glob(filepath.Join(base, "*", d.ArtifactID+"-*.jar"))
	sort.Slice(jars, func(i, j int) bool {
		return strings.Contains(jars[i], "/debian/") && !strings.Contains(jars[j], "/debian/")
	})
	for _, j := range jars {
		if !strings.HasSuffix(j, "-sources.jar") && !strings.HasSuffix(j, "-javadoc.jar") {
			return j
		}
	}
	return ""
}

// libJars is the jars below dir/lib, except build-tool and source jars.
func libJars(dir string) []string {
	var out []string
	_ = filepath.WalkDir(filepath.Join(dir, "lib"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && (d.Name() == "build" || d.Name() == "sources") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".jar") && !strings.HasSuffix(p, "-sources.jar") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// notRunAll is every test not run, for a build that could not run them.
func notRunAll(tests []string, why string, res sandbox.Result) []TestResult {
	out := make([]TestResult, 0, len(tests))
	for _, t := range tests {
		out = append(out, TestResult{Name: t, NotRun: true, Detail: why, Exit: res.ExitCode, Tail: oneLine(why, 600)})
	}
	return out
}

// javacErrors is the head of a failed run's output: javac's first errors
// say what is missing, its last line how many there were.
func javacErrors(res sandbox.Result) string {
	out := bytes.TrimSpace(append(append([]byte(nil), res.Stderr...), res.Stdout...))
	if res.TimedOut {
		return "timed out"
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() && len(lines) < 6 {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	if all := strings.Split(string(out), "\n"); len(all) > len(lines) {
		lines = append(lines, "…", strings.TrimSpace(all[len(all)-1]))
	}
	return fmt.Sprintf("exit status %d: %s", res.ExitCode, strings.Join(lines, " | "))
}

// detectJava picks the Java runner for the work tree at dir: Maven for a
// pom.xml, Gradle for build.gradle(.kts), Ant for build.xml, each when the
// tool is installed and, for Maven and Gradle, can resolve its plugins
// (the network is allowed, or the user's ~/.m2/repository or ~/.gradle
// cache holds them: offline with an empty cache they fail before any
// test); otherwise the javac runner, which needs only a JDK and JUnit 4.
func detectJava(dir string, opts Options) (Runner, error) {
	switch {
	case exists(dir, "pom.xml") && toolUsable("mvn", opts, userDir(".m2", "repository")):
		return NewMavenRunner(opts)
	case (exists(dir, "build.gradle") || exists(dir, "build.gradle.kts")) && toolUsable("gradle", opts, userDir(".gradle", "caches")):
		return NewGradleRunner(opts)
	case exists(dir, "build.xml") && toolUsable("ant", opts, ""):
		return NewAntRunner(opts)
	}
	r, err := NewJavacRunner(opts)
	if err != nil {
		return nil, fmt.Errorf("detect test runner in %s: no usable Maven, Gradle or Ant, and %w", dir, err)
	}
	return r, nil
}

// toolUsable reports whether build tool name is installed and, when it
// needs a cache offline, the cache directory is not empty.
func toolUsable(name string, opts Options, cache string) bool {
	if _, err := javaTool(name); err != nil {
		return false
	}
	if cache == "" || opts.AllowNetwork {
		return true
	}
	ents, err := os.ReadDir(cache)
	return err == nil && len(ents) > 0
}
