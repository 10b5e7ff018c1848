package patchcheck

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/gitrepo"
	"github.com/benchforge/benchforge/internal/gitrepo/gittest"
)

// scenario is one file of the shared fixture: its buggy, fixed and
// snapshot versions (snapPath "" keeps the path; snap "" deletes the file).
type scenario struct {
	name           string
	path, snapPath string
	buggy, fixed   string
	snap           string
	want           string // verdict
	wantMethod     string // "" = any
	wantFileVia    string // "" = any
	wantLocalized  string // "" = any
}

// javaClamp renders a Java class whose clamp method body is body.
func javaClamp(class, body string) string {
	return "package p;\n\npublic class " + class + " {\n    public static int clamp(int v, int lo, int hi) {\n" +
		body + "    }\n\n    public static int twice(int x) {\n        return x * 2;\n    }\n}\n"
}

const (
	jBuggy = "        int r = v;\n        if (r < lo) {\n            r = lo;\n        }\n        return r;\n"
	jFixed = "        int r = v;\n        if (r < lo) {\n            r = lo;\n        }\n        if (r > hi) {\n            r = hi;\n        }\n        return r;\n"
	// deletion-only fix: the buggy version has an extra increment
	jDelBuggy = "        int r = v;\n        r = r + 1;\n        if (r < lo) {\n            r = lo;\n        }\n        return r;\n"
	jDelFixed = "        int r = v;\n        if (r < lo) {\n            r = lo;\n        }\n        return r;\n"
)

func pyClamp(body string) string {
	return "def clamp(v, lo, hi):\n" + body + "\n\ndef twice(x):\n    return x * 2\n"
}

const (
	pBuggy    = "    r = v\n    if r < lo:\n        r = lo\n    return r\n"
	pFixed    = "    r = v\n    if r < lo:\n        r = lo\n    if r > hi:\n        r = hi\n    return r\n"
	pDelBuggy = "    r = v\n    r = r + 1\n    if r < lo:\n        r = lo\n    return r\n"
	pDelFixed = "    r = v\n    if r < lo:\n        r = lo\n    return r\n"
)

func javaScenarios() []scenario {
	j := func(name, snapBody string) (string, string, string, string) {
		c := "C" + name
		return "src/main/java/p/" + c + ".java", javaClamp(c, jBuggy), javaClamp(c, jFixed), javaClamp(c, snapBody)
	}
	var out []scenario
	add := func(name, snapBody, want, method string) {
		p, b, f, s := j(name, snapBody)
		out = append(out, scenario{name: "java/" + name, path: p, buggy: b, fixed: f, snap: s, want: want, wantMethod: method})
	}
	add("Verbatim", jFixed, Present, MethodExact)
	add("Reformatted", "        // keep r in range\n        int r = v;\n        if (r < lo) { r = lo; }\n        if(r>hi){r=hi;} /* upper */\n        return r;\n", Present, MethodExact)
	add("Renamed", "        int res = v;\n        if (res < lo) {\n            res = lo;\n        }\n        if (res > hi) {\n            res = hi;\n        }\n        return res;\n", Present, MethodSimilarity)
	add("Moved", "        int r = v;\n        if (r > hi) {\n            r = hi;\n        }\n        if (r < lo) {\n            r = lo;\n        }\n        return r;\n", Present, MethodExact)
	add("Reverted", jBuggy, Absent, "")
	add("Refactored", "        return Math.max(lo, Math.min(v, hi));\n", Absent, "")
	// function deleted: the class keeps only twice()
	p, b, f, _ := j("Deleted", "")
	out = append(out, scenario{name: "java/FunctionDeleted", path: p, buggy: b, fixed: f,
		snap: "package p;\n\npublic class CDeleted {\n    public static int twice(int x) {\n        return x * 2;\n    }\n}\n", want: Absent})
	// function deleted, but a surviving function happens to hold the same
	// generic guard: a file-wide search would call it present.
	genericCount := "    public static int count(java.util.List<String> items) {\n        int n = 0;\n        for (String s : items) {\n%s            n += 1;\n        }\n        return n;\n    }\n"
	genericLen := "    public static int len(String s) {\n%s        return s.length();\n    }\n\n"
	guard := "        if (s == null) {\n            return 0;\n        }\n"
	out = append(out, scenario{name: "java/FunctionDeletedGenericLines", path: "src/main/java/p/CGeneric.java",
		buggy: "package p;\n\npublic class CGeneric {\n" + fmt.Sprintf(genericLen, "") + fmt.Sprintf(genericCount, "") + "}\n",
		fixed: "package p;\n\npublic class CGeneric {\n" + fmt.Sprintf(genericLen, guard) + fmt.Sprintf(genericCount, "") + "}\n",
		snap:  "package p;\n\npublic class CGeneric {\n" + fmt.Sprintf(genericCount, "    "+strings.ReplaceAll(guard, "\n        ", "\n            ")) + "}\n",
		want:  Absent, wantLocalized: "function:missing"})
	p, b, f, _ = j("Renamedfile", "")
	out = append(out, scenario{name: "java/FileRenamed", path: p, snapPath: "src/main/java/p/util/CRenamedFile2.java",
		buggy: b, fixed: f, snap: f, want: Present, wantMethod: MethodExact, wantFileVia: "rename"})
	p, b, f, _ = j("Moved2", "")
	out = append(out, scenario{name: "java/FileMoved", path: p, snapPath: "core/src/main/java/p/CMoved2.java",
		buggy: b, fixed: f, snap: f, want: Present, wantMethod: MethodExact, wantFileVia: "basename"})
	c := "src/main/java/p/CDel.java"
	out = append(out, scenario{name: "java/DeletionOnly", path: c, buggy: javaClamp("CDel", jDelBuggy), fixed: javaClamp("CDel", jDelFixed),
		snap: javaClamp("CDel", jDelFixed), want: Present})
	c = "src/main/java/p/CDelRev.java"
	out = append(out, scenario{name: "java/DeletionReverted", path: c, buggy: javaClamp("CDelRev", jDelBuggy), fixed: javaClamp("CDelRev", jDelFixed),
		snap: javaClamp("CDelRev", jDelBuggy), want: Absent})
	return out
}

func pyScenarios() []scenario {
	var out []scenario
	add := func(name, snapBody, want, method string) {
		p := "pkg/" + strings.ToLower(name) + ".py"
		out = append(out, scenario{name: "python/" + name, path: p, buggy: pyClamp(pBuggy), fixed: pyClamp(pFixed), snap: pyClamp(snapBody), want: want, wantMethod: method})
	}
	add("Verbatim", pFixed, Present, MethodExact)
	add("Reformatted", "    # clamp\n    r = v\n    if r < lo: r = lo\n    if r > hi:  r = hi  # upper\n    return r\n", Present, MethodExact)
	add("Renamed", "    res = v\n    if res < lo:\n        res = lo\n    if res > hi:\n        res = hi\n    return res\n", Present, MethodSimilarity)
	add("Moved", "    r = v\n    if r > hi:\n        r = hi\n    if r < lo:\n        r = lo\n    return r\n", Present, MethodExact)
	add("Reverted", pBuggy, Absent, "")
	add("Refactored", "    return max(lo, min(v, hi))\n", Absent, "")
	out = append(out, scenario{name: "python/FunctionDeleted", path: "pkg/fdeleted.py", buggy: pyClamp(pBuggy), fixed: pyClamp(pFixed),
		snap: "def twice(x):\n    return x * 2\n", want: Absent})
	out = append(out, scenario{name: "python/FileRenamed", path: "pkg/frenamed.py", snapPath: "pkg/sub/frenamed2.py",
		buggy: pyClamp(pBuggy), fixed: pyClamp(pFixed), snap: pyClamp(pFixed), want: Present, wantMethod: MethodExact, wantFileVia: "rename"})
	out = append(out, scenario{name: "python/DeletionOnly", path: "pkg/pdel.py", buggy: pyClamp(pDelBuggy), fixed: pyClamp(pDelFixed),
		snap: pyClamp(pDelFixed), want: Present})
	out = append(out, scenario{name: "python/DeletionReverted", path: "pkg/pdelrev.py", buggy: pyClamp(pDelBuggy), fixed: pyClamp(pDelFixed),
		snap: pyClamp(pDelBuggy), want: Absent})
	return out
}

// fixture is one repository holding every scenario: commit 1 the buggy
// versions, commit 2 the fixes, commit 3 the snapshot states.
type fixture struct {
	repo          *gitrepo.Repo
	buggy, fixed  string
	snap          gitrepo.Commit
	scenarios     []scenario
	notApplicable bench.Sample
}

func buildFixture(t *testing.T, scs []scenario) *fixture {
	t.Helper()
	b := gittest.New(t)
	for _, s := range scs {
		b.Write(s.path, s.buggy)
	}
	b.Write("README.md", "calc\n")
	b.Write("tests/test_calc.py", "import unittest\n")
	buggy := b.Commit("buggy", gittest.Date(2019, 1, 1))
	for _, s := range scs {
		b.Write(s.path, s.fixed)
	}
	b.Write("README.md", "calc, fixed\n")
	fixed := b.Commit("fix", gittest.Date(2019, 2, 1))
	for _, s := range scs {
		switch {
		case s.snapPath != "":
			b.Rename(s.path, s.snapPath)
			b.Write(s.snapPath, s.snap)
		case s.snap == "":
			b.Remove(s.path)
		default:
			b.Write(s.path, s.snap)
		}
	}
	b.Commit("later", gittest.Date(2020, 1, 1))
	ctx := context.Background()
	r, err := gitrepo.Open(ctx, b.Dir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	snap, err := r.Snapshot(ctx, gittest.Date(2021, 1, 1))
	if err != nil {
		t.Fatal(err)
	}
	na := bench.Sample{ID: "docs-only", Repo: "o/calc", BaseCommit: buggy, FixCommit: fixed,
		Patch: diff.Unified("a/README.md", "b/README.md", []byte("calc\n"), []byte("calc, fixed\n"), 3).String() +
			diff.Unified("a/tests/test_calc.py", "b/tests/test_calc.py", []byte("import unittest\n"), []byte("import unittest\nimport os\n"), 3).String()}
	return &fixture{repo: r, buggy: buggy, fixed: fixed, snap: snap, scenarios: scs, notApplicable: na}
}

func (f *fixture) sample(s scenario) bench.Sample {
	return bench.Sample{ID: s.name, Repo: "o/calc", BaseCommit: f.buggy, FixCommit: f.fixed,
		Patch: diff.Unified("a/"+s.path, "b/"+s.path, []byte(s.buggy), []byte(s.fixed), 3).String()}
}

func TestScenarios(t *testing.T) {
	scs := append(javaScenarios(), pyScenarios()...)
	f := buildFixture(t, scs)
	ctx := context.Background()
	c := New(Options{})
	for _, s := range scs {
		t.Run(s.name, func(t *testing.T) {
			v, err := c.Check(ctx, f.sample(s), f.repo, f.snap)
			if err != nil {
				t.Fatal(err)
			}
			checkScenario(t, v, s, f)
		})
	}
	v, err := c.Check(ctx, f.notApplicable, f.repo, f.snap)
	if err != nil || v.Verdict != NotApplicable {
		t.Fatalf("docs/tests-only patch: %s %v (%s)", v.Verdict, err, v.Reason)
	}
	checkNoDiffIsUnknown(t, c, f)
}

// checkScenario checks v, scenario s's verdict at the fixture's snapshot.
func checkScenario(t *testing.T, v Verdict, s scenario, f *fixture) {
	t.Helper()
	if v.Verdict != s.want || s.wantMethod != "" && v.Method != s.wantMethod {
		t.Fatalf("verdict %s/%s (score %.3f, %s), want %s/%s\n%s", v.Verdict, v.Method, v.Score, v.Reason, s.want, s.wantMethod, dump(v))
	}
	if s.wantLocalized != "" && (len(v.Blocks) == 0 || v.Blocks[0].Localized != s.wantLocalized) {
		t.Fatalf("localised %q, want %q\n%s", v.Blocks[0].Localized, s.wantLocalized, dump(v))
	}
	if s.wantFileVia != "" && (len(v.Blocks) == 0 || v.Blocks[0].FileVia != s.wantFileVia) {
		t.Fatalf("file found via %q, want %q\n%s", v.Blocks[0].FileVia, s.wantFileVia, dump(v))
	}
	if v.SnapshotCommit != f.snap.Hash || len(v.Blocks) == 0 {
		t.Fatalf("snapshot %s blocks %d", v.SnapshotCommit, len(v.Blocks))
	}
}

// checkNoDiffIsUnknown: a patch that is no diff, or a binary-only one, is
// unknown (counted in the rates' denominators), never not_applicable.
func checkNoDiffIsUnknown(t *testing.T, c *Checker, f *fixture) {
	t.Helper()
	for name, patch := range map[string]string{
		"prose":  "Fixed the null check in Foo.bar().\n",
		"empty":  "",
		"binary": "diff --git a/logo.png b/logo.png\nindex 1111111..2222222 100644\nBinary files a/logo.png and b/logo.png differ\n",
	} {
		s := f.notApplicable
		s.ID, s.Patch = name, patch
		v, err := c.Check(context.Background(), s, f.repo, f.snap)
		if err != nil || v.Verdict != Unknown || !strings.HasPrefix(v.Reason, "not a unified diff") {
			t.Errorf("%s patch: %s %v (%s), want unknown: not a unified diff", name, v.Verdict, err, v.Reason)
		}
	}
}

func dump(v Verdict) string {
	var b strings.Builder
	for _, bl := range v.Blocks {
		fmt.Fprintf(&b, "  block %s %s -> %s %s [%s] %s sim=%.3f\n", bl.File, bl.Function, bl.SnapshotFile, bl.SnapshotFunction, bl.Localized, bl.Kind, bl.Similarity)
		for _, m := range bl.MatchedLines {
			fmt.Fprintf(&b, "    %-7s %.3f %-14s %q => %q\n", m.Role, m.Similarity, m.Via, m.Patch, m.Snapshot)
		}
	}
	return b.String()
}

// TestMissingCommit: a fix commit the clone lacks gives unknown, not an
// error.
func TestMissingCommit(t *testing.T) {
	scs := javaScenarios()[:1]
	f := buildFixture(t, scs)
	s := f.sample(scs[0])
	s.FixCommit, s.BaseCommit = strings.Repeat("1", 40), strings.Repeat("2", 40)
	v, err := New(Options{}).Check(context.Background(), s, f.repo, f.snap)
	if err != nil || v.Verdict != Unknown || !strings.Contains(v.Reason, "fix commit") {
		t.Fatalf("got %s %v %q", v.Verdict, err, v.Reason)
	}
}

// runVerifier is a real test runner for the fixtures: it checks the buggy
// tree out into a temporary directory, applies the modified patch and runs
// the clamp tests with the real python3 or JDK.
type runVerifier struct{ t *testing.T }

func (rv runVerifier) Verify(ctx context.Context, s bench.Sample, repo *gitrepo.Repo, patch []byte) (bool, string, error) {
	dir := rv.t.TempDir()
	fds, err := diff.ParseBytes(patch)
	if err != nil {
		return false, "", err
	}
	for _, fd := range fds {
		old, err := repo.ReadFile(ctx, s.BaseCommit, fd.OldPath)
		if err != nil {
			return false, "", err
		}
		neu, err := diff.Apply(old, fd, diff.ApplyOptions{})
		if err != nil {
			return false, "", err
		}
		p := filepath.Join(dir, filepath.FromSlash(fd.Name()))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return false, "", err
		}
		if err := os.WriteFile(p, neu, 0o644); err != nil {
			return false, "", err
		}
		var cmd *exec.Cmd
		if strings.HasSuffix(p, ".py") {
			test := "import sys, importlib.util\nspec = importlib.util.spec_from_file_location('m', sys.argv[1])\nm = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\nassert m.clamp(5, 0, 3) == 3 and m.clamp(-1, 0, 3) == 0 and m.clamp(2, 0, 3) == 2\n"
			cmd = exec.CommandContext(ctx, "python3", "-c", test, p)
		} else {
			cls := strings.TrimSuffix(filepath.Base(p), ".java")
			main := "package p; public class Main { public static void main(String[] a) { if (" + cls + ".clamp(5,0,3)!=3 || " + cls + ".clamp(-1,0,3)!=0 || " + cls + ".clamp(2,0,3)!=2) System.exit(1); } }\n"
			mp := filepath.Join(filepath.Dir(p), "Main.java")
			if err := os.WriteFile(mp, []byte(main), 0o644); err != nil {
				return false, "", err
			}
			out := filepath.Join(dir, "classes")
			if b, err := exec.CommandContext(ctx, "javac", "-d", out, p, mp).CombinedOutput(); err != nil {
				return false, string(b), nil
			}
			cmd = exec.CommandContext(ctx, "java", "-cp", out, "p.Main")
		}
		if b, err := cmd.CombinedOutput(); err != nil {
			return false, string(b), nil
		}
	}
	return true, "clamp tests pass", nil
}

// TestRefactoredPassesTests: a fix refactored beyond recognition is absent
// by similarity but present by test verification; a reverted one fails the
// tests and stays absent.
func TestRefactoredPassesTests(t *testing.T) {
	var scs []scenario
	for _, s := range append(javaScenarios(), pyScenarios()...) {
		if strings.HasSuffix(s.name, "/Refactored") || strings.HasSuffix(s.name, "/Reverted") {
			scs = append(scs, s)
		}
	}
	if _, err := exec.LookPath("javac"); err != nil {
		t.Skip("no JDK")
	}
	f := buildFixture(t, scs)
	c := New(Options{Verifier: runVerifier{t}, InconclusiveLow: -1})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, s := range scs {
		v, err := c.Check(ctx, f.sample(s), f.repo, f.snap)
		if err != nil {
			t.Fatal(err)
		}
		refactored := strings.HasSuffix(s.name, "/Refactored")
		if refactored && (v.Verdict != Present || v.Method != MethodTests) || !refactored && v.Verdict != Absent {
			t.Errorf("%s: %s/%s %q tests=%+v", s.name, v.Verdict, v.Method, v.Reason, v.Tests)
		}
	}
}
