package code

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// pairCases are buggy/fixed method texts: the small edits of real fixes,
// edits at either end, identical texts, and syntax errors on either side.
var pairCases = [][2]string{
	{"int len(String s) {\n  return s.length();\n}", "int len(String s) {\n  if (s == null) return 0;\n  return s.length();\n}"},
	{"int at(int[] a, int i) { return a[i]; }", "int at(int[] a, int i) { return i < a.length ? a[i] : -1; }"},
	{"boolean ok(int i, int n) { return i <= n; }", "boolean ok(int i, int n) { return i < n; }"},
	{"int p(String s) {\n  try { return Integer.parseInt(s); }\n  catch (NumberFormatException e) { return 0; }\n}", "int p(String s) {\n  return Integer.parseInt(s);\n}"},
	{"void f() { a(); b(); }", "void f() { a(); b(); }"},
	{"void f() { a(); }", "public void f() { a(); }"},
	{"void f() { a(); }", "void f() { a(); } // done"},
	{"void f() { String s = \"é\"; }", "void f() { String s = \"ü\"; }"},
	{"void f() { a(); }", "void f() { a( }"},
	{"void f() { a( }", "void f() { a(); }"},
	{"void f() { a(); }", ""},
	{"", "void f() { a(); }"},
}

func samePairParse(t *testing.T, a, b []byte) {
	t.Helper()
	fa, fb, err := ParseJavaMethodPair(a, b)
	wa, errA := ParseJavaMethod(a)
	wb, errB := ParseJavaMethod(b)
	if (err != nil) != (errA != nil || errB != nil) {
		t.Fatalf("ParseJavaMethodPair error %v; ParseJavaMethod errors %v, %v", err, errA, errB)
	}
	if err != nil {
		return
	}
	for k, pair := range [][2]*File{{fa, wa}, {fb, wb}} {
		if !slices.Equal(pair[0].Nodes(), pair[1].Nodes()) {
			t.Fatalf("side %d: incremental tree differs from a fresh parse:\n%s", k, cmp.Diff(views(pair[1].Nodes()), views(pair[0].Nodes())))
		}
		if pair[0].wrapClass != pair[1].wrapClass {
			t.Fatalf("side %d: wrapper class %d, fresh %d", k, pair[0].wrapClass, pair[1].wrapClass)
		}
	}
}

func TestParseJavaMethodPairMatchesFresh(t *testing.T) {
	for _, p := range pairCases {
		samePairParse(t, []byte(p[0]), []byte(p[1]))
	}
}

func TestParseJavaMethodPairRejects(t *testing.T) {
	if _, _, err := ParseJavaMethodPair([]byte("void f() {}"), []byte("void f() {\x00}")); err == nil {
		t.Fatal("NUL byte in the second method: want an error")
	}
}
