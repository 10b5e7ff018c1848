package demo

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/benchforge/benchforge/internal/audit/patchcheck"
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
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("demo: no usable method found in %s: %w", g.CorpusPath(), errs.ErrNotFound)
	}
	return out, nil
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
// one branch per variant; it returns the samples (one per variant) without
// verdicts.
func buildHistory(ctx context.Context, dir string, m realMethod) ([]Stage2Sample, error) {
	h, err := newHistory(ctx, dir)
	if err != nil {
		return nil, err
	}
	readme := "# " + m.Name + "\n\nA demo repository built by `benchforge demo` from " + m.ZipPath + " of the JDK's src.zip.\n"
	if err := h.write("README.md", []byte(readme)); err != nil {
		return nil, err
	}
	if err := h.write(m.Path, m.Buggy); err != nil {
		return nil, err
	}
	base, err := h.commit(ctx, "Import "+path.Base(m.Path), dateImport)
	if err != nil {
		return nil, err
	}
	if err := h.write(m.Path, m.Fixed); err != nil {
		return nil, err
	}
	fix, err := h.commit(ctx, fmt.Sprintf("Fix %s in %s", strings.TrimSuffix(m.Type, "Exception"), m.Method), dateFix)
	if err != nil {
		return nil, err
	}
	patch := diff.Unified(m.Path, m.Path, m.Buggy, m.Fixed, 3)
	var pb bytes.Buffer
	if err := diff.Format(&pb, []*diff.FileDiff{patch}); err != nil {
		return nil, fmt.Errorf("demo: render the fix of %s: %w", m.Name, err)
	}
	var out []Stage2Sample
	for _, v := range Variants {
		if err := h.branch(ctx, v.Name, fix); err != nil {
			return nil, err
		}
		switch v.Name {
		case VariantPersists:
			if err := h.write("README.md", []byte(readme+"\nMaintained.\n")); err != nil {
				return nil, err
			}
			if _, err := h.commit(ctx, "Update README", dateChange); err != nil {
				return nil, err
			}
			// After the cutoff: the snapshot must not see this revert.
			if err := h.write(m.Path, m.Buggy); err != nil {
				return nil, err
			}
			if _, err := h.commit(ctx, "Revert the fix (after the cutoff)", dateLate); err != nil {
				return nil, err
			}
		case VariantReverted:
			if err := h.write(m.Path, m.Buggy); err != nil {
				return nil, err
			}
			if _, err := h.commit(ctx, "Revert \"Fix "+m.Method+"\"", dateChange); err != nil {
				return nil, err
			}
		case VariantRefactored:
			if err := h.write(m.Path, refactor(m.Fixed, m)); err != nil {
				return nil, err
			}
			if _, err := h.commit(ctx, "Rename parameters of "+m.Method, dateChange); err != nil {
				return nil, err
			}
		}
		out = append(out, Stage2Sample{
			Sample: bench.Sample{
				ID: m.Name + "@" + v.Name, Benchmark: "demo", Repo: "demo/" + m.Name, Language: "java",
				BaseCommit: base, FixCommit: fix, Patch: pb.String(), CreatedAt: dateFix,
			},
			Method: m.Method, Type: m.Type, Operator: m.Operator, Variant: v.Name, Label: v.Present,
			RepoDir: dir, Branch: v.Name,
		})
	}
	if err := h.checkout(ctx, "main"); err != nil {
		return nil, err
	}
	return out, nil
}

// checkStage2 runs patchcheck on every sample at its branch's cutoff
// snapshot.
func checkStage2(ctx context.Context, samples []Stage2Sample) error {
	c := patchcheck.New(patchcheck.Options{})
	repos := map[string]*gitrepo.Repo{}
	defer func() {
		for _, r := range repos {
			r.Close()
		}
	}()
	for i := range samples {
		s := &samples[i]
		repo := repos[s.RepoDir]
		if repo == nil {
			var err error
			if repo, err = gitrepo.Open(ctx, s.RepoDir); err != nil {
				return err
			}
			repos[s.RepoDir] = repo
		}
		snap, err := repo.SnapshotOn(ctx, s.Branch, stage2Cut)
		if err != nil {
			return fmt.Errorf("demo: snapshot of %s branch %s at %s: %w", s.RepoDir, s.Branch, stage2Cut.Format(time.DateOnly), err)
		}
		v, err := c.Check(ctx, s.Sample, repo, snap)
		if err != nil {
			return fmt.Errorf("demo: Stage II on %s: %w", s.Sample.ID, err)
		}
		v.Cutoff = stage2Cut.Format(time.DateOnly)
		s.Verdict = v
	}
	return nil
}

// stage2Types are the exception types of the Stage II methods: fixes that
// add a guard (null check, instanceof, bounds check), as most real fixes do.
var stage2Types = []string{corpus.NullPointer, corpus.ClassCast, corpus.ArrayIndexOOB, corpus.StringIndexOOB}
