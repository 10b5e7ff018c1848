package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/benchforge/benchforge/internal/audit/patchcheck"
	"github.com/benchforge/benchforge/internal/audit/rescore"
	"github.com/benchforge/benchforge/internal/audit/testbed"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/report"
)

// Kinds of the audit's message stream. Run emits repo_verdict and verdict
// records as it goes (Options.Output) and `audit run` the audit_run
// summary; Replay sends every kind from an audit directory, and BuildPage
// renders the report from them. A value is the type named or a pointer to
// it.
const (
	KindRepoVerdict  = "repo_verdict"  // RepoRecord: a repository's Stage I verdict (repos.jsonl)
	KindVerdict      = "verdict"       // rescore.Verdict: a sample's combined verdict (verdicts.jsonl)
	KindPatchVerdict = "patch_verdict" // patchcheck.Verdict: a sample's Stage II verdict (patch.jsonl)
	KindStageEval    = "stage_eval"    // StageEval: a stage evaluated against labels (eval-*.json)
	KindRescore      = "rescore"       // rescore.Result: resolution on all vs clean samples (rescore.json)
	KindTestbed      = "testbed"       // testbed.QuickResult: the known-membership testbed (testbed.json)
	KindRun          = "audit_run"     // the summary: Manifest (manifest.json)
)

// WriteReport renders the audit in dir to out as one self-contained HTML
// file: Replay streams the directory into a report.HTML handler, which
// builds the page with BuildPage.
func WriteReport(dir, out string) error {
	h := &report.HTML{Path: out, Of: dir, Build: BuildPage}
	if err := Replay(dir, h); err != nil {
		return err
	}
	return h.Close()
}

// Page builds the audit report of dir: BuildPage over Replay's stream.
func Page(dir string) (*report.Page, error) {
	var c output.Collect
	if err := Replay(dir, &c); err != nil {
		return nil, err
	}
	return BuildPage(c.Messages)
}

// Replay sends the audit in dir to h as a message stream, from the files
// alone (never from live state, so a report regenerates without a model
// call): as records, the repositories of repos.jsonl and the Stage II
// verdicts of patch.jsonl made under the run's settings (manifest.json),
// the verdicts of verdicts.jsonl, eval-*.json (from `audit eval --stage`),
// rescore.json and testbed.json; then manifest.json as the audit_run
// summary. A directory with none of the audit files is an error wrapping
// errs.ErrNotFound, and nothing is sent.
func Replay(dir string, h output.Handler) error {
	a, err := readAudit(dir)
	if err != nil {
		return err
	}
	for _, r := range a.records() {
		if err := h.Record(r); err != nil {
			return err
		}
	}
	if a.manifest == nil {
		return nil
	}
	return h.Summary(output.Summary{Kind: KindRun, Value: *a.manifest})
}

// audit is what an audit directory holds, as far as its report shows.
type audit struct {
	manifest *Manifest
	repos    []RepoRecord
	verdicts []rescore.Verdict
	patches  []patchcheck.Verdict
	evals    []*StageEval
	rs       *rescore.Result
	tb       *testbed.QuickResult
}

// readAudit reads the files of the audit in dir that are there.
func readAudit(dir string) (*audit, error) {
	a := &audit{}
	if err := a.readRun(dir); err != nil {
		return nil, err
	}
	if err := a.readOthers(dir); err != nil {
		return nil, err
	}
	if a.empty() {
		return nil, fmt.Errorf("report: %s holds no audit output (%s, %s, %s, %s, %s or eval-*.json): %w",
			dir, FileManifest, FileRepos, FileVerdicts, FileRescore, FileTestbed, errs.ErrNotFound)
	}
	if len(a.verdicts) > 0 {
		// Stage II verdicts are only the evidence of the verdicts' rows.
		var err error
		if a.patches, err = readPatches(dir, a.manifest); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// readRun reads the files of `audit run`: the manifest, this run's
// repositories and the verdicts.
func (a *audit) readRun(dir string) error {
	if err := readJSON(filepath.Join(dir, FileManifest), &a.manifest); err != nil {
		return err
	}
	var err error
	if a.repos, err = readRepos(dir, a.manifest); err != nil {
		return err
	}
	a.verdicts, err = readOptional[rescore.Verdict](filepath.Join(dir, FileVerdicts))
	return err
}

// readOthers reads the files other commands leave in the directory.
func (a *audit) readOthers(dir string) error {
	if err := readJSON(filepath.Join(dir, FileRescore), &a.rs); err != nil {
		return err
	}
	if err := readJSON(filepath.Join(dir, FileTestbed), &a.tb); err != nil {
		return err
	}
	var err error
	a.evals, err = readEvals(dir)
	return err
}

// empty reports whether the directory held none of the audit files.
func (a *audit) empty() bool {
	return a.manifest == nil && a.repos == nil && a.verdicts == nil && a.rs == nil && a.tb == nil && len(a.evals) == 0
}

// records is the audit as the stream's records (see Replay).
func (a *audit) records() []output.Record {
	var out []output.Record
	add := func(kind string, v any) { out = append(out, output.Record{Kind: kind, Value: v}) }
	for i := range a.repos {
		add(KindRepoVerdict, &a.repos[i])
	}
	for _, v := range a.patches {
		add(KindPatchVerdict, v)
	}
	for _, v := range a.verdicts {
		add(KindVerdict, v)
	}
	for _, ev := range a.evals {
		add(KindStageEval, ev)
	}
	if a.rs != nil {
		add(KindRescore, a.rs)
	}
	if a.tb != nil {
		add(KindTestbed, a.tb)
	}
	return out
}

// readRepos reads repos.jsonl: with the manifest's Stage I settings, only
// this run's records; the others, made with other settings, are kept in
// the file, not reported.
func readRepos(dir string, m *Manifest) ([]RepoRecord, error) {
	repos, err := readOptional[RepoRecord](filepath.Join(dir, FileRepos))
	if err != nil {
		return nil, err
	}
	if m == nil || m.Settings[FileRepos] == nil {
		return repos, nil
	}
	var mine []RepoRecord
	for _, r := range jsonl.Latest(repos, func(r RepoRecord) string { return r.Key }) {
		if r.Key == RepoKey(r.Repo, m.Settings[FileRepos]) {
			mine = append(mine, r)
		}
	}
	return mine, nil
}

// readPatches reads this run's Stage II verdicts (patch.jsonl, the
// manifest's settings), the latest of each.
func readPatches(dir string, m *Manifest) ([]patchcheck.Verdict, error) {
	recs, err := readOptional[patchcheck.Verdict](filepath.Join(dir, FilePatch))
	if err != nil {
		return nil, err
	}
	var out []patchcheck.Verdict
	for _, r := range jsonl.Latest(recs, PatchKey) {
		if m != nil && m.Settings[FilePatch] != nil && PatchKey(r) != m.Settings[FilePatch].ID(r.SampleID) {
			continue
		}
		out = append(out, r)
	}
	return out, nil
}

func readJSON[T any](path string, v *T) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("report: %s: %w: %v", path, errs.ErrInput, err)
	}
	return nil
}

func readOptional[T any](path string) ([]T, error) {
	recs, err := jsonl.ReadFile[T](path)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return recs, nil
}

func readEvals(dir string) ([]*StageEval, error) {
	paths, _ := filepath.Glob(filepath.Join(dir, "eval-*.json")) // the pattern is well formed
	sort.Strings(paths)
	var out []*StageEval
	for _, path := range paths {
		var ev *StageEval
		if err := readJSON(path, &ev); err != nil {
			return nil, err
		}
		if ev != nil && len(ev.Methods) > 0 {
			out = append(out, ev)
		}
	}
	return out, nil
}
