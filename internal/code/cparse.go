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
	uint32_t start, end;  // byte span
	int32_t parent, last; // parent index (-1 for the root), one past the subtree
	TSSymbol symbol;      // kind id (the alias if aliased), 0xFFFF for ERROR
	TSFieldId field;      // field id in the parent, 0 for none
	uint8_t missing;      // a zero-width leaf inserted by error recovery
} bf_rec;

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
// many it wrote, or -1 when cap was too small.
static int64_t bf_flatten(const TSTree *t, bf_rec *out, int64_t cap) {
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
		r->start = ts_node_start_byte(node);
		r->end = ts_node_end_byte(node);
		r->parent = parent;
		r->symbol = ts_node_symbol(node);
		r->field = ts_tree_cursor_current_field_id(&c);
		r->missing = 0;
		int32_t idx = (int32_t)n++;
		if (ts_tree_cursor_goto_first_child(&c)) {
			parent = idx;
			continue;
		}
		r->last = idx + 1;
		if (r->start == r->end) {
			r->missing = ts_node_is_missing(node);
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
	return flattenTree(tree, count)
}

// flattenTree copies tree's nodes out in pre-order (count is its
// descendant count). The caller must hand buf back to recPool.
func flattenTree(tree *C.TSTree, count int) (recs []rec, buf *[]rec, err error) {
	buf = recPool.Get().(*[]rec)
	want := count + 1
	for {
		if cap(*buf) < want {
			*buf = make([]rec, want)
		}
		b := (*buf)[:cap(*buf)]
		n := C.bf_flatten(tree, unsafe.SliceData(b), C.int64_t(len(b)))
		if n >= 0 {
			return b[:n], buf, nil
		}
		if want >= 1<<31 {
			recPool.Put(buf)
			return nil, nil, fmt.Errorf("syntax tree has over 2^31 nodes: %w", errs.ErrInput)
		}
		want = 2 * cap(b)
	}
}

// editTree tells tree that the text it was parsed from, old, became new
// by replacing one span: the bytes between the common prefix and the
// common suffix of the two texts.
func editTree(tree *C.TSTree, old, new []byte) {
	pre := 0
	for pre < len(old) && pre < len(new) && old[pre] == new[pre] {
		pre++
	}
	suf := 0
	for suf < len(old)-pre && suf < len(new)-pre && old[len(old)-1-suf] == new[len(new)-1-suf] {
		suf++
	}
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
