package testbed

import (
	"context"
	"errors"
	"fmt"

	"github.com/benchforge/benchforge/internal/audit/repoprobe"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo"
	"github.com/benchforge/benchforge/internal/ngram"
)

// Snapshot is one earlier state of a trained repository that the target
// also reads: the commit and the sampled files it already held.
type Snapshot struct {
	Commit string
	Files  []repoprobe.File
}

// defaultSnapshotMonths is the spacing of earlier snapshots when the
// manifest gives none: about the interval between successive crawls of
// the public code corpora (The Stack v1 2022, v2 2024; yearly dumps).
const defaultSnapshotMonths = 12

// history reads the manifest's earlier snapshots of a trained repository
// (member or background): a pretrained model's crawl holds a repository
// many times over, once per crawl it was in, so its stable code is seen
// once per snapshot and code that changed fewer times (Kandpal et al.
// 2022; Carlini et al. 2023: memorisation grows with duplication). The
// i-th earlier snapshot is the first-parent state of the branch
// i × SnapshotMonths months before the manifest commit
// (gitrepo.SnapshotOn), read at the same sampled paths; a path that did
// not exist then is left out, and a history shorter than asked ends the
// list (the note says how many were read).
func history(ctx context.Context, m *Manifest, e Entry, r *gitrepo.Repo, paths []string, o ReadOptions) ([]Snapshot, error) {
	if m.Snapshots <= 1 {
		return nil, nil
	}
	head, err := r.Resolve(ctx, e.Commit)
	if err != nil {
		return nil, fmt.Errorf("testbed: %s at %s (is the commit in the clone? fetch it): %w", e.Repo, e.Commit, err)
	}
	months := m.SnapshotMonths
	if months <= 0 {
		months = defaultSnapshotMonths
	}
	var out []Snapshot
	for i := 1; i < m.Snapshots; i++ {
		cutoff := head.Committer.When.AddDate(0, -i*months, 0)
		c, err := r.SnapshotOn(ctx, e.Commit, cutoff)
		if errors.Is(err, errs.ErrNotFound) {
			break // the repository is younger than this snapshot
		}
		if err != nil {
			return nil, fmt.Errorf("testbed: %s: snapshot %d (%d months before %.12s): %w", e.Repo, i, i*months, e.Commit, err)
		}
		files, err := readAt(ctx, r, c.Hash, paths, o)
		if err != nil {
			return nil, fmt.Errorf("testbed: %s: snapshot %d at %.12s: %w", e.Repo, i, c.Hash, err)
		}
		out = append(out, Snapshot{Commit: c.Hash, Files: files})
	}
	return out, nil
}

// readAt reads those of paths that exist at commit, at most MaxFileBytes
// each, in path order.
func readAt(ctx context.Context, r *gitrepo.Repo, commit string, paths []string, o ReadOptions) ([]repoprobe.File, error) {
	present, err := r.ListFiles(ctx, commit)
	if err != nil {
		return nil, err
	}
	have := make(map[string]bool, len(present))
	for _, p := range present {
		have[p] = true
	}
	var want []string
	for _, p := range paths {
		if have[p] {
			want = append(want, p)
		}
	}
	blobs, err := r.ReadFiles(ctx, commit, want)
	if err != nil {
		return nil, err
	}
	o.MaxFiles = len(want)
	return keepFiles(want, blobs, o), nil
}

// snapshotDocs are the training documents of earlier snapshots, named by
// repository, commit and path.
func snapshotDocs(name string, snaps []Snapshot) []ngram.Doc {
	var docs []ngram.Doc
	for _, s := range snaps {
		for _, f := range s.Files {
			docs = append(docs, ngram.Doc{Name: fmt.Sprintf("snapshot/%s@%.12s/%s", name, s.Commit, f.Path), Text: f.Content})
		}
	}
	return docs
}

// snapshotNote says, for the composition table, what was read of a
// repository's history.
func snapshotNote(m *Manifest, snaps []Snapshot) string {
	if m.Snapshots <= 1 {
		return ""
	}
	n := 0
	for _, s := range snaps {
		n += len(s.Files)
	}
	if len(snaps) == m.Snapshots-1 {
		return fmt.Sprintf("%d earlier snapshots, %d files", len(snaps), n)
	}
	return fmt.Sprintf("%d of %d earlier snapshots (history shorter), %d files", len(snaps), m.Snapshots-1, n)
}
