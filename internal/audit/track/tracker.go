package track

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/gitrepo"
)

// Tracker caches, for a whole run, each repository's first-parent history
// (one `git log` per repository) and the parsed file versions the walks
// read. It is safe for concurrent use.
type Tracker struct {
	mu    sync.Mutex
	hists map[string]*histEntry
	files *versions
	exts  []string
}

type histEntry struct {
	once sync.Once
	h    *History
	err  error
	done atomic.Bool // once has run
}

// versionBudget bounds the parsed file versions a run keeps (bytes of
// source, twice: the parsed function texts copy it). On commons-lang's 40
// development samples 192 entries (~80 MB) re-read and re-parsed
// StringUtils.java at the same commits for sample after sample.
const versionBudget = 384 << 20

// New returns an empty Tracker that follows files with the extensions
// exts (".java", ".py"; none: every file).
func New(exts ...string) *Tracker {
	return &Tracker{hists: map[string]*histEntry{}, files: newVersions(versionBudget), exts: exts}
}

// ShareTrees makes the tracker parse file versions incrementally through
// trees (shared with the caller, who parses versions of the same files).
// Call it before the first Follow.
func (t *Tracker) ShareTrees(trees *code.Trees) { t.files.trees = trees }

// History returns repo's first-parent chain up to tip, loaded once per
// (repository, tip).
func (t *Tracker) History(ctx context.Context, repo *gitrepo.Repo, tip string) (*History, error) {
	key := repo.GitDir() + "\x00" + tip
	t.mu.Lock()
	e := t.hists[key]
	if e == nil {
		e = &histEntry{}
		t.hists[key] = e
	}
	t.mu.Unlock()
	e.once.Do(func() {
		e.h, e.err = LoadHistory(ctx, repo, tip, t.exts)
		e.done.Store(true)
	})
	return e.h, e.err
}

// Loaded reports whether History(repo, tip) would return at once (the
// history is loaded, or failed to load).
func (t *Tracker) Loaded(repo *gitrepo.Repo, tip string) bool {
	t.mu.Lock()
	e := t.hists[repo.GitDir()+"\x00"+tip]
	t.mu.Unlock()
	return e != nil && e.done.Load()
}

// Anchor is where a fix landed on the chain.
type Anchor struct {
	Index  int    // position on the chain; -1 when the fix never landed
	Commit string // the landing commit
	Via    string // fix-commit | merge | pickaxe | base
	Reason string // why Index is -1, or how the anchor was found
}

// AnchorFix finds where commit fix (Defects4J's revision.id.fixed) landed:
// itself when it is on the chain, else the first chain commit containing
// it; -1 with a reason when no chain commit does.
func (t *Tracker) AnchorFix(ctx context.Context, repo *gitrepo.Repo, h *History, fix string) (Anchor, error) {
	c, err := repo.Resolve(ctx, fix)
	if err != nil {
		return Anchor{}, fmt.Errorf("fix commit %s: %w", fix, err)
	}
	i, err := h.Landing(ctx, repo, c.Hash)
	if err != nil {
		return Anchor{}, err
	}
	if i < 0 {
		return Anchor{Index: -1, Via: "fix-commit", Reason: "the fix commit is not on the default branch"}, nil
	}
	via := "fix-commit"
	if h.Commits[i].Hash != c.Hash {
		via = "merge"
	}
	return Anchor{Index: i, Commit: h.Commits[i].Hash, Via: via}, nil
}

// AddedLines are one file's lines a gold patch adds (trimmed), for the
// SWE-bench anchor.
type AddedLines struct {
	Path  string
	Lines []string
	// Removed are the lines the patch removes from the file (trimmed): an
	// added line among them was only re-indented, and a pickaxe search
	// for it finds nothing (its count in the file does not change).
	Removed []string
}

// AnchorPatch finds where a SWE-bench gold patch landed upstream: the
// first chain commit after base whose tree contains the added source lines
// of the patch (at least minLanded of them) (a pickaxe search `git log -S` on the most distinctive
// added line proposes candidates, reading the files verifies them). When
// no commit qualifies the anchor is -1 with the reason.
func (t *Tracker) AnchorPatch(ctx context.Context, repo *gitrepo.Repo, h *History, base string, files []AddedLines) (Anchor, error) {
	bc, err := repo.Resolve(ctx, base)
	if err != nil {
		return Anchor{}, fmt.Errorf("base commit %s: %w", base, err)
	}
	from, err := h.Landing(ctx, repo, bc.Hash)
	if err != nil {
		return Anchor{}, err
	}
	if from < 0 {
		return Anchor{Index: -1, Via: "pickaxe", Reason: "the base commit is not on the default branch"}, nil
	}
	probes := distinctive(files, 3)
	if len(probes) == 0 {
		return Anchor{Index: -1, Via: "pickaxe", Reason: "the gold patch adds no line to search for"}, nil
	}
	// From the base commit itself, not from its landing on the chain: the
	// base often sits on a release branch whose merge into the default
	// branch is also the merge that brought the fix in.
	span := bc.Hash + ".." + h.Commits[len(h.Commits)-1].Hash
	for _, p := range probes {
		an, ok, err := t.pickaxe(ctx, repo, h, span, from, p, files)
		if err != nil || ok {
			return an, err
		}
	}
	return Anchor{Index: -1, Via: "pickaxe", Reason: fmt.Sprintf("no default-branch commit after the base commit adds %q to %s with the rest of the gold patch", probes[0].line, probes[0].path)}, nil
}

// pickaxe searches span for the commits adding probe p's line and returns
// the first, at chain index from or later, that contains the gold patch.
func (t *Tracker) pickaxe(ctx context.Context, repo *gitrepo.Repo, h *History, span string, from int, p probe, files []AddedLines) (Anchor, bool, error) {
	out, err := repo.Git(ctx, "log", "--first-parent", "--reverse", "--format=%H", "-S"+p.line, span, "--", p.path)
	if err != nil {
		return Anchor{}, false, fmt.Errorf("search the history for the gold patch's line %q: %w", p.line, err)
	}
	for _, hash := range strings.Fields(string(out)) {
		i := h.Index(hash)
		if i < from {
			continue
		}
		ok, err := t.contains(ctx, repo, hash, files)
		if err != nil {
			return Anchor{}, false, err
		}
		if ok {
			return Anchor{Index: i, Commit: hash, Via: "pickaxe"}, true, nil
		}
	}
	return Anchor{}, false, nil
}

// minLanded is the share of the gold patch's added lines a candidate
// commit's tree must hold to be where the fix landed: the upstream commit
// often differs from the benchmark's cleaned patch in a line or two
// (formatting, a comment, a later tweak merged with it).
const minLanded = 0.8

// contains reports whether at least minLanded of the added lines of files
// (and the probe line itself) are in the files at commit.
func (t *Tracker) contains(ctx context.Context, repo *gitrepo.Repo, commit string, files []AddedLines) (bool, error) {
	total, found := 0, 0
	for _, f := range files {
		v, err := t.files.get(ctx, repo, commit, f.Path)
		if err != nil {
			return false, err
		}
		if v == nil {
			total += len(f.Lines)
			continue
		}
		have := codeLines(v.src)
		for _, l := range f.Lines {
			total++
			if have[stripComment(l)] {
				found++
			}
		}
	}
	return total > 0 && float64(found) >= minLanded*float64(total), nil
}

// codeLines is the set of src's lines, trimmed and without trailing
// comments.
func codeLines(src []byte) map[string]bool {
	have := map[string]bool{}
	for _, l := range strings.Split(string(src), "\n") {
		have[stripComment(strings.TrimSpace(l))] = true
	}
	return have
}

// probe is an added line to search the history for, and its file.
type probe struct{ line, path string }

// distinctive picks up to n pickaxe probes: the longest added lines that
// the patch does not also remove (then the re-indented ones)
// (ties: the earlier file's), each without a trailing comment, which the
// upstream commit often lacks or words otherwise ("# type: ignore").
func distinctive(files []AddedLines, n int) []probe {
	var cs, moved []probe
	seen := map[string]bool{}
	for _, f := range files {
		removed := map[string]bool{}
		for _, l := range f.Removed {
			removed[stripComment(l)] = true
		}
		for _, l := range f.Lines {
			l = stripComment(l)
			if len(l) < 8 || seen[l] {
				continue
			}
			seen[l] = true
			if removed[l] {
				moved = append(moved, probe{l, f.Path})
			} else {
				cs = append(cs, probe{l, f.Path})
			}
		}
	}
	byLength := func(ps []probe) {
		sort.SliceStable(ps, func(i, j int) bool { return len(ps[i].line) > len(ps[j].line) })
	}
	byLength(cs)
	byLength(moved)
	cs = append(cs, moved...) // re-indented lines last: -S cannot see them
	return cs[:min(n, len(cs))]
}

// stripComment drops a trailing "  # …" or "  // …" comment from a
// trimmed line (two spaces before the marker, as style guides write it,
// so a "#" or "//" inside a string literal stays).
func stripComment(l string) string {
	for _, m := range []string{"  # ", "  // "} {
		if i := strings.Index(l, m); i > 0 {
			l = strings.TrimSpace(l[:i])
		}
	}
	return l
}
