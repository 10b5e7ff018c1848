package code

import (
	"bytes"
	"container/list"
	"fmt"
	"hash/maphash"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/benchforge/benchforge/internal/errs"
)

// Trees keeps the last few syntax trees parsed under each key (one file's
// path in one repository), so that another version of that file is parsed
// incrementally: a copy of the nearest kept tree (the one sharing most
// lines with the new text) is edited to the new text, one edit per changed
// run of lines, and tree-sitter reuses every unchanged subtree; those
// subtrees' records and Nodes are then copied from the base's, shifted,
// instead of walked through the C API again (the walk cost several times
// the incremental parse on a 2,000-line file). Stage II
// parses many versions of the same file — a fix, its buggy parent, the
// states of its history, the next sample's fix — that differ by a few
// lines.
//
// An incremental tree is used only when neither it nor its base has a
// syntax error: error recovery is where reuse could diverge from a fresh
// parse, so such texts are parsed afresh and give exactly Parse's File
// (TestTreesMatchFreshParses compares the two on random edit histories).
// Trees is safe for concurrent use.
type Trees struct {
	mu     sync.Mutex
	max    int
	reused atomic.Int64 // incremental trees accepted (for the tests)
	copied atomic.Int64 // nodes copied from a base, not walked (for the tests)
	*kept
}

// perKey is how many versions of one file are kept as bases.
const perKey = 8

// keptBytes bounds the source text of the kept versions: a kept version
// costs tens of times its text (for a Java file, about 40 bytes of Go
// memory per source byte in its Nodes, records and subtree index, beside
// tree-sitter's tree).
const keptBytes = 4 << 20

// kept is the cache's content, apart from Trees so that a cleanup can free
// its C trees once the Trees is unreachable.
type kept struct {
	byKey map[string][]*list.Element // most recent first
	lru   *list.List                 // of *baseTree, most recent at the front
	bytes int64                      // source text kept
}

// baseTree is a parsed tree kept for the next versions of its key.
type baseTree struct {
	key    string
	lang   Lang
	src    []byte
	tree   *cTree
	hashes []uint64 // lineHashes(src)
	lines  *lineSet // the same, as a set
	file   *File    // its parse, shared by a parse of the same text
	recs   []rec    // its flattening, indexed into base on first use
	once   sync.Once
	flat   *flat
}

// reuse is b's records, nodes and subtree index, for a parse from b.
func (b *baseTree) reuse() *flat {
	b.once.Do(func() { b.flat = newBase(b.src, b.recs, b.file.nodes, b.file.ids) })
	return b.flat
}

var lineSeed = maphash.MakeSeed()

func lineHash(l []byte) uint64 { return maphash.Bytes(lineSeed, l) }

// NewTrees returns a cache holding at most max trees (a tree costs a few
// times its file's size in C memory).
func NewTrees(max int) *Trees {
	k := &kept{byKey: map[string][]*list.Element{}, lru: list.New()}
	ts := &Trees{max: max, kept: k}
	runtime.AddCleanup(ts, func(k *kept) { k.free() }, k)
	return ts
}

func (k *kept) free() {
	for e := k.lru.Front(); e != nil; e = e.Next() {
		deleteTree(e.Value.(*baseTree).tree)
	}
	k.byKey, k.lru, k.bytes = map[string][]*list.Element{}, list.New(), 0
}

// Close frees every kept tree.
func (ts *Trees) Close() {
	if ts == nil {
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.free()
}

// Parse is Parse(lang, path, src), reusing a tree kept under key. A nil
// Trees parses afresh.
func (ts *Trees) Parse(lang Lang, key, path string, src []byte) (*File, error) {
	if ts == nil {
		return Parse(lang, path, src)
	}
	g, err := grammarFor(lang)
	if err != nil {
		return nil, fmt.Errorf("parse(%s): %w", path, err)
	}
	if err := checkText(src); err != nil {
		return nil, fmt.Errorf("parse(%s): %w; skipped: %w", path, err, errs.ErrInput)
	}
	p, err := g.getParser()
	if err != nil {
		return nil, fmt.Errorf("parse(%s): %w", path, err)
	}
	defer g.putParser(p)
	if f := ts.same(key, lang, path, src); f != nil {
		return f, nil
	}
	hashes := lineHashes(src)
	base := ts.nearest(key, lang, hashes)
	f, k, err := parseFrom(g, p, base, lang, path, src, hashes)
	if err != nil {
		return nil, fmt.Errorf("parse(%s): %w", path, err)
	}
	if k.fromBase && k.tree != nil {
		ts.reused.Add(1)
		ts.copied.Add(int64(k.copied))
	}
	if k.tree != nil {
		kept := *f // its own copy: the caller may Close f
		ts.put(&baseTree{key: key, lang: lang, src: src, tree: k.tree, recs: k.recs, hashes: hashes, lines: newLineSet(hashes), file: &kept})
	}
	return f, nil
}

// same is a File sharing the syntax tree of a kept version of key with
// exactly src's text (a fix's file is parsed by the checker, then as the
// first state of its history walk), or nil.
func (ts *Trees) same(key string, lang Lang, path string, src []byte) *File {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, e := range ts.byKey[key] {
		if b := e.Value.(*baseTree); b.lang == lang && bytes.Equal(b.src, src) {
			ts.lru.MoveToFront(e)
			f := *b.file
			f.Path, f.Src = path, src
			return &f
		}
	}
	return nil
}

// edit is a base tree's copy, the text it was parsed from, and its
// flattening.
type edit struct {
	tree   *cTree
	src    []byte
	hashes []uint64 // lineHashes(src)
	flat   *flat
	pin    *cTree // another copy, see nearest
	added  int    // lines of the new text that src lacks
}

// nearest returns a copy of the kept tree of key and lang that shares most
// lines with the new text, or nil.
func (ts *Trees) nearest(key string, lang Lang, hashes []uint64) *edit {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	var best *baseTree
	bestN := 0
	for _, e := range ts.byKey[key] {
		b := e.Value.(*baseTree)
		if b.lang != lang {
			continue
		}
		n := 0
		for _, h := range hashes {
			if b.lines.has(h) {
				n++
			}
		}
		if n > bestN {
			best, bestN = b, n
		}
	}
	if best == nil {
		return nil
	}
	// pin keeps the base's subtrees shared while tree is edited and
	// parsed, even if the cache drops the base meanwhile: an edit changes
	// a subtree in place when nothing else holds it, and the base's
	// records, which flat's copying trusts, would no longer describe it.
	return &edit{tree: copyTree(best.tree), src: best.src, hashes: best.hashes, flat: best.reuse(), pin: copyTree(best.tree), added: len(hashes) - bestN}
}

// keep is a parse to keep as a base: its tree and records.
type keep struct {
	tree     *cTree
	recs     []rec
	copied   int  // nodes copied from the base
	fromBase bool // parsed from a base
}

// parseFrom parses src (whose lineHashes are hashes) from base (nil:
// afresh) and returns its File and, when it has no syntax error, its tree
// and records to keep.
func parseFrom(g *grammar, p cParser, base *edit, lang Lang, path string, src []byte, hashes []uint64) (*File, keep, error) {
	if base == nil {
		return fileFrom(g, p, nil, lang, path, src)
	}
	defer deleteTree(base.tree)
	defer deleteTree(base.pin)
	if !editToText(base.tree, base.src, src, base.hashes, hashes, base.added) {
		// Too far from the base to reuse much: a fresh parse is cheaper.
		return fileFrom(g, p, nil, lang, path, src)
	}
	f, k, err := fileFrom(g, p, base, lang, path, src)
	k.fromBase = true
	if err != nil || k.tree != nil || !hasErrorNode(f) {
		return f, k, err
	}
	// Error recovery is where reuse could diverge: parse afresh.
	f, k, err = fileFrom(g, p, nil, lang, path, src)
	if k.tree != nil {
		deleteTree(k.tree)
	}
	return f, keep{}, err
}

// fileFrom parses src (from base when non-nil) into a File and, when it
// has no syntax error, its tree and records to keep.
func fileFrom(g *grammar, p cParser, base *edit, lang Lang, path string, src []byte) (*File, keep, error) {
	var old *cTree
	var ob *flat
	if base != nil {
		old, ob = base.tree, base.flat
	}
	tree, count, err := parseTree(p, old, src)
	if err != nil {
		return nil, keep{}, err
	}
	nodes, ids, recs, buf, err := treeNodes(g, tree, count, src, ob)
	if err != nil {
		deleteTree(tree)
		return nil, keep{}, err
	}
	defer recPool.Put(buf)
	f := &File{Lang: lang, Path: path, Src: src, nodes: nodes, ids: ids, g: g, wrapClass: -1}
	if hasErrorNode(f) {
		deleteTree(tree)
		return f, keep{}, nil
	}
	k := keep{tree: tree, recs: keepRecs(recs, buf)}
	for i := range recs {
		if from := recs[i].from; from >= 0 {
			k.copied += int(recs[i].last) - i
		}
	}
	return f, k, nil
}

// keepRecs is recs to keep with a base: the pooled buffer itself when
// recs fill most of it (the pool then allocates afresh, as a copy would),
// else a copy, so a small file's records do not pin a large buffer.
func keepRecs(recs []rec, buf *[]rec) []rec {
	if 2*len(recs) < cap(*buf) {
		return slices.Clone(recs)
	}
	*buf = nil
	return recs[:len(recs):len(recs)]
}

// treeNodes flattens tree and builds its Nodes, copying the subtrees it
// shares with ob (nil: none) from ob. Should a copied subtree's text
// differ from the base's, the copy is not trusted and the tree is walked
// whole instead.
func treeNodes(g *grammar, tree *cTree, count int, src []byte, ob *flat) ([]Node, []uint16, []rec, *[]rec, error) {
	recs, buf, err := flattenTree(tree, count, ob)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if nodes, ids, _, ok := buildNodes(g, recs, src, 0, ob); ok {
		return nodes, ids, recs, buf, nil
	}
	recPool.Put(buf)
	return treeNodes(g, tree, count, src, nil)
}

// put keeps b among its key's bases (not twice for the same text),
// evicting the oldest beyond perKey and the least recently used beyond
// the bound.
func (ts *Trees) put(b *baseTree) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, e := range ts.byKey[b.key] {
		if old := e.Value.(*baseTree); bytes.Equal(old.src, b.src) && old.lang == b.lang {
			ts.lru.MoveToFront(e)
			deleteTree(b.tree)
			return
		}
	}
	ts.byKey[b.key] = append([]*list.Element{ts.lru.PushFront(b)}, ts.byKey[b.key]...)
	ts.bytes += int64(len(b.src))
	if l := ts.byKey[b.key]; len(l) > perKey {
		ts.drop(redundant(l))
	}
	for ts.lru.Len() > ts.max || ts.bytes > keptBytes && ts.lru.Len() > 1 {
		ts.drop(ts.lru.Back())
	}
}

// redundant is the kept version most like the newest, l[0]: dropping it
// keeps versions spread over the file's history (a walk's consecutive
// states are near each other; the next sample's fix may be years back).
func redundant(l []*list.Element) *list.Element {
	nb := l[0].Value.(*baseTree)
	best, bestS := l[len(l)-1], -1.0
	for _, e := range l[1:] {
		b := e.Value.(*baseTree)
		n := 0
		for _, h := range b.lines.keys {
			if nb.lines.has(h) {
				n++
			}
		}
		if s := float64(n) / float64(max(1, b.lines.len())); s > bestS {
			best, bestS = e, s
		}
	}
	return best
}

// drop removes e from the cache and frees its tree.
func (ts *Trees) drop(e *list.Element) {
	b := ts.lru.Remove(e).(*baseTree)
	ts.bytes -= int64(len(b.src))
	l := ts.byKey[b.key]
	for i := range l {
		if l[i] == e {
			l = append(l[:i:i], l[i+1:]...)
			break
		}
	}
	if len(l) == 0 {
		delete(ts.byKey, b.key)
	} else {
		ts.byKey[b.key] = l
	}
	deleteTree(b.tree)
}

// lineHashes is the hash of each line of src, cut after each newline (the
// last line may lack one).
func lineHashes(src []byte) []uint64 {
	out := make([]uint64, 0, bytes.Count(src, []byte{'\n'})+1)
	for len(src) > 0 {
		i := bytes.IndexByte(src, '\n')
		if i < 0 {
			return append(out, lineHash(src))
		}
		out, src = append(out, lineHash(src[:i+1])), src[i+1:]
	}
	return out
}
