package code

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/golden"
)

func TestDetectLang(t *testing.T) {
	tests := []struct {
		path string
		want Lang
		err  error
	}{
		{"a/B.java", LangJava, nil},
		{"X.JAVA", LangJava, nil},
		{"m.py", LangPython, nil},
		{"stub.pyi", LangPython, nil},
		{"main.go", "", errs.ErrUnsupported},
		{"Makefile", "", errs.ErrUnsupported},
	}
	for _, tt := range tests {
		got, err := DetectLang(tt.path)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("DetectLang(%q) = %q, %v; want %q, %v", tt.path, got, err, tt.want, tt.err)
		}
		if err != nil && !strings.Contains(err.Error(), tt.path) {
			t.Errorf("DetectLang(%q) error %q does not name the file", tt.path, err)
		}
	}
}

func TestParseRejects(t *testing.T) {
	tests := []struct {
		name string
		lang Lang
		src  []byte
		err  error
		msg  string
	}{
		{"latin1", LangJava, []byte("class A { String s = \"caf\xe9\"; }"), errs.ErrInput, "not UTF-8 text; skipped"},
		{"nul", LangPython, []byte("x = 1\x00\x01"), errs.ErrInput, "NUL byte at offset 5"},
		{"lang", Lang("cobol"), []byte("x"), errs.ErrUnsupported, "cobol"},
	}
	for _, tt := range tests {
		f, err := Parse(tt.lang, "in/"+tt.name, tt.src)
		if f != nil || !errors.Is(err, tt.err) {
			t.Fatalf("%s: Parse = %v, %v; want nil, %v", tt.name, f, err, tt.err)
		}
		if !strings.Contains(err.Error(), "in/"+tt.name) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%s: error %q should name the path and say %q", tt.name, err, tt.msg)
		}
	}
	if _, err := ParseJavaMethod([]byte{0xff, 0xfe}); !errors.Is(err, errs.ErrInput) {
		t.Errorf("ParseJavaMethod(non-UTF-8) err = %v, want ErrInput", err)
	}
}

func TestFunctionsJava(t *testing.T) {
	src := `package p;
public class Outer<T> {
  @Override
  public static int f(int x, final String... rest) throws java.io.IOException { return x; }
  Outer(int[] a, java.util.List<String> b[]) { super(); }
  abstract void g();
  class Inner {
    void h() {
      Runnable r = new Runnable() { public void run() {} };
      Runnable l = () -> { };
      class Local { void k() {} }
    }
  }
  enum E { A { void e() {} }; void e() {} }
  record R(int x) { R { } }
}
`
	f, err := Parse(LangJava, "Outer.java", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Name, Class, Kind, Signature string
		Params                       []Param
		StartLine, EndLine           int
		HasBody                      bool
	}
	var got []row
	for _, fn := range f.Functions() {
		got = append(got, row{fn.Name, fn.Class, fn.Kind, fn.Signature, fn.Params, fn.StartLine, fn.EndLine, fn.HasBody()})
		if fn.HasBody() && (fn.BodyStartByte < fn.StartByte || fn.BodyEndByte > fn.EndByte || src[fn.BodyStartByte] != '{' || src[fn.BodyEndByte-1] != '}') {
			t.Errorf("%s: body span [%d,%d) is not a brace block inside [%d,%d)", fn.Name, fn.BodyStartByte, fn.BodyEndByte, fn.StartByte, fn.EndByte)
		}
	}
	want := []row{
		{"f", "Outer", "method", "public static int f(int x, final String... rest) throws java.io.IOException",
			[]Param{{"x", "int"}, {"rest", "String..."}}, 3, 4, true},
		{"Outer", "Outer", "constructor", "Outer(int[] a, java.util.List<String> b[])",
			[]Param{{"a", "int[]"}, {"b", "java.util.List<String>[]"}}, 5, 5, true},
		{"g", "Outer", "method", "abstract void g()", []Param{}, 6, 6, false},
		{"h", "Outer.Inner", "method", "void h()", []Param{}, 8, 12, true},
		{"run", "Outer.Inner.<anonymous>", "method", "public void run()", []Param{}, 9, 9, true},
		{"k", "Outer.Inner.Local", "method", "void k()", []Param{}, 11, 11, true},
		{"e", "Outer.E.<A>", "method", "void e()", []Param{}, 14, 14, true},
		{"e", "Outer.E", "method", "void e()", []Param{}, 14, 14, true},
		{"R", "Outer.R", "constructor", "R", []Param{}, 15, 15, true},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Functions mismatch (-want +got):\n%s", d)
	}
}

func TestFunctionsPython(t *testing.T) {
	src := `import functools

def top(a, b: int = 2, *args, c, **kw) -> int:
    def inner(x, /, y, *, z):
        return x
    return a

class C(Base):
    @functools.cache
    @staticmethod
    async def m(self, v: "C") -> None:
        pass

    class D:
        def n(self): return lambda q: q
`
	f, err := Parse(LangPython, "c.py", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Name, Class, Kind, Signature string
		Params                       []Param
		StartLine, EndLine           int
		BodyStartLine                int
	}
	var got []row
	for _, fn := range f.Functions() {
		got = append(got, row{fn.Name, fn.Class, fn.Kind, fn.Signature, fn.Params, fn.StartLine, fn.EndLine, fn.BodyStartLine})
	}
	want := []row{
		{"top", "", "function", "def top(a, b: int = 2, *args, c, **kw) -> int",
			[]Param{{"a", ""}, {"b", "int"}, {"*args", ""}, {"c", ""}, {"**kw", ""}}, 3, 6, 4},
		{"inner", "", "function", "def inner(x, /, y, *, z)",
			[]Param{{"x", ""}, {"y", ""}, {"z", ""}}, 4, 5, 5},
		{"m", "C", "method", `async def m(self, v: "C") -> None`,
			[]Param{{"self", ""}, {"v", `"C"`}}, 9, 12, 12},
		{"n", "C.D", "method", "def n(self)", []Param{{"self", ""}}, 15, 15, 15},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Functions mismatch (-want +got):\n%s", d)
	}
}

func TestParseJavaMethodSpans(t *testing.T) {
	src := "// lead comment\nint f(int a) {\n  return a +;\n}"
	f, err := ParseJavaMethod([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	fns := f.Functions()
	if len(fns) != 1 {
		t.Fatalf("got %d functions, want 1", len(fns))
	}
	fn := fns[0]
	if !slices.Equal([]any{fn.Class, fn.StartLine, fn.EndLine, src[fn.StartByte:fn.EndByte]}, []any{"", 2, 4, src[16:]}) {
		t.Errorf("function = %+v; want class \"\", lines 2-4, span from byte 16 to the end", fn)
	}
	wantToks := "// lead comment|int|f|(|int|a|)|{|return|a|+|;|}"
	if got := strings.Join(tokenTexts(t, src, f.Tokens()), "|"); got != wantToks {
		t.Errorf("tokens = %s; want %s (no wrapper tokens)", got, wantToks)
	}
	se := f.SyntaxErrors()
	if len(se) != 1 || !slices.Equal([]any{se[0].Line, se[0].Col, se[0].Error()}, []any{3, 13, `<method>:3:13: missing "identifier"`}) {
		t.Errorf("SyntaxErrors = %v; want one missing identifier at 3:13", se)
	}
}

// tokenTexts checks that every token's span in src holds its text, and
// returns the texts.
func tokenTexts(t *testing.T, src string, toks []Token) []string {
	t.Helper()
	var texts []string
	for _, tk := range toks {
		if src[tk.StartByte:tk.EndByte] != tk.Text {
			t.Errorf("token %q span [%d,%d) holds %q", tk.Text, tk.StartByte, tk.EndByte, src[tk.StartByte:tk.EndByte])
		}
		texts = append(texts, tk.Text)
	}
	return texts
}

func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		lang Lang
		src  string
		want []string
	}{
		{LangJava, "class A { void f() { int x = 1 } }", []string{`A:1:31: missing ";"` /* after "1": col 31 */}},
		{LangJava, "class A { void f() { } }", nil},
		{LangPython, "def f(:\n    pass\n", []string{`A:1:7: missing ")"`}},
		{LangPython, "x = (1,\n", []string{`A:1:1: syntax error at "x = (1,"`}},
	}
	for _, tt := range tests {
		f, err := Parse(tt.lang, "A", []byte(tt.src))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range f.SyntaxErrors() {
			got = append(got, e.Error())
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("SyntaxErrors(%q) (-want +got):\n%s", tt.src, d)
		}
	}
}

func TestTokenKinds(t *testing.T) {
	tests := []struct {
		lang Lang
		src  string
		want string
	}{
		{LangJava, `if (x != null) y = "a b" + 'c'; // t`,
			`Keyword:if Separator:( Identifier:x Operator:!= Literal:null Separator:) Identifier:y Operator:= Literal:"a b" Operator:+ Literal:'c' Separator:; Comment:// t`},
		{LangJava, `int[] a = new int[0x1F]; this.b = a.length; String s = """
  hi""";`,
			"Keyword:int Separator:[ Separator:] Identifier:a Operator:= Keyword:new Keyword:int Separator:[ Literal:0x1F Separator:] Separator:; Keyword:this Separator:. Identifier:b Operator:= Identifier:a Separator:. Identifier:length Separator:; Identifier:String Identifier:s Operator:= Literal:\"\"\"\n  hi\"\"\" Separator:;"},
		{LangPython, `x = f"{a!r}" if y is not None else b'z'  # c`,
			`Identifier:x Operator:= Literal:f"{a!r}" Keyword:if Identifier:y Keyword:is Keyword:not Literal:None Keyword:else Literal:b'z' Comment:# c`},
	}
	for _, tt := range tests {
		var got []string
		for _, tk := range Lex(tt.lang, []byte(tt.src)) {
			got = append(got, tk.Kind.String()+":"+tk.Text)
		}
		if d := cmp.Diff(tt.want, strings.Join(got, " ")); d != "" {
			t.Errorf("Lex(%q) (-want +got):\n%s", tt.src, d)
		}
	}
}

// TestNormalizeGolden pins Normalize and RenameBlind of the demo files.
func TestNormalizeGolden(t *testing.T) {
	java, _ := filepath.Glob("../../testdata/demo/*.java")
	py, _ := filepath.Glob("../../testdata/demo/*.py")
	files := append(java, py...)
	if len(files) == 0 {
		t.Fatal("no demo files under testdata/demo")
	}
	for _, p := range files {
		lang, err := DetectLang(p)
		if err != nil {
			t.Fatal(err)
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		b.WriteString("== Normalize\n")
		for _, l := range Normalize(lang, src) {
			b.WriteString(l + "\n")
		}
		b.WriteString("== RenameBlind\n")
		for _, l := range RenameBlind(lang, src) {
			b.WriteString(l + "\n")
		}
		b.WriteString("== StripComments\n")
		b.Write(StripComments(lang, src))
		golden.CheckString(t, filepath.Join("testdata", filepath.Base(p)+".golden"), b.String())
	}
}

func TestParseConcurrent(t *testing.T) {
	src := []byte("class A { int f(int x) { return x + 1; } void g() {} }")
	done := make(chan []Function)
	for range 8 {
		go func() {
			var last []Function
			for range 20 {
				f, err := Parse(LangJava, "A.java", src)
				if err != nil {
					t.Error(err)
					break
				}
				last = f.Functions()
			}
			done <- last
		}()
	}
	for range 8 {
		if fns := <-done; len(fns) != 2 || fns[0].Name != "f" || fns[1].Name != "g" {
			t.Errorf("concurrent parse gave %+v", fns)
		}
	}
}

// TestAsUTF8: UTF-8 text is returned as it is; other bytes are read as
// ISO-8859-1, so the result parses and keeps every character.
func TestAsUTF8(t *testing.T) {
	utf := []byte("// J\u00f6rg\nclass A {}\n")
	if got := AsUTF8(utf); &got[0] != &utf[0] {
		t.Errorf("valid UTF-8 was copied")
	}
	if got := string(AsUTF8([]byte("// J\xf6rg \xa9\nclass A {}\n"))); got != "// J\u00f6rg \u00a9\nclass A {}\n" {
		t.Errorf("AsUTF8 = %q", got)
	}
}

// TestSameKind: SameKind agrees with comparing Kind() names for every
// pair of node kinds of a Java and a Python file, across the two too.
func TestSameKind(t *testing.T) {
	j, err := Parse(LangJava, "A.java", []byte("class A { int f(int x) { if (x > 0) { return x; } else { return -x; } } }"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(LangPython, "a.py", []byte("def f(x):\n    if x > 0:\n        return x\n    return -x\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range grammarList { // every id pair, ERROR's too
		for a := range len(g.kinds) + 1 {
			for b := range len(g.kinds) + 1 {
				ia, ib := uint16(a), uint16(b)
				if a == len(g.kinds) {
					ia = errorKind
				}
				if b == len(g.kinds) {
					ib = errorKind
				}
				if got, want := g.canonKind(ia) == g.canonKind(ib), g.kind(ia) == g.kind(ib); got != want {
					t.Fatalf("ids %d (%s) and %d (%s): same canonical id %v, want %v", ia, g.kind(ia), ib, g.kind(ib), got, want)
				}
			}
		}
	}
	nodes := append(slices.Clone(j.Nodes()), p.Nodes()...)
	for _, a := range nodes {
		for _, b := range nodes {
			if got, want := a.SameKind(b), a.Kind() == b.Kind(); got != want {
				t.Fatalf("SameKind(%s, %s) = %v, want %v", a.Kind(), b.Kind(), got, want)
			}
		}
	}
}
