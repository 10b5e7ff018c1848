package cli

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/synth/generate"
)

// notReporting are the runnable commands with no result to print: a
// server, and cobra's shell completion and help.
var notReporting = map[string]bool{
	"benchforge lm serve": true,
	"benchforge help":     true,
}

// TestEveryReportingCommandHasJSON walks the command tree: every runnable
// command that reports something takes --json (a bool whose usage starts
// "print"), so scripts can rely on one flag everywhere.
func TestEveryReportingCommandHasJSON(t *testing.T) {
	var n int
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		path := c.CommandPath()
		if !c.Runnable() || c.HasSubCommands() || notReporting[path] || strings.HasPrefix(path, "benchforge completion") {
			return
		}
		n++
		f := c.Flags().Lookup("json")
		switch {
		case f == nil:
			t.Errorf("%s has no --json flag", path)
		case f.Value.Type() != "bool":
			t.Errorf("%s: --json is a %s, want bool", path, f.Value.Type())
		case !strings.HasPrefix(f.Usage, "print "):
			t.Errorf("%s: --json usage %q should start with \"print \"", path, f.Usage)
		}
	}
	walk(newRoot(&app{stdout: io.Discard, stderr: io.Discard}, Commands()))
	if n < 30 {
		t.Fatalf("walked only %d reporting commands; the tree walk is broken", n)
	}
}

// jsonValues decodes stdout as one or more JSON values (a document, or
// JSON lines) and fails on anything else, such as a text line mixed in.
func jsonValues(t *testing.T, stdout string) int {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	var n int
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("stdout is not JSON after %d values: %v\n%s", n, err, stdout)
		}
		n++
	}
	if n == 0 {
		t.Fatal("stdout holds no JSON value")
	}
	return n
}

// TestJSONOutputIsOnlyJSON runs reporting commands with --json in-process:
// stdout must hold JSON and nothing else (progress and notes go to
// stderr), and a failing command writes nothing to stdout.
func TestJSONOutputIsOnlyJSON(t *testing.T) {
	docs := t.TempDir()
	fix := t.TempDir()
	pairs, seeds := synthFixture(t, fix, 24, 40)
	rel := func(name string) string { return filepath.Join("..", "synth", "release", "testdata", "in", name) }
	relOut := filepath.Join(fix, "rel")
	npeSeeds := writeNPESeeds(t, 12)
	d4j, repos := extractFixture(t)
	_, chatURL := newScriptedChat(t, 1)
	tests := []struct {
		name string
		args []string
		want int // exit code
	}{
		{"version", []string{"version", "--json"}, 0},
		{"metrics", append([]string{"metrics", "--json"}, demoFiles...), 0},
		{"diff methods", []string{"diff", "methods", "--old", "../../testdata/demo/Buggy.java", "--new", "../../testdata/demo/Fixed.java", "--json"}, 0},
		{"seeds scan", []string{"seeds", "scan", "--defects4j", seedsSynthetic, "--json"}, 0},
		{"docs", []string{"docs", "--out", docs, "--json"}, 0},
		{"synth gate", []string{"synth", "gate", "--candidates", gateCandidates(t), "--out", filepath.Join(fix, "gate"), "--json"}, 0},
		{"synth fidelity", []string{"synth", "fidelity", "--pairs", pairs, "--seeds", seeds, "--out", filepath.Join(fix, "fid"), "--json"}, 0},
		{"synth evaluate", []string{"synth", "evaluate", "--pairs", pairs, "--seeds", seeds, "--out", filepath.Join(fix, "eval"), "--folds", "2",
			"--run-seeds", "1", "--trees", "3", "--bootstrap", "20", "--no-sweep", "--no-leaky", "--json"}, 0},
		{"synth release", []string{"synth", "release", "--core", rel("core.jsonl"), "--seeds", rel("seeds.jsonl"), "--id-map", rel("idmap.csv"),
			"--out", relOut, "--code-license", "MIT", "--json"}, 0},
		{"synth release --check", []string{"synth", "release", "--check", relOut, "--json"}, 0},
		{"synth screen", []string{"synth", "screen", "--generators", "openai:good@" + chatURL, "--seeds", npeSeeds, "--per-quartile", "1",
			"--size-tolerance", "10", "--no-cache", "--json"}, 0},
		{"seeds extract", []string{"seeds", "extract", "--defects4j", d4j, "--repos", repos, "--out", filepath.Join(fix, "seeds.jsonl"), "--json"}, 0},
		{"synth generate", []string{"synth", "generate", "--generator", "mutation", "--corpus", javaFixture(t), "--per-type", "3", "--min-lines", "3",
			"--min-lloc", "1", "--out", filepath.Join(fix, "gen"), "--json"}, 0},
		{"metrics missing file", []string{"metrics", "--json", filepath.Join(docs, "nope.java")}, exitNotFound},
		{"report on an empty directory", []string{"report", "--in", docs + "/empty", "--json"}, exitNotFound},
		{"diff methods usage error", []string{"diff", "methods", "--old", "../../testdata/demo/Buggy.java", "--json"}, exitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, tt.args...)
			if code != tt.want {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tt.want, errOut)
			}
			if tt.want != 0 {
				if out != "" {
					t.Errorf("failing command wrote to stdout: %q", out)
				}
				if errOut == "" {
					t.Error("failing command said nothing on stderr")
				}
				return
			}
			jsonValues(t, out)
			if streams[tt.name] {
				checkStream(t, out)
			}
		})
	}
}

// streams are the commands of TestJSONOutputIsOnlyJSON on the output
// stream: their stdout is JSON Lines of messages ending with the summary.
var streams = map[string]bool{
	"metrics": true, "seeds scan": true, "synth gate": true, "synth fidelity": true, "synth evaluate": true,
	"synth release": true, "synth release --check": true, "synth screen": true,
	"seeds extract": true, "synth generate": true,
}

// checkStream fails unless stdout is only output messages, the summary
// last and alone.
func checkStream(t *testing.T, stdout string) {
	t.Helper()
	lines, err := output.Decode(strings.NewReader(stdout))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range lines {
		if (l.Summary != nil) != (i == len(lines)-1) {
			t.Fatalf("line %d of %d: the summary must be the last line and only there", i+1, len(lines))
		}
	}
}

// gateCandidates writes three model answers for synth gate: one
// accepted, one with a single code block, one duplicate.
func gateCandidates(t *testing.T) string {
	t.Helper()
	fixed := "public int len(String s) {\n    if (s == null) {\n        return 0;\n    }\n    int n = s.trim().length();\n    n += 1;\n    return n * 2;\n}"
	buggy := "public int len(String s) {\n    int n = s.trim().length();\n    n += 1;\n    return n * 2;\n}"
	answer := "```java\n" + buggy + "\n```\n```java\n" + fixed + "\n```\n"
	var b strings.Builder
	for _, c := range []generate.Candidate{
		{ID: "c1", ErrorType: "NullPointerException", Generator: "llm", Answer: answer},
		{ID: "c2", ErrorType: "NullPointerException", Generator: "llm", Answer: "```java\n" + buggy + "\n```"},
		{ID: "c3", ErrorType: "NullPointerException", Generator: "llm", Answer: answer},
	} {
		line, _ := json.Marshal(c)
		b.Write(append(line, '\n'))
	}
	path := filepath.Join(t.TempDir(), "candidates.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
