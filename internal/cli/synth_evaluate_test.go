package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/ngram"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/evaluate"
)

func TestSynthEvaluate(t *testing.T) {
	dir := t.TempDir()
	corpusPath, seedsPath := synthFixture(t, dir, 24, 80)
	out := filepath.Join(dir, "eval")
	code, stdout, stderr := runSynthCLI(t, "synth", "evaluate", "--pairs", corpusPath, "--seeds", seedsPath, "--out", out,
		"--folds", "3", "--run-seeds", "1,2", "--trees", "5", "--bootstrap", "100", "--sweep", "30", "--export-hf")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Isolated-method task", "Pair discrimination", "length-rule", "sweep-leaky"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	// 24 real pairs, a few per type: warned in text, JSON, Markdown and HTML.
	checkSmallSampleWarnings(t, stdout, out, "evaluation")
	golden.CheckString(t, filepath.Join("testdata", "synth_evaluate.golden"), stdout, golden.Path(dir, "$DIR"))
	folds, err := jsonl.ReadFile[evaluate.FoldAssignment](filepath.Join(out, "folds.jsonl"))
	if err != nil || len(folds) == 0 {
		t.Fatalf("folds.jsonl: %d records, %v", len(folds), err)
	}
	test, err := jsonl.ReadFile[evaluate.HFPair](filepath.Join(out, "hf", "pair", "seed1-fold0", "test.jsonl"))
	if err != nil || len(test) == 0 || test[0].BugID == "" {
		t.Fatalf("hf export: %v %+v", err, test)
	}
	md, _ := os.ReadFile(filepath.Join(out, "evaluation.md"))
	os.Remove(filepath.Join(out, "evaluation.md"))
	if code, _, stderr := runSynthCLI(t, "synth", "evaluate", "--render-only", "--out", out); code != 0 {
		t.Fatalf("render-only: exit %d: %s", code, stderr)
	}
	if again, _ := os.ReadFile(filepath.Join(out, "evaluation.md")); !bytes.Equal(md, again) {
		t.Error("--render-only Markdown differs from the original")
	}

	// External predictions, in the exported format, analysed alone.
	var preds []evaluate.Prediction
	for _, r := range test {
		preds = append(preds, evaluate.Prediction{Task: "pair", Model: "ext", BugID: r.BugID, Order: r.Order, Score: float64(r.Label)})
	}
	predPath := filepath.Join(dir, "ext.jsonl")
	if err := jsonl.Rewrite(predPath, preds); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runSynthCLI(t, "synth", "evaluate", "--seeds", seedsPath, "--predictions", predPath, "--out", filepath.Join(dir, "ext"), "--bootstrap", "100", "--json")
	if code != 0 {
		t.Fatalf("import: exit %d: %s", code, stderr)
	}
	golden.CheckString(t, filepath.Join("testdata", "synth_evaluate_json.golden"), stdout, golden.Path(dir, "$DIR"))
	var rep evaluate.Report
	if err := output.DecodeSummary(strings.NewReader(stdout), "synth_evaluate", &rep); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, row := range rep.Results {
		if row.Model == "ext" {
			found = true
			if row.Mean != 1 {
				t.Errorf("perfect external predictions scored %v", row.Mean)
			}
		}
	}
	if !found {
		t.Errorf("imported model missing from %+v", rep.Results)
	}
}

func TestSynthEvaluateErrors(t *testing.T) {
	dir := t.TempDir()
	corpusPath, seedsPath := synthFixture(t, dir, 12, 20)
	// A pair naming a seed that is not in the table.
	pairs, _ := jsonl.ReadFile[corpus.Pair](corpusPath)
	pairs[0].ExampleBugIDs = []string{"Ghost-1#0"}
	bad := filepath.Join(dir, "bad.jsonl")
	jsonl.Rewrite(bad, pairs)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--pairs", corpusPath, "--seeds", seedsPath}, exitUsage, "--out"},
		{[]string{"--pairs", bad, "--seeds", seedsPath, "--out", dir, "--folds", "2"}, exitInput, "Ghost-1#0"},
		{[]string{"--pairs", corpusPath, "--seeds", seedsPath, "--out", dir, "--models", "svm"}, exitUsage, "svm"},
		{[]string{"--render-only", "--out", filepath.Join(dir, "none")}, exitNotFound, "render"},
	}
	for _, c := range cases {
		code, _, stderr := runSynthCLI(t, append([]string{"synth", "evaluate"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want %d with %q; stderr %s", c.args, code, c.code, c.want, stderr)
		}
	}
}

// alwaysServer is an OpenAI-compatible chat endpoint that answers like the
// "always-positive" reference of Table 13 and a pure first-position
// chooser: every method is defective, the defective one is always A.
func alwaysServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := n.Add(1)
		var body struct {
			Model    string `json:"model"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		answer := `{"defective": true, "confidence": 0.8}`
		if strings.Contains(body.Messages[len(body.Messages)-1].Content, "Method A:") {
			answer = "A"
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": fmt.Sprintf("chatcmpl-%d", i), "object": "chat.completion", "created": 1700000000, "model": body.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": answer}}},
			"usage": map[string]any{"prompt_tokens": 40, "completion_tokens": 4, "total_tokens": 44},
		})
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestSynthEvaluateProbe: --probe alongside the training run. The scripted
// model answers "defective" and "A" to everything, so its figures are
// known exactly: accuracy 50%, specificity 0, recall 1, A / B 100 / 0 and
// the first method chosen every time. A rerun asks the model nothing.
func TestSynthEvaluateProbe(t *testing.T) {
	dir := t.TempDir()
	corpusPath, seedsPath := synthFixture(t, dir, 12, 40)
	srv, calls := alwaysServer(t)
	spec := "openai:always@" + srv.URL + "/v1"
	out := filepath.Join(dir, "eval")
	args := []string{"synth", "evaluate", "--pairs", corpusPath, "--seeds", seedsPath, "--out", out, "--folds", "2", "--run-seeds", "1",
		"--trees", "3", "--bootstrap", "50", "--no-sweep", "--no-leaky", "--probe", spec, "--cache-dir", filepath.Join(dir, "cache"), "--json"}
	code, stdout, stderr := runSynthCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep evaluate.Report
	if err := output.DecodeSummary(strings.NewReader(stdout), "synth_evaluate", &rep); err != nil {
		t.Fatal(err)
	}
	n := rep.Data.MeasuredSeeds
	if n == 0 || calls.Load() != int64(4*n) || len(rep.Probes) != 2 {
		t.Fatalf("%d measured seeds, %d calls, %d probe rows", n, calls.Load(), len(rep.Probes))
	}
	checkAlwaysProbeRows(t, rep, spec, n)
	checkProbePredictions(t, out, spec, n)
	checkProbeRerun(t, args, out, calls, n)
	checkProbeRender(t, out)
}

// checkAlwaysProbeRows checks the figures of the always-"defective, A"
// model over n seeds: its probe rows, its two result rows and the config.
func checkAlwaysProbeRows(t *testing.T, rep evaluate.Report, spec string, n int) {
	t.Helper()
	one := func(p *float64, want float64) bool { return p != nil && *p == want }
	iso, pair := rep.Probes[0], rep.Probes[1]
	if iso.Model != spec || iso.N != 2*n || iso.Unparseable != 0 || !one(iso.Accuracy, 0.5) || !one(iso.Specificity, 0) || !one(iso.Recall, 1) {
		t.Errorf("isolated probe row %+v", iso)
	}
	if pair.N != 2*n || !one(pair.Accuracy, 0.5) || !one(pair.AccBuggyFirst, 1) || !one(pair.AccFixedFirst, 0) || !one(pair.FirstShare, 1) {
		t.Errorf("pair probe row %+v", pair)
	}
	var found int
	for _, row := range rep.Results {
		if row.Model == spec && row.Training == evaluate.NoTraining {
			found++
		}
	}
	if found != 2 || rep.Config.Folds != 2 || rep.Config.ProbePromptHash != evaluate.ProbePromptHash || len(rep.FoldStats) == 0 {
		t.Errorf("probe results %d (want 2), config %+v", found, rep.Config)
	}
}

// checkProbePredictions checks the manifest and the model's 4n probe
// predictions in out.
func checkProbePredictions(t *testing.T, out, spec string, n int) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(out, "manifest.json")); err != nil {
		t.Error(err)
	}
	preds, _ := jsonl.ReadFile[evaluate.Prediction](filepath.Join(out, "predictions.jsonl"))
	probePreds := 0
	for _, p := range preds {
		if p.Model == spec {
			probePreds++
		}
	}
	if probePreds != 4*n {
		t.Errorf("%d probe predictions written, want %d", probePreds, 4*n)
	}
}

// checkProbeRerun reruns args: every answer is in the log, so no call is
// made; another answer length is refused by name.
func checkProbeRerun(t *testing.T, args []string, out string, calls *atomic.Int64, n int) {
	t.Helper()
	// Rerun: every answer is in the log, so no call is made, not even a
	// cached one, and the log gains nothing.
	code, _, stderr := runSynthCLI(t, args...)
	if code != 0 || calls.Load() != int64(4*n) || !strings.Contains(stderr, "0 answers asked now") {
		t.Errorf("rerun: exit %d, %d calls; stderr %s", code, calls.Load(), stderr)
	}
	if recs, err := jsonl.ReadFile[evaluate.ProbeRecord](filepath.Join(out, evaluate.ProbeLogFile)); err != nil || len(recs) != 4*n {
		t.Errorf("probe log: %d answers, %v; want %d", len(recs), err, 4*n)
	}
	// Another answer length decides other answers: refused by name.
	code, _, stderr = runSynthCLI(t, append(args, "--probe-max-tokens", "64")...)
	if code != exitUsage || !strings.Contains(stderr, "probe_max_tokens: 256 → 64") || calls.Load() != int64(4*n) {
		t.Errorf("rerun with --probe-max-tokens 64: exit %d, %d calls; stderr %s", code, calls.Load(), stderr)
	}
}

// checkProbeRender checks that the probe tables come back from
// evaluation.json alone (--render-only).
func checkProbeRender(t *testing.T, out string) {
	t.Helper()
	md, _ := os.ReadFile(filepath.Join(out, "evaluation.md"))
	if !strings.Contains(string(md), "Zero-shot pair probes") || !strings.Contains(string(md), "100.0 / 0.0") {
		t.Errorf("evaluation.md lacks the probe tables:\n%s", md)
	}
	if code, _, stderr := runSynthCLI(t, "synth", "evaluate", "--render-only", "--out", out); code != 0 {
		t.Fatalf("render-only: exit %d: %s", code, stderr)
	}
	if again, _ := os.ReadFile(filepath.Join(out, "evaluation.md")); !bytes.Equal(md, again) {
		t.Error("--render-only Markdown differs from the original")
	}
}

// TestSynthEvaluateProbeNgram: --probe ngram:FILE with the seeds alone runs
// only the probes (and the length rule) through the in-process n-gram LM.
// Its code-like answers are unparseable and counted as such.
func TestSynthEvaluateProbeNgram(t *testing.T) {
	dir := t.TempDir()
	_, seedsPath := synthFixture(t, dir, 6, 1)
	model := filepath.Join(dir, "tiny.bfng")
	lm, err := ngram.Train(context.Background(), ngram.Corpus{Paths: []string{javaFixture(t)}}, ngram.Options{Order: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := lm.Save(model); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "probe")
	code, stdout, stderr := runSynthCLI(t, "synth", "evaluate", "--seeds", seedsPath, "--probe", "ngram:"+model, "--probe-max-tokens", "16",
		"--no-cache", "--out", out, "--bootstrap", "50")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Zero-shot isolated-method probes", "Zero-shot pair probes", "ngram:" + model, "length-rule"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	recs, err := jsonl.ReadFile[evaluate.ProbeRecord](filepath.Join(out, evaluate.ProbeLogFile))
	if err != nil || len(recs) != 24 {
		t.Fatalf("probe log: %d answers, %v; want 24", len(recs), err)
	}
	raw, _ := os.ReadFile(filepath.Join(out, "evaluation.json"))
	var rep evaluate.Report
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatal(err)
	}
	for _, row := range rep.Probes {
		if row.Asked != 12 || row.N+row.Unparseable != 12 {
			t.Errorf("probe row %+v", row)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "seeds_info.jsonl")); err != nil {
		t.Error(err)
	}
	// A bad spec or flag fails before any work.
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--probe", "ngram:" + filepath.Join(dir, "none.bfng")}, exitNotFound, "none.bfng"},
		{[]string{"--probe", "ngram:" + model, "--probe-tasks", "triage"}, exitUsage, "triage"},
		{[]string{"--probe", "ngram:" + model, "--probe-workers", "0"}, exitUsage, "--probe-workers"},
	}
	for _, c := range cases {
		code, _, stderr := runSynthCLI(t, append([]string{"synth", "evaluate", "--seeds", seedsPath, "--out", filepath.Join(dir, "bad"), "--no-cache"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want %d with %q; stderr %s", c.args, code, c.code, c.want, stderr)
		}
	}
}
