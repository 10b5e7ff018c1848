package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/evaluate"
)

func TestSynthEvaluate(t *testing.T) {
	dir := t.TempDir()
	corpusPath, seedsPath := synthFixture(t, dir, 24, 80)
	out := filepath.Join(dir, "eval")
	code, stdout, stderr := runSynthCLI(t, "synth", "evaluate", "--corpus", corpusPath, "--seeds", seedsPath, "--out", out,
		"--folds", "3", "--run-seeds", "1,2", "--trees", "5", "--bootstrap", "100", "--sweep", "30", "--export-hf")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Isolated-method task", "Pair discrimination", "length-rule", "sweep-leaky"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
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
	var rep evaluate.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
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
		{[]string{"--corpus", corpusPath, "--seeds", seedsPath}, exitUsage, "--out"},
		{[]string{"--corpus", bad, "--seeds", seedsPath, "--out", dir, "--folds", "2"}, exitInput, "Ghost-1#0"},
		{[]string{"--corpus", corpusPath, "--seeds", seedsPath, "--out", dir, "--models", "svm"}, exitUsage, "svm"},
		{[]string{"--render-only", "--out", filepath.Join(dir, "none")}, exitNotFound, "render"},
	}
	for _, c := range cases {
		code, _, stderr := runSynthCLI(t, append([]string{"synth", "evaluate"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want %d with %q; stderr %s", c.args, code, c.code, c.want, stderr)
		}
	}
}
