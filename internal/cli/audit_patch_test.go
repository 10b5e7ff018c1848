package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/audit/patchcheck"
	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/gitrepo/gittest"
	"github.com/benchforge/benchforge/internal/jsonl"
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
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Checked != 3 || sum.Counts["present"] != 1 || sum.Counts["absent"] != 1 || sum.Counts["unknown"] != 1 {
		t.Fatalf("summary %+v", sum)
	}
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
	// Resume: nothing new is checked or written.
	stdout.Reset()
	if code := Run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("rerun exit %d: %s", code, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil || sum.Checked != 0 || sum.Resumed != 3 || sum.Total != 3 {
		t.Fatalf("rerun summary %+v %v", sum, err)
	}
	// Eval against labels: a present, b absent.
	labels := filepath.Join(t.TempDir(), "labels.csv")
	os.WriteFile(labels, []byte("id,label\na,1\nb,0\n"), 0o644)
	svg, roc := filepath.Join(t.TempDir(), "roc.svg"), filepath.Join(t.TempDir(), "roc.json")
	stdout.Reset()
	code := Run(context.Background(), []string{"benchforge", "audit", "eval", "--verdicts", out, "--labels", labels, "--svg", svg, "--roc", roc, "--json"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("eval exit %d: %s", code, stderr.String())
	}
	var ev patchcheck.Evaluation
	if err := json.Unmarshal(stdout.Bytes(), &ev); err != nil {
		t.Fatal(err)
	}
	if ev.AUC != 1 || ev.TPR != 1 || ev.FPR != 0 || ev.Skipped["unknown"] != 1 {
		t.Fatalf("eval %+v", ev)
	}
	if b, err := os.ReadFile(svg); err != nil || !bytes.Contains(b, []byte("<svg")) {
		t.Fatalf("svg: %v", err)
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
