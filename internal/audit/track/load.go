package track

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/benchforge/benchforge/internal/gitrepo"
)

// LoadHistory reads `git log --first-parent --reverse --name-status -M -C`
// of tip (per-commit rename and copy detection against the first parent;
// merges diffed against their first parent), limited to files with the
// extensions exts (".java"; none: every file), and indexes it. Limiting
// the file set keeps the log fast and away from the large data files a
// partial clone may lack.
//
// A long chain is read in parts, one git per core, cut at chain commits:
// each commit is diffed against its first parent whichever part lists it,
// so the parts joined are the one log. Rename and copy detection make the
// log the costliest step of a Stage II run's start (commons-math's 6,900
// commits: 3 s of git), and the workers wait for it.
func LoadHistory(ctx context.Context, repo *gitrepo.Repo, tip string, exts []string) (*History, error) {
	return loadHistory(ctx, repo, tip, exts, min(runtime.GOMAXPROCS(0), maxLogParts), minPartCommits)
}

// maxLogParts bounds the gits one history is read with; minPartCommits is
// the shortest part worth a process of its own.
const (
	maxLogParts    = 4
	minPartCommits = 1000
)

// loadHistory reads the log in at most parts parts of at least minPart
// chain commits each.
func loadHistory(ctx context.Context, repo *gitrepo.Repo, tip string, exts []string, parts, minPart int) (*History, error) {
	ranges := []string{tip}
	if parts > 1 {
		var err error
		if ranges, err = logRanges(ctx, repo, tip, parts, minPart); err != nil {
			return nil, fmt.Errorf("read the first-parent history of %s: %w", repo.Path(), err)
		}
	}
	hs := make([]*History, len(ranges))
	g, gctx := errgroup.WithContext(ctx)
	for i, rg := range ranges {
		g.Go(func() error {
			var err error
			hs[i], err = logPart(gctx, repo, rg, exts)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, fmt.Errorf("read the first-parent history of %s: %w", repo.Path(), err)
	}
	return joinHistories(hs), nil
}

// logRanges cuts tip's first-parent chain into at most parts revision
// ranges of at least minPart commits, oldest first: "c1", "c1..c2", …,
// "ck..tip".
func logRanges(ctx context.Context, repo *gitrepo.Repo, tip string, parts, minPart int) ([]string, error) {
	out, err := repo.Git(ctx, "rev-list", "--first-parent", tip, "--")
	if err != nil {
		return nil, err
	}
	chain := bytes.Fields(out) // newest first
	parts = min(parts, len(chain)/max(1, minPart))
	if parts < 2 {
		return []string{tip}, nil
	}
	var cuts []string // oldest first
	for k := 1; k < parts; k++ {
		cuts = append(cuts, string(chain[len(chain)-k*len(chain)/parts]))
	}
	ranges := []string{cuts[0]}
	for k := 1; k < len(cuts); k++ {
		ranges = append(ranges, cuts[k-1]+".."+cuts[k])
	}
	return append(ranges, cuts[len(cuts)-1]+".."+tip), nil
}

// logPart reads the log of one revision range.
func logPart(ctx context.Context, repo *gitrepo.Repo, rg string, exts []string) (*History, error) {
	args := []string{"-c", "diff.renameLimit=10000", "log", "--first-parent", "--reverse", "-M", "-C",
		"--name-status", "-z", "--no-color", "--format=%x01%H %ct", rg, "--"}
	for _, e := range exts {
		args = append(args, "*"+e)
	}
	var h *History
	err := repo.GitWildStream(ctx, func(r io.Reader) error {
		var err error
		h, err = parseLog(r)
		return err
	}, args...)
	return h, err
}

// joinHistories is the history of parts listed one after another.
func joinHistories(parts []*History) *History {
	if len(parts) == 1 {
		return parts[0]
	}
	h := &History{index: map[string]int{}, touch: map[string][]int{}}
	for _, p := range parts {
		for _, c := range p.Commits {
			h.index[c.Hash] = len(h.Commits)
			h.Commits = append(h.Commits, Commit{Hash: c.Hash, Time: c.Time})
			for _, ch := range c.Changes {
				h.addChange(ch)
			}
		}
	}
	return h
}
