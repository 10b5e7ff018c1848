package patchcheck

import (
	"path"
	"strings"
	"sync"

	"github.com/benchforge/benchforge/internal/code"
)

// sourceExts are the extensions of files whose hunks can carry fix logic.
// Java and Python have front-ends; the rest fall back to whitespace-
// normalised lines.
var sourceExts = map[string]bool{
	".java": true, ".py": true, ".pyi": true, ".js": true, ".jsx": true, ".ts": true,
	".tsx": true, ".go": true, ".c": true, ".h": true, ".cc": true, ".cpp": true,
	".hpp": true, ".cs": true, ".rb": true, ".rs": true, ".kt": true, ".scala": true,
	".php": true, ".swift": true, ".m": true, ".groovy": true, ".clj": true,
}

// IsSource reports whether the file at p (slash-separated) can carry fix
// logic: a source extension and not a test. Tests are files under a test
// directory (test, tests, testing, src/test, __tests__) or named like one
// (FooTest.java, FooTests.java, FooTestCase.java, TestFoo.java, test_foo.py,
// foo_test.py, conftest.py, foo.test.js, foo_test.go), except under a
// src/main production root. Docs and build files have no source extension.
func IsSource(p string) bool {
	ext := strings.ToLower(path.Ext(p))
	if !sourceExts[ext] || inTestDir(p) {
		return false
	}
	if inMainRoot(p) {
		// Maven's and Gradle's production root: a name that looks like a
		// test's is production code there (commons-math's statistical
		// tests MannWhitneyUTest and TTest, and their TestUtils).
		return true
	}
	base := path.Base(p)
	return !testNamed(ext, strings.TrimSuffix(base, path.Ext(base)))
}

// inMainRoot reports whether p lies under a src/main directory.
func inMainRoot(p string) bool {
	return strings.HasPrefix(p, "src/main/") || strings.Contains(p, "/src/main/")
}

// testDirs are directory names (lower-cased) that hold tests.
var testDirs = map[string]bool{
	"test": true, "tests": true, "testing": true, "__tests__": true, "testdata": true, "test-data": true,
}

// inTestDir reports whether any directory of p is a test directory.
func inTestDir(p string) bool {
	for _, seg := range strings.Split(path.Dir(p), "/") {
		if testDirs[strings.ToLower(seg)] {
			return true
		}
	}
	return false
}

// testNamed reports whether a file with extension ext (lower-cased) and
// name stem is named like a test: by its language's convention or, in any
// language, "foo.test", "foo.spec", "foo_test".
func testNamed(ext, stem string) bool {
	if rule := testNameRules[ext]; rule != nil && rule(stem) {
		return true
	}
	return hasAnySuffix(stem, ".test", ".spec", "_test")
}

// testNameRules are the test naming conventions of languages, by extension.
var testNameRules = map[string]func(stem string) bool{
	".java": javaTestName,
	".py":   pythonTestName,
	".pyi":  pythonTestName,
}

// javaTestName: FooTest, FooTests, FooTestCase, TestFoo.
func javaTestName(stem string) bool {
	return hasAnySuffix(stem, "Test", "Tests", "TestCase") || strings.HasPrefix(stem, "Test") && len(stem) > 4 && isUpper(stem[4])
}

// pythonTestName: test_foo, foo_test, conftest.
func pythonTestName(stem string) bool {
	return strings.HasPrefix(stem, "test_") || strings.HasSuffix(stem, "_test") || stem == "conftest"
}

func hasAnySuffix(s string, suffixes ...string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

func isUpper(b byte) bool { return b >= 'A' && b <= 'Z' }

// langOf returns the front-end language of p, or "" for the fallback.
func langOf(p string) code.Lang {
	l, err := code.DetectLang(p)
	if err != nil {
		return ""
	}
	return l
}

// nline is one logical line of a file version.
type nline struct {
	text       string // normalised text (Python indentation trimmed)
	start, end int    // 1-based source lines of its first and last token
	startByte  int
	leaves     []int // node indices of its tokens (nil without a tree)
	trivial    bool  // not fix logic: lone punctuation, import, package
}

// version is one version (buggy, fixed or snapshot) of one file.
type version struct {
	path  string
	src   []byte
	file  *code.File // nil for the fallback languages
	lines []nline
	funcs []code.Function
	keys  []string // change.Key of funcs

	treeMu sync.Mutex
	trees  map[int]*tree        // GumTree sides by root node, built once
	maps   map[alignKey]mapping // GumTree matches of v's subtrees, see align
}

// alignKey is one GumTree match: v's subtree at root with other's at
// oroot.
type alignKey struct {
	root  int
	other *version
	oroot int
}

// align is the GumTree match of v's subtree at root with other's at
// oroot, computed once: the blocks of one fixed function are each
// matched with the same state of the walk (Jsoup-87 has a dozen blocks in
// one function).
func (v *version) align(root int, other *version, oroot int) mapping {
	k := alignKey{root, other, oroot}
	v.treeMu.Lock()
	m, ok := v.maps[k]
	v.treeMu.Unlock()
	if ok {
		return m
	}
	m = gumtreeTrees(v.tree(root), other.tree(oroot), 1)
	v.treeMu.Lock()
	defer v.treeMu.Unlock()
	if v.maps == nil {
		v.maps = map[alignKey]mapping{}
	}
	v.maps[k] = m
	return m
}

// tree is the GumTree side of v's subtree at root, built on first use (a
// fixed function is aligned with every state of its walk, a shared state
// with every sample that reaches it).
func (v *version) tree(root int) *tree {
	v.treeMu.Lock()
	defer v.treeMu.Unlock()
	t, ok := v.trees[root]
	if !ok {
		if v.trees == nil {
			v.trees = map[int]*tree{}
		}
		t = newTree(v.file, root)
		v.trees[root] = t
	}
	return t
}

// newVersion parses src and splits it into logical lines: normalised ones
// (internal/code) unless raw, else whitespace-trimmed source lines (with
// internal whitespace collapsed for languages without a front-end).
func newVersion(p string, src []byte, raw bool) *version {
	return parseVersion(nil, "", p, src, raw)
}

// parseVersion is newVersion parsing through trees under key (nil trees:
// afresh): the versions of one file parse incrementally from each other.
func parseVersion(trees *code.Trees, key, p string, src []byte, raw bool) *version {
	src = code.AsUTF8(src)
	v := &version{path: p, src: src}
	if lang := langOf(p); lang != "" {
		if f, err := trees.Parse(lang, key, p, src); err == nil {
			v.file = f
			v.funcs = f.Functions()
			v.keys = make([]string, len(v.funcs))
			for i, fn := range v.funcs {
				v.keys[i] = funcKey(fn)
			}
		}
	}
	if v.file != nil && !raw {
		v.lines = normLines(v.file)
		lang := langOf(p)
		for i := range v.lines {
			v.lines[i].text = lineForms.modern(lang, v.lines[i].text)
		}
	} else {
		v.lines = rawLines(v.file, src, v.file == nil)
	}
	return v
}

// funcKey is change.Key: Class.Name(param types).
func funcKey(fn code.Function) string {
	types := make([]string, len(fn.Params))
	for i, p := range fn.Params {
		types[i] = p.Type
		if types[i] == "" {
			types[i] = p.Name
		}
	}
	return fn.QualifiedName() + "(" + strings.Join(types, ",") + ")"
}

// normLines returns the normalised logical lines of f with their source
// positions and tokens (internal/code's NormalizedLines, Python
// indentation trimmed).
func normLines(f *code.File) []nline {
	nodes := f.Nodes()
	groups := f.LineTokens()
	out := make([]nline, 0, len(groups))
	var buf []byte // one line's text, reused: the string is its only allocation
	for _, toks := range groups {
		l := nline{start: toks[0].Line, startByte: toks[0].StartByte, leaves: make([]int, len(toks))}
		buf = buf[:0]
		for i, t := range toks {
			if i > 0 {
				buf = append(buf, ' ')
			}
			buf = append(buf, t.Text...)
			l.leaves[i] = t.Node
		}
		l.end = nodes[toks[len(toks)-1].Node].EndLine()
		l.text = string(buf)
		l.trivial = trivialLine(l.text)
		out = append(out, l)
	}
	return out
}

// lineForms memoises modernise, a pure function of a normalised line's
// text: the versions of a file a run parses (a sample's buggy and fixed
// files, every state of a history walk) share nearly all their lines, and
// it ran once per line per version.
var lineForms = formCache{modernOf: newMemo[langText, string]()}

type formCache struct {
	modernOf *memo[langText, string]
}

type langText struct {
	lang code.Lang
	text string
}

// modern is modernise(lang, t).
func (c *formCache) modern(lang code.Lang, t string) string {
	return c.modernOf.get(langText{lang, t}, func(k langText) string { return modernise(k.lang, k.text) })
}

// rawLines splits src into trimmed non-blank lines. With collapse, runs of
// blanks inside a line become one space. When f is given, each line's
// tokens are attached so the AST alignment still works.
func rawLines(f *code.File, src []byte, collapse bool) []nline {
	var byLine map[int][]int
	if f != nil {
		byLine = map[int][]int{}
		for _, t := range f.Tokens() {
			byLine[t.Line] = append(byLine[t.Line], t.Node)
		}
	}
	var out []nline
	off := 0
	for i, s := range strings.SplitAfter(string(src), "\n") {
		start := off
		off += len(s)
		t := strings.TrimSpace(s)
		if t == "" {
			continue
		}
		if collapse {
			t = strings.Join(strings.Fields(t), " ")
		}
		out = append(out, nline{text: t, start: i + 1, end: i + 1, startByte: start + len(s) - len(strings.TrimLeft(s, " \t")),
			leaves: byLine[i+1], trivial: trivialLine(t)})
	}
	return out
}

// trivialLine reports lines that carry no fix logic on their own: lone
// punctuation ("}", "{", ");"), imports and package declarations.
//
// It allocates nothing: it runs on every line of every version parsed.
func trivialLine(t string) bool {
	if strings.Trim(t, "{}();, ") == "" {
		return true
	}
	if structuralLine(t) {
		return true // "} else {", "try {", "else :"
	}
	for _, p := range []string{"import ", "package ", "from "} {
		if strings.HasPrefix(t, p) && (p != "from " || strings.Contains(t, " import ")) {
			return true
		}
	}
	return false
}

// structuralLine reports whether every field of t is a brace, else, try,
// finally, ':' or ';'.
func structuralLine(t string) bool {
	for f := range strings.FieldsSeq(t) {
		switch f {
		case "{", "}", "else", "try", "finally", ":", ";":
		default:
			return false
		}
	}
	return true
}

// enclosing returns the index of the innermost function of v whose span
// holds byte off, or -1.
func (v *version) enclosing(off int) int {
	best := -1
	for i, fn := range v.funcs {
		if off >= fn.StartByte && off < fn.EndByte {
			if best < 0 || fn.EndByte-fn.StartByte <= v.funcs[best].EndByte-v.funcs[best].StartByte {
				best = i
			}
		}
	}
	return best
}

// funcLines returns the indices of v's lines that start inside function fi
// (all lines when fi < 0).
func (v *version) funcLines(fi int) []int {
	out := make([]int, 0, 16)
	for i, l := range v.lines {
		if fi < 0 || l.startByte >= v.funcs[fi].StartByte && l.startByte < v.funcs[fi].EndByte {
			out = append(out, i)
		}
	}
	return out
}

// funcName is the human name of function fi of v ("" for top level).
func (v *version) funcName(fi int) string {
	if fi < 0 {
		return ""
	}
	return v.keys[fi]
}

// identifiers returns the set of identifier tokens inside function fi: the
// contextual features (calls, variable and field names) that pick a
// candidate function when the key does not (§4.2).
func (v *version) identifiers(fi int) map[string]bool {
	set := map[string]bool{}
	if v.file == nil || fi < 0 {
		return set
	}
	fn := v.funcs[fi]
	nodes := v.file.Nodes()
	for i := fn.Node; i < nodes[fn.Node].End() && i < len(nodes); i++ {
		n := nodes[i]
		if n.End() == i+1 && (n.Kind() == "identifier" || n.Kind() == "type_identifier") {
			set[v.file.Text(i)] = true
		}
	}
	return set
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 0
	}
	inter := 0
	for k := range a {
		if b[k] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
