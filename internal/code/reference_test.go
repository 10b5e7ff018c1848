package code

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	ts "github.com/tree-sitter/go-tree-sitter"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	tspython "github.com/tree-sitter/tree-sitter-python/bindings/go"
)

// referenceNodes parses src through go-tree-sitter's own Go API and
// flattens the tree node by node with Node and TreeCursor methods: the
// straightforward (slow) path the C walk in cparse.go replaces. Spans are
// shifted by -off and clamped to base, and positions computed in base, as
// parseNodes does. wrap is the first class_declaration starting at byte 0
// of text when off > 0, else -1.
func referenceNodes(t testing.TB, lang Lang, text, base []byte, off int) (nodes []nodeView, wrap int) {
	t.Helper()
	g, err := grammarFor(lang)
	if err != nil {
		t.Fatal(err)
	}
	tree := referenceTree(t, lang, text)
	defer tree.Close()
	c := tree.Walk()
	defer c.Close()
	var stack []int
	wrap = -1
	for {
		tn := c.Node()
		parent := top(stack)
		field := ""
		if fid := c.FieldId(); int(fid) < len(g.fields) {
			field = g.fields[fid]
		}
		start := clamp(int(tn.StartByte())-off, 0, len(base))
		end := clamp(int(tn.EndByte())-off, start, len(base))
		idx := len(nodes)
		if off > 0 && wrap < 0 && tn.StartByte() == 0 && tn.Kind() == "class_declaration" {
			wrap = idx
		}
		nodes = append(nodes, nodeView{Kind: tn.Kind(), Field: field, Named: tn.IsNamed(), Error: tn.IsError(),
			StartByte: start, EndByte: end, Parent: parent})
		if c.GotoFirstChild() {
			stack = append(stack, idx)
			continue
		}
		nodes[idx].End = idx + 1
		if tn.StartByte() == tn.EndByte() {
			nodes[idx].Missing = tn.IsMissing()
		}
		for !c.GotoNextSibling() {
			if len(stack) == 0 || !c.GotoParent() {
				setPositions(nodes, base)
				return nodes, wrap
			}
			nodes[top(stack)].End = len(nodes)
			stack = stack[:len(stack)-1]
		}
	}
}

// nodeView is a Node's fields, comparable with cmp.
type nodeView struct {
	Kind, Field                  string
	Named, Error, Missing        bool
	StartByte, EndByte           int
	StartLine, StartCol          int
	EndLine, EndCol, Parent, End int
}

func views(nodes []Node) []nodeView {
	out := make([]nodeView, len(nodes))
	for i, n := range nodes {
		out[i] = nodeView{n.Kind(), n.Field(), n.Named(), n.Error(), n.Missing(), n.StartByte(), n.EndByte(),
			n.StartLine(), n.StartCol(), n.EndLine(), n.EndCol(), n.Parent(), n.End()}
	}
	return out
}

// referenceTree parses text with go-tree-sitter's parser for lang.
func referenceTree(t testing.TB, lang Lang, text []byte) *ts.Tree {
	t.Helper()
	ptr := tsjava.Language()
	if lang == LangPython {
		ptr = tspython.Language()
	}
	p := ts.NewParser()
	defer p.Close()
	if err := p.SetLanguage(ts.NewLanguage(ptr)); err != nil {
		t.Fatal(err)
	}
	tree := p.Parse(text, nil)
	if tree == nil {
		t.Fatal("go-tree-sitter returned no tree")
	}
	return tree
}

// top is the last element of stack, or -1 when it is empty.
func top(stack []int) int {
	if len(stack) == 0 {
		return -1
	}
	return stack[len(stack)-1]
}

// setPositions sets the 1-based line and column of every node's start
// and end, computed in base.
func setPositions(nodes []nodeView, base []byte) {
	lines := []int{0}
	for i, b := range base {
		if b == '\n' {
			lines = append(lines, i+1)
		}
	}
	pos := func(off int) (int, int) {
		l := sort.SearchInts(lines, off+1) - 1
		return l + 1, off - lines[l] + 1
	}
	for i := range nodes {
		n := &nodes[i]
		n.StartLine, n.StartCol = pos(n.StartByte)
		n.EndLine, n.EndCol = pos(n.EndByte)
	}
}

// checkAgainstReference compares Parse (and, for Java, ParseJavaMethod)
// with referenceNodes.
func checkAgainstReference(t *testing.T, lang Lang, src []byte) {
	t.Helper()
	f, err := Parse(lang, "ref", src)
	if err != nil {
		return // rejected input: nothing to compare
	}
	want, _ := referenceNodes(t, lang, src, src, 0)
	if d := cmp.Diff(want, views(f.Nodes())); d != "" {
		t.Fatalf("Parse(%s, %.60q) differs from the go-tree-sitter walk (-want +got):\n%s", lang, src, d)
	}
	if lang != LangJava {
		return
	}
	m, err := ParseJavaMethod(src)
	if err != nil {
		t.Fatalf("ParseJavaMethod rejected what Parse accepted: %v", err)
	}
	wrapped := []byte(wrapPrefix + string(src) + wrapSuffix)
	want, wrap := referenceNodes(t, lang, wrapped, src, len(wrapPrefix))
	if d := cmp.Diff(want, views(m.Nodes())); d != "" {
		t.Fatalf("ParseJavaMethod(%.60q) differs from the go-tree-sitter walk (-want +got):\n%s", src, d)
	}
	if m.wrapClass != wrap {
		t.Fatalf("ParseJavaMethod(%.60q): wrapper class at node %d, want %d", src, m.wrapClass, wrap)
	}
}

// referenceInputs are small programs, broken ones included, plus the demo
// files and a few Python files of the system library when present
// (unreadable files are left out).
func referenceInputs() map[Lang][][]byte {
	in := map[Lang][][]byte{
		LangJava: {
			[]byte(""), []byte("\n\n"), []byte("}"), []byte("class {"),
			[]byte("class A { int f(int x) { return x; } }"),
			[]byte("class A {\r\n void f() { if (a) { b(); } else c(); } A() {} }"),
			[]byte("enum E { A { void f() {} } } record R(int x) { R {} }"),
			[]byte("class A { String s = \"\"\"\n x\"\"\"; /* c */ // d\n"),
			[]byte("@interface X { int v() default 1; } class { void ("),
			[]byte("int f(int a) { return a; }"),
			[]byte("// c\npublic static <T> T g(T... xs) throws E { return xs[0]; }"),
			[]byte("void f() { }}} class X {"),
			[]byte("/* unterminated"),
			[]byte("void f() { int x = ; y(\n"),
			[]byte("void f() { String s = \"é ☃ 𝄞\"; char c = '\\u00e9'; }"),
		},
		LangPython: {
			[]byte(""), []byte("def f(a, b=1, *c, **d):\n    '''doc'''\n    return a\n"),
			[]byte("class C:\n    @d\n    async def m(self): pass\n"),
			[]byte("x = f'{a!r:>{w}}' % 3; y = (1,\n"),
			[]byte("match x:\n    case [a, *_]: pass\n    case _: pass\n"),
			[]byte("def f(:\n\tif x:\n  y\n"),
			[]byte("s = 'é ☃ 𝄞'\\\n  + t\r\n"),
		},
	}
	demo, _ := filepath.Glob("../../testdata/demo/*")
	py, _ := filepath.Glob("/usr/lib/python3*/json/*.py")
	for _, p := range append(demo, py...) {
		lang, err := DetectLang(p)
		if err != nil {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		in[lang] = append(in[lang], b, b[:len(b)/2])
	}
	return in
}

// TestFlattenMatchesReference pins the C walk of cparse.go (and the
// struct layouts it declares) to go-tree-sitter's public API.
func TestFlattenMatchesReference(t *testing.T) {
	for lang, srcs := range referenceInputs() {
		for _, src := range srcs {
			if !strings.Contains(string(src), "\x00") {
				checkAgainstReference(t, lang, src)
			}
		}
	}
}

func FuzzFlattenMatchesReference(f *testing.F) {
	for lang, srcs := range referenceInputs() {
		for _, src := range srcs {
			if len(src) < 4096 {
				f.Add(src, lang == LangJava)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte, java bool) {
		lang := LangPython
		if java {
			lang = LangJava
		}
		checkAgainstReference(t, lang, src)
	})
}
