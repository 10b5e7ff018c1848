package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/ngram/ngramtest"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/jvm"
)

func writeCorpus(t *testing.T, pairs []corpus.Pair) string {
	t.Helper()
	var b bytes.Buffer
	for _, p := range pairs {
		line, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "core.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSynthVerify(t *testing.T) {
	if _, err := exec.LookPath("javac"); err != nil && os.Getenv("JAVA_HOME") == "" {
		t.Skip("no JDK")
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	path := writeCorpus(t, []corpus.Pair{
		{PairID: "npe", ErrorType: corpus.NullPointer, Generator: "hand",
			BuggyMethod: "int len(String s) {\n    return s.length();\n}\n",
			FixedMethod: "int len(String s) {\n    if (s == null) return 0;\n    return s.length();\n}\n"},
		{PairID: "never", ErrorType: corpus.NumberFormat, Generator: "hand",
			BuggyMethod: "int add(int a, int b) {\n    return a + b;\n}\n",
			FixedMethod: "int add(int a, int b) {\n    return b + a;\n}\n"},
	})
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), []string{"benchforge", "synth", "verify", "--pairs", path, "--out", out, "--budget", "30"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"2 verified, 0 already there", "NullPointerException", "1/1 (100.0%)", "NumberFormatException", "0/1 (0.0%)", "Overall", "1/2 (50.0%)", "1 pairs confirmed by (c)"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	golden.CheckString(t, filepath.Join("testdata", "synth_verify.golden"), stdout.String(), golden.Path(out, "$OUT"))
	// confirmed.jsonl is the corpus of pairs meeting (c): npe only.
	conf, err := os.ReadFile(filepath.Join(out, "confirmed.jsonl"))
	if err != nil || strings.Count(string(conf), "\n") != 1 || !strings.Contains(string(conf), `"pair_id":"npe"`) {
		t.Errorf("confirmed.jsonl = %q, %v; want the npe pair alone", conf, err)
	}
	// A rerun finds both records and verifies nothing; --json.
	stdout.Reset()
	code = Run(context.Background(), []string{"benchforge", "synth", "verify", "--pairs", path, "--out", out, "--budget", "30", "--json"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("rerun exit %d: %s", code, stderr.String())
	}
	golden.CheckString(t, filepath.Join("testdata", "synth_verify_json.golden"), stdout.String(), golden.Path(out, "$OUT"))
	var got synthVerifyJSON
	if err := output.DecodeSummary(bytes.NewReader(stdout.Bytes()), "synth_verify", &got); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if got.Verified != 0 || got.Skipped != 2 || got.Table.Pooled.N != 2 || got.Table.Pooled.C.K != 1 || got.Table.Pooled.C.CI == nil {
		t.Errorf("rerun json = %+v", got)
	}
	// Another call budget decides other executions: refused by name, the
	// 30-call records are not reported as 200-call ones.
	stderr.Reset()
	code = Run(context.Background(), []string{"benchforge", "synth", "verify", "--pairs", path, "--out", out, "--budget", "200"}, &stdout, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "budget: 30 → 200") {
		t.Errorf("rerun with --budget 200: exit %d: %s; want %d naming the budget", code, stderr.String(), exitUsage)
	}
}

func TestSynthVerifyUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Run(context.Background(), []string{"benchforge", "synth", "verify"}, &stdout, &stderr); code != exitUsage {
		t.Errorf("no flags: exit %d, want %d", code, exitUsage)
	}
	missing := filepath.Join(t.TempDir(), "nope.jsonl")
	if code := Run(context.Background(), []string{"benchforge", "synth", "verify", "--pairs", missing, "--out", t.TempDir()}, &stdout, &stderr); code != exitNotFound {
		t.Errorf("missing corpus: exit %d, want %d: %s", code, exitNotFound, stderr.String())
	}
	bad := writeCorpus(t, []corpus.Pair{{PairID: "x", ErrorType: "IOException", BuggyMethod: "a", FixedMethod: "b"}})
	if code := Run(context.Background(), []string{"benchforge", "synth", "verify", "--pairs", bad, "--out", t.TempDir()}, &stdout, &stderr); code != exitInput {
		t.Errorf("bad type: exit %d, want %d: %s", code, exitInput, stderr.String())
	}
}

// TestSynthVerifyHarnessNgram is the model-built harness plumbing with
// the real in-process n-gram model: it cannot write JSON, so every answer
// is recorded as unparseable and nothing runs, but the call is made,
// cached, recorded and tabulated under its regime.
func TestSynthVerifyHarnessNgram(t *testing.T) {
	if _, err := exec.LookPath("javac"); err != nil && os.Getenv("JAVA_HOME") == "" {
		t.Skip("no JDK")
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	spec := "ngram:" + ngramtest.File(t, 3)
	path := writeCorpus(t, []corpus.Pair{{PairID: "npe", ErrorType: corpus.NullPointer, Generator: "hand",
		BuggyMethod: "int len(String s) {\n    return s.length();\n}\n",
		FixedMethod: "int len(String s) {\n    if (s == null) return 0;\n    return s.length();\n}\n"}})
	out, cache := t.TempDir(), t.TempDir()
	args := []string{"benchforge", "synth", "verify", "--pairs", path, "--out", out, "--harness-model", spec, "--regime", "methods-only", "--cache-dir", cache}
	var stdout, stderr bytes.Buffer
	if code := Run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"harness-methods-only.jsonl: 1 verified", "1 answers, 1 unparseable", "methods-only", "NullPointerException", "0/1 (0.0%)", "1 model calls"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	recs, err := jsonl.ReadFile[jvm.Execution](filepath.Join(out, "harness-methods-only.jsonl"))
	if err != nil || len(recs) != 1 {
		t.Fatalf("records %+v, %v", recs, err)
	}
	if h := recs[0].Harness; h == nil || h.Model != spec || h.Unparseable == "" || h.PromptHash != jvm.HarnessPromptHash("methods-only") || recs[0].Calls != 0 {
		t.Errorf("record %+v harness %+v", recs[0], h)
	}
	if _, err := os.Stat(filepath.Join(out, "manifest-methods-only.json")); err != nil {
		t.Errorf("no manifest: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "executions.jsonl")); err == nil {
		t.Errorf("a model-built run wrote the boundary search's executions.jsonl")
	}
}

func TestSynthVerifyHarnessUsage(t *testing.T) {
	path := writeCorpus(t, []corpus.Pair{{PairID: "x", ErrorType: corpus.NullPointer, BuggyMethod: "a", FixedMethod: "b"}})
	base := []string{"benchforge", "synth", "verify", "--pairs", path, "--out", t.TempDir()}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--regime", "diff-aided"}, "add --harness-model"},
		{[]string{"--harness-model", "ngram:x.bfng"}, "needs --regime"},
		{[]string{"--harness-model", "ngram:x.bfng", "--regime", "judge-only"}, "needs --regime"},
		{[]string{"--harness-model", "ngram:x.bfng", "--regime", "judge-fed"}, "needs --judgements"},
		{[]string{"--harness-model", "ngram:x.bfng", "--regime", "diff-aided", "--judgements", "j.jsonl"}, "only with --regime judge-fed"},
	} {
		var stdout, stderr bytes.Buffer
		if code := Run(context.Background(), append(base, tc.args...), &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want usage error with %q", tc.args, code, stderr.String(), tc.want)
		}
	}
}
