package jvm

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
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
	testcheck.Must(t, err)
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

// inputOf is a trigger's input, "" without a trigger.
func inputOf(tr *Trigger) string {
	if tr == nil {
		return ""
	}
	return tr.Input
}

// verifyOne verifies pair p alone and returns its one record.
func verifyOne(t *testing.T, p corpus.Pair, opts Options) Execution {
	t.Helper()
	out := t.TempDir()
	if _, err := Run(context.Background(), []corpus.Pair{p}, out, opts); err != nil {
		t.Fatal(err)
	}
	recs, err := jsonl.ReadFile[Execution](filepath.Join(out, ExecutionsFile))
	if err != nil || len(recs) != 1 {
		t.Fatalf("records %v, %v", recs, err)
	}
	return recs[0]
}
