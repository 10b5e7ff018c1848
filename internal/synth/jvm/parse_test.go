package jvm

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/benchforge/benchforge/internal/errs"
)

func TestParseSignature(t *testing.T) {
	tests := []struct {
		src  string
		want Signature
	}{
		{"int len(String s) {\n return 0; }", Signature{Name: "len", Return: "int", Params: []Param{{"String", "s"}}, BodyLine: 1}},
		{"/** doc (x) */\n@Override\n@SuppressWarnings({\"a\", \"b\"})\npublic static <T extends Comparable<T>> List<T> sort(final Map<String, List<T>> m, int... xs)\n    throws IOException {\n}",
			Signature{Name: "sort", Static: true, Return: "List<T>", Params: []Param{{"Map<String,List<T>>", "m"}, {"int[]", "xs"}},
				TypeVars: map[string]string{"T": "Comparable"}, BodyLine: 5}},
		{"private void f(@Nullable String a, char b[], java.util.List<? extends Number> c) {}",
			Signature{Name: "f", Return: "void", Params: []Param{{"String", "a"}, {"char[]", "b"}, {"java.util.List<? extends Number>", "c"}}, BodyLine: 1}},
		{"synchronized int[] g() { return null; }", Signature{Name: "g", Return: "int[]", BodyLine: 1}},
	}
	for _, tt := range tests {
		got, err := ParseSignature(tt.src)
		if err != nil {
			t.Errorf("ParseSignature(%q): %v", tt.src, err)
			continue
		}
		if tt.want.TypeVars == nil {
			tt.want.TypeVars = map[string]string{}
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("ParseSignature(%q) (-want +got):\n%s", tt.src, d)
		}
	}
	for _, bad := range []string{"", "int x = 3;", "public Foo(int a) {}", "abstract void f();", "int f(int) {}", "@A( int f() {"} {
		if _, err := ParseSignature(bad); !errors.Is(err, errs.ErrInput) {
			t.Errorf("ParseSignature(%q) = %v, want ErrInput", bad, err)
		}
	}
}

func TestParseDiagnostic(t *testing.T) {
	l := "B3.java:12:16: compiler.err.cant.resolve.location.args: kindname.method, helper, , int,java.util.Map<java.lang.String,java.lang.Integer>, (compiler.misc.location: kindname.class, bfv.p3.B3, null)"
	d, ok := parseDiagnostic(l)
	if !ok {
		t.Fatal("not parsed")
	}
	want := diagnostic{File: "B3.java", Line: 12, Col: 16, Key: "compiler.err.cant.resolve.location.args",
		Args: []string{"kindname.method", "helper", "", "int,java.util.Map<java.lang.String,java.lang.Integer>", "(compiler.misc.location: kindname.class, bfv.p3.B3, null)"}}
	if diff := cmp.Diff(want, d, cmpopts.IgnoreFields(diagnostic{}, "Raw")); diff != "" {
		t.Errorf("parseDiagnostic (-want +got):\n%s", diff)
	}
	if got := splitTypeList(d.Args[3]); !cmp.Equal(got, []string{"int", "java.util.Map<java.lang.String,java.lang.Integer>"}) {
		t.Errorf("splitTypeList = %q", got)
	}
	loc, ok := parseLocation("(compiler.misc.location.1: kindname.variable, q, bfv.p1.Foo)")
	if !ok || loc != (location{Kind: "variable", Name: "q", VType: "bfv.p1.Foo"}) {
		t.Errorf("parseLocation = %+v %v", loc, ok)
	}
	if d, _ := parseDiagnostic("B1.java:3:9: compiler.err.operator.cant.be.applied.1: <, java.lang.Object, int"); !cmp.Equal(d.Args, []string{"<", "java.lang.Object", "int"}) {
		t.Errorf("operator args = %q", d.Args)
	}
	for _, junk := range []string{"1 error", "- compiler.note.unchecked.filename: A9.java", "B1.java:x:3: compiler.err.y", "B1.java:1:2: compiler.warn.z: a"} {
		if _, ok := parseDiagnostic(junk); ok {
			t.Errorf("parseDiagnostic(%q) accepted", junk)
		}
	}
}

func TestVectors(t *testing.T) {
	got := vectors([]int{2, 3}, 100)
	want := [][]int{{0, 0}, {0, 1}, {1, 0}, {0, 2}, {1, 1}, {1, 2}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("vectors (-want +got):\n%s", d)
	}
	if got := vectors([]int{5, 5, 5, 5, 5, 5, 5, 5}, 200); len(got) != 200 {
		t.Errorf("limit: %d vectors", len(got))
	}
	if got := vectors(nil, 10); len(got) != 1 || len(got[0]) != 0 {
		t.Errorf("no params: %v", got)
	}
}

func TestPatchedSite(t *testing.T) {
	buggy := "int f(String s) {\n    int a = 1;\n    int b = 2;\n    int c = 3;\n    return s.length();\n}\n"
	guard := "int f(String s) {\n    int a = 1;\n    int b = 2;\n    int c = 3;\n    if (s == null) return 0;\n    return s.length();\n}\n"
	if got, want := PatchedSite(buggy, guard), (Site{Buggy: []int{3, 4, 5, 6}, Fixed: []int{3, 4, 5, 6, 7}}); !cmp.Equal(got, want) {
		t.Errorf("inserted guard: site %+v, want %+v (the protected statement is line 5)", got, want)
	}
	changed := "int f(String s) {\n    int a = 1;\n    int b = 2;\n    int c = 3;\n    return s == null ? 0 : s.length();\n}\n"
	if got := PatchedSite(buggy, changed); !cmp.Equal(got.Buggy, []int{3, 4, 5, 6}) {
		t.Errorf("changed line: buggy site %v", got.Buggy)
	}
}

func TestRaises(t *testing.T) {
	nfe := Outcome{Kind: "threw", Exception: "java.lang.NumberFormatException", Supers: []string{"java.lang.IllegalArgumentException", "java.lang.RuntimeException"}}
	custom := Outcome{Kind: "threw", Exception: "bfv.p1.MyISE", Supers: []string{"java.lang.IllegalStateException"}}
	for _, tt := range []struct {
		o    Outcome
		t    string
		want bool
	}{
		{nfe, "NumberFormatException", true},
		{nfe, "IllegalArgumentException", false}, // its own label
		{custom, "IllegalStateException", true},
		{Outcome{Kind: "returned"}, "NullPointerException", false},
	} {
		if got := raises(tt.o, tt.t); got != tt.want {
			t.Errorf("raises(%s, %s) = %v", tt.o.Exception, tt.t, got)
		}
	}
}
