// Package change maps a change between two versions of a source file to
// the functions it touches: it parses both versions with internal/code,
// diffs them with internal/diff, and attributes every changed line to its
// innermost enclosing function. Stage II (which patch blocks belong to
// which function), seed extraction (is a fix confined to one method body?)
// and the CLI's `diff methods` all stand on it.
package change

import (
	"fmt"
	"strings"

	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/diff"
)

// Function is one function touched by the change.
type Function struct {
	// Key names the function uniquely within the file: Class.Name(param
	// types), so overloads stay apart. "" is code outside every function.
	Key       string `json:"key"`
	Name      string `json:"name,omitempty"`
	Class     string `json:"class,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Signature string `json:"signature,omitempty"`
	// Side: "old" (only in or only changed on the old side, e.g. deleted),
	// "new" (added), or "both".
	Side string `json:"side"`
	// Spans of the function in each version (zero when absent there).
	Old Span `json:"old"`
	New Span `json:"new"`
	// Changed lines: OldLines deleted (old numbering), NewLines added.
	OldLines []int `json:"old_lines,omitempty"`
	NewLines []int `json:"new_lines,omitempty"`
	Added    int   `json:"added"`
	Deleted  int   `json:"deleted"`
	// BodyOnly is true when every changed line lies inside the function's
	// body on both sides (not its signature, annotations or Javadoc), the
	// shape rxsynth §3.2's F3 keeps.
	BodyOnly bool `json:"body_only"`
}

// Span is a 1-based inclusive line range; zero when absent.
type Span struct {
	Start int `json:"start,omitempty"`
	End   int `json:"end,omitempty"`
}

// Result is what Methods returns.
type Result struct {
	Lang      code.Lang          `json:"lang"`
	Functions []Function         `json:"functions"`
	Diff      *diff.FileDiff     `json:"-"`
	Warnings  []code.SyntaxError `json:"warnings,omitempty"`
}

// Key returns the overload-proof name of fn: Class.Name(T1,T2).
func Key(fn code.Function) string {
	types := make([]string, len(fn.Params))
	for i, p := range fn.Params {
		types[i] = p.Type
		if types[i] == "" {
			types[i] = p.Name
		}
	}
	return fn.QualifiedName() + "(" + strings.Join(types, ",") + ")"
}

// Methods reports which functions the change from old to new touches.
// The language comes from newPath (else oldPath). Syntax errors do not stop
// it: they are returned as warnings and the parsable functions are used.
func Methods(oldPath string, old []byte, newPath string, new []byte) (*Result, error) {
	lang, err := code.DetectLang(newPath)
	if err != nil {
		if lang, err = code.DetectLang(oldPath); err != nil {
			return nil, fmt.Errorf("diff methods(%s): %w", newPath, err)
		}
	}
	of, err := code.Parse(lang, oldPath, old)
	if err != nil {
		return nil, fmt.Errorf("diff methods: %w", err)
	}
	defer of.Close()
	nf, err := code.Parse(lang, newPath, new)
	if err != nil {
		return nil, fmt.Errorf("diff methods: %w", err)
	}
	defer nf.Close()
	return FromFiles(of, nf), nil
}

// FromFiles is Methods over already parsed files.
func FromFiles(of, nf *code.File) *Result {
	res := &Result{Lang: nf.Lang}
	res.Warnings = append(of.SyntaxErrors(), nf.SyntaxErrors()...)
	oldFns, newFns := of.Functions(), nf.Functions()
	res.Diff = diff.Unified(of.Path, nf.Path, of.Src, nf.Src, 3)
	byKey := map[string]*Function{}
	oldSpans, newSpans := functionSpans(oldFns, byKey, true), functionSpans(newFns, byKey, false)
	oldBody, newBody := bodies(of, oldFns), bodies(nf, newFns)
	for _, t := range diff.Touched(res.Diff, oldSpans, newSpans) {
		f := Function{Key: t.Function}
		if p := byKey[t.Function]; p != nil {
			f = *p
		}
		f.Side, f.OldLines, f.NewLines, f.Added, f.Deleted = t.Side, t.OldLines, t.NewLines, t.Added, t.Deleted
		f.BodyOnly = t.Function != "" &&
			within(t.OldLines, oldBody[t.Function]) && within(t.NewLines, newBody[t.Function]) &&
			f.Old.Start > 0 && f.New.Start > 0
		res.Functions = append(res.Functions, f)
	}
	return res
}

// functionSpans returns the spans of one side's functions, named by key,
// and records each function in byKey with its span on that side (old, or
// new, whose signature wins).
func functionSpans(fns []code.Function, byKey map[string]*Function, old bool) []diff.Span {
	out := make([]diff.Span, len(fns))
	for i, fn := range fns {
		k := Key(fn)
		out[i] = diff.Span{Name: k, StartLine: fn.StartLine, EndLine: fn.EndLine}
		f := byKey[k]
		if f == nil {
			f = &Function{Key: k, Name: fn.Name, Class: fn.Class, Kind: fn.Kind, Signature: fn.Signature}
			byKey[k] = f
		}
		if old {
			f.Old = Span{fn.StartLine, fn.EndLine}
		} else {
			f.New = Span{fn.StartLine, fn.EndLine}
			f.Signature = fn.Signature
		}
	}
	return out
}

// bodies returns, per function key, the lines that count as its body for
// BodyOnly. Java body spans run from the line of '{' to the line of '}',
// and those lines may carry the signature or the next declaration, so only
// the lines strictly between them count. A Python body runs from the line
// after the header's ':' to the end of the function, which takes in
// comments before the first statement (outside the grammar's block).
func bodies(f *code.File, fns []code.Function) map[string][2]int {
	m := map[string][2]int{}
	nodes := f.Nodes()
	for _, fn := range fns {
		lo, hi := fn.BodyStartLine+1, fn.BodyEndLine-1
		if f.Lang == code.LangPython {
			lo, hi = fn.BodyStartLine, fn.EndLine
			for c := range f.Children(fn.Node) {
				if nodes[c].Kind() == ":" {
					lo = min(lo, nodes[c].EndLine()+1)
				}
			}
		}
		m[Key(fn)] = [2]int{lo, hi}
	}
	return m
}

// within reports whether every line lies in the body range.
func within(lines []int, body [2]int) bool {
	for _, l := range lines {
		if l < body[0] || l > body[1] {
			return false
		}
	}
	return true
}
