package testbed

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/benchforge/benchforge/internal/audit/repoprobe"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo"
)

// Roles a manifest gives a repository.
const (
	RoleMember     = "member"     // in the target's training set; a positive
	RoleNonMember  = "nonmember"  // never trained on; a negative
	RoleBackground = "background" // trained on, never scored: shared code of the family
)

// Manifest describes a testbed: repositories of one ecosystem, each at a
// fixed commit with its membership, plus what else the target is trained
// on. It is a JSON file committed with the project
// (testdata/testbed/apache-java.json) so a run names exactly what it read.
type Manifest struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Include and Exclude are doublestar globs (gitrepo.Match) selecting
	// each repository's source files; an entry may override Include.
	Include []string `json:"include"`
	Exclude []string `json:"exclude,omitempty"`
	Repos   []Entry  `json:"repos"`
	// JDKModules are src.zip modules whose code joins the background
	// (generic code from outside the testbed), up to JDKBytes bytes.
	JDKModules []string `json:"jdk_modules,omitempty"`
	JDKBytes   int64    `json:"jdk_bytes,omitempty"`
	// Snapshots is how many states of each trained repository (members
	// and background) the target reads: the manifest commit and
	// Snapshots−1 earlier ones, SnapshotMonths apart (history) [1: the
	// commit alone]. Non-members are never read at any state.
	Snapshots      int `json:"snapshots,omitempty"`
	SnapshotMonths int `json:"snapshot_months,omitempty"` // [12]
}

// Entry is one repository of a manifest.
type Entry struct {
	Repo    string   `json:"repo"`   // owner/name, as on GitHub
	Commit  string   `json:"commit"` // full commit hash read
	Role    string   `json:"role"`   // RoleMember, RoleNonMember or RoleBackground
	Include []string `json:"include,omitempty"`
}

// Name is the entry's repository name without its owner.
func (e Entry) Name() string { return e.Repo[strings.LastIndexByte(e.Repo, '/')+1:] }

// LoadManifest reads and checks a manifest file.
func LoadManifest(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("testbed: manifest %s: %w: %w", path, err, errs.ErrNotFound)
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("testbed: manifest %s: %v (fix the JSON): %w", path, err, errs.ErrInput)
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("testbed: manifest %s: %w", path, err)
	}
	return &m, nil
}

func (m *Manifest) check() error {
	seen := map[string]bool{}
	for i, e := range m.Repos {
		if err := e.check(i); err != nil {
			return err
		}
		if seen[e.Name()] {
			return fmt.Errorf("repos[%d]: %s listed twice: %w", i, e.Name(), errs.ErrInput)
		}
		seen[e.Name()] = true
	}
	for _, g := range append(slices.Clone(m.Include), m.Exclude...) {
		if err := gitrepo.ValidatePattern(g); err != nil {
			return fmt.Errorf("glob %q: %w: %w", g, err, errs.ErrInput)
		}
	}
	if m.Snapshots < 0 || m.SnapshotMonths < 0 {
		return fmt.Errorf("snapshots %d, snapshot_months %d: want >= 0: %w", m.Snapshots, m.SnapshotMonths, errs.ErrInput)
	}
	if m.count(RoleMember) < 2 || m.count(RoleNonMember) < 2 {
		return fmt.Errorf("%d members and %d non-members; need at least 2 of each: %w", m.count(RoleMember), m.count(RoleNonMember), errs.ErrInput)
	}
	return nil
}

// check checks entry i's repository name, commit and role.
func (e Entry) check(i int) error {
	switch {
	case !strings.Contains(e.Repo, "/"):
		return fmt.Errorf("repos[%d]: repo %q is not owner/name: %w", i, e.Repo, errs.ErrInput)
	case len(e.Commit) != 40:
		return fmt.Errorf("repos[%d] %s: commit %q is not a full 40-hex hash: %w", i, e.Repo, e.Commit, errs.ErrInput)
	case e.Role != RoleMember && e.Role != RoleNonMember && e.Role != RoleBackground:
		return fmt.Errorf("repos[%d] %s: role %q: want member, nonmember or background: %w", i, e.Repo, e.Role, errs.ErrInput)
	}
	return nil
}

func (m *Manifest) count(role string) int {
	n := 0
	for _, e := range m.Repos {
		if e.Role == role {
			n++
		}
	}
	return n
}

// Locate finds a clone of repo ("owner/name") under one of dirs, trying
// the layouts DIR/owner__name.git, DIR/owner+name/repo (the fetch
// mirror), DIR/owner+name.git, DIR/name.git and DIR/name.
func Locate(repo string, dirs []string) (string, error) {
	owner, name, _ := strings.Cut(repo, "/")
	for _, d := range dirs {
		for _, c := range []string{owner + "__" + name + ".git", owner + "+" + name + "/repo", owner + "+" + name + ".git", name + ".git", name} {
			p := filepath.Join(d, c)
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("testbed: no clone of %s under %v (clone it with `git clone --bare https://github.com/%s %s` and pass that folder with --repos): %w",
		repo, dirs, repo, filepath.Join(firstOr(dirs, "DIR"), owner+"__"+name+".git"), errs.ErrNotFound)
}

func firstOr(s []string, def string) string {
	if len(s) > 0 {
		return s[0]
	}
	return def
}

// ReadOptions bound what is read of each repository.
type ReadOptions struct {
	MaxFiles     int    // files kept per repository, a seeded sample [40]
	MaxFileBytes int    // larger files are skipped [64 KiB]
	Seed         uint64 // which files are kept
}

// readRepo reads a seeded sample of an entry's source files at its commit,
// straight from git, in path order, and, for a trained repository (member
// or background), the same paths at the manifest's earlier snapshots
// (history).
func readRepo(ctx context.Context, m *Manifest, e Entry, dirs []string, o ReadOptions) ([]repoprobe.File, []Snapshot, error) {
	dir, err := Locate(e.Repo, dirs)
	if err != nil {
		return nil, nil, err
	}
	r, err := gitrepo.Open(ctx, dir)
	if err != nil {
		return nil, nil, fmt.Errorf("testbed: %s: %w", e.Repo, err)
	}
	defer r.Close()
	files, err := readSample(ctx, m, e, r, o)
	if err != nil || e.Role == RoleNonMember {
		return files, nil, err
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	snaps, err := history(ctx, m, e, r, paths, o)
	return files, snaps, err
}

// readSample reads the seed's sample of an entry's files at its commit.
func readSample(ctx context.Context, m *Manifest, e Entry, r *gitrepo.Repo, o ReadOptions) ([]repoprobe.File, error) {
	inc := e.Include
	if len(inc) == 0 {
		inc = m.Include
	}
	paths, err := r.ListFiles(ctx, e.Commit, inc...)
	if err != nil {
		return nil, fmt.Errorf("testbed: %s at %s (is the commit in the clone? fetch it): %w", e.Repo, e.Commit, err)
	}
	paths = slices.DeleteFunc(paths, m.excluded)
	rng := rand.New(rand.NewPCG(o.Seed, hashName(e.Repo)))
	rng.Shuffle(len(paths), func(a, b int) { paths[a], paths[b] = paths[b], paths[a] })
	// Read a few more than needed: some are too large.
	want := paths[:min(len(paths), o.MaxFiles+o.MaxFiles/2+4)]
	blobs, err := r.ReadFiles(ctx, e.Commit, want)
	if err != nil {
		return nil, fmt.Errorf("testbed: %s: %w", e.Repo, err)
	}
	return keepFiles(want, blobs, o), nil
}

// excluded says whether the manifest's Exclude globs drop path p.
func (m *Manifest) excluded(p string) bool {
	for _, g := range m.Exclude {
		if gitrepo.Match(g, p) {
			return true
		}
	}
	return false
}

// keepFiles keeps, in the sampled order, the first MaxFiles non-empty
// blobs of at most MaxFileBytes, sorted by path.
func keepFiles(want []string, blobs map[string][]byte, o ReadOptions) []repoprobe.File {
	var files []repoprobe.File
	for _, p := range want {
		if b := blobs[p]; len(b) > 0 && len(b) <= o.MaxFileBytes && len(files) < o.MaxFiles {
			files = append(files, repoprobe.File{Path: p, Content: b})
		}
	}
	slices.SortFunc(files, func(a, b repoprobe.File) int { return strings.Compare(a.Path, b.Path) })
	return files
}

func hashName(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}
