//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/sandbox/sandboxtest"
)

// child runs a shell script as one kind of sandboxed child and returns its
// stdout and the result.
type child func(t *testing.T, spec Spec) Result

// runChild is a one-shot child (repository test suites).
func runChild(t *testing.T, spec Spec) Result { return run(t, spec) }

// startChild is a long-lived worker: the script's reply goes over fd 3;
// the worker is killed once it has replied.
func startChild(t *testing.T, spec Spec) Result {
	t.Helper()
	p, err := Start(context.Background(), spec)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	line, _ := bufio.NewReader(p.Reply).ReadString('\n')
	res := p.Kill()
	res.Stdout = append(res.Stdout, line...)
	return res
}

// TestContract runs every hazard the sandbox contains against every kind
// of child: each script attempts the damage and prints what it saw; the
// assertions are made on the host afterwards.
func TestContract(t *testing.T) {
	secret := "sk-test-" + strconv.Itoa(os.Getpid()) + "-contract"
	t.Setenv("OPENAI_API_KEY", secret)
	t.Setenv("ANTHROPIC_API_KEY", secret)
	home := fakeHome(t, secret)
	victim := filepath.Join(t.TempDir(), "victim")
	ln := sandboxtest.Listen(t)

	kinds := map[string]child{"run": runChild, "start": startChild}
	for kind, do := range kinds {
		t.Run(kind, func(t *testing.T) {
			if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
				t.Fatal(err)
			}
			outside := filepath.Join(filepath.Dir(victim), "written-"+kind)
			sleepArg := sandboxtest.UniqueSleep()
			script := fmt.Sprintf(`
echo x > %[1]q 2>/dev/null && echo wrote-outside
rm -f %[2]q 2>/dev/null
echo y > "$TMPDIR/inside" && echo wrote-inside
echo "env:$OPENAI_API_KEY:$ANTHROPIC_API_KEY"
cat %[3]q 2>/dev/null
cat /proc/$PPID/environ /proc/1/environ 2>/dev/null | tr '\0' '\n' | grep API_KEY
(exec 3<>/dev/tcp/127.0.0.1/%[4]d) 2>/dev/null && echo reached
setsid sleep %[5]s &
echo done >&3 2>/dev/null
echo done
`, outside, victim, filepath.Join(home, ".ssh", "id_test"), ln.Port, sleepArg)
			res := do(t, Spec{Argv: []string{"bash", "-c", script}, NoNetwork: true, Timeout: 20 * time.Second})
			out := string(res.Stdout)
			if !strings.Contains(out, "done") || !strings.Contains(out, "wrote-inside") {
				t.Fatalf("script did not run to the end: stdout %q stderr %q notes %q", out, res.Stderr, res.Notes)
			}
			if strings.Contains(out, secret) || strings.Contains(string(res.Stderr), secret) {
				t.Errorf("a secret reached the child: %q", out)
			}
			if !res.NetworkIsolated || !res.FilesIsolated {
				t.Skipf("host allows no namespaces (%q); the rest is not contained", res.Notes)
			}
			checkFilesContained(t, out, outside, victim)
			if strings.Contains(out, "reached") {
				t.Errorf("the child reached the parent's loopback listener")
			}
			waitNoneWithArg(t, sleepArg)
		})
	}
	if ln.Reached() {
		t.Error("the parent's listener saw a connection")
	}
}

// fakeHome makes a temporary $HOME holding secret in ~/.ssh/id_test.
func fakeHome(t *testing.T, secret string) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_test"), []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// checkFilesContained: the child wrote nothing at outside (by the file
// system and by its own account) and left victim holding "keep".
func checkFilesContained(t *testing.T, out, outside, victim string) {
	t.Helper()
	if _, err := os.Stat(outside); err == nil || strings.Contains(out, "wrote-outside") {
		t.Errorf("the child wrote %s outside its temp dir", outside)
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "keep" {
		t.Errorf("the child deleted or changed %s: %v", victim, err)
	}
}

// TestStaleTempDirs: a directory whose owner died is removed by the next
// MkdirTemp; one whose owner lives stays.
func TestStaleTempDirs(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	live, release, err := MkdirTemp("benchforge-test-*")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	dead := filepath.Join(tmp, "benchforge-jvm-dead")
	if err := os.MkdirAll(filepath.Join(dead, "classes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dead+lockSuffix, nil, 0o600); err != nil { // nobody holds it
		t.Fatal(err)
	}
	if n := CleanStale(tmp); n != 1 {
		t.Errorf("CleanStale removed %d dirs, want 1", n)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("stale %s survived: %v", dead, err)
	}
	if _, err := os.Stat(live); err != nil {
		t.Errorf("live %s removed: %v", live, err)
	}
	release()
	if _, err := os.Stat(live); !os.IsNotExist(err) {
		t.Errorf("released %s survived: %v", live, err)
	}
}

// TestWritable: a repository's test suite writes its work tree (Writable)
// and nothing beside it.
func TestWritable(t *testing.T) {
	work, beside := t.TempDir(), t.TempDir()
	res := run(t, Spec{Argv: []string{"sh", "-c", `touch built && echo built; touch "$1/x" 2>/dev/null && echo beside`, "sh", beside},
		Dir: work, Writable: []string{work}, Timeout: 10 * time.Second})
	if !res.FilesIsolated {
		t.Skipf("no mount namespace here (%q)", res.Notes)
	}
	if string(res.Stdout) != "built\n" {
		t.Errorf("stdout %q stderr %q, want only the work tree written", res.Stdout, res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(work, "built")); err != nil {
		t.Errorf("work tree not writable: %v", err)
	}
	if _, err := os.Stat(filepath.Join(beside, "x")); err == nil {
		t.Errorf("wrote beside the work tree")
	}
}
