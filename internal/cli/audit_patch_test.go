package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/audit/patchcheck"
	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/gitrepo/gittest"
	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/output"
)

const (
	auditBuggy = "def clamp(v, lo, hi):\n    r = v\n    if r < lo:\n        r = lo\n    return r\n"
	auditFixed = "def clamp(v, lo, hi):\n    r = v\n    if r < lo:\n        r = lo\n    if r > hi:\n        r = hi\n    return r\n"
)

// auditFixture builds a repository where a.py's fix persists and b.py's is
// reverted, a bare clone of it in a --repos directory, and a generic JSONL
// benchmark with both samples and one whose repository is missing.
func auditFixture(t *testing.T) (bench, reposDir string) {
	b := gittest.New(t)
	b.Write("a.py", auditBuggy)
	b.Write("b.py", auditBuggy)
	base := b.Commit("buggy", gittest.Date(2019, 1, 1))
	b.Write("a.py", auditFixed)
	b.Write("b.py", auditFixed)
	fix := b.Commit("fix", gittest.Date(2019, 2, 1))
	b.Write("b.py", auditBuggy)
	b.Commit("revert b", gittest.Date(2020, 1, 1))
	reposDir = t.TempDir()
	if err := os.Rename(b.CloneBare(), filepath.Join(reposDir, "o__calc.git")); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, s := range []struct{ id, repo, file string }{{"a", "o/calc", "a.py"}, {"b", "o/calc", "b.py"}, {"c", "o/gone", "a.py"}} {
		patch := diff.Unified("a/"+s.file, "b/"+s.file, []byte(auditBuggy), []byte(auditFixed), 3).String()
		rec, _ := json.Marshal(map[string]any{"id": s.id, "benchmark": "toy", "repo": s.repo, "language": "python",
			"base_commit": base, "fix_commit": fix, "patch": patch})
		lines = append(lines, string(rec))
	}
	bench = filepath.Join(t.TempDir(), "toy.jsonl")
	if err := os.WriteFile(bench, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return bench, reposDir
}

func TestAuditPatchAndEval(t *testing.T) {
	benchFile, reposDir := auditFixture(t)
	out := filepath.Join(t.TempDir(), "verdicts.jsonl")
	args := []string{"benchforge", "audit", "patch", "--benchmark", benchFile, "--format", "jsonl", "--repos", reposDir,
		"--cutoff", "2021-01-01", "--out", out, "--json"}
	var stdout, stderr bytes.Buffer
	if code := Run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var sum auditPatchSummary
	if err := output.DecodeSummary(&stdout, "audit_patch", &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Checked != 3 || sum.Counts["present"] != 1 || sum.Counts["absent"] != 1 || sum.Counts["unknown"] != 1 {
		t.Fatalf("summary %+v", sum)
	}
	checkToyVerdicts(t, out)
	// Resume: only the unknown verdict (no clone) is redone.
	stdout.Reset()
	if code := Run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("rerun exit %d: %s", code, stderr.String())
	}
	if err := output.DecodeSummary(&stdout, "audit_patch", &sum); err != nil || sum.Checked != 1 || sum.Resumed != 2 || sum.Total != 3 {
		t.Fatalf("rerun summary %+v %v", sum, err)
	}
	checkEvalOfPatches(t, out)
}

// checkToyVerdicts checks the verdict log of the toy benchmark: a
// present, b absent, c unknown (no clone).
func checkToyVerdicts(t *testing.T, out string) {
	t.Helper()
	vs, err := jsonl.ReadFile[patchcheck.Verdict](out)
	if err != nil || len(vs) != 3 {
		t.Fatalf("%d verdicts, %v", len(vs), err)
	}
	got := map[string]string{}
	for _, v := range vs {
		got[v.SampleID] = v.Verdict
	}
	if got["a"] != "present" || got["b"] != "absent" || got["c"] != "unknown" {
		t.Fatalf("verdicts %v", got)
	}
}

// checkEvalOfPatches evaluates the toy verdicts in out against labels (a
// present, b absent) with audit eval and checks the figures and the SVG.
func checkEvalOfPatches(t *testing.T, out string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	labels := filepath.Join(t.TempDir(), "labels.csv")
	os.WriteFile(labels, []byte("id,label\na,1\nb,0\n"), 0o644)
	svg, roc := filepath.Join(t.TempDir(), "roc.svg"), filepath.Join(t.TempDir(), "roc.json")
	code := Run(context.Background(), []string{"benchforge", "audit", "eval", "--verdicts", out, "--labels", labels, "--svg", svg, "--roc", roc, "--json"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("eval exit %d: %s", code, stderr.String())
	}
	var se patchcheck.SetEvaluation
	if err := json.Unmarshal(stdout.Bytes(), &se); err != nil {
		t.Fatal(err)
	}
	if ev := se.Overall; ev.AUC != 1 || ev.TPR != 1 || ev.FPR != 0 || ev.N != 2 {
		t.Fatalf("eval %+v", ev)
	}
	if py := se.ByLanguage["python"]; py == nil || py.N != 2 {
		t.Fatalf("per language %+v", se.ByLanguage)
	}
	if b, err := os.ReadFile(svg); err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Fatalf("svg: %v", err)
	}
	// Both labels ranked right: the best point within FPR 0.05 calls the
	// present sample present and the absent one not.
	if b := se.Overall.AtFPR05; b.TPR != 1 || b.FPR != 0 {
		t.Fatalf("at FPR ≤ 0.05: %+v", b)
	}
	golden.Check(t, "testdata/audit_eval_json.golden", stdout.Bytes())
	stdout.Reset()
	if code := Run(context.Background(), []string{"benchforge", "audit", "eval", "--verdicts", out, "--labels", labels}, &stdout, &stderr); code != 0 {
		t.Fatalf("eval exit %d: %s", code, stderr.String())
	}
	golden.Check(t, "testdata/audit_eval.golden", stdout.Bytes())
}

// runPatchJSON runs audit patch with args and decodes its JSON summary.
func runPatchJSON(t *testing.T, args ...string) auditPatchSummary {
	t.Helper()
	var stdout, stderr bytes.Buffer
	full := append([]string{"benchforge", "audit", "patch", "--format", "jsonl", "--json"}, args...)
	if code := Run(context.Background(), full, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var sum auditPatchSummary
	if err := output.DecodeSummary(&stdout, "audit_patch", &sum); err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestAuditPatchResumeKeyedBySettings: a rerun with another cutoff or
// threshold never reuses a verdict decided under the old one (issue 14:
// the 2021 verdicts were reported under a 2019 cutoff).
func TestAuditPatchResumeKeyedBySettings(t *testing.T) {
	benchFile, reposDir := auditFixture(t)
	out := filepath.Join(t.TempDir(), "verdicts.jsonl")
	base := []string{"--benchmark", benchFile, "--repos", reposDir, "--out", out}
	sum := runPatchJSON(t, append(base, "--cutoff", "2021-01-01")...)
	if sum.Counts["present"] != 1 || sum.Counts["absent"] != 1 {
		t.Fatalf("2021: %+v", sum.Counts)
	}
	// b's fix was reverted in 2020: before that it is present.
	sum = runPatchJSON(t, append(base, "--cutoff", "2019-06-01")...)
	if sum.Checked != 3 || sum.Resumed != 0 || sum.Counts["present"] != 2 || sum.Counts["absent"] != 0 || sum.Total != 3 {
		t.Fatalf("2019 after 2021: %+v", sum)
	}
	if sum.Other != 3 || len(sum.OtherSettings) != 1 || !strings.HasPrefix(sum.OtherSettings[0], "cutoff: ") {
		t.Fatalf("other settings: %d %v", sum.Other, sum.OtherSettings)
	}
	// Both cutoffs at once: everything is resumed but the unknown.
	sum = runPatchJSON(t, append(base, "--cutoff", "2019-06-01,2021-01-01")...)
	if sum.Checked != 2 || sum.Resumed != 4 || sum.Total != 6 || sum.Counts["present"] != 3 || sum.Counts["absent"] != 1 {
		t.Fatalf("two cutoffs: %+v", sum)
	}
	// Another threshold is another setting.
	sum = runPatchJSON(t, append(base, "--cutoff", "2021-01-01", "--threshold", "0.9")...)
	if sum.Checked != 3 || sum.Resumed != 0 {
		t.Fatalf("threshold 0.9: %+v", sum)
	}
	vs, err := jsonl.ReadFile[patchcheck.Verdict](out)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if v.RunKey == "" || v.Settings["cutoff"] != v.Cutoff || v.Settings["decision"] != patchcheck.DecisionVersion {
			t.Fatalf("verdict %s lacks its settings: key %q settings %v", v.SampleID, v.RunKey, v.Settings)
		}
	}
}

// TestAuditPatchRetriesUnknown: an unknown verdict (no clone) is redone
// once the clone is there and supersedes the old record; --recheck all
// redoes every verdict.
func TestAuditPatchRetriesUnknown(t *testing.T) {
	benchFile, reposDir := auditFixture(t)
	out := filepath.Join(t.TempDir(), "verdicts.jsonl")
	args := []string{"--benchmark", benchFile, "--repos", reposDir, "--out", out, "--cutoff", "2021-01-01"}
	if sum := runPatchJSON(t, args...); sum.Counts["unknown"] != 1 {
		t.Fatalf("first run: %+v", sum.Counts)
	}
	// A repository with no judged sample has no present rate: n/a, not
	// 0.000, which would read as "every fix absent".
	var stdout, stderr bytes.Buffer
	text := filepath.Join(t.TempDir(), "text.jsonl")
	Run(context.Background(), append([]string{"benchforge", "audit", "patch", "--format", "jsonl"}, append(args[:len(args)-4], "--out", text, "--cutoff", "2021-01-01")...), &stdout, &stderr)
	if !regexp.MustCompile(`(?m)^o/gone\s.*\sn/a\s*$`).MatchString(stdout.String()) {
		t.Errorf("all-unknown repository row lacks n/a:\n%s%s", stdout.String(), stderr.String())
	}
	// The missing clone appears (a copy of the same history).
	gone := filepath.Join(reposDir, "o__gone.git")
	if err := os.CopyFS(gone, os.DirFS(filepath.Join(reposDir, "o__calc.git"))); err != nil {
		t.Fatal(err)
	}
	sum := runPatchJSON(t, args...)
	if sum.Checked != 1 || sum.Resumed != 2 || sum.Total != 3 || sum.Counts["unknown"] != 0 || sum.Counts["present"] != 2 {
		t.Fatalf("after adding the clone: %+v", sum)
	}
	sum = runPatchJSON(t, append(args, "--recheck", "all")...)
	if sum.Checked != 3 || sum.Resumed != 0 || sum.Total != 3 {
		t.Fatalf("--recheck all: %+v", sum)
	}
}

func TestAuditPatchUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Run(context.Background(), []string{"benchforge", "audit", "patch", "--cutoff", "2023-09-01"}, &stdout, &stderr); code != exitUsage {
		t.Fatalf("missing flags: exit %d", code)
	}
	if code := Run(context.Background(), []string{"benchforge", "audit", "patch", "--benchmark", "x", "--out", "y", "--cutoff", "yesterday"}, &stdout, &stderr); code != exitInput {
		t.Fatalf("bad cutoff: exit %d (%s)", code, stderr.String())
	}
}

// TestAuditPatchGolden snapshots `audit patch` on the toy repository, text
// and --json, from a fresh output file. Only the temporary directories and
// the wall-clock seconds are normalised.
func TestAuditPatchGolden(t *testing.T) {
	benchFile, reposDir := auditFixture(t)
	for _, tc := range []struct {
		golden string
		json   []string
	}{{"audit_patch.golden", nil}, {"audit_patch_json.golden", []string{"--json"}}} {
		t.Run(tc.golden, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"audit", "patch", "--benchmark", benchFile, "--format", "jsonl", "--repos", reposDir,
				"--cutoff", "2021-01-01", "--out", filepath.Join(dir, "verdicts.jsonl"), "--workers", "1"}, tc.json...)
			stdout, stderr, code := run(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			scrubs := []golden.Scrub{golden.Path(dir, "$OUT"), golden.Path(reposDir, "$REPOS"), golden.Path(filepath.Dir(benchFile), "$BENCH"), golden.Durations}
			golden.CheckString(t, filepath.Join("testdata", tc.golden), stdout, scrubs...)
		})
	}
}
