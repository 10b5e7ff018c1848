// Package code owns benchforge's source-code front-ends: parsing Java and
// Python with tree-sitter into a flat, Go-owned syntax tree (File), and the
// views every other package needs of it — functions with their byte and line
// spans, lexical tokens, syntax errors, comment stripping, and the
// normalised and rename-blind line forms used for patch matching (benchchecker
// Stage II) and clone detection (rxsynth §4.4).
//
// Definitions:
//
//   - Function: Java method_declaration, constructor_declaration and
//     compact_constructor_declaration nodes anywhere in the file (nested,
//     local and anonymous classes included; lambdas are not functions).
//     Python function_definition nodes (def and async def) anywhere, with
//     the decorators of a decorated definition included in its span. Class
//     is the chain of enclosing class-like declarations joined with "."
//     (an anonymous Java class contributes "<anonymous>", an enum
//     constant's body "<CONSTANT>"); Kind is
//     "constructor", "method" (Java, or a Python def directly in a class
//     body) or "function".
//   - Token: a leaf of the tree, except that string, character and
//     text-block literals (Python strings including f-strings) are one
//     Literal token each; zero-width (MISSING) leaves are not tokens.
//     Comments are Comment tokens.
//   - Normalised line (Normalize): the non-comment tokens of one statement
//     joined by single spaces. See Normalize for where lines break.
//
// Parsing never fails for valid UTF-8: tree-sitter recovers from syntax
// errors with ERROR and MISSING nodes, which SyntaxErrors reports. The tree
// is copied into Go memory and the C tree closed before Parse returns. A
// tree-sitter parser is not goroutine-safe, so each parse takes one from a
// small per-language free list (surplus parsers are closed); Parse may be
// called concurrently, and a File is immutable and safe for concurrent reads.
//
// Speed: the tree is copied out of C by one walk in C per parse
// (cparse.go), not by cgo calls per node, and tree-sitter is switched from
// go-tree-sitter's Go-callback allocator to libc's (a process-wide
// setting; see bf_use_libc_allocator). Measured figures are in
// bench_test.go and the metrics package doc; about three quarters of
// ParseJavaMethod's CPU time is now tree-sitter's own parsing.
package code

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"

	ts "github.com/tree-sitter/go-tree-sitter"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	tspython "github.com/tree-sitter/tree-sitter-python/bindings/go"

	"github.com/benchforge/benchforge/internal/errs"
)

// Lang names a supported source language.
type Lang string

// Supported languages.
const (
	LangJava   Lang = "java"
	LangPython Lang = "python"
)

// DetectLang returns the language of path by its extension (.java; .py,
// .pyi). Any other extension is an error wrapping errs.ErrUnsupported.
func DetectLang(path string) (Lang, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".java":
		return LangJava, nil
	case ".py", ".pyi":
		return LangPython, nil
	}
	return "", fmt.Errorf("detect language(%s): extension %q is not .java, .py or .pyi: %w",
		path, filepath.Ext(path), errs.ErrUnsupported)
}

// grammar is the per-language state shared by all parses: the tree-sitter
// language, kind and field name tables indexed by id (so the flat tree never
// calls into C for names), token classes by kind id, and a pool of parsers.
type grammar struct {
	ptr    unsafe.Pointer // the TSLanguage
	idx    uint8          // its index in grammarList (Node.lang)
	kinds  []string       // kind id -> name
	canon  []uint16       // kind id -> the first id of the same name
	named  []bool         // kind id -> named
	fields []string       // field id -> name
	// Token classes by kind id (see eachToken): atomic[id] is the class of
	// a node read as one token, or -1; leaf[id] that of a leaf.
	atomic []int8
	leaf   []TokenKind
	// fnKinds[id] is the Function.Kind of a declaration of kind id, or "".
	fnKinds []string

	mu   sync.Mutex
	idle []cParser // parsers ready for reuse, at most maxIdleParsers
}

// maxIdleParsers bounds the parsers kept for reuse per language; a parser
// returned when the list is full is closed.
const maxIdleParsers = 8

// getParser returns an idle parser or a new one set to g's language.
func (g *grammar) getParser() (cParser, error) {
	g.mu.Lock()
	if n := len(g.idle); n > 0 {
		p := g.idle[n-1]
		g.idle = g.idle[:n-1]
		g.mu.Unlock()
		return p, nil
	}
	g.mu.Unlock()
	return newCParser(g.ptr)
}

// putParser keeps p for reuse or closes it.
func (g *grammar) putParser(p cParser) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.idle) < maxIdleParsers {
		g.idle = append(g.idle, p)
		return
	}
	deleteCParser(p)
}

var (
	grammarsOnce sync.Once
	grammars     map[Lang]*grammar
	// grammarList is indexed by Node.lang; it is filled before any Node
	// exists, since Nodes come only from parses.
	grammarList []*grammar
)

func loadGrammars() {
	grammarList = []*grammar{newGrammar(LangJava, tsjava.Language(), 0), newGrammar(LangPython, tspython.Language(), 1)}
	grammars = map[Lang]*grammar{LangJava: grammarList[0], LangPython: grammarList[1]}
}

func newGrammar(name Lang, ptr unsafe.Pointer, idx uint8) *grammar {
	l := ts.NewLanguage(ptr)
	g := &grammar{ptr: ptr, idx: idx}
	n := l.NodeKindCount()
	g.kinds = make([]string, n)
	g.named = make([]bool, n)
	for id := uint32(0); id < n; id++ {
		g.kinds[id] = l.NodeKindForId(uint16(id))
		g.named[id] = l.NodeKindIsNamed(uint16(id))
	}
	fc := l.FieldCount()
	g.fields = make([]string, fc+1)
	for id := uint32(1); id <= fc; id++ {
		g.fields[id] = l.FieldNameForId(uint16(id))
	}
	g.canon = canonKinds(g.kinds)
	g.atomic = make([]int8, n)
	g.leaf = make([]TokenKind, n)
	g.fnKinds = make([]string, n)
	for id := range g.kinds {
		g.fnKinds[id] = functionKinds[name][g.kinds[id]]
		g.atomic[id] = -1
		if k, ok := atomicKinds[name][g.kinds[id]]; ok {
			g.atomic[id] = int8(k)
		}
		g.leaf[id] = classifyLeaf(g.kinds[id], g.named[id], false, leafKinds[name], separators[name])
	}
	return g
}

func grammarFor(lang Lang) (*grammar, error) {
	grammarsOnce.Do(loadGrammars)
	g, ok := grammars[lang]
	if !ok {
		return nil, fmt.Errorf("language %q: %w", lang, errs.ErrUnsupported)
	}
	return g, nil
}

func (g *grammar) kind(id uint16) string {
	if int(id) < len(g.kinds) {
		return g.kinds[id]
	}
	return "ERROR" // ts_builtin_sym_error is 0xFFFF
}

func (g *grammar) isNamed(id uint16) bool {
	if int(id) < len(g.named) {
		return g.named[id]
	}
	return true
}

// kindSet is a set of node kinds given by name and looked up by a Node's
// kind id: a map lookup by name for every node of every version parsed
// was a sixth of Stage II's line cutting.
type kindSet struct {
	names map[string]bool
	once  sync.Once
	ids   [][]bool // by grammar index (Node.lang), then kind id
}

func newKindSet(names map[string]bool) *kindSet { return &kindSet{names: names} }

// has reports whether n's kind is in the set.
func (s *kindSet) has(n Node) bool {
	s.once.Do(func() {
		s.ids = make([][]bool, len(grammarList))
		for gi, g := range grammarList {
			s.ids[gi] = make([]bool, len(g.kinds))
			for id, k := range g.kinds {
				s.ids[gi][id] = s.names[k]
			}
		}
	})
	t := s.ids[n.lang]
	return int(n.kind) < len(t) && t[n.kind]
}

// canonKinds maps each kind id to the first id with the same name: a
// grammar may give one name several ids, and Kind() compares names.
func canonKinds(kinds []string) []uint16 {
	first := map[string]uint16{}
	out := make([]uint16, len(kinds))
	for id, k := range kinds {
		if _, ok := first[k]; !ok {
			first[k] = uint16(id)
		}
		out[id] = first[k]
	}
	return out
}

// canonKind is id's canonical id (canonKinds); an id past the table
// (tree-sitter's ERROR) is itself unless a kind in the table has its name.
func (g *grammar) canonKind(id uint16) uint16 {
	if int(id) < len(g.canon) {
		return g.canon[id]
	}
	k := g.kind(id)
	for i, name := range g.kinds {
		if name == k {
			return uint16(i)
		}
	}
	return id
}
