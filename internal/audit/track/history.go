package track

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/benchforge/benchforge/internal/gitrepo"
)

// Change is one file change of a commit against its first parent, as
// `git log --name-status -M -C` reports it: Status is git's letter (A, M,
// D, R, C, T); Old and New are equal except for renames and copies.
type Change struct {
	Status byte
	Old    string
	New    string
}

// Commit is one commit of the default branch's first-parent chain.
type Commit struct {
	Hash    string
	Time    time.Time
	Changes []Change
}

// History is a repository's first-parent chain, oldest first, with an
// index of the commits that touch each path.
type History struct {
	Commits []Commit
	index   map[string]int
	touch   map[string][]int // path → indices of commits where it is Old or New

	mu  sync.Mutex
	pos map[string]int // Position answers

	landMu sync.Mutex
	land   map[string]int // see landings
}

// Index returns the position of commit hash on the chain, or -1.
func (h *History) Index(hash string) int {
	if i, ok := h.index[hash]; ok {
		return i
	}
	return -1
}

// parseLog parses `git log --name-status -z --format=%x01%H %ct`: tokens
// split on NUL; "\x01<hash> <time>" starts a commit (preceded by a newline
// after the first), then "<status>" and one path, or two for R and C.
func parseLog(r io.Reader) (*History, error) {
	h := &History{index: map[string]int{}, touch: map[string][]int{}}
	toks := logTokens{bufio.NewReaderSize(r, 1<<16)}
	for {
		tok, ok := toks.next()
		if !ok {
			break
		}
		tok = strings.TrimLeft(tok, "\n")
		if tok == "" {
			continue
		}
		if tok[0] == 1 {
			if err := h.addCommit(tok[1:]); err != nil {
				return nil, err
			}
			continue
		}
		if len(h.Commits) == 0 {
			return nil, fmt.Errorf("git log: status %q before any commit", tok)
		}
		ch, err := toks.change(tok)
		if err != nil {
			return nil, err
		}
		h.addChange(ch)
	}
	return h, nil
}

// logTokens reads the NUL-terminated tokens of git log -z.
type logTokens struct{ br *bufio.Reader }

// next is the next token without its NUL; false at the end.
func (t logTokens) next() (string, bool) {
	s, err := t.br.ReadString(0)
	if err != nil && s == "" {
		return "", false
	}
	return strings.TrimSuffix(s, "\x00"), true
}

// change reads the path (or, for R and C, the two paths) of status tok.
func (t logTokens) change(tok string) (Change, error) {
	p1, ok := t.next()
	if !ok {
		return Change{}, fmt.Errorf("git log: status %q without its path", tok)
	}
	ch := Change{Status: tok[0], Old: p1, New: p1}
	if tok[0] == 'R' || tok[0] == 'C' {
		if ch.New, ok = t.next(); !ok {
			return Change{}, fmt.Errorf("git log: status %q without its second path", tok)
		}
	}
	return ch, nil
}

// addChange records ch in the last commit and indexes its paths.
func (h *History) addChange(ch Change) {
	i := len(h.Commits) - 1
	h.Commits[i].Changes = append(h.Commits[i].Changes, ch)
	h.touch[ch.Old] = append(h.touch[ch.Old], i)
	if ch.New != ch.Old {
		h.touch[ch.New] = append(h.touch[ch.New], i)
	}
}

func (h *History) addCommit(s string) error {
	hash, ts, ok := bytes.Cut([]byte(s), []byte(" "))
	if !ok {
		return fmt.Errorf("git log: malformed commit line %q", s)
	}
	secs, err := strconv.ParseInt(string(bytes.TrimSpace(ts)), 10, 64)
	if err != nil {
		return fmt.Errorf("git log: malformed commit time in %q", s)
	}
	h.index[string(hash)] = len(h.Commits)
	h.Commits = append(h.Commits, Commit{Hash: string(hash), Time: time.Unix(secs, 0).UTC()})
	return nil
}

// nextTouch is the first commit after i that touches path, or -1.
func (h *History) nextTouch(path string, i int) int {
	l := h.touch[path]
	lo, hi := 0, len(l)
	for lo < hi {
		m := (lo + hi) / 2
		if l[m] <= i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == len(l) {
		return -1
	}
	return l[lo]
}

// changeOf is commit i's change of path (as its old side), if any.
func (h *History) changeOf(i int, path string) (Change, bool) {
	var hit Change
	found := false
	for _, c := range h.Commits[i].Changes {
		if c.Old != path {
			continue
		}
		// A rename wins over a copy or a modification of the same path,
		// and a modification over a copy: git lists "C Calc.java
		// Bounds.java" before "M Calc.java" when a commit moves a method
		// out, and the copy leaves the file as it was.
		if !found || c.Status == 'R' || c.Status == 'D' || hit.Status == 'C' {
			hit, found = c, true
		}
	}
	return hit, found
}

// Position is the index of the last listed commit at or before commit
// hash on the chain (the log lists only the chain's commits that touch
// the followed files, so a snapshot that touched none is between two of
// them); -1 when hash precedes them all. Answers are cached.
func (h *History) Position(ctx context.Context, repo *gitrepo.Repo, hash string) (int, error) {
	if i := h.Index(hash); i >= 0 {
		return i, nil
	}
	h.mu.Lock()
	i, ok := h.pos[hash]
	h.mu.Unlock()
	if ok {
		return i, nil
	}
	l, err := h.Landing(ctx, repo, hash)
	if err != nil {
		return -1, err
	}
	switch {
	case l < 0:
		i = len(h.Commits) - 1 // no listed commit after hash
	default:
		i = l - 1
	}
	h.mu.Lock()
	if h.pos == nil {
		h.pos = map[string]int{}
	}
	h.pos[hash] = i
	h.mu.Unlock()
	return i, nil
}

// Landing is the first commit of the chain that contains commit fix (fix
// itself when it is on the chain, else the merge that brought it in), or
// -1 when no commit of the chain does (or git cannot tell: an unknown
// commit). fix must be a full hash (Resolve gives one).
func (h *History) Landing(ctx context.Context, repo *gitrepo.Repo, fix string) (int, error) {
	if i := h.Index(fix); i >= 0 {
		return i, nil
	}
	if len(h.Commits) == 0 {
		return -1, nil
	}
	lt, err := h.landings(ctx, repo)
	if err != nil {
		return -1, err
	}
	k, ok := lt[fix]
	if !ok {
		return -1, nil
	}
	// The listed commits are chain commits, oldest first: the landing is
	// the first at or after chain position k.
	i, _ := slices.BinarySearchFunc(h.Commits, k, func(c Commit, k int) int { return cmp.Compare(lt[c.Hash], k) })
	if i == len(h.Commits) {
		return -1, nil
	}
	return i, nil
}

// landings is, for every commit the last listed commit reaches, the chain
// position of the first chain commit that contains it. It is read once,
// with one `git rev-list --parents`, when Landing first meets a commit
// that is not listed: a Defects4J project's fixes made on branches, or a
// snapshot touching no followed file, each used to cost a `rev-list
// --ancestry-path` over everything after it (8 on Jsoup), while the whole
// graph costs about one of them. A git that fails gives an empty table
// (every such commit lands nowhere, as an unknown commit does); a stopped
// run is not remembered.
func (h *History) landings(ctx context.Context, repo *gitrepo.Repo) (map[string]int, error) {
	h.landMu.Lock()
	defer h.landMu.Unlock()
	if h.land != nil {
		return h.land, nil
	}
	out, err := repo.Git(ctx, "rev-list", "--parents", h.Commits[len(h.Commits)-1].Hash, "--")
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	h.land = map[string]int{}
	if err == nil {
		h.land = landingTable(out, h.Commits[len(h.Commits)-1].Hash)
	}
	return h.land, nil
}

// landingTable reads `git rev-list --parents tip` (one line per commit:
// the commit, then its parents, first parent first) and gives each commit
// the position on tip's first-parent chain (oldest 0) of the first chain
// commit whose history holds it: walking the chain oldest first, each
// chain commit claims itself and whatever its other parents reach that no
// earlier chain commit claimed (its first parent's history already is).
func landingTable(out []byte, tip string) map[string]int {
	parents := map[string][]string{}
	for line := range bytes.Lines(out) {
		f := strings.Fields(string(line))
		if len(f) > 0 {
			parents[f[0]] = f[1:]
		}
	}
	var chain []string // newest first
	for c := tip; c != ""; {
		chain = append(chain, c)
		ps, ok := parents[c]
		if !ok || len(ps) == 0 {
			break
		}
		c = ps[0]
	}
	slices.Reverse(chain)
	at := make(map[string]int, len(parents))
	var stack []string
	for k, c := range chain {
		at[c] = k
		for _, p := range parents[c][min(1, len(parents[c])):] {
			stack = append(stack, p)
		}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if _, seen := at[x]; seen {
				continue
			}
			at[x] = k
			stack = append(stack, parents[x]...)
		}
	}
	return at
}
