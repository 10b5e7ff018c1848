package code

import (
	"bytes"
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
		if nd.StartByte < 0 || nd.EndByte < nd.StartByte || nd.EndByte > n || nd.End <= i || nd.End > len(f.Nodes()) {
			t.Fatalf("node %d %s span [%d,%d) end %d out of bounds (len %d)", i, nd.Kind, nd.StartByte, nd.EndByte, nd.End, n)
		}
		if nd.StartLine < 1 || nd.StartCol < 1 || nd.EndLine < nd.StartLine {
			t.Fatalf("node %d %s bad position %d:%d-%d:%d", i, nd.Kind, nd.StartLine, nd.StartCol, nd.EndLine, nd.EndCol)
		}
	}
	prev := 0
	for _, tk := range f.Tokens() {
		if tk.StartByte < prev || tk.EndByte <= tk.StartByte || tk.EndByte > n || string(f.Src[tk.StartByte:tk.EndByte]) != tk.Text {
			t.Fatalf("token %q [%d,%d) out of order or bounds (prev end %d, len %d)", tk.Text, tk.StartByte, tk.EndByte, prev, n)
		}
		prev = tk.EndByte
	}
	for _, fn := range f.Functions() {
		if fn.StartByte < 0 || fn.EndByte > n || fn.StartByte > fn.EndByte ||
			fn.BodyStartByte < fn.StartByte || fn.BodyEndByte > fn.EndByte || fn.BodyStartByte > fn.BodyEndByte ||
			fn.StartLine < 1 || fn.EndLine < fn.StartLine || fn.BodyStartLine < fn.StartLine || fn.BodyEndLine > fn.EndLine {
			t.Fatalf("function %+v out of bounds (len %d)", fn, n)
		}
	}
	for _, e := range f.SyntaxErrors() {
		if e.Line < 1 || e.Col < 1 {
			t.Fatalf("syntax error %v has a bad position", e)
		}
	}
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
		for _, l := range lines {
			if l == "" {
				t.Fatalf("empty normalised line in %q", lines)
			}
		}
		// Stripping comments must not change the normalised form.
		stripped := StripComments(lang, []byte(src))
		again := Normalize(lang, stripped)
		// Removing comments can change how error recovery reads broken
		// input, so the equality is checked for well-formed programs only,
		// and modulo the "pass" that replaces a body's only docstring.
		if file, err := Parse(lang, "", []byte(src)); err == nil && len(file.SyntaxErrors()) == 0 {
			if f2, err := Parse(lang, "", stripped); err == nil && len(f2.SyntaxErrors()) == 0 && !equalLines(dropPass(lines), dropPass(again)) {
				t.Fatalf("Normalize changed after StripComments:\n%q\n%q", lines, again)
			}
		}
	})
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
