package testverify

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/sandbox"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestSplitWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"python -m pytest -q {tests}", []string{"python", "-m", "pytest", "-q", "{tests}"}},
		{`  a   b  `, []string{"a", "b"}},
		{`'a b' "c d" e\ f`, []string{"a b", "c d", "e f"}},
		{`"$HOME" '$(rm -rf /)' ; | &&`, []string{"$HOME", "$(rm -rf /)", ";", "|", "&&"}},
		{`"a\"b\\c\$d\x"`, []string{`a"b\c$d\x`}},
		{`x''y ""`, []string{"xy", ""}},
		{"a\\\nb", []string{"ab"}},
		{"", nil},
	}
	for _, tc := range tests {
		got, err := SplitWords(tc.in)
		if err != nil {
			t.Errorf("SplitWords(%q): %v", tc.in, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("SplitWords(%q) (-want +got):\n%s", tc.in, diff)
		}
	}
	for _, bad := range []string{`'open`, `"open`, `trailing\`} {
		if _, err := SplitWords(bad); !errors.Is(err, errs.ErrUsage) {
			t.Errorf("SplitWords(%q) err = %v, want ErrUsage", bad, err)
		}
	}
}

func TestCommandExpand(t *testing.T) {
	r, err := ParseCommand(`pytest --rootdir={dir} "-k x" {tests}`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := r.expand("/w", []string{"a::b", "c d"}, "")
	want := []string{"pytest", "--rootdir=/w", "-k x", "a::b", "c d"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("expand (-want +got):\n%s", d)
	}
	r, _ = ParseCommand(`mvn -Dtest={test} test`, Options{})
	if got := r.expand("/w", nil, "C#m"); got[1] != "-Dtest=C#m" || !r.perTest() {
		t.Errorf("per-test expand = %q", got)
	}
}

func TestTestKey(t *testing.T) {
	tests := map[string][]string{
		"pkg/test_x.py::TestC::test_m[a.b-1]": {"pkg", "test_x", "TestC", "test_m[a.b-1]"},
		"test_x.py::test_f":                   {"test_x", "test_f"},
		"pkg.test_x.TestC.test_m":             {"pkg", "test_x", "TestC", "test_m"},
		"test_m (pkg.test_x.TestC)":           {"pkg", "test_x", "TestC", "test_m"},
		"test_m (pkg.test_x.TestC.test_m)":    {"pkg", "test_x", "TestC", "test_m"},
		"org.Foo::testBar":                    {"org", "Foo", "testBar"},
		"org.Foo#testBar":                     {"org", "Foo", "testBar"},
		"testBar()":                           {"testBar"},
		"":                                    nil,
	}
	for in, want := range tests {
		if d := cmp.Diff(want, TestKey(in)); d != "" {
			t.Errorf("TestKey(%q) (-want +got):\n%s", in, d)
		}
	}
}

func TestKeyMatch(t *testing.T) {
	tests := []struct {
		want, got string
		match     bool
	}{
		{"pkg/test_x.py::TestC::test_m", "pkg.test_x.TestC.test_m", true},
		{"test_x.TestC.test_m", "pkg.test_x.TestC.test_m", true},
		{"tests/test_x.py::test_m", "test_x.test_m", true},
		{"test_x.py::test_m", "test_x.test_m[1]", true},
		{"test_x.py::test_m[2]", "test_x.test_m[1]", false},
		{"test_m", "other.test_m", false},
		{"a.TestC.test_m", "b.TestC.test_m", false},
		{"org.Foo::testBar", "org.Foo.testBarBaz", false},
	}
	for _, tc := range tests {
		if got := keyMatch(TestKey(tc.want), TestKey(tc.got)); got != tc.match {
			t.Errorf("keyMatch(%q, %q) = %v, want %v", tc.want, tc.got, got, tc.match)
		}
	}
}

func TestPytestID(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "pkg", "tests"), 0o755)
	os.WriteFile(filepath.Join(dir, "pkg", "tests", "test_x.py"), nil, 0o644)
	for in, want := range map[string]string{
		"pkg.tests.test_x.TestC.test_m":   "pkg/tests/test_x.py::TestC::test_m",
		"test_m (pkg.tests.test_x.TestC)": "pkg/tests/test_x.py::TestC::test_m",
		"pkg/tests/test_x.py::test_f":     "pkg/tests/test_x.py::test_f",
		"nowhere.test_f":                  "nowhere.test_f",
	} {
		if got := PytestID(dir, in); got != want {
			t.Errorf("PytestID(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseUnittest(t *testing.T) {
	data, err := os.ReadFile("testdata/unittest-py311.txt")
	if err != nil {
		t.Fatal(err)
	}
	older := "test_a (m.C) ... ok\ntest_b (m.C)\nDoc line ... FAIL\n\n" +
		"======================================================================\nFAIL: test_b (m.C)\n" +
		"----------------------------------------------------------------------\nTraceback (most recent call last):\nAssertionError: x\n\n" +
		"----------------------------------------------------------------------\nRan 2 tests in 0.001s\n"
	tests := []struct {
		name string
		in   string
		want []Case
	}{
		{"python 3.11", string(data), []Case{
			{Class: "test_m.TestA", Name: "test_doc", Status: StatusPassed},
			{Class: "test_m.TestA", Name: "test_err", Status: StatusError, Message: "ValueError: boom"},
			{Class: "test_m.TestA", Name: "test_fail", Status: StatusFailed, Message: "AssertionError: 1 != 2"},
			{Class: "test_m.TestA", Name: "test_noisy", Status: StatusPassed},
			{Class: "test_m.TestA", Name: "test_ok", Status: StatusPassed},
			{Class: "test_m.TestA", Name: "test_skip", Status: StatusSkipped},
			{Class: "test_m.TestA", Name: "test_sub", Status: StatusFailed, Message: "AssertionError: 1 != 0"},
			{Class: "test_m.TestA", Name: "test_xfail", Status: StatusPassed},
			// (test_sub's first line has no status; its subtest line does)
		}},
		{"older python", older, []Case{
			{Class: "m.C", Name: "test_a", Status: StatusPassed},
			{Class: "m.C", Name: "test_b", Status: StatusFailed, Message: "AssertionError: x"},
		}},
		{"empty", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ParseUnittest([]byte(tc.in))
			if d := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("ParseUnittest (-want +got):\n%s", d)
			}
		})
	}
}

const pytestXML = `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" failures="1" skipped="1" tests="4">
<testcase classname="tests.test_x.TestC" name="test_ok" file="tests/test_x.py" line="3" time="0.001" />
<testcase classname="tests.test_x.TestC" name="test_bad" file="tests/test_x.py" line="5" time="0.001"><failure message="assert 1 == 2">def test_bad():
&gt;       assert 1 == 2
E       assert 1 == 2</failure></testcase>
<testcase classname="tests.test_x" name="test_p[a.b]" time="0.0"><skipped type="pytest.skip" message="nope">skip</skipped></testcase>
<testcase classname="tests.test_x" name="test_e" time="0.0"><error message="fixture 'db' not found">E fixture</error></testcase>
</testsuite></testsuites>`

const surefireXML = `<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="org.apache.commons.lang3.StringUtilsTest" tests="2" failures="1">
  <properties><property name="java.version" value="17"/></properties>
  <testcase name="testA" classname="org.apache.commons.lang3.StringUtilsTest" time="0.01"/>
  <testcase name="testB" classname="org.apache.commons.lang3.StringUtilsTest" time="0.01">
    <failure message="expected:&lt;1&gt; but was:&lt;2&gt;" type="junit.framework.AssertionFailedError">trace</failure>
  </testcase>
</testsuite>`

func TestParseJUnit(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Case
	}{
		{"pytest", pytestXML, []Case{
			{Class: "tests.test_x.TestC", Name: "test_ok", File: "tests/test_x.py", Status: StatusPassed},
			{Class: "tests.test_x.TestC", Name: "test_bad", File: "tests/test_x.py", Status: StatusFailed, Message: "assert 1 == 2"},
			{Class: "tests.test_x", Name: "test_p[a.b]", Status: StatusSkipped, Message: "pytest.skip: nope"},
			{Class: "tests.test_x", Name: "test_e", Status: StatusError, Message: "fixture 'db' not found"},
		}},
		{"surefire", surefireXML, []Case{
			{Class: "org.apache.commons.lang3.StringUtilsTest", Name: "testA", Status: StatusPassed},
			{Class: "org.apache.commons.lang3.StringUtilsTest", Name: "testB", Status: StatusFailed,
				Message: "junit.framework.AssertionFailedError: expected:<1> but was:<2>"},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseJUnit([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("ParseJUnit (-want +got):\n%s", d)
			}
		})
	}
	if _, err := ParseJUnit([]byte("not xml")); !errors.Is(err, errs.ErrInput) {
		t.Errorf("ParseJUnit(garbage) err = %v, want ErrInput", err)
	}
}

func TestMatchCases(t *testing.T) {
	cases, _ := ParseJUnit([]byte(pytestXML))
	tests := []string{"tests/test_x.py::TestC::test_ok", "tests/test_x.py::TestC::test_bad", "tests/test_x.py::test_p",
		"tests/test_x.py::test_e", "tests/test_x.py::test_missing"}
	got := matchCases(tests, cases, sandbox.Result{ExitCode: 1, Stderr: []byte("1 failed\n")}, time.Minute)
	want := []TestResult{
		{Name: tests[0], Passed: true},
		{Name: tests[1], Detail: "failed: assert 1 == 2"},
		{Name: tests[2], Detail: "skipped: pytest.skip: nope"},
		{Name: tests[3], Detail: "error: fixture 'db' not found"},
		{Name: tests[4], Detail: "no result reported (exit status 1: 1 failed)", NotRun: true, Exit: 1, Tail: "1 failed"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("matchCases (-want +got):\n%s", d)
	}
	got = matchCases(tests[4:], nil, sandbox.Result{TimedOut: true, ExitCode: -1}, time.Second)
	if !got[0].TimedOut || got[0].Passed {
		t.Errorf("timed-out run: %+v", got[0])
	}
}

func TestApplyPatch(t *testing.T) {
	write := func(dir, name, content string) {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	patch := "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n" +
		"diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n" +
		"diff --git a/new/n.sh b/new/n.sh\nnew file mode 100755\n--- /dev/null\n+++ b/new/n.sh\n@@ -0,0 +1 @@\n+echo hi\n" +
		"diff --git a/old.txt b/moved.txt\nsimilarity index 100%\nrename from old.txt\nrename to moved.txt\n"
	dir := t.TempDir()
	write(dir, "a.txt", "one\ntwo\n")
	write(dir, "gone.txt", "bye\n")
	write(dir, "old.txt", "same\n")
	if err := ApplyPatch(dir, []byte(patch), diff.ApplyOptions{}); err != nil {
		t.Fatal(err)
	}
	checkTree(t, dir, map[string]string{"a.txt": "one\nTWO\n", "new/n.sh": "echo hi\n", "moved.txt": "same\n"}, "gone.txt", "old.txt")
	if fi, err := os.Stat(filepath.Join(dir, "new/n.sh")); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("new/n.sh mode: %v %v", fi, err)
	}

	outside := t.TempDir()
	bad := []struct {
		name  string
		patch string
		want  error
	}{
		{"absolute", "--- /etc/x\n+++ /etc/x\n@@ -1 +1 @@\n-a\n+b\n", errs.ErrInput},
		{"dotdot", "--- a/../../x\n+++ b/../../x\n@@ -1 +1 @@\n-a\n+b\n", errs.ErrInput},
		{"through symlink", "--- a/link/f\n+++ b/link/f\n@@ -1 +1 @@\n-a\n+b\n", errs.ErrUnsupported},
		{"missing file", "--- a/nope.txt\n+++ b/nope.txt\n@@ -1 +1 @@\n-a\n+b\n", errs.ErrInput},
		{"creates existing", "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+x\n", errs.ErrInput},
		{"no files", "just text\n", errs.ErrInput},
		{"binary", "diff --git a/a.txt b/a.txt\nBinary files a/a.txt and b/a.txt differ\n", errs.ErrUnsupported},
	}
	write(outside, "f", "a\n")
	os.Symlink(outside, filepath.Join(dir, "link"))
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			err := ApplyPatch(dir, []byte(tc.patch), diff.ApplyOptions{})
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	if got, _ := os.ReadFile(filepath.Join(outside, "f")); string(got) != "a\n" {
		t.Errorf("file outside the tree was modified: %q", got)
	}
}

// checkTree: dir holds each file of want with its content, and none of
// gone.
func checkTree(t *testing.T, dir string, want map[string]string, gone ...string) {
	t.Helper()
	for name, w := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != w {
			t.Errorf("%s = %q, %v; want %q", name, got, err, w)
		}
	}
	for _, g := range gone {
		if _, err := os.Stat(filepath.Join(dir, g)); !os.IsNotExist(err) {
			t.Errorf("%s still exists", g)
		}
	}
}

func TestJavaArgv(t *testing.T) {
	tests := []string{"org.Foo::testA", "org.Foo#testB", "org.Bar::testC", "org.Baz"}
	if got, want := surefireSelector(tests), "org.Foo#testA+testB,org.Bar#testC,org.Baz"; got != want {
		t.Errorf("surefireSelector = %q, want %q", got, want)
	}
	m := &MavenRunner{Mvn: "mvn", RepoLocal: "/r"}
	want := []string{"mvn", "-B", "-Dtest=org.Foo#testA+testB,org.Bar#testC,org.Baz", "-DfailIfNoTests=false",
		"-Dsurefire.failIfNoSpecifiedTests=false", "-DtrimStackTrace=true", "-o", "-Dmaven.repo.local=/r", "test"}
	if d := cmp.Diff(want, m.Argv(tests)); d != "" {
		t.Errorf("maven argv (-want +got):\n%s", d)
	}
	g := &GradleRunner{Gradle: "gradle", Options: Options{AllowNetwork: true}}
	wantG := []string{"gradle", "--no-daemon", "test", "--tests", "org.Foo.testA", "--tests", "org.Foo.testB",
		"--tests", "org.Bar.testC", "--tests", "org.Baz"}
	if d := cmp.Diff(wantG, g.Argv(tests)); d != "" {
		t.Errorf("gradle argv (-want +got):\n%s", d)
	}
	if got := (&AntRunner{Ant: "ant"}).Argv(); strings.Join(got, " ") != "ant test" {
		t.Errorf("ant argv = %q", got)
	}
}
