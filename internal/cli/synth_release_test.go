package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/synth/release"
)

func TestSynthRelease(t *testing.T) {
	in := func(name string) string { return filepath.Join("..", "synth", "release", "testdata", "in", name) }
	out := filepath.Join(t.TempDir(), "rel")
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := Run(context.Background(), append([]string{"benchforge", "synth", "release"}, args...), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	code, stdout, stderr := run("--core", in("core.jsonl"), "--excluded", in("excluded.jsonl"), "--excluded", in("rejections.jsonl"),
		"--zero-shot", in("zeroshot.jsonl"), "--seeds", in("seeds.jsonl"), "--id-map", in("idmap.csv"),
		"--candidates", in("candidates.jsonl"), "--executions", in("executions.jsonl"), "--out", out, "--version", "2.0.0")
	if code != 0 {
		t.Fatalf("build exit %d: %s", code, stderr)
	}
	for _, want := range []string{"release 2.0.0 written to", "IllegalStateException", "total", "2 source bugs, 5 id-map rows (1 aliases)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("build output lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "pair p-ise-1: ise_low_confidence false → true") {
		t.Errorf("stderr lacks the flag note: %s", stderr)
	}

	code, stdout, stderr = run("--check", out)
	if code != 0 || !strings.Contains(stdout, "OK (13 files, 21 records)") {
		t.Fatalf("check exit %d: %s%s", code, stdout, stderr)
	}

	// Corrupt one record: the check names file:line and field and fails.
	core := filepath.Join(out, "core.jsonl")
	data, err := os.ReadFile(core)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(core, bytes.Replace(data, []byte(`"L7"`), []byte(`"L8"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = run("--check", out)
	if code != exitInput {
		t.Errorf("corrupt check exit %d", code)
	}
	for _, want := range []string{"core.jsonl: sha256", `core.jsonl:2: field example_bug_ids[1]: exemplar id "L8" is not in id_map.csv`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("check output lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, _ = run("--check", out, "--json")
	var res release.CheckResult
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || code == 0 || len(res.Problems) < 2 {
		t.Errorf("json check: exit %d, %v, %s", code, err, stdout)
	}

	// Usage errors.
	for _, args := range [][]string{
		{"--core", in("core.jsonl")},
		{"--check", out, "--core", in("core.jsonl")},
		{"--core", in("core.jsonl"), "--seeds", in("seeds.jsonl"), "--out", t.TempDir(), "--ise-max-confidence", "2"},
	} {
		if code, _, stderr := run(args...); code != exitUsage {
			t.Errorf("%v: exit %d, stderr %s", args, code, stderr)
		}
	}
	// Building over an existing release is refused.
	if code, _, stderr := run("--core", in("core.jsonl"), "--seeds", in("seeds.jsonl"), "--out", out); code != exitUsage || !strings.Contains(stderr, "not empty") {
		t.Errorf("overwrite: exit %d, %s", code, stderr)
	}
}
