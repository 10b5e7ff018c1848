package cli

import (
	"encoding/json"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/audit/patchcheck"
	"github.com/benchforge/benchforge/internal/audit/pipeline"
	"github.com/benchforge/benchforge/internal/audit/pipeline/pipelinetest"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/output"
)

// TestAuditPatchAndRunShareStageII runs `audit patch` and `audit run` on
// the same benchmark with the same Stage II options: both go through
// pipeline.Patch, so their verdict records — settings and run keys
// included — are identical, and `audit patch` pointed at the run's
// patch.jsonl reuses every final verdict instead of redoing it.
func TestAuditPatchAndRunShareStageII(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end audit")
	}
	fx := pipelinetest.New(t)
	stage2 := []string{"--benchmark", fx.Benchmark, "--repos", fx.ReposDir, "--cutoff", pipelinetest.Cutoff, "--threshold", "0.7", "--workers", "1"}
	patchOut := filepath.Join(t.TempDir(), "verdicts.jsonl")
	if code, _, stderr := runCLI(t, append([]string{"audit", "patch", "--out", patchOut}, stage2...)...); code != 0 {
		t.Fatalf("audit patch: exit %d: %s", code, stderr)
	}
	runOut := t.TempDir()
	args := append([]string{"audit", "run", "--model", fx.TargetSpec, "--reference-model", fx.RefSpec, "--reference-index", fx.IndexPath,
		"--max-queries", "40", "--cache-dir", t.TempDir(), "--no-baselines", "--out", runOut}, stage2...)
	if code, _, stderr := runCLI(t, args...); code != 0 {
		t.Fatalf("audit run: exit %d: %s", code, stderr)
	}
	fromPatch, fromRun := verdictLines(t, patchOut), verdictLines(t, filepath.Join(runOut, pipeline.FilePatch))
	if len(fromPatch) != 4 || len(fromRun) != len(fromPatch) {
		t.Fatalf("audit patch wrote %d verdicts, audit run %d; want 4 each", len(fromPatch), len(fromRun))
	}
	for i := range fromPatch {
		if fromPatch[i] != fromRun[i] {
			t.Errorf("verdict %d differs:\naudit patch: %s\naudit run:   %s", i, fromPatch[i], fromRun[i])
		}
	}

	// Same keys: a resume of `audit patch` on the run's log redoes only
	// the unknown verdict (no clone), as a resume of either command does.
	code, stdout, stderr := runCLI(t, append([]string{"audit", "patch", "--json", "--out", filepath.Join(runOut, pipeline.FilePatch)}, stage2...)...)
	if code != 0 {
		t.Fatalf("audit patch on the run's patch.jsonl: exit %d: %s", code, stderr)
	}
	var s auditPatchSummary
	if err := output.DecodeSummary(strings.NewReader(stdout), "audit_patch", &s); err != nil {
		t.Fatal(err)
	}
	if s.Resumed != 3 || s.Checked != 1 || s.Other != 0 {
		t.Errorf("audit patch on the run's log: resumed %d, checked %d, other settings %d; want 3, 1, 0", s.Resumed, s.Checked, s.Other)
	}
}

// verdictLines are a verdict log's records, re-encoded and sorted by
// sample id (the two commands may finish samples in different orders).
func verdictLines(t *testing.T, path string) []string {
	t.Helper()
	vs, err := jsonl.ReadFile[patchcheck.Verdict](path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, v := range vs {
		if v.RunKey == "" || v.Settings == nil {
			t.Errorf("%s: verdict %s has no run key or settings", path, v.SampleID)
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	sort.Strings(out)
	return out
}
