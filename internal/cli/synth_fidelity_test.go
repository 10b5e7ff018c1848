package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/synth/fidelity"
	"github.com/benchforge/benchforge/internal/synth/fidelity/fidelitytest"
)

// synthFixture writes a small seed pool and corpus to dir.
func synthFixture(t *testing.T, dir string, nSeeds, nPairs int) (corpusPath, seedsPath string) {
	t.Helper()
	seeds := fidelitytest.Seeds(nSeeds, 11)
	pairs := fidelitytest.Pairs(seeds, nPairs, 11)
	corpusPath, seedsPath = filepath.Join(dir, "core.jsonl"), filepath.Join(dir, "seeds.jsonl")
	if err := jsonl.Rewrite(corpusPath, pairs); err != nil {
		t.Fatal(err)
	}
	if err := jsonl.Rewrite(seedsPath, seeds); err != nil {
		t.Fatal(err)
	}
	return corpusPath, seedsPath
}

func runSynthCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), append([]string{"benchforge"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestSynthFidelity(t *testing.T) {
	dir := t.TempDir()
	corpusPath, seedsPath := synthFixture(t, dir, 30, 60)
	out := filepath.Join(dir, "fid")
	code, stdout, stderr := runSynthCLI(t, "synth", "fidelity", "--pairs", corpusPath, "--seeds", seedsPath, "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Table 10 (pooled", "Distance from seeds", "Exemplar fidelity", "tokens"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	for _, f := range []string{"fidelity.json", "fidelity.md", "fidelity.html", "ecdf-nullpointer.svg"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing output: %v", err)
		}
	}
	golden.CheckString(t, filepath.Join("testdata", "synth_fidelity.golden"), stdout, golden.Path(dir, "$DIR"))
	md, _ := os.ReadFile(filepath.Join(out, "fidelity.md"))
	// Fewer than 30 pairs per type: warned in text, JSON, Markdown and HTML.
	checkSmallSampleWarnings(t, stdout, out, "fidelity")
	// --render-only regenerates the same Markdown from the JSON alone.
	os.Remove(filepath.Join(out, "fidelity.md"))
	if code, _, stderr := runSynthCLI(t, "synth", "fidelity", "--render-only", "--out", out); code != 0 {
		t.Fatalf("render-only: exit %d: %s", code, stderr)
	}
	again, _ := os.ReadFile(filepath.Join(out, "fidelity.md"))
	if !bytes.Equal(md, again) {
		t.Error("--render-only Markdown differs from the original")
	}
	// --json and an explicit reference set.
	ref := filepath.Join(dir, "ref.txt")
	os.WriteFile(ref, []byte("# two seeds\nProj-1#0\nProj-2#0\n"), 0o644)
	code, stdout, stderr = runSynthCLI(t, "synth", "fidelity", "--pairs", corpusPath, "--seeds", seedsPath, "--reference-set", ref, "--out", out, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	golden.CheckString(t, filepath.Join("testdata", "synth_fidelity_json.golden"), stdout, golden.Path(dir, "$DIR"))
	var r fidelity.Report
	if err := output.DecodeSummary(strings.NewReader(stdout), "synth_fidelity", &r); err != nil {
		t.Fatal(err)
	}
	if r.Reference.Rule != "file" || r.Reference.N != 2 {
		t.Errorf("reference = %+v, want 2 seeds from the file", r.Reference)
	}
}

func TestSynthFidelityErrors(t *testing.T) {
	dir := t.TempDir()
	corpusPath, seedsPath := synthFixture(t, dir, 10, 10)
	ref := filepath.Join(dir, "ref.txt")
	os.WriteFile(ref, []byte("Nope-1#0\n"), 0o644)
	cases := []struct {
		args []string
		code int
	}{
		{[]string{"--pairs", corpusPath, "--seeds", seedsPath}, exitUsage},
		{[]string{"--seeds", seedsPath, "--out", dir}, exitUsage},
		{[]string{"--pairs", corpusPath, "--seeds", seedsPath, "--out", dir, "--reference-set", ref}, exitInput},
		{[]string{"--render-only", "--out", filepath.Join(dir, "none")}, exitNotFound},
	}
	for _, c := range cases {
		if code, _, stderr := runSynthCLI(t, append([]string{"synth", "fidelity"}, c.args...)...); code != c.code {
			t.Errorf("%v: exit %d, want %d (%s)", c.args, code, c.code, stderr)
		}
	}
}

// checkSmallSampleWarnings: a report on fewer than 30 pairs per group
// carries a visible warning in the text output and in NAME.json, .md and
// .html under dir.
func checkSmallSampleWarnings(t *testing.T, stdout, dir, name string) {
	t.Helper()
	if !strings.Contains(stdout, "⚠ small sample: ") || !strings.Contains(stdout, "(fewer than 30)") {
		t.Errorf("text output lacks the small-sample warning:\n%.800s", stdout)
	}
	js, _ := os.ReadFile(filepath.Join(dir, name+".json"))
	var w struct {
		Warnings []string `json:"small_sample_warnings"`
	}
	if err := json.Unmarshal(js, &w); err != nil || len(w.Warnings) == 0 {
		t.Errorf("%s.json: small_sample_warnings %v (%v)", name, w.Warnings, err)
	}
	for _, ext := range []string{".md", ".html"} {
		b, _ := os.ReadFile(filepath.Join(dir, name+ext))
		if !strings.Contains(string(b), "Small samples") || !strings.Contains(string(b), "fewer than 30") {
			t.Errorf("%s%s lacks the small-sample warning", name, ext)
		}
	}
}
