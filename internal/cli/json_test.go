package cli

import (
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
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
		})
	}
}
