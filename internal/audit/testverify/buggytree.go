package testverify

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo"
)

// defects4jStyle reports whether sample s is built the Defects4J way: it
// names a fix commit and has no test patch. Defects4J's buggy version is
// the fixed revision with the gold (source) patch reversed, so it carries
// the fixed version's tests — the trigger tests, usually added by the fix
// commit itself, which the real parent commit does not have — and it is
// the file patchcheck builds the modified patch against (patchcheck's
// atFixCommit).
func defects4jStyle(s bench.Sample) bool {
	return s.FixCommit != "" && strings.TrimSpace(s.TestPatch) == ""
}

// checkoutBuggy writes the sample's buggy version into work: for a
// Defects4J-style sample the fix commit minus the gold patch, else the
// base commit hash.
func checkoutBuggy(ctx context.Context, s bench.Sample, repo *gitrepo.Repo, hash, work, tmp string, opts diff.ApplyOptions) error {
	if !defects4jStyle(s) {
		return Checkout(ctx, repo.GitDir(), hash, work, filepath.Join(tmp, "index"))
	}
	fix, err := repo.Resolve(ctx, s.FixCommit)
	if err != nil {
		return fmt.Errorf("fix commit %q in %s: %w", s.FixCommit, repo.Path(), err)
	}
	if err := Checkout(ctx, repo.GitDir(), fix.Hash, work, filepath.Join(tmp, "index")); err != nil {
		return err
	}
	files, err := diff.ParseString(s.Patch)
	if err != nil {
		return fmt.Errorf("gold patch: %w", err)
	}
	for _, fd := range files {
		if err := applyFile(work, diff.Reverse(fd), opts); err != nil {
			return fmt.Errorf("reversing the gold patch on fix commit %.12s (Defects4J's buggy version): %w", fix.Hash, err)
		}
	}
	if len(files) == 0 {
		return fmt.Errorf("gold patch holds no file diffs: %w", errs.ErrInput)
	}
	return nil
}
