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

	"github.com/benchforge/benchforge/internal/synth/corpus"
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
	code := Run(context.Background(), []string{"benchforge", "synth", "verify", "--corpus", path, "--out", out, "--budget", "30"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"2 verified, 0 already there", "NullPointerException", "1/1 (100.0%)", "NumberFormatException", "0/1 (0.0%)", "Overall", "1/2 (50.0%)", "1 pairs confirmed by (c)"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
	// confirmed.jsonl is the corpus of pairs meeting (c): npe only.
	conf, err := os.ReadFile(filepath.Join(out, "confirmed.jsonl"))
	if err != nil || strings.Count(string(conf), "\n") != 1 || !strings.Contains(string(conf), `"pair_id":"npe"`) {
		t.Errorf("confirmed.jsonl = %q, %v; want the npe pair alone", conf, err)
	}
	// A rerun finds both records and verifies nothing; --json.
	stdout.Reset()
	code = Run(context.Background(), []string{"benchforge", "synth", "verify", "--corpus", path, "--out", out, "--json"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("rerun exit %d: %s", code, stderr.String())
	}
	var got synthVerifyJSON
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if got.Verified != 0 || got.Skipped != 2 || got.Table.Pooled.N != 2 || got.Table.Pooled.C.K != 1 || got.Table.Pooled.C.CI == nil {
		t.Errorf("rerun json = %+v", got)
	}
}

func TestSynthVerifyUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Run(context.Background(), []string{"benchforge", "synth", "verify"}, &stdout, &stderr); code != exitUsage {
		t.Errorf("no flags: exit %d, want %d", code, exitUsage)
	}
	missing := filepath.Join(t.TempDir(), "nope.jsonl")
	if code := Run(context.Background(), []string{"benchforge", "synth", "verify", "--corpus", missing, "--out", t.TempDir()}, &stdout, &stderr); code != exitNotFound {
		t.Errorf("missing corpus: exit %d, want %d: %s", code, exitNotFound, stderr.String())
	}
	bad := writeCorpus(t, []corpus.Pair{{PairID: "x", ErrorType: "IOException", BuggyMethod: "a", FixedMethod: "b"}})
	if code := Run(context.Background(), []string{"benchforge", "synth", "verify", "--corpus", bad, "--out", t.TempDir()}, &stdout, &stderr); code != exitInput {
		t.Errorf("bad type: exit %d, want %d: %s", code, exitInput, stderr.String())
	}
}
