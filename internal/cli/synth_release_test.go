package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/synth/corpus"
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
		"--candidates", in("candidates.jsonl"), "--executions", in("executions.jsonl"), "--out", out, "--version", "2.0.0", "--code-license", "MIT")
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

	golden.CheckString(t, filepath.Join("testdata", "synth_release.golden"), stdout, golden.Path(out, "$OUT"))
	code, stdout, stderr = run("--check", out)
	if code != 0 || !strings.Contains(stdout, "OK (13 files, 21 records)") {
		t.Fatalf("check exit %d: %s%s", code, stdout, stderr)
	}
	golden.CheckString(t, filepath.Join("testdata", "synth_release_check.golden"), stdout, golden.Path(out, "$OUT"))
	// The same build with --json, into another directory.
	outJSON := filepath.Join(t.TempDir(), "rel")
	code, stdout, stderr = run("--core", in("core.jsonl"), "--excluded", in("excluded.jsonl"), "--excluded", in("rejections.jsonl"),
		"--zero-shot", in("zeroshot.jsonl"), "--seeds", in("seeds.jsonl"), "--id-map", in("idmap.csv"),
		"--candidates", in("candidates.jsonl"), "--executions", in("executions.jsonl"), "--out", outJSON, "--version", "2.0.0", "--code-license", "MIT", "--json")
	if code != 0 {
		t.Fatalf("json build exit %d: %s", code, stderr)
	}
	golden.CheckString(t, filepath.Join("testdata", "synth_release_json.golden"), stdout, golden.Path(outJSON, "$OUT"))
	code, stdout, stderr = run("--check", outJSON, "--json")
	if code != 0 {
		t.Fatalf("json check exit %d: %s", code, stderr)
	}
	golden.CheckString(t, filepath.Join("testdata", "synth_release_check_json.golden"), stdout, golden.Path(outJSON, "$OUT"))

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
	if err := output.DecodeSummary(strings.NewReader(stdout), "synth_release_check", &res); err != nil || code == 0 || len(res.Problems) < 2 {
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

// TestSynthReleaseJVM: synth verify confirms a pair on a real JVM, and
// synth release --validated-by jvm packages its confirmed.jsonl with the
// execution evidence; the release checks clean. Plus the flag's usage
// errors, which need no JDK.
func TestSynthReleaseJVM(t *testing.T) {
	in := func(name string) string { return filepath.Join("..", "synth", "release", "testdata", "in", name) }
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := Run(context.Background(), append([]string{"benchforge", "synth"}, args...), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	base := []string{"release", "--core", in("core.jsonl"), "--seeds", in("seeds.jsonl"), "--id-map", in("idmap.csv")}
	for _, tt := range []struct {
		args []string
		code int
		msg  string
	}{
		{append(base, "--out", t.TempDir(), "--validated-by", "jvm"), exitUsage, "--validated-by jvm needs --executions"},
		{append(base, "--out", t.TempDir(), "--validated-by", "oracle"), exitUsage, `--validated-by "oracle"`},
		{[]string{"release", "--check", t.TempDir(), "--validated-by", "jvm"}, exitUsage, "--check DIR takes no build flags"},
		// The fixture's execution records carry no criterion (c) trigger.
		{append(base, "--out", t.TempDir(), "--validated-by", "jvm", "--executions", in("executions.jsonl")), exitInput,
			"pair p-npe-1: invalid input: " + in("executions.jsonl") + ":1 is confirmed but has no criterion (c) trigger"},
	} {
		if code, _, stderr := run(tt.args...); code != tt.code || !strings.Contains(stderr, tt.msg) {
			t.Errorf("%v: exit %d (want %d), stderr %s (want %q)", tt.args, code, tt.code, stderr, tt.msg)
		}
	}

	if _, err := exec.LookPath("javac"); err != nil && os.Getenv("JAVA_HOME") == "" {
		t.Skip("no JDK")
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	corpusPath := writeCorpus(t, []corpus.Pair{
		{PairID: "npe", ErrorType: corpus.NullPointer, Generator: "hand", ExampleBugIDs: []string{"Lang-7-a", "L7"},
			BuggyMethod: "int len(String s) {\n    return s.length();\n}\n",
			FixedMethod: "int len(String s) {\n    if (s == null) return 0;\n    return s.length();\n}\n"},
		{PairID: "never", ErrorType: corpus.NumberFormat, Generator: "hand", ExampleBugIDs: []string{"Lang-7-a"},
			BuggyMethod: "int add(int a, int b) {\n    return a + b;\n}\n",
			FixedMethod: "int add(int a, int b) {\n    return b + a;\n}\n"},
	})
	verify := t.TempDir()
	if code, _, stderr := run("verify", "--pairs", corpusPath, "--out", verify, "--budget", "30"); code != 0 {
		t.Fatalf("verify exit %d: %s", code, stderr)
	}
	out := filepath.Join(t.TempDir(), "rel")
	code, stdout, stderr := run("release", "--validated-by", "jvm", "--core", filepath.Join(verify, "confirmed.jsonl"),
		"--executions", filepath.Join(verify, "executions.jsonl"), "--seeds", in("seeds.jsonl"), "--id-map", in("idmap.csv"),
		"--excluded", in("rejections.jsonl"), "--out", out, "--code-license", "MIT")
	if code != 0 {
		t.Fatalf("jvm release exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "core validated by jvm: 1 pairs confirmed under criterion (c) (JDK ") || !strings.Contains(stdout, "boundary-value search (1))") {
		t.Errorf("build output lacks the validation line:\n%s", stdout)
	}
	core, err := os.ReadFile(filepath.Join(out, "core.jsonl"))
	if err != nil || !strings.Contains(string(core), `"validation":{"by":"jvm","jvm":{"jdk":`) || strings.Contains(string(core), `"judge"`) {
		t.Errorf("core.jsonl = %s, %v", core, err)
	}
	if code, stdout, stderr = run("release", "--check", out); code != 0 || !strings.Contains(stdout, "OK (13 files,") {
		t.Fatalf("check exit %d: %s%s", code, stdout, stderr)
	}
}
