package patchcheck

import (
	"slices"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// TestWithSnapshotFuncsNested: a fix that patches a function and the
// closure inside it gets the outer function's snapshot text once (the
// closure's counterpart is inside it), where splicing both used to cut
// past the end of the already shortened file and panic.
func TestWithSnapshotFuncsNested(t *testing.T) {
	const fixed = "def other():\n    return 2\n\n\ndef outer(xs):\n    def inner(x):\n        y = x + 1\n        return y\n    total = 0\n    for x in xs:\n        total += inner(x)\n    return total\n"
	const snap = "def other():\n    return 2\n\n\ndef outer(xs):\n    def inner(x):\n        return x + 1\n    return sum(inner(x) for x in xs)\n"
	fix := newVersion("m.py", []byte(fixed), false)
	sv := newVersion("m.py", []byte(snap), false)
	fn := func(name string) int {
		i := slices.IndexFunc(fix.funcs, func(f code.Function) bool { return f.Name == name })
		if i < 0 {
			t.Fatalf("no function %s in the fixed version", name)
		}
		return i
	}
	fw := &fileWork{fd: &diff.FileDiff{OldPath: "m.py", NewPath: "m.py"}, fix: fix,
		blocks: []*pblock{{fn: fn("inner")}, {fn: fn("outer")}}}
	mod, skip := withSnapshotFuncs(fw, &snapFile{v: sv})
	testcheck.Eq(t, "skip", skip, "")
	testcheck.Eq(t, "modified file", string(mod), snap)
	if strings.Count(string(mod), "def inner") != 1 {
		t.Errorf("inner replaced twice:\n%s", mod)
	}
}
