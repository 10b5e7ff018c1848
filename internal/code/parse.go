package code

import (
	"bytes"
	"fmt"
	"iter"
	"sort"
	"unicode/utf8"

	ts "github.com/tree-sitter/go-tree-sitter"

	"github.com/benchforge/benchforge/internal/errs"
)

// Node is one node of a File's flattened syntax tree. Nodes are stored in
// pre-order, so the subtree of node i is the index range [i, End).
type Node struct {
	Kind    string // grammar kind: "if_statement", "identifier", "==", "ERROR", …
	Field   string // field name in the parent ("condition", "body", …) or ""
	Named   bool   // a named grammar node rather than an anonymous token
	Error   bool   // an ERROR node (parser recovery)
	Missing bool   // a zero-width node inserted by error recovery
	// Byte span, and 1-based line / 1-based byte column of its two ends.
	StartByte, EndByte  int
	StartLine, StartCol int
	EndLine, EndCol     int
	Parent              int // index of the parent, -1 for the root
	End                 int // one past the last node of this subtree
}

// Leaf reports whether node i has no children.
func (f *File) Leaf(i int) bool { return f.nodes[i].End == i+1 }

// File is a parsed source file. Its syntax tree is copied out of tree-sitter
// into Go memory at parse time, so a File holds no C resources; Close only
// releases memory early and may be called more than once.
type File struct {
	Lang Lang
	Path string
	Src  []byte

	nodes []Node
	// wrapClass is the index of the dummy class added by ParseJavaMethod, or -1.
	wrapClass int
}

// Nodes returns the flattened syntax tree (pre-order; nodes[0] is the
// root). The slice is shared: do not modify it.
func (f *File) Nodes() []Node { return f.nodes }

// Children yields the indices of the direct children of node i in order.
func (f *File) Children(i int) iter.Seq[int] {
	return func(yield func(int) bool) {
		end := f.nodes[i].End
		for c := i + 1; c < end; c = f.nodes[c].End {
			if !yield(c) {
				return
			}
		}
	}
}

// ChildByField returns the first child of node i with the given field name,
// or -1.
func (f *File) ChildByField(i int, field string) int {
	for c := range f.Children(i) {
		if f.nodes[c].Field == field {
			return c
		}
	}
	return -1
}

// Text returns the source text of node i.
func (f *File) Text(i int) string {
	n := &f.nodes[i]
	return string(f.Src[n.StartByte:n.EndByte])
}

// Close releases the File's tree. The File must not be used afterwards
// except for Lang, Path and Src.
func (f *File) Close() { f.nodes = nil }

// maxSource is the largest input Parse accepts: tree-sitter offsets are
// 32-bit.
const maxSource = 1 << 31

// readChunk is how many bytes the tree-sitter input callback hands over at
// a time. go-tree-sitter copies each returned slice into C memory, so
// returning the whole remaining text on every call would be quadratic.
const readChunk = 64 << 10

// Parse parses src as lang. path is used only in messages. Any valid UTF-8
// text yields a File (syntax errors become ERROR/MISSING nodes, see
// SyntaxErrors); text that is not UTF-8 or contains NUL bytes is rejected
// with an error wrapping errs.ErrInput, and an unknown lang with
// errs.ErrUnsupported.
func Parse(lang Lang, path string, src []byte) (*File, error) {
	g, err := grammarFor(lang)
	if err != nil {
		return nil, fmt.Errorf("parse(%s): %w", path, err)
	}
	if err := checkText(src); err != nil {
		return nil, fmt.Errorf("parse(%s): %w; skipped: %w", path, err, errs.ErrInput)
	}
	nodes, err := parseNodes(g, src)
	if err != nil {
		return nil, fmt.Errorf("parse(%s): %w", path, err)
	}
	return &File{Lang: lang, Path: path, Src: src, nodes: nodes, wrapClass: -1}, nil
}

func checkText(src []byte) error {
	if len(src) >= maxSource {
		return fmt.Errorf("%d bytes is over the 2 GiB limit", len(src))
	}
	if i := bytes.IndexByte(src, 0); i >= 0 {
		return fmt.Errorf("binary file (NUL byte at offset %d), not UTF-8 text", i)
	}
	if !utf8.Valid(src) {
		return fmt.Errorf("not UTF-8 text")
	}
	return nil
}

func parseNodes(g *grammar, src []byte) ([]Node, error) {
	p, err := g.getParser()
	if err != nil {
		return nil, err
	}
	defer g.putParser(p)
	n := len(src)
	tree := p.ParseWithOptions(func(i int, _ ts.Point) []byte {
		if i >= n {
			return nil
		}
		return src[i:min(i+readChunk, n)]
	}, nil, nil)
	if tree == nil {
		p.Reset()
		return nil, fmt.Errorf("tree-sitter returned no tree: %w", errs.ErrUnavailable)
	}
	defer tree.Close()
	return flatten(g, tree, src), nil
}

// flatten copies the tree into a pre-order slice with one cursor walk.
// Only byte offsets come from C; lines and columns are computed here from
// src, which halves the cgo calls per node.
func flatten(g *grammar, tree *ts.Tree, src []byte) []Node {
	c := tree.Walk()
	defer c.Close()
	lines := lineStarts(src)
	nodes := make([]Node, 0, len(src)/5+8)
	stack := make([]int, 0, 64)
	for {
		tn := c.Node()
		id := tn.KindId()
		start, end := int(tn.StartByte()), int(tn.EndByte())
		idx := len(nodes)
		parent := -1
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		fid := c.FieldId()
		field := ""
		if int(fid) < len(g.fields) {
			field = g.fields[fid]
		}
		sl, sc := position(lines, start)
		el, ec := position(lines, end)
		nodes = append(nodes, Node{
			Kind:      g.kind(id),
			Field:     field,
			Named:     g.isNamed(id),
			Error:     id == 0xFFFF,
			StartByte: start,
			EndByte:   end,
			StartLine: sl,
			StartCol:  sc,
			EndLine:   el,
			EndCol:    ec,
			Parent:    parent,
		})
		if c.GotoFirstChild() {
			stack = append(stack, idx)
			continue
		}
		nodes[idx].End = idx + 1
		if start == end {
			nodes[idx].Missing = tn.IsMissing()
		}
		for !c.GotoNextSibling() {
			if len(stack) == 0 || !c.GotoParent() {
				return nodes
			}
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			nodes[top].End = len(nodes)
		}
	}
}

// Dummy class wrapper of ParseJavaMethod (rxsynth §4.4: "Both methods are
// then wrapped in a dummy class and parsed"). The prefix has no newline, so
// line numbers of the method text are unchanged.
const (
	wrapPrefix = "class __BenchforgeMethod__ { "
	wrapSuffix = "\n}\n"
)

// ParseJavaMethod parses a lone Java method (or constructor) by wrapping it
// in a dummy class, as rxsynth §4.4 does before parsing generated methods.
// All spans, lines, columns, tokens and syntax errors are reported relative
// to src: the wrapper contributes no tokens and no Class name. Errors as for
// Parse.
func ParseJavaMethod(src []byte) (*File, error) {
	const path = "<method>"
	g, err := grammarFor(LangJava)
	if err != nil {
		return nil, err
	}
	if err := checkText(src); err != nil {
		return nil, fmt.Errorf("parse(%s): %w; skipped: %w", path, err, errs.ErrInput)
	}
	wrapped := make([]byte, 0, len(wrapPrefix)+len(src)+len(wrapSuffix))
	wrapped = append(append(append(wrapped, wrapPrefix...), src...), wrapSuffix...)
	nodes, err := parseNodes(g, wrapped)
	if err != nil {
		return nil, fmt.Errorf("parse(%s): %w", path, err)
	}
	f := &File{Lang: LangJava, Path: path, Src: src, nodes: nodes, wrapClass: -1}
	// The dummy class is the first class_declaration whose name starts at
	// the prefix's name offset.
	for i := range nodes {
		if nodes[i].Kind == "class_declaration" && nodes[i].StartByte == 0 {
			f.wrapClass = i
			break
		}
	}
	lines := lineStarts(src)
	off := len(wrapPrefix)
	for i := range nodes {
		n := &nodes[i]
		n.StartByte = clamp(n.StartByte-off, 0, len(src))
		n.EndByte = clamp(n.EndByte-off, n.StartByte, len(src))
		n.StartLine, n.StartCol = position(lines, n.StartByte)
		n.EndLine, n.EndCol = position(lines, n.EndByte)
	}
	return f, nil
}

func clamp(v, lo, hi int) int {
	return max(lo, min(v, hi))
}

// lineStarts returns the byte offset at which each line of src starts.
func lineStarts(src []byte) []int {
	starts := []int{0}
	for i, b := range src {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// position converts a byte offset to a 1-based line and column.
func position(starts []int, off int) (line, col int) {
	l := sort.SearchInts(starts, off+1) - 1
	return l + 1, off - starts[l] + 1
}

// SyntaxError is one parse error: an ERROR node (text the grammar could not
// place) or a MISSING node (a token error recovery had to invent).
type SyntaxError struct {
	Path      string
	Line, Col int
	Msg       string
}

func (e SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg)
}

// SyntaxErrors returns the file's syntax errors in source order, one per
// outermost ERROR node and one per MISSING node.
func (f *File) SyntaxErrors() []SyntaxError {
	var out []SyntaxError
	for i := 0; i < len(f.nodes); i++ {
		n := &f.nodes[i]
		switch {
		case n.Error:
			out = append(out, SyntaxError{Path: f.Path, Line: n.StartLine, Col: n.StartCol,
				Msg: "syntax error at " + quoteSnippet(f.Src[n.StartByte:n.EndByte])})
			i = n.End - 1 // report the outermost ERROR only
		case n.Missing:
			out = append(out, SyntaxError{Path: f.Path, Line: n.StartLine, Col: n.StartCol,
				Msg: fmt.Sprintf("missing %q", n.Kind)})
		}
	}
	return out
}

// quoteSnippet quotes the first line of b, cut to 30 runes.
func quoteSnippet(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	s := []rune(string(bytes.TrimSpace(b)))
	if len(s) > 30 {
		return fmt.Sprintf("%q…", string(s[:30]))
	}
	if len(s) == 0 {
		return "end of line"
	}
	return fmt.Sprintf("%q", string(s))
}
