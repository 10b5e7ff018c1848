package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/audit/patchcheck"
	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/gitrepo/gittest"
	"github.com/benchforge/benchforge/internal/jsonl"
)

// TestAuditPatchTestFallback: a fix refactored beyond recognition in the
// snapshot is absent by similarity and present once --test-fallback runs
// the sample's failing test through --test-cmd.
func TestAuditPatchTestFallback(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	const test = "import unittest\nfrom calc import clamp\n\nclass T(unittest.TestCase):\n    def test_hi(self):\n        self.assertEqual(clamp(9, 0, 5), 5)\n\nif __name__ == '__main__':\n    unittest.main()\n"
	b := gittest.New(t)
	b.Write("calc.py", auditBuggy)
	b.Write("test_calc.py", test)
	base := b.Commit("buggy", gittest.Date(2019, 1, 1))
	b.Write("calc.py", auditFixed)
	fix := b.Commit("fix", gittest.Date(2019, 2, 1))
	b.Write("calc.py", "def clamp(v, lo, hi):\n    return min(max(v, lo), hi)\n")
	b.Commit("refactor", gittest.Date(2020, 1, 1))
	reposDir := t.TempDir()
	if err := os.Rename(b.CloneBare(), filepath.Join(reposDir, "o__calc.git")); err != nil {
		t.Fatal(err)
	}
	patch := diff.Unified("a/calc.py", "b/calc.py", []byte(auditBuggy), []byte(auditFixed), 3).String()
	rec, _ := json.Marshal(map[string]any{"id": "r", "benchmark": "toy", "repo": "o/calc", "language": "python",
		"base_commit": base, "fix_commit": fix, "patch": patch,
		"tests": map[string]any{"fail_to_pass": []string{"test_calc.T.test_hi"}}})
	benchFile := filepath.Join(t.TempDir(), "toy.jsonl")
	os.WriteFile(benchFile, append(rec, '\n'), 0o644)

	verdict := func(extra ...string) patchcheck.Verdict {
		t.Helper()
		out := filepath.Join(t.TempDir(), "v.jsonl")
		args := append([]string{"audit", "patch", "--benchmark", benchFile, "--format", "jsonl", "--repos", reposDir,
			"--cutoff", "2021-01-01", "--out", out}, extra...)
		if _, errOut, code := run(t, args...); code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		vs, err := jsonl.ReadFile[patchcheck.Verdict](out)
		if err != nil || len(vs) != 1 {
			t.Fatalf("%d verdicts, %v", len(vs), err)
		}
		return vs[0]
	}
	if v := verdict(); v.Verdict != "absent" {
		t.Fatalf("without tests: verdict %s (score %.2f), want absent", v.Verdict, v.Score)
	}
	v := verdict("--test-fallback", "--inconclusive-low", "-1", "--test-cmd", "python3 -m unittest {tests}", "--test-timeout", "60s")
	if v.Verdict != "present" || v.Method != "tests" {
		t.Fatalf("with tests: verdict %s by %s (%s), want present by tests", v.Verdict, v.Method, v.Reason)
	}
	// A harness that passes whatever the code: the buggy version passes
	// its FAIL_TO_PASS test too, so the run is inconclusive, not present.
	v = verdict("--test-fallback", "--inconclusive-low", "-1", "--test-cmd", "true {tests}", "--test-timeout", "60s")
	if v.Verdict != "absent" || v.Tests == nil || !v.Tests.Inconclusive || !strings.Contains(v.Reason, "test verification inconclusive: ") {
		t.Fatalf("harness that cannot fail: verdict %s, tests %+v (%s), want absent, inconclusive", v.Verdict, v.Tests, v.Reason)
	}
}
