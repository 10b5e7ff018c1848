package code

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNormalizeJava(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{"if (c) x();", []string{"if ( c )", "x ( ) ;"}},
		{"if (c) { x(); } else if (d) y(); else { z(); }",
			[]string{"if ( c ) {", "x ( ) ;", "} else if ( d )", "y ( ) ;", "else {", "z ( ) ;", "}"}},
		{"for (int i = 0; i < n; i++) s += a[i];", []string{"for ( int i = 0 ; i < n ; i ++ )", "s += a [ i ] ;"}},
		{"try { f(); } catch (E e) { g(); } finally { h(); }",
			[]string{"try {", "f ( ) ;", "} catch ( E e ) {", "g ( ) ;", "} finally {", "h ( ) ;", "}"}},
		{"switch (k) { case 1: case 2: a(); break; default: b(); }",
			[]string{"switch ( k ) {", "case 1 :", "case 2 :", "a ( ) ;", "break ;", "default :", "b ( ) ;", "}"}},
		{"do { i--; } while (i > 0);", []string{"do {", "i -- ;", "} while ( i > 0 ) ;"}},
		{"list.forEach(x -> { use(x); });", []string{"list . forEach ( x -> {", "use ( x ) ;", "} ) ;"}},
	}
	for _, tt := range tests {
		// Statements parse at the top level of a Java program.
		got := Normalize(LangJava, []byte(tt.src))
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("Normalize(%q) (-want +got):\n%s", tt.src, d)
		}
	}
}

func TestNormalizePython(t *testing.T) {
	tests := []struct {
		src  string
		want []string
	}{
		{"x = 1; y = 2\n", []string{"x = 1", "y = 2"}},
		{"if a: return b\nelif c: pass\nelse:\n    d()\n", []string{"if a :", "    return b", "elif c :", "    pass", "else :", "    d ( )"}},
		{"def f():\n    '''doc'''\n    return 1\n", []string{"def f ( ) :", "    return 1"}},
		{"@d\ndef f(): pass\n", []string{"@ d", "def f ( ) :", "    pass"}},
		{"try:\n    a()\nexcept E as e:\n    raise\n", []string{"try :", "    a ( )", "except E as e :", "    raise"}},
	}
	for _, tt := range tests {
		got := Normalize(LangPython, []byte(tt.src))
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("Normalize(%q) (-want +got):\n%s", tt.src, d)
		}
	}
}

// TestNormalizeMustMatch lists formatting and comment variants that must
// normalise to the same lines.
func TestNormalizeMustMatch(t *testing.T) {
	tests := []struct {
		lang Lang
		a, b string
	}{
		{LangJava, "int f(int a){return a+1;}", "int f( int a )\n{\n    // add one\n    return a + 1;   /* done */\n}\n"},
		{LangJava, "if (x) {\n  y();\n}\nelse\n{\n  z();\n}", "if(x){y();}else{z();}"},
		{LangJava, "/** Doc. */\n@Override\npublic void run() { }", "@Override public void run() {}"},
		{LangJava, "String s = \"a  b\" ; // trailing", "String  s=\"a  b\";"},
		{LangJava, "foo(a,\n    b,\n    c);", "foo(a, b, c);"},
		{LangJava, "if (a) b(); else c();", "if (a)\n  b();\nelse\n  c();"},
		{LangPython, "def f(a, b):\n    return a + b\n", "def f( a , b ):  # add\n  return a+b\n"},
		{LangPython, "x = [1,\n     2]\n", "x = [1, 2]  # list\n"},
		{LangPython, "def f():\n    \"\"\"Docstring.\"\"\"\n    pass\n", "def f():\n    pass\n"},
		{LangPython, "a = 1; b = 2\n", "a = 1\nb = 2\n"},
		{LangPython, "if x: y()\n", "if x:\n    y()\n"},
		{LangPython, "s = 'a' \\\n    'b'\n", "s = 'a' 'b'\n"},
	}
	for _, tt := range tests {
		a, b := Normalize(tt.lang, []byte(tt.a)), Normalize(tt.lang, []byte(tt.b))
		if len(a) == 0 {
			t.Errorf("Normalize(%q) is empty", tt.a)
		}
		if d := cmp.Diff(a, b); d != "" {
			t.Errorf("Normalize must match for\n%q\n%q\n(-a +b):\n%s", tt.a, tt.b, d)
		}
	}
}

// TestNormalizeMustNotMatch lists real changes that must survive
// normalisation.
func TestNormalizeMustNotMatch(t *testing.T) {
	tests := []struct {
		lang Lang
		a, b string
	}{
		{LangJava, "if (x == null) return;", "if (x != null) return;"},
		{LangJava, "String s = \"a b\";", "String s = \"a  b\";"},
		{LangJava, "return a - 1;", "return a + 1;"},
		{LangJava, "if (a) { b(); c(); }", "if (a) { b(); } c();"},
		{LangJava, "x = a[i];", "x = a[j];"},
		{LangPython, "if a:\n    b()\n    c()\n", "if a:\n    b()\nc()\n"},
		{LangPython, "return x is None\n", "return x is not None\n"},
		{LangPython, "s = '''doc'''\n", "s = 'doc'\n"},
		{LangPython, "x = 1\n# not a docstring\n'kept'\n", "x = 1\n"},
	}
	for _, tt := range tests {
		a, b := Normalize(tt.lang, []byte(tt.a)), Normalize(tt.lang, []byte(tt.b))
		if slices.Equal(a, b) {
			t.Errorf("Normalize must differ for\n%q\n%q\nboth give %q", tt.a, tt.b, a)
		}
	}
}

func TestRenameBlind(t *testing.T) {
	tests := []struct {
		lang     Lang
		a, b     string
		same     bool
		wantLine string
	}{
		{LangJava, "int f(int a) { return a + 1; }", "int g(int b) { return b + 2; }", true, "int ID ( int ID ) {"},
		{LangJava, "if (x == null) y.z();", "if (p == null) q.r();", true, "if ( ID == null )"},
		{LangJava, "if (x == null) y.z();", "if (x == 0) y.z();", false, ""},
		{LangJava, "long f() { return 1; }", "int f() { return 1; }", false, ""},
		{LangPython, "def f(a):\n    return len(a) + 1\n", "def g(b):\n    return len(b) + 7\n", true, "def ID ( ID ) :"},
		{LangPython, "return x is None\n", "return y is None\n", true, "return ID is None"},
		{LangPython, "return len(x)\n", "return max(x)\n", false, ""},
	}
	for _, tt := range tests {
		a, b := RenameBlind(tt.lang, []byte(tt.a)), RenameBlind(tt.lang, []byte(tt.b))
		if slices.Equal(a, b) != tt.same {
			t.Errorf("RenameBlind equal(%q, %q) = %v, want %v\n%q\n%q", tt.a, tt.b, !tt.same, tt.same, a, b)
		}
		if tt.wantLine != "" && (len(a) == 0 || a[0] != tt.wantLine) {
			t.Errorf("RenameBlind(%q)[0] = %q, want %q", tt.a, a, tt.wantLine)
		}
	}
}

func TestStripComments(t *testing.T) {
	tests := []struct {
		lang      Lang
		src, want string
	}{
		{LangJava, "int a; // c\nint b; /* x\n y */ int c;\n", "int a;\nint b;\n int c;\n"},
		{LangJava, "a/**/b", "a b"},
		{LangJava, "String s = \"// not a comment\";\n", "String s = \"// not a comment\";\n"},
		{LangPython, "def f():\n    \"\"\"Doc\n    more.\"\"\"\n    return 1  # one\n", "def f():\n\n\n    return 1\n"},
		{LangPython, "def f():\n    '''only'''\n", "def f():\n    pass\n"},
		{LangPython, "s = '# no'\n", "s = '# no'\n"},
	}
	for _, tt := range tests {
		got := string(StripComments(tt.lang, []byte(tt.src)))
		if got != tt.want {
			t.Errorf("StripComments(%q) = %q, want %q", tt.src, got, tt.want)
		}
		if strings.Count(got, "\n") != strings.Count(tt.src, "\n") {
			t.Errorf("StripComments(%q) changed the line count", tt.src)
		}
	}
}
