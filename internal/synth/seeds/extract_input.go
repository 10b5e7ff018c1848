package seeds

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/benchforge/benchforge/internal/audit/repos"
	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo"
	"github.com/benchforge/benchforge/internal/jsonl"
)

// BugInput is one benchmark bug to extract seeds from, whatever the
// benchmark. Problem, when set, is why the bug's metadata is unusable; the
// bug is then excluded with that reason rather than dropped.
type BugInput struct {
	ID        string
	Benchmark string
	Project   string
	Repo      string // "owner/name"
	Buggy     string // buggy commit
	Fixed     string // fixed commit
	Failures  []Failure
	// Exception overrides the type classified from Failures (generic
	// input's "exception" field).
	Exception Type
	// FixedToBuggy is the source change from the fixed to the buggy
	// revision (Defects4J's src.patch). Nil means: compare the Java files of
	// the two commits in the repository.
	FixedToBuggy []*diff.FileDiff
	// Expected are the source files modified_classes and dir-layout.csv
	// name (Defects4J), for a cross-check against the patch.
	Expected []string
	Problem  string
}

// LoadDefects4J reads the bugs of a Defects4J framework/projects layout
// (the root or one project directory), keeping the named projects (all when
// projects is empty). A bug whose trigger_tests or src.patch cannot be read
// is returned with Problem set; malformed active-bugs.csv rows are returned
// as problems.
func LoadDefects4J(dir string, projects []string) ([]BugInput, []bench.Problem, error) {
	dirs, err := bench.Defects4JProjectDirs(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("seeds.LoadDefects4J: %w", err)
	}
	var out []BugInput
	var problems []bench.Problem
	seen := map[string]bool{}
	for _, pdir := range dirs {
		name := filepath.Base(filepath.Clean(pdir))
		seen[name] = true
		if len(projects) > 0 && !slices.Contains(projects, name) {
			continue
		}
		bugs, ps, err := bench.ReadActiveBugs(pdir, false)
		if err != nil {
			return nil, nil, fmt.Errorf("seeds.LoadDefects4J: %w", err)
		}
		problems = append(problems, ps...)
		layout := readLayout(filepath.Join(pdir, "dir-layout.csv"))
		for _, b := range bugs {
			out = append(out, defects4jInput(pdir, b, layout))
		}
	}
	for _, p := range projects {
		if !seen[p] {
			return nil, nil, fmt.Errorf("seeds.LoadDefects4J(%s): %w: no project %q (want a directory holding active-bugs.csv)", dir, errs.ErrUsage, p)
		}
	}
	return out, problems, nil
}

func defects4jInput(pdir string, b bench.Defects4JBug, layout map[string]string) BugInput {
	in := BugInput{ID: b.ID(), Benchmark: "defects4j", Project: b.Project, Repo: bench.Defects4JRepos[b.Project],
		Buggy: b.Buggy, Fixed: b.Fixed}
	n := strconv.Itoa(b.Number)
	var problem string
	if in.Failures, problem = readTriggerTests(filepath.Join(pdir, "trigger_tests", n)); problem != "" {
		in.Problem = problem
		return in
	}
	if in.FixedToBuggy, problem = readSourcePatch(filepath.Join(pdir, "patches", n+".src.patch")); problem != "" {
		in.Problem = problem
		return in
	}
	in.Expected = expectedFiles(pdir, n, b, layout)
	return in
}

// readTriggerTests parses a bug's trigger_tests file; the problem says
// why it cannot be read.
func readTriggerTests(trig string) ([]Failure, string) {
	data, err := os.ReadFile(trig)
	if err != nil {
		return nil, fmt.Sprintf("cannot read %s: %v", trig, err)
	}
	fs, err := ParseTriggerTests(trig, data)
	if err != nil {
		return nil, err.Error()
	}
	return fs, ""
}

// readSourcePatch parses a bug's src.patch (fixed → buggy); the problem
// says why it cannot be read or holds no change.
func readSourcePatch(patch string) ([]*diff.FileDiff, string) {
	data, err := os.ReadFile(patch)
	if err != nil {
		return nil, fmt.Sprintf("cannot read %s: %v", patch, err)
	}
	fds, err := diff.ParseBytes(data)
	if err != nil {
		return nil, fmt.Sprintf("%s: %v", patch, err)
	}
	if len(fds) == 0 {
		return nil, patch + " holds no file change"
	}
	return fds, ""
}

// expectedFiles are the source files from modified_classes/N.src and the
// source directory dir-layout.csv gives for the fixed revision (rows are
// per revision).
func expectedFiles(pdir, n string, b bench.Defects4JBug, layout map[string]string) []string {
	src := layout[b.Fixed]
	if src == "" {
		src = layout[b.Buggy]
	}
	var out []string
	if mc, err := os.ReadFile(filepath.Join(pdir, "modified_classes", n+".src")); err == nil && src != "" {
		for _, l := range strings.Split(string(mc), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, src+"/"+strings.ReplaceAll(l, ".", "/")+".java")
			}
		}
	}
	return out
}

func readLayout(file string) map[string]string {
	out := map[string]string{}
	data, err := os.ReadFile(file)
	if err != nil {
		return out
	}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Split(strings.TrimSpace(l), ","); len(f) >= 2 {
			out[f[0]] = strings.TrimSuffix(f[1], "/")
		}
	}
	return out
}

// GenericBug is one line of the generic bug JSONL input, for benchmarks
// other than Defects4J (Bugs.jar, Bears, BugSwarm): bug_id, repo,
// buggy_commit and fixed_commit are required; failure_log is the failing
// run's output (exception lines, "Caused by:" chains, optionally Defects4J
// style "--- test" headers); exception (long or short type name) overrides
// the type classified from it; patch is the buggy → fixed source diff (when
// absent the Java files outside test directories are compared between the
// two commits).
type GenericBug struct {
	BugID       string `json:"bug_id"`
	Benchmark   string `json:"benchmark,omitempty"`
	Project     string `json:"project,omitempty"`
	Repo        string `json:"repo"`
	BuggyCommit string `json:"buggy_commit"`
	FixedCommit string `json:"fixed_commit"`
	FailureLog  string `json:"failure_log"`
	Exception   string `json:"exception,omitempty"`
	Patch       string `json:"patch,omitempty"`
}

// ReadGenericBugs reads a generic bug JSONL file. Malformed lines are
// errors naming file:line (errs.ErrInput); a record with a missing field is
// returned with Problem set so that it is logged, not dropped.
func ReadGenericBugs(path string) ([]BugInput, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("seeds.ReadGenericBugs(%s): %w: %v", path, errs.ErrInput, err)
	}
	defer f.Close()
	var out []BugInput
	ids := map[string]int{}
	err = jsonl.Scan(bufio.NewReader(f), func(line int, raw []byte) error {
		var g GenericBug
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&g); err != nil {
			return fmt.Errorf("seeds.ReadGenericBugs(%s:%d): %w: %v (want {bug_id, repo, buggy_commit, fixed_commit, failure_log})", path, line, errs.ErrInput, err)
		}
		if g.BugID == "" {
			return fmt.Errorf("seeds.ReadGenericBugs(%s:%d): %w: bug_id is empty", path, line, errs.ErrInput)
		}
		if prev, dup := ids[g.BugID]; dup {
			return fmt.Errorf("seeds.ReadGenericBugs(%s:%d): %w: bug_id %q repeats line %d", path, line, errs.ErrInput, g.BugID, prev)
		}
		ids[g.BugID] = line
		out = append(out, genericInput(path, line, g))
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func genericInput(path string, line int, g GenericBug) BugInput {
	in := BugInput{ID: g.BugID, Benchmark: g.Benchmark, Project: g.Project, Repo: g.Repo, Buggy: g.BuggyCommit, Fixed: g.FixedCommit}
	if in.Benchmark == "" {
		in.Benchmark = "generic"
	}
	if in.Project == "" {
		in.Project = g.Repo
	}
	where := fmt.Sprintf("%s:%d", path, line)
	if missing := missingFields(g); len(missing) > 0 {
		in.Problem = fmt.Sprintf("%s: missing %s", where, strings.Join(missing, ", "))
		return in
	}
	if g.Exception != "" {
		t, ok := ParseType(g.Exception)
		if !ok {
			in.Problem = fmt.Sprintf("%s: exception %q is none of the seven types (NPE IAE AIOOBE NFE CCE SIOOBE ISE or their long names)", where, g.Exception)
			return in
		}
		in.Exception = t
	}
	fs, err := parseFailureLog(where, g)
	if err != nil && in.Exception == "" {
		in.Problem = err.Error()
		return in
	}
	in.Failures = fs
	if g.Patch != "" {
		fds, err := diff.ParseString(g.Patch)
		if err != nil {
			in.Problem = fmt.Sprintf("%s: patch: %v", where, err)
			return in
		}
		for _, fd := range fds {
			in.FixedToBuggy = append(in.FixedToBuggy, diff.Reverse(fd))
		}
	}
	return in
}

// missingFields names the required fields g leaves empty.
func missingFields(g GenericBug) []string {
	var missing []string
	for _, f := range []struct{ name, v string }{{"repo", g.Repo}, {"buggy_commit", g.BuggyCommit}, {"fixed_commit", g.FixedCommit}} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	return missing
}

// parseFailureLog parses g's failure log as a trigger_tests file, under a
// header naming the bug when the log has none.
func parseFailureLog(where string, g GenericBug) ([]Failure, error) {
	logText := g.FailureLog
	if _, ok := bench.TriggerHeader(strings.SplitN(strings.TrimLeft(logText, "\n"), "\n", 2)[0]); !ok {
		logText = "--- " + g.BugID + "::failure_log\n" + logText
	}
	return ParseTriggerTests(where+" failure_log", []byte(logText))
}

// ParseType maps a short ("NPE") or long ("NullPointerException",
// "java.lang.NullPointerException") name to its Type.
func ParseType(s string) (Type, bool) {
	for _, t := range Types {
		if s == string(t) || s == t.SimpleName() || s == t.Class() {
			return t, true
		}
	}
	return "", false
}

// RepoFinder opens the local clone of a bug's repository, resolved the
// way every command resolves repositories (internal/audit/repos: Mapping
// by project or "owner/name", then under Dir owner__name, owner/name,
// owner+name/repo, the project, the repository name, bare or not, any
// case).
type RepoFinder struct {
	Dir     string
	Mapping map[string]string
	// MappingFile names the mapping in errors.
	MappingFile string
	open        map[string]*repoEntry
}

type repoEntry struct {
	repo *gitrepo.Repo
	err  error
}

// Find returns the open repository for a project and "owner/name" repo
// (either may be empty), or an error wrapping errs.ErrNotFound that says
// where it looked and how to add the clone. Repositories are opened once
// and kept until Close.
func (f *RepoFinder) Find(ctx context.Context, project, repo string) (*gitrepo.Repo, error) {
	key := project + "\x00" + repo
	if f.open == nil {
		f.open = map[string]*repoEntry{}
	}
	if e, ok := f.open[key]; ok {
		return e.repo, e.err
	}
	r, err := repos.Find(ctx, f.Dir, f.Mapping, f.MappingFile, repo, project)
	f.open[key] = &repoEntry{r, err}
	return r, err
}

// Close closes every repository Find opened.
func (f *RepoFinder) Close() error {
	var first error
	for _, e := range f.open {
		if e.repo != nil {
			if err := e.repo.Close(); err != nil && first == nil {
				first = err
			}
		}
	}
	f.open = nil
	return first
}

// ReadMapping reads a --mapping file: the JSON object of every command
// (repos.ReadMapping).
func ReadMapping(path string) (map[string]string, error) { return repos.ReadMapping(path) }
