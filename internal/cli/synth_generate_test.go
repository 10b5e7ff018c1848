package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/ngram"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/gate"
	"github.com/benchforge/benchforge/internal/synth/generate"
	"github.com/benchforge/benchforge/internal/synth/generate/grounded"
	"github.com/benchforge/benchforge/internal/synth/generate/llmgen"
	"github.com/benchforge/benchforge/internal/synth/generate/zeroshot"
)

// javaFixture writes a small source tree with mutation sites for NPE, NFE,
// ISE, CCE and AIOOBE.
func javaFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := `package p;
public class A {
    private boolean closed;
    public int len(String s) {
        if (s == null) {
            return 0;
        }
        return s.length();
    }
    public int parse(String text) {
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        System.out.println("closed");
    }
    public boolean equals(Object o) {
        if (!(o instanceof A)) {
            return false;
        }
        A other = (A) o;
        return other.closed == closed;
    }
    public long total(long[] values) {
        long sum = 0;
        for (int k = 0; k < values.length; k++) {
            sum += values[k] * 3;
        }
        return sum;
    }
}
`
	if err := os.MkdirAll(filepath.Join(dir, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p", "A.java"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestSynthGenerateMutation(t *testing.T) {
	src := javaFixture(t)
	seeds := filepath.Join(t.TempDir(), "seeds.jsonl")
	seed := `{"bug_id":"Lang-1-a","source_bug":"Lang-1","benchmark":"defects4j","project":"Lang","exception":"NullPointerException",` +
		`"buggy_method":"int f(String s) { int n = s.length(); if (n > 3) { n = 3; } return s.trim().length() + n; }",` +
		`"fixed_method":"int f(String s) { if (s == null) return 0; int n = s.length(); if (n > 3) { n = 3; } return s.trim().length() + n; }"}` + "\n"
	if err := os.WriteFile(seeds, []byte(seed), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	// Grounding draws only pairs within the seed's size band: the seed has
	// 4 statements, and the wide band lets the fixture's 1- to 5-statement
	// pairs all qualify.
	args := []string{"benchforge", "synth", "generate", "--generator", "mutation", "--corpus", src, "--seeds", seeds,
		"--per-type", "3", "--min-lines", "3", "--min-lloc", "1", "--size-tolerance", "0.8", "--out", out}
	var stdout, stderr bytes.Buffer
	if code := Run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"5 new candidates", "add_null_guard", "remove_null_guard", "5 candidates: 5 accepted", "NumberFormatException"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	scrubs := []golden.Scrub{golden.Path(src, "$SRC"), golden.Path(out, "$OUT")}
	golden.CheckString(t, filepath.Join("testdata", "synth_generate_mutation.golden"), stdout.String(), scrubs...)
	pairs, err := os.ReadFile(filepath.Join(out, "pairs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(pairs), `"example_bug_ids":["Lang-1-a"]`) {
		t.Errorf("NPE pair lacks its seed provenance:\n%s", pairs)
	}
	for _, f := range []string{"candidates.jsonl", "attempts.jsonl", "rejections.jsonl", "gate_summary.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	// Resume: nothing new; --json.
	stdout.Reset()
	if code := Run(context.Background(), append(args, "--json"), &stdout, &stderr); code != 0 {
		t.Fatalf("rerun exit %d: %s", code, stderr.String())
	}
	golden.CheckString(t, filepath.Join("testdata", "synth_generate_mutation_json.golden"), stdout.String(), scrubs...)
	var got generateJSON
	if err := output.DecodeSummary(bytes.NewReader(stdout.Bytes()), "synth_generate", &got); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if got.Stats.New != 0 || got.Stats.Resumed != 5 || len(got.Patterns) != 1 || got.Gate.Total != 5 {
		t.Errorf("rerun: stats %+v, %d patterns, gate total %d", got.Stats, len(got.Patterns), got.Gate.Total)
	}
	// Another seed picks other mutation sites: refused by name, not mixed.
	stderr.Reset()
	if code := Run(context.Background(), append(args, "--seed", "99"), &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "seed: 1 → 99") {
		t.Errorf("rerun with --seed 99: exit %d: %s; want %d naming the seed", code, stderr.String(), exitUsage)
	}
}

func TestSynthGenerateErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"--generator", "mutation"}, exitUsage},
		{[]string{"--generator", "openai:gpt-4o", "--out", t.TempDir()}, exitUsage}, // seed-grounded without --seeds
		{[]string{"--generator", "openai:m@http://127.0.0.1:1/v1", "--mode", "few-shot", "--out", t.TempDir()}, exitUsage},
		{[]string{"--generator", "nope", "--out", t.TempDir()}, exitUsage},
		{[]string{"--types", "AssertionError", "--out", t.TempDir()}, exitUsage},
		{[]string{"--corpus", filepath.Join(t.TempDir(), "none.zip"), "--out", t.TempDir()}, exitNotFound},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		args := append([]string{"benchforge", "synth", "generate"}, tt.args...)
		if code := Run(context.Background(), args, &stdout, &stderr); code != tt.code {
			t.Errorf("%v: exit %d, want %d (%s)", tt.args, code, tt.code, stderr.String())
		}
	}
}

// TestSynthGenerateModel: a model spec selects the seed-grounded generator;
// answers of a scripted OpenAI-compatible server become gated pairs with
// their exemplars, prompt hash and size target; every call is recorded; a
// rerun makes no model call; --mode zero-shot prompts without exemplars.
func TestSynthGenerateModel(t *testing.T) {
	seeds := writeNPESeeds(t, 6)
	srv, url := newScriptedChat(t, 1)
	out := t.TempDir()
	args := []string{"benchforge", "synth", "generate", "--generator", "openai:scripted@" + url, "--seeds", seeds,
		"--types", "NullPointerException,ClassCastException", "--per-type", "3", "--workers", "2", "--no-cache", "--out", out}
	var stdout, stderr bytes.Buffer
	if code := Run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "6 new candidates") || srv.hits.Load() != 6 {
		t.Fatalf("%d hits; output:\n%s", srv.hits.Load(), stdout.String())
	}
	// The server's random port is in the generator's name.
	mscrubs := []golden.Scrub{golden.Path(url, "$SERVER"), golden.Path(out, "$OUT"), golden.Durations}
	golden.CheckString(t, filepath.Join("testdata", "synth_generate_model.golden"), stdout.String(), mscrubs...)
	pairs, err := jsonl.ReadFile[corpus.Pair](filepath.Join(out, gate.PairsFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) < 5 {
		t.Errorf("%d pairs accepted of 6:\n%s", len(pairs), stdout.String())
	}
	for _, p := range pairs {
		if len(p.ExampleBugIDs) == 0 || p.PromptHash == "" || p.SizeTarget == 0 || !strings.HasPrefix(p.Generator, grounded.Version+":openai:scripted@") {
			t.Errorf("pair without provenance: %+v", p)
		}
		if p.ErrorType == corpus.ClassCast && (len(p.ExampleBugIDs) != 1 || p.ExampleBugIDs[0] != "Coll-1#1") {
			t.Errorf("CCE pair exemplars %v", p.ExampleBugIDs)
		}
	}
	for _, f := range []string{llmgen.CallsFile, "manifest.json", generate.AttemptsFile, gate.SummaryFile} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	stdout.Reset()
	if code := Run(context.Background(), append(args, "--json"), &stdout, &stderr); code != 0 {
		t.Fatalf("rerun exit %d: %s", code, stderr.String())
	}
	golden.CheckString(t, filepath.Join("testdata", "synth_generate_model_json.golden"), stdout.String(), mscrubs...)
	var got generateJSON
	if err := output.DecodeSummary(bytes.NewReader(stdout.Bytes()), "synth_generate", &got); err != nil {
		t.Fatal(err)
	}
	if got.Stats.New != 0 || got.Stats.Resumed != 6 || got.Manifest == nil || got.Manifest.Calls != 0 || srv.hits.Load() != 6 {
		t.Errorf("rerun: %+v, manifest %+v, %d hits", got.Stats, got.Manifest, srv.hits.Load())
	}

	zs := t.TempDir()
	stdout.Reset()
	zargs := []string{"benchforge", "synth", "generate", "--generator", "openai:scripted@" + url, "--mode", "zero-shot",
		"--types", "NumberFormatException", "--per-type", "2", "--no-cache", "--out", zs, "--json"}
	if code := Run(context.Background(), zargs, &stdout, &stderr); code != 0 {
		t.Fatalf("zero-shot exit %d: %s", code, stderr.String())
	}
	cands, err := gate.ReadCandidates(filepath.Join(zs, generate.CandidatesFile))
	if err != nil || len(cands) != 2 {
		t.Fatalf("zero-shot: %d candidates, %v", len(cands), err)
	}
	for _, c := range cands {
		if !strings.HasPrefix(c.Generator, zeroshot.Version+":") || len(c.ExampleBugIDs) != 0 || c.Operator == "" {
			t.Errorf("zero-shot candidate %+v", c)
		}
	}
}

// TestSynthGenerateFreeEndpointBudget: --max-cost reaches the llm Session;
// a loopback endpoint costs nothing, so even a tiny budget does not stop it.
// (The budget stop and its resume are tested in generate/grounded against a
// priced endpoint.)
func TestSynthGenerateFreeEndpointBudget(t *testing.T) {
	seeds := writeNPESeeds(t, 6)
	srv, url := newScriptedChat(t, 1)
	out := t.TempDir()
	spec := "openai:scripted@" + url
	args := []string{"benchforge", "synth", "generate", "--generator", spec, "--seeds", seeds, "--types", "NullPointerException",
		"--per-type", "2", "--no-cache", "--max-cost", "0.000001", "--out", out}
	var stdout, stderr bytes.Buffer
	if code := Run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("free loopback calls stopped by the budget: exit %d: %s", code, stderr.String())
	}
	if srv.hits.Load() != 2 {
		t.Errorf("%d hits", srv.hits.Load())
	}
}

// TestSynthGenerateNgramSpec: "ngram:FILE" opens the built-in n-gram LM
// in-process; its answers are not two Java blocks, so all are rejected with a
// cause.
func TestSynthGenerateNgramSpec(t *testing.T) {
	src := javaFixture(t)
	model := filepath.Join(t.TempDir(), "tiny.bfng")
	lm, err := ngram.Train(context.Background(), ngram.Corpus{Paths: []string{src}}, ngram.Options{Order: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := lm.Save(model); err != nil {
		t.Fatal(err)
	}
	seeds := writeNPESeeds(t, 4)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	args := []string{"benchforge", "synth", "generate", "--generator", "ngram:" + model, "--seeds", seeds, "--types", "NullPointerException",
		"--per-type", "3", "--max-tokens", "40", "--no-cache", "--out", out, "--json"}
	if code := Run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var got generateJSON
	if err := output.DecodeSummary(bytes.NewReader(stdout.Bytes()), "synth_generate", &got); err != nil {
		t.Fatal(err)
	}
	if got.Gate.Total != 3 || len(got.Gate.Causes) == 0 || got.Gate.ByType[corpus.NullPointer] != 0 {
		t.Errorf("gate: %+v", got.Gate)
	}
	if want := grounded.Version + ":ngram:" + model; got.Generator != want {
		t.Errorf("generator %q, want %q (no port in it)", got.Generator, want)
	}
	// A rerun serves on another port yet finds every answer recorded.
	stdout.Reset()
	if code := Run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("rerun exit %d: %s", code, stderr.String())
	}
	got = generateJSON{}
	if err := output.DecodeSummary(bytes.NewReader(stdout.Bytes()), "synth_generate", &got); err != nil {
		t.Fatal(err)
	}
	if got.Stats.Resumed != 3 || got.Stats.New != 0 || got.Manifest.Calls != 0 {
		t.Errorf("rerun: %+v, %d calls", got.Stats, got.Manifest.Calls)
	}
}
