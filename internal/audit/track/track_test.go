package track

import (
	"context"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/gitrepo"
	"github.com/benchforge/benchforge/internal/gitrepo/gittest"
)

// TestLoadHistoryAndLanding: the chain is read oldest first with each
// commit's renames; a fix made on a side branch lands at its merge, and a
// commit off the default branch does not land at all.
func TestLoadHistoryAndLanding(t *testing.T) {
	b := gittest.New(t)
	b.Write("a/Old.java", "class Old { int f() { return 1; } }\n")
	c1 := b.Commit("one", gittest.Date(2020, 1, 1))
	b.Branch("side")
	b.Write("a/Old.java", "class Old { int f() { return 2; } }\n")
	side := b.Commit("fix on a branch", gittest.Date(2020, 2, 1))
	b.Checkout("main")
	b.Rename("a/Old.java", "a/New.java")
	b.Commit("rename", gittest.Date(2020, 3, 1))
	m := b.Merge("side", "merge side", gittest.Date(2020, 4, 1))
	b.Write("README.md", "docs only\n")
	docs := b.Commit("docs", gittest.Date(2020, 4, 15))
	b.Branch("stray")
	stray := b.Commit("never merged", gittest.Date(2020, 5, 1))
	b.Checkout("main")
	ctx := context.Background()
	r, err := gitrepo.Open(ctx, b.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	h, err := LoadHistory(ctx, r, "main", []string{".java"})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Commits) != 3 || h.Commits[0].Hash != c1 || h.Commits[2].Hash != m {
		t.Fatalf("chain %+v", h.Commits)
	}
	if ch := h.Commits[1].Changes; len(ch) != 1 || ch[0].Status != 'R' || ch[0].Old != "a/Old.java" || ch[0].New != "a/New.java" {
		t.Fatalf("rename commit changes %+v", ch)
	}
	if i, err := h.Landing(ctx, r, side); err != nil || i != 2 {
		t.Fatalf("side-branch fix lands at %d (%v), want the merge (2)", i, err)
	}
	if i, err := h.Landing(ctx, r, stray); err != nil || i != -1 {
		t.Fatalf("stray commit lands at %d (%v), want -1", i, err)
	}
	// The docs commit touches no .java file: not listed, positioned after
	// the merge.
	if h.Index(docs) != -1 {
		t.Fatal("a commit touching no followed file is listed")
	}
	if i, err := h.Position(ctx, r, docs); err != nil || i != 2 {
		t.Fatalf("docs commit at %d (%v), want 2", i, err)
	}
}

// TestFastSpan: a function is cut out by its header line, braces in
// strings and comments do not count, a repeated header falls back to a
// parse.
func TestFastSpan(t *testing.T) {
	java := "class A {\n    int f(int x) {\n        String s = \"}\"; // }\n        return x;\n    }\n\n    int g() { return 0; }\n}\n"
	got, ok := fastSpan([]byte(java), "int f(int x) {\n        return 0;\n    }", "f", false)
	if !ok || !strings.HasPrefix(got, "int f(int x) {") || !strings.HasSuffix(got, "return x;\n    }") {
		t.Fatalf("java span %q %v", got, ok)
	}
	if _, ok := fastSpan([]byte(java+java), "int f(int x) {", "f", false); ok {
		t.Fatal("a header found twice must fall back to a parse")
	}
	py := "class A:\n    def f(self, x):\n        if x:\n            return 1\n\n        return 2\n\n    def g(self):\n        pass\n"
	got, ok = fastSpan([]byte(py), "def f(self, x):\n        return 0", "f", true)
	if !ok || !strings.HasSuffix(got, "return 2") || strings.Contains(got, "def g") {
		t.Fatalf("python span %q %v", got, ok)
	}
}

// TestRulesOfGeneric: lines that say nothing about where code went are
// not used as evidence of an extraction; lines with content are.
func TestRulesOfGeneric(t *testing.T) {
	for _, l := range []string{"}", "return;", "break;", "else:", "pass", "return null;", "@Override", "// see below", "# noqa", " * @param x"} {
		if !generic(l) {
			t.Errorf("%q should be generic", l)
		}
	}
	for _, l := range []string{"return r;", "break outer;", "if (r > hi) {", "r = hi", `@SuppressWarnings("unchecked")`} {
		if generic(l) {
			t.Errorf("%q is not generic", l)
		}
	}
}

// TestProbesWithoutComments: pickaxe probes are the longest added lines
// with their trailing comments dropped (the upstream commit's comment
// often differs), deduplicated, at most n.
func TestProbesWithoutComments(t *testing.T) {
	got := distinctive([]AddedLines{{Path: "a.py", Lines: []string{
		"for i, arg in enumerate(args.posonlyargs):  # type: ignore", "x = 1", "url = 'http://h/#frag'",
		"for i, arg in enumerate(args.posonlyargs):", "defaults = list(args.defaults)"}}}, 2)
	want := []probe{{"for i, arg in enumerate(args.posonlyargs):", "a.py"}, {"defaults = list(args.defaults)", "a.py"}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("probes = %v, want %v", got, want)
	}
	if s := stripComment("url = 'http://h/#frag'"); s != "url = 'http://h/#frag'" {
		t.Errorf("a # inside a literal was cut: %q", s)
	}
}
