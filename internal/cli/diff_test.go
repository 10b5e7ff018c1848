package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/golden"
)

func TestDiffMethods(t *testing.T) {
	const demo = "../../testdata/demo/"
	tests := []struct {
		name     string
		args     []string
		wantCode int
		golden   string
		stderr   string
	}{
		{"java", []string{"--old", demo + "Buggy.java", "--new", demo + "Fixed.java"}, 0, "diff/java.golden", ""},
		{"java json", []string{"--old", demo + "Buggy.java", "--new", demo + "Fixed.java", "--json"}, 0, "diff/java_json.golden", ""},
		{"python patch", []string{"--old", demo + "buggy.py", "--new", demo + "fixed.py", "--patch"}, 0, "diff/python.golden", ""},
		{"python json", []string{"--old", demo + "buggy.py", "--new", demo + "fixed.py", "--json"}, 0, "diff/python_json.golden", ""},
		{"same file", []string{"--old", demo + "buggy.py", "--new", demo + "buggy.py"}, 0, "diff/same.golden", ""},
		{"missing --new", []string{"--old", demo + "buggy.py"}, exitUsage, "", "both --old and --new are required"},
		{"missing file", []string{"--old", demo + "nope.py", "--new", demo + "fixed.py"}, exitNotFound, "", "nope.py: no such file"},
		{"unknown language", []string{"--old", "../../README.md", "--new", "../../README.md"}, exitUnsupported, "", `extension ".md"`},
		{"too big", []string{"--old", demo + "buggy.py", "--new", demo + "fixed.py", "--max-size", "10"}, exitInput, "", "raise --max-size"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, append([]string{"diff", "methods"}, tt.args...)...)
			if code != tt.wantCode {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tt.wantCode, errOut)
			}
			if !strings.Contains(errOut, tt.stderr) {
				t.Errorf("stderr %q lacks %q", errOut, tt.stderr)
			}
			if tt.golden != "" {
				golden.CheckString(t, filepath.Join("testdata", tt.golden), out)
			}
		})
	}
}
