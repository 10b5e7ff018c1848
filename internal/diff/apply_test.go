package diff

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/google/go-cmp/cmp"
)

const javaOld = `package p;

class A {
  int f() {
    int x = 1;
    return x;
  }

  int g() {
    return 2;
  }
}
`

const javaPatch = `--- a/A.java
+++ b/A.java
@@ -3,6 +3,6 @@
 class A {
   int f() {
     int x = 1;
-    return x;
+    return x + 1;
   }
 
@@ -9,4 +9,5 @@
   int g() {
     return 2;
   }
+  int h() { return 3; }
 }
`

const javaNew = `package p;

class A {
  int f() {
    int x = 1;
    return x + 1;
  }

  int g() {
    return 2;
  }
  int h() { return 3; }
}
`

func TestApply(t *testing.T) {
	fd := mustParse(t, javaPatch)[0]
	crlf := func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }
	tests := []struct {
		name    string
		old     string
		opts    ApplyOptions
		want    string
		results []HunkResult
		errMsg  string
	}{
		{name: "exact", old: javaOld, want: javaNew,
			results: []HunkResult{{Hunk: 1, Line: 3}, {Hunk: 2, Line: 9}}},
		{name: "offset", old: "// one\n// two\n" + javaOld, want: "// one\n// two\n" + javaNew,
			results: []HunkResult{{Hunk: 1, Line: 5, Offset: 2}, {Hunk: 2, Line: 11, Offset: 2}}},
		{name: "offset above", old: strings.Replace(javaOld, "package p;\n\n", "", 1), want: strings.Replace(javaNew, "package p;\n\n", "", 1),
			results: []HunkResult{{Hunk: 1, Line: 1, Offset: -2}, {Hunk: 2, Line: 7, Offset: -2}}},
		{name: "fuzz 1", old: strings.Replace(javaOld, "class A {", "class B {", 1), want: strings.Replace(javaNew, "class A {", "class B {", 1),
			results: []HunkResult{{Hunk: 1, Line: 3, Fuzz: 1}, {Hunk: 2, Line: 9}}},
		{name: "fuzz 2 too little", old: strings.Replace(strings.Replace(javaOld, "class A {", "class B {", 1), "  int f() {", "  int F() {", 1),
			opts: ApplyOptions{Fuzz: 1}, errMsg: "apply a/A.java hunk 1 (@@ -3,6 +3,6 @@): context not found; patch may target another revision"},
		{name: "fuzz off", old: strings.Replace(javaOld, "class A {", "class B {", 1), opts: ApplyOptions{Fuzz: -1},
			errMsg: "apply a/A.java hunk 1 (@@ -3,6 +3,6 @@): context not found"},
		{name: "max offset", old: "a\nb\nc\n" + javaOld, opts: ApplyOptions{MaxOffset: 2}, errMsg: "hunk 1"},
		{name: "no offset", old: "a\n" + javaOld, opts: ApplyOptions{MaxOffset: -1}, errMsg: "hunk 1"},
		{name: "changed line", old: strings.Replace(javaOld, "return x;", "return y;", 1), errMsg: "apply a/A.java hunk 1"},
		{name: "crlf file", old: crlf(javaOld), want: crlf(javaNew),
			results: []HunkResult{{Hunk: 1, Line: 3, LooseEOL: true}, {Hunk: 2, Line: 9, LooseEOL: true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, res, err := ApplyReport([]byte(tc.old), fd, tc.opts)
			if tc.errMsg != "" {
				if !errMatches(err, tc.errMsg, errs.ErrInput) {
					t.Fatalf("err = %v, want one containing %q wrapping ErrInput", err, tc.errMsg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, string(got)); d != "" {
				t.Errorf("content (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.results, res); d != "" {
				t.Errorf("results (-want +got):\n%s", d)
			}
			if !strings.Contains(tc.old, "\r") {
				checkGNUPatchAgrees(t, tc.old, javaPatch, string(got))
			}
		})
	}
}

// errMatches reports whether err is non-nil, mentions msg and wraps
// sentinel.
func errMatches(err error, msg string, sentinel error) bool {
	return err != nil && strings.Contains(err.Error(), msg) && errors.Is(err, sentinel)
}

func checkGNUPatchAgrees(t *testing.T, old, patchText, got string) {
	t.Helper()
	if p, err := gnuPatch(t, old, patchText); err != nil || p != got {
		t.Errorf("GNU patch gives %q, %v; Apply gave %q", p, err, got)
	}
}

func TestApplyEdges(t *testing.T) {
	files := mustParse(t, mustRead(t, "testdata/parse/git.patch"))
	by := map[string]*FileDiff{}
	for _, f := range files {
		by[f.Name()] = f
	}
	tests := []struct {
		file, old, want, errMsg string
		sentinel                error
	}{
		{file: "nonl.txt", old: "no newline", want: "no newline\nnow"},
		{file: "nonl.txt", old: "other", errMsg: "context not found", sentinel: errs.ErrInput},
		{file: "new.txt", old: "", want: "brand new\n"},
		{file: "new.txt", old: "exists\n", errMsg: "already has content", sentinel: errs.ErrInput},
		{file: "gone.txt", old: "old\n", want: ""},
		{file: "gone.txt", old: "old\nmore\n", errMsg: "bytes remain", sentinel: errs.ErrInput},
		{file: "empty.txt", old: "", want: ""},
		{file: "run.sh", old: "#!/bin/sh\n", want: "#!/bin/sh\n"},
		{file: "b.bin", old: "x", errMsg: "binary", sentinel: errs.ErrUnsupported},
	}
	for _, tc := range tests {
		got, err := Apply([]byte(tc.old), by[tc.file], ApplyOptions{})
		if tc.errMsg != "" {
			if !errMatches(err, tc.errMsg, tc.sentinel) {
				t.Errorf("%s on %q: err = %v, want %q", tc.file, tc.old, err, tc.errMsg)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("%s on %q = %q, %v; want %q", tc.file, tc.old, got, err, tc.want)
		}
		// And back again.
		back, err := Apply(got, Reverse(by[tc.file]), ApplyOptions{})
		if err != nil || string(back) != tc.old {
			t.Errorf("reverse %s = %q, %v; want %q", tc.file, back, err, tc.old)
		}
	}
}

// TestApplyLooseEOF: a target whose last line gained a newline still takes
// a patch written against the version without one.
func TestApplyLooseEOF(t *testing.T) {
	fd := mustParse(t, "--- a/x\n+++ b/x\n@@ -1 +1,2 @@\n-no newline\n\\ No newline at end of file\n+no newline\n+now\n\\ No newline at end of file\n")[0]
	got, res, err := ApplyReport([]byte("no newline\n"), fd, ApplyOptions{})
	if err != nil || string(got) != "no newline\nnow" || !res[0].LooseEOL {
		t.Errorf("got %q, %+v, %v", got, res, err)
	}
}

func mustRead(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// gnuPatch applies patchText to old with GNU patch (default fuzz 2).
func gnuPatch(t *testing.T, old, patchText string) (string, error) {
	t.Helper()
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("GNU patch not installed")
	}
	dir := t.TempDir()
	in, out, pf := filepath.Join(dir, "in"), filepath.Join(dir, "out"), filepath.Join(dir, "p")
	if err := os.WriteFile(in, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pf, []byte(patchText), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("patch", "-s", "-o", out, "-i", pf, in)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", errors.New(string(b))
	}
	b, err := os.ReadFile(out)
	return string(b), err
}
