package testverify

import (
	"strings"
	"testing"
)

func FuzzSplitWords(f *testing.F) {
	for _, s := range []string{"python -m pytest -q {tests}", `'a b' "c\"d" e\ f`, `"open`, "a\\\nb", `x''y`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words, err := SplitWords(s)
		if err != nil {
			return
		}
		// Re-quoting every word with single quotes must give the same words.
		var b strings.Builder
		for _, w := range words {
			b.WriteString("'" + strings.ReplaceAll(w, "'", `'\''`) + "' ")
		}
		again, err := SplitWords(b.String())
		if err != nil || len(again) != len(words) {
			t.Fatalf("round trip of %q: %q, %v", words, again, err)
		}
		for i := range words {
			if again[i] != words[i] {
				t.Fatalf("round trip word %d: %q != %q", i, again[i], words[i])
			}
		}
	})
}

func FuzzParseJUnit(f *testing.F) {
	f.Add([]byte(pytestXML))
	f.Add([]byte(surefireXML))
	f.Add([]byte("<testsuites><testsuite><testsuite><testcase name='a'/></testsuite></testsuite></testsuites>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cases, err := ParseJUnit(data)
		if err != nil {
			return
		}
		for _, c := range cases {
			_ = c.Key()
			switch c.Status {
			case StatusPassed, StatusFailed, StatusError, StatusSkipped:
			default:
				t.Fatalf("status %q", c.Status)
			}
		}
	})
}

func FuzzParseUnittest(f *testing.F) {
	f.Add([]byte("test_a (m.C) ... ok\ntest_b (m.C)\nDoc ... FAIL\n======\nFAIL: test_b (m.C)\n-----\nAssertionError\n"))
	f.Add([]byte("test_sub (m.C.test_sub) ... \n  test_sub (m.C.test_sub) (i=1) ... FAIL\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, c := range ParseUnittest(data) {
			if c.Status == "" || c.Name == "" {
				t.Fatalf("incomplete case %+v", c)
			}
		}
	})
}

func FuzzTestKey(f *testing.F) {
	for _, s := range []string{"a/b.py::C::m[x.y]", "m (a.b.C)", "org.Foo#bar", "((", "a..b", "::"} {
		f.Add(s, "a.b.C.m")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ka, kb := TestKey(a), TestKey(b)
		if keyMatch(ka, kb) != keyMatch(kb, ka) && !strings.Contains(a+b, "[") {
			t.Fatalf("keyMatch not symmetric for %q, %q", a, b)
		}
		if len(ka) > 0 && !keyMatch(ka, ka) {
			t.Fatalf("%q does not match itself (%q)", a, ka)
		}
	})
}
