package gitrepo

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
)

// DefaultBranch names the branch a training-set crawler would snapshot:
// the branch HEAD points at (for a bare clone, the remote's default branch
// recorded in HEAD by `git clone`). If HEAD is detached or points at an
// unborn branch it falls back to refs/remotes/origin/HEAD, then main, then
// master. The name returned is accepted by Resolve and SnapshotOn.
func (r *Repo) DefaultBranch(ctx context.Context) (string, error) {
	ref, err := r.defaultRef(ctx)
	if err != nil {
		return "", err
	}
	return shortRef(ref), nil
}

// defaultRef is DefaultBranch's full ref name ("refs/heads/main"), which
// cannot be confused with a tag of the same short name.
func (r *Repo) defaultRef(ctx context.Context) (string, error) {
	if head := r.headRef(ctx); head != "" {
		if ok, err := r.isCommit(ctx, head); err != nil {
			return "", err
		} else if ok {
			return head, nil
		}
	}
	var candidates []string
	if out, err := r.run(ctx, "symbolic-ref", "-q", "refs/remotes/origin/HEAD"); err == nil {
		candidates = append(candidates, strings.TrimSpace(string(out)))
	} else if ctx.Err() != nil {
		return "", fmt.Errorf("gitrepo.DefaultBranch in %s: %w", r.path, ctx.Err())
	}
	candidates = append(candidates, "refs/heads/main", "refs/heads/master")
	for _, c := range candidates {
		if ok, err := r.isCommit(ctx, c); err != nil {
			return "", err
		} else if ok {
			return c, nil
		}
	}
	return "", fmt.Errorf("gitrepo.DefaultBranch: no default branch in %s: HEAD is detached or unborn and there is no main or master; name a branch: %w", r.path, errs.ErrNotFound)
}

// headRef is the ref HEAD points at ("refs/heads/main"), or "" if HEAD is
// detached. It reads the HEAD file, which is what git itself does for the
// files backend, and asks git only when the file is not a plain symref.
func (r *Repo) headRef(ctx context.Context) string {
	b, err := os.ReadFile(filepath.Join(r.gitDir, "HEAD"))
	if s := strings.TrimSpace(string(b)); err == nil && strings.HasPrefix(s, "ref: refs/heads/") && !strings.HasSuffix(s, "/.invalid") {
		return strings.TrimPrefix(s, "ref: ")
	}
	out, err := r.run(ctx, "symbolic-ref", "-q", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func (r *Repo) isCommit(ctx context.Context, ref string) (bool, error) {
	objs, err := r.batch(ctx, []string{ref + "^{commit}"})
	if err != nil {
		return false, fmt.Errorf("gitrepo.DefaultBranch: %w", err)
	}
	o := objs[0]
	return !o.Missing && !o.Ambiguous && o.Type == "commit", nil
}

// shortRef turns refs/heads/x into x and refs/remotes/origin/x into
// origin/x, names that Resolve accepts.
func shortRef(ref string) string {
	if s, ok := strings.CutPrefix(ref, "refs/heads/"); ok {
		return s
	}
	return strings.TrimPrefix(ref, "refs/remotes/")
}

// Snapshot returns the cutoff snapshot of the default branch: see SnapshotOn.
func (r *Repo) Snapshot(ctx context.Context, cutoff time.Time) (Commit, error) {
	ref, err := r.defaultRef(ctx)
	if err != nil {
		return Commit{}, err
	}
	return r.SnapshotOn(ctx, ref, cutoff)
}

// SnapshotOn returns the cutoff snapshot of ref: the first commit on ref's
// first-parent chain, walking back from ref's tip, whose committer date is
// strictly before cutoff (BenchChecker §3.1: "the latest snapshot before the
// cutoff", taken from the default branch as The Stack crawls, §2).
//
// Committer date, not author date: it is when a commit landed on the
// branch (rebases, cherry-picks and merges of old work keep an old author
// date but get a new committer date), so it is the closer proxy for "this
// state of the branch was public at time t".
//
// First-parent chain: the tip's first parent, its first parent, and so on,
// i.e. the states the branch itself went through; commits that arrived
// inside a merged side branch never were the branch's tip.
//
// Non-monotonic dates (clock skew, rebased history) are taken as recorded:
// the walk stops at the first commit from the tip with date < cutoff, even
// if an older ancestor carries a later date. A commit dated after the
// cutoff that sits below that point is therefore still in the snapshot.
//
// No commit on the chain before cutoff (cutoff precedes the first commit,
// or the clone is shallow) is an error wrapping errs.ErrNotFound.
func (r *Repo) SnapshotOn(ctx context.Context, ref string, cutoff time.Time) (Commit, error) {
	tip, err := r.Resolve(ctx, ref)
	if err != nil {
		return Commit{}, fmt.Errorf("gitrepo.SnapshotOn(%s, %s): %w", ref, cutoff.Format(time.RFC3339), err)
	}
	// The tip itself is the common answer for a recent cutoff; skip the walk.
	if tip.Committer.When.Before(cutoff) {
		return tip, nil
	}
	hash, err := r.firstBefore(ctx, tip.Hash, cutoff)
	if err != nil {
		return Commit{}, fmt.Errorf("gitrepo.SnapshotOn(%s, %s): %w", ref, cutoff.Format(time.RFC3339), err)
	}
	if hash == "" {
		hint := ""
		if _, err := os.Stat(filepath.Join(r.gitDir, "shallow")); err == nil {
			hint = " (the clone is shallow: fetch with --unshallow)"
		}
		return Commit{}, fmt.Errorf("gitrepo.SnapshotOn: no commit on %s of %s before %s%s: %w",
			ref, r.path, cutoff.Format(time.RFC3339), hint, errs.ErrNotFound)
	}
	c, err := r.Resolve(ctx, hash)
	if err != nil {
		return Commit{}, fmt.Errorf("gitrepo.SnapshotOn(%s, %s): %w", ref, cutoff.Format(time.RFC3339), err)
	}
	return c, nil
}

// firstBefore streams the first-parent chain from tip (one "<hash> <unix
// committer time>" line per commit, tip first; with a single line of
// descent rev-list's date-ordered queue never reorders) and stops the walk
// at the first commit dated before cutoff. It returns "" when none is.
func (r *Repo) firstBefore(ctx context.Context, tip string, cutoff time.Time) (string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	args := []string{"rev-list", "--first-parent", "--no-commit-header", "--format=%H %ct", tip, "--"}
	cmd := r.command(ctx, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &limitedBuffer{buf: &stderr, max: 4096}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", r.cmdError(ctx, args, err, "")
	}
	found := ""
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		h, ts, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		secs, err := strconv.ParseInt(ts, 10, 64)
		if err != nil {
			continue
		}
		if time.Unix(secs, 0).Before(cutoff) {
			found = h
			break
		}
	}
	if found != "" {
		cancel() // stop the walk; the kill error below is expected
		_ = cmd.Wait()
		return found, nil
	}
	if err := cmd.Wait(); err != nil {
		return "", r.cmdError(ctx, args, err, stderr.String())
	}
	return "", nil
}
