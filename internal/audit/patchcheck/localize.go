package patchcheck

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo"
)

// gitCache memoises per-snapshot file lists and per-(from, snapshot) rename
// maps, which many samples of one repository share.
type gitCache struct {
	mu      sync.Mutex
	lists   map[string][]string
	renames map[string]map[string]string
}

func newGitCache() gitCache {
	return gitCache{lists: map[string][]string{}, renames: map[string]map[string]string{}}
}

// snapFile is the snapshot counterpart of one fixed file.
type snapFile struct {
	path string
	via  string // same-path | rename | basename | missing
	v    *version
	leaf leafIndex
}

// locateFile finds the fixed file p in the snapshot: at the same path,
// else the snapshot file with the same name sharing the longest path suffix
// with p (when not tied) — a moved file, found from one cached listing —
// else where git's rename detection between from and snap says it went (a
// renamed file; one `git diff -M` per fix commit, so it comes last).
func (c *Checker) locateFile(ctx context.Context, repo *gitrepo.Repo, from, snap, p string) (*snapFile, error) {
	try := func(q, via string) (*snapFile, error) { return c.snapFileVia(ctx, repo, snap, q, via) }
	if sf, err := try(p, "same-path"); sf != nil || err != nil {
		return sf, err
	}
	files, err := c.listFiles(ctx, repo, snap)
	if err != nil {
		return nil, err
	}
	if q := sameName(p, files); q != "" {
		if sf, err := try(q, "basename"); sf != nil || err != nil {
			return sf, err
		}
	}
	q, err := c.renamedTo(ctx, repo, from, snap, p)
	if err != nil {
		return nil, err
	}
	if q != "" {
		if sf, err := try(q, "rename"); sf != nil || err != nil {
			return sf, err
		}
	}
	return &snapFile{path: "", via: "missing"}, nil
}

// snapFileVia is snapshot file q found by way via, or nil when there is
// none.
func (c *Checker) snapFileVia(ctx context.Context, repo *gitrepo.Repo, snap, q, via string) (*snapFile, error) {
	sf, err := c.snapVersion(ctx, repo, snap, q)
	if sf == nil || err != nil {
		return nil, err
	}
	return &snapFile{path: sf.path, via: via, v: sf.v, leaf: sf.leaf}, nil
}

// renamedTo is where git's rename detection between from and snap says p
// went, or "" (also without from).
func (c *Checker) renamedTo(ctx context.Context, repo *gitrepo.Repo, from, snap, p string) (string, error) {
	if from == "" {
		return "", nil
	}
	ren, err := c.renames(ctx, repo, from, snap)
	if err != nil {
		return "", err
	}
	return ren[p], nil
}

// snapVersion reads, parses and normalises path at commit once per run
// (a bounded cache shared by the workers: many samples read the same
// snapshot file, and the history walk reads the same versions again); nil
// when the file is not there.
func (c *Checker) snapVersion(ctx context.Context, repo *gitrepo.Repo, commit, p string) (*snapFile, error) {
	key := repo.GitDir() + "\x00" + commit + "\x00" + p
	if sf, ok := c.parsed.get(key); ok {
		return sf, nil
	}
	src, err := repo.ReadFile(ctx, commit, p)
	if err != nil {
		if errors.Is(err, errs.ErrNotFound) && ctx.Err() == nil {
			return nil, nil
		}
		return nil, fmt.Errorf("read %s at commit %s: %w", p, short(commit), err)
	}
	v := c.fileVersion(repo, p, src)
	sf := &snapFile{path: p, v: v, leaf: leafLines(v)}
	c.parsed.put(key, sf)
	return sf, nil
}

// parseCache is a bounded map of parsed snapshot files; the oldest entry
// goes first when it is full.
type parseCache struct {
	mu    sync.Mutex
	m     map[string]*snapFile
	order []string
	max   int
}

func (p *parseCache) get(k string) (*snapFile, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	sf, ok := p.m[k]
	return sf, ok
}

func (p *parseCache) put(k string, sf *snapFile) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]*snapFile{}
	}
	if _, ok := p.m[k]; ok {
		return
	}
	p.m[k] = sf
	p.order = append(p.order, k)
	if len(p.order) > p.max {
		delete(p.m, p.order[0])
		p.order = p.order[1:]
	}
}

// sameName returns the file of files with p's base name sharing the longest
// path suffix with p, or "" when there is none or the best is tied.
func sameName(p string, files []string) string {
	base := path.Base(p)
	segs := strings.Split(p, "/")
	best, bestN, tied := "", -1, false
	for _, f := range files {
		if path.Base(f) != base {
			continue
		}
		fs := strings.Split(f, "/")
		n := 0
		for n < len(fs) && n < len(segs) && fs[len(fs)-1-n] == segs[len(segs)-1-n] {
			n++
		}
		switch {
		case n > bestN:
			best, bestN, tied = f, n, false
		case n == bestN:
			tied = true
		}
	}
	if tied {
		return ""
	}
	return best
}

func (c *Checker) listFiles(ctx context.Context, repo *gitrepo.Repo, snap string) ([]string, error) {
	key := repo.GitDir() + "\x00" + snap
	c.git.mu.Lock()
	l, ok := c.git.lists[key]
	c.git.mu.Unlock()
	if ok {
		return l, nil
	}
	l, err := repo.ListFiles(ctx, snap)
	if err != nil {
		return nil, fmt.Errorf("patchcheck: list files at snapshot %s: %w", short(snap), err)
	}
	c.git.mu.Lock()
	c.git.lists[key] = l
	c.git.mu.Unlock()
	return l, nil
}

// renames returns old path → new path for the files git's rename detection
// (default 50% similarity) finds between from and snap. internal/gitrepo
// follows renames backwards (FileHistory); the snapshot is a descendant of
// the fix, so the forward direction is asked of `git diff -M` directly.
func (c *Checker) renames(ctx context.Context, repo *gitrepo.Repo, from, snap string) (map[string]string, error) {
	key := repo.GitDir() + "\x00" + from + "\x00" + snap
	c.git.mu.Lock()
	m, ok := c.git.renames[key]
	c.git.mu.Unlock()
	if ok {
		return m, nil
	}
	out, err := repo.Git(ctx, "diff", "--no-ext-diff", "--name-status", "-z", "-M", "--diff-filter=R", from, snap, "--")
	m = map[string]string{}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// A commit the clone lacks: no renames known; the caller still
		// tries the same name.
		c.git.mu.Lock()
		c.git.renames[key] = m
		c.git.mu.Unlock()
		return m, nil
	}
	f := strings.Split(string(out), "\x00")
	for i := 0; i+2 < len(f); i += 3 {
		if strings.HasPrefix(f[i], "R") {
			m[f[i+1]] = f[i+2]
		}
	}
	c.git.mu.Lock()
	c.git.renames[key] = m
	c.git.mu.Unlock()
	return m, nil
}
