package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/golden"
)

var demoFiles = []string{
	"../../testdata/demo/Buggy.java", "../../testdata/demo/Fixed.java",
	"../../testdata/demo/buggy.py", "../../testdata/demo/fixed.py",
}

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(context.Background(), append([]string{"benchforge"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestMetricsGolden(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"text", append([]string{"metrics"}, demoFiles...)},
		{"constructs", append([]string{"metrics", "--constructs"}, demoFiles...)},
		{"json", append([]string{"metrics", "--json"}, demoFiles...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			golden.CheckString(t, filepath.Join("testdata", "metrics", tt.name+".golden"), out)
		})
	}
}

func TestMetricsSkipsAndErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("Good.java", "class Good { int f(int a) { return a; } }\n")
	binary := write("Bin.java", "\x00\x01\x02garbage\xff")
	big := write("big.py", "x = 1\n"+strings.Repeat("# pad\n", 100))
	broken := write("Broken.java", "class B {\n  int ok() { return 1; }\n  void bad() { int x = ; }\n}\n")
	unknown := write("notes.txt", "hello")

	tests := []struct {
		name       string
		args       []string
		code       int
		outHas     []string
		errHas     []string
		outLacking []string
	}{
		{"skips binary and big", []string{"metrics", "--max-size", "100", good, binary, big}, 0,
			[]string{"Good", "f"}, []string{binary + "): binary file (NUL byte at offset 0), not UTF-8 text; skipped", big + ": 606 bytes is over --max-size 100; skipped"}, nil},
		{"all skipped", []string{"metrics", binary}, exitInput, nil, []string{"skipped", "nothing to measure"}, nil},
		{"unknown extension", []string{"metrics", good, unknown}, exitUnsupported, nil, []string{unknown}, []string{"Good"}},
		{"missing file", []string{"metrics", filepath.Join(dir, "Nope.java")}, exitNotFound, nil, []string{"Nope.java: no such file"}, nil},
		{"syntax error warns", []string{"metrics", broken}, 0, []string{"ok ", "bad "}, []string{broken + ":3:"}, nil},
		{"no args", []string{"metrics"}, exitUsage, nil, []string{"requires at least 1 arg"}, nil},
		{"bad max-size", []string{"metrics", "--max-size", "0", good}, exitUsage, nil, []string{"--max-size"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.args...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, tt.code, out, errOut)
			}
			for _, s := range tt.outHas {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			for _, s := range tt.outLacking {
				if strings.Contains(out, s) {
					t.Errorf("stdout has %q:\n%s", s, out)
				}
			}
			for _, s := range tt.errHas {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr lacks %q:\n%s", s, errOut)
				}
			}
		})
	}
}
