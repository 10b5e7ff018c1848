package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/shareddata"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// git runs git in dir with fixed identities and dates.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_AUTHOR_DATE=2020-01-01T00:00:00Z",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_COMMITTER_DATE=2020-01-01T00:00:00Z",
		"GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// letterLines is n lines "line a", "line b", ... each followed by tag.
func letterLines(n int, tag string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString("line " + string(rune('a'+i%26)) + tag + "\n")
	}
	return b.String()
}

func TestReverseDiffMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	git(t, dir, "init", "-q")
	write(t, dir, "src/A.java", "class A {\n  int f() {\n    return 1;\n  }\n}\n")
	write(t, dir, "src/Gone.java", "class Gone {}\n")
	write(t, dir, "src/Old Name.txt", letterLines(20, ""))
	write(t, dir, "src/nonl.txt", "one\ntwo")
	write(t, dir, "run.sh", "echo hi\n")
	write(t, dir, "src/-- dashes.txt", "-- a\n++ b\nkeep\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "v1")

	write(t, dir, "src/A.java", "class A {\n  int f() {\n    if (x == null) return 0;\n    return 2;\n  }\n  int g() { return 3; }\n}\n")
	testcheck.Must(t, os.Remove(filepath.Join(dir, "src/Gone.java")))
	write(t, dir, "src/New.java", "class New {}\n")
	testcheck.Must(t, os.Remove(filepath.Join(dir, "src/Old Name.txt")))
	write(t, dir, "src/b/New Name.txt", strings.Replace(letterLines(20, ""), "line c\n", "line C!\n", 1))
	write(t, dir, "src/nonl.txt", "one\nTWO\nthree")
	testcheck.Must(t, os.Chmod(filepath.Join(dir, "run.sh"), 0o755))
	write(t, dir, "src/-- dashes.txt", "--- a\n+++ b\nkeep\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "v2")

	forward := git(t, dir, "diff", "-M", "HEAD~1", "HEAD")
	// The diff from v2 back to v1 is the reverse we want; `git diff -R`
	// would also keep the a/ and b/ prefixes on the swapped paths.
	want := git(t, dir, "diff", "-M", "HEAD", "HEAD~1")
	for _, needle := range []string{"rename from", "new file mode", "deleted file mode", "old mode", `\ No newline`, "\n+--- a\n"} {
		if !strings.Contains(forward, needle) {
			t.Fatalf("fixture lacks %q; the test would not cover it:\n%s", needle, forward)
		}
	}
	got, err := reverseDiff(forward)
	if err != nil {
		t.Fatalf("reverseDiff: %v", err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("reverseDiff(git diff) != git diff HEAD HEAD~1 (-want +got):\n%s", d)
	}
	back, err := reverseDiff(got)
	if err != nil {
		t.Fatalf("reverseDiff twice: %v", err)
	}
	if d := cmp.Diff(forward, back); d != "" {
		t.Errorf("reverseDiff is not an involution (-want +got):\n%s", d)
	}
}

func TestReverseDiffCases(t *testing.T) {
	tests := []struct {
		name, in, want, err string
	}{
		{
			name: "svn headers and single-line ranges",
			in:   "Index: a.txt\n===\n--- a.txt\t(revision 2)\n+++ a.txt\t(revision 1)\n@@ -3 +3,2 @@ ctx\n-x\n+y\n+z\n",
			want: "Index: a.txt\n===\n--- a.txt\t(revision 1)\n+++ a.txt\t(revision 2)\n@@ -3,2 +3 @@ ctx\n-y\n-z\n+x\n",
		},
		{
			name: "crlf kept",
			in:   "--- a/f\r\n+++ b/f\r\n@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+c\r\n",
			want: "--- a/f\r\n+++ b/f\r\n@@ -1,2 +1,2 @@\r\n a\r\n-c\r\n+b\r\n",
		},
		{
			name: "empty context line",
			in:   "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n\n-b\n+c\n x\n",
			want: "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n\n-c\n+b\n x\n",
		},
		{name: "empty", in: "", want: ""},
		{name: "short hunk", in: "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n", err: "end of diff inside a hunk"},
		{name: "bad header", in: "--- a/f\n+++ b/f\n@@ -x +1 @@\n", err: "malformed hunk header"},
		{name: "orphan +++", in: "+++ b/f\n", err: "without a preceding"},
		{name: "orphan ---", in: "--- a/f\n", err: "without its partner"},
		{name: "binary patch", in: "diff --git a/x b/x\nGIT binary patch\n", err: "cannot be reversed"},
		{name: "huge count", in: "--- a/f\n+++ b/f\n@@ -1,99999999999 +1 @@\n", err: "out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := reverseDiff(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("reverseDiff error = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("reverseDiff: %v", err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestReverseDiffDefects4JInvolution reverses every stored Defects4J patch
// twice and expects the original text back (the patches are git output,
// so each change run already lists removals first): all 17 projects' when
// the full copy is there, else the vendored bugs'.
func TestReverseDiffDefects4JInvolution(t *testing.T) {
	root, _ := shareddata.Either(t, defects4jDir...)
	files, _ := filepath.Glob(filepath.Join(root, "*", "patches", "*.patch"))
	if len(files) == 0 {
		t.Fatal("no Defects4J patches under " + root)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		once, err := reverseDiff(string(data))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		twice, err := reverseDiff(once)
		if err != nil {
			t.Errorf("%s reversed: %v", f, err)
			continue
		}
		if twice != string(data) {
			t.Errorf("%s: reversing twice changes the patch:\n%s", f, cmp.Diff(string(data), twice))
		}
	}
}
