package code

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkFile verifies the invariants every parse must keep: spans within
// the source, tokens in order and equal to their span, functions and their
// bodies nested within bounds, positions 1-based.
func checkFile(t *testing.T, f *File) {
	t.Helper()
	n := len(f.Src)
	for i, nd := range f.Nodes() {
		checkNodeBounds(t, i, nd, n, len(f.Nodes()))
	}
	prev := 0
	for _, tk := range f.Tokens() {
		if !tokenInBounds(f.Src, tk, prev) {
			t.Fatalf("token %q [%d,%d) out of order or bounds (prev end %d, len %d)", tk.Text, tk.StartByte, tk.EndByte, prev, n)
		}
		prev = tk.EndByte
	}
	for _, fn := range f.Functions() {
		if !functionInBounds(fn, n) {
			t.Fatalf("function %+v out of bounds (len %d)", fn, n)
		}
	}
	for _, e := range f.SyntaxErrors() {
		if e.Line < 1 || e.Col < 1 {
			t.Fatalf("syntax error %v has a bad position", e)
		}
	}
}

// ordered reports whether xs is non-decreasing.
func ordered(xs ...int) bool {
	for i := 1; i < len(xs); i++ {
		if xs[i] < xs[i-1] {
			return false
		}
	}
	return true
}

// checkNodeBounds: node i spans bytes within [0, n], ends after itself
// and within the nnodes nodes, and has 1-based positions in order.
func checkNodeBounds(t *testing.T, i int, nd Node, n, nnodes int) {
	t.Helper()
	if !ordered(0, nd.StartByte(), nd.EndByte(), n) || !ordered(i+1, nd.End(), nnodes) {
		t.Fatalf("node %d %s span [%d,%d) end %d out of bounds (len %d)", i, nd.Kind(), nd.StartByte(), nd.EndByte(), nd.End(), n)
	}
	if !ordered(1, nd.StartLine(), nd.EndLine()) || nd.StartCol() < 1 {
		t.Fatalf("node %d %s bad position %d:%d-%d:%d", i, nd.Kind(), nd.StartLine(), nd.StartCol(), nd.EndLine(), nd.EndCol())
	}
}

// tokenInBounds: tk starts at or after prev, is non-empty, ends within
// src and holds its text.
func tokenInBounds(src []byte, tk Token, prev int) bool {
	return ordered(prev, tk.StartByte) && tk.EndByte > tk.StartByte && tk.EndByte <= len(src) &&
		string(src[tk.StartByte:tk.EndByte]) == tk.Text
}

// functionInBounds: the body lies within the declaration, which lies
// within the n bytes of source, and the lines agree.
func functionInBounds(fn Function, n int) bool {
	return ordered(0, fn.StartByte, fn.BodyStartByte, fn.BodyEndByte, fn.EndByte, n) &&
		ordered(1, fn.StartLine, fn.EndLine) && ordered(fn.StartLine, fn.BodyStartLine) && ordered(fn.BodyEndLine, fn.EndLine)
}

func fuzzParse(f *testing.F, lang Lang, seeds []string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := Parse(lang, "fuzz", src)
		if err != nil {
			if utf8.Valid(src) && !containsNUL(src) {
				t.Fatalf("Parse rejected valid text: %v", err)
			}
			return
		}
		checkFile(t, file)
		file.Close()
	})
}

func containsNUL(b []byte) bool { return bytes.IndexByte(b, 0) >= 0 }

func FuzzParseJava(f *testing.F) {
	fuzzParse(f, LangJava, []string{
		"class A { int f(int x) { return x; } }",
		"class A { void f() { if (a) { b(); } else c(); } A() {} }",
		"enum E { A { void f() {} } } record R(int x) { R {} }",
		"class A { String s = \"\"\"\n x\"\"\"; /* c */ // d\n",
		"@interface X { int v() default 1; } class { void (",
	})
}

func FuzzParsePython(f *testing.F) {
	fuzzParse(f, LangPython, []string{
		"def f(a, b=1, *c, **d):\n    '''doc'''\n    return a\n",
		"class C:\n    @d\n    async def m(self): pass\n",
		"x = f'{a!r:>{w}}' % 3; y = (1,\n",
		"match x:\n    case [a, *_]: pass\n    case _: pass\n",
		"def f(:\n\tif x:\n  y\n",
	})
}

func FuzzParseJavaMethod(f *testing.F) {
	for _, s := range []string{
		"int f(int a) { return a; }",
		"// c\npublic static <T> T g(T... xs) throws E { return xs[0]; }",
		"void f() { }}} class X {",
		"/* unterminated",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := ParseJavaMethod(src)
		if err != nil {
			return
		}
		checkFile(t, file)
		for _, tk := range file.Tokens() {
			if tk.Text == "__BenchforgeMethod__" && !bytes.Contains(src, []byte("__BenchforgeMethod__")) {
				t.Fatalf("wrapper token leaked: %+v", tk)
			}
		}
	})
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"if (c) x(); else { y(); }",
		"def f():\n    'doc'\n    return 1  # c\n",
		"class A { /* c */ void f() { for (;;) {} } }",
	} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, src string, java bool) {
		lang := LangPython
		if java {
			lang = LangJava
		}
		lines := Normalize(lang, []byte(src))
		blind := RenameBlind(lang, []byte(src))
		if len(lines) != len(blind) {
			t.Fatalf("Normalize has %d lines, RenameBlind %d", len(lines), len(blind))
		}
		if slices.Contains(lines, "") {
			t.Fatalf("empty normalised line in %q", lines)
		}
		// Stripping comments must not change the normalised form.
		stripped := StripComments(lang, []byte(src))
		again := Normalize(lang, stripped)
		// Removing comments can change how error recovery reads broken
		// input, so the equality is checked for well-formed programs only,
		// and modulo the "pass" that replaces a body's only docstring.
		if parsesClean(lang, []byte(src)) && parsesClean(lang, stripped) && !equalLines(dropPass(lines), dropPass(again)) {
			t.Fatalf("Normalize changed after StripComments:\n%q\n%q", lines, again)
		}
	})
}

// parsesClean reports whether src parses without syntax errors.
func parsesClean(lang Lang, src []byte) bool {
	file, err := Parse(lang, "", src)
	return err == nil && len(file.SyntaxErrors()) == 0
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func dropPass(lines []string) []string {
	var out []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "pass" {
			out = append(out, l)
		}
	}
	return out
}

// FuzzParseJavaMethodPair checks that the incremental second parse gives
// exactly the tree a fresh ParseJavaMethod gives.
func FuzzParseJavaMethodPair(f *testing.F) {
	for _, p := range pairCases {
		f.Add([]byte(p[0]), []byte(p[1]))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		samePairParse(t, a, b)
	})
}
