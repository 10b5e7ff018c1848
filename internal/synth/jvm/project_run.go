package jvm

import (
	"context"
	"fmt"
	"github.com/benchforge/benchforge/internal/audit/repos"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// ProjectSource says which project each pair runs against in project
// mode: one checkout (Dir) or one repository revision (Repo@Commit, found
// under Repos) for every pair, or else each pair's own Source repository
// and commit, found under Repos.
type ProjectSource struct {
	Dir          string
	Repo, Commit string
	Repos        string   // directory of clones: owner__name(.git), owner+name/repo, name
	Jars         []string // --classpath
	JarDir       string   // every jar of this folder (default /usr/share/java when it exists)
	CacheDir     string
}

// BuildReport is one project build of project mode and the pairs run on it.
type BuildReport struct {
	Project  string   `json:"project"` // repo@commit or the directory
	Files    int      `json:"files"`
	Compiled int      `json:"compiled"` // files; classes for an on-demand build
	OnDemand bool     `json:"on_demand,omitempty"`
	Dropped  int      `json:"dropped"`
	Deps     []string `json:"deps,omitempty"` // dependencies compiled from sibling clones, "owner/name@tag"
	BuildSec float64  `json:"build_seconds"`
	Pairs    int      `json:"pairs"`
	RunSec   float64  `json:"run_seconds"` // verifying the pairs, after the build
	Error    string   `json:"error,omitempty"`
}

// ParseProjectFlag reads --project: a directory, or REPO@REV.
func ParseProjectFlag(s string) (dir, repo, rev string, err error) {
	if st, e := os.Stat(s); e == nil && st.IsDir() {
		return s, "", "", nil
	}
	repo, rev, ok := strings.Cut(s, "@")
	if !ok || repo == "" || rev == "" {
		return "", "", "", fmt.Errorf("%w: --project %q: want a checkout directory or REPO@REV (e.g. apache/commons-cli@1a2b3c)", errs.ErrUsage, s)
	}
	return "", repo, rev, nil
}

// FindGitDir locates the clone of repo ("owner/name") under dir the way
// every command resolves repositories (internal/audit/repos).
func FindGitDir(dir, repo string) (string, error) {
	if st, err := os.Stat(repo); err == nil && st.IsDir() {
		return repo, nil
	}
	r, err := repos.Find(context.Background(), dir, nil, "", repo, "")
	if err != nil {
		return "", err
	}
	defer r.Close() // only its location is needed
	return r.GitDir(), nil
}

// projectKey is the project a pair runs against.
func (ps *ProjectSource) projectKey(p corpus.Pair) string {
	switch {
	case ps.Dir != "":
		return ps.Dir
	case ps.Repo != "":
		return ps.Repo + "@" + ps.Commit
	case p.Source != nil:
		return p.Source.Repo + "@" + p.Source.Commit
	}
	return ""
}

func (ps *ProjectSource) options(key string) (ProjectOptions, error) {
	o := ProjectOptions{Jars: ps.Jars, JarDir: ps.JarDir, CacheDir: ps.CacheDir, Repos: ps.Repos}
	if ps.Dir != "" {
		o.Dir, o.Repo = ps.Dir, ps.Dir
		return o, nil
	}
	repo, commit, _ := strings.Cut(key, "@")
	gitDir, err := FindGitDir(ps.Repos, repo)
	if err != nil {
		return o, err
	}
	o.GitDir, o.Commit, o.Repo = gitDir, commit, repo
	return o, nil
}

// verifyProjects builds each pair's project once and verifies its pairs
// against it. A pair without a project, or whose project does not build,
// is recorded unconfirmed with the reason. Every build comes first, so
// that a report's RunSec is the time after the builds; the pairs then go
// through one pipeline across the projects (project_pipeline.go).
func verifyProjects(ctx context.Context, pairs []corpus.Pair, opts Options, emit func(Execution) error) ([]BuildReport, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	ps := opts.Projects
	if ps.CacheDir == "" {
		ps.CacheDir = opts.CacheDir
	}
	groups := map[string][]corpus.Pair{}
	var keys []string
	for _, p := range pairs {
		k := ps.projectKey(p)
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], p)
	}
	sort.Strings(keys)
	jdk, err := projectJDK(ctx, opts)
	if err != nil {
		return nil, err
	}
	runs := make([]*projectRun, len(keys))
	for i, k := range keys {
		if runs[i], err = buildForRun(ctx, jdk, k, groups[k], opts); err != nil {
			return nil, err
		}
	}
	err = runPipeline(ctx, jdk, runs, opts, emit)
	reports := make([]BuildReport, len(runs))
	for i, r := range runs {
		reports[i] = r.r
	}
	return reports, err
}

func projectJDK(ctx context.Context, opts Options) (JDK, error) {
	if opts.JDK != nil {
		return *opts.JDK, nil
	}
	return FindJDK(ctx)
}

// projectRun is one project of verifyProjects: its report, its pairs and
// its build, or why its pairs cannot compile.
type projectRun struct {
	r     BuildReport
	pairs []corpus.Pair
	proj  *Project
	fail  string
	// begun is closed when the run side begins the project; after is the
	// previous project's begun, when this one's workers start.
	begun, after chan struct{}
}

// buildForRun builds the project of key for its pairs; an error is
// returned only when ctx ended, a failed build is the run's fail.
func buildForRun(ctx context.Context, jdk JDK, key string, pairs []corpus.Pair, opts Options) (*projectRun, error) {
	pr := &projectRun{r: BuildReport{Project: key, Pairs: len(pairs)}, pairs: pairs}
	failed := func(why string) (*projectRun, error) {
		pr.fail, pr.r.Error = why, why
		return pr, nil
	}
	if key == "" {
		return failed("project mode: the pair has no source repository and commit; pass --project")
	}
	po, err := projectOptions(key, pairs, opts)
	if err != nil {
		return failed(err.Error())
	}
	t0 := time.Now()
	proj, err := BuildProject(ctx, jdk, po)
	pr.r.BuildSec = time.Since(t0).Seconds()
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return failed("project build: " + err.Error())
	}
	pr.proj = proj
	pr.r.Files, pr.r.Compiled, pr.r.Dropped, pr.r.OnDemand, pr.r.Deps = proj.Files, proj.Compiled, len(proj.Dropped), proj.OnDemand, proj.Deps
	return pr, nil
}

// emitUncompiled records every pair of a project that could not be
// built as unconfirmed: it cannot compile, for why.
func emitUncompiled(pairs []corpus.Pair, jdk JDK, opts Options, why string, emit func(Execution) error) error {
	for _, p := range pairs {
		e := Execution{PairID: p.PairID, ErrorType: p.ErrorType, JDK: jdk.Version, Budget: opts.Budget, Status: StatusUnconfirmed,
			Reason: "cannot compile", Compile: CompileResult{Reason: "cannot compile: " + why}}
		if err := emit(e); err != nil {
			return err
		}
	}
	return nil
}

// projectOptions are the build options of project key for its pairs: the
// first pair's file as the source root hint, the parameter types whose
// API to read and, when each pair comes from its own commit, the pairs'
// files as the roots of an on-demand build.
func projectOptions(key string, pairs []corpus.Pair, opts Options) (ProjectOptions, error) {
	po, err := opts.Projects.options(key)
	if err != nil {
		return po, err
	}
	if src := pairs[0].Source; src != nil {
		po.Hint = src.Path
	}
	po.Types = paramTypes(pairs)
	po.Receivers = receiverNames(pairs)
	if opts.Projects.Dir == "" && opts.Projects.Repo == "" {
		po.Roots = sourcePaths(pairs) // each pair's own commit: build on demand
	}
	return po, nil
}

// paramTypes are the simple type names the pairs' parameters mention
// (generic arguments included), whose public API the input search reads.
func paramTypes(pairs []corpus.Pair) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range pairs {
		sig, err := ParseSignature(p.BuggyMethod)
		if err != nil {
			continue
		}
		for _, prm := range sig.Params {
			for _, w := range typeWord.FindAllString(prm.Type, -1) {
				if !seen[w] {
					seen[w] = true
					out = append(out, w)
				}
			}
		}
	}
	return out
}

// receiverNames are the top-level class names of the pairs' files and
// the simple names of their methods' nested classes.
func receiverNames(pairs []corpus.Pair) []string {
	var out []string
	for _, p := range pairs {
		if p.Source == nil {
			continue
		}
		name := strings.TrimSuffix(path.Base(p.Source.Path), ".java")
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
		// The method's own class when it is a nested one
		// ("Outer.Inner: sig"): an abstract nested class's receivers
		// are its concrete subtypes, whose API must be read too.
		if chain, _, ok := strings.Cut(p.Source.Method, ":"); ok {
			if n := simpleName(strings.TrimSpace(chain)); n != name && n != "" && !strings.ContainsAny(n, "<> ") && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

var typeWord = regexp.MustCompile(`[A-Z][\w]*`)

// sourcePaths are the distinct source files of the pairs.
func sourcePaths(pairs []corpus.Pair) []string {
	var out []string
	for _, p := range pairs {
		if p.Source != nil && !slices.Contains(out, p.Source.Path) {
			out = append(out, p.Source.Path)
		}
	}
	return out
}

// ExportRevision writes the files of repo ("owner/name", found under
// repos) at commit into a cache folder under cacheDir and returns it; an
// earlier export is reused. Nothing from the repository is executed.
func ExportRevision(ctx context.Context, repos, repo, commit, cacheDir string) (string, error) {
	gitDir, err := FindGitDir(repos, repo)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cacheDir, "revisions", strings.ReplaceAll(repo, "/", "__")+"@"+commit)
	if err := exportTree(ctx, gitDir, commit, dir, ""); err != nil {
		return "", err
	}
	return dir, nil
}
