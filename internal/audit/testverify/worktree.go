package testverify

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/errs"
)

// Checkout writes the tree of commit in the repository whose git directory
// is gitDir into dst (created), using indexFile as a throw-away index:
// `git read-tree` then `git checkout-index -a`. The repository itself is
// not written, bare repositories work, and unlike `git archive` files marked
// export-ignore are kept.
func Checkout(ctx context.Context, gitDir, commit, dst, indexFile string) error {
	op := fmt.Sprintf("checkout %.12s of %s", commit, gitDir)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return fmt.Errorf("%s: %v: %w", op, err, errs.ErrUnavailable)
	}
	env := append(gitEnv(), "GIT_DIR="+gitDir, "GIT_WORK_TREE="+dst, "GIT_INDEX_FILE="+indexFile)
	for _, args := range [][]string{
		{"read-tree", commit},
		{"-c", "core.bare=false", "-c", "core.symlinks=true", "checkout-index", "-a", "-f"},
	} {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%s: %w", op, ctx.Err())
			}
			kind := errs.ErrUnavailable
			if _, ok := err.(*exec.ExitError); ok {
				kind = errs.ErrNotFound
			}
			return fmt.Errorf("%s: git %s: %v: %s: %w", op, args[len(args)-3], err, strings.TrimSpace(stderr.String()), kind)
		}
	}
	return nil
}

// gitEnv is the caller's environment without variables that would point
// git elsewhere or prompt.
func gitEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "GIT_") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "LC_ALL=C")
}

// ApplyPatch applies a unified diff (one or more files) to the tree at
// root, like `patch -p1`: modifications, new and deleted files, renames.
// Paths must stay inside root and may not pass through symbolic links. A
// hunk that does not fit gives the *diff.ApplyError naming file and hunk.
func ApplyPatch(root string, patch []byte, opts diff.ApplyOptions) error {
	files, err := diff.ParseBytes(patch)
	if err != nil {
		return fmt.Errorf("parse patch: %w", err)
	}
	if len(files) == 0 {
		return fmt.Errorf("patch holds no file diffs: %w", errs.ErrInput)
	}
	for _, fd := range files {
		if err := applyFile(root, fd, opts); err != nil {
			return err
		}
	}
	return nil
}

func applyFile(root string, fd *diff.FileDiff, opts diff.ApplyOptions) error {
	if fd.IsBinary {
		return fmt.Errorf("patch of %s: binary patches are not applied: %w", fd.Name(), errs.ErrUnsupported)
	}
	old, oldPath, mode, err := readOld(root, fd)
	if err != nil {
		return err
	}
	out := old
	if len(fd.Hunks) > 0 {
		if out, err = diff.Apply(old, fd, opts); err != nil {
			return err
		}
	}
	if fd.IsDeleted {
		if err := os.Remove(oldPath); err != nil {
			return fmt.Errorf("patch deleting %s: %v: %w", fd.OldPath, err, errs.ErrUnavailable)
		}
		return nil
	}
	newPath, err := safePath(root, fd.NewPath)
	if err != nil {
		return err
	}
	if err := checkTarget(fd, newPath); err != nil {
		return err
	}
	return writePatched(fd, oldPath, newPath, out, mode)
}

// readOld reads the regular file a patch changes (none for a new file):
// its content and path, and the mode the patched file gets — the patch's
// new mode, else the old file's, else 0644.
func readOld(root string, fd *diff.FileDiff) (old []byte, oldPath string, mode fs.FileMode, err error) {
	mode = fs.FileMode(0o644)
	if fd.NewMode == "100755" {
		mode = 0o755
	}
	if fd.IsNew {
		return nil, "", mode, nil
	}
	p, err := safePath(root, fd.OldPath)
	if err != nil {
		return nil, "", mode, err
	}
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, "", mode, fmt.Errorf("patch of %s: the file does not exist in the work tree: %w", fd.OldPath, errs.ErrInput)
	}
	if !fi.Mode().IsRegular() {
		return nil, "", mode, fmt.Errorf("patch of %s: not a regular file (%v): %w", fd.OldPath, fi.Mode().Type(), errs.ErrUnsupported)
	}
	if fd.NewMode == "" {
		mode = fi.Mode().Perm()
	}
	if old, err = os.ReadFile(p); err != nil {
		return nil, "", mode, fmt.Errorf("patch of %s: %v: %w", fd.OldPath, err, errs.ErrUnavailable)
	}
	return old, p, mode, nil
}

// checkTarget refuses to create a file that already exists, or to patch
// a path that is not a regular file.
func checkTarget(fd *diff.FileDiff, newPath string) error {
	if fd.IsNew {
		if _, err := os.Lstat(newPath); err == nil {
			return fmt.Errorf("patch creating %s: the file already exists: %w", fd.NewPath, errs.ErrInput)
		}
		return nil
	}
	if fi, err := os.Lstat(newPath); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("patch of %s: not a regular file: %w", fd.NewPath, errs.ErrUnsupported)
	}
	return nil
}

// writePatched writes the patched content to newPath with mode, first
// removing the old file of a rename.
func writePatched(fd *diff.FileDiff, oldPath, newPath string, out []byte, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(newPath), 0o755); err != nil {
		return fmt.Errorf("patch of %s: %v: %w", fd.NewPath, err, errs.ErrUnavailable)
	}
	if fd.IsRename && oldPath != "" && oldPath != newPath {
		if err := os.Remove(oldPath); err != nil {
			return fmt.Errorf("patch renaming %s: %v: %w", fd.OldPath, err, errs.ErrUnavailable)
		}
	}
	if err := os.WriteFile(newPath, out, mode); err != nil {
		return fmt.Errorf("patch of %s: %v: %w", fd.NewPath, err, errs.ErrUnavailable)
	}
	return os.Chmod(newPath, mode)
}

// safePath joins a patch's slash-separated path to root, refusing absolute
// paths, "..", and any component of root/rel that is a symbolic link.
func safePath(root, rel string) (string, error) {
	clean := path.Clean(rel)
	if rel == "" || path.IsAbs(clean) || clean == "." || clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("patch path %q leaves the work tree: %w", rel, errs.ErrInput)
	}
	p := root
	for _, part := range strings.Split(clean, "/") {
		p = filepath.Join(p, part)
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return "", fmt.Errorf("patch path %q goes through the symbolic link %s: %w", rel, part, errs.ErrUnsupported)
		}
	}
	return p, nil
}
