package demo

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/benchforge/benchforge/internal/audit/patchcheck"
	"github.com/benchforge/benchforge/internal/audit/pipeline"
	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/generate"
	"github.com/benchforge/benchforge/internal/synth/generate/mutation"
	"github.com/benchforge/benchforge/internal/synth/jvm"
)

// Stage II variants: what each branch does to the fix after it lands, and
// whether the fix's logic is in that branch's cutoff snapshot.
const (
	VariantPersists   = "persists"   // untouched before the cutoff (reverted only after it)
	VariantReverted   = "reverted"   // the fix is reverted before the cutoff
	VariantRefactored = "refactored" // parameters renamed and the method re-laid out
)

// Variants lists the Stage II variants in report order, with their labels.
var Variants = []struct {
	Name    string
	Present bool
}{{VariantPersists, true}, {VariantReverted, false}, {VariantRefactored, true}}

// Stage II dates: the buggy import, the fix, the pre-cutoff change of each
// branch, the cutoff, and the post-cutoff revert on the persists branch.
var (
	dateImport = time.Date(2019, 3, 1, 12, 0, 0, 0, time.UTC)
	dateFix    = time.Date(2019, 6, 1, 12, 0, 0, 0, time.UTC)
	dateChange = time.Date(2020, 4, 1, 12, 0, 0, 0, time.UTC)
	stage2Cut  = time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC)
	dateLate   = time.Date(2021, 9, 1, 12, 0, 0, 0, time.UTC)
)

// realMethod is a real JDK method with a mutation-made bug: the fixed file
// is the JDK file as shipped, the buggy file has the mutated method.
type realMethod struct {
	Name      string // short name used for the repository
	Type      string // exception type the bug risks
	Operator  string
	ZipPath   string // path inside src.zip
	Path      string // path in the demo repository
	Method    string // qualified signature
	Start     int    // 1-based line span of the method in the fixed file
	End       int
	Fixed     []byte // whole file
	Buggy     []byte
	FixedText string // the method, dedented
	Params    []string
}

// pickMethods draws up to n real methods from the JDK src.zip with the
// mutation generator, one per exception type of want, keeping only methods
// with parameters whose text can be located verbatim in their file and
// whose refactoring renames a parameter on a line the fix added.
func pickMethods(ctx context.Context, srcZip string, seed uint64, want []string, n int) ([]realMethod, error) {
	g, err := mutation.New(mutation.Options{Corpus: srcZip, Seed: seed, ChunkFiles: 32, PublicOnly: true, MinLines: 6, MaxLines: 30})
	if err != nil {
		return nil, err
	}
	defer g.Close()
	zr, err := zip.OpenReader(g.CorpusPath())
	if err != nil {
		return nil, fmt.Errorf("demo: open %s: %w: %w", g.CorpusPath(), errs.ErrInput, err)
	}
	defer zr.Close()
	files := map[string]*zip.File{}
	for _, f := range zr.File {
		files[f.Name] = f
	}
	need := map[string]int{}
	for _, t := range want {
		need[t] = 1
	}
	var out []realMethod
	for chunk := 0; chunk < g.Chunks() && len(out) < n && len(need) > 0; chunk++ {
		cands, err := g.Generate(ctx, generate.Request{Chunk: chunk, Want: need})
		if errors.Is(err, generate.ErrExhausted) {
			break
		}
		if err != nil {
			return nil, err
		}
		out = append(out, usable(cands, files, need)...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("demo: no usable method found in %s: %w", g.CorpusPath(), errs.ErrNotFound)
	}
	return out, nil
}

// usable are the candidates that make Stage II methods (locate,
// renamingTouchesPatch), one per exception type still in need, which
// loses the types it takes.
func usable(cands []generate.Candidate, files map[string]*zip.File, need map[string]int) []realMethod {
	var out []realMethod
	for _, c := range cands {
		if need[c.ErrorType] == 0 || c.Source == nil {
			continue
		}
		m, ok := locate(files[c.Source.File], c)
		if !ok || !renamingTouchesPatch(m) {
			continue
		}
		delete(need, c.ErrorType)
		out = append(out, m)
	}
	return out
}

// locate reads the candidate's file and checks that its fixed method is
// the file's lines Start..End, dedented; it then builds the buggy file.
func locate(zf *zip.File, c generate.Candidate) (realMethod, bool) {
	if zf == nil || c.Source == nil {
		return realMethod{}, false
	}
	sig, err := jvm.ParseSignature(c.FixedMethod)
	if err != nil || len(sig.Params) == 0 {
		return realMethod{}, false
	}
	rc, err := zf.Open()
	if err != nil {
		return realMethod{}, false
	}
	src, err := io.ReadAll(io.LimitReader(rc, 4<<20))
	rc.Close()
	if err != nil {
		return realMethod{}, false
	}
	m, ok := splice(src, c)
	if !ok {
		return realMethod{}, false
	}
	m.ZipPath = zf.Name
	// java.base/java/util/Foo.java → src/main/java/java/util/Foo.java
	if i := strings.IndexByte(zf.Name, '/'); i >= 0 {
		m.Path = "src/main/java/" + zf.Name[i+1:]
	} else {
		m.Path = "src/main/java/" + zf.Name
	}
	m.Name = strings.TrimSuffix(path.Base(zf.Name), ".java") + "." + sig.Name
	for _, p := range sig.Params {
		m.Params = append(m.Params, p.Name)
	}
	return m, true
}

// splice checks that the candidate's fixed method is lines Start..End of
// src, dedented, and returns the method with src as the fixed file and the
// buggy file (the mutated method re-indented in its place). Files with
// carriage returns are refused: the line arithmetic assumes \n endings.
func splice(src []byte, c generate.Candidate) (realMethod, bool) {
	if c.Source == nil || c.Source.StartLine < 1 || c.Source.EndLine < c.Source.StartLine || bytes.Contains(src, []byte("\r")) {
		return realMethod{}, false
	}
	lines := strings.SplitAfter(string(src), "\n")
	s, e := c.Source.StartLine, c.Source.EndLine
	if e > len(lines) {
		return realMethod{}, false
	}
	first := lines[s-1]
	indent := first[:len(first)-len(strings.TrimLeft(first, " "))]
	if reindent(c.FixedMethod, indent) != strings.Join(lines[s-1:e], "") {
		return realMethod{}, false
	}
	buggy := strings.Join(lines[:s-1], "") + reindent(c.BuggyMethod, indent) + strings.Join(lines[e:], "")
	return realMethod{
		Type: c.ErrorType, Operator: c.Operator, Method: c.Source.Method,
		Start: s, End: e, Fixed: src, Buggy: []byte(buggy), FixedText: c.FixedMethod,
	}, true
}

// reindent prefixes every non-empty line of a dedented method with indent
// and ends it with a newline.
func reindent(method, indent string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(method, "\n"), "\n") {
		if strings.TrimSpace(l) != "" {
			b.WriteString(indent)
			b.WriteString(l)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// refactor renames the method's parameters (p → pValue; member accesses
// such as this.p are left alone) and puts each `if` condition's opening
// brace on its own line: a behaviour-preserving refactoring.
func refactor(file []byte, m realMethod) []byte {
	lines := strings.SplitAfter(string(file), "\n")
	body := renameParams(strings.Join(lines[m.Start-1:m.End], ""), m.Params)
	body = strings.ReplaceAll(body, ") {\n", ")\n"+"        {\n")
	return []byte(strings.Join(lines[:m.Start-1], "") + body + strings.Join(lines[m.End:], ""))
}

// renameParams renames each parameter p to pValue in s.
func renameParams(s string, params []string) string {
	for _, p := range params {
		re := regexp.MustCompile(`(^|[^.\w$])` + regexp.QuoteMeta(p) + `\b`)
		s = re.ReplaceAllString(s, "${1}"+p+"Value")
	}
	return s
}

// renamingTouchesPatch reports whether the refactoring renames something
// on a line the fix added: only then is the refactored variant a test of
// the fuzzy match rather than an exact one. Which methods qualify depends
// on the JDK's sources, so the pick checks it instead of assuming it.
func renamingTouchesPatch(m realMethod) bool {
	buggy := map[string]bool{}
	for _, l := range strings.Split(string(m.Buggy), "\n") {
		buggy[strings.TrimSpace(l)] = true
	}
	lines := strings.Split(string(m.Fixed), "\n")
	for _, l := range lines[m.Start-1 : min(m.End, len(lines))] {
		if t := strings.TrimSpace(l); t != "" && !buggy[t] && renameParams(l, m.Params) != l {
			return true
		}
	}
	return false
}

// Stage2Sample is one Stage II case: a sample, its history and the verdict.
type Stage2Sample struct {
	Sample   bench.Sample       `json:"sample"`
	Method   string             `json:"method"`
	Type     string             `json:"type"`
	Operator string             `json:"operator"`
	Variant  string             `json:"variant"`
	Label    bool               `json:"label"`
	RepoDir  string             `json:"repo_dir"`
	Branch   string             `json:"branch"`
	Verdict  patchcheck.Verdict `json:"verdict"`
}

// buildHistory writes one repository for m: the buggy import, the fix, and
// one branch per variant, each checked out in a worktree of its own (dir
// followed by "@" and the variant) whose default branch is the variant's,
// as a clone of that history would be; it returns the samples (one per
// variant, RepoDir the variant's worktree) without verdicts.
func buildHistory(ctx context.Context, dir string, m realMethod) ([]Stage2Sample, error) {
	h, err := newHistory(ctx, dir)
	if err != nil {
		return nil, err
	}
	readme := "# " + m.Name + "\n\nA demo repository built by `benchforge demo` from " + m.ZipPath + " of the JDK's src.zip.\n"
	if err := h.write("README.md", []byte(readme)); err != nil {
		return nil, err
	}
	base, err := h.apply(ctx, change{m.Path, m.Buggy, "Import " + path.Base(m.Path), dateImport})
	if err != nil {
		return nil, err
	}
	fix, err := h.apply(ctx, change{m.Path, m.Fixed, fmt.Sprintf("Fix %s in %s", strings.TrimSuffix(m.Type, "Exception"), m.Method), dateFix})
	if err != nil {
		return nil, err
	}
	patch, err := fixPatch(m)
	if err != nil {
		return nil, err
	}
	if err := h.variantBranches(ctx, fix, variantChanges(m, readme)); err != nil {
		return nil, err
	}
	var out []Stage2Sample
	for _, v := range Variants {
		wt := dir + "@" + v.Name
		if err := h.worktree(ctx, wt, v.Name); err != nil {
			return nil, err
		}
		out = append(out, Stage2Sample{
			Sample: bench.Sample{
				ID: m.Name + "@" + v.Name, Benchmark: "demo", Repo: "demo/" + m.Name, Language: "java",
				BaseCommit: base, FixCommit: fix, Patch: patch, CreatedAt: dateFix,
			},
			Method: m.Method, Type: m.Type, Operator: m.Operator, Variant: v.Name, Label: v.Present,
			RepoDir: wt, Branch: v.Name,
		})
	}
	return out, nil
}

// fixPatch is the gold patch of m: the unified diff from the buggy to the
// fixed file.
func fixPatch(m realMethod) (string, error) {
	var pb bytes.Buffer
	if err := diff.Format(&pb, []*diff.FileDiff{diff.Unified(m.Path, m.Path, m.Buggy, m.Fixed, 3)}); err != nil {
		return "", fmt.Errorf("demo: render the fix of %s: %w", m.Name, err)
	}
	return pb.String(), nil
}

// variantChanges are the commits each variant's branch adds after the fix.
func variantChanges(m realMethod, readme string) map[string][]change {
	return map[string][]change{
		VariantPersists: {
			{"README.md", []byte(readme + "\nMaintained.\n"), "Update README", dateChange},
			// After the cutoff: the snapshot must not see this revert.
			{m.Path, m.Buggy, "Revert the fix (after the cutoff)", dateLate},
		},
		VariantReverted:   {{m.Path, m.Buggy, "Revert \"Fix " + m.Method + "\"", dateChange}},
		VariantRefactored: {{m.Path, refactor(m.Fixed, m), "Rename parameters of " + m.Method, dateChange}},
	}
}

// variantBranches makes one branch per variant at fix, in Variants order,
// with the variant's changes, and switches back to main.
func (h *history) variantBranches(ctx context.Context, fix string, changes map[string][]change) error {
	for _, v := range Variants {
		if err := h.branch(ctx, v.Name, fix); err != nil {
			return err
		}
		for _, c := range changes[v.Name] {
			if _, err := h.apply(ctx, c); err != nil {
				return err
			}
		}
	}
	return h.checkout(ctx, "main")
}

// checkStage2 decides every sample's verdict at the Stage II cutoff with
// pipeline.Patch, the Stage II of `audit patch` and `audit run`, writing
// the verdicts to the log file (removed first: the demo rebuilds its
// histories each run, so no verdict of an earlier run may be resumed).
// Each sample's repository is the checkout at its RepoDir, whose default
// branch gives the cutoff snapshot.
func checkStage2(ctx context.Context, log string, samples []Stage2Sample) error {
	if err := os.Remove(log); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("demo: reset %s: %w", log, err)
	}
	src := &dirSource{dirs: map[string]string{}, open: map[string]*gitrepo.Repo{}}
	defer src.close()
	list := make([]bench.Sample, len(samples))
	for i, s := range samples {
		list[i] = s.Sample
		src.dirs[s.Sample.ID] = s.RepoDir
	}
	res, err := pipeline.Patch(ctx, pipeline.PatchOptions{Path: log, Samples: list, Cutoffs: []time.Time{stage2Cut}, Source: src})
	if err != nil {
		return fmt.Errorf("demo: Stage II: %w", err)
	}
	byID := map[string]patchcheck.Verdict{}
	for _, v := range res.Verdicts {
		byID[v.SampleID] = v
	}
	for i := range samples {
		samples[i].Verdict = byID[samples[i].Sample.ID]
	}
	return nil
}

// dirSource is the demo's patchcheck.RepoSource: each sample's repository
// is the git checkout at a known directory, opened once per directory.
type dirSource struct {
	dirs map[string]string // sample id → directory
	mu   sync.Mutex
	open map[string]*gitrepo.Repo
}

func (d *dirSource) Repo(ctx context.Context, s bench.Sample) (*gitrepo.Repo, error) {
	dir := d.dirs[s.ID]
	d.mu.Lock()
	defer d.mu.Unlock()
	if r := d.open[dir]; r != nil {
		return r, nil
	}
	r, err := gitrepo.Open(ctx, dir)
	if err != nil {
		return nil, err
	}
	d.open[dir] = r
	return r, nil
}

func (d *dirSource) close() {
	for _, r := range d.open {
		r.Close()
	}
}

// stage2Types are the exception types of the Stage II methods: fixes that
// add a guard (null check, instanceof, bounds check), as most real fixes do.
var stage2Types = []string{corpus.NullPointer, corpus.ClassCast, corpus.ArrayIndexOOB, corpus.StringIndexOOB}
