package code

import (
	"bytes"
	"fmt"
	"iter"
	"sort"
	"unicode/utf8"

	"github.com/benchforge/benchforge/internal/errs"
)

// Node is one node of a File's flattened syntax tree. Nodes are stored in
// pre-order, so the subtree of node i is the index range [i, End).
//
// A Node holds no pointers, only 32-bit offsets and the ids of its kind
// and field (names come from its grammar's tables): a Stage II run keeps
// millions of nodes, which the garbage collector then need not scan, and
// copying a parsed version's unchanged subtrees moves 40 bytes a node.
type Node struct {
	startByte, endByte  int32
	startLine, startCol int32
	endLine, endCol     int32
	parent, end         int32
	kind                uint16 // kind id; errorKind for ERROR
	field               uint16 // field id, 0 for none
	lang                uint8  // index of the grammar in grammarList
	flags               uint8  // named, missing
}

const (
	flagNamed uint8 = 1 << iota
	flagMissing
)

// errorKind is tree-sitter's ts_builtin_sym_error.
const errorKind = 0xFFFF

// Kind is the grammar kind: "if_statement", "identifier", "==", "ERROR", …
func (n Node) Kind() string { return grammarList[n.lang].kind(n.kind) }

// SameKind reports whether n.Kind() == o.Kind(), by kind id when both come
// from one grammar (GumTree compares kinds for every ancestor it climbs).
func (n Node) SameKind(o Node) bool {
	if n.lang != o.lang {
		return n.Kind() == o.Kind()
	}
	if n.kind == o.kind {
		return true
	}
	g := grammarList[n.lang]
	return g.canonKind(n.kind) == g.canonKind(o.kind)
}

// Field is the field name in the parent ("condition", "body", …) or "".
func (n Node) Field() string { return grammarList[n.lang].fields[n.field] }

// Named reports a named grammar node rather than an anonymous token.
func (n Node) Named() bool { return n.flags&flagNamed != 0 }

// Error reports an ERROR node (parser recovery).
func (n Node) Error() bool { return n.kind == errorKind }

// Missing reports a zero-width node inserted by error recovery.
func (n Node) Missing() bool { return n.flags&flagMissing != 0 }

// StartByte is the offset of the node's first byte.
func (n Node) StartByte() int { return int(n.startByte) }

// EndByte is one past the node's last byte.
func (n Node) EndByte() int { return int(n.endByte) }

// StartLine is the 1-based line of the node's start.
func (n Node) StartLine() int { return int(n.startLine) }

// StartCol is the 1-based byte column of the node's start.
func (n Node) StartCol() int { return int(n.startCol) }

// EndLine is the 1-based line of the node's end.
func (n Node) EndLine() int { return int(n.endLine) }

// EndCol is the 1-based byte column of the node's end.
func (n Node) EndCol() int { return int(n.endCol) }

// Parent is the index of the parent, -1 for the root.
func (n Node) Parent() int { return int(n.parent) }

// End is one past the last node of this subtree.
func (n Node) End() int { return int(n.end) }

// Leaf reports whether node i has no children.
func (f *File) Leaf(i int) bool { return f.nodes[i].End() == i+1 }

// File is a parsed source file. Its syntax tree is copied out of tree-sitter
// into Go memory at parse time, so a File holds no C resources; Close only
// releases memory early and may be called more than once.
type File struct {
	Lang Lang
	Path string
	Src  []byte

	nodes []Node
	ids   []uint16 // kind id of each node, for table lookups
	g     *grammar
	// wrapClass is the index of the dummy class added by ParseJavaMethod, or -1.
	wrapClass int
}

// Nodes returns the flattened syntax tree (pre-order; nodes[0] is the
// root). The slice is shared: do not modify it.
func (f *File) Nodes() []Node { return f.nodes }

// Children yields the indices of the direct children of node i in order.
func (f *File) Children(i int) iter.Seq[int] {
	return func(yield func(int) bool) {
		end := f.nodes[i].End()
		for c := i + 1; c < end; c = f.nodes[c].End() {
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
		if f.nodes[c].Field() == field {
			return c
		}
	}
	return -1
}

// Text returns the source text of node i.
func (f *File) Text(i int) string {
	n := &f.nodes[i]
	return string(f.Src[n.StartByte():n.EndByte()])
}

// Close releases the File's tree. The File must not be used afterwards
// except for Lang, Path and Src.
func (f *File) Close() { f.nodes, f.ids = nil, nil }

// maxSource is the largest input Parse accepts: tree-sitter offsets are
// 32-bit.
const maxSource = 1 << 31

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
	nodes, ids, _, err := parseNodes(g, src, src, 0)
	if err != nil {
		return nil, fmt.Errorf("parse(%s): %w", path, err)
	}
	return &File{Lang: lang, Path: path, Src: src, nodes: nodes, ids: ids, g: g, wrapClass: -1}, nil
}

// AsUTF8 is src when it is UTF-8 text, else src read as ISO-8859-1 and
// re-encoded as UTF-8. Old Apache sources mix the two (a "ö" byte in an
// author's name): read as UTF-8 they would not parse, and Stage II would
// fall back to comparing raw lines. ISO-8859-1 maps every byte, so
// nothing the author wrote is lost.
func AsUTF8(src []byte) []byte {
	if utf8.Valid(src) {
		return src
	}
	out := make([]byte, 0, len(src)+len(src)/16)
	for _, b := range src {
		out = utf8.AppendRune(out, rune(b))
	}
	return out
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

// parseNodes parses text with g and copies the tree out of C. Byte spans
// are shifted by -off and clamped to src (ParseJavaMethod parses src inside
// a wrapper; Parse passes text == src, off 0), and lines and columns are
// computed from src. wrap is the index of the first class_declaration that
// starts at byte 0 of text when off > 0, else -1.
func parseNodes(g *grammar, text, src []byte, off int) (nodes []Node, ids []uint16, wrap int, err error) {
	p, err := g.getParser()
	if err != nil {
		return nil, nil, -1, err
	}
	defer g.putParser(p)
	recs, buf, err := parseRecs(p, text)
	if err != nil {
		return nil, nil, -1, err
	}
	defer recPool.Put(buf)
	nodes, ids, wrap, _ = buildNodes(g, recs, src, off, nil)
	return nodes, ids, wrap, nil
}

// buildNodes converts the C walk's records to Nodes (see parseNodes).
// Lines and columns come from src here rather than from C, in one pass
// that finds each start line by stepping forward from the previous node's
// (pre-order start offsets rarely go backwards) and each end line from the
// node's start line, with a binary search when that takes long. A subtree
// the walk copied from b's records (rec.from) is copied from b's nodes,
// shifted to where it now starts.
func buildNodes(g *grammar, recs []rec, src []byte, off int, b *flat) (nodes []Node, ids []uint16, wrap int, ok bool) {
	nb := nodeBuilder{g: g, recs: recs, src: src, off: off, lines: lineStarts(src)}
	nodes = make([]Node, len(recs))
	ids = make([]uint16, len(recs))
	wrap = -1
	for i := 0; i < len(recs); i++ {
		id := uint16(recs[i].symbol)
		if off > 0 && wrap < 0 && recs[i].start == 0 && g.kind(id) == "class_declaration" {
			wrap = i
		}
		nodes[i], ids[i] = nb.node(i), id
		if from := int(recs[i].from); from >= 0 && b != nil {
			if !sameText(src, nodes[i], b, from) {
				return nil, nil, -1, false
			}
			i = copyNodes(nodes, ids, i, b, from) - 1
			nb.sl = nodes[i].StartLine() - 1
		}
	}
	return nodes, ids, wrap, true
}

// sameText reports whether node n of src spans the same text as b's node
// at from: what copying its subtree assumes.
func sameText(src []byte, n Node, b *flat, from int) bool {
	o := b.nodes[from]
	return string(src[n.StartByte():n.EndByte()]) == string(b.src[o.StartByte():o.EndByte()])
}

// nodeBuilder makes Nodes from records, one after another.
type nodeBuilder struct {
	g     *grammar
	recs  []rec
	src   []byte
	off   int
	lines []int
	sl    int // start line of the previous node, 0-based
}

// node is record i as a Node.
func (nb *nodeBuilder) node(i int) Node {
	r, g, size := &nb.recs[i], nb.g, len(nb.src)
	id := uint16(r.symbol)
	start := clamp(int(r.start)-nb.off, 0, size)
	end := clamp(int(r.end)-nb.off, start, size)
	nb.sl = lineOf(nb.lines, start, nb.sl)
	el := lineOf(nb.lines, end, nb.sl)
	parent, last := int(r.parent), int(r.last)
	if parent >= i || parent < -1 || last <= i || last > len(nb.recs) { // never from tree-sitter
		parent, last = max(-1, min(parent, i-1)), clamp(last, i+1, len(nb.recs))
	}
	n := Node{
		startByte: int32(start), endByte: int32(end),
		startLine: int32(nb.sl + 1), startCol: int32(start - nb.lines[nb.sl] + 1),
		endLine: int32(el + 1), endCol: int32(end - nb.lines[el] + 1),
		parent: int32(parent), end: int32(last),
		kind: id, lang: g.idx,
	}
	if fid := int(r.field); fid < len(g.fields) {
		n.field = uint16(fid)
	}
	if g.isNamed(id) {
		n.flags |= flagNamed
	}
	if r.missing != 0 {
		n.flags |= flagMissing
	}
	return n
}

// copyNodes fills the descendants of nodes[i], whose subtree is b's at
// from, from b's nodes: the text is the same, so bytes and lines move by
// the root's shift, and columns too on the root's first line. It returns
// the index after the subtree.
func copyNodes(nodes []Node, ids []uint16, i int, b *flat, from int) int {
	root, old := nodes[i], b.nodes[from]
	db, dl, dc := root.StartByte()-old.StartByte(), root.StartLine()-old.StartLine(), root.StartCol()-old.StartCol()
	size := old.End() - from
	db32, dl32, dc32, shift := int32(db), int32(dl), int32(dc), int32(i-from)
	first := int32(old.StartLine())
	for k := 1; k < size; k++ {
		n := b.nodes[from+k]
		if n.startLine == first {
			n.startCol += dc32
		}
		if n.endLine == first {
			n.endCol += dc32
		}
		n.startByte, n.endByte = n.startByte+db32, n.endByte+db32
		n.startLine, n.endLine = n.startLine+dl32, n.endLine+dl32
		n.parent, n.end = n.parent+shift, n.end+shift
		nodes[i+k] = n
	}
	copy(ids[i+1:i+size], b.ids[from+1:from+size])
	return i + size
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
	wrapped := wrapMethod(src)
	// The dummy class is the first class_declaration starting at byte 0
	// of the wrapped text.
	nodes, ids, wrap, err := parseNodes(g, wrapped, src, len(wrapPrefix))
	if err != nil {
		return nil, fmt.Errorf("parse(%s): %w", path, err)
	}
	return &File{Lang: LangJava, Path: path, Src: src, nodes: nodes, ids: ids, g: g, wrapClass: wrap}, nil
}

// ParseJavaMethodPair parses two versions of one lone method, such as the
// buggy and fixed members of a pair, as ParseJavaMethod does each. The
// second parse is incremental: the first tree is edited to the second text
// (one span, between their common prefix and suffix) and tree-sitter
// reuses its unchanged subtrees, which makes it several times cheaper for
// the small edits that separate a bug from its fix. If the incremental
// tree (or the first) has a syntax error, b is parsed afresh so that error recovery, and
// so the errors reported, are exactly ParseJavaMethod's.
func ParseJavaMethodPair(a, b []byte) (fa, fb *File, err error) {
	const path = "<method>"
	g, err := grammarFor(LangJava)
	if err != nil {
		return nil, nil, err
	}
	for _, src := range [][]byte{a, b} {
		if err := checkText(src); err != nil {
			return nil, nil, fmt.Errorf("parse(%s): %w; skipped: %w", path, err, errs.ErrInput)
		}
	}
	wa, wb := wrapMethod(a), wrapMethod(b)
	p, err := g.getParser()
	if err != nil {
		return nil, nil, err
	}
	defer g.putParser(p)
	tree, count, err := parseTree(p, nil, wa)
	if err != nil {
		return nil, nil, fmt.Errorf("parse(%s): %w", path, err)
	}
	defer deleteTree(tree)
	if fa, err = fileFromTree(g, tree, count, a); err != nil {
		return nil, nil, fmt.Errorf("parse(%s): %w", path, err)
	}
	if hasErrorNode(fa) { // error recovery is where reuse could diverge
		if fb, err = ParseJavaMethod(b); err != nil {
			return nil, nil, err
		}
		return fa, fb, nil
	}
	editTree(tree, wa, wb)
	next, count, err := parseTree(p, tree, wb)
	if err != nil {
		return nil, nil, fmt.Errorf("parse(%s): %w", path, err)
	}
	defer deleteTree(next)
	if fb, err = fileFromTree(g, next, count, b); err != nil {
		return nil, nil, fmt.Errorf("parse(%s): %w", path, err)
	}
	if hasErrorNode(fb) {
		if fb, err = ParseJavaMethod(b); err != nil {
			return nil, nil, err
		}
	}
	return fa, fb, nil
}

// wrapMethod puts src in the dummy class of ParseJavaMethod.
func wrapMethod(src []byte) []byte {
	w := make([]byte, 0, len(wrapPrefix)+len(src)+len(wrapSuffix))
	return append(append(append(w, wrapPrefix...), src...), wrapSuffix...)
}

// fileFromTree copies a parsed wrapped method out of C.
func fileFromTree(g *grammar, tree *cTree, count int, src []byte) (*File, error) {
	recs, buf, err := flattenTree(tree, count, nil)
	if err != nil {
		return nil, err
	}
	defer recPool.Put(buf)
	nodes, ids, wrap, _ := buildNodes(g, recs, src, len(wrapPrefix), nil)
	return &File{Lang: LangJava, Path: "<method>", Src: src, nodes: nodes, ids: ids, g: g, wrapClass: wrap}, nil
}

func hasErrorNode(f *File) bool {
	for i := range f.nodes {
		if n := &f.nodes[i]; n.kind == errorKind || n.flags&flagMissing != 0 {
			return true
		}
	}
	return false
}

func clamp(v, lo, hi int) int {
	return max(lo, min(v, hi))
}

// lineStarts returns the byte offset at which each line of src starts.
func lineStarts(src []byte) []int {
	starts := make([]int, 1, bytes.Count(src, []byte{'\n'})+1)
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			return starts
		}
		i += j + 1
		starts = append(starts, i)
	}
}

// lineOf returns the 0-based line holding byte offset off (off >= 0),
// trying the lines from hint onwards before a binary search.
func lineOf(starts []int, off, hint int) int {
	if hint >= 0 && hint < len(starts) && starts[hint] <= off {
		for range 8 {
			if hint+1 == len(starts) || starts[hint+1] > off {
				return hint
			}
			hint++
		}
	}
	return sort.SearchInts(starts, off+1) - 1
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
		case n.Error():
			out = append(out, SyntaxError{Path: f.Path, Line: n.StartLine(), Col: n.StartCol(),
				Msg: "syntax error at " + quoteSnippet(f.Src[n.StartByte():n.EndByte()])})
			i = n.End() - 1 // report the outermost ERROR only
		case n.Missing():
			out = append(out, SyntaxError{Path: f.Path, Line: n.StartLine(), Col: n.StartCol(),
				Msg: fmt.Sprintf("missing %q", n.Kind())})
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
