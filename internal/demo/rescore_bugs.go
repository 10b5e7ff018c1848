package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/generate"
	"github.com/benchforge/benchforge/internal/synth/generate/mutation"
)

// Difficulty labels, SWE-bench Verified's names, assigned by the demo's own
// rule (difficulty).
const (
	DifficultyEasy   = "<15 min fix"
	DifficultyMedium = "15 min - 1 hour"
	DifficultyHard   = "1-4 hours"
)

// DifficultyRule states the labelling rule in the report's words.
const DifficultyRule = "changed lines of the gold patch (added + removed): 1–2 → " + DifficultyEasy +
	", 3–4 → " + DifficultyMedium + ", 5 or more → " + DifficultyHard

// difficulty labels a gold patch by the demo's rule (DifficultyRule) and
// returns its changed-line count. SWE-bench Verified's labels are
// annotators' estimates of the time a fix takes; the demo has no
// annotators, so it labels by the size of the fix, a crude but
// reproducible stand-in that reuses the paper's bucket names.
func difficulty(patch string) (string, int) {
	n := 0
	for _, l := range strings.Split(patch, "\n") {
		if strings.HasPrefix(l, "+++ ") || strings.HasPrefix(l, "--- ") {
			continue
		}
		if strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-") {
			n++
		}
	}
	switch {
	case n <= 2:
		return DifficultyEasy, n
	case n <= 4:
		return DifficultyMedium, n
	}
	return DifficultyHard, n
}

// maxRescoreSamples bounds the benchmark so the step stays at a few
// seconds. The testbed's Java files usually bound it first: the generator
// makes at most one bug per method (65 from the 150 files of a full run).
const maxRescoreSamples = 240

// bug is one benchmark sample in the making.
type bug struct {
	repo, file string
	m          realMethod
	sample     bench.Sample
}

// makeBugs runs the mutation generator over files (repository/path →
// content), in its seeded file order, up to maxRescoreSamples bugs. A file
// may hold several bugs, in methods at least bugGap lines apart, so that
// every gold patch, context included, still applies to the one import
// commit holding all of them. It returns the bugs and the number of
// candidates generated.
func makeBugs(ctx context.Context, seed uint64, files map[string][]byte) ([]bug, int, error) {
	// The generator reads a directory (or zip): the files go to a
	// temporary folder, one sub-folder per repository.
	dir, err := os.MkdirTemp("", "benchforge-demo-rescore-")
	if err != nil {
		return nil, 0, fmt.Errorf("demo: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := writeTree(dir, files); err != nil {
		return nil, 0, err
	}
	g, err := mutation.New(mutation.Options{Corpus: dir, Seed: seed, MinLines: 4, MaxLines: 80})
	if err != nil {
		return nil, 0, err
	}
	defer g.Close()
	want := map[string]int{}
	for _, t := range corpus.Types {
		want[t] = maxRescoreSamples
	}
	bp := bugPicker{files: files, spans: map[string][][2]int{}, ids: map[string]int{}}
	ncand := 0
	for chunk := 0; chunk < g.Chunks() && len(bp.out) < maxRescoreSamples; chunk++ {
		cands, err := g.Generate(ctx, generate.Request{Chunk: chunk, Want: want})
		if errors.Is(err, generate.ErrExhausted) {
			break
		}
		if err != nil {
			return nil, 0, err
		}
		ncand += len(cands)
		for _, c := range cands {
			if c.Source != nil && len(bp.out) < maxRescoreSamples {
				bp.take(c)
			}
		}
	}
	return bp.out, ncand, nil
}

// writeTree writes files (slash-separated path → content) under dir.
func writeTree(dir string, files map[string][]byte) error {
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		if err := os.WriteFile(p, content, 0o644); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}
	return nil
}

// bugPicker keeps the candidates that make benchmark bugs: at least
// bugGap lines from the file's other bugs, spliced into the shipped file.
type bugPicker struct {
	files map[string][]byte
	spans map[string][][2]int // file → line spans of its bugs
	ids   map[string]int      // sample id → uses
	out   []bug
}

// take adds candidate c as a bug if it qualifies.
func (bp *bugPicker) take(c generate.Candidate) {
	repo, rel, ok := strings.Cut(c.Source.File, "/")
	if !ok || slices.ContainsFunc(bp.spans[c.Source.File], func(sp [2]int) bool {
		return c.Source.StartLine <= sp[1]+bugGap && c.Source.EndLine >= sp[0]-bugGap
	}) {
		return
	}
	m, ok := splice(bp.files[c.Source.File], c)
	if !ok {
		return
	}
	bp.spans[c.Source.File] = append(bp.spans[c.Source.File], [2]int{m.Start, m.End})
	id := repo + "/" + strings.TrimSuffix(filepath.Base(rel), ".java") + "." + methodName(c.Source.Method)
	if bp.ids[id]++; bp.ids[id] > 1 {
		id = fmt.Sprintf("%s#%d", id, bp.ids[id])
	}
	bp.out = append(bp.out, bug{repo: repo, file: rel, m: m, sample: bench.Sample{
		ID: id, Benchmark: "demo-rescore", Repo: repo, Language: "java", CreatedAt: dateFix,
		Meta: map[string]any{"file": rel, "method": c.Source.Method, "operator": c.Operator, "type": c.ErrorType},
	}})
}

// bugGap is the fewest lines between two bugs of one file: more than a
// patch's three context lines, so no hunk's context holds another bug.
const bugGap = 4

// methodName is the simple name in a "Class: ret name(params)" signature.
func methodName(sig string) string {
	if i := strings.IndexByte(sig, '('); i >= 0 {
		sig = sig[:i]
	}
	f := strings.Fields(sig)
	if len(f) == 0 {
		return "method"
	}
	return f[len(f)-1]
}

// commitBugs gives each repository a history: an import commit holding
// every bug of the repository, then one fix commit restoring the files as
// shipped. Each sample's gold patch is the diff from its file with only
// its own bug to the shipped file; it is checked to apply, without fuzz,
// to the import commit's file too, as a benchmark's patch applies to its
// base commit.
func commitBugs(ctx context.Context, dir string, bugs []bug, files map[string][]byte) error {
	byRepo := map[string][]int{}
	var repos []string
	for i, b := range bugs {
		if byRepo[b.repo] == nil {
			repos = append(repos, b.repo)
		}
		byRepo[b.repo] = append(byRepo[b.repo], i)
	}
	sort.Strings(repos)
	for _, repo := range repos {
		if err := commitRepo(ctx, filepath.Join(dir, repo), repo, bugs, byRepo[repo], files); err != nil {
			return err
		}
	}
	return nil
}

// commitRepo builds the history of one repository in dir from its files
// and its bugs, bugs[idx].
func commitRepo(ctx context.Context, dir, repo string, bugs []bug, idx []int, files map[string][]byte) error {
	h, err := newHistory(ctx, dir)
	if err != nil {
		return err
	}
	for name, content := range files {
		if rest, ok := strings.CutPrefix(name, repo+"/"); ok {
			if err := h.write(rest, content); err != nil {
				return err
			}
		}
	}
	byFile, err := goldPatches(bugs, idx)
	if err != nil {
		return err
	}
	for file, fidx := range byFile {
		if err := writeBuggy(h, file, bugs, fidx); err != nil {
			return err
		}
	}
	base, err := h.commit(ctx, "Import "+repo, dateImport)
	if err != nil {
		return err
	}
	for file, fidx := range byFile {
		if err := h.write(file, bugs[fidx[0]].m.Fixed); err != nil {
			return err
		}
	}
	fix, err := h.commit(ctx, fmt.Sprintf("Fix %d bugs", len(idx)), dateFix)
	if err != nil {
		return err
	}
	for _, i := range idx {
		bugs[i].sample.BaseCommit, bugs[i].sample.FixCommit = base, fix
	}
	return nil
}

// goldPatches gives each of bugs[idx] its gold patch and difficulty, and
// returns the bugs by file.
func goldPatches(bugs []bug, idx []int) (map[string][]int, error) {
	byFile := map[string][]int{}
	for _, i := range idx {
		b := &bugs[i]
		var pb bytes.Buffer
		if err := diff.Format(&pb, []*diff.FileDiff{diff.Unified(b.file, b.file, b.m.Buggy, b.m.Fixed, 3)}); err != nil {
			return nil, fmt.Errorf("demo: render the fix of %s: %w", b.sample.ID, err)
		}
		b.sample.Patch = pb.String()
		var n int
		b.sample.Difficulty, n = difficulty(b.sample.Patch)
		b.sample.Meta["changed_lines"] = n
		byFile[b.file] = append(byFile[b.file], i)
	}
	return byFile, nil
}

// writeBuggy writes file with all of its bugs, bugs[idx], after checking
// that each bug's gold patch applies to it without fuzz.
func writeBuggy(h *history, file string, bugs []bug, idx []int) error {
	buggy := withBugs(bugs, idx)
	for _, i := range idx {
		fds, err := diff.ParseString(bugs[i].sample.Patch)
		if err == nil && len(fds) == 1 {
			_, err = diff.Apply(buggy, fds[0], diff.ApplyOptions{Fuzz: -1})
		}
		if err != nil {
			return fmt.Errorf("demo: the gold patch of %s does not apply to the import commit's %s: %w", bugs[i].sample.ID, file, err)
		}
	}
	return h.write(file, buggy)
}

// withBugs returns the shipped file of bugs[idx] (all in one file) with
// every one of their methods replaced by its buggy version.
func withBugs(bugs []bug, idx []int) []byte {
	idx = slices.Clone(idx)
	// Bottom up, so the line numbers of the methods still to replace hold.
	sort.Slice(idx, func(a, b int) bool { return bugs[idx[a]].m.Start > bugs[idx[b]].m.Start })
	lines := strings.SplitAfter(string(bugs[idx[0]].m.Fixed), "\n")
	for _, i := range idx {
		m := bugs[i].m
		lines = slices.Concat(lines[:m.Start-1], []string{buggyMethod(m)}, lines[m.End:])
	}
	return []byte(strings.Join(lines, ""))
}

// buggyMethod is the buggy method's text as it stands in m.Buggy: the
// buggy file minus the shipped file's lines before and after the method.
func buggyMethod(m realMethod) string {
	lines := strings.SplitAfter(string(m.Fixed), "\n")
	before, after := strings.Join(lines[:m.Start-1], ""), strings.Join(lines[m.End:], "")
	return string(m.Buggy[len(before) : len(m.Buggy)-len(after)])
}
