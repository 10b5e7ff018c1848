package gitrepo

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
)

// cleanPath normalises a repository path ("./a//b" → "a/b") and rejects
// paths that cannot name a file inside a tree.
func cleanPath(p string) (string, error) {
	if p == "" || strings.ContainsAny(p, "\n\x00") {
		return "", fmt.Errorf("path %q is empty or contains a newline", p)
	}
	c := path.Clean(strings.TrimPrefix(p, "/"))
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("path %q is outside the repository", p)
	}
	return c, nil
}

// ReadFile returns the content of path at rev.
func (r *Repo) ReadFile(ctx context.Context, rev, path string) ([]byte, error) {
	m, err := r.ReadFiles(ctx, rev, []string{path})
	if err != nil {
		return nil, err
	}
	return m[path], nil
}

// ReadFiles returns the contents of paths at rev, keyed by the paths as
// given. All reads go through the repository's cat-file process in one
// pipelined batch, so hundreds of files cost milliseconds.
//
// Files that do not exist at rev (or are directories or submodules) are
// left out of the map and named in the returned error, which wraps
// errs.ErrNotFound; the files that were found are still returned.
func (r *Repo) ReadFiles(ctx context.Context, rev string, paths []string) (map[string][]byte, error) {
	c, err := r.Resolve(ctx, rev)
	if err != nil {
		return nil, fmt.Errorf("gitrepo.ReadFiles(%s): %w", rev, err)
	}
	specs, err := r.blobSpecs(rev, c.Tree, paths)
	if err != nil {
		return nil, err
	}
	objs, err := r.batch(ctx, specs)
	if err != nil {
		return nil, fmt.Errorf("gitrepo.ReadFiles(%s): %w", rev, err)
	}
	out := make(map[string][]byte, len(paths))
	var missing, notBlob []string
	for i, o := range objs {
		switch {
		case o.Missing || o.Ambiguous:
			missing = append(missing, rev+":"+paths[i])
		case o.Type != "blob":
			notBlob = append(notBlob, rev+":"+paths[i]+" ("+o.Type+")")
		default:
			out[paths[i]] = o.Data
		}
	}
	if len(missing)+len(notBlob) > 0 {
		return out, fmt.Errorf("gitrepo.ReadFiles in %s: %s: check the path and revision: %w", r.path, unreadable(missing, notBlob), errs.ErrNotFound)
	}
	return out, nil
}

// blobSpecs names each path in tree for cat-file ("<tree>:<path>").
func (r *Repo) blobSpecs(rev, tree string, paths []string) ([]string, error) {
	specs := make([]string, len(paths))
	for i, p := range paths {
		cp, err := cleanPath(p)
		if err != nil {
			return nil, fmt.Errorf("gitrepo.ReadFiles(%s:%s) in %s: %v: %w", rev, p, r.path, err, errs.ErrInput)
		}
		specs[i] = tree + ":" + cp
	}
	return specs, nil
}

// unreadable describes the files ReadFiles could not return: "no such file
// …", "not a file …" or both, separated by "; ".
func unreadable(missing, notBlob []string) string {
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, "no such file "+listSome(missing))
	}
	if len(notBlob) > 0 {
		parts = append(parts, "not a file "+listSome(notBlob))
	}
	return strings.Join(parts, "; ")
}

// listSome renders up to five items and a count of the rest.
func listSome(items []string) string {
	if len(items) <= 5 {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:5], ", "), len(items)-5)
}

// ListFiles lists the files (blobs and symlinks; not submodules) in the
// tree of rev, sorted, keeping those matching any of globs (all files when
// none are given). Globs use doublestar semantics; see Match.
func (r *Repo) ListFiles(ctx context.Context, rev string, globs ...string) ([]string, error) {
	for _, g := range globs {
		if err := ValidatePattern(g); err != nil {
			return nil, fmt.Errorf("gitrepo.ListFiles(%s, %q): %w: %w", rev, g, err, errs.ErrInput)
		}
	}
	c, err := r.Resolve(ctx, rev)
	if err != nil {
		return nil, fmt.Errorf("gitrepo.ListFiles(%s): %w", rev, err)
	}
	out, err := r.run(ctx, "ls-tree", "-r", "-z", "--full-tree", c.Tree)
	if err != nil {
		return nil, fmt.Errorf("gitrepo.ListFiles(%s): %w", rev, err)
	}
	files := blobPaths(out, globs)
	sort.Strings(files)
	return files, nil
}

// blobPaths parses `git ls-tree -r -z` output into the paths of its blobs
// matching any of globs (all blobs when none are given).
func blobPaths(out []byte, globs []string) []string {
	var files []string
	for _, rec := range bytes.Split(out, []byte{0}) {
		// "<mode> SP <type> SP <object> TAB <path>"
		meta, name, ok := bytes.Cut(rec, []byte{'\t'})
		if !ok || !bytes.Contains(meta, []byte(" blob ")) {
			continue
		}
		p := string(name)
		if len(globs) == 0 || matchAny(globs, p) {
			files = append(files, p)
		}
	}
	return files
}

func matchAny(globs []string, p string) bool {
	for _, g := range globs {
		if Match(g, p) {
			return true
		}
	}
	return false
}
