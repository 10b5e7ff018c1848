//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/sandbox/sandboxtest"
)

// Overhead (BenchmarkRun, `go test -run='^$' -bench=BenchmarkRun
// -benchtime=20x ./internal/sandbox`, shared 2-core VM at load average ≈ 19):
// every call goes through the helper with its own mount and PID namespaces;
// running `true` cost 10 ms per call, with a memory cap 16 ms, with a memory
// cap and a network namespace 8 ms (the spread is the machine's load) —
// small beside any test suite or JVM it guards.

// python returns the real interpreter behind python3 (skipping wrapper
// scripts such as pyenv shims, which are slow and read $HOME).
func python(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Skipf("python3 not usable: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func run(t *testing.T, spec Spec) Result {
	t.Helper()
	res, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatalf("Run(%q): %v", spec.Argv, err)
	}
	return res
}

func TestExitStatusAndOutput(t *testing.T) {
	tests := []struct {
		name       string
		argv       []string
		stdin      string
		wantCode   int
		wantOut    string
		wantErrOut string
	}{
		{"true", []string{"true"}, "", 0, "", ""},
		{"false", []string{"false"}, "", 1, "", ""},
		{"echo", []string{"echo", "a b", "$HOME"}, "", 0, "a b $HOME\n", ""},
		{"stdin", []string{"cat"}, "hello", 0, "hello", ""},
		{"stderr", []string{"sh", "-c", "echo oops >&2; exit 3"}, "", 3, "", "oops\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := Spec{Argv: tc.argv, Timeout: 10 * time.Second}
			if tc.stdin != "" {
				spec.Stdin = strings.NewReader(tc.stdin)
			}
			res := run(t, spec)
			if res.ExitCode != tc.wantCode || string(res.Stdout) != tc.wantOut || string(res.Stderr) != tc.wantErrOut {
				t.Errorf("got code %d stdout %q stderr %q; want %d %q %q", res.ExitCode, res.Stdout, res.Stderr, tc.wantCode, tc.wantOut, tc.wantErrOut)
			}
			if res.Success() != (tc.wantCode == 0) {
				t.Errorf("Success() = %v", res.Success())
			}
		})
	}
}

func TestStartErrors(t *testing.T) {
	tests := []struct {
		name string
		spec Spec
		want error
	}{
		{"empty", Spec{}, errs.ErrUsage},
		{"negative memory", Spec{Argv: []string{"true"}, MemoryBytes: -1}, errs.ErrUsage},
		{"missing", Spec{Argv: []string{"no-such-program-benchforge"}}, errs.ErrNotFound},
		{"missing relative", Spec{Argv: []string{"./nope"}, Dir: t.TempDir()}, errs.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(context.Background(), tc.spec)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

// waitNoneWithArg fails when a process with arg is still alive 5s later.
func waitNoneWithArg(t *testing.T, arg string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := sandboxtest.PidsWithArg(arg)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range left {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("processes %v (sleep %s) still running", left, arg)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestTimeoutKillsGrandchildren(t *testing.T) {
	arg := sandboxtest.UniqueSleep()
	start := time.Now()
	res := run(t, Spec{Argv: []string{"sh", "-c", "sleep " + arg + " & setsid sleep " + arg + " & wait"}, Timeout: 300 * time.Millisecond})
	if !res.TimedOut || res.Signal != "killed" || res.ExitCode != -1 {
		t.Fatalf("TimedOut=%v Signal=%q code=%d, want timeout kill", res.TimedOut, res.Signal, res.ExitCode)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("Run took %v after a 300ms timeout", el)
	}
	if !res.FilesIsolated {
		t.Skipf("no PID namespace here (%q): setsid'd children are not reaped", res.Notes)
	}
	waitNoneWithArg(t, arg)
}

func TestNormalExitKillsLeftovers(t *testing.T) {
	arg := sandboxtest.UniqueSleep()
	start := time.Now()
	res := run(t, Spec{Argv: []string{"sh", "-c", "sleep " + arg + " & setsid sleep " + arg + " & echo started"}, Timeout: 20 * time.Second})
	if res.TimedOut || res.ExitCode != 0 || string(res.Stdout) != "started\n" {
		t.Fatalf("TimedOut=%v code=%d stdout=%q", res.TimedOut, res.ExitCode, res.Stdout)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("Run waited %v for a background process", el)
	}
	if !res.FilesIsolated {
		t.Skipf("no PID namespace here (%q): setsid'd children are not reaped", res.Notes)
	}
	waitNoneWithArg(t, arg)
}

func TestContextCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	res, err := Run(ctx, Spec{Argv: []string{"sleep", "100"}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if res.TimedOut || res.Signal != "killed" {
		t.Errorf("TimedOut=%v Signal=%q", res.TimedOut, res.Signal)
	}
}

func TestMemoryCap(t *testing.T) {
	py := python(t)
	const alloc = "x = bytearray(160 << 20); print('allocated')"
	tests := []struct {
		name    string
		limit   MemoryLimit
		bytes   int64
		wantOOM bool
	}{
		{"uncapped", LimitData, 0, false},
		{"data", LimitData, 64 << 20, true},
		{"as", LimitAS, 64 << 20, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, Spec{Argv: []string{py, "-c", alloc}, MemoryBytes: tc.bytes, MemoryLimit: tc.limit, Timeout: 20 * time.Second})
			allocated := strings.Contains(string(res.Stdout), "allocated")
			if res.OOM != tc.wantOOM || allocated == tc.wantOOM {
				t.Fatalf("OOM=%v allocated=%v code=%d stderr=%q", res.OOM, allocated, res.ExitCode, res.Stderr)
			}
			if res.MemoryCapped != (tc.bytes > 0) {
				t.Errorf("MemoryCapped=%v", res.MemoryCapped)
			}
		})
	}
}

func TestMemoryCapJava(t *testing.T) {
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("java not installed")
	}
	// RLIMIT_DATA lets the JVM reserve its heap; RLIMIT_AS of the same size
	// does not (see the package documentation).
	res := run(t, Spec{Argv: []string{"java", "-Xmx64m", "-Xshare:auto", "-version"}, MemoryBytes: 512 << 20, Timeout: 60 * time.Second})
	if res.ExitCode != 0 {
		t.Fatalf("java -version under RLIMIT_DATA: code %d stderr %q", res.ExitCode, res.Stderr)
	}
}

func TestNetworkIsolation(t *testing.T) {
	py := python(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := countAccepts(ln)
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	// The child connects to the parent's listener, then serves and connects
	// to its own loopback listener (which works only if lo is up).
	script := `
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2).close()
    print("parent:reached")
except OSError as e:
    print("parent:blocked")
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
socket.create_connection(s.getsockname(), timeout=2).close()
print("own:ok")
`
	for _, isolate := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoNetwork=%v", isolate), func(t *testing.T) {
			if isolate && os.Geteuid() != 0 {
				t.Skip("network namespaces are tested as root")
			}
			res := run(t, Spec{Argv: []string{py, "-c", script, port}, NoNetwork: isolate, Timeout: 20 * time.Second})
			checkNetworkRun(t, res, isolate)
		})
	}
	select {
	case <-accepted:
	default:
		t.Error("the non-isolated run never reached the listener")
	}
	select {
	case <-accepted:
		t.Error("the listener saw a second connection: the isolated run got through")
	case <-time.After(100 * time.Millisecond):
	}
}

// countAccepts accepts (and closes) connections on ln until it is closed,
// sending one value per connection.
func countAccepts(ln net.Listener) chan struct{} {
	accepted := make(chan struct{}, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	return accepted
}

// checkNetworkRun: the run was isolated as asked, the parent's listener
// was reached exactly when not isolated, and the child's own loopback
// worked.
func checkNetworkRun(t *testing.T, res Result, isolate bool) {
	t.Helper()
	out := string(res.Stdout)
	if res.NetworkIsolated != isolate {
		t.Fatalf("NetworkIsolated=%v notes=%q", res.NetworkIsolated, res.Notes)
	}
	want := "parent:reached"
	if isolate {
		want = "parent:blocked"
	}
	if !strings.Contains(out, want) || !strings.Contains(out, "own:ok") {
		t.Fatalf("stdout %q stderr %q; want %s and own:ok", out, res.Stderr, want)
	}
}

func TestEnvironmentScrubbed(t *testing.T) {
	t.Setenv("BENCHFORGE_TEST_API_KEY", "sk-secret")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "aws-secret")
	t.Setenv("GITHUB_TOKEN", "ghp-secret")
	t.Setenv("GIT_DIR", "/elsewhere")
	t.Setenv("BENCHFORGE_TEST_PLAIN", "visible")
	res := run(t, Spec{Argv: []string{"env"}, Env: []string{"PASSED_TOKEN=explicit"}, Timeout: 10 * time.Second})
	env := parseEnv(res.Stdout)
	for _, k := range []string{"BENCHFORGE_TEST_API_KEY", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "GIT_DIR", helperEnv} {
		if v, ok := env[k]; ok {
			t.Errorf("%s=%q leaked into the sandbox", k, v)
		}
	}
	if env["BENCHFORGE_TEST_PLAIN"] != "visible" || env["PASSED_TOKEN"] != "explicit" || env["PATH"] == "" {
		t.Errorf("plain, explicit or PATH variable missing: %v", env)
	}
	home := env["HOME"]
	if !privateHome(env, os.Getenv("HOME")) {
		t.Fatalf("HOME=%q TMPDIR=%q, want a private dir", home, env["TMPDIR"])
	}
	if _, err := os.Stat(home); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("private dir %s not removed: %v", home, err)
	}
}

// parseEnv reads the output of env(1) into a map.
func parseEnv(out []byte) map[string]string {
	env := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			env[k] = v
		}
	}
	return env
}

// privateHome reports whether env has a HOME of its own (not the
// parent's) that TMPDIR and TMP point at too.
func privateHome(env map[string]string, parentHome string) bool {
	home := env["HOME"]
	return home != "" && env["TMPDIR"] == home && env["TMP"] == home && home != parentHome
}

func TestMinimalEnv(t *testing.T) {
	t.Setenv("BENCHFORGE_TEST_PLAIN", "visible")
	t.Setenv("LC_ALL", "C.UTF-8")
	res := run(t, Spec{Argv: []string{"env"}, MinimalEnv: true, Env: []string{"EXTRA=1"}, Timeout: 10 * time.Second})
	out := string(res.Stdout)
	for _, want := range []string{"PATH=", "LC_ALL=C.UTF-8", "EXTRA=1", "HOME="} {
		if !strings.Contains(out, want) {
			t.Errorf("minimal environment lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "BENCHFORGE_TEST_PLAIN") {
		t.Errorf("minimal environment passed a host variable:\n%s", out)
	}
}

func TestPrivateDirAndWorkingDir(t *testing.T) {
	work := t.TempDir()
	keep := t.TempDir()
	res := run(t, Spec{Argv: []string{"sh", "-c", `pwd; touch "$HOME/left"; mkdir "$TMPDIR/ro"; chmod 0500 "$TMPDIR/ro"`}, Dir: work, TempDir: keep})
	if strings.TrimSpace(string(res.Stdout)) != work {
		t.Errorf("pwd = %q, want %q", res.Stdout, work)
	}
	if _, err := os.Stat(filepath.Join(keep, "left")); err != nil {
		t.Errorf("caller's TempDir not used or removed: %v", err)
	}
	// A read-only directory in the fresh private dir is still removed.
	res = run(t, Spec{Argv: []string{"sh", "-c", `mkdir "$HOME/ro"; touch "$HOME/ro/f"; chmod 0500 "$HOME/ro"; echo $HOME`}})
	home := strings.TrimSpace(string(res.Stdout))
	if _, err := os.Stat(home); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("private dir %s survived: %v", home, err)
	}
}

func TestOutputCap(t *testing.T) {
	res := run(t, Spec{Argv: []string{"sh", "-c", "echo START; i=0; while [ $i -lt 2000 ]; do echo 0123456789; i=$((i+1)); done; echo END"}, MaxOutput: 100, Timeout: 20 * time.Second})
	if !res.StdoutTruncated {
		t.Fatal("StdoutTruncated not set")
	}
	out := string(res.Stdout)
	if !strings.HasPrefix(out, "START\n") || !strings.HasSuffix(out, "END\n") || !strings.Contains(out, "bytes omitted") {
		t.Errorf("capped output lost head, tail or marker: %q", out)
	}
	if len(res.Stdout) > 100+64 {
		t.Errorf("kept %d bytes with MaxOutput 100", len(res.Stdout))
	}
	res = run(t, Spec{Argv: []string{"echo", "short"}, MaxOutput: 100})
	if res.StdoutTruncated || string(res.Stdout) != "short\n" {
		t.Errorf("short output altered: %q truncated=%v", res.Stdout, res.StdoutTruncated)
	}
}

func TestCapBuffer(t *testing.T) {
	for _, max := range []int{2, 3, 10, 11} {
		for _, chunk := range []int{1, 3, 7, 50} {
			var all bytes.Buffer
			b := newCapBuffer(max)
			for i := 0; all.Len() < 60; i++ {
				p := bytes.Repeat([]byte{byte('a' + i%26)}, chunk)
				all.Write(p)
				b.Write(p)
			}
			got, trunc := b.bytes()
			want := all.Bytes()
			head, tail := want[:max/2], want[len(want)-(max-max/2):]
			if !trunc || !bytes.HasPrefix(got, head) || !bytes.HasSuffix(got, tail) {
				t.Errorf("max %d chunk %d: got %q, want head %q tail %q", max, chunk, got, head, tail)
			}
		}
	}
}

func TestIsSecretEnv(t *testing.T) {
	tests := map[string]bool{
		"OPENAI_API_KEY": true, "ANTHROPIC_API_KEY": true, "my_api_key": true, "HF_TOKEN": true,
		"AWS_PROFILE": true, "DB_PASSWORD": true, "SSH_AUTH_SOCK": true, "GIT_DIR": true, "NPM_CONFIG_REGISTRY": true,
		"PATH": false, "LANG": false, "JAVA_HOME": false, "PYTHONPATH": false, "TERM": false, "LC_ALL": false,
	}
	for name, want := range tests {
		if got := IsSecretEnv(name); got != want {
			t.Errorf("IsSecretEnv(%q) = %v, want %v", name, got, want)
		}
	}
}

// BenchmarkRun measures the cost of starting `true` directly, through the
// re-exec helper (memory cap) and in a new network namespace.
func BenchmarkRun(b *testing.B) {
	cases := []struct {
		name string
		spec Spec
	}{
		{"direct", Spec{Argv: []string{"true"}}},
		{"memcap", Spec{Argv: []string{"true"}, MemoryBytes: 1 << 30}},
		{"memcap+netns", Spec{Argv: []string{"true"}, MemoryBytes: 1 << 30, NoNetwork: true}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := Run(context.Background(), c.spec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
