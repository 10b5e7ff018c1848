package jvm

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// Harness layout. Each pair n gets its own package bfv.p<n> (so stubs of
// different pairs never clash) holding B<n> (the buggy method verbatim
// but for its own annotations, blanked: blankAnnotations), F<n> (the fixed
// method likewise), A<n> (the argument vectors) and, when
// needed, S<n>.java with stub classes. File base names are unique across
// the batch so javac's diagnostics map to one pair.
const (
	pkgRoot = "bfv"
	// methodOffset is the number of source lines above the method in
	// B<n>/F<n>; stubs go below the method so this never changes.
	methodOffset = 4
	imports      = "import java.util.*; import java.util.function.*; import java.util.regex.*; import java.util.stream.*; " +
		"import java.io.*; import java.math.*; import java.text.*; import java.nio.charset.*;"
)

type harness struct {
	n          int
	pair       corpus.Pair
	bsig, fsig Signature
	stubs      stubSet
	cands      [][]string // per parameter, Java expressions
	vecs       [][]int    // argument vectors: candidate index per parameter
	argLines   map[int][2]int
	failed     string // why it cannot compile ("" when it can)
	rounds     int    // javac rounds judged on its diagnostics
	// batchRounds is the javac runs its batch took, the rounds it waited
	// for other pairs included.
	batchRounds int
	// model, when set, replaces the boundary search: vector k is the
	// proposal's input modelIdx[k], one candidate per parameter.
	model    *ModelHarness
	modelIdx []int
	// project and real, in project mode (realclass.go): the pair runs in
	// its real class, compiled against the project.
	project *Project
	real    *realClass
	// argAlone and argNoSourcePath are its argument class's source-path
	// state (splitArgFault); a pair whose unit compiled without the
	// source path starts without it.
	argAlone, argNoSourcePath bool
	// hasRecv: the last candidate list is the receiver's
	// (receiverCandidates), "null" its class's no-argument constructor.
	hasRecv bool
	// anchors are the patch-anchored vectors (anchor.go), one expression
	// per parameter ("" the ordinary candidate), tried before the
	// boundary search; anchorRules the rules that derived them, and
	// nAnchored how many of vecs they are.
	anchors     [][]string
	anchorRules []string
	nAnchored   int
}

func newHarness(n int, p corpus.Pair) *harness {
	h := &harness{n: n, pair: p}
	var err error
	if h.bsig, err = ParseSignature(p.BuggyMethod); err != nil {
		h.failed = "buggy method: " + err.Error()
		return h
	}
	if h.fsig, err = ParseSignature(p.FixedMethod); err != nil {
		h.failed = "fixed method: " + err.Error()
		return h
	}
	if len(h.bsig.Params) != len(h.fsig.Params) {
		h.failed = fmt.Sprintf("the fixed method has %d parameters, the buggy %d: no common input", len(h.fsig.Params), len(h.bsig.Params))
		return h
	}
	for i, prm := range h.bsig.Params {
		if parseType(prm.Type).erasure() != parseType(h.fsig.Params[i].Type).erasure() {
			h.failed = fmt.Sprintf("parameter %d is %s in the buggy and %s in the fixed method: no common input", i+1, prm.Type, h.fsig.Params[i].Type)
			return h
		}
		h.cands = append(h.cands, withIntLiterals(withLiterals(candidates(prm.Type, h.bsig.TypeVars), prm.Type, p.BuggyMethod), prm.Type, p.BuggyMethod))
	}
	return h
}

// maxLiterals bounds the string literals of the buggy method added to a
// String parameter's candidates.
const maxLiterals = 8

var stringLiteral = regexp.MustCompile(`"((?:[^"\\\n]|\\.)*)"`)

// withLiterals adds, for a String or CharSequence parameter, the string
// literals of the buggy method and each followed by "1" (a prefix the
// method tests for, "0x", "--", "#", with something after it): a
// fuzzer's dictionary, read from the buggy side only, never from the fix.
// They go after the boundary values, so the all-ordinary vector and
// single-parameter variations still come first.
func withLiterals(cands []string, typ, method string) []string {
	if t := simple(parseType(typ).base); t != "String" && t != "CharSequence" || parseType(typ).dims > 0 {
		return cands
	}
	seen := map[string]bool{}
	for _, c := range cands {
		seen[c] = true
	}
	for _, v := range literalValues(method) {
		if !seen[v] {
			seen[v] = true
			cands = append(cands, v)
		}
	}
	return cands
}

// literalValues are, for each of the method's first maxLiterals string
// literals of at most 40 bytes, the literal and the literal with a digit
// after it.
func literalValues(method string) []string {
	var out []string
	n := 0
	for _, m := range stringLiteral.FindAllStringSubmatch(method, -1) {
		if n == maxLiterals || len(m[1]) > 40 {
			continue
		}
		out = append(out, `"`+m[1]+`"`, `"`+m[1]+`1"`)
		n++
	}
	return out
}

// intLiteral is a decimal integer literal not part of a name or a
// floating-point number.
var intLiteral = regexp.MustCompile(`(?:^|[^\w.])(\d+)(?:[^\w.]|$)`)

// withIntLiterals adds, for an integral parameter, the buggy method's
// integer literals above 1 (the bounds it compares against: "i > 10",
// "len == 4") as n-1, n and n+1, for the first maxLiterals of them; read
// from the buggy side only, like withLiterals, and outside its string
// literals.
func withIntLiterals(cands []string, typ, method string) []string {
	t := parseType(typ)
	if p, ok := boxes[simple(t.base)]; ok {
		t.base = p
	}
	if t.dims > 0 || !integral[t.base] {
		return cands
	}
	body := stringLiteral.ReplaceAllString(method, `""`)
	n := 0
	for _, m := range intLiteral.FindAllStringSubmatch(body, -1) {
		v, err := strconv.ParseInt(m[1], 10, 32)
		if err != nil || v < 2 || n == maxLiterals {
			continue
		}
		n++
		for _, x := range []int64{v - 1, v, v + 1} {
			if c := integralLiteral(t.base, x); !slices.Contains(cands, c) {
				cands = append(cands, c)
			}
		}
	}
	return cands
}

// integral are the integral primitive types.
var integral = map[string]bool{"int": true, "long": true, "short": true, "byte": true}

// integralLiteral is x as a Java expression of type base.
func integralLiteral(base string, x int64) string {
	switch base {
	case "long":
		return strconv.FormatInt(x, 10) + "L"
	case "short", "byte":
		return "(" + base + ") " + strconv.FormatInt(x, 10)
	}
	return strconv.FormatInt(x, 10)
}

func (h *harness) pkg() string              { return fmt.Sprintf("%s.p%d", pkgRoot, h.n) }
func (h *harness) class(kind string) string { return fmt.Sprintf("%s%d", kind, h.n) }
func (h *harness) fqcn(kind string) string {
	if h.real != nil && kind != "A" {
		return h.real.fqcn()
	}
	if kind == "A" {
		return h.argsPkg() + "." + h.class(kind)
	}
	return h.pkg() + "." + h.class(kind)
}

// argsPkg is the argument class's package: in project mode the real
// class's own (its package-private types and the file's static imports
// of them are then accessible, as they are to the method), else the
// pair's harness package.
func (h *harness) argsPkg() string {
	if h.real != nil && h.real.pkg != "" {
		return h.real.pkg
	}
	return h.pkg()
}

// argsClassFile is where javac writes the argument class.
func (h *harness) argsClassFile(classes string) string {
	return filepath.Join(classes, filepath.FromSlash(strings.ReplaceAll(h.argsPkg(), ".", "/")), h.class("A")+".class")
}

func (h *harness) harnessNames() map[string]bool {
	return map[string]bool{h.class("B"): true, h.class("F"): true}
}

// sources renders the pair's Java files (base name → text), choosing up
// to limit argument vectors from the surviving candidates.
func (h *harness) sources(limit int) map[string]string {
	out := map[string]string{
		h.class("B") + ".java": h.methodClass("B", blankAnnotations(h.pair.BuggyMethod)),
		h.class("F") + ".java": h.methodClass("F", blankAnnotations(h.pair.FixedMethod)),
		h.class("A") + ".java": h.argsClass(limit),
	}
	if len(h.stubs.classes) > 0 || len(h.stubs.super) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "package %s;\n%s\n", h.pkg(), imports)
		h.stubs.renderClasses(&b)
		if len(h.stubs.super) > 0 {
			fmt.Fprintf(&b, "class %s {\n", h.class("P"))
			renderMembers(&b, h.stubs.super)
			b.WriteString("}\n")
		}
		out[h.class("S")+".java"] = b.String()
	}
	return out
}

func (h *harness) methodClass(kind, method string) string {
	var b strings.Builder
	c := h.class(kind)
	// Exactly methodOffset lines before the method.
	ext := ""
	if len(h.stubs.super) > 0 {
		ext = " extends " + h.class("P") // the "super." stubs
	}
	fmt.Fprintf(&b, "package %s;\n%s\n@SuppressWarnings(\"all\") public class %s%s {\n  public %s() {}\n", h.pkg(), imports, c, ext, c)
	b.WriteString(method)
	if !strings.HasSuffix(method, "\n") {
		b.WriteByte('\n')
	}
	renderMembers(&b, h.stubs.harness)
	b.WriteString("}\n")
	return b.String()
}

// vectorSlack is how many argument vectors a pair gets per call of its
// budget.
const vectorSlack = 4

func (h *harness) argsClass(limit int) string {
	var b strings.Builder
	line := 1
	w := func(format string, a ...any) {
		s := fmt.Sprintf(format, a...)
		b.WriteString(s)
		line += strings.Count(s, "\n")
	}
	w("package %s;\n%s\n", h.argsPkg(), h.argsImports())
	w("@SuppressWarnings(\"all\") final class %s {\n", h.class("A"))
	w("  static <M extends Map> M bfMap(M m, Object... kv) { for (int i = 0; i + 1 < kv.length; i += 2) m.put(kv[i], kv[i + 1]); return m; }\n")
	w("  static <T> T bfWith(T t, java.util.function.Consumer<T> c) { c.accept(t); return t; }\n")
	if h.hasRecv {
		w("  static final boolean bfReceiver = true; // the last candidate list is the receiver's\n")
	}
	if slices.ContainsFunc(h.cands, func(cs []string) bool { return slices.Contains(cs, selfArg) }) {
		w("  static final Object %s = new Object(); // the worker passes the receiver in its place (self_test)\n", selfArg)
	}
	// v(p, k) is candidate k of parameter p; one candidate per line so a
	// compile error names the candidate.
	w("  static Object v(int p, int k) {\n    switch (p) {\n")
	h.argLines = map[int][2]int{}
	for p, cs := range h.cands {
		w("    case %d: switch (k) {\n", p)
		for k, e := range cs {
			h.argLines[line] = [2]int{p, k}
			w("      case %d: return %s;\n", k, e)
		}
		w("    }\n")
	}
	w("    }\n    throw new IndexOutOfBoundsException(\"candidate \" + p + \",\" + k);\n  }\n}\n")
	if h.model != nil {
		h.vecs = make([][]int, len(h.modelIdx))
		for k := range h.vecs {
			h.vecs[k] = slices.Repeat([]int{k}, len(h.cands))
		}
		return b.String()
	}
	sizes := make([]int, len(h.cands))
	for i, cs := range h.cands {
		sizes[i] = len(cs)
	}
	// More vectors than the call budget: the search skips those holding a
	// candidate that failed to build (verify.go skip), and the budget
	// then goes to the next ones. A pair none of whose vectors is skipped
	// runs the same inputs as with limit vectors (the enumeration's
	// prefix), since each run vector costs at least one call.
	n := limit * vectorSlack
	h.vecs, h.nAnchored = withAnchored(h.anchoredIndexVectors(), vectors(sizes, n), n)
	return b.String()
}

// vector renders argument vector i for the worker: "k0,k1,...".
func (h *harness) vector(i int) string {
	ks := make([]string, len(h.vecs[i]))
	for p, k := range h.vecs[i] {
		ks[p] = fmt.Sprint(k)
	}
	return strings.Join(ks, ",")
}

// input renders argument vector i as Java source: "f(null, 0)".
func (h *harness) input(i int) string {
	if i < 0 || i >= len(h.vecs) {
		return ""
	}
	args := make([]string, len(h.vecs[i]))
	for p, k := range h.vecs[i] {
		args[p] = h.cands[p][k]
	}
	params := slices.Clone(args[:len(h.bsig.Params)])
	self := slices.Contains(params, selfArg)
	for p, a := range params {
		if a == selfArg {
			params[p] = "x" // the receiver itself
		}
	}
	call := h.bsig.Name + "(" + strings.Join(params, ", ") + ")"
	recv := ""
	if h.hasRecv && args[len(args)-1] != "null" {
		recv = args[len(args)-1]
	}
	switch {
	case self && recv != "":
		return "bfWith(" + recv + ", x -> x." + call + ")"
	case self: // the default receiver: the class's no-argument constructor
		class := h.class("B")
		if h.real != nil {
			class = h.real.sourceName()
		}
		return "bfWith(new " + class + "(), x -> x." + call + ")"
	case recv != "":
		return "(" + recv + ")." + call
	}
	return call
}

// dropCandidate removes candidate k of parameter p (it did not compile).
func (h *harness) dropCandidate(p, k int) bool {
	if p < 0 || p >= len(h.cands) || k < 0 || k >= len(h.cands[p]) || len(h.cands[p]) == 1 {
		return false
	}
	h.cands[p] = append(h.cands[p][:k:k], h.cands[p][k+1:]...)
	return true
}

// useModel replaces the boundary candidates with a model's proposals:
// candidate k of every parameter is argument p of the k-th runnable
// input, so vector k is (k, …, k). Inputs of the wrong arity or that are
// not one argument expression are dropped here, with the reason.
func (h *harness) useModel(mh *ModelHarness) {
	h.model = mh
	h.hasRecv = false
	if h.failed != "" {
		return
	}
	h.cands = make([][]string, len(h.bsig.Params))
	h.modelIdx = nil
	for i := range mh.Inputs {
		in := &mh.Inputs[i]
		if in.Dropped != "" {
			continue
		}
		if in.Dropped = inputProblem(in.Args, len(h.bsig.Params)); in.Dropped != "" {
			continue
		}
		for p, a := range in.Args {
			h.cands[p] = append(h.cands[p], a)
		}
		h.modelIdx = append(h.modelIdx, i)
	}
}

// dropInput removes model vector k (it did not compile) and records why.
func (h *harness) dropInput(k int, why string) {
	if k < 0 || k >= len(h.modelIdx) {
		return
	}
	h.model.Inputs[h.modelIdx[k]].Dropped = "does not compile: " + why
	h.modelIdx = slices.Delete(h.modelIdx, k, k+1)
	for p := range h.cands {
		h.cands[p] = slices.Delete(h.cands[p], k, k+1)
	}
}

// inputProblem is why a model input of args cannot run on a method of n
// parameters (the wrong arity, an argument that is not one expression),
// or "".
func inputProblem(args []string, n int) string {
	if len(args) != n {
		return fmt.Sprintf("%d arguments for %d parameters", len(args), n)
	}
	for p, a := range args {
		if why := checkExpr(a); why != "" {
			return fmt.Sprintf("argument %d: %s", p+1, why)
		}
	}
	return ""
}

// blankAnnotations replaces the method's own annotations (@Override,
// @Deprecated, @SuppressWarnings(...), framework annotations) with
// spaces. Alone in a harness class they cannot compile (@Override
// overrides nothing; an unknown annotation type is no Annotation), and a
// reflective call never reads them. Newlines are kept, so every line and
// column of the method, and with them the patched site, stay where they
// were. Text that does not parse cleanly is returned unchanged.
func blankAnnotations(method string) string {
	f, err := code.ParseJavaMethod([]byte(method))
	if err != nil {
		return method
	}
	defer f.Close()
	if len(f.SyntaxErrors()) > 0 {
		return method
	}
	spans := ownAnnotations(f)
	if len(spans) == 0 {
		return method
	}
	b := []byte(method)
	for _, sp := range spans {
		for i := sp[0]; i < sp[1]; i++ {
			if b[i] != '\n' && b[i] != '\r' {
				b[i] = ' '
			}
		}
	}
	return string(b)
}

// ownAnnotations are the byte spans of the annotations among the
// modifiers of the parsed method itself (not of a method of a class
// inside it).
func ownAnnotations(f *code.File) [][2]int {
	nodes := f.Nodes()
	for _, fn := range f.Functions() {
		if fn.Class != "" { // a method of a class inside the method
			continue
		}
		var spans [][2]int
		for m := range f.Children(fn.Node) {
			if nodes[m].Kind() == "modifiers" {
				spans = append(spans, annotationsIn(f, m)...)
			}
		}
		return spans
	}
	return nil
}

// annotationsIn are the byte spans of the annotations among node m's
// children.
func annotationsIn(f *code.File, m int) [][2]int {
	nodes := f.Nodes()
	var spans [][2]int
	for c := range f.Children(m) {
		if k := nodes[c].Kind(); k == "annotation" || k == "marker_annotation" {
			spans = append(spans, [2]int{nodes[c].StartByte(), nodes[c].EndByte()})
		}
	}
	return spans
}
