package grounded

import (
	"testing"

	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// FuzzPrompter: arbitrary seed texts (unparsable, empty lines, huge, binary)
// never crash schedule building, diffing or prompt rendering, and the
// exemplars named are seeds of the type.
func FuzzPrompter(f *testing.F) {
	f.Add("int f(String s) { return s.length(); }", "int f(String s) { return s == null ? 0 : s.length(); }", "x {", 3)
	f.Add("", "\n\n", "\x00\xff", 1)
	f.Add("a\nb\nc", "a\nc\nb\n", "class X { int y; }", 7)
	f.Fuzz(func(t *testing.T, buggy, fixed, other string, n int) {
		n = (n%50 + 50) % 50
		seeds := []corpus.Seed{
			{BugID: "a", SourceBug: "a", Exception: corpus.NullPointer, BuggyMethod: buggy, FixedMethod: fixed},
			{BugID: "b", SourceBug: "b", Exception: corpus.NullPointer, BuggyMethod: other, FixedMethod: buggy},
			{BugID: "c", SourceBug: "c", Exception: corpus.NullPointer, BuggyMethod: fixed, FixedMethod: other},
			{BugID: "d", SourceBug: "d", Exception: corpus.NullPointer, BuggyMethod: other + buggy, FixedMethod: fixed + other},
		}
		p := NewPrompter(Options{Seed: uint64(n)})
		testcheck.Must(t, p.Prepare(seeds))
		if !p.Serves(corpus.NullPointer) {
			return // every seed had an empty method
		}
		pr, err := p.Prompt(corpus.NullPointer, n)
		testcheck.Must(t, err)
		for _, id := range pr.ExampleBugIDs {
			if id < "a" || id > "d" {
				t.Fatalf("exemplar %q", id)
			}
		}
		_ = MethodDiff(buggy, other)
	})
}
