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
	lf := buildLandingRepo(t)
	r, h := openHistory(t, lf.dir)
	if len(h.Commits) != 3 || h.Commits[0].Hash != lf.c1 || h.Commits[2].Hash != lf.merge {
		t.Fatalf("chain %+v", h.Commits)
	}
	if ch := h.Commits[1].Changes; len(ch) != 1 || ch[0].Status != 'R' || ch[0].Old != "a/Old.java" || ch[0].New != "a/New.java" {
		t.Fatalf("rename commit changes %+v", ch)
	}
	checkLandings(t, r, h, lf)
}

// landingRepo is the history of TestLoadHistoryAndLanding: a commit, a
// fix on a side branch, a rename on main, the merge of the side branch, a
// docs-only commit, and a commit on a branch never merged.
type landingRepo struct {
	dir                          string
	c1, side, merge, docs, stray string
}

func buildLandingRepo(t *testing.T) landingRepo {
	t.Helper()
	b := gittest.New(t)
	var lf landingRepo
	b.Write("a/Old.java", "class Old { int f() { return 1; } }\n")
	lf.c1 = b.Commit("one", gittest.Date(2020, 1, 1))
	b.Branch("side")
	b.Write("a/Old.java", "class Old { int f() { return 2; } }\n")
	lf.side = b.Commit("fix on a branch", gittest.Date(2020, 2, 1))
	b.Checkout("main")
	b.Rename("a/Old.java", "a/New.java")
	b.Commit("rename", gittest.Date(2020, 3, 1))
	lf.merge = b.Merge("side", "merge side", gittest.Date(2020, 4, 1))
	b.Write("README.md", "docs only\n")
	lf.docs = b.Commit("docs", gittest.Date(2020, 4, 15))
	b.Branch("stray")
	lf.stray = b.Commit("never merged", gittest.Date(2020, 5, 1))
	b.Checkout("main")
	lf.dir = b.Dir()
	return lf
}

// checkLandings: the side-branch fix lands at the merge, the stray commit
// nowhere, and the docs commit (touching no followed file) is not listed
// but positioned after the merge.
func checkLandings(t *testing.T, r *gitrepo.Repo, h *History, lf landingRepo) {
	t.Helper()
	ctx := context.Background()
	if i, err := h.Landing(ctx, r, lf.side); err != nil || i != 2 {
		t.Fatalf("side-branch fix lands at %d (%v), want the merge (2)", i, err)
	}
	if i, err := h.Landing(ctx, r, lf.stray); err != nil || i != -1 {
		t.Fatalf("stray commit lands at %d (%v), want -1", i, err)
	}
	if h.Index(lf.docs) != -1 {
		t.Fatal("a commit touching no followed file is listed")
	}
	if i, err := h.Position(ctx, r, lf.docs); err != nil || i != 2 {
		t.Fatalf("docs commit at %d (%v), want 2", i, err)
	}
}

// TestFastSpan: a function is cut out by its header line, braces in
// strings and comments do not count, a repeated header falls back to a
// parse.
func TestFastSpan(t *testing.T) {
	java := "class A {\n    int f(int x) {\n        String s = \"}\"; // }\n        return x;\n    }\n\n    int g() { return 0; }\n}\n"
	got, ok, _ := fastSpan([]byte(java), "int f(int x) {\n        return 0;\n    }", "f", false, nil)
	if !ok || !strings.HasPrefix(got, "int f(int x) {") || !strings.HasSuffix(got, "return x;\n    }") {
		t.Fatalf("java span %q %v", got, ok)
	}
	if _, ok, _ := fastSpan([]byte(java+java), "int f(int x) {", "f", false, nil); ok {
		t.Fatal("a header found twice must fall back to a parse")
	}
	py := "class A:\n    def f(self, x):\n        if x:\n            return 1\n\n        return 2\n\n    def g(self):\n        pass\n"
	got, ok, _ = fastSpan([]byte(py), "def f(self, x):\n        return 0", "f", true, nil)
	if !ok || !strings.HasSuffix(got, "return 2") || strings.Contains(got, "def g") {
		t.Fatalf("python span %q %v", got, ok)
	}
}

// TestFastSpanEnumBodies: a header every constant body repeats is found by
// the line above it in the previous version, and not when that line is
// gone or repeated too.
func TestFastSpanEnumBodies(t *testing.T) {
	body := func(name, ret string) string {
		return "    " + name + " {\n        boolean process(Token t) {\n            return " + ret + ";\n        }\n    },\n"
	}
	prev := "enum S {\n" + body("Initial", "true") + body("InBody", "t.ok()") + "}\n"
	text := "boolean process(Token t) {\n            return t.ok();\n        }"
	now := "enum S {\n" + body("Initial", "false") + "\n" + body("InBody", "t.ok() && t.done()") + "}\n"
	got, ok, anchored := fastSpan([]byte(now), text, "process", false, []byte(prev))
	if !ok || !anchored || !strings.Contains(got, "t.done()") {
		t.Fatalf("InBody's process: %q %v", got, ok)
	}
	renamed := strings.Replace(now, "InBody {", "InBodyRenamed {", 1)
	if got, ok, _ := fastSpan([]byte(renamed), text, "process", false, []byte(prev)); ok {
		t.Fatalf("constant renamed: found %q, want a fall back to a parse", got)
	}
	twice := "enum S {\n" + body("InBody", "a") + body("InBody", "b") + "}\n"
	if got, ok, _ := fastSpan([]byte(twice), text, "process", false, []byte(prev)); ok {
		t.Fatalf("line above repeated: found %q, want a fall back to a parse", got)
	}
	annotated := strings.Replace(now, "    InBody {\n        boolean process", "    InBody {\n        @Override\n        boolean process", 1)
	annotatedPrev := strings.Replace(prev, "    InBody {\n        boolean process", "    InBody {\n        @Override\n        boolean process", 1)
	if got, ok, _ := fastSpan([]byte(annotated), text, "process", false, []byte(annotatedPrev)); ok {
		t.Fatalf("line above is a unique @Override (the method may have moved classes): found %q, want a fall back to a parse", got)
	}
	copied := strings.Replace(now, "}\n", body("Copy", "t.ok()")+"}\n", 1)
	if got, ok, _ := fastSpan([]byte(copied), text, "process", false, []byte(prev)); ok {
		t.Fatalf("a body more than before: found %q, want a fall back to a parse", got)
	}
	if _, ok, _ := fastSpan([]byte(now), text, "process", false, nil); ok {
		t.Fatal("no previous version: a repeated header must fall back to a parse")
	}
}

// TestMayHaveMovedAmongRepeatedBodies: a line gone from the tracked
// function that the file now holds fewer times than before is a plain
// deletion, unless the function is one of several repeated bodies: there
// the duplicates may have been merged into one helper (Jsoup's tokeniser
// states into handleDataEndTag), so it may have moved.
func TestMayHaveMovedAmongRepeatedBodies(t *testing.T) {
	l := []byte("String name = r.consumeLetterSequence();")
	w := &walk{prev: &fileVersion{src: []byte("A {\n" + string(l) + "\n}\nB {\n" + string(l) + "\n}\n")}}
	v := &fileVersion{src: []byte("A {\n}\nB {\n}\nvoid helper() {\n" + string(l) + "\n}\n")}
	if w.mayHaveMoved(l, v, false) {
		t.Error("one copy fewer, unique header: want a plain deletion")
	}
	if !w.mayHaveMoved(l, v, true) {
		t.Error("one copy fewer among repeated bodies: want a possible move")
	}
	if w.mayHaveMoved([]byte("gone();"), v, true) {
		t.Error("a line the file no longer holds cannot have moved")
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
	// A line the patch re-indents (removed and added again) comes after
	// the new ones, however long: -S finds no commit for it.
	got = distinctive([]AddedLines{{Path: "c.py", Lines: []string{
		`raise ValueError("Resulting object does not have monotonic"`, "for dim in concat_dims:"},
		Removed: []string{`raise ValueError("Resulting object does not have monotonic"`, "for dim in concatenated.dims:"}}}, 2)
	if len(got) != 2 || got[0].line != "for dim in concat_dims:" {
		t.Errorf("probes = %v, want the new line first", got)
	}
	if s := stripComment("url = 'http://h/#frag'"); s != "url = 'http://h/#frag'" {
		t.Errorf("a # inside a literal was cut: %q", s)
	}
}

// TestOwnCalls: calls on the same object count (bare, or after "this."),
// calls on another receiver and longer names do not.
func TestOwnCalls(t *testing.T) {
	for text, want := range map[string]int{
		"int indexOf(String s, int i) { return indexOf(s, i, 0); }": 2,
		"int indexOf(String s) { return this.indexOf(s, 0); }":      2,
		"int indexOf(String s) { return StringUtils.indexOf(s); }":  1,
		"int indexOf(String s) { return lastIndexOf(s); }":          1,
		"int indexOf(String s) { return x . indexOf (s); }":         1,
	} {
		if got := ownCalls(text, "indexOf"); got != want {
			t.Errorf("ownCalls(%q) = %d, want %d", text, got, want)
		}
	}
}

// TestOwnCallCounts: the counts for all names agree with ownCalls.
func TestOwnCallCounts(t *testing.T) {
	text := "int indexOf(String s, int i) { if (s == null) { return this.indexOf(s); } return StringUtils.indexOf(s, i) + lastIndexOf(s) + indexOf (s); }"
	got := ownCallCounts(text)
	for _, name := range []string{"indexOf", "lastIndexOf", "if", "StringUtils"} {
		if got[name] != ownCalls(text, name) {
			t.Errorf("%s: %d, ownCalls %d", name, got[name], ownCalls(text, name))
		}
	}
	if got["indexOf"] != 2 {
		t.Errorf("indexOf counted %d times, want 2 (header and this.indexOf)", got["indexOf"])
	}
}

// TestLandByClassName: at the landing commit a function whose parameters
// differ from the patched file's is found by its name in its class, when
// other classes define the same name.
func TestLandByClassName(t *testing.T) {
	v := &fileVersion{path: "a.py", src: []byte("class A:\n    def get_doc(self, ignore=None):\n        return 1\n\n\n" +
		"class B:\n    def get_doc(self, ignore=None):\n        return 2\n")}
	h := &History{Commits: []Commit{{Hash: "c0"}}}
	w := &walk{h: h, tg: Target{Path: "a.py", Key: "B.get_doc(self,encoding,ignore)", Name: "get_doc"}}
	w.cur = State{Path: "a.py", Key: w.tg.Key}
	if !w.land(0, v) || !strings.Contains(w.text, "return 2") {
		t.Fatalf("landed = %q (key %q), want B's get_doc", w.text, w.cur.Key)
	}
	w = &walk{h: h, tg: Target{Path: "a.py", Key: "C.get_doc(self,encoding,ignore)", Name: "get_doc"}}
	if w.land(0, v) {
		t.Errorf("landed on %q: a name two other classes share is no landing", w.cur.Key)
	}
}

// TestLandingMatchesAncestryPath: on a history with nested, back- and
// late merges, every commit lands where `git rev-list --ancestry-path
// commit..tip` says (the earliest listed commit descending from it), as
// it did when each landing was its own git.
func TestLandingMatchesAncestryPath(t *testing.T) {
	b := gittest.New(t)
	day := 0
	commit := func(path, text string) string {
		day++
		b.Write(path, text)
		return b.Commit("c"+path, gittest.Date(2020, 1, day))
	}
	commit("a/A.java", "class A {}\n")
	b.Branch("x")
	commit("a/X.java", "class X {}\n")
	b.Branch("y")
	commit("a/Y.java", "class Y {}\n")
	b.Checkout("x")
	commit("doc.txt", "x\n")
	b.Merge("y", "y into x", gittest.Date(2020, 2, 1))
	b.Checkout("main")
	commit("a/A.java", "class A { int a; }\n")
	commit("notes.txt", "not followed\n")
	b.Branch("z")
	commit("a/Z.java", "class Z {}\n")
	b.Checkout("main")
	b.Merge("x", "x into main", gittest.Date(2020, 3, 1))
	b.Checkout("z")
	b.Merge("main", "main into z", gittest.Date(2020, 3, 2))
	commit("a/Z.java", "class Z { int z; }\n")
	b.Checkout("main")
	commit("notes.txt", "still not followed\n")
	b.Merge("z", "z into main", gittest.Date(2020, 4, 1))
	commit("a/A.java", "class A { int b; }\n")
	b.Branch("stray")
	commit("a/S.java", "class S {}\n")
	b.Checkout("main")

	ctx := context.Background()
	r, h := openHistory(t, b.Dir())
	tip := h.Commits[len(h.Commits)-1].Hash
	all := strings.Fields(b.Git("rev-list", "--all"))
	landed := 0
	for _, c := range all {
		want := h.Index(c)
		if want < 0 {
			want = -1
			for _, d := range strings.Fields(b.Git("rev-list", "--ancestry-path", c+".."+tip)) {
				if i := h.Index(d); i >= 0 && (want < 0 || i < want) {
					want = i
				}
			}
		}
		got, err := h.Landing(ctx, r, c)
		if err != nil || got != want {
			t.Errorf("commit %s lands at %d (%v), want %d", c[:8], got, err, want)
		}
		if got >= 0 {
			landed++
		}
	}
	if len(all) != 15 || landed != 14 {
		t.Fatalf("%d commits, %d landed: the history is not the one the test means", len(all), landed)
	}
}

// TestHeaderCount: lines are counted whole and trimmed (a longer line
// holding the header does not count), at the start and end of the text,
// without a final newline, and blank lines for an empty header, as
// splitting every line counts them.
func TestHeaderCount(t *testing.T) {
	byLines := func(src, header string) int {
		n := 0
		for _, l := range strings.Split(src, "\n") {
			if strings.TrimSpace(l) == header {
				n++
			}
		}
		return n
	}
	srcs := []string{
		"",
		"void f() {",
		"void f() {\n  void f() {\r\n\tvoid f() {  \nvoid f() {}\n// void f() {\nvoid f() {",
		"\n\n  \nx\n",
		"void f() {void f() {\nvoid f() {\n",
		"a\nvoid f() {\n\n   \nb void f() {\nvoid f() {\n",
	}
	for _, src := range srcs {
		for _, h := range []string{"void f() {", "", "x", "void f() {}"} {
			if got, want := headerCount([]byte(src), h), byLines(src, h); got != want {
				t.Errorf("headerCount(%q, %q) = %d, want %d", src, h, got, want)
			}
		}
	}
	if n := headerCount([]byte(srcs[2]), "void f() {"); n != 4 {
		t.Fatalf("counted %d headers in %q, want 4", n, srcs[2])
	}
}

// openHistory opens the repository at dir and loads main's Java history;
// the repository is closed when the test ends.
func openHistory(t *testing.T, dir string) (*gitrepo.Repo, *History) {
	t.Helper()
	ctx := context.Background()
	r, err := gitrepo.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	h, err := LoadHistory(ctx, r, "main", []string{".java"})
	if err != nil {
		t.Fatal(err)
	}
	return r, h
}
