package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInputs: out-of-range flags, directories given as files, empty
// record files and bad base URLs are refused with what is allowed, and a
// refused run leaves no output behind.
func TestBadInputs(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.jsonl")
	if err := os.WriteFile(empty, []byte("\xef\xbb\xbf\n  \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"audit", "patch", "--threshold", "2", "--benchmark", empty, "--cutoff", "2024-01-01", "--out", out}, exitUsage, "--threshold 2: must be between 0 and 1"},
		{[]string{"audit", "run", "--samples", "-1", "--out", out}, exitUsage, "--samples -1: must be between 1 and 1000, or 0 for the default"},
		{[]string{"llm", "chat", "--temperature", "-2", "--model", "openai:m@http://127.0.0.1:1/v1", "--user", "hi"}, exitUsage, "--temperature -2: must be between 0 and 2"},
		{[]string{"synth", "generate", "--min-lines", "50", "--max-lines", "5", "--out", out}, exitUsage, "--min-lines 50 is above --max-lines 5"},
		{[]string{"synth", "evaluate", "--folds", "0", "--corpus", empty, "--seeds", empty, "--out", out}, exitUsage, "--folds 0: must be between 2 and 100"},
		{[]string{"synth", "verify", "--workers", "100000", "--corpus", empty, "--out", out}, exitUsage, "--workers 100000: must be between 1 and 256"},
		{[]string{"synth", "verify", "--timeout", "0s", "--corpus", empty, "--out", out}, exitUsage, "--timeout 0s: must be between"},
		{[]string{"llm", "chat", "--max-attempts", "0", "--model", "openai:m@http://127.0.0.1:1/v1", "--user", "hi"}, exitUsage, "--max-attempts 0: must be between 1 and 100"},
		{[]string{"llm", "chat", "--request-timeout", "10ms", "--model", "openai:m@http://127.0.0.1:1/v1", "--user", "hi"}, exitUsage, "--request-timeout 10ms: must be between 1s and 1h0m0s"},
		{[]string{"synth", "verify", "--corpus", dir, "--out", out}, exitUsage, "--corpus " + dir + " is a directory; give a file"},
		{[]string{"synth", "verify", "--corpus", empty, "--out", out}, exitInput, "warning: --corpus " + empty + " is empty"},
		{[]string{"synth", "gate", "--candidates", empty, "--out", out}, exitInput, "warning: --candidates " + empty + " is empty"},
		{[]string{"llm", "chat", "--model", "openai:x@notaurl", "--user", "hi"}, exitUsage, `bad base URL "notaurl"`},
		{[]string{"llm", "chat", "--model", "openai:m@http://127.0.0.1:1/v1", "--user", "hi", "--manifest", filepath.Join(dir, "m.json"), "--key-file", dir}, exitUsage, "--key-file " + dir + " is a directory"},
	}
	for _, tc := range tests {
		name := strings.Join(tc.args[:2], " ") + " " + tc.want
		t.Run(name, func(t *testing.T) {
			_, errOut, code := run(t, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, tc.code, tc.want)
			}
			for _, p := range []string{out, filepath.Join(dir, "m.json")} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("the refused run left %s", p)
					os.RemoveAll(p)
				}
			}
		})
	}
}

// TestFailedRunLeavesNoEmptyOutput: a run that fails on its input after
// creating its output directory removes it again when it is empty.
func TestFailedRunLeavesNoEmptyOutput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "seeds.jsonl")
	if err := os.WriteFile(bad, []byte(`{"pair_id":"x"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	_, errOut, code := run(t, "synth", "evaluate", "--corpus", bad, "--seeds", bad, "--out", out)
	if code != exitInput {
		t.Fatalf("exit %d (%s), want %d", code, errOut, exitInput)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("the failed run left the empty %s", out)
	}
}
