package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/audit/pipeline"
	"github.com/benchforge/benchforge/internal/audit/pipeline/pipelinetest"
	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/output"
)

// TestAuditRunEvalReport drives `audit run` (twice: the second run resumes
// with no model call), `audit eval --stage combined|repo` and `report`
// end to end against loopback n-gram servers.
func TestAuditRunEvalReport(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end audit")
	}
	fx := pipelinetest.New(t)
	out, cache := filepath.Join(t.TempDir(), "audit"), t.TempDir()
	args := []string{"audit", "run", "--benchmark", fx.Benchmark, "--repos", fx.ReposDir, "--model", fx.TargetSpec,
		"--reference-model", fx.RefSpec, "--reference-index", fx.IndexPath, "--max-repo-frac", "0.3", "--max-queries", "40",
		"--max-tokens", "6", "--cutoff", pipelinetest.Cutoff, "--cache-dir", cache, "--out", out}
	code, stdout, stderr := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("audit run exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "warning: no local clone for acme/missing under "+fx.ReposDir+": ") {
		t.Errorf("no warning names the missing clone:\n%s", stderr)
	}
	for _, want := range []string{"contaminated 1  clean 3 (flagged 1)", "repositories: present 1  absent 1  insufficient 0  no local clone 1", "acme/seen", "wrote "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("audit run output lacks %q:\n%s", want, stdout)
		}
	}
	for _, f := range []string{pipeline.FileRepos, pipeline.FileProbes, pipeline.FilePatch, pipeline.FileBaselines, pipeline.FileVerdicts, pipeline.FileClean, pipeline.FileManifest, pipeline.FileReport} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing output %s: %v", f, err)
		}
	}

	// Resume: --json streams the records and ends with the manifest; no
	// model call the second time.
	before := fx.Target.Requests()
	code, stdout, stderr = runCLI(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("second audit run exit %d: %s", code, stderr)
	}
	var m pipeline.Manifest
	if err := output.DecodeSummary(strings.NewReader(stdout), "audit_run", &m); err != nil {
		t.Fatalf("--json output: %v\n%s", err, stdout)
	}
	if m.LLM == nil || m.LLM.Calls != 0 || m.LLM.CacheHits != 0 || fx.Target.Requests() != before || !m.Complete {
		t.Errorf("second run: complete %v, llm %+v, target requests +%d; want no call", m.Complete, m.LLM, fx.Target.Requests()-before)
	}

	// The CI gate: 1 of 4 contaminated is above 0.2 (exit 8, outputs
	// written), not above 0.25.
	code, stdout, stderr = runCLI(t, append(args, "--fail-on-contaminated", "0.2")...)
	if code != exitFindings || !strings.Contains(stderr, "1 of 4 samples contaminated (25.0%), above --fail-on-contaminated 0.2") || !strings.Contains(stdout, "contaminated 1") {
		t.Errorf("--fail-on-contaminated 0.2: exit %d, stderr %q; want %d with the share named and the summary printed", code, stderr, exitFindings)
	}
	if code, _, stderr = runCLI(t, append(args, "--fail-on-contaminated", "0.25")...); code != 0 {
		t.Errorf("--fail-on-contaminated 0.25: exit %d (%s), want 0", code, stderr)
	}
	if code, _, _ = runCLI(t, append(args, "--fail-on-contaminated", "5")...); code != exitUsage {
		t.Errorf("--fail-on-contaminated 5: exit %d, want %d", code, exitUsage)
	}

	// Evaluation against labels, written where `report` finds it.
	labels := filepath.Join(t.TempDir(), "labels.jsonl")
	os.WriteFile(labels, []byte(`{"id":"seen-1","label":true}
{"id":"seen-2","label":false}
{"id":"unseen-1","label":false}
{"id":"missing-1","label":false}
`), 0o644)
	code, stdout, stderr = runCLI(t, "audit", "eval", "--stage", "combined", "--verdicts", filepath.Join(out, pipeline.FileVerdicts),
		"--labels", labels, "--roc", filepath.Join(out, "eval-combined.json"), "--svg", filepath.Join(out, "roc-combined.svg"))
	if code != 0 {
		t.Fatalf("audit eval exit %d: %s", code, stderr)
	}
	for _, want := range []string{"benchchecker", "1.000", "loss", "min_k", "ref"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("audit eval output lacks %q:\n%s", want, stdout)
		}
	}
	repoLabels := filepath.Join(t.TempDir(), "repos.csv")
	os.WriteFile(repoLabels, []byte("id,label\nacme/seen,true\nacme/unseen,false\n"), 0o644)
	code, stdout, stderr = runCLI(t, "audit", "eval", "--stage", "repo", "--verdicts", filepath.Join(out, pipeline.FileRepos), "--labels", repoLabels, "--json")
	if code != 0 {
		t.Fatalf("audit eval --stage repo exit %d: %s", code, stderr)
	}
	var ev pipeline.StageEval
	if err := json.Unmarshal([]byte(stdout), &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Methods[0].Method != "benchchecker" || ev.Methods[0].AUC == nil || *ev.Methods[0].AUC != 1 || ev.Methods[0].TPR != 1 || ev.Methods[0].FPR != 0 {
		t.Errorf("stage repo evaluation: %+v", ev.Methods[0])
	}
	if code, _, stderr := runCLI(t, "audit", "eval", "--stage", "bogus", "--verdicts", labels, "--labels", labels); code != exitUsage {
		t.Errorf("--stage bogus: exit %d (%s), want %d", code, stderr, exitUsage)
	}

	// The report regenerates from the files, with the ROC section.
	html := filepath.Join(t.TempDir(), "r.html")
	code, stdout, stderr = runCLI(t, "report", "--in", out, "--out", html)
	if code != 0 {
		t.Fatalf("report exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Evaluation against labels", "ROC, stage combined", "<svg"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if code, _, _ := runCLI(t, "report", "--in", t.TempDir()); code != exitNotFound {
		t.Errorf("report on an empty directory: exit %d, want %d", code, exitNotFound)
	}
}

func TestAuditRunBadInput(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"missing flags", []string{"audit", "run", "--benchmark", empty}, exitUsage, "required"},
		{"bad cutoff", []string{"audit", "run", "--benchmark", empty, "--model", "openai:x@http://127.0.0.1:9/v1", "--cutoff", "soon", "--out", dir}, exitInput, "cutoff"},
		{"empty benchmark", []string{"audit", "run", "--benchmark", empty, "--format", "jsonl", "--model", "openai:x@http://127.0.0.1:9/v1",
			"--cutoff", "2023-01-01", "--out", filepath.Join(dir, "o"), "--cache-dir", dir, "--reference-model", "none", "--reference-index", "none"}, exitInput, "no valid sample"},
		{"bad alpha", []string{"audit", "run", "--benchmark", empty, "--model", "m:x", "--cutoff", "2023-01-01", "--out", dir, "--alpha", "2"}, exitUsage, "alpha"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.msg) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, tc.code, tc.msg)
			}
		})
	}
}

// TestAuditRunGolden snapshots `audit run` on the pipelinetest fixture
// (three toy repositories, four samples, loopback n-gram models), text and
// --json, each from a fresh output directory and model cache. Normalised:
// the temporary directories, the loopback servers' URLs (random ports),
// the repository records' keys (a hash over settings that hold those URLs)
// and the wall-clock figures.
func TestAuditRunGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end audit")
	}
	fx := pipelinetest.New(t)
	for _, tc := range []struct {
		golden string
		json   []string
	}{{"audit_run.golden", nil}, {"audit_run_json.golden", []string{"--json"}}} {
		t.Run(tc.golden, func(t *testing.T) {
			out, cache := t.TempDir(), t.TempDir()
			args := append([]string{"audit", "run", "--benchmark", fx.Benchmark, "--repos", fx.ReposDir, "--model", fx.TargetSpec,
				"--reference-model", fx.RefSpec, "--reference-index", fx.IndexPath, "--max-repo-frac", "0.3", "--max-queries", "40",
				"--max-tokens", "6", "--cutoff", pipelinetest.Cutoff, "--cache-dir", cache, "--out", out, "--workers", "1"}, tc.json...)
			code, stdout, stderr := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			_, target, _ := strings.Cut(fx.TargetSpec, "@")
			_, ref, _ := strings.Cut(fx.RefSpec, "@")
			golden.CheckString(t, filepath.Join("testdata", tc.golden), stdout, golden.Path(out, "$OUT"), golden.Path(cache, "$CACHE"),
				golden.Path(fx.Dir, "$FIXTURE"), golden.Path(target, "$TARGET_URL"), golden.Path(ref, "$REFERENCE_URL"),
				golden.Regexp(`("key":"[^"@]+@)[0-9a-f]{16}"`, `${1}$$SETTINGS_HASH"`), golden.Durations)
		})
	}
}
