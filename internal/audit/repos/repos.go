// Package repos owns repository resolution, the one way every command that
// takes repositories (audit patch, audit run, seeds extract, lm train)
// finds a local clone, bare or not: in a directory of clones, through a
// mapping file, or by cloning it into a cache.
//
// Lookup order for a repository "owner/name" (Defects4J samples also carry
// their project name, e.g. "Lang", in Meta["project"]):
//
//  1. the mapping file, keyed by "owner/name" or project name (matched
//     case-insensitively);
//  2. in the --repos directory: owner__name, owner/name, owner+name (and
//     its "repo" subdirectory: the owner+name/repo layout of a fetch
//     mirror), the project name, the bare repository name, each also with
//     ".git" appended (a bare clone) or through a "repo" or ".git"
//     subdirectory;
//     then the same names matched case-insensitively (the Multi-SWE-bench
//     data says "fasterxml", GitHub "FasterXML");
//  3. with Clone set, the clone in CacheDir (owner__name, as
//     gitrepo.CacheName names it), cloned from https://github.com/owner/name
//     (or URLBase) when missing.
//
// A clone found nowhere is an error wrapping errs.ErrNotFound that reads
// "no local clone for OWNER/NAME under DIR: …" and says how to add one.
//
// The mapping file (--mapping, the same in every command) is JSON, an
// object from repository or project name to a path; relative paths are
// taken from the mapping file's directory:
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
		return nil, errs.Hint(nil, errs.ErrUsage, "{clone} needs a clone cache directory ({clone-dir})")
	}
	if opts.Mapping != "" {
		m, err := ReadMapping(opts.Mapping)
		if err != nil {
			return nil, err
		}
		r.mapping = m
	}
	return r, nil
}

// ReadMapping reads a --mapping file: a JSON object from repository
// ("owner/name") or project name to a clone path, relative paths taken from
// the file's directory. Errors wrap errs.ErrInput and name the file.
func ReadMapping(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, errs.Hint(nil, errors.Join(errs.ErrInput, err), "{mapping} "+path)
	}
	var m map[string]string
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, errs.Hint(nil, errs.ErrInput, fmt.Sprintf(`{mapping} %s: want a JSON object of name → clone path, e.g. {"apache/commons-lang": "/srv/git/commons-lang.git"}: %v`, path, err))
	}
	out := map[string]string{}
	for k, p := range m {
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(path), p)
		}
		out[k] = p
	}
	return out, nil
}

// Candidates lists the local paths tried for repo (and project, when not
// empty) under dir, in order, before the case-insensitive match.
func Candidates(dir, repo, project string) []string {
	if dir == "" {
		return nil
	}
	var names []string
	owner, name, ok := strings.Cut(repo, "/")
	if ok && owner != "" && name != "" {
		names = append(names, owner+"__"+name, filepath.Join(owner, name), owner+"+"+name, filepath.Join(owner+"+"+name, "repo"))
	}
	if project != "" {
		names = append(names, project)
	}
	if ok && name != "" {
		names = append(names, name)
	}
	var out []string
	for _, n := range names {
		out = append(out, filepath.Join(dir, n), filepath.Join(dir, n+".git"))
	}
	return out
}

// Find opens the clone of repo ("owner/name"; may be empty) or project (a
// Defects4J project name; may be empty) through mapping (from ReadMapping;
// mappingFile names it in errors) or under dir, as the package doc says.
// It does not clone. Not finding one is an error wrapping errs.ErrNotFound
// in the words of the package doc.
func Find(ctx context.Context, dir string, mapping map[string]string, mappingFile, repo, project string) (*gitrepo.Repo, error) {
	return find(ctx, dir, mapping, mappingFile, repo, project, false)
}

// find is Find; cloneHint adds --clone to the remedy.
func find(ctx context.Context, dir string, mapping map[string]string, mappingFile, repo, project string, cloneHint bool) (*gitrepo.Repo, error) {
	if g, ok, err := mapped(ctx, mapping, mappingFile, repo, project); ok {
		return g, err
	}
	if g := openFirst(ctx, Candidates(dir, repo, project)); g != nil {
		return g, nil
	}
	if g := openFirst(ctx, foldMatches(dir, repo, project)); g != nil {
		return g, nil
	}
	return nil, missing(dir, mappingFile, repo, project, cloneHint)
}

// mapped opens the clone the mapping gives for repo, else for project
// (names compared case-insensitively); ok is false when it gives none.
func mapped(ctx context.Context, mapping map[string]string, mappingFile, repo, project string) (g *gitrepo.Repo, ok bool, err error) {
	for _, k := range []string{repo, project} {
		if k == "" {
			continue
		}
		for mk, p := range mapping {
			if !strings.EqualFold(mk, k) {
				continue
			}
			g, err := gitrepo.Open(ctx, p)
			if err != nil {
				return nil, true, errs.Hint(nil, err, fmt.Sprintf("{mapping} %s says %s is at %s", mappingFile, k, p))
			}
			return g, true, nil
		}
	}
	return nil, false, nil
}

// openFirst opens the first of paths that is a repository (openDir).
func openFirst(ctx context.Context, paths []string) *gitrepo.Repo {
	for _, p := range paths {
		if g := openDir(ctx, p); g != nil {
			return g
		}
	}
	return nil
}

// openDir opens p, p/repo (a fetch mirror) or p/.git, when it is a
// repository.
func openDir(ctx context.Context, p string) *gitrepo.Repo {
	for _, d := range []string{p, filepath.Join(p, "repo"), filepath.Join(p, ".git")} {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			continue
		}
		if g, err := gitrepo.Open(ctx, d); err == nil {
			return g
		}
	}
	return nil
}

// foldMatches are the entries of dir that name repo or project when case
// is ignored (owner__name, owner+name[/repo], owner/name, project, name;
// ".git" optional).
func foldMatches(dir, repo, project string) []string {
	if dir == "" {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	owner, name, _ := strings.Cut(repo, "/")
	var out []string
	for _, e := range ents {
		out = append(out, entryMatches(dir, e, owner, name, project)...)
	}
	return out
}

// entryMatches is the paths entry e of dir gives for owner/name or
// project, case ignored.
func entryMatches(dir string, e os.DirEntry, owner, name, project string) []string {
	n := e.Name()
	full := owner != "" && name != ""
	switch {
	case full && foldEq(n, owner+"__"+name):
		return []string{filepath.Join(dir, n)}
	case full && foldEq(n, owner+"+"+name):
		return []string{filepath.Join(dir, n, "repo"), filepath.Join(dir, n)}
	case foldEq(n, project, name):
		return []string{filepath.Join(dir, n)}
	case full && strings.EqualFold(n, owner) && e.IsDir():
		return ownerMatches(filepath.Join(dir, n), name)
	}
	return nil
}

// ownerMatches is the entries of an owner's directory that name the
// repository, case ignored.
func ownerMatches(ownerDir, name string) []string {
	subs, _ := os.ReadDir(ownerDir)
	var out []string
	for _, sub := range subs {
		if foldEq(sub.Name(), name) {
			out = append(out, filepath.Join(ownerDir, sub.Name()))
		}
	}
	return out
}

// foldEq reports whether entry, without ".git", is one of the non-empty
// want, case ignored.
func foldEq(entry string, want ...string) bool {
	entry = strings.TrimSuffix(entry, ".git")
	for _, w := range want {
		if w != "" && strings.EqualFold(entry, w) {
			return true
		}
	}
	return false
}

// ErrNoClone is matched (errors.Is) by the error for a repository with
// no local clone; it also wraps errs.ErrNotFound, and its hint names the
// options that would find or make one.
var ErrNoClone = errors.New("no local clone")

// missing is the error for a clone found nowhere: what, where, and how to
// add one.
func missing(dir, mappingFile, repo, project string, cloneHint bool) error {
	what := repo
	if what == "" {
		what = project
	} else if project != "" && !strings.EqualFold(project, repo) {
		what += " (project " + project + ")"
	}
	clone := ""
	if cloneHint {
		clone = ", or pass {clone}"
	}
	if dir == "" {
		return errs.Hint(ErrNoClone, errs.ErrNotFound,
			fmt.Sprintf("no local clone for %s: no {repos} directory given; pass {repos} DIR holding its clone or a {mapping} entry%s", what, clone))
	}
	return errs.Hint(ErrNoClone, errs.ErrNotFound, fmt.Sprintf("no local clone for %s under %s: looked for owner__name, owner/name, owner+name/repo, the project and repository name (bare or not, any case); %s%s",
		what, dir, remedy(dir, mappingFile, repo), clone))
}

// remedy says how to add repo's clone under dir: clone it (from GitHub
// for an owner/name) or map it.
func remedy(dir, mappingFile, repo string) string {
	r := "add its clone there"
	if owner, name, ok := strings.Cut(repo, "/"); ok && owner != "" && name != "" {
		r = fmt.Sprintf("clone it with 'git clone --bare https://github.com/%s %s'", repo, filepath.Join(dir, owner+"__"+name+".git"))
	}
	if mappingFile != "" {
		return r + ", add it to " + mappingFile
	}
	return r + ", map it with {mapping} FILE"
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
	g, err := find(ctx, r.opts.Dir, r.mapping, r.opts.Mapping, repo, project, !r.opts.Clone)
	if err == nil || !errors.Is(err, errs.ErrNotFound) || !r.opts.Clone || strings.Count(repo, "/") != 1 {
		return g, err
	}
	base := r.opts.URLBase
	if base == "" {
		base = "https://github.com/"
	}
	g, cerr := gitrepo.Clone(ctx, base+repo, r.opts.CacheDir)
	if cerr != nil {
		return nil, errs.Hint(nil, cerr, fmt.Sprintf("clone %s into {clone-dir} %s", repo, r.opts.CacheDir))
	}
	return g, nil
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
