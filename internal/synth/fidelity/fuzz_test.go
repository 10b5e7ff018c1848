package fidelity

import (
	"errors"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
)

func FuzzParseReferenceSet(f *testing.F) {
	for _, s := range []string{"Lang-1#0\nMath-2#1\n", "# comment\n\n  a  \r\nb", "a\na\n", "", "\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ids, err := ParseReferenceSet("ref.txt", strings.NewReader(s))
		if err != nil {
			if !errors.Is(err, errs.ErrInput) {
				t.Fatalf("error does not wrap ErrInput: %v", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, id := range ids {
			if id == "" || id != strings.TrimSpace(id) || strings.HasPrefix(id, "#") || seen[id] {
				t.Fatalf("bad id %q in %q", id, ids)
			}
			seen[id] = true
		}
	})
}

// FuzzMeasure: any text either measures or fails with ErrInput; never a
// panic, and a measured method has at least one token.
func FuzzMeasure(f *testing.F) {
	f.Add("int f(int a) { return a / 2; }")
	f.Add("void g() { Object o = (String) x; if (o != null) throw new IllegalStateException(); }")
	f.Add("int broken( {")
	f.Add("class X {}")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := Measure(s)
		if err != nil {
			return
		}
		if len(m.Tokens) == 0 || m.Metrics.Tokens != len(m.Tokens) {
			t.Fatalf("measured %q: %d tokens listed, metric says %d", s, len(m.Tokens), m.Metrics.Tokens)
		}
	})
}
