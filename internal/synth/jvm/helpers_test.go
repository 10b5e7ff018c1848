package jvm

import (
	"bufio"
	"context"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// testPair is a hand-written pair with what the verifier must conclude.
type testPair struct {
	pair   corpus.Pair
	expect string // "nocompile" or the criteria letters that hold ("abc", "a", "-")
}

// readPairs reads the testdata pair format (see testdata/pairs.txt).
func readPairs(t testing.TB, path string) []testPair {
	t.Helper()
	f, err := os.Open(path)
	must(t, err)
	defer f.Close()
	var out []testPair
	var cur *testPair
	var buggy, fixed strings.Builder
	side := &buggy
	flush := func() {
		if cur != nil {
			cur.pair.BuggyMethod = strings.TrimRight(buggy.String(), "\n") + "\n"
			cur.pair.FixedMethod = strings.TrimRight(fixed.String(), "\n") + "\n"
			out = append(out, *cur)
		}
		buggy.Reset()
		fixed.Reset()
		side = &buggy
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "#") && cur == nil:
		case strings.HasPrefix(l, "=== "):
			flush()
			fs := strings.Fields(l[4:])
			if len(fs) != 3 {
				t.Fatalf("%s: bad header %q", path, l)
			}
			cur = &testPair{pair: corpus.Pair{PairID: fs[0], ErrorType: fs[1], Generator: "hand"}, expect: fs[2]}
		case l == "--- fixed":
			side = &fixed
		default:
			if cur != nil {
				side.WriteString(l + "\n")
			}
		}
	}
	flush()
	return out
}

var (
	jdkOnce sync.Once
	jdk     JDK
	jdkErr  error
	cache   string
)

// needJDK skips the test when no JDK is installed and returns options
// sharing one worker cache across the package's tests.
func needJDK(t testing.TB) Options {
	t.Helper()
	jdkOnce.Do(func() {
		jdk, jdkErr = FindJDK(context.Background())
		cache, _ = os.MkdirTemp("", "benchforge-jvm-test-cache")
	})
	if jdkErr != nil {
		t.Skipf("no JDK: %v", jdkErr)
	}
	j := jdk
	return Options{JDK: &j, CacheDir: cache}
}

func TestMain(m *testing.M) {
	code := m.Run()
	if cache != "" {
		os.RemoveAll(cache)
	}
	os.Exit(code)
}

// must stops the test at once on an error.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// checkEq reports what when got differs from want.
func checkEq[T comparable](t testing.TB, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// checkContains reports what when s lacks sub.
func checkContains(t testing.TB, what, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Errorf("%s = %q, want it to contain %q", what, s, sub)
	}
}

// checkPrefix reports what when s does not start with prefix.
func checkPrefix(t testing.TB, what, s, prefix string) {
	t.Helper()
	if !strings.HasPrefix(s, prefix) {
		t.Errorf("%s = %q, want it to start with %q", what, s, prefix)
	}
}

// inputOf is a trigger's input, "" without a trigger.
func inputOf(tr *Trigger) string {
	if tr == nil {
		return ""
	}
	return tr.Input
}

// checkErrSays reports what when err is nil or its text lacks sub.
func checkErrSays(t testing.TB, what string, err error, sub string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), sub) {
		t.Errorf("%s: err %v, want one saying %q", what, err, sub)
	}
}
