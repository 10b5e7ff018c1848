// Package gittest builds small, reproducible git repositories for tests
// with the real git CLI: fixed identity ("Bench Forge
// <bench@example.com>"), fixed author and committer dates given per
// commit, branch "main", and no user or system git configuration. Use it
// from any package's tests:
//
//	b := gittest.New(t)
//	b.Write("src/A.java", "class A {}")
//	c1 := b.Commit("add A", gittest.Date(2020, 1, 1))
//	r, _ := gitrepo.Open(ctx, b.Dir())
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Builder is a fixture repository with a work tree. Every method fails
// the test on error. Changes made with Write, Remove and Rename are staged
// by the next Commit (git add -A), so a commit costs three git processes
// however many files it touches.
type Builder struct {
	t     testing.TB
	dir   string
	bares int
}

// New initialises an empty repository on branch main in t.TempDir().
func New(t testing.TB) *Builder {
	t.Helper()
	return NewIn(t, t.TempDir())
}

// NewIn initialises an empty repository on branch main in dir, which must
// exist and be empty. Use it for a fixture shared by several tests (built
// once, in a directory that TestMain removes); t only reports failures.
func NewIn(t testing.TB, dir string) *Builder {
	t.Helper()
	b := &Builder{t: t, dir: dir}
	b.Git("init", "--quiet", "--initial-branch=main")
	return b
}

// Date is midnight UTC on the given day, for terse fixed commit dates.
func Date(year int, month time.Month, day int) time.Time {
	return time.Date(year, month, day, 0, 0, 0, 0, time.UTC)
}

// Dir is the repository's work tree (pass it to gitrepo.Open).
func (b *Builder) Dir() string { return b.dir }

// Env is the environment git runs with: no global or system config, fixed
// identity, no prompts.
func Env() []string {
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	return append(env,
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=Bench Forge", "GIT_AUTHOR_EMAIL=bench@example.com",
		"GIT_COMMITTER_NAME=Bench Forge", "GIT_COMMITTER_EMAIL=bench@example.com",
	)
}

// Git runs git with args in the repository and returns its trimmed stdout.
func (b *Builder) Git(args ...string) string {
	b.t.Helper()
	return b.gitEnv(nil, args...)
}

func (b *Builder) gitEnv(extra []string, args ...string) string {
	b.t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = b.dir
	cmd.Env = append(Env(), extra...)
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		b.t.Fatalf("gittest: git %s: %v: %s", strings.Join(args, " "), err, msg)
	}
	return strings.TrimSpace(string(out))
}

// Write writes content to path (slash-separated, relative to the work
// tree), creating directories.
func (b *Builder) Write(path, content string) {
	b.t.Helper()
	full := filepath.Join(b.dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// Remove deletes path from the work tree.
func (b *Builder) Remove(path string) {
	b.t.Helper()
	if err := os.Remove(filepath.Join(b.dir, filepath.FromSlash(path))); err != nil {
		b.t.Fatal(err)
	}
}

// Rename moves oldPath to newPath in the work tree; git records it as a
// rename when the content stays at least 50% similar.
func (b *Builder) Rename(oldPath, newPath string) {
	b.t.Helper()
	dst := filepath.Join(b.dir, filepath.FromSlash(newPath))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		b.t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(b.dir, filepath.FromSlash(oldPath)), dst); err != nil {
		b.t.Fatal(err)
	}
}

// Commit stages every change in the work tree and commits it with author and committer date both
// set to date and returns the commit hash. Empty commits are allowed.
func (b *Builder) Commit(msg string, date time.Time) string {
	b.t.Helper()
	return b.CommitDates(msg, date, date)
}

// CommitDates commits with distinct author and committer dates (as a
// rebase or cherry-pick produces) and returns the hash.
func (b *Builder) CommitDates(msg string, author, committer time.Time) string {
	b.t.Helper()
	b.Git("add", "-A")
	b.gitEnv(dateEnv(author, committer), "commit", "--quiet", "--allow-empty", "-m", msg)
	return b.head()
}

// head reads HEAD's hash from the files git just wrote (one process fewer
// per commit than `git rev-parse HEAD`; git is slow on a loaded machine),
// falling back to rev-parse for anything unusual.
func (b *Builder) head() string {
	b.t.Helper()
	gitDir := filepath.Join(b.dir, ".git")
	h, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	s := strings.TrimSpace(string(h))
	if err == nil && strings.HasPrefix(s, "ref: refs/heads/") {
		h, err = os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(strings.TrimPrefix(s, "ref: "))))
		s = strings.TrimSpace(string(h))
	}
	if err != nil || len(s) != 40 && len(s) != 64 {
		return b.Git("rev-parse", "HEAD")
	}
	return s
}

func dateEnv(author, committer time.Time) []string {
	return []string{
		"GIT_AUTHOR_DATE=" + author.Format(time.RFC3339),
		"GIT_COMMITTER_DATE=" + committer.Format(time.RFC3339),
	}
}

// Branch creates branch name at HEAD and switches to it.
func (b *Builder) Branch(name string) {
	b.t.Helper()
	b.Git("checkout", "--quiet", "-b", name)
}

// Checkout switches to an existing branch.
func (b *Builder) Checkout(name string) {
	b.t.Helper()
	b.Git("checkout", "--quiet", name)
}

// Merge merges branch into the current branch with a merge commit (never
// fast-forward) dated date and returns its hash. Commit pending changes
// first. The current branch is
// the merge's first parent.
func (b *Builder) Merge(branch, msg string, date time.Time) string {
	b.t.Helper()
	b.gitEnv(dateEnv(date, date), "merge", "--quiet", "--no-ff", "-m", msg, branch)
	return b.head()
}

// CloneBare makes a bare clone of the repository next to its work tree
// (so it lives as long as the fixture) and returns its path.
func (b *Builder) CloneBare() string {
	b.t.Helper()
	b.bares++
	dst := b.dir + "-bare" + strconv.Itoa(b.bares) + ".git"
	b.Git("clone", "--quiet", "--bare", "--", b.dir, dst)
	return dst
}
