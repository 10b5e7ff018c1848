package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/demo"
	"github.com/benchforge/benchforge/internal/jdk"
)

func TestDemoUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"positional argument", []string{"demo", "now"}},
		{"unknown step", []string{"demo", "--out", t.TempDir(), "--skip", "audit/everything"}},
		{"report not skippable", []string{"demo", "--out", t.TempDir(), "--skip", "report"}},
		{"empty out", []string{"demo", "--out", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := Run(context.Background(), append([]string{"benchforge"}, tc.args...), &out, &errb); code != exitUsage {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, exitUsage, errb.String())
			}
		})
	}
}

// TestDemoEndToEnd runs `benchforge demo --quick` without its three slow
// steps (index build, testbed, JVM; `make demo` runs them) and checks the
// announcement, the closing summary and the outputs.
func TestDemoEndToEnd(t *testing.T) {
	if _, err := jdk.SrcZip(); err != nil {
		t.Skipf("no JDK src.zip: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "demo")
	var out, errb bytes.Buffer
	code := Run(context.Background(), []string{"benchforge", "demo", "--quick", "--out", dir,
		"--skip", "audit/index,synth/verify"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errb.String())
	}
	se, so := errb.String(), out.String()
	for _, want := range []string{"It usually takes", " 4. audit/rescore", "10. report", "[3/10] audit/stage2: done in", "[4/10] audit/rescore: done in",
		"[7/10] synth/verify: skipped: skipped on request", "[10/10] report: done in"} {
		if !strings.Contains(se, want) {
			t.Errorf("stderr lacks %q:\n%s", want, se)
		}
	}
	for _, want := range []string{"Stage II (patch presence at the cutoff): AUC 1.000  TPR 1.000  FPR 0.000", "@persists", "@reverted", "@refactored",
		"Audit, re-scoring on clean samples (benchchecker §6)", "testbed-target", "testbed-other-half", "Resolution rate on all vs clean samples", "<15 min fix",
		"Synth: 14 seeds (0 excluded)", "skipped synth/verify: skipped on request", "Report: " + filepath.Join(dir, "report.html")} {
		if !strings.Contains(so, want) {
			t.Errorf("stdout lacks %q:\n%s", want, so)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res demo.Result
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Pages) != 5 {
		t.Errorf("pages = %v, want 5", res.Pages)
	}
}
