package demo

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/seeds"
)

// bugFS holds the demo's hand-written bug/fix pairs: bugs.tsv lists each
// bug (id, project, exception, file) and <id>/buggy/<file>, <id>/fixed/<file>
// are the two sides of its fix.
//
//go:embed testdata/bugs
var bugFS embed.FS

// BugsFS returns the embedded bug pairs rooted at the folder holding
// bugs.tsv.
func BugsFS() fs.FS {
	sub, err := fs.Sub(bugFS, "testdata/bugs")
	if err != nil { // cannot happen: the path is fixed at compile time
		return bugFS
	}
	return sub
}

// SeedExclusion records a bug or method the seed filters dropped.
type SeedExclusion struct {
	Bug    string `json:"bug"`
	Filter string `json:"filter"` // F3 or F4
	Reason string `json:"reason"`
}

// ExtractSeeds reads bugs.tsv and the bug pairs from fsys and applies
// rxsynth §3.2 F3 (method-level pairs: only method bodies change) and F4
// (IAE/ISE fixes must remove or restructure an unintended throw). Each kept
// method pair becomes a corpus.Seed whose Diff is the unified diff between
// the two methods. Bug ids are the source bugs; a bug with several changed
// methods gives <id>:1, <id>:2, ….
func ExtractSeeds(fsys fs.FS) ([]corpus.Seed, []SeedExclusion, error) {
	list, err := fs.ReadFile(fsys, "bugs.tsv")
	if err != nil {
		return nil, nil, fmt.Errorf("demo: read bugs.tsv: %w: %w", errs.ErrNotFound, err)
	}
	var out []corpus.Seed
	var excl []SeedExclusion
	sc := bufio.NewScanner(bytes.NewReader(list))
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		b, err := readSeedBug(fsys, line, text)
		if err != nil {
			return nil, nil, err
		}
		ss, ex, err := b.seeds()
		if err != nil {
			return nil, nil, err
		}
		out, excl = append(out, ss...), append(excl, ex...)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("demo: read bugs.tsv: %w", err)
	}
	return out, excl, nil
}

// seedBug is one line of bugs.tsv with its buggy and fixed file.
type seedBug struct {
	id, project, exc, file string
	t                      seeds.Type
	buggy, fixed           []byte
}

// readSeedBug parses line number line of bugs.tsv (bug, project,
// exception, file) and reads the bug's two files.
func readSeedBug(fsys fs.FS, line int, text string) (seedBug, error) {
	f := strings.Split(text, "\t")
	if len(f) != 4 {
		return seedBug{}, fmt.Errorf("demo: bugs.tsv:%d: want 4 tab-separated fields (bug, project, exception, file), got %d: %w", line, len(f), errs.ErrInput)
	}
	b := seedBug{id: f[0], project: f[1], exc: f[2], file: f[3]}
	t, ok := seeds.ParseType(b.exc)
	if !ok || !corpus.ValidType(b.exc) {
		return seedBug{}, fmt.Errorf("demo: bugs.tsv:%d: %q is not one of %s: %w", line, b.exc, strings.Join(corpus.Types, ", "), errs.ErrInput)
	}
	b.t = t
	var err error
	if b.buggy, err = fs.ReadFile(fsys, path.Join(b.id, "buggy", b.file)); err != nil {
		return seedBug{}, fmt.Errorf("demo: bugs.tsv:%d: %w: %w", line, errs.ErrInput, err)
	}
	if b.fixed, err = fs.ReadFile(fsys, path.Join(b.id, "fixed", b.file)); err != nil {
		return seedBug{}, fmt.Errorf("demo: bugs.tsv:%d: %w: %w", line, errs.ErrInput, err)
	}
	return b, nil
}

// seeds applies F3 and F4 to the bug and returns its seeds (one per kept
// method pair) and exclusions.
func (b seedBug) seeds() ([]corpus.Seed, []SeedExclusion, error) {
	pairs, ex := seeds.ExtractMethodPairs([]seeds.FilePair{{Path: b.file, Buggy: b.buggy, Fixed: b.fixed}})
	if ex != nil {
		return nil, []SeedExclusion{{Bug: b.id, Filter: "F3", Reason: ex.Reason}}, nil
	}
	var out []corpus.Seed
	var excl []SeedExclusion
	for k, p := range pairs {
		bugID := b.id
		if len(pairs) > 1 {
			bugID = fmt.Sprintf("%s:%d", b.id, k+1)
		}
		if d := seeds.CheckF4(b.t, p.Buggy, p.Fixed, false); !d.Keep {
			excl = append(excl, SeedExclusion{Bug: bugID, Filter: "F4", Reason: d.Reason})
			continue
		}
		s, err := b.seed(bugID, p)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, s)
	}
	return out, excl, nil
}

// seed is method pair p of the bug as a validated seed with its diff.
func (b seedBug) seed(bugID string, p seeds.MethodPair) (corpus.Seed, error) {
	var db bytes.Buffer
	if err := diff.Format(&db, []*diff.FileDiff{diff.Unified(b.file, b.file, []byte(p.Buggy+"\n"), []byte(p.Fixed+"\n"), 3)}); err != nil {
		return corpus.Seed{}, fmt.Errorf("demo: diff of %s: %w", bugID, err)
	}
	s := corpus.Seed{
		BugID: bugID, SourceBug: b.id, Benchmark: "benchforge-demo", Project: b.project, Exception: b.exc,
		BuggyMethod: p.Buggy, FixedMethod: p.Fixed, File: b.file, MethodSignature: p.Signature,
		BuggySpan: corpus.Span{Start: p.BuggySpan[0], End: p.BuggySpan[1]},
		FixedSpan: corpus.Span{Start: p.FixedSpan[0], End: p.FixedSpan[1]},
		Diff:      db.String(),
	}
	if err := s.Validate(); err != nil {
		return corpus.Seed{}, fmt.Errorf("demo: seed %s: %w", bugID, err)
	}
	return s, nil
}
