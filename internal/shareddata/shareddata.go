// Package shareddata locates the real benchmark data tests run on. Two
// copies share one layout (defects4j/<Project>/…, swebench/*.jsonl):
//
//   - the vendored subset under testdata/ at the module root (thirteen
//     Defects4J bugs, ten SWE-bench Verified and three Multi-SWE-bench
//     records, a ten-submission leaderboard excerpt), present in every
//     clone; see testdata/README.md;
//   - the full copy, found only through $BENCHFORGE_SHARED_DATA, which the
//     tests that check whole-benchmark counts and goldens need.
//
// Nothing here looks at a fixed or sibling path: a clone anywhere runs the
// same tests, and those that need the full copy skip saying how to get it.
// Only tests import this package.
package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

// Env names the variable that points at the full copy.
const Env = "BENCHFORGE_SHARED_DATA"

// How is the skip message's instruction for a missing full copy.
const How = "set " + Env + " to a folder holding the full data: defects4j/<Project>/ " +
	"(framework/projects of github.com/rjust/defects4j, commit ca4a0ef) and " +
	"swebench/{swebench_verified,multi_swe_bench_java,leaderboard_verified}.jsonl " +
	"(testdata/README.md says where each comes from and how it was built)"

// Dir returns the full copy's folder ($BENCHFORGE_SHARED_DATA), or "" when
// the variable is unset or names no folder.
func Dir() string {
	if d := os.Getenv(Env); d != "" {
		return existing(d)
	}
	return ""
}

// Path returns Dir joined with elem, or "" when there is no full copy or
// the path does not exist in it.
func Path(elem ...string) string {
	d := Dir()
	if d == "" {
		return ""
	}
	return existing(filepath.Join(append([]string{d}, elem...)...))
}

// Full returns Path(elem...) or skips t, naming the file and saying how to
// provide it.
func Full(t testing.TB, elem ...string) string {
	t.Helper()
	p := Path(elem...)
	if p == "" {
		t.Skipf("needs the full copy of %s: %s", filepath.Join(elem...), How)
	}
	return p
}

// Vendored returns the path of elem under the module's testdata/ folder
// (found by walking up from the working directory to go.mod). A missing
// file fails t: the vendored copy is part of the repository.
func Vendored(t testing.TB, elem ...string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			p := filepath.Join(append([]string{d, "testdata"}, elem...)...)
			if _, err := os.Stat(p); err != nil {
				t.Fatalf("vendored test data missing: %v (scripts/vendor-testdata.sh rebuilds it)", err)
			}
			return p
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod above %s: cannot find the vendored testdata/", wd)
		}
	}
}

// Either returns the full copy of elem when there is one, else the
// vendored subset, and reports which (full=true for the full copy): for
// tests whose assertions hold on any real data.
func Either(t testing.TB, elem ...string) (path string, full bool) {
	t.Helper()
	if p := Path(elem...); p != "" {
		return p, true
	}
	return Vendored(t, elem...), false
}

func existing(p string) string {
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return abs
}
