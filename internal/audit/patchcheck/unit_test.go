package patchcheck

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/code"
)

func TestIsSource(t *testing.T) {
	for p, want := range map[string]bool{
		"src/main/java/p/A.java": true, "src/test/java/p/ATest.java": false, "src/main/java/p/ATest.java": true,
		"lib/p/ATest.java": false, "math-legacy/src/main/java/p/MannWhitneyUTest.java": true, "m/src/test/java/p/A.java": false,
		"pkg/mod.py": true, "tests/test_mod.py": false, "pkg/test_mod.py": false, "conftest.py": false,
		"README.md": false, "pom.xml": false, "setup.cfg": false, "lib/x.go": true, "lib/x_test.go": false,
		"src/main/java/p/TestUtils.java": true, "lib/p/TestUtils.java": false, "src/main/java/p/Testament.java": true,
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

// TestEvaluateSetConfidenceAndLanguage: labels of a confidence left out
// are not scored; each language gets its own figures; a label's cutoff
// picks the verdict at that cutoff.
func TestEvaluateSetConfidenceAndLanguage(t *testing.T) {
	const c1, c2 = "2021-01-01T00:00:00Z", "2023-09-01T00:00:00Z"
	v := func(id, cut string, score float64) Verdict {
		return Verdict{SampleID: id, Cutoff: cut, Score: score, Threshold: 0.7, Present: score >= 0.7, Verdict: map[bool]string{true: Present, false: Absent}[score >= 0.7]}
	}
	vs := []Verdict{v("j1", c1, 0.1), v("j1", c2, 1), v("j2", c2, 0.2), v("j3", c2, 0.9), v("p1", c2, 0.8), v("p2", c2, 0.75)}
	labels := []Label{
		{ID: "j1", Present: true, Confidence: "high", Language: "java", Cutoff: "2023-09-01"},
		{ID: "j2", Present: false, Confidence: "medium", Language: "java", Cutoff: "2023-09-01"},
		{ID: "j3", Present: false, Confidence: "low", Language: "java", Cutoff: "2023-09-01"},
		{ID: "p1", Present: true, Confidence: "high", Language: "python", Cutoff: "2023-09-01"},
		{ID: "p2", Present: false, Confidence: "high", Language: "python", Cutoff: "2023-09-01"},
	}
	se, err := EvaluateSet(vs, labels, EvalOptions{Confidence: []string{"high", "medium"}})
	if err != nil {
		t.Fatal(err)
	}
	if se.Dropped != 1 || se.Overall.N != 4 || se.Overall.FPR != 0.5 || se.Overall.TPR != 1 {
		t.Fatalf("overall %+v dropped %d", se.Overall, se.Dropped)
	}
	if j := se.ByLanguage["java"]; j.N != 2 || j.FPR != 0 || j.AUC != 1 {
		t.Fatalf("java %+v", j)
	}
	if p := se.ByLanguage["python"]; p.N != 2 || p.FPR != 1 {
		t.Fatalf("python %+v", p)
	}
	// Without the label's cutoff, two verdicts of j1 are ambiguous.
	labels[0].Cutoff = ""
	if _, err := EvaluateSet(vs, labels, EvalOptions{}); err == nil {
		t.Fatal("two cutoffs and no cutoff named: want an error")
	}
}

// TestDeclarationByIdentity: the patched function's own declaration line
// is found in the localised function whatever its parameter types became;
// a line that merely mentions the name is not a declaration.
func TestDeclarationByIdentity(t *testing.T) {
	fix := newVersion("A.java", []byte("class A {\n  static boolean any(String cs, char[] s) {\n    return any(cs.toCharArray(), s);\n  }\n}\n"), false)
	snap := newVersion("A.java", []byte("class A {\n  static boolean any(final CharSequence cs, final char... s) {\n    return any(cs.toString().toCharArray(), s);\n  }\n}\n"), false)
	h := headerLine(fix, 0)
	if h < 0 || fix.lines[h].text != "static boolean any ( String cs , char [ ] s ) {" {
		t.Fatalf("header line %d of %v", h, fix.lines)
	}
	ml := declaration(fix.lines[h].text, snap, 0)
	if ml.Similarity != 1 || ml.Via != "header" || ml.Snapshot != "static boolean any ( CharSequence cs , char ... s ) {" {
		t.Errorf("declaration = %+v", ml)
	}
	body := newVersion("a.py", []byte("def f(x):\n    return g(x)\n\n\ndef g(x):\n    return f(x - 1)\n"), false)
	if h := headerLine(body, 1); h < 0 || body.lines[h].text != "def g ( x ) :" {
		t.Errorf("python header of g: %d", h)
	}
}

// TestWeakLines: generic lines, and lines of at most two words around
// punctuation, carry no evidence alone; lines with more words do.
func TestWeakLines(t *testing.T) {
	for _, l := range []string{"break ;", "return null ;", "else :", "next ( pos ) ;", "i ++ ;", "throw e ;", "r = hi ;"} {
		if !weakLine(l) {
			t.Errorf("%q should be weak", l)
		}
	}
	for _, l := range []string{"r = Math . min ( r , hi ) ;", "next ( pos , 1 ) ;", "if ( r > hi )", "return appendTo . append ( QUOTE ) ;"} {
		if weakLine(l) {
			t.Errorf("%q is not weak", l)
		}
	}
}

// TestSpreadDealsEverySampleOnce checks spread is a permutation that
// starts k workers k runs apart (neighbours share histories).
func TestSpreadDealsEverySampleOnce(t *testing.T) {
	for _, tc := range []struct {
		n, k  int
		first []string
	}{
		{n: 7, k: 2, first: []string{"s0", "s4", "s1", "s5"}},
		{n: 9, k: 3, first: []string{"s0", "s3", "s6", "s1"}},
		{n: 2, k: 2, first: []string{"s0", "s1"}},
		{n: 5, k: 1, first: []string{"s0", "s1", "s2"}},
	} {
		var in []bench.Sample
		for i := range tc.n {
			in = append(in, bench.Sample{ID: fmt.Sprintf("s%d", i)})
		}
		out := spread(in, tc.k)
		seen := map[string]int{}
		for _, s := range out {
			seen[s.ID]++
		}
		if len(out) != tc.n || len(seen) != tc.n {
			t.Fatalf("n=%d k=%d: %d samples out, %d distinct", tc.n, tc.k, len(out), len(seen))
		}
		for i, id := range tc.first {
			if out[i].ID != id {
				t.Errorf("n=%d k=%d: position %d is %s, want %s", tc.n, tc.k, i, out[i].ID, id)
			}
		}
	}
}
