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
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/synth/generate"
)

func TestSynthGate(t *testing.T) {
	fixed := "public int len(String s) {\n    if (s == null) {\n        return 0;\n    }\n    int n = s.trim().length();\n    n += 1;\n    return n * 2;\n}"
	buggy := "public int len(String s) {\n    int n = s.trim().length();\n    n += 1;\n    return n * 2;\n}"
	answer := "Here is the pair.\n```java\n" + buggy + "\n```\nFixed:\n```java\n" + fixed + "\n```\n"
	cands := []generate.Candidate{
		{ID: "c1", ErrorType: "NullPointerException", Generator: "llm", Answer: answer},
		{ID: "c2", ErrorType: "NullPointerException", Generator: "llm", Answer: "```java\n" + buggy + "\n```"},
		{ID: "c3", ErrorType: "NullPointerException", Generator: "llm", Answer: answer},
	}
	var b bytes.Buffer
	for _, c := range cands {
		line, _ := json.Marshal(c)
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), "candidates.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := Run(context.Background(), []string{"benchforge", "synth", "gate", "--candidates", path, "--out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"3 candidates: 1 accepted, 2 rejected", "block_count", "near_duplicate"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	golden.CheckString(t, filepath.Join("testdata", "synth_gate.golden"), stdout.String(), golden.Path(out, "$OUT"))
	rej, _ := os.ReadFile(filepath.Join(out, "rejections.jsonl"))
	if !strings.Contains(string(rej), `"id":"c2","error_type":"NullPointerException","generator":"llm","cause":"block_count"`) {
		t.Errorf("rejections.jsonl:\n%s", rej)
	}
	stdout.Reset()
	if code := Run(context.Background(), []string{"benchforge", "synth", "gate", "--candidates", path, "--out", out, "--json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("json exit %d: %s", code, stderr.String())
	}
	golden.CheckString(t, filepath.Join("testdata", "synth_gate_json.golden"), stdout.String(), golden.Path(out, "$OUT"))
	var got gateJSON
	if err := output.DecodeSummary(&stdout, "synth_gate", &got); err != nil || got.Summary.Total != 3 || got.Summary.ByType["NullPointerException"] != 1 {
		t.Errorf("json: %v %s", err, stdout.String())
	}

	// Bad input: malformed candidates file, missing flags.
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{not json}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code := Run(context.Background(), []string{"benchforge", "synth", "gate", "--candidates", bad, "--out", out}, &stdout, &stderr); code != exitInput {
		t.Errorf("malformed candidates: exit %d, want %d", code, exitInput)
	}
	if code := Run(context.Background(), []string{"benchforge", "synth", "gate", "--out", out}, &stdout, &stderr); code != exitUsage {
		t.Errorf("missing --candidates: exit %d, want %d", code, exitUsage)
	}
}
