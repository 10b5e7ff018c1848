package patchcheck

import (
	"bytes"
	"testing"

	"github.com/benchforge/benchforge/internal/code"
)

func TestIsSource(t *testing.T) {
	for p, want := range map[string]bool{
		"src/main/java/p/A.java": true, "src/test/java/p/ATest.java": false, "src/main/java/p/ATest.java": false,
		"pkg/mod.py": true, "tests/test_mod.py": false, "pkg/test_mod.py": false, "conftest.py": false,
		"README.md": false, "pom.xml": false, "setup.cfg": false, "lib/x.go": true, "lib/x_test.go": false,
		"src/main/java/p/TestUtils.java": false, "src/main/java/p/Testament.java": true,
	} {
		if got := IsSource(p); got != want {
			t.Errorf("IsSource(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestGumtreeAlignsEditedStatement: the matcher maps an edited statement's
// tokens to its counterpart after statements were inserted before it.
func TestGumtreeAlignsEditedStatement(t *testing.T) {
	a := []byte("class A { int f(int x) { int y = x + 1; if (y > 10) { return y; } return 0; } }")
	b := []byte("class A { int f(int x) { log(x); int y = x + 1; check(y); if (y >= 10) { return y; } return 0; } }")
	fa, _ := code.Parse(code.LangJava, "a", a)
	fb, _ := code.Parse(code.LangJava, "b", b)
	va, vb := &version{file: fa, src: a}, &version{file: fb, src: b}
	va.lines, vb.lines = normLines(fa), normLines(fb)
	va.funcs, vb.funcs = fa.Functions(), fb.Functions()
	m := gumtree(fa, va.funcs[0].Node, fb, vb.funcs[0].Node, 1)
	want := map[string]string{"if ( y > 10 ) {": "if ( y >= 10 ) {", "int y = x + 1 ;": "int y = x + 1 ;", "return 0 ;": "return 0 ;"}
	var lines []int
	for i := range va.lines {
		lines = append(lines, i)
	}
	al := alignLines(va, lines, m, leafLines(vb))
	for i, l := range va.lines {
		if w, ok := want[l.text]; ok {
			j, ok := al[i]
			if !ok || vb.lines[j].text != w {
				t.Errorf("%q aligned to %v, want %q", l.text, al[i], w)
			}
		}
	}
}

func TestParseLabels(t *testing.T) {
	got, err := parseLabels("l", bytes.NewBufferString("{\"sample_id\":\"a\",\"label\":true}\n{\"id\":\"b\",\"present\":0}\n"))
	if err != nil || len(got) != 2 || !got["a"] || got["b"] {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := parseLabels("l", bytes.NewBufferString("a,1\nb,maybe\n")); err == nil {
		t.Fatal("accepted label maybe")
	}
}

func FuzzParseLabels(f *testing.F) {
	f.Add("id,label\na,1\nb,false\n")
	f.Add("{\"sample_id\":\"a\",\"label\":true}\n")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := parseLabels("fuzz", bytes.NewBufferString(s))
		if err == nil && m == nil {
			t.Fatal("nil map without error")
		}
	})
}
