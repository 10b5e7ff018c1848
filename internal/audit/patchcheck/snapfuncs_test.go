package patchcheck

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/audit/testverify"
	"github.com/benchforge/benchforge/internal/bench"
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

// TestWithSnapshotFuncsTopLevel: a block outside any function has no
// snapshot function to take its place, so no modified patch is built (it
// would hold the gold code, and the tests would judge the gold fix).
func TestWithSnapshotFuncsTopLevel(t *testing.T) {
	const fixed = "TABLE = {\n    \"max\": 1,\n    \"min\": 2,\n}\n\n\ndef f():\n    return TABLE\n"
	fix := newVersion("m.py", []byte(fixed), false)
	fw := &fileWork{fd: &diff.FileDiff{OldPath: "m.py", NewPath: "m.py"}, fix: fix, blocks: []*pblock{{fn: -1}}}
	mod, skip := withSnapshotFuncs(fw, &snapFile{v: newVersion("m.py", []byte(fixed), false)})
	testcheck.Eq(t, "modified file", string(mod), "")
	testcheck.Contains(t, "skip", skip, "m.py has a patch block outside any function")
}

// TestVerifySnapshotIsBuggy: when the snapshot's functions are the buggy
// ones (the fix was reverted), the modified patch would change nothing;
// no verification runs (an empty diff used to reach the verifier as a
// header without hunks, an unparsable patch) and the reason says why.
func TestVerifySnapshotIsBuggy(t *testing.T) {
	const buggy = "def clamp(v, lo, hi):\n    return max(v, lo)\n"
	const fixed = "def clamp(v, lo, hi):\n    return min(max(v, lo), hi)\n"
	fix := newVersion("m.py", []byte(fixed), false)
	fw := &fileWork{fd: &diff.FileDiff{OldPath: "m.py", NewPath: "m.py"}, bug: newVersion("m.py", []byte(buggy), false), fix: fix,
		blocks: []*pblock{{fn: 0}}}
	c := New(Options{Verifier: &testverify.Verifier{}, InconclusiveLow: -1})
	v := Verdict{SampleID: "s"}
	testcheck.Must(t, c.verify(context.Background(), bench.Sample{ID: "s"}, nil, []*fileWork{fw}, []*snapFile{{v: newVersion("m.py", []byte(buggy), false)}}, &v))
	if v.Tests != nil {
		t.Errorf("tests ran: %+v", v.Tests)
	}
	testcheck.Contains(t, "reason", v.Reason, "test verification skipped: the snapshot's code in place of the patch is the buggy code itself")
}

// TestWithImports: the snapshot's imports a Java file lacks and its
// functions use are added after its last import, or after its package
// line, once each, and so are its java.* wildcards; unused names and
// other wildcards are not.
func TestWithImports(t *testing.T) {
	snap := []byte("package p;\n\nimport java.util.List;\nimport java.util.Objects;\nimport java.util.Map;\nimport java.io.*;\nimport org.q.*;\nimport javax.xml.bind.*;\nimport static java.lang.Math.max;\n\nclass A {}\n")
	used := []byte("boolean f(Object a, Object b) { return Objects.equals(a, b) && max(1, 2) > 0; } // MapX")
	const added = "import java.util.Objects;\nimport java.io.*;\nimport static java.lang.Math.max;\n"
	for _, tc := range []struct{ src, want string }{
		{"package p;\n\nimport java.util.List;\n\nclass A { int f() { return 1; } }\n",
			"package p;\n\nimport java.util.List;\n" + added + "\nclass A { int f() { return 1; } }\n"},
		{"package p;\nclass A {}\n", "package p;\n" + added + "class A {}\n"},
		{"class A {}\n", added + "class A {}\n"},
		{"package p;\nimport java.util.Objects;\nimport java.io.*;\nimport static java.lang.Math.max;\nclass A {}\n", "package p;\nimport java.util.Objects;\nimport java.io.*;\nimport static java.lang.Math.max;\nclass A {}\n"},
	} {
		testcheck.Eq(t, "with imports", string(withImports([]byte(tc.src), snap, used)), tc.want)
	}
	// a name imported already, from another package, is not imported again
	testcheck.Eq(t, "moved class", string(withImports([]byte("import org.m3.Objects;\nclass A {}\n"), snap, used)), "import org.m3.Objects;\nimport java.io.*;\nimport static java.lang.Math.max;\nclass A {}\n")
	// a comment that mentions an import is not one
	testcheck.Eq(t, "comment", string(withImports([]byte("class A {}\n"), []byte("// import java.util.Map;\nclass A {}\n"), []byte("Map m;"))), "class A {}\n")
}

// TestWithSnapshotMembers: the snapshot's function uses members its class
// gained after the fix (two constants, one defined by the other, and a
// helper); they are copied into the class, once, while a name the
// function declares itself (a local shadowing a snapshot field), a member
// the class has already and an unused one are not.
func TestWithSnapshotMembers(t *testing.T) {
	const fixed = "package p;\n\nclass L {\n    static int pad = 1;\n\n    static boolean ok(String s) {\n        char c = s.charAt(0);\n        return c == '_' || c == '-';\n    }\n}\n"
	const snap = "package p;\n\nimport java.util.Objects;\n\nclass L {\n    private static final char UNDERSCORE = '_';\n    private static final char DASH = (char) (UNDERSCORE + 0) == '_' ? '-' : '-';\n    static int pad = 2;\n    private int count;\n    private int unused;\n\n    static boolean ok(String s) {\n        int count = s.length();\n        char c = s.charAt(0);\n        return count > 0 && (c == UNDERSCORE || isDash(c)) && pad > 0 && Objects.nonNull(s);\n    }\n\n    private static boolean isDash(char c) {\n        return c == DASH;\n    }\n}\n"
	fix := newVersion("L.java", []byte(fixed), false)
	sv := newVersion("L.java", []byte(snap), false)
	fw := &fileWork{fd: &diff.FileDiff{OldPath: "L.java", NewPath: "L.java"}, fix: fix, blocks: []*pblock{{fn: 0}}}
	mod, skip := withSnapshotFuncs(fw, &snapFile{v: sv})
	testcheck.Eq(t, "skip", skip, "")
	const want = "package p;\nimport java.util.Objects;\n\nclass L {\n    static int pad = 1;\n\n    static boolean ok(String s) {\n        int count = s.length();\n        char c = s.charAt(0);\n        return count > 0 && (c == UNDERSCORE || isDash(c)) && pad > 0 && Objects.nonNull(s);\n    }\n\n    private static final char UNDERSCORE = '_';\n\n    private static final char DASH = (char) (UNDERSCORE + 0) == '_' ? '-' : '-';\n\n    private static boolean isDash(char c) {\n        return c == DASH;\n    }\n}\n"
	testcheck.Eq(t, "modified file", string(mod), want)
	if _, err := code.Parse(code.LangJava, "L.java", mod); err != nil {
		t.Fatal(err)
	}
}
