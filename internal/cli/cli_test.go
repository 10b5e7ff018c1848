package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
)

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

// TestErrorsInUsersWords: the terminal shows the flag, the file and the
// remedy, not internal function names; --debug keeps the whole chain.
func TestErrorsInUsersWords(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\"a\":1}\n"), 0o644)
	for _, tc := range []struct {
		args     []string
		internal string
		want     []string
	}{
		{[]string{"audit", "run", "--benchmark", bad, "--model", "openai:x@http://127.0.0.1:9/v1", "--cutoff", "soon", "--out", dir},
			"gitrepo.ParseTime", []string{"audit run: --cutoff: bad date \"soon\": use 2023-04-01"}},
		{[]string{"audit", "rescore", "--verdicts", bad, "--leaderboard", bad},
			"rescore.ReadVerdicts", []string{"audit rescore: --verdicts: " + bad + ":1: "}},
		// bench.Detect's own message is in the user's words already: no
		// internal name to drop, none to keep for --debug.
		{[]string{"audit", "patch", "--benchmark", filepath.Join(dir, "none.jsonl"), "--cutoff", "2023-01-01", "--out", filepath.Join(dir, "v.jsonl")},
			"", []string{"audit patch: detect the format of " + filepath.Join(dir, "none.jsonl") + ": not found"}},
	} {
		_, stderr, code := run(t, tc.args...)
		if code == 0 || (tc.internal != "" && strings.Contains(stderr, tc.internal)) || strings.Contains(stderr, "bench.Detect") {
			t.Errorf("%v: exit %d, stderr %q: want no %q", tc.args, code, stderr, tc.internal)
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr %q lacks %q", tc.args, stderr, w)
			}
		}
		if tc.internal == "" {
			continue
		}
		if _, stderr, _ := run(t, append(tc.args, "--debug")...); !strings.Contains(stderr, tc.internal) {
			t.Errorf("%v --debug: stderr %q lacks the chain (%s)", tc.args, stderr, tc.internal)
		}
	}
	if got := userMessage("a: pkg.F(x.go:3): pkg.G: (*T).M is kept: y"); got != "a: x.go:3: (*T).M is kept: y" {
		t.Errorf("userMessage = %q", got)
	}
}
