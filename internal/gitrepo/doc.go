// Package gitrepo owns read access to git history: opening a local
// repository (bare or not) or cloning one into a cache, finding a default
// branch, the cutoff snapshot (BenchChecker §3.1: the last first-parent
// commit on the default branch committed strictly before a model's
// training cutoff), reading files and listing trees at any revision, and
// rename-following file history. It never writes to a repository other
// than by Clone.
//
// # Definitions
//
//   - Cutoff snapshot: walking the default branch's first-parent chain from
//     its tip, the first commit whose committer date is < cutoff. See
//     SnapshotOn for why committer date and what non-monotonic dates do.
//   - Revision: anything `git rev-parse` accepts (hash, abbreviated hash,
//     branch, tag, "main~3"); it is always resolved to a commit first.
//   - Paths are slash-separated and relative to the repository root.
//
// # Implementation: the git CLI, chosen by measurement
//
// Every object read (commits, files) goes through a long-lived
// `git cat-file --batch` process of the Repo (up to four, one per
// concurrent caller, so parallel workers do not queue for one pipe), fed
// by a writer goroutine so a batch of N reads is pipelined rather than N
// round trips; each is killed on Close, on context cancellation (and
// replaced by the next call), and by a runtime cleanup if a Repo is
// dropped unclosed.
// The first-parent walk streams `git rev-list --first-parent` and stops it
// at the first match; listing uses `git ls-tree -r -z`; history uses
// `git log --follow --name-status -z`. All children run with
// GIT_LITERAL_PATHSPECS, GIT_NO_REPLACE_OBJECTS, no prompts, LC_ALL=C, and
// with GIT_DIR-style variables from the caller's environment removed.
//
// Requires git ≥ 2.33 on PATH (rev-list --no-commit-header); its absence
// is reported as errs.ErrUnavailable.
package gitrepo
