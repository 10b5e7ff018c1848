package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/errs"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/cli -update to create it)", err)
	}
	if d := cmp.Diff(string(want), got); d != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, d)
	}
}

// run executes the CLI in-process and returns stdout, stderr and the exit
// code.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(context.Background(), append([]string{"benchforge"}, args...), &out, &errb)
	return out.String(), errb.String(), code
}

func TestRoot(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"help lists exit codes", []string{"--help"}, 0, "Exit codes:", ""},
		{"no args prints help", nil, 0, "Available Commands:", ""},
		{"unknown command", []string{"bogus"}, exitUsage, "", `unknown command "bogus"`},
		{"unknown flag", []string{"version", "--nope"}, exitUsage, "", "unknown flag: --nope"},
		{"extra arg", []string{"version", "x"}, exitUsage, "", "usage error"},
		{"version", []string{"version"}, 0, "benchforge ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := run(t, tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.wantCode, errOut)
			}
			if !strings.Contains(out, tt.wantStdout) {
				t.Errorf("stdout %q lacks %q", out, tt.wantStdout)
			}
			if !strings.Contains(errOut, tt.wantStderr) {
				t.Errorf("stderr %q lacks %q", errOut, tt.wantStderr)
			}
		})
	}
}

func TestVersionJSON(t *testing.T) {
	out, _, code := run(t, "version", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var v versionInfo
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("version --json is not JSON: %v\n%s", err, out)
	}
	if v.Module != "github.com/benchforge/benchforge" || v.Go == "" {
		t.Errorf("version info %+v", v)
	}
}

func TestExitCode(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{nil, exitOK},
		{errors.New("boom"), exitError},
		{fmt.Errorf("load x.jsonl:3: %w", errs.ErrInput), exitInput},
		{fmt.Errorf("open repo: %w", errs.ErrNotFound), exitNotFound},
		{fmt.Errorf("call: %w", errs.ErrBudget), exitBudget},
		{fmt.Errorf("call: %w", errs.ErrUnavailable), exitUnavailable},
		{fmt.Errorf("score: %w", errs.ErrUnsupported), exitUnsupported},
		{fmt.Errorf("x: %w", errs.ErrUsage), exitUsage},
		{fmt.Errorf("run: %w", context.Canceled), exitCanceled},
	}
	for _, tt := range tests {
		if got := exitCode(tt.err); got != tt.want {
			t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.want)
		}
	}
}
