package jvm

import (
	"slices"
	"strings"
	"testing"
)

// TestWithLiterals: a String parameter gets the buggy method's literals
// (and each with "1" after it) after its boundary values; other types and
// arrays do not.
func TestWithLiterals(t *testing.T) {
	method := `int f(String s) { if (s.startsWith("0x")) return Integer.parseInt(s.substring(2), 16); return s.indexOf("a\"b"); }`
	got := withLiterals([]string{`"abc"`, "null"}, "String", method)
	want := []string{`"abc"`, "null", `"0x"`, `"0x1"`, `"a\"b"`, `"a\"b1"`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("String: got %q, want %q", got, want)
	}
	for _, typ := range []string{"int", "String[]", "Object"} {
		if got := withLiterals([]string{"1"}, typ, method); len(got) != 1 {
			t.Errorf("%s: literals added: %q", typ, got)
		}
	}
}

// TestConcreteJDK: JDK types without a public no-argument constructor get
// a concrete JDK value first (a receiver constructor takes it), never an
// instantiation of the abstract type itself.
func TestConcreteJDK(t *testing.T) {
	must := map[string]string{"Reader": "new java.io.StringReader(", "InputStream": "new java.io.ByteArrayInputStream(",
		"Writer": "new java.io.StringWriter()", "File": "new java.io.File(\"", "java.io.OutputStream": "new java.io.ByteArrayOutputStream()",
		"ParsePosition": "new java.text.ParsePosition(0)"}
	for typ, prefix := range must {
		c := candidates(typ, nil)
		if !strings.HasPrefix(c[0], prefix) {
			t.Errorf("%s: first candidate %q, want %s…", typ, c[0], prefix)
		}
		if slices.Index(c, "new "+typ+"()") < len(concreteJDK[simple(typ)]) {
			t.Errorf("%s: the abstract type's own constructor comes before the concrete values: %q", typ, c)
		}
	}
	// Must not apply: a type the table does not name keeps its default
	// instance first.
	for _, typ := range []string{"Node", "StringReader", "ReaderFactory"} {
		if c := candidates(typ, nil); c[0] != "new "+typ+"()" {
			t.Errorf("%s: first candidate %q, want new %s()", typ, c[0], typ)
		}
	}
}
