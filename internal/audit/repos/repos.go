// Package repos owns repository resolution for the audit: finding the local
// clone of a sample's repository (bare or not) in a directory of clones,
// through an optional mapping file, or by cloning it into a cache.
//
// Lookup order for a repository "owner/name" (Defects4J samples also carry
// their project name, e.g. "Lang", in Meta["project"]):
//
//  1. the mapping file, keyed by "owner/name" or project name;
//  2. in the --repos directory: owner__name, owner/name, the project name,
//     and each of those with ".git" appended (a bare clone);
//  3. with Clone set, the clone in CacheDir (owner__name, as
//     gitrepo.CacheName names it), cloned from https://github.com/owner/name
//     (or URLBase) when missing.
//
// The mapping file is JSON, an object from repository or project name to a
// path; relative paths are taken from the mapping file's directory:
//
//	{"apache/commons-lang": "/srv/git/commons-lang.git", "Lang": "lang"}
//
// Opened repositories are kept and shared until Close.
package repos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo"
)

// Options configure a Resolver.
type Options struct {
	// Dir holds local clones; "" means none.
	Dir string
	// Mapping is the path of a JSON mapping file; "" means none.
	Mapping string
	// Clone clones repositories that are not found locally into CacheDir.
	Clone    bool
	CacheDir string
	// URLBase prefixes "owner/name" to make a clone URL; "" means
	// "https://github.com/".
	URLBase string
}

// Resolver finds and opens repositories. It is safe for concurrent use.
type Resolver struct {
	opts    Options
	mapping map[string]string
	mu      sync.Mutex
	open    map[string]*entry
}

type entry struct {
	once sync.Once
	repo *gitrepo.Repo
	err  error
}

// New returns a Resolver; it reads the mapping file now.
func New(opts Options) (*Resolver, error) {
	r := &Resolver{opts: opts, mapping: map[string]string{}, open: map[string]*entry{}}
	if opts.Clone && opts.CacheDir == "" {
		return nil, fmt.Errorf("repos: --clone needs a cache directory: %w", errs.ErrUsage)
	}
	if opts.Mapping != "" {
		data, err := os.ReadFile(opts.Mapping)
		if err != nil {
			return nil, fmt.Errorf("repos: read mapping %s: %w", opts.Mapping, errors.Join(errs.ErrInput, err))
		}
		var m map[string]string
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("repos: mapping %s must be a JSON object of name → path: %v: %w", opts.Mapping, err, errs.ErrInput)
		}
		base := filepath.Dir(opts.Mapping)
		for k, p := range m {
			if !filepath.IsAbs(p) {
				p = filepath.Join(base, p)
			}
			r.mapping[k] = p
		}
	}
	return r, nil
}

// Candidates lists the local paths tried for repo (and project, when not
// empty) under dir, in order.
func Candidates(dir, repo, project string) []string {
	if dir == "" {
		return nil
	}
	var names []string
	if owner, name, ok := strings.Cut(repo, "/"); ok && owner != "" && name != "" {
		names = append(names, owner+"__"+name, filepath.Join(owner, name))
	}
	if project != "" {
		names = append(names, project)
	}
	var out []string
	for _, n := range names {
		out = append(out, filepath.Join(dir, n), filepath.Join(dir, n+".git"))
	}
	return out
}

// Repo opens the clone for sample s (see the package doc for the order).
// Not finding one is an error wrapping errs.ErrNotFound that lists where it
// looked.
func (r *Resolver) Repo(ctx context.Context, s bench.Sample) (*gitrepo.Repo, error) {
	project, _ := s.Meta["project"].(string)
	key := s.Repo + "\x00" + project
	r.mu.Lock()
	e := r.open[key]
	if e == nil {
		e = &entry{}
		r.open[key] = e
	}
	r.mu.Unlock()
	e.once.Do(func() { e.repo, e.err = r.resolve(ctx, s.Repo, project) })
	return e.repo, e.err
}

func (r *Resolver) resolve(ctx context.Context, repo, project string) (*gitrepo.Repo, error) {
	for _, k := range []string{repo, project} {
		if p, ok := r.mapping[k]; ok && k != "" {
			g, err := gitrepo.Open(ctx, p)
			if err != nil {
				return nil, fmt.Errorf("repos: mapping %s says %s is at %s: %w", r.opts.Mapping, k, p, err)
			}
			return g, nil
		}
	}
	tried := Candidates(r.opts.Dir, repo, project)
	for _, p := range tried {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			continue
		}
		g, err := gitrepo.Open(ctx, p)
		if err == nil {
			return g, nil
		}
	}
	if r.opts.Clone && strings.Count(repo, "/") == 1 {
		base := r.opts.URLBase
		if base == "" {
			base = "https://github.com/"
		}
		g, err := gitrepo.Clone(ctx, base+repo, r.opts.CacheDir)
		if err != nil {
			return nil, fmt.Errorf("repos: clone %s into %s: %w", repo, r.opts.CacheDir, err)
		}
		return g, nil
	}
	where := "no --repos directory given"
	if len(tried) > 0 {
		where = "looked in " + strings.Join(tried, ", ")
	}
	return nil, fmt.Errorf("repos: no local clone of %s (%s); add one, a mapping entry, or use --clone: %w", repo, where, errs.ErrNotFound)
}

// Close closes every repository opened.
func (r *Resolver) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errList []error
	for _, e := range r.open {
		if e.repo != nil {
			errList = append(errList, e.repo.Close())
		}
	}
	r.open = map[string]*entry{}
	return errors.Join(errList...)
}
