package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
)

// Clone returns the repository at url, cloned (bare, full history) into
// cacheDir/<owner>__<name> — see CacheName — or reused if that directory
// already holds a repository; an existing clone is not fetched. url is
// anything `git clone` accepts: https://, ssh, scp-like "host:owner/name",
// file://, or a local path. The clone is made in a temporary directory
// and renamed into place, so an interrupted clone leaves no half
// repository behind.
func Clone(ctx context.Context, url, cacheDir string) (*Repo, error) {
	name, err := CacheName(url)
	if err != nil {
		return nil, fmt.Errorf("gitrepo.Clone(%s): %w", url, err)
	}
	dest := filepath.Join(cacheDir, name)
	if _, err := os.Stat(dest); err == nil {
		r, err := Open(ctx, dest)
		if err != nil {
			return nil, fmt.Errorf("gitrepo.Clone(%s): cache entry %s exists but is unusable; delete it: %w", url, dest, err)
		}
		return r, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return nil, fmt.Errorf("gitrepo.Clone(%s): creating cache dir: %w", url, err)
	}
	tmp, err := os.MkdirTemp(cacheDir, ".clone-"+name+"-")
	if err != nil {
		return nil, fmt.Errorf("gitrepo.Clone(%s): %w", url, err)
	}
	defer os.RemoveAll(tmp) // a no-op after a successful rename

	target := filepath.Join(tmp, "repo.git")
	if err := cloneBare(ctx, url, target); err != nil {
		return nil, fmt.Errorf("gitrepo.Clone(%s): %w", url, err)
	}
	if err := os.Rename(target, dest); err != nil {
		// Another process may have won the race; use its clone.
		if r, oerr := Open(ctx, dest); oerr == nil {
			return r, nil
		}
		return nil, fmt.Errorf("gitrepo.Clone(%s): moving clone into %s: %w", url, dest, err)
	}
	return Open(ctx, dest)
}

// cloneBare runs `git clone --bare` of url into target. A failure is
// errs.ErrNotFound when git says the repository does not exist, else
// errs.ErrUnavailable.
func cloneBare(ctx context.Context, url, target string) error {
	cmd := guard(exec.CommandContext(ctx, "git", "clone", "--bare", "--quiet", "--", url, target))
	cmd.Env = gitEnv()
	var stderr bytes.Buffer
	cmd.Stderr = &limitedBuffer{buf: &stderr, max: 4096}
	err := cmd.Run()
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, exec.ErrNotFound):
		return fmt.Errorf("git not found on PATH; install git: %w", errs.ErrUnavailable)
	}
	msg := strings.TrimSpace(stderr.String())
	return fmt.Errorf("git clone: %s: %w", msg, cloneFailure(msg))
}

// notFoundClone are git clone messages saying the repository does not exist.
var notFoundClone = []string{"does not exist", "not found", "does not appear to be a git repository"}

// cloneFailure classifies git clone's stderr.
func cloneFailure(msg string) error {
	for _, m := range notFoundClone {
		if strings.Contains(msg, m) {
			return errs.ErrNotFound
		}
	}
	return errs.ErrUnavailable
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// CacheName is the cache directory name for a repository URL:
// "<owner>__<name>" from its last two path segments, with a trailing
// ".git" and any unsafe characters removed
// ("https://github.com/apache/commons-lang.git" → "apache__commons-lang",
// "git@github.com:jhy/jsoup" → "jhy__jsoup", "/srv/git/x" → "git__x").
// A URL with a single path segment gives just the name.
func CacheName(url string) (string, error) {
	u := strings.TrimSpace(url)
	if u == "" || strings.HasPrefix(u, "-") {
		return "", fmt.Errorf("repository URL %q is empty or starts with '-': %w", url, errs.ErrInput)
	}
	segs := nameSegments(urlPath(u))
	switch len(segs) {
	case 0:
		return "", fmt.Errorf("repository URL %q has no repository name: %w", url, errs.ErrInput)
	case 1:
		return segs[0], nil
	}
	return segs[len(segs)-2] + "__" + segs[len(segs)-1], nil
}

// urlPath is the path part of a repository URL: without scheme and host
// ("https://host/a/b" → "/a/b"), or the part after "host:" of an scp-like
// URL; a local path is returned as it is.
func urlPath(u string) string {
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
		if j := strings.IndexByte(u, '/'); j >= 0 { // drop the host
			return u[j:]
		}
		return ""
	}
	if i := strings.IndexByte(u, ':'); i > 0 && !strings.Contains(u[:i], "/") && !filepath.IsAbs(u) {
		return u[i+1:] // scp-like host:path
	}
	return u
}

// nameSegments splits a path on / or \ into its non-empty segments, each
// without a ".git" suffix and with unsafe characters replaced.
func nameSegments(p string) []string {
	var segs []string
	for _, s := range strings.Split(strings.ReplaceAll(p, `\`, "/"), "/") {
		s = strings.TrimSuffix(s, ".git")
		s = strings.Trim(unsafeName.ReplaceAllString(s, "-"), "-.")
		if s != "" {
			segs = append(segs, s)
		}
	}
	return segs
}
