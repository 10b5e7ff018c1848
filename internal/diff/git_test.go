package diff

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/testcheck"
	"github.com/google/go-cmp/cmp"
)

// gitRun runs git in dir with fixed identities and dates.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_AUTHOR_DATE=2020-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2020-01-01T00:00:00Z",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// gitBlob is `git show rev` when present is true, else "".
func gitBlob(t *testing.T, dir string, present bool, rev string) string {
	t.Helper()
	if !present {
		return ""
	}
	return gitRun(t, dir, "show", rev)
}

// checkApplyBothWays checks that fd takes old to want strictly (no fuzz,
// no offset) and that its reverse takes the result back to old.
func checkApplyBothWays(t *testing.T, fd *FileDiff, old, want string) {
	t.Helper()
	strict := ApplyOptions{Fuzz: -1, MaxOffset: -1}
	got, err := Apply([]byte(old), fd, strict)
	if err != nil || string(got) != want {
		t.Errorf("%s: Apply = %q, %v; want %q", fd.Name(), got, err, want)
		return
	}
	back, err := Apply(got, Reverse(fd), strict)
	if err != nil || string(back) != old {
		t.Errorf("%s: Apply(Reverse) = %q, %v; want %q", fd.Name(), back, err, old)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	testcheck.Must(t, os.WriteFile(path, []byte(content), 0o644))
}

// TestGitFixtures builds a repository with every kind of change git
// reports, diffs it with git, and checks that the patch renders back
// byte-for-byte and that applying each text file's diff to the old blob
// gives the new file (and reversing it gives the old one back).
func TestGitFixtures(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	write := func(name, content string) { writeFile(t, filepath.Join(dir, name), content) }
	gitRun(t, dir, "init", "-q")
	big := strings.Repeat("filler line\n", 30)
	write("A.java", javaOld)
	write("crlf.txt", "one\r\ntwo\r\nthree\r\n")
	write("nonl.txt", "a\nb")
	write("gone.txt", "bye\n")
	write("move.txt", big+"tail\n")
	write("caf\u00e9 \"q\".txt", "x\n")
	write("mode.sh", "echo\n")
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-qm", "base")
	write("A.java", javaNew)
	write("crlf.txt", "one\r\n2\r\nthree\r\n")
	write("nonl.txt", "a\nb\n")
	write("new.txt", "fresh\nlines\n")
	write("caf\u00e9 \"q\".txt", "y\n")
	testcheck.Must(t, os.Remove(filepath.Join(dir, "gone.txt")))
	testcheck.Must(t, os.Rename(filepath.Join(dir, "move.txt"), filepath.Join(dir, "moved.txt")))
	write("moved.txt", big+"tail changed\n")
	testcheck.Must(t, os.Chmod(filepath.Join(dir, "mode.sh"), 0o755))
	gitRun(t, dir, "add", "-A")
	patch := gitRun(t, dir, "diff", "--cached", "-M")
	files := mustParse(t, patch)
	if d := cmp.Diff(patch, render(t, files)); d != "" {
		t.Fatalf("render not byte-exact (-git +ours):\n%s", d)
	}
	if len(files) != 8 {
		t.Fatalf("parsed %d files, want 8:\n%s", len(files), patch)
	}
	for _, fd := range files {
		checkApplyBothWays(t, fd, gitBlob(t, dir, !fd.IsNew, "HEAD:"+fd.OldPath), gitBlob(t, dir, !fd.IsDeleted, ":"+fd.NewPath))
	}
	// git apply accepts the reversed patch rendered by us.
	var rev strings.Builder
	for _, fd := range files {
		rev.WriteString(Reverse(fd).String())
	}
	write("rev.patch", rev.String())
	gitRun(t, dir, "apply", "--cached", "--check", "rev.patch")
}
