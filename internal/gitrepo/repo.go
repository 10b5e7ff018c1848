package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/benchforge/benchforge/internal/errs"
)

// Repo is an open local repository, bare or not. It is safe for concurrent
// use: object reads share one long-lived `git cat-file --batch` process
// behind a mutex; history and listing commands run as their own processes.
// Call Close to stop the cat-file process.
type Repo struct {
	path   string // as the caller named it, cleaned and absolute; used in messages
	gitDir string // absolute git directory
	bare   bool

	cat *catHolder
}

// catHolder owns the batch processes. It is separate from Repo so that a
// runtime cleanup can stop the processes of a Repo that was never closed.
// Up to maxCatFiles children serve concurrent callers, one caller each:
// with one child, a Stage II worker waited for the other's blobs.
type catHolder struct {
	mu     sync.Mutex
	gitDir string
	idle   []*catFile    // children ready for a batch
	slots  chan struct{} // one token per child that may run
	closed bool
}

// maxCatFiles bounds a repository's concurrent cat-file children.
const maxCatFiles = 4

func newCatHolder(gitDir string) *catHolder {
	return &catHolder{gitDir: gitDir, slots: make(chan struct{}, maxCatFiles)}
}

func (h *catHolder) shutdown() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	for _, p := range h.idle {
		p.close()
	}
	h.idle = nil
}

// Path is the repository's root (work tree for normal repositories, the git
// directory for bare ones), as used in error messages.
func (r *Repo) Path() string { return r.path }

// GitDir is the absolute git directory.
func (r *Repo) GitDir() string { return r.gitDir }

// Bare reports whether the repository has no work tree.
func (r *Repo) Bare() bool { return r.bare }

// Close stops the repository's cat-file process. It is idempotent; a closed
// Repo returns errors from every read.
func (r *Repo) Close() error {
	r.cat.shutdown()
	return nil
}

// Open opens the local repository at path: a work tree with a .git inside,
// or a bare git directory. It never searches parent directories, so a
// sub-directory of a repository is not a repository.
func Open(ctx context.Context, path string) (*Repo, error) {
	if path == "" {
		return nil, fmt.Errorf("gitrepo.Open: empty path: %w", errs.ErrUsage)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("gitrepo.Open(%s): %w", path, err)
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("open repository %s: not a git repository; clone it or pass --repos: %w", path, errs.ErrNotFound)
	}
	out, err := revParse(ctx, abs, path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 {
		return nil, fmt.Errorf("open repository %s: unexpected git rev-parse output %q: %w", path, out, errs.ErrUnavailable)
	}
	r := &Repo{
		path:   abs,
		gitDir: lines[0],
		bare:   lines[1] == "true",
	}
	r.cat = newCatHolder(r.gitDir)
	runtime.AddCleanup(r, (*catHolder).shutdown, r.cat)
	return r, nil
}

// revParse asks git for the git directory of abs and whether it is bare.
// path is abs as the caller gave it, for the error messages.
func revParse(ctx context.Context, abs, path string) ([]byte, error) {
	cmd := guard(exec.CommandContext(ctx, "git", "-C", abs, "rev-parse", "--absolute-git-dir", "--is-bare-repository"))
	// The ceiling stops discovery at abs itself: Open(repo/sub) must fail
	// rather than silently open repo.
	cmd.Env = append(gitEnv(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(abs))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	switch {
	case err == nil:
		return out, nil
	case ctx.Err() != nil:
		return nil, fmt.Errorf("gitrepo.Open(%s): %w", path, ctx.Err())
	case errors.Is(err, exec.ErrNotFound):
		return nil, fmt.Errorf("gitrepo.Open(%s): git not found on PATH; install git: %w", path, errs.ErrUnavailable)
	}
	if msg := strings.TrimSpace(stderr.String()); strings.Contains(msg, "dubious ownership") {
		return nil, fmt.Errorf("gitrepo.Open(%s): %s: %w", path, msg, errs.ErrInput)
	}
	return nil, fmt.Errorf("open repository %s: not a git repository; clone it or pass --repos: %w", path, errs.ErrNotFound)
}

// gitEnv is the environment of every git child: the caller's environment
// minus variables that would redirect git to another repository, plus
// settings that make output stable and non-interactive. Pathspecs are
// literal (a file named ":(glob)x" is just a file) and replace refs are
// ignored so that history is the recorded one.
func gitEnv() []string {
	env := make([]string, 0, len(os.Environ())+4)
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
			"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_NAMESPACE",
			"GIT_CEILING_DIRECTORIES", "LC_ALL", "LANG":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_LITERAL_PATHSPECS=1", "GIT_NO_REPLACE_OBJECTS=1")
}

// command builds a git command against the repository's git directory.
func (r *Repo) command(ctx context.Context, args ...string) *exec.Cmd {
	full := append([]string{"--git-dir=" + r.gitDir, "-c", "log.showSignature=false", "-c", "core.quotePath=false"}, args...)
	cmd := guard(exec.CommandContext(ctx, "git", full...))
	cmd.Env = gitEnv()
	return cmd
}

// run runs a git command to completion and returns its stdout.
func (r *Repo) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := r.command(ctx, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &limitedBuffer{buf: &stderr, max: 4096}
	out, err := cmd.Output()
	if err != nil {
		return out, r.cmdError(ctx, args, err, stderr.String())
	}
	return out, nil
}

// Git runs git with args against the repository (as every gitrepo child
// runs: its own process group, killed whole on cancellation, pipes waited
// for at most a moment after) and returns its stdout. For the few history
// queries that have no method here.
func (r *Repo) Git(ctx context.Context, args ...string) ([]byte, error) { return r.run(ctx, args...) }

// GitWildStream runs git with wildcard pathspecs ("*.java" matches at
// any depth: git's default matching, where * crosses "/"; the `:(glob)`
// form "**/*.java" is twice as slow on a long history) and hands its
// stdout to read as it is written, so a long history is parsed while git
// still walks it. A read error stops git.
func (r *Repo) GitWildStream(ctx context.Context, read func(io.Reader) error, args ...string) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := r.command(ctx, args...)
	env := cmd.Env[:0:0]
	for _, kv := range cmd.Env {
		if kv != "GIT_LITERAL_PATHSPECS=1" {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &limitedBuffer{buf: &stderr, max: 4096}
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return r.cmdError(ctx, args, err, "")
	}
	if err := cmd.Start(); err != nil {
		return r.cmdError(ctx, args, err, stderr.String())
	}
	rerr := read(pipe)
	if rerr != nil {
		cancel()
	}
	_, _ = io.Copy(io.Discard, pipe) // let git finish writing before Wait closes the pipe
	werr := cmd.Wait()
	switch {
	case rerr != nil:
		return rerr
	case werr != nil:
		return r.cmdError(ctx, args, werr, stderr.String())
	}
	return nil
}

// cmdError wraps a failed git invocation: cancellation stays cancellation,
// a missing git binary is ErrUnavailable, and anything else carries git's
// own message.
func (r *Repo) cmdError(ctx context.Context, args []string, err error, stderr string) error {
	op := "git " + firstArg(args)
	if ctx.Err() != nil {
		return fmt.Errorf("%s in %s: %w", op, r.path, ctx.Err())
	}
	if errors.Is(err, exec.ErrNotFound) {
		return fmt.Errorf("%s in %s: git not found on PATH; install git: %w", op, r.path, errs.ErrUnavailable)
	}
	msg := strings.TrimSpace(stderr)
	if msg == "" {
		msg = err.Error()
	}
	return fmt.Errorf("%s in %s: %s: %w", op, r.path, msg, errs.ErrUnavailable)
}

func firstArg(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// limitedBuffer keeps the first max bytes written and discards the rest, so
// a chatty git cannot grow memory without bound.
type limitedBuffer struct {
	buf *bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		if len(p) > room {
			l.buf.Write(p[:room])
		} else {
			l.buf.Write(p)
		}
	}
	return len(p), nil
}

var _ io.Writer = (*limitedBuffer)(nil)
