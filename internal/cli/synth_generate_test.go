package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		`"buggy_method":"int f(String s) { return s.trim().length(); }","fixed_method":"int f(String s) { if (s == null) return 0; return s.trim().length(); }"}` + "\n"
	if err := os.WriteFile(seeds, []byte(seed), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	args := []string{"benchforge", "synth", "generate", "--generator", "mutation", "--corpus", src, "--seeds", seeds,
		"--per-type", "3", "--min-lines", "3", "--min-lloc", "1", "--out", out}
	var stdout, stderr bytes.Buffer
	if code := Run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, want := range []string{"5 new candidates", "add_null_guard", "remove_null_guard", "5 candidates: 5 accepted", "NumberFormatException"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, stdout.String())
		}
	}
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
	var got generateJSON
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if got.Stats.New != 0 || got.Stats.Resumed != 5 || len(got.Patterns) != 1 || got.Gate.Total != 5 {
		t.Errorf("rerun: stats %+v, %d patterns, gate total %d", got.Stats, len(got.Patterns), got.Gate.Total)
	}
}

func TestSynthGenerateErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"--generator", "mutation"}, exitUsage},
		{[]string{"--generator", "openai:gpt-4o", "--out", t.TempDir()}, exitUnsupported},
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
