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

// TestParseReferenceSetRecords: the file `seeds extract --reference-set`
// writes is read as it is — its in_reference records listed, the others
// left out — and a record without in_reference is an error naming its line.
func TestParseReferenceSetRecords(t *testing.T) {
	in := "{\"bug_id\":\"Cli-5\",\"exception\":\"NullPointerException\",\"lloc\":5,\"in_reference\":true}\n" +
		"{\"bug_id\":\"Math-1\",\"lloc\":90,\"in_reference\":false}\nLang-2\n"
	ids, err := ParseReferenceSet("ref.jsonl", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(ids, ",") != "Cli-5,Lang-2" {
		t.Errorf("ids = %q, want Cli-5 and Lang-2", ids)
	}
	_, err = ParseReferenceSet("ref.jsonl", strings.NewReader("Lang-2\n{\"bug_id\":\"Cli-5\"}\n"))
	if !errors.Is(err, errs.ErrInput) || !strings.Contains(err.Error(), "ref.jsonl:2") {
		t.Errorf("record without in_reference: err = %v, want ErrInput naming ref.jsonl:2", err)
	}
}
