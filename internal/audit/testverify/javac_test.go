package testverify

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo"
	"github.com/benchforge/benchforge/internal/gitrepo/gittest"
	"github.com/benchforge/benchforge/internal/sandbox"
	"github.com/benchforge/benchforge/internal/sandbox/sandboxtest"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// The Java fixture: demo.Calc whose add subtracts at the base commit; the
// fix commit corrects it and, as Defects4J fixes do, adds the trigger
// tests (CalcTest.testAdd, JUnit 4, and LegacyCalcTest, a JUnit 3
// TestCase). Calc.java is written in ISO-8859-1 (a "é" in a comment), as
// old Apache sources are.
const (
	javaCalcBuggy    = "package demo;\n\n/** Calc, caf\xe9 edition. */\npublic class Calc {\n    public static int add(int a, int b) {\n        return a - b;\n    }\n\n    public static int mul(int a, int b) {\n        return a * b;\n    }\n}\n"
	javaCalcTestBase = `package demo;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class CalcTest {
    @Test
    public void testMul() {
        assertEquals(6, Calc.mul(2, 3));
    }
}
`
	javaLegacyTest = `package demo;

import junit.framework.TestCase;

public class LegacyCalcTest extends TestCase {
    public void testAdd() {
        assertEquals(5, Calc.add(2, 3));
    }
}
`
	javaPom = `<project><modelVersion>4.0.0</modelVersion><groupId>demo</groupId><artifactId>calc</artifactId><version>1.0</version></project>`
)

func javaCalcTestFixed() string {
	return strings.Replace(javaCalcTestBase, "    @Test\n    public void testMul", "    @Test\n    public void testAdd() {\n        assertEquals(5, Calc.add(2, 3));\n    }\n\n    @Test\n    public void testMul", 1)
}

// javaCalc is Calc.java with add returning expr.
func javaCalc(expr string) string { return strings.Replace(javaCalcBuggy, "a - b", expr, 1) }

// javaCalcPatch is the diff from the buggy Calc.java to one whose add
// returns expr.
func javaCalcPatch(expr string) []byte {
	const p = "src/main/java/demo/Calc.java"
	return []byte("diff --git a/" + p + " b/" + p + "\n" + diff.Unified("a/"+p, "b/"+p, []byte(javaCalcBuggy), []byte(javaCalc(expr)), 3).String())
}

type javaFixture struct {
	repo   *gitrepo.Repo
	sample bench.Sample
}

// newJavaFixture builds the Java fixture in t.TempDir().
func newJavaFixture(t *testing.T) javaFixture {
	t.Helper()
	b := gittest.New(t)
	b.Write("pom.xml", javaPom)
	b.Write("src/main/java/demo/Calc.java", javaCalcBuggy)
	b.Write("src/test/java/demo/CalcTest.java", javaCalcTestBase)
	base := b.Commit("calc with a bug", gittest.Date(2013, 3, 1))
	b.Write("src/main/java/demo/Calc.java", javaCalc("a + b"))
	b.Write("src/test/java/demo/CalcTest.java", javaCalcTestFixed())
	b.Write("src/test/java/demo/LegacyCalcTest.java", javaLegacyTest)
	fix := b.Commit("fix add, with tests", gittest.Date(2013, 4, 1))
	repo, err := gitrepo.Open(context.Background(), b.CloneBare())
	testcheck.Must(t, err)
	t.Cleanup(func() { repo.Close() })
	return javaFixture{repo: repo, sample: bench.Sample{
		ID: "Calc-1", Benchmark: "defects4j", Repo: "example/calc", Language: "java",
		BaseCommit: base, FixCommit: fix, Patch: string(javaCalcPatch("a + b")),
		Tests: bench.Tests{FailToPass: []string{"demo.CalcTest::testAdd", "demo.LegacyCalcTest::testAdd"},
			PassToPass: []string{"demo.CalcTest::testMul"}},
	}}
}

func javacRunner(t *testing.T) *JavacRunner {
	t.Helper()
	r, err := NewJavacRunner(Options{Timeout: 3 * time.Minute})
	if err != nil {
		t.Skipf("javac runner unavailable: %v", err)
	}
	return r
}

// TestVerifyJavac: in the Defects4J-style buggy version (fix commit minus
// the gold patch, so the fix's new tests are there) the gold fix and an
// equivalent rewrite pass, a wrong fix fails its two trigger tests (JUnit
// 4 and JUnit 3) with the assertion, and the JUnit 4 test that was already
// passing still passes.
func TestVerifyJavac(t *testing.T) {
	f := newJavaFixture(t)
	v := &Verifier{Runner: javacRunner(t)} // one pair of controls for all three
	for _, tc := range []struct {
		expr, want string
		passed     bool
	}{
		{"a + b", "all 3 tests passed", true},
		{"b + a", "all 3 tests passed", true},
		{"a * b", "2 of 3 tests failed: demo.CalcTest::testAdd: java.lang.AssertionError: expected:<5> but was:<6> at demo.CalcTest.testAdd(CalcTest.java:", false},
	} {
		passed, detail, err := v.Verify(context.Background(), f.sample, f.repo, javaCalcPatch(tc.expr))
		testcheck.Must(t, err)
		if passed != tc.passed || !strings.HasPrefix(detail, tc.want) {
			t.Errorf("%s: Verify = %v, %q; want %v, %q…", tc.expr, passed, detail, tc.passed, tc.want)
		}
		if !tc.passed {
			testcheck.Contains(t, "JUnit 3 failure", detail, "demo.LegacyCalcTest::testAdd: junit.framework.AssertionFailedError: expected:<5> but was:<6>")
		}
	}
}

// TestJavacRunnerMissingTests: a test method or class that does not exist
// is failed with a detail saying so, not passed and not silently dropped.
func TestJavacRunnerMissingTests(t *testing.T) {
	f := newJavaFixture(t)
	dir := checkoutFixture(t, f, javaCalcPatch("a + b"))
	got, err := javacRunner(t).Run(context.Background(), dir, []string{"demo.CalcTest::testAdd", "demo.CalcTest::testNope", "demo.NoSuchTest::testX"})
	testcheck.Must(t, err)
	testcheck.Eq(t, "results", len(got), 3)
	testcheck.Eq(t, "testAdd passed", got[0].Passed, true)
	for _, r := range got[1:] {
		if r.Passed || r.NotRun || !strings.HasPrefix(r.Detail, "no such test: ") {
			t.Errorf("%s = %+v, want failed with a detail", r.Name, r)
		}
	}
	testcheck.Contains(t, "missing method", got[1].Detail, "No tests found matching Method testNope(demo.CalcTest)")
	testcheck.Contains(t, "missing class", got[2].Detail, "no test class demo.NoSuchTest")
}

// TestVerifyJavacCompileError: a modified patch that does not compile
// makes the run inconclusive, with javac's message in the detail; a gold
// patch that does not compile makes the control fail, also inconclusive.
func TestVerifyJavacCompileError(t *testing.T) {
	f := newJavaFixture(t)
	r := javacRunner(t)
	broken := javaCalcPatch("a + undefinedName")
	v := &Verifier{Runner: r}
	passed, detail, err := v.Verify(context.Background(), f.sample, f.repo, broken)
	testcheck.ErrIs(t, "modified patch does not compile", err, ErrInconclusive)
	testcheck.Eq(t, "passed", passed, false)
	testcheck.Contains(t, "javac message", detail, "src/main/java/demo/Calc.java:6: error: cannot find symbol")

	s := baseStyle(f.sample)
	s.Patch = string(broken)
	v = &Verifier{Runner: r}
	_, detail, err = v.Verify(context.Background(), s, f.repo, javaCalcPatch("a + b"))
	testcheck.ErrIs(t, "gold control does not compile", err, ErrInconclusive)
	testcheck.Prefix(t, "control detail", detail, "control: the gold patch's run is inconclusive")
	testcheck.Contains(t, "control javac message", detail, "cannot find symbol")
}

// TestVerifyJavacControlFails: when the gold patch does not make the tests
// pass (here it is no fix at all), a modified patch that fails them is not
// "failed" but inconclusive, and so is one that passes nothing.
func TestVerifyJavacControlFails(t *testing.T) {
	f := newJavaFixture(t)
	s := baseStyle(f.sample)
	s.Patch = string(javaCalcPatch("a * b"))
	v := &Verifier{Runner: javacRunner(t)}
	passed, detail, err := v.Verify(context.Background(), s, f.repo, javaCalcPatch("a * b"))
	testcheck.ErrIs(t, "control fails", err, ErrInconclusive)
	testcheck.Eq(t, "passed", passed, false)
	testcheck.Contains(t, "control detail", detail, "the gold patch does not pass the listed tests under this harness (2 of 3 tests failed: demo.CalcTest::testAdd")
	// The control is cached per sample and base commit (several cutoffs of
	// a sample share it): with the same id and base, even a correct gold
	// patch gets the cached answer.
	s.Patch = string(javaCalcPatch("a + b"))
	_, detail2, err := v.Verify(context.Background(), s, f.repo, javaCalcPatch("b + a"))
	testcheck.ErrIs(t, "cached control", err, ErrInconclusive)
	testcheck.Eq(t, "cached detail", detail2, detail)
	passed, _, err = (&Verifier{Runner: v.Runner}).Verify(context.Background(), s, f.repo, javaCalcPatch("b + a"))
	testcheck.Must(t, err)
	testcheck.Eq(t, "fresh control with the correct gold patch", passed, true)
}

// TestJavacRunnerSandboxed: a test that writes outside its work tree and
// connects to a listener on the parent's loopback fails, and neither the
// file nor the connection happens (where the kernel gives the sandbox its
// namespaces).
func TestJavacRunnerSandboxed(t *testing.T) {
	probe, err := sandbox.Run(context.Background(), sandbox.Spec{Argv: []string{"true"}, NoNetwork: true, Timeout: 10 * time.Second})
	testcheck.Must(t, err)
	if !probe.FilesIsolated || !probe.NetworkIsolated {
		t.Skipf("no mount or network namespace here: %v", probe.Notes)
	}
	f := newJavaFixture(t)
	dir := checkoutFixture(t, f, javaCalcPatch("a + b"))
	outside := filepath.Join(t.TempDir(), "written")
	ln := sandboxtest.Listen(t)
	hostile := "package demo;\n\nimport org.junit.Test;\n\npublic class HostileTest {\n" +
		"    @Test public void testWrite() throws Exception {\n        java.nio.file.Files.write(java.nio.file.Paths.get(\"" + outside + "\"), new byte[] {1});\n    }\n" +
		"    @Test public void testConnect() throws Exception {\n        new java.net.Socket(\"127.0.0.1\", " + strconv.Itoa(ln.Port) + ").close();\n    }\n}\n"
	testcheck.Must(t, os.WriteFile(filepath.Join(dir, "src/test/java/demo/HostileTest.java"), []byte(hostile), 0o644))
	got, err := javacRunner(t).Run(context.Background(), dir, []string{"demo.HostileTest::testWrite", "demo.HostileTest::testConnect"})
	testcheck.Must(t, err)
	testcheck.Eq(t, "write passed", got[0].Passed, false)
	testcheck.Contains(t, "write detail", got[0].Detail, "Read-only file system")
	testcheck.Eq(t, "connect passed", got[1].Passed, false)
	testcheck.Contains(t, "connect detail", got[1].Detail, "java.net.ConnectException")
	if _, err := os.Stat(outside); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the test wrote %s (stat: %v)", outside, err)
	}
	if ln.Reached() {
		t.Error("the test reached the parent's loopback listener")
	}
}

// baseStyle is sample s the SWE-bench way: no fix commit, so the buggy
// version is the base commit and the trigger tests come in a test patch
// (a gold patch that is not the fix commit's can then be tried).
func baseStyle(s bench.Sample) bench.Sample {
	const calcTest, legacy = "src/test/java/demo/CalcTest.java", "src/test/java/demo/LegacyCalcTest.java"
	s.FixCommit = ""
	s.TestPatch = "diff --git a/" + calcTest + " b/" + calcTest + "\n" +
		diff.Unified("a/"+calcTest, "b/"+calcTest, []byte(javaCalcTestBase), []byte(javaCalcTestFixed()), 3).String() +
		"diff --git a/" + legacy + " b/" + legacy + "\nnew file mode 100644\n" +
		diff.Unified("/dev/null", "b/"+legacy, nil, []byte(javaLegacyTest), 3).String()
	return s
}

// checkoutFixture is the Defects4J-style buggy version of the fixture in
// a temporary directory with patch applied.
func checkoutFixture(t *testing.T, f javaFixture, patch []byte) string {
	t.Helper()
	tmp := t.TempDir()
	work := filepath.Join(tmp, "src")
	c, err := f.repo.Resolve(context.Background(), f.sample.BaseCommit)
	testcheck.Must(t, err)
	testcheck.Must(t, checkoutBuggy(context.Background(), f.sample, f.repo, c.Hash, work, tmp, diff.ApplyOptions{}))
	testcheck.Must(t, ApplyPatch(work, patch, diff.ApplyOptions{}))
	return work
}

// TestJavaLayout: source roots, resources and encoding from a pom, and
// the conventional roots of a project without one.
func TestJavaLayout(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"src/java/org", "src/test/org", "src/test/resources", "extra-res"} {
		testcheck.Must(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	testcheck.Must(t, os.WriteFile(filepath.Join(dir, "src/java/org/A.java"), []byte("/* caf\xe9 */ class A {}"), 0o644))
	l := readLayout(dir)
	testcheck.Eq(t, "main", strings.Join(l.Main, ","), "src/java")
	testcheck.Eq(t, "test", strings.Join(l.Test, ","), "src/test")
	testcheck.Eq(t, "encoding", l.Encoding, "UTF-8")
	testcheck.Eq(t, "rewritten", latin1ToUTF8(dir, l.Main), 1)
	a, _ := os.ReadFile(filepath.Join(dir, "src/java/org/A.java"))
	testcheck.Eq(t, "ISO-8859-1 source as UTF-8", string(a), "/* café */ class A {}")
	testcheck.Eq(t, "release", l.Release, "8")
	pom := `<project><groupId>g</groupId><artifactId>a</artifactId><version>2.1</version>
<properties><project.build.sourceEncoding>ISO-8859-1</project.build.sourceEncoding><maven.compiler.source>11</maven.compiler.source></properties>
<build><sourceDirectory>${basedir}/src/java</sourceDirectory><testSourceDirectory>src/test/org</testSourceDirectory>
<resources><resource><directory>extra-res</directory></resource></resources></build>
<dependencies><dependency><groupId>junit</groupId><artifactId>junit</artifactId></dependency></dependencies></project>`
	testcheck.Must(t, os.WriteFile(filepath.Join(dir, "pom.xml"), []byte(pom), 0o644))
	l = readLayout(dir)
	testcheck.Eq(t, "pom test root", strings.Join(l.Test, ","), "src/test/org")
	testcheck.Eq(t, "pom resources", strings.Join(l.Resources, ","), "extra-res,src/test/resources")
	testcheck.Eq(t, "pom encoding", l.Encoding, "ISO-8859-1")
	testcheck.Eq(t, "pom release", l.Release, "11")
	testcheck.Eq(t, "template", string(l.expandTemplate([]byte("package @package@; // @projectgroupid@:@projectartifactid@:@projectversion@"), "src/java", "src/java/org/x/P.java.in")), "package org.x; // g:a:2.1")
}

// TestDetectJavaFallsBackToJavac: with no usable build tool (none on
// PATH), a Java work tree gets the javac runner.
func TestDetectJavaFallsBackToJavac(t *testing.T) {
	home := javaHome(t) // skips without a JDK and JUnit 4
	dir := t.TempDir()
	testcheck.Must(t, os.WriteFile(filepath.Join(dir, "pom.xml"), []byte(javaPom), 0o644))
	t.Setenv("PATH", t.TempDir())
	t.Setenv("JAVA_HOME", home)
	r, err := Detect(dir, "java", Options{})
	testcheck.Must(t, err)
	if _, ok := r.(*JavacRunner); !ok {
		t.Errorf("Detect = %T, want *JavacRunner", r)
	}
	t.Setenv("JAVA_HOME", t.TempDir())
	if _, err := Detect(dir, "java", Options{}); !errors.Is(err, errs.ErrUnavailable) {
		t.Errorf("Detect without a JDK = %v, want ErrUnavailable", err)
	}
}

// javaHome is the home of the JDK the runner found.
func javaHome(t *testing.T) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(javacRunner(t).Javac)
	testcheck.Must(t, err)
	return filepath.Dir(filepath.Dir(real))
}
