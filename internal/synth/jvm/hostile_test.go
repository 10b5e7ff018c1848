package jvm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/sandbox/sandboxtest"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// TestHostile runs the hostile pairs of testdata/hostile.txt (the hazard
// table of issue 15) through one verifier with API keys in the
// environment and a key file in ~/.ssh: nothing is written or deleted
// outside the temp dir, no secret reaches a record, no process outlives
// the run, a forged reply is recorded as tampered, and every innocent pair
// after a hostile one gets its own result.
func TestHostile(t *testing.T) {
	opts := needJDK(t)
	opts.Timeout = 1500 * time.Millisecond
	secret, home, marker, ssh := plantSecrets(t)
	dir := t.TempDir()
	outside, victim := filepath.Join(dir, "written"), filepath.Join(dir, "victim")
	testcheck.Must(t, os.WriteFile(victim, []byte("keep"), 0o644))
	ln := sandboxtest.Listen(t)
	sleep := sandboxtest.UniqueSleep()
	fill := strings.NewReplacer("@OUTSIDE@", outside, "@VICTIM@", victim, "@SSH@", ssh,
		"@PORT@", strconv.Itoa(ln.Port), "@SLEEP@", sleep)
	tps := readPairs(t, "testdata/hostile.txt")
	for i := range tps {
		tps[i].pair.BuggyMethod = fill.Replace(tps[i].pair.BuggyMethod)
	}
	got := verifyAll(t, opts, tps)

	for _, tp := range tps {
		checkHostileRecord(t, tp, got, []string{secret, home, marker})
	}
	checkHostileOutcomes(t, got)
	if got["h-write"].Files != NetIsolated {
		t.Skip("no mount namespace here: writes outside the temp dir are not contained")
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("h-write wrote %s", outside)
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "keep" {
		t.Errorf("h-delete removed %s: %v", victim, err)
	}
	if ln.Reached() {
		t.Error("h-socket reached the parent's loopback listener")
	}
	if left := sandboxtest.PidsWithArg(sleep); len(left) > 0 {
		t.Errorf("h-setsid left processes %v running", left)
	}
}

// plantSecrets puts API keys and a host marker in the environment and a
// key file, holding the secret, in ~/.ssh of a fresh home.
func plantSecrets(t *testing.T) (secret, home, marker, ssh string) {
	t.Helper()
	secret = "sk-hostile-" + strconv.Itoa(os.Getpid()) + "-secret"
	t.Setenv("OPENAI_API_KEY", secret)
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-"+secret)
	home = t.TempDir()
	t.Setenv("HOME", home)
	marker = "host-only-" + strconv.Itoa(os.Getpid())
	t.Setenv("BENCHFORGE_HOST_MARKER", marker) // no secret, but host data the JVM needs not see
	ssh = filepath.Join(home, ".ssh", "id_test")
	testcheck.Must(t, os.MkdirAll(filepath.Dir(ssh), 0o700))
	testcheck.Must(t, os.WriteFile(ssh, []byte(secret), 0o600))
	return secret, home, marker, ssh
}

// checkHostileRecord checks that a pair has a record, compiled, meets its
// expected criteria and holds none of the leaks (secrets, host paths).
func checkHostileRecord(t *testing.T, tp testPair, got map[string]Execution, leaks []string) {
	t.Helper()
	e, ok := got[tp.pair.PairID]
	if !ok {
		t.Errorf("%s: no record", tp.pair.PairID)
		return
	}
	if !e.Compile.OK {
		t.Errorf("%s: did not compile: %s", tp.pair.PairID, e.Compile.Reason)
		return
	}
	if c := crit(e); c != tp.expect {
		t.Errorf("%s: criteria %s, want %s; reason %q hazards %+v", tp.pair.PairID, c, tp.expect, e.Reason, e.Hazards)
	}
	b, _ := json.Marshal(e)
	for _, s := range leaks {
		if strings.Contains(string(b), s) {
			t.Errorf("%s: record holds %q: %s", tp.pair.PairID, s, b)
		}
	}
	if e.Files != NetIsolated || e.Network != NetIsolated {
		t.Logf("%s: files %s network %s (%q): the host allows no namespaces", tp.pair.PairID, e.Files, e.Network, e.SandboxNotes)
	}
}

// checkHostileOutcomes checks what the hostile pairs' calls saw: a forged
// reply on the reply channel (not stdout), hidden key files, scrubbed
// keys, and, where the worker is isolated, the sandbox's refusals.
func checkHostileOutcomes(t *testing.T, got map[string]Execution) {
	t.Helper()
	fd3 := got["h-forge-fd3"] // a tampered, unconfirmed pair
	testcheck.Eq(t, "h-forge-fd3 tampered", fd3.Tampered, true)
	testcheck.Eq(t, "h-forge-fd3 status", fd3.Status, StatusUnconfirmed)
	stdout := got["h-forge-stdout"] // stdout is not the reply channel
	testcheck.Eq(t, "h-forge-stdout tampered", stdout.Tampered, false)
	if stdout.A != nil {
		t.Errorf("h-forge-stdout: a=%+v: stdout is not the reply channel", stdout.A)
	}
	testcheck.Contains(t, "h-ssh message (the key files hidden)", messageOf(got["h-ssh"].A), "NoSuchFileException")
	testcheck.Prefix(t, "h-env message (the keys scrubbed)", messageOf(got["h-env"].A), "null|null|")
	for id, want := range map[string]string{"seen-write": "Read-only file system", "seen-delete": "Read-only file system",
		"seen-socket": "Connection refused", "seen-setsid": "started "} {
		if e := got[id]; e.Files == NetIsolated {
			testcheck.Contains(t, id+" exception", messageOf(e.A), want)
		}
	}
}

// messageOf is the message of a trigger's buggy outcome, "" without a
// trigger.
func messageOf(tr *Trigger) string {
	if tr == nil {
		return ""
	}
	return tr.Buggy.Message
}
