package jvm

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// genPairs makes n compilable pairs cycling through the seven types.
func genPairs(n int) []corpus.Pair {
	tmpl := []struct{ typ, buggy, fixed string }{
		{corpus.NullPointer, "int m%d(String s) {\n    return s.length();\n}\n", "int m%d(String s) {\n    return s == null ? 0 : s.length();\n}\n"},
		{corpus.IllegalArgument, "List<String> m%d(int n) {\n    return new ArrayList<>(n);\n}\n", "List<String> m%d(int n) {\n    return new ArrayList<>(Math.max(0, n));\n}\n"},
		{corpus.ArrayIndexOOB, "static int m%d(int[] a, int i) {\n    return a[i];\n}\n", "static int m%d(int[] a, int i) {\n    return i >= 0 && a != null && i < a.length ? a[i] : 0;\n}\n"},
		{corpus.NumberFormat, "long m%d(String s) {\n    return Long.parseLong(s);\n}\n", "long m%d(String s) {\n    try { return Long.parseLong(s); } catch (NumberFormatException e) { return 0; }\n}\n"},
		{corpus.ClassCast, "Integer m%d(Object o) {\n    return (Integer) o;\n}\n", "Integer m%d(Object o) {\n    return o instanceof Integer ? (Integer) o : 0;\n}\n"},
		{corpus.StringIndexOOB, "char m%d(String s, int i) {\n    return s.charAt(i);\n}\n", "char m%d(String s, int i) {\n    return s != null && i >= 0 && i < s.length() ? s.charAt(i) : ' ';\n}\n"},
		{corpus.IllegalState, "String m%d(List<String> xs) {\n    Iterator<String> it = xs.iterator();\n    it.remove();\n    return \"\";\n}\n", "String m%d(List<String> xs) {\n    Iterator<String> it = xs.iterator();\n    if (it.hasNext()) { it.next(); it.remove(); }\n    return \"\";\n}\n"},
	}
	out := make([]corpus.Pair, n)
	for i := range out {
		t := tmpl[i%len(tmpl)]
		out[i] = corpus.Pair{PairID: fmt.Sprintf("gen-%03d", i), ErrorType: t.typ, Generator: "test",
			BuggyMethod: fmt.Sprintf(t.buggy, i), FixedMethod: fmt.Sprintf(t.fixed, i)}
	}
	return out
}

func TestRunResumes(t *testing.T) {
	opts := needJDK(t)
	opts.Batch = 4
	pairs := genPairs(10)
	out := t.TempDir()
	ctx, first := cancelAt(opts, 5)
	s, err := Run(ctx, pairs, out, first)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("first run: err = %v, want context.Canceled", err)
	}
	if s.Verified < 5 || s.Verified >= len(pairs) {
		t.Fatalf("first run verified %d, want a partial run of at least 5", s.Verified)
	}
	s2, err := Run(context.Background(), pairs, out, opts)
	testcheck.Must(t, err)
	if s2.Skipped != s.Verified || s2.Verified != len(pairs)-s.Verified {
		t.Errorf("resume: skipped %d verified %d; first run verified %d of %d", s2.Skipped, s2.Verified, s.Verified, len(pairs))
	}
	checkRecordedOnce(t, filepath.Join(out, ExecutionsFile), pairs)
	checkAllConfirmed(t, s2, pairs)
	// A duplicate pair_id in the corpus is an input error.
	if _, err := Run(context.Background(), append(pairs, pairs[0]), t.TempDir(), opts); err == nil || !strings.Contains(err.Error(), "appears twice") {
		t.Errorf("duplicate pair_id: err = %v", err)
	}
}

// cancelAt returns a context and opts whose progress cancels it once n
// pairs are done.
func cancelAt(opts Options, n int) (context.Context, Options) {
	ctx, cancel := context.WithCancel(context.Background())
	opts.Progress = func(done, total int) {
		if done == n {
			cancel()
		}
	}
	return ctx, opts
}

// checkRecordedOnce checks that the log at path has one record per pair.
func checkRecordedOnce(t *testing.T, path string, pairs []corpus.Pair) {
	t.Helper()
	recs, err := jsonl.ReadFile[Execution](path)
	testcheck.Must(t, err)
	seen := map[string]int{}
	for _, r := range recs {
		seen[r.PairID]++
	}
	for _, p := range pairs {
		if seen[p.PairID] != 1 {
			t.Errorf("%s recorded %d times", p.PairID, seen[p.PairID])
		}
	}
}

// checkAllConfirmed checks a summary in which every pair is confirmed:
// its table and the confirmed pairs written unchanged.
func checkAllConfirmed(t *testing.T, s2 Summary, pairs []corpus.Pair) {
	t.Helper()
	testcheck.Eq(t, "pooled n", s2.Table.Pooled.N, len(pairs))
	testcheck.Eq(t, "pooled (c)", s2.Table.Pooled.C.K, len(pairs))
	testcheck.Eq(t, "type rows", len(s2.Table.Rows), len(corpus.Types))
	conf, err := jsonl.ReadFile[corpus.Pair](s2.ConfirmedPath)
	testcheck.Must(t, err)
	testcheck.Eq(t, "summary confirmed", s2.Confirmed, len(pairs))
	if len(conf) != len(pairs) || conf[0].BuggyMethod != pairs[0].BuggyMethod {
		t.Errorf("confirmed.jsonl holds %d pairs, want the %d input pairs unchanged", len(conf), len(pairs))
	}
}

func TestFindJDKMissing(t *testing.T) {
	t.Setenv("JAVA_HOME", "")
	t.Setenv("PATH", t.TempDir())
	_, err := FindJDK(context.Background())
	if !errors.Is(err, errs.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	testcheck.Contains(t, "error", err.Error(), "find javac")
	testcheck.Contains(t, "error", err.Error(), "install a JDK")
}

func BenchmarkVerify(b *testing.B) {
	opts := needJDK(b)
	pairs := genPairs(100)
	ctx := context.Background()
	v, err := New(ctx, opts)
	testcheck.Must(b, err)
	defer v.Close()
	b.ResetTimer()
	n := 0
	for i := 0; i < b.N; i++ {
		if err := v.Verify(ctx, pairs, func(e Execution) error {
			if !e.Criteria.C {
				b.Errorf("%s not confirmed: %s", e.PairID, e.Reason)
			}
			n++
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "pairs/s")
}
