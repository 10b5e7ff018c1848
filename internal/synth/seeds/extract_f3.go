package seeds

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/benchforge/benchforge/internal/change"
	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/diff"
)

// FilePair is one source file of a bug on both sides of its fix.
type FilePair struct {
	Path  string // repository-relative, slash-separated
	Buggy []byte
	Fixed []byte
}

// MethodPair is one method or constructor whose body the fix changes
// (rxsynth §3.2 F3): its declaration text on both sides, dedented, with
// its line spans in the buggy and fixed files.
type MethodPair struct {
	File       string
	Key        string // change.Key of the fixed declaration: Class.Name(T1,T2)
	Name       string // the method's simple name; "<init>" for a constructor, as stack traces write it
	Signature  string // the fixed declaration's signature
	Buggy      string
	Fixed      string
	BuggySpan  [2]int // 1-based inclusive lines in the buggy file
	FixedSpan  [2]int
	DocChanged []string // other functions of the file touched only in comments or layout
}

// F3Exclusion says why a bug fails F3.
type F3Exclusion struct {
	Reason string
}

func (e *F3Exclusion) Error() string { return e.Reason }

// ExtractMethodPairs applies filter F3 of rxsynth §3.2 to one bug's changed
// files and returns one MethodPair per changed method, in file and source
// order, or an *F3Exclusion saying why the bug is dropped.
//
// Definition. Only Java files are considered. Within a file, the outermost
// functions (methods and constructors not nested in another function's
// body; code.Function) with a body are matched between the sides by
// change.Key. The bug is kept when:
//
//   - every changed file is a .java file present on both sides;
//   - the two sides declare the same outermost functions (no method or
//     constructor added, removed or given other parameter types);
//   - each function's header — modifiers, annotations, return type, name,
//     parameters, throws clause — is unchanged after code.Normalize (so
//     comments and layout do not count): otherwise "signature-only" or
//     signature change;
//   - the file with every outermost body replaced by "{}" is unchanged after
//     code.Normalize, ignoring import declarations: otherwise a field,
//     initializer, annotation or type declaration changed;
//   - at least one function body differs after code.Normalize. A body that
//     differs only in comments or layout is a documentation-only change:
//     it yields no pair (listed in DocChanged), and a bug with nothing else
//     is dropped as documentation-only.
//
// A bug whose fix changes several method bodies gives one pair per method
// (the paper's Lang-47 has two); changes to imports are tolerated because
// they cannot alter a method's behaviour by themselves.
func ExtractMethodPairs(files []FilePair) ([]MethodPair, *F3Exclusion) {
	var pairs []MethodPair
	var docOnly []string
	for _, f := range files {
		if bytes.Equal(f.Buggy, f.Fixed) {
			continue
		}
		if !strings.HasSuffix(f.Path, ".java") {
			return nil, &F3Exclusion{fmt.Sprintf("non-Java source change in %s", f.Path)}
		}
		ps, docs, ex := filePairs(f)
		if ex != nil {
			return nil, ex
		}
		pairs = append(pairs, ps...)
		docOnly = append(docOnly, docs...)
	}
	if len(pairs) == 0 {
		if len(docOnly) > 0 {
			return nil, &F3Exclusion{"documentation-only change: " + strings.Join(docOnly, ", ") + " differ only in comments or layout"}
		}
		return nil, &F3Exclusion{"documentation-only change: the source files differ only in comments, layout or imports"}
	}
	for i := range pairs {
		pairs[i].DocChanged = docOnly
	}
	return pairs, nil
}

type side struct {
	file  *code.File
	fns   map[string]code.Function
	order []string
}

func parseSide(path string, src []byte) (*side, error) {
	f, err := code.Parse(code.LangJava, path, src)
	if err != nil {
		return nil, err
	}
	s := &side{file: f, fns: map[string]code.Function{}}
	for _, fn := range outermost(f.Functions()) {
		k := change.Key(fn)
		for n := 2; ; n++ { // same key twice (e.g. two anonymous classes in initialisers)
			if _, dup := s.fns[k]; !dup {
				break
			}
			k = fmt.Sprintf("%s#%d", change.Key(fn), n)
		}
		s.fns[k] = fn
		s.order = append(s.order, k)
	}
	return s, nil
}

// outermost keeps the functions that are not inside another function's
// declaration (local and anonymous-class methods belong to their encloser).
func outermost(fns []code.Function) []code.Function {
	var out []code.Function
	end := -1
	for _, fn := range fns { // source order: an enclosing function comes first
		if fn.StartByte < end {
			continue
		}
		out = append(out, fn)
		end = fn.EndByte
	}
	return out
}

func filePairs(f FilePair) ([]MethodPair, []string, *F3Exclusion) {
	b, err := parseSide(f.Path, f.Buggy)
	if err != nil {
		return nil, nil, &F3Exclusion{fmt.Sprintf("cannot parse buggy %s: %v", f.Path, err)}
	}
	defer b.file.Close()
	x, err := parseSide(f.Path, f.Fixed)
	if err != nil {
		return nil, nil, &F3Exclusion{fmt.Sprintf("cannot parse fixed %s: %v", f.Path, err)}
	}
	defer x.file.Close()
	if ex := sameMethods(f.Path, b, x); ex != nil {
		return nil, nil, ex
	}
	if ex := sameHeaders(f.Path, b, x); ex != nil {
		return nil, nil, ex
	}
	sb, sx := skeleton(b), skeleton(x)
	if !slices.Equal(sb, sx) {
		o, n := firstDifference(sb, sx)
		return nil, nil, &F3Exclusion{fmt.Sprintf("%s: change outside method bodies (field, initializer, annotation or type declaration): buggy %q, fixed %q",
			f.Path, o, n)}
	}
	pairs, docs := bodyPairs(f, b, x)
	return pairs, docs, nil
}

// sameMethods excludes a file whose two sides do not declare the same
// methods and constructors (by key).
func sameMethods(path string, b, x *side) *F3Exclusion {
	var removed, added []string
	for _, k := range b.order {
		if _, ok := x.fns[k]; !ok {
			removed = append(removed, k)
		}
	}
	for _, k := range x.order {
		if _, ok := b.fns[k]; !ok {
			added = append(added, k)
		}
	}
	if len(removed)+len(added) > 0 {
		return &F3Exclusion{fmt.Sprintf("%s: methods or constructors added, removed or re-signatured (buggy only: %s; fixed only: %s)",
			path, listOrNone(removed), listOrNone(added))}
	}
	return nil
}

// sameHeaders excludes a file where a method's declaration outside its
// body changed: a signature-only change when no such method's body
// changed too.
func sameHeaders(path string, b, x *side) *F3Exclusion {
	var headers []string
	for _, k := range x.order {
		if header(b.file, b.fns[k]) != header(x.file, x.fns[k]) {
			headers = append(headers, k)
		}
	}
	if len(headers) == 0 {
		return nil
	}
	what := "signature-only change"
	for _, k := range headers {
		if !bodyEqual(b.file, b.fns[k], x.file, x.fns[k]) {
			what = "signature change"
		}
	}
	return &F3Exclusion{fmt.Sprintf("%s: %s of %s (modifiers, annotations, return type, parameters or throws clause)",
		path, what, strings.Join(headers, ", "))}
}

// bodyPairs pairs the methods whose bodies differ token by token; the
// methods the change touched only in comments or layout are returned,
// sorted, as documentation-only changes.
func bodyPairs(f FilePair, b, x *side) ([]MethodPair, []string) {
	touched := touchedMethods(f, b, x)
	var pairs []MethodPair
	var docs []string
	for _, k := range x.order {
		bf, xf := b.fns[k], x.fns[k]
		if bodyEqual(b.file, bf, x.file, xf) {
			if touched[k] || !bytes.Equal(text(b.file, bf), text(x.file, xf)) {
				docs = append(docs, k)
			}
			continue
		}
		pairs = append(pairs, MethodPair{
			File: f.Path, Key: k, Name: frameName(xf), Signature: xf.Signature,
			Buggy: methodText(b.file.Src, bf), Fixed: methodText(x.file.Src, xf),
			BuggySpan: [2]int{bf.StartLine, bf.EndLine}, FixedSpan: [2]int{xf.StartLine, xf.EndLine},
		})
	}
	sort.Strings(docs)
	return pairs, docs
}

// touchedMethods are the keys of the methods change.Methods finds
// changed, located on the fixed side, else on the buggy side.
func touchedMethods(f FilePair, b, x *side) map[string]bool {
	touched := map[string]bool{}
	r, err := change.Methods(f.Path, f.Buggy, f.Path, f.Fixed)
	if err != nil {
		return touched
	}
	for _, fn := range r.Functions {
		if k := enclosingKey(x, fn.New.Start); k != "" {
			touched[k] = true
		} else if k := enclosingKey(b, fn.Old.Start); k != "" {
			touched[k] = true
		}
	}
	return touched
}

func listOrNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func enclosingKey(s *side, line int) string {
	if line <= 0 {
		return ""
	}
	for _, k := range s.order {
		fn := s.fns[k]
		if fn.StartLine <= line && line <= fn.EndLine {
			return k
		}
	}
	return ""
}

func text(f *code.File, fn code.Function) []byte { return f.Src[fn.StartByte:fn.EndByte] }

// header is the normalised declaration with its body removed.
func header(f *code.File, fn code.Function) string {
	var b bytes.Buffer
	b.WriteString("class C {\n")
	b.Write(f.Src[fn.StartByte:fn.BodyStartByte])
	if fn.HasBody() {
		b.WriteString("{}")
	}
	b.Write(f.Src[fn.BodyEndByte:fn.EndByte])
	b.WriteString("\n}\n")
	return strings.Join(code.Normalize(code.LangJava, b.Bytes()), "\n")
}

// bodyEqual compares two bodies token by token (comments and layout
// ignored).
func bodyEqual(bf *code.File, b code.Function, xf *code.File, x code.Function) bool {
	return slices.Equal(normBody(bf, b), normBody(xf, x))
}

func normBody(f *code.File, fn code.Function) []string {
	var b bytes.Buffer
	b.WriteString("class C {\nvoid m() ")
	b.Write(f.Src[fn.BodyStartByte:fn.BodyEndByte])
	b.WriteString("\n}\n")
	return code.Normalize(code.LangJava, b.Bytes())
}

// skeleton is the normalised file with every outermost body emptied and
// import declarations dropped.
func skeleton(s *side) []string {
	src := s.file.Src
	fns := make([]code.Function, 0, len(s.order))
	for _, k := range s.order {
		fns = append(fns, s.fns[k])
	}
	sort.Slice(fns, func(i, j int) bool { return fns[i].StartByte < fns[j].StartByte })
	var b bytes.Buffer
	at := 0
	for _, fn := range fns {
		if !fn.HasBody() || fn.BodyStartByte < at {
			continue
		}
		b.Write(src[at:fn.BodyStartByte])
		b.WriteString("{}")
		at = fn.BodyEndByte
	}
	b.Write(src[at:])
	var out []string
	for _, l := range code.Normalize(code.LangJava, b.Bytes()) {
		if !strings.HasPrefix(l, "import ") {
			out = append(out, l)
		}
	}
	return out
}

// firstDifference returns the first line of each side that the other side
// lacks (by position after the common prefix and suffix).
func firstDifference(a, b []string) (string, string) {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	j := 0
	for j < len(a)-i && j < len(b)-i && a[len(a)-1-j] == b[len(b)-1-j] {
		j++
	}
	var o, n string
	if i < len(a)-j {
		o = a[i]
	}
	if i < len(b)-j {
		n = b[i]
	}
	return o, n
}

// methodText cuts a declaration out of its file, from the start of its
// first line when only indentation precedes it, and removes the
// indentation common to its non-blank lines.
func methodText(src []byte, fn code.Function) string {
	start := fn.StartByte
	for start > 0 && (src[start-1] == ' ' || src[start-1] == '\t') {
		start--
	}
	if start > 0 && src[start-1] != '\n' {
		start = fn.StartByte
	}
	return dedent(string(src[start:fn.EndByte]))
}

func dedent(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	lines := strings.Split(s, "\n")
	prefix := ""
	first := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ind := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if first {
			prefix, first = ind, false
			continue
		}
		for !strings.HasPrefix(ind, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) {
			lines[i] = l[len(prefix):]
		} else {
			lines[i] = strings.TrimLeft(l, " \t")
		}
	}
	return strings.Join(lines, "\n")
}

// methodDiff is the unified diff from the buggy to the fixed method.
func methodDiff(file, buggy, fixed string) string {
	return diff.Unified("a/"+file, "b/"+file, []byte(buggy+"\n"), []byte(fixed+"\n"), 3).String()
}

func frameName(fn code.Function) string {
	if fn.Kind == "constructor" {
		return "<init>"
	}
	return fn.Name
}
