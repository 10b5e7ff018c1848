package code

// The parse fast path: tree-sitter's C API called directly, so one parse
// costs four cgo calls instead of about seven per syntax-tree node.
//
// go-tree-sitter (imported in lang.go for the grammar tables) compiles and
// links the tree-sitter C library; the declarations below are the subset of
// its include/tree_sitter/api.h (v0.25.0, the version go.mod pins) that
// this file uses, with TSNode and TSTreeCursor copied field for field.
// TestFlattenMatchesReference compares this path with a walk through
// go-tree-sitter's own API, so a layout change in a future go-tree-sitter
// fails the tests instead of corrupting trees.

/*
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct TSLanguage TSLanguage;
typedef struct TSParser TSParser;
typedef struct TSTree TSTree;
typedef uint16_t TSSymbol;
typedef uint16_t TSFieldId;
typedef struct TSNode {
	uint32_t context[4];
	const void *id;
	const TSTree *tree;
} TSNode;
typedef struct TSTreeCursor {
	const void *tree;
	const void *id;
	uint32_t context[3];
} TSTreeCursor;

extern TSParser *ts_parser_new(void);
extern void ts_parser_delete(TSParser *self);
extern bool ts_parser_set_language(TSParser *self, const TSLanguage *language);
extern void ts_parser_reset(TSParser *self);
extern TSTree *ts_parser_parse_string(TSParser *self, const TSTree *old_tree, const char *string, uint32_t length);
extern void ts_tree_delete(TSTree *self);
extern TSTree *ts_tree_copy(const TSTree *self);
typedef struct TSPoint {
	uint32_t row;
	uint32_t column;
} TSPoint;
typedef struct TSInputEdit {
	uint32_t start_byte;
	uint32_t old_end_byte;
	uint32_t new_end_byte;
	TSPoint start_point;
	TSPoint old_end_point;
	TSPoint new_end_point;
} TSInputEdit;
extern void ts_tree_edit(TSTree *self, const TSInputEdit *edit);
extern TSNode ts_tree_root_node(const TSTree *self);
extern uint32_t ts_node_descendant_count(TSNode self);
extern TSSymbol ts_node_symbol(TSNode self);
extern uint32_t ts_node_start_byte(TSNode self);
extern uint32_t ts_node_end_byte(TSNode self);
extern bool ts_node_is_missing(TSNode self);
extern TSTreeCursor ts_tree_cursor_new(TSNode node);
extern void ts_tree_cursor_delete(TSTreeCursor *self);
extern TSNode ts_tree_cursor_current_node(const TSTreeCursor *self);
extern TSFieldId ts_tree_cursor_current_field_id(const TSTreeCursor *self);
extern bool ts_tree_cursor_goto_first_child(TSTreeCursor *self);
extern bool ts_tree_cursor_goto_next_sibling(TSTreeCursor *self);
extern bool ts_tree_cursor_goto_parent(TSTreeCursor *self);
extern void ts_set_allocator(void *(*new_malloc)(size_t), void *(*new_calloc)(size_t, size_t),
	void *(*new_realloc)(void *, size_t), void (*new_free)(void *));

// bf_use_libc_allocator makes tree-sitter allocate with libc directly.
// go-tree-sitter installs allocators that call back into Go for every
// malloc and free (so Go programs can swap them), which cost about a fifth
// of all parse time. Switching after the library has been used is allowed
// when "the new allocator shares its state with the old one" (api.h,
// ts_set_allocator): go-tree-sitter's default callbacks are C.malloc,
// C.calloc, C.realloc and C.free, the same libc functions.
static void bf_use_libc_allocator(void) { ts_set_allocator(NULL, NULL, NULL, NULL); }

// bf_rec is one node of the pre-order walk.
typedef struct {
	uint64_t id;          // the node's heap subtree (0 for an inline leaf)
	uint32_t start, end;  // byte span
	int32_t parent, last; // parent index (-1 for the root), one past the subtree
	int32_t from;         // index of the base tree's node whose subtree this one's copies, or -1
	TSSymbol symbol;      // kind id (the alias if aliased), 0xFFFF for ERROR
	TSFieldId field;      // field id in the parent, 0 for none
	uint8_t missing;      // a zero-width leaf inserted by error recovery
} bf_rec;

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "bf_heap_id reads tree-sitter's little-endian Subtree layout"
#endif

// bf_heap_id is the address of node's heap subtree, or 0 for an inline
// leaf. A TSNode's id points at its Subtree, a union of a heap pointer and
// an inline leaf whose first bit (is_inline, subtree.h of tree-sitter
// 0.25) is the pointer's lowest bit, always 0 in a real pointer. An
// unchanged subtree that an incremental parse reuses keeps its heap
// address, which is how bf_flatten recognises it.
static uint64_t bf_heap_id(TSNode node) {
	uint64_t v = *(const uint64_t *)node.id;
	return (v & 1) ? 0 : v;
}

// bf_base is the flattened base tree an incremental parse started from:
// its records, and an open-addressing table from heap subtree to record
// index (keys 0 for empty slots; mask + 1 slots).
typedef struct {
	const bf_rec *recs;
	const uint64_t *keys;
	const int32_t *vals;
	uint64_t mask;
} bf_base;

// bf_lookup is the base's record index of subtree id, or -1.
static int32_t bf_lookup(const bf_base *b, uint64_t id) {
	if (!b || !b->keys || !id) {
		return -1;
	}
	uint64_t h = (id >> 4) * 0x9E3779B97F4A7C15ull;
	for (uint64_t i = h & b->mask;; i = (i + 1) & b->mask) {
		if (b->keys[i] == id) {
			return b->vals[i];
		}
		if (b->keys[i] == 0) {
			return -1;
		}
	}
}

// bf_copy writes the base's subtree at oi (its root already at out[idx],
// from the new tree) after idx, shifted by delta bytes, and returns the
// index after it.
static int64_t bf_copy(const bf_rec *old, int32_t oi, bf_rec *out, int32_t idx, int64_t delta) {
	int32_t size = old[oi].last - oi;
	out[idx].from = oi;
	out[idx].last = idx + size;
	for (int32_t k = 1; k < size; k++) {
		bf_rec r = old[oi + k];
		r.start = (uint32_t)((int64_t)r.start + delta);
		r.end = (uint32_t)((int64_t)r.end + delta);
		r.parent = r.parent - oi + idx;
		r.last = r.last - oi + idx;
		r.from = -1;
		out[idx + k] = r;
	}
	return (int64_t)idx + size;
}

// bf_parse parses src and stores the tree's node count in *count; it
// returns NULL when tree-sitter gives no tree.
static TSTree *bf_parse(TSParser *p, const TSTree *old, const char *src, uint32_t len, uint32_t *count) {
	static const char empty[1] = {0};
	TSTree *t = ts_parser_parse_string(p, old, len ? src : empty, len);
	if (!t) {
		ts_parser_reset(p);
		*count = 0;
		return NULL;
	}
	*count = ts_node_descendant_count(ts_tree_root_node(t));
	return t;
}

// bf_flatten writes the tree's nodes in pre-order to out and returns how
// many it wrote, or -1 when cap was too small. A subtree found in base (an
// unchanged part the incremental parse reused) is copied from the base's
// records instead of walked.
static int64_t bf_flatten(const TSTree *t, bf_rec *out, int64_t cap,
		const bf_rec *old, const uint64_t *keys, const int32_t *vals, uint64_t mask) {
	bf_base b = {old, keys, vals, mask};
	const bf_base *base = old ? &b : NULL;
	TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(t));
	int64_t n = 0;
	int32_t parent = -1;
	for (;;) {
		if (n >= cap || n >= INT32_MAX) {
			ts_tree_cursor_delete(&c);
			return -1;
		}
		TSNode node = ts_tree_cursor_current_node(&c);
		bf_rec *r = &out[n];
		r->id = bf_heap_id(node);
		r->start = ts_node_start_byte(node);
		r->end = ts_node_end_byte(node);
		r->parent = parent;
		r->symbol = ts_node_symbol(node);
		r->field = ts_tree_cursor_current_field_id(&c);
		r->missing = 0;
		r->from = -1;
		int32_t idx = (int32_t)n++;
		int32_t oi = bf_lookup(base, r->id);
		if (oi >= 0 && base->recs[oi].last - oi > 1) {
			if (idx + (int64_t)(base->recs[oi].last - oi) > cap) {
				ts_tree_cursor_delete(&c);
				return -1;
			}
			n = bf_copy(base->recs, oi, out, idx, (int64_t)r->start - base->recs[oi].start);
		} else if (ts_tree_cursor_goto_first_child(&c)) {
			parent = idx;
			continue;
		} else {
			r->last = idx + 1;
			if (r->start == r->end) {
				r->missing = ts_node_is_missing(node);
			}
		}
		while (!ts_tree_cursor_goto_next_sibling(&c)) {
			if (parent < 0 || !ts_tree_cursor_goto_parent(&c)) {
				ts_tree_cursor_delete(&c);
				return n;
			}
			out[parent].last = (int32_t)n;
			parent = out[parent].parent;
		}
	}
}
*/
import "C"

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/benchforge/benchforge/internal/errs"
)

// rec is one flat node as the C walk writes it.
type rec = C.bf_rec

// cTree is a tree-sitter syntax tree, deleted with deleteTree.
type cTree = C.TSTree

func deleteTree(t *cTree) { C.ts_tree_delete(t) }

// copyTree is a shallow copy of t (tree-sitter shares and counts its
// subtrees), to edit without changing t.
func copyTree(t *cTree) *cTree { return C.ts_tree_copy(t) }

// cParser is a tree-sitter parser (not goroutine-safe; see grammar).
type cParser = *C.TSParser

var libcAllocatorOnce sync.Once

// newCParser returns a parser set to the language at lang (a TSLanguage
// pointer from a grammar binding).
func newCParser(lang unsafe.Pointer) (cParser, error) {
	libcAllocatorOnce.Do(func() { C.bf_use_libc_allocator() })
	p := C.ts_parser_new()
	if !C.ts_parser_set_language(p, (*C.TSLanguage)(lang)) {
		C.ts_parser_delete(p)
		return nil, fmt.Errorf("tree-sitter grammar: language version not supported by the linked tree-sitter library: %w", errs.ErrUnavailable)
	}
	return p, nil
}

func deleteCParser(p cParser) { C.ts_parser_delete(p) }

// recPool holds record buffers between parses.
var recPool = sync.Pool{New: func() any { return new([]rec) }}

// parseTree parses src with p. A non-nil old tree, already edited to match
// src (editTree), lets tree-sitter reuse its unchanged subtrees. The caller
// deletes the returned tree.
func parseTree(p cParser, old *C.TSTree, src []byte) (tree *C.TSTree, count int, err error) {
	if len(src) >= maxSource {
		return nil, 0, fmt.Errorf("%d bytes is over the 2 GiB limit: %w", len(src), errs.ErrInput)
	}
	var n C.uint32_t
	var ptr *C.char
	if len(src) > 0 {
		ptr = (*C.char)(unsafe.Pointer(unsafe.SliceData(src)))
	}
	tree = C.bf_parse(p, old, ptr, C.uint32_t(len(src)), &n)
	if tree == nil {
		return nil, 0, fmt.Errorf("tree-sitter returned no tree: %w", errs.ErrUnavailable)
	}
	return tree, int(n), nil
}

// parseRecs parses src with p and returns the tree's nodes in pre-order.
// The caller must hand buf back to recPool when done with the records.
func parseRecs(p cParser, src []byte) (recs []rec, buf *[]rec, err error) {
	tree, count, err := parseTree(p, nil, src)
	if err != nil {
		return nil, nil, err
	}
	defer C.ts_tree_delete(tree)
	return flattenTree(tree, count, nil)
}

// flat is a parsed version kept for incremental parses of the next ones:
// its records, its nodes, and which record holds each heap subtree.
type flat struct {
	src   []byte
	recs  []rec
	nodes []Node
	ids   []uint16
	keys  []uint64 // open addressing, 0 for empty; len a power of two
	vals  []int32
}

// newBase indexes recs (and the nodes built from them) by subtree; only
// inner nodes, since copying a leaf saves nothing.
func newBase(src []byte, recs []rec, nodes []Node, ids []uint16) *flat {
	inner := 0
	for i := range recs {
		if recs[i].id != 0 && int(recs[i].last) > i+1 {
			inner++
		}
	}
	size := 16
	for size < 2*inner {
		size *= 2
	}
	b := &flat{src: src, recs: recs, nodes: nodes, ids: ids, keys: make([]uint64, size), vals: make([]int32, size)}
	mask := uint64(size - 1)
	for i := range recs {
		id := uint64(recs[i].id)
		if id == 0 || int(recs[i].last) <= i+1 {
			continue
		}
		// The same hash as bf_lookup's.
		for j := (id >> 4) * 0x9E3779B97F4A7C15 & mask; ; j = (j + 1) & mask {
			if b.keys[j] == 0 || b.keys[j] == id {
				b.keys[j], b.vals[j] = id, int32(i)
				break
			}
		}
	}
	return b
}

// flattenTree copies tree's nodes out in pre-order (count is its
// descendant count), copying the subtrees it shares with b (nil: none)
// from b's records. The caller must hand buf back to recPool.
func flattenTree(tree *C.TSTree, count int, b *flat) (recs []rec, buf *[]rec, err error) {
	buf = recPool.Get().(*[]rec)
	want := count + 1
	var old *rec
	var keys *C.uint64_t
	var vals *C.int32_t
	var mask C.uint64_t
	if b != nil {
		old = unsafe.SliceData(b.recs)
		keys = (*C.uint64_t)(unsafe.Pointer(unsafe.SliceData(b.keys)))
		vals = (*C.int32_t)(unsafe.Pointer(unsafe.SliceData(b.vals)))
		mask = C.uint64_t(len(b.keys) - 1)
	}
	for {
		if cap(*buf) < want {
			*buf = make([]rec, want)
		}
		rb := (*buf)[:cap(*buf)]
		n := C.bf_flatten(tree, unsafe.SliceData(rb), C.int64_t(len(rb)), old, keys, vals, mask)
		if n >= 0 {
			if b != nil {
				runtime.KeepAlive(b)
			}
			return rb[:n], buf, nil
		}
		if want >= 1<<31 {
			recPool.Put(buf)
			return nil, nil, fmt.Errorf("syntax tree has over 2^31 nodes: %w", errs.ErrInput)
		}
		want = 2 * cap(rb)
	}
}

// editTree tells tree that the text it was parsed from, old, became new
// by replacing one span: the bytes between the common prefix and the
// common suffix of the two texts.
func editTree(tree *C.TSTree, old, new []byte) {
	pre, suf := commonEnds(old, new)
	e := C.TSInputEdit{
		start_byte:    C.uint32_t(pre),
		old_end_byte:  C.uint32_t(len(old) - suf),
		new_end_byte:  C.uint32_t(len(new) - suf),
		start_point:   pointAt(old, pre),
		old_end_point: pointAt(old, len(old)-suf),
		new_end_point: pointAt(new, len(new)-suf),
	}
	C.ts_tree_edit(tree, &e)
}

// point is a (row, byte column) position in a text.
type point struct{ row, col int }

// pointOf is the point of offset off in text.
func pointOf(text []byte, off int) point {
	row := bytes.Count(text[:off], []byte{'\n'})
	return point{row, off - (bytes.LastIndexByte(text[:off], '\n') + 1)}
}

// applyEdit tells tree that bytes [start, oldEnd) of its text, from point
// sp to op, became bytes [start, newEnd), ending at np.
func applyEdit(tree *C.TSTree, start, oldEnd, newEnd int, sp, op, np point) {
	cp := func(p point) C.TSPoint { return C.TSPoint{row: C.uint32_t(p.row), column: C.uint32_t(p.col)} }
	e := C.TSInputEdit{
		start_byte: C.uint32_t(start), old_end_byte: C.uint32_t(oldEnd), new_end_byte: C.uint32_t(newEnd),
		start_point: cp(sp), old_end_point: cp(op), new_end_point: cp(np),
	}
	C.ts_tree_edit(tree, &e)
}

// pointAt is tree-sitter's (row, byte column) of offset off in text.
func pointAt(text []byte, off int) C.TSPoint {
	row := bytes.Count(text[:off], []byte{'\n'})
	col := off - (bytes.LastIndexByte(text[:off], '\n') + 1)
	return C.TSPoint{row: C.uint32_t(row), column: C.uint32_t(col)}
}
