package code

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// javaVersions is one file's history: small fixes, distant edits, a
// syntax error and its repair, a deleted method, non-ASCII text and an
// emptied file.
var javaVersions = []string{
	`package p;

class StrUtil {
    static int len(String s) {
        return s.length();
    }

    static String head(String s, int n) {
        return s.substring(0, n);
    }

    static boolean blank(String s) {
        return s.trim().isEmpty();
    }
}
`,
	`package p;

class StrUtil {
    static int len(String s) {
        if (s == null) {
            return 0;
        }
        return s.length();
    }

    static String head(String s, int n) {
        return s.substring(0, n);
    }

    static boolean blank(String s) {
        return s.trim().isEmpty();
    }
}
`,
	`package p;

import java.util.Objects;

class StrUtil {
    static int len(String s) {
        if (s == null) {
            return 0;
        }
        return s.length();
    }

    static String head(String s, int n) {
        return s.substring(0, Math.min(n, s.length()));
    }

    static boolean blank(CharSequence s) {
        return s.toString().trim().isEmpty();
    }
}
`,
	`package p;

import java.util.Objects;

class StrUtil {
    static int len(String s) {
        if (s == null {
            return 0;
        }
        return s.length();
    }
}
`,
	`package p;

import java.util.Objects;

class StrUtil {
    static int len(String s) {
        return s == null ? 0 : s.length();
    }

    static String greet() { return "grüß dich"; }
}
`,
	``,
	`class A { void f() { a(); } }`,
}

// pythonVersions exercise the indentation scanner: a block wrapped in an
// if, a decorator, a dedent, and an unclosed bracket.
var pythonVersions = []string{
	`def f(x):
    y = x + 1
    return y


def g(items):
    for i in items:
        print(i)
`,
	`def f(x):
    if x is None:
        return 0
    y = x + 1
    return y


def g(items):
    for i in items:
        print(i)
`,
	`import functools


@functools.lru_cache(maxsize=None)
def f(x):
    if x is None:
        return 0
    y = x + 1
    return y


def g(items):
    for i in items:
        if i:
            print(i)
    return len(items)
`,
	`def f(x):
    return (x + 1


def g(items):
    pass
`,
	`def f(x):
    return x + 1
`,
}

func TestTreesMatchFreshParses(t *testing.T) {
	for _, tc := range []struct {
		lang     Lang
		path     string
		versions []string
	}{
		{LangJava, "StrUtil.java", javaVersions},
		{LangPython, "m.py", pythonVersions},
	} {
		ts := NewTrees(4)
		// Forward, backward and forward again: each version is parsed
		// from its neighbour, from itself, and across a syntax error.
		order := append(append(slices.Clone(tc.versions), reversed(tc.versions)...), tc.versions...)
		for i, v := range order {
			got, err := ts.Parse(tc.lang, "repo\x00"+tc.path, tc.path, []byte(v))
			if err != nil {
				t.Fatalf("%s step %d: %v", tc.path, i, err)
			}
			want, err := Parse(tc.lang, tc.path, []byte(v))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Nodes(), want.Nodes()) {
				t.Fatalf("%s step %d: incremental tree differs from a fresh parse:\n%s", tc.path, i, cmp.Diff(views(want.Nodes()), views(got.Nodes())))
			}
			if g, w := strings.Join(got.NormalizedLines(nil), "\n"), strings.Join(want.NormalizedLines(nil), "\n"); g != w {
				t.Fatalf("%s step %d: normalised lines differ:\n%s", tc.path, i, cmp.Diff(w, g))
			}
		}
		ts.Close()
	}
}

// TestTreesSameText: a text parsed again shares the kept parse, which a
// caller closing its File must not empty.
func TestTreesSameText(t *testing.T) {
	ts := NewTrees(4)
	src := []byte(javaVersions[1])
	first, err := ts.Parse(LangJava, "k", "a.java", src)
	if err != nil {
		t.Fatal(err)
	}
	first.Close()
	again, err := ts.Parse(LangJava, "k", "b.java", slices.Clone(src))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Parse(LangJava, "b.java", src)
	if !slices.Equal(again.Nodes(), want.Nodes()) || again.Path != "b.java" {
		t.Fatalf("the same text parsed again: %d nodes at %s, want %d", len(again.Nodes()), again.Path, len(want.Nodes()))
	}
}

func TestTreesBoundAndErrors(t *testing.T) {
	ts := NewTrees(2)
	for i, p := range []string{"a.java", "b.java", "c.java"} {
		if _, err := ts.Parse(LangJava, p, p, []byte(javaVersions[i])); err != nil {
			t.Fatal(err)
		}
	}
	if n := ts.lru.Len(); n != 2 {
		t.Fatalf("kept %d trees, want the bound 2", n)
	}
	if _, ok := ts.byKey["a.java"]; ok {
		t.Fatal("the least recently used tree was kept")
	}
	if _, err := ts.Parse(LangJava, "b.java", "b.java", []byte("class A {\x00}")); err == nil {
		t.Fatal("NUL byte: want an error")
	}
	var nilTrees *Trees
	if f, err := nilTrees.Parse(LangJava, "k", "x.java", []byte(javaVersions[0])); err != nil || len(f.Nodes()) == 0 {
		t.Fatalf("nil Trees: %v", err)
	}
}

// TestTreesRandomHistories parses random edit histories of a Java and a
// Python file (functions inserted, deleted and swapped, statements and
// nested blocks added, literals changed, several edits far apart per
// step, now and then a syntax error, now and then a return to an earlier
// version) through one Trees and compares every tree with a fresh parse.
func TestTreesRandomHistories(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, lang := range []Lang{LangJava, LangPython} {
		path := map[Lang]string{LangJava: "A.java", LangPython: "a.py"}[lang]
		ts := NewTrees(8)
		var units []string
		for k := range 30 {
			units = append(units, unit(lang, k))
		}
		var hist []string
		nodes := 0
		for step := range 150 {
			var src string
			if len(hist) > 3 && rng.IntN(5) == 0 {
				src = hist[rng.IntN(len(hist))]
			} else {
				units = mutateUnits(rng, lang, units)
				src = wrapUnits(lang, units)
			}
			hist = append(hist, src)
			got, err := ts.Parse(lang, path, path, []byte(src))
			if err != nil {
				t.Fatalf("%s step %d: %v", path, step, err)
			}
			want, _ := Parse(lang, path, []byte(src))
			if !slices.Equal(got.Nodes(), want.Nodes()) || !slices.Equal(got.ids, want.ids) {
				t.Fatalf("%s step %d: incremental tree differs from a fresh parse of\n%s\n%s", path, step, src, cmp.Diff(views(want.Nodes()), views(got.Nodes())))
			}
			nodes += len(want.Nodes())
		}
		if n := ts.reused.Load(); n < 75 {
			t.Errorf("%s: %d of 150 steps parsed incrementally, want at least half (the test would prove little)", path, n)
		}
		// Much of an edited file is unchanged subtrees, copied from the
		// base's nodes rather than walked (42 % of all Java nodes and 18 %
		// of Python's here, fresh parses included; tree-sitter reuses
		// fewer Python subtrees, whose indentation tokens come from an
		// external scanner whose state must match).
		if c, want := ts.copied.Load(), int64(nodes)/map[Lang]int64{LangJava: 3, LangPython: 8}[lang]; c < want {
			t.Errorf("%s: %d of %d nodes copied from a base, want at least %d", path, c, nodes, want)
		}
	}
}

// unit is function k of a test file.
func unit(lang Lang, k int) string {
	if lang == LangJava {
		return fmt.Sprintf("    int m%d(int x) {\n        int y = x + %d;\n        return y;\n    }\n\n", k, k)
	}
	return fmt.Sprintf("def f%d(x):\n    y = x + %d\n    return y\n\n\n", k, k)
}

func wrapUnits(lang Lang, units []string) string {
	if lang == LangJava {
		return "package p;\n\nclass A {\n" + strings.Join(units, "") + "}\n"
	}
	return "import os\n\n\n" + strings.Join(units, "")
}

// mutateUnits applies one to three random edits to the functions.
func mutateUnits(rng *rand.Rand, lang Lang, units []string) []string {
	out := slices.Clone(units)
	stmt := map[Lang][]string{
		LangJava:   {"        x = x * 2;\n", "        if (x == 0) {\n            return -1;\n        }\n", "        foo(bar(1, 2);\n", "        String s = \"é\";\n"},
		LangPython: {"    x = x * 2\n", "    if x == 0:\n        return -1\n", "    foo(bar(1, 2)\n", "    for i in range(x):\n        if i:\n            y += i\n"},
	}[lang]
	for range 1 + rng.IntN(3) {
		i := rng.IntN(len(out))
		switch rng.IntN(5) {
		case 0:
			out = slices.Insert(out, i, unit(lang, 100+rng.IntN(900)))
		case 1:
			if len(out) > 3 {
				out = slices.Delete(out, i, i+1)
			}
		case 2:
			j := rng.IntN(len(out))
			out[i], out[j] = out[j], out[i]
		case 3:
			out[i] = strings.Replace(out[i], "+ ", "- ", 1)
		default:
			s := stmt[rng.IntN(len(stmt))]
			if strings.Contains(s, "foo(") && rng.IntN(3) != 0 {
				s = stmt[0] // syntax errors now and then, not every step
			}
			k := strings.Index(out[i], "\n") + 1
			out[i] = out[i][:k] + s + out[i][k:]
		}
	}
	return out
}

// TestMyersRegions: the regions of a line diff turn a into b.
func TestMyersRegions(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		a := make([]uint64, rng.IntN(30))
		for i := range a {
			a[i] = uint64(rng.IntN(5))
		}
		b := editUint64s(rng, a)
		rs, ok := myers(a, b, 64)
		if !ok {
			t.Fatalf("%v → %v: no script within 64", a, b)
		}
		if got := applyRegions(a, b, rs); !slices.Equal(got, b) {
			t.Fatalf("%v → %v: regions %v rebuild %v", a, b, rs, got)
		}
	}
	if _, ok := myers([]uint64{1, 2, 3}, []uint64{4, 5, 6}, 2); ok {
		t.Fatal("a script of 6 edits within a bound of 2")
	}
}

// editUint64s is a copy of a with up to five random insertions and
// deletions.
func editUint64s(rng *rand.Rand, a []uint64) []uint64 {
	b := slices.Clone(a)
	for range rng.IntN(6) {
		i := rng.IntN(len(b) + 1)
		if rng.IntN(2) == 0 || len(b) == 0 {
			b = slices.Insert(b, i, uint64(rng.IntN(5)))
		} else if i < len(b) {
			b = slices.Delete(b, i, i+1)
		}
	}
	return b
}

// applyRegions rebuilds b from a: a's lines between the regions, b's
// lines in them.
func applyRegions(a, b []uint64, rs []region) []uint64 {
	var got []uint64
	prev := 0
	for _, r := range rs {
		got = append(got, a[prev:r.a0]...)
		got = append(got, b[r.b0:r.b1]...)
		prev = r.a1
	}
	return append(got, a[prev:]...)
}

func reversed(s []string) []string {
	r := slices.Clone(s)
	slices.Reverse(r)
	return r
}

// TestUnchangedEqual: the byte check of the lines a diff leaves unchanged
// accepts a true diff and refuses one that calls a changed line equal.
func TestUnchangedEqual(t *testing.T) {
	old, new := []byte("a\nb\nc\nd\n"), []byte("a\nB\nc\nd\ne\n")
	oOff, nOff := lineOffsets(old), lineOffsets(new)
	if rs, ok := lineRegions(lineHashes(old), lineHashes(new)); !ok || !unchangedEqual(old, new, oOff, nOff, rs) {
		t.Fatalf("a true diff %v refused", rs)
	}
	// As if "b" and "B" had collided: no region for line 1.
	if unchangedEqual(old, new, oOff, nOff, []region{{4, 4, 4, 5}}) {
		t.Fatal("a changed line passed as unchanged")
	}
}

// TestTreesConcurrentEvictions: two workers parse versions of one file
// through a cache of two trees, so a base is often dropped while the
// other worker edits and parses from it; every parse must still equal a
// fresh one (a base dropped mid-parse was once edited in place, and its
// copied nodes came out wrong).
func TestTreesConcurrentEvictions(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var units []string
	for k := range 40 {
		units = append(units, unit(LangJava, k))
	}
	var hist []string
	for range 60 {
		units = mutateUnits(rng, LangJava, units)
		hist = append(hist, wrapUnits(LangJava, units))
	}
	ts := NewTrees(2)
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 5))
			for step := range 400 {
				src := []byte(hist[r.IntN(len(hist))])
				got, err := ts.Parse(LangJava, "k", "A.java", src)
				if err != nil {
					t.Error(err)
					return
				}
				if want, _ := Parse(LangJava, "A.java", src); !slices.Equal(got.Nodes(), want.Nodes()) {
					t.Errorf("worker %d step %d: incremental tree differs from a fresh parse", w, step)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestTreesFarVersions: a version too far from every kept base for an
// edit script is parsed afresh when its changes are spread over the file
// (reparsing one span over most of it costs more), and from the base when
// they are one run (one span, most of the text unchanged); both give a
// fresh parse's tree.
func TestTreesFarVersions(t *testing.T) {
	methods := func(n int, body func(i int) string) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("    int m%d() { return %s; }", i, body(i)))
		}
		return out
	}
	class := func(lines []string) []byte {
		return []byte("class Far {\n" + strings.Join(lines, "\n") + "\n}\n")
	}
	base := methods(900, strconv.Itoa)
	spread := slices.Clone(base)
	for i := 0; i < len(spread); i += 3 { // 300 changed lines: 600 edits
		spread[i] = fmt.Sprintf("    int m%d() { return %d + 1; }", i, i)
	}
	run := slices.Concat(base[:450], methods(400, func(i int) string { return "-" + strconv.Itoa(i) }), base[450:])
	for _, tc := range []struct {
		name  string
		next  []string
		reuse bool
	}{
		{"spread", spread, false},
		{"one run", run, true},
	} {
		ts := NewTrees(4)
		if _, err := ts.Parse(LangJava, "k", "Far.java", class(base)); err != nil {
			t.Fatal(err)
		}
		src := class(tc.next)
		got, err := ts.Parse(LangJava, "k", "Far.java", src)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := Parse(LangJava, "Far.java", src)
		if !slices.Equal(got.Nodes(), want.Nodes()) {
			t.Errorf("%s: the tree differs from a fresh parse", tc.name)
		}
		if reused := ts.reused.Load() > 0; reused != tc.reuse {
			t.Errorf("%s: parsed from the base = %v, want %v", tc.name, reused, tc.reuse)
		}
		ts.Close()
	}
}
