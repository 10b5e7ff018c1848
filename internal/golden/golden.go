// Package golden is the one golden-file helper of the tests, with the one
// -update flag: `go test ./... -update` rewrites every golden file from the
// current output, and a plain `go test` compares against them.
//
// A golden file must be the same on every machine and every run, so only
// what truly varies is normalised, and only when the test asks for it:
//
//   - Path: a temporary directory (t.TempDir, a fixture's clone directory)
//     becomes a fixed placeholder such as $OUT.
//   - Regexp: anything else the test proves varies, e.g. a hash over
//     settings that hold a loopback server's random port.
//   - Durations: wall-clock figures — "(1.2s)" in text, the "seconds",
//     "wall_seconds" and "latency_seconds" numbers and the "started" time
//     in JSON — become 0 or "". Counts, verdicts, scores and costs are
//     never normalised: a change in them is a change in behaviour.
//
// The package is imported by tests only.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files from the current output")

// Updating reports whether the test binary runs with -update, for a test
// that compares a golden file its own way (decoded, with a tolerance) and
// writes it through Read.
func Updating() bool { return *update }

// Scrub normalises one kind of varying text in an output.
type Scrub func(string) string

// Path replaces dir, and its symlink-free form (macOS's /private/var), by
// as.
func Path(dir, as string) Scrub {
	return func(s string) string {
		if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
			s = strings.ReplaceAll(s, real, as)
		}
		return strings.ReplaceAll(s, dir, as)
	}
}

var (
	textSeconds = regexp.MustCompile(`\(\d+(?:\.\d+)?s\)`)
	jsonNumber  = regexp.MustCompile(`("(?:seconds|wall_seconds|latency_seconds)":\s*)-?[0-9][0-9.eE+-]*`)
	jsonTime    = regexp.MustCompile(`("started":\s*)"[^"]*"`)
)

// Regexp replaces the matches of pattern by repl (regexp.ReplaceAllString
// syntax). Say in the test why what it matches varies.
func Regexp(pattern, repl string) Scrub {
	re := regexp.MustCompile(pattern)
	return func(s string) string { return re.ReplaceAllString(s, repl) }
}

// Durations normalises wall-clock figures (see the package doc).
func Durations(s string) string {
	s = textSeconds.ReplaceAllString(s, "(0.0s)")
	s = jsonNumber.ReplaceAllString(s, "${1}0")
	return jsonTime.ReplaceAllString(s, `${1}""`)
}

// Check compares got, normalised by scrubs, with the file at path
// (relative to the test's package directory, usually under testdata/);
// under -update it writes the file instead, creating its directory.
func Check(t testing.TB, path string, got []byte, scrubs ...Scrub) {
	t.Helper()
	s := string(got)
	for _, sc := range scrubs {
		s = sc(s)
	}
	want := string(Read(t, path, []byte(s)))
	if d := cmp.Diff(want, s); d != "" {
		t.Errorf("%s differs (-want +got; rerun with -update if the change is intended):\n%s", path, d)
	}
}

// CheckString is Check for a string.
func CheckString(t testing.TB, path, got string, scrubs ...Scrub) {
	t.Helper()
	Check(t, path, []byte(got), scrubs...)
}

// Read returns the golden file at path; under -update it first writes got
// there. Tests that compare decoded values use it with their own
// comparison.
func Read(t testing.TB, path string, got []byte) []byte {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test with -update to create it)", err)
	}
	return want
}
