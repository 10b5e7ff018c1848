package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/shareddata"
	"github.com/benchforge/benchforge/internal/synth/seeds"
)

func seedsGolden(t *testing.T, name, got string) {
	t.Helper()
	golden.CheckString(t, filepath.Join("testdata", name), got)
}

const seedsSynthetic = "../synth/seeds/testdata/d4j"

func TestSeedsScanGolden(t *testing.T) {
	tests := []struct {
		name, dir, golden string
		args              []string
		wantStderr        string
	}{
		{"synthetic text", seedsSynthetic, "seeds_scan_synthetic.golden", nil, "skipped ../synth/seeds/testdata/d4j/Demo/active-bugs.csv:9"},
		{"synthetic json", seedsSynthetic, "seeds_scan_synthetic_json.golden", []string{"--json"}, "skipped"},
		{"vendored text", "vendored", "seeds_scan_vendored.golden", nil, ""},
		{"vendored any origin", "vendored", "seeds_scan_vendored_any_origin.golden", []string{"--any-origin"}, ""},
		{"defects4j text", "full", "seeds_scan_defects4j.golden", nil, ""},
		{"defects4j subclasses", "full", "seeds_scan_defects4j_subclasses.golden", []string{"--subclasses"}, ""},
		{"defects4j any origin", "full", "seeds_scan_defects4j_any_origin.golden", []string{"--any-origin"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// "vendored" and "full" name the real Defects4J copies (the
			// module's testdata/ and $BENCHFORGE_SHARED_DATA's).
			switch tt.dir {
			case "vendored":
				tt.dir = shareddata.Vendored(t, "defects4j")
			case "full":
				tt.dir = shareddata.Full(t, "defects4j")
			}
			out, errOut, code := run(t, append([]string{"seeds", "scan", "--defects4j", tt.dir}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.Contains(errOut, tt.wantStderr) || (tt.wantStderr == "" && errOut != "") {
				t.Errorf("stderr %q, want %q", errOut, tt.wantStderr)
			}
			seedsGolden(t, tt.golden, out)
		})
	}
}

func TestSeedsScanJSONShape(t *testing.T) {
	out, _, code := run(t, "seeds", "scan", "--defects4j", seedsSynthetic+"/Demo", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var v seedsScanJSON
	if err := output.DecodeSummary(strings.NewReader(out), "seeds_scan", &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Rows) != 1 || v.Pooled.Total != 8 || v.Pooled.Runtime != 2 || len(v.Bugs) != 8 || len(v.Unknown) != 2 || len(v.Problems) != 1 ||
		v.Pooled.RemovedSubclass != 1 || v.Pooled.RemovedTestOrigin != 1 || v.Bugs[7].RemovedBy != seeds.RuleTestOrigin {
		t.Errorf("unexpected JSON: %+v", v)
	}
}

func TestSeedsScanErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"missing flag", []string{"seeds", "scan"}, exitUsage, "--defects4j DIR is required"},
		{"extra arg", []string{"seeds", "scan", "x"}, exitUsage, "usage error"},
		{"not a layout", []string{"seeds", "scan", "--defects4j", t.TempDir()}, exitInput, "no active-bugs.csv"},
		{"missing dir", []string{"seeds", "scan", "--defects4j", filepath.Join(t.TempDir(), "nope")}, exitNotFound, "nope"},
		{"seeds alone prints help", []string{"seeds"}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := run(t, tt.args...)
			if code != tt.code || !strings.Contains(errOut, tt.msg) {
				t.Errorf("exit %d stderr %q; want %d containing %q", code, errOut, tt.code, tt.msg)
			}
		})
	}
}
