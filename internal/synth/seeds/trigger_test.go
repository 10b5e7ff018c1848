package seeds

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/shareddata"
	"github.com/benchforge/benchforge/internal/testcheck"
)

func TestParseTriggerTests(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Failure
		err  string
	}{
		{
			name: "class only, then message with colon and continuation",
			in: "--- a.BTest::one\njava.lang.NullPointerException\n\tat a.B.f(B.java:3)\n" +
				"--- a.BTest::two\r\njunit.framework.AssertionFailedError: expected:<x> but: was\r\nsecond line\r\n\r\n\tat junit.framework.Assert.fail(Assert.java:1)\r\n",
			want: []Failure{
				{Test: "a.BTest::one", Exception: "java.lang.NullPointerException", TopFrame: "a.B.f(B.java:3)", Line: 1,
					Traces: []Trace{{Frames: []string{"a.B.f(B.java:3)"}}}},
				{Test: "a.BTest::two", Exception: "junit.framework.AssertionFailedError", Message: "expected:<x> but: was\nsecond line\n", TopFrame: "junit.framework.Assert.fail(Assert.java:1)", Line: 4,
					Traces: []Trace{{Frames: []string{"junit.framework.Assert.fail(Assert.java:1)"}}}},
			},
		},
		{
			name: "caused by chain with messages and more",
			in: "--- a.CTest::t\njava.lang.RuntimeException: outer\n    at a.C.f(C.java:1)\n" +
				"Caused by: java.lang.IllegalStateException: mid\nmid continues\n\tat a.C.g(C.java:2)\n\t... 4 more\n" +
				"Caused by: java.lang.NullPointerException\n\tat a.C.h(C.java:3)\n",
			want: []Failure{{Test: "a.CTest::t", Exception: "java.lang.RuntimeException", Message: "outer", TopFrame: "a.C.f(C.java:1)",
				CausedBy: []string{"java.lang.IllegalStateException", "java.lang.NullPointerException"}, Line: 1,
				Traces: []Trace{{Frames: []string{"a.C.f(C.java:1)"}}, {Frames: []string{"a.C.g(C.java:2)"}, More: 4}, {Frames: []string{"a.C.h(C.java:3)"}}}}},
		},
		{
			name: "no frames, nested class",
			in:   "\n--- a.DTest::t\norg.jsoup.select.Selector$SelectorParseException: bad\n--- a.DTest::u\nx.Y\n",
			want: []Failure{
				{Test: "a.DTest::t", Exception: "org.jsoup.select.Selector$SelectorParseException", Message: "bad", Line: 2, Traces: []Trace{{}}},
				{Test: "a.DTest::u", Exception: "x.Y", Line: 4, Traces: []Trace{{}}},
			},
		},
		{name: "empty", in: "", want: nil},
		{name: "junk before header", in: "hello\n--- a.B::c\nx.Y\n", err: "t:1): invalid input: want a \"--- <class>::<method>\" header"},
		{name: "header then header", in: "--- a.B::c\n--- a.B::d\nx.Y\n", err: "t:2): invalid input: header"},
		{name: "header at end", in: "--- a.B::c\n", err: "t:1): invalid input: file ends after the header of a.B::c"},
		{name: "not an exception line", in: "--- a.B::c\n\tat x.y(Z.java:1)\n", err: "t:2): invalid input: want an exception line"},
		{name: "bad class", in: "--- a.B::c\n1abc.Foo: x\n", err: "t:2"},
		{name: "bad cause", in: "--- a.B::c\nx.Y\nCaused by: ???\n", err: "t:3): invalid input: malformed cause line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseTriggerTests("t", []byte(tt.in))
			if tt.err != "" {
				if !errors.Is(err, errs.ErrInput) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want ErrInput containing %q", err, tt.err)
				}
				return
			}
			testcheck.Must(t, err)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestParseRealTriggerTests parses every trigger_tests file of Defects4J,
// deprecated bugs included, and checks one failure per header: the full
// copy's 1793 when $BENCHFORGE_SHARED_DATA has it, else the vendored 14
// bugs' 18.
func TestParseRealTriggerTests(t *testing.T) {
	root, full := shareddata.Either(t, "defects4j")
	want := 18
	if full {
		want = 1793
	}
	files, _ := filepath.Glob(filepath.Join(root, "*", "trigger_tests", "*"))
	if len(files) == 0 {
		t.Fatal("no trigger_tests under " + root)
	}
	total := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		testcheck.Must(t, err)
		got, err := ParseTriggerTests(f, data)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		headers := 0
		for _, l := range strings.Split(string(data), "\n") {
			if _, ok := bench.TriggerHeader(l); ok {
				headers++
			}
		}
		if len(got) != headers || len(got) == 0 {
			t.Errorf("%s: %d failures for %d headers", f, len(got), headers)
		}
		for _, fl := range got {
			if fl.Exception == "" {
				t.Errorf("%s:%d: no exception", f, fl.Line)
			}
		}
		total += len(got)
	}
	if total != want {
		t.Errorf("parsed %d failures in %d files, want %d (the number of \"--- \" headers)", total, len(files), want)
	}
}

func FuzzParseTriggerTests(f *testing.F) {
	f.Add([]byte("--- a.B::c\njava.lang.NullPointerException: m\n\tat a.B.f(B.java:1)\nCaused by: x.Y: z\n\t... 1 more\n"))
	f.Add([]byte("--- a.B::c\r\nx.Y\r\n--- a.B::d\r\nq.R$1: m\r\nline\r\n"))
	f.Add([]byte("\n\n--- ::\n--- a::b\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ParseTriggerTests("fuzz", data)
		if err != nil {
			if !errors.Is(err, errs.ErrInput) || !strings.Contains(err.Error(), "fuzz:") {
				t.Fatalf("error %v does not wrap ErrInput or name the file", err)
			}
			return
		}
		for _, fl := range got {
			if fl.Test == "" || !isBinaryName(fl.Exception) || fl.Line < 1 {
				t.Fatalf("bad failure %+v", fl)
			}
			for _, c := range fl.CausedBy {
				if !isBinaryName(c) {
					t.Fatalf("bad cause %q", c)
				}
			}
			b := Classify("X-1", "X", got, ScanOptions{})
			if b.Status == "" {
				t.Fatalf("no status for %+v", got)
			}
		}
	})
}
