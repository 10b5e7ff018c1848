package demo

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
)

// history builds a small git repository with the git CLI: a fixed identity,
// fixed author and committer dates per commit, branch main, and no user or
// system configuration, so the same inputs give the same commit hashes.
type history struct {
	dir string
}

// gitEnv is the environment every git child runs with.
func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=/nonexistent",
		"GIT_AUTHOR_NAME=Bench Forge", "GIT_AUTHOR_EMAIL=demo@benchforge.invalid",
		"GIT_COMMITTER_NAME=Bench Forge", "GIT_COMMITTER_EMAIL=demo@benchforge.invalid",
		"GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
}

// newHistory initialises an empty repository on branch main in dir, which
// is removed first if it exists (the demo rebuilds its histories each run).
func newHistory(ctx context.Context, dir string) (*history, error) {
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("demo: reset %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("demo: create %s: %w", dir, err)
	}
	h := &history{dir: dir}
	if _, err := h.git(ctx, "init", "-q", "-b", "main"); err != nil {
		return nil, err
	}
	return h, nil
}

// git runs one git command in the repository and returns its trimmed
// standard output.
func (h *history) git(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir, cmd.Env = h.dir, gitEnv()
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		if _, ok := err.(*exec.Error); ok {
			return "", fmt.Errorf("demo: git %s: %w: %w (install git ≥ 2.33)", args[0], errs.ErrUnavailable, err)
		}
		return "", fmt.Errorf("demo: git %s in %s: %w: %s", strings.Join(args, " "), h.dir, err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// write puts content at the slash-separated path of the work tree.
func (h *history) write(path string, content []byte) error {
	p := filepath.Join(h.dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if err := os.WriteFile(p, content, 0o644); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	return nil
}

// commit stages every change and commits it at date; it returns the hash.
func (h *history) commit(ctx context.Context, msg string, date time.Time) (string, error) {
	if _, err := h.git(ctx, "add", "-A"); err != nil {
		return "", err
	}
	d := date.UTC().Format(time.RFC3339)
	cmd := exec.CommandContext(ctx, "git", "commit", "-q", "--allow-empty", "--no-verify", "-m", msg)
	cmd.Dir = h.dir
	cmd.Env = append(gitEnv(), "GIT_AUTHOR_DATE="+d, "GIT_COMMITTER_DATE="+d)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("demo: git commit %q in %s: %w: %s", msg, h.dir, err, strings.TrimSpace(string(b)))
	}
	return h.git(ctx, "rev-parse", "HEAD")
}

// branch creates branch name at rev and switches to it.
func (h *history) branch(ctx context.Context, name, rev string) error {
	_, err := h.git(ctx, "checkout", "-q", "-b", name, rev)
	return err
}

// checkout switches to an existing branch.
func (h *history) checkout(ctx context.Context, name string) error {
	_, err := h.git(ctx, "checkout", "-q", name)
	return err
}

// change is one commit of a history: a file's new content, the message
// and the date.
type change struct {
	path    string
	content []byte
	msg     string
	date    time.Time
}

// apply writes c's file and commits it; it returns the hash.
func (h *history) apply(ctx context.Context, c change) (string, error) {
	if err := h.write(c.path, c.content); err != nil {
		return "", err
	}
	return h.commit(ctx, c.msg, c.date)
}

// worktree checks branch out in a new worktree at dir (removed first if it
// exists), whose HEAD is the branch: its default branch, as in a clone of
// that branch alone.
func (h *history) worktree(ctx context.Context, dir, branch string) error {
	abs, err := filepath.Abs(dir) // git runs in the repository
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if err := os.RemoveAll(abs); err != nil {
		return fmt.Errorf("demo: reset %s: %w", dir, err)
	}
	_, err = h.git(ctx, "worktree", "add", "-q", abs, branch)
	return err
}
