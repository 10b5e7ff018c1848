package gitrepo

import (
	"bytes"
	"context"
	"fmt"

	"github.com/benchforge/benchforge/internal/errs"
)

// ChangeKind is how a commit changed a file.
type ChangeKind string

// Change kinds, from git's --name-status letters.
const (
	Added       ChangeKind = "added"        // A
	Modified    ChangeKind = "modified"     // M
	Deleted     ChangeKind = "deleted"      // D
	Renamed     ChangeKind = "renamed"      // R
	Copied      ChangeKind = "copied"       // C
	TypeChanged ChangeKind = "type-changed" // T (e.g. file to symlink)
	Unknown     ChangeKind = "unknown"      // anything else git may add
)

// changeKinds maps git's --name-status letters to kinds.
var changeKinds = map[byte]ChangeKind{
	'A': Added, 'M': Modified, 'D': Deleted, 'R': Renamed, 'C': Copied, 'T': TypeChanged,
}

func changeKind(status string) ChangeKind {
	if k, ok := changeKinds[firstByte(status)]; ok {
		return k
	}
	return Unknown
}

// firstByte is s[0], or 0 for "".
func firstByte(s string) byte {
	if s == "" {
		return 0
	}
	return s[0]
}

// FileVersion is one commit in a file's history: the commit, the file's
// path in that commit, and how the commit changed it. For Renamed and
// Copied, OldPath is the path in the parent and Similarity git's score
// (0–100).
type FileVersion struct {
	Commit     Commit     `json:"commit"`
	Path       string     `json:"path"`
	OldPath    string     `json:"old_path,omitempty"`
	Change     ChangeKind `json:"change"`
	Similarity int        `json:"similarity,omitempty"`
}

// FileHistory lists the commits reachable from rev that changed path,
// newest first, following renames back through history as
// `git log --follow --name-status` does (git's default rename detection:
// 50% similarity; merges are simplified away as git log does). A path with
// no history at rev is an error wrapping errs.ErrNotFound.
func (r *Repo) FileHistory(ctx context.Context, rev, path string) ([]FileVersion, error) {
	p, err := cleanPath(path)
	if err != nil {
		return nil, fmt.Errorf("gitrepo.FileHistory(%s:%s) in %s: %v: %w", rev, path, r.path, err, errs.ErrInput)
	}
	tip, err := r.Resolve(ctx, rev)
	if err != nil {
		return nil, fmt.Errorf("gitrepo.FileHistory(%s:%s): %w", rev, path, err)
	}
	out, err := r.run(ctx, "log", "--follow", "--name-status", "-z", "--no-color",
		"--format=%x01%H", tip.Hash, "--", p)
	if err != nil {
		return nil, fmt.Errorf("gitrepo.FileHistory(%s:%s): %w", rev, path, err)
	}
	recs, err := parseFollowLog(out)
	if err != nil {
		return nil, fmt.Errorf("gitrepo.FileHistory(%s:%s) in %s: %w: %w", rev, path, r.path, err, errs.ErrUnavailable)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("gitrepo.FileHistory: no history for %s:%s in %s: check the path: %w", rev, path, r.path, errs.ErrNotFound)
	}
	hashes := make([]string, len(recs))
	for i, rec := range recs {
		hashes[i] = rec.hash
	}
	commits, err := r.commits(ctx, hashes)
	if err != nil {
		return nil, fmt.Errorf("gitrepo.FileHistory(%s:%s): %w", rev, path, err)
	}
	vs := make([]FileVersion, len(recs))
	for i, rec := range recs {
		vs[i] = rec.v
		vs[i].Commit = commits[i]
	}
	return vs, nil
}

type logRecord struct {
	hash string
	v    FileVersion
}

// parseFollowLog parses `git log --name-status -z --format=%x01%H`. Split
// on NUL, the output is a token sequence: "\x01<hash>", then for each
// changed path "\n<status>" (the newline only on the first entry) and one
// path, or two ("<old>", "<new>") for R/C statuses. Paths are consumed by
// position, so any byte in a path is safe. With --follow each commit has at
// most one entry; a commit with none is kept with kind Unknown.
func parseFollowLog(out []byte) ([]logRecord, error) {
	var recs []logRecord
	toks := bytes.Split(out, []byte{0})
	for i := 0; i < len(toks); i++ {
		tok := bytes.TrimLeft(toks[i], "\n")
		if len(tok) == 0 {
			continue
		}
		if tok[0] == 1 {
			if len(tok) < 5 {
				return nil, fmt.Errorf("malformed git log commit token %q", truncate(tok))
			}
			recs = append(recs, logRecord{hash: string(tok[1:]), v: FileVersion{Change: Unknown}})
			continue
		}
		if len(recs) == 0 {
			return nil, fmt.Errorf("git log status %q before any commit", truncate(tok))
		}
		status := string(tok)
		kind := changeKind(status)
		n := 1
		if kind == Renamed || kind == Copied {
			n = 2
		}
		if i+n >= len(toks) {
			return nil, fmt.Errorf("git log status %q without its path", truncate(tok))
		}
		if v := &recs[len(recs)-1].v; v.Path == "" { // else a second entry for the same commit: keep the first
			setEntry(v, kind, status, toks[i+1:i+1+n])
		}
		i += n
	}
	return recs, nil
}

// setEntry records one name-status entry: its kind, its path (or old and
// new paths for R/C statuses) and, for those, the similarity in the status.
func setEntry(v *FileVersion, kind ChangeKind, status string, paths [][]byte) {
	v.Change = kind
	if len(paths) == 1 {
		v.Path = string(paths[0])
		return
	}
	v.OldPath, v.Path = string(paths[0]), string(paths[1])
	v.Similarity = similarity(status)
}

// similarity reads the percentage after a R/C status letter ("R087" → 87),
// capped at 100.
func similarity(status string) int {
	n := 0
	for _, d := range status[1:] {
		if d < '0' || d > '9' || n > 100 {
			break
		}
		n = n*10 + int(d-'0')
	}
	return min(n, 100)
}

func truncate(b []byte) []byte {
	if len(b) > 120 {
		return b[:120]
	}
	return b
}
