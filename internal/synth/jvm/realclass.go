package jvm

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/benchforge/benchforge/internal/code"
)

// realClass is a pair placed in its real class (project mode): the file
// the pair came from, at its commit, with the host method's lines replaced
// by the buggy (B) or the fixed (F) method and the top-level class renamed
// B<n>/F<n>, in the real package — so the method sees its real fields,
// helpers and package-private collaborators, compiled against the
// project's classes.
type realClass struct {
	pkg     string            // the file's package
	outer   string            // the top-level class's name in the file
	nested  string            // "$Inner" chain of the method's class below it
	start   int               // first line of the method in both files
	texts   map[string]string // "O" the real file; "B", "F" with the method replaced, until located
	imports string            // the file's import lines, for the argument class
	others  []string          // other top-level types of the file, renamed too
	// chain is the method's class ("Outer.Inner"); overloaded is set when
	// the class declares another method of the same name.
	chain      string
	overloaded bool
	// The pair's variants in its unit (variants.go), per kind: the name
	// the worker calls, the method text, and its first line in the unit.
	call, variant map[string]string
	vstart        map[string]int
}

var harnessHelper = regexp.MustCompile(`\bbf[A-Z]\w*\(`)

var importLine = regexp.MustCompile(`(?m)^\s*import\s+[\w.*\s]+;`)

// newRealClass reads the pair's source file from the project tree and
// splices both methods into it.
func newRealClass(p *Project, h *harness, files *realFiles) (*realClass, string) {
	src := h.pair.Source
	rf, err := files.read(p, src.Path)
	if err != nil {
		return nil, fmt.Sprintf("project source %s: %v", src.Path, err)
	}
	lines := rf.lines
	if src.Span.Start < 1 || src.Span.End < src.Span.Start || src.Span.End > len(lines) {
		return nil, fmt.Sprintf("project source %s has %d lines; the method span %d-%d is outside it", src.Path, len(lines), src.Span.Start, src.Span.End)
	}
	// "O" is the real file as it is, to which the variants are added.
	rc := &realClass{start: src.Span.Start, texts: map[string]string{"O": rf.text}, pkg: rf.pkg, imports: rf.imports}
	for kind, method := range map[string]string{"B": h.pair.BuggyMethod, "F": h.pair.FixedMethod} {
		if !strings.HasSuffix(method, "\n") {
			method += "\n"
		}
		rc.texts[kind] = strings.Join(lines[:src.Span.Start-1], "") + method + strings.Join(lines[src.Span.End:], "")
	}
	if why := rc.locate(h, p, files); why != "" {
		return nil, why
	}
	// Only the real file is compiled, with the variants (variants.go):
	// the buggy and fixed copies served to locate the method.
	delete(rc.texts, "B")
	delete(rc.texts, "F")
	return rc, ""
}

// locate finds the method's class chain in the buggy file and, for an
// instance method of a class without a no-argument constructor, adds one
// that delegates to the shortest public constructor with ordinary values.
func (rc *realClass) locate(h *harness, p *Project, files *realFiles) string {
	f, owned, last, chain, why := rc.parsed(h, files)
	if why != "" {
		return why
	}
	if owned {
		defer f.Close()
	}
	rc.chain = chain
	for _, fn := range f.Functions() {
		rc.overloaded = rc.overloaded || fn.Class == chain && fn.Name == h.bsig.Name && (fn.StartLine < rc.start || fn.StartLine > last)
	}
	parts := strings.Split(chain, ".")
	if strings.Contains(chain, "<") { // <anonymous>, or an enum constant's <BODY>
		return "the method is in an anonymous class: no way to call it"
	}
	rc.outer, rc.nested = parts[0], ""
	rc.others = topLevelTypes(f, rc.outer)
	for _, p := range parts[1:] {
		rc.nested += "$" + p
	}
	if h.bsig.Static {
		return ""
	}
	if decl := classDecl(f, chain); len(parts) > 1 && (decl < 0 || !staticNested(f, decl)) {
		return "" // an inner class needs an outer instance: the worker's no-argument constructor rule decides
	}
	best, need := shortestConstructor(f, chain)
	if !need {
		return ""
	}
	var realParse *code.File
	if !owned {
		realParse = f // files' parse of texts["O"]
	}
	return rc.addConstructor(h.pair.Source.Path, chain, receiverArgs(p, best), realParse)
}

// typeDecls are the tree-sitter kinds of Java type declarations.
var typeDecls = map[string]bool{"class_declaration": true, "interface_declaration": true, "enum_declaration": true,
	"record_declaration": true, "annotation_type_declaration": true}

// classDecl is the node of the class declared as chain ("Outer.Inner"),
// or -1.
func classDecl(f *code.File, chain string) int {
	for i, n := range f.Nodes() {
		if n.Kind() == "class_declaration" && typeChain(f, i) == chain {
			return i
		}
	}
	return -1
}

// typeChain joins the names of the type declarations from the outermost
// down to node i.
func typeChain(f *code.File, i int) string {
	nodes := f.Nodes()
	var names []string
	for p := i; p >= 0; p = nodes[p].Parent() {
		if c := f.ChildByField(p, "name"); typeDecls[nodes[p].Kind()] && c >= 0 {
			names = append([]string{f.Text(c)}, names...)
		}
	}
	return strings.Join(names, ".")
}

// staticNested reports whether the nested class at decl needs no outer
// instance: it is static, or a member of an interface.
func staticNested(f *code.File, decl int) bool {
	nodes := f.Nodes()
	for c := range f.Children(decl) {
		if nodes[c].Kind() == "modifiers" && slices.Contains(strings.Fields(f.Text(c)), "static") {
			return true
		}
	}
	body := nodes[decl].Parent()
	return body >= 0 && nodes[body].Parent() >= 0 && nodes[nodes[body].Parent()].Kind() == "interface_declaration"
}

// parsed is the file locate reads, the method's last line in it and its
// class chain. That is the real file as it is, parsed once for all its
// pairs (files), with the method's real span: only the method differs
// from the buggy file, and locate reads the class structure around it.
// Without files, or when the real file has no such method there, it is
// the buggy file, parsed for this pair alone; owned says the caller
// closes f.
func (rc *realClass) parsed(h *harness, files *realFiles) (f *code.File, owned bool, last int, chain, why string) {
	path := h.pair.Source.Path
	if files != nil {
		if f, err := files.parse(path, rc.texts["O"]); err == nil {
			last := h.pair.Source.Span.End
			if chain := rc.methodClass(f, h, last); chain != "" {
				return f, false, last, chain, ""
			}
		}
	}
	f, err := code.Parse(code.LangJava, path, []byte(rc.texts["B"]))
	if err != nil {
		return nil, false, 0, "", fmt.Sprintf("project source %s does not parse: %v", path, err)
	}
	last = rc.start + strings.Count(h.pair.BuggyMethod, "\n")
	if chain = rc.methodClass(f, h, last); chain == "" {
		f.Close()
		return nil, false, 0, "", fmt.Sprintf("method %s not found at line %d of %s", h.bsig.Name, rc.start, path)
	}
	return f, true, last, chain, ""
}

// realFiles holds the parse of the real file the last pair lived in:
// byFile puts a file's pairs together, and each pair used to parse its
// whole file again (commons-lang's StringUtils, 8,000 lines: most of
// harness building's CPU time).
type realFiles struct {
	path, text, pkg, imports string
	lines                    []string
	parsedOK                 bool
	f                        *code.File
	err                      error
}

// read loads the real file at path (project-relative) as UTF-8, with its
// package and imports, unless it is the one already held.
func (c *realFiles) read(p *Project, path string) (*realFiles, error) {
	if c.path == path && c.text != "" {
		return c, nil
	}
	c.close()
	data, err := os.ReadFile(filepath.Join(p.Root, filepath.FromSlash(path)))
	if err != nil {
		return nil, err
	}
	c.path, c.text = path, string(p.toUTF8(data))
	c.lines = strings.SplitAfter(c.text, "\n")
	if m := packageDecl.FindStringSubmatch(c.text); m != nil {
		c.pkg = m[1]
	}
	c.imports = strings.Join(importLine.FindAllString(c.text, -1), "\n")
	return c, nil
}

// parse returns the parse of the file read last (text is its content).
func (c *realFiles) parse(path, text string) (*code.File, error) {
	if c.path != path || text != c.text {
		return nil, fmt.Errorf("%s is not the file held", path)
	}
	if !c.parsedOK {
		c.f, c.err = code.Parse(code.LangJava, path, []byte(text))
		c.parsedOK = true
	}
	return c.f, c.err
}

func (c *realFiles) close() {
	if c.f != nil {
		c.f.Close()
	}
	*c = realFiles{}
}

// methodClass is the class chain ("Outer.Inner") of the function named as
// the buggy method within lines rc.start..last, or "".
func (rc *realClass) methodClass(f *code.File, h *harness, last int) string {
	for _, fn := range f.Functions() {
		if fn.StartLine >= rc.start && fn.StartLine <= last && fn.Name == h.bsig.Name {
			return fn.Class
		}
	}
	return ""
}

// shortestConstructor is the parameter list of the class's constructor
// with the fewest parameters; need is false when the class has a
// no-argument constructor, declared or implicit.
func shortestConstructor(f *code.File, class string) (best []code.Param, need bool) {
	var ctors [][]code.Param
	for _, fn := range f.Functions() {
		if fn.Kind == "constructor" && fn.Class == class {
			ctors = append(ctors, fn.Params)
		}
	}
	if len(ctors) == 0 {
		return nil, false // the implicit constructor
	}
	best = ctors[0]
	for _, c := range ctors {
		if len(c) == 0 {
			return nil, false
		}
		if len(c) < len(best) {
			best = c
		}
	}
	return best, true
}

// receiverArgs are the arguments, cast to their parameter types, with
// which the added constructor delegates to the one with params.
func receiverArgs(p *Project, params []code.Param) []string {
	args := make([]string, len(params))
	for i, prm := range params {
		// A generic parameter type is reached through Object: the
		// value's own type arguments (a diamond's Object, Object) are
		// not convertible to it directly.
		via := ""
		if strings.Contains(prm.Type, "<") {
			via = "(Object) "
		}
		typ := prm.Type
		if t, ok := strings.CutSuffix(typ, "..."); ok {
			typ = t + "[]"
		}
		args[i] = "(" + typ + ") " + via + receiverArg(p, typ)
	}
	return args
}

// addConstructor adds to the method's class (chain: the outer class or a
// static nested one) a no-argument constructor delegating with args, in
// the real file ("O"), which is the one compiled: the pair's variants go
// into it (variants.go). real, when not nil, is the parse of that file,
// reused rather than parsed again (before, each such pair parsed three
// whole files here: most of harness building's CPU time).
func (rc *realClass) addConstructor(path, chain string, args []string, real *code.File) string {
	name := chain[strings.LastIndex(chain, ".")+1:]
	text := rc.texts["O"]
	var end int
	if real != nil {
		end = classBodyEndIn(real, text, chain)
	} else {
		end = classBodyEnd(text, path, chain)
	}
	if end < 0 {
		return "no closing brace of class " + chain + " in " + path
	}
	// Same line as the closing brace: no line of the method moves.
	// "throws Exception": the delegated constructor may declare
	// checked exceptions (a stream's IOException).
	rc.texts["O"] = text[:end] + fmt.Sprintf(" %s() throws Exception { this(%s); } ", name, strings.Join(args, ", ")) + text[end:]
	return ""
}

// topLevelTypes names the file's top-level type declarations but skip.
func topLevelTypes(f *code.File, skip string) []string {
	var out []string
	nodes := f.Nodes()
	for i, n := range nodes {
		if n.Parent() < 0 || nodes[n.Parent()].Parent() >= 0 {
			continue
		}
		switch n.Kind() {
		case "class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "annotation_type_declaration":
			if c := f.ChildByField(i, "name"); c >= 0 && f.Text(c) != skip {
				out = append(out, f.Text(c))
			}
		}
	}
	return out
}

// fqcn is the binary name of the method's class.
func (rc *realClass) fqcn() string {
	name := rc.outer + rc.nested
	if rc.pkg == "" {
		return name
	}
	return rc.pkg + "." + name
}

// sourceName is the full source name of the method's class
// ("pkg.Outer.Inner").
func (rc *realClass) sourceName() string {
	name := strings.ReplaceAll(rc.chain, "$", ".")
	if rc.pkg == "" {
		return name
	}
	return rc.pkg + "." + name
}

// pkgDir is the package's directory under a class or source root.
func (rc *realClass) pkgDir(root string) string {
	return filepath.Join(root, filepath.FromSlash(strings.ReplaceAll(rc.pkg, ".", "/")))
}

// topNames are the file's top-level type names, whose class files (and
// those of their nested and anonymous classes) make up one side.
func (rc *realClass) topNames() []string { return append([]string{rc.outer}, rc.others...) }

// useProject switches a harness to project mode: the methods go into
// their real class and the inputs come from the project's real types.
func (h *harness) useProject(p *Project, files *realFiles) {
	h.project = p
	if h.failed != "" {
		return
	}
	if h.pair.Source == nil {
		h.failed = "project mode: the pair has no source (repository, commit, path, span)"
		return
	}
	rc, why := newRealClass(p, h, files)
	if why != "" {
		h.failed = "cannot compile: " + why
		return
	}
	h.real = rc
	own := p.builtValue(rc.sourceName())
	for i, prm := range h.bsig.Params {
		if c := p.realCandidates(prm.Type, 0); c != nil {
			h.cands[i] = c
		}
		if own != "" && isObjectType(prm.Type) && !slices.Contains(h.cands[i], own) {
			// An Object parameter also gets a value of the method's own
			// class (equals, compareTo, a copy-from): the one type such
			// methods test for or cast to before the code under test runs.
			h.cands[i] = append(h.cands[i], own)
		}
	}
	if !h.bsig.Static {
		// By the class's full name: its simple name may be another
		// package's class too (a receiver of that class is "not a" the
		// method's class, and which one the simple name meant depended
		// on the pairs of the run).
		if rs := p.receiverCandidates(rc.sourceName()); len(rs) > 0 {
			h.cands = append(h.cands, rs) // the receiver dimension (receivers.go)
			h.hasRecv = true
		}
	}
}

// offset is the number of file lines above side kind's method in its
// file: the harness's B/F, or the variant's unit in project mode.
func (h *harness) offset(kind string) int {
	if h.real != nil && h.real.vstart[kind] > 0 {
		return h.real.vstart[kind] - 1
	}
	if h.real != nil {
		return h.real.start - 1
	}
	return methodOffset
}

// callName is the name the worker calls for side kind: the variant's in
// project mode.
func (h *harness) callName(kind string) string {
	if h.real != nil && h.real.call[kind] != "" {
		return h.real.call[kind]
	}
	if kind == "F" {
		return h.fsig.Name
	}
	return h.bsig.Name
}

// argsImports are the imports of the argument class: the common JDK ones
// and, in project mode, the real file's imports and its package.
func (h *harness) argsImports() string {
	if h.real == nil {
		return imports
	}
	s := imports + "\n" + h.real.imports
	if h.real.pkg != "" {
		s += "\nimport " + h.real.pkg + ".*;"
	}
	// One line: the argument class's line numbers name its candidates. A
	// CRLF file's carriage returns go too (javac counts a lone CR as a
	// line end: mockito's sources).
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// realFailure is the record of a project-mode compile error: no stubs are
// grown, since the project's classpath has every type the class needs.
func (h *harness) realFailure(d diagnostic, kind string) string {
	side := "buggy"
	if kind == "F" {
		side = "fixed"
	}
	line := d.Line - h.offset(kind)
	where := fmt.Sprintf("%s method line %d", side, line)
	if n := strings.Count(h.pair.BuggyMethod, "\n") + 1; line < 1 || line > n+2 {
		where = fmt.Sprintf("%s class %s line %d (outside the method)", side, h.pair.Source.Path, d.Line)
	}
	return fmt.Sprintf("cannot compile against the project: %s: %s", where, diagMessage(d))
}

// outsideFailure is the record of a project-mode compile error outside
// every variant of the pair's unit, at line of the real file.
func (h *harness) outsideFailure(d diagnostic, line int) string {
	return fmt.Sprintf("cannot compile against the project: class %s line %d (outside the method): %s", h.pair.Source.Path, line, diagMessage(d))
}

// classpath is the verifier's compile and run classpath: its harness
// classes, then the project's classes and jars in project mode.
func (v *Verifier) classpath() string {
	if v.opts.Project == nil {
		return v.classes
	}
	return v.classes + string(os.PathListSeparator) + v.opts.Project.Classpath()
}

// compileClasspath is classpath with only the jars the project's build
// read (Project.UsedJars): what javac needs for the pairs' classes.
func (v *Verifier) compileClasspath() string {
	if v.opts.Project == nil {
		return v.classes
	}
	return v.classes + string(os.PathListSeparator) + v.opts.Project.CompileClasspath()
}

// classBodyEnd is the byte offset of the closing brace of the class
// declared as chain ("Outer", "Outer.Nested") in a Java file, or -1.
func classBodyEnd(text, path, chain string) int {
	f, err := code.Parse(code.LangJava, path, []byte(text))
	if err != nil {
		return -1
	}
	defer f.Close()
	return classBodyEndIn(f, text, chain)
}

// classBodyEndIn is classBodyEnd on f, the parse of text.
func classBodyEndIn(f *code.File, text, chain string) int {
	i := -1
	for k, n := range f.Nodes() {
		if typeDecls[n.Kind()] && typeChain(f, k) == chain {
			i = k // a class, or an enum holding the method (joda's TimeZoneId)
			break
		}
	}
	if i < 0 {
		return -1
	}
	return strings.LastIndex(text[:f.Nodes()[i].EndByte()], "}")
}

// receiverArg is a constructor argument for the receiver: the ordinary
// candidate, but an empty collection or map for those (an element of the
// wrong kind would fail in the constructor, before the method runs).
func receiverArg(p *Project, typ string) string {
	// The constructor is in the real class, where the argument class's
	// helpers (bfMap, bfWith) do not exist: a candidate using one does not
	// compile there (jackson-databind's ObjectReader, 22 pairs).
	//
	// It stays as it was before receivers were built (receivers.go): an
	// abstract project type gets null and a concrete one its first
	// constructor with null for project types below it, since a value
	// that does not compile here fails the pair, while a receiver built
	// in the argument class only loses that candidate.
	if t := p.lookup(parseType(typ).erasure()); t != nil && t.Abstract && t.Kind != "enum" {
		return "null"
	}
	v := ordinaryReceiverArg(p, typ)
	if elem, ok := strings.CutSuffix(strings.TrimSpace(typ), "[]"); ok && strings.Contains(v, "new "+parseType(elem).erasure()+"()") {
		// An empty array when the element is a guessed default
		// instance, which for an interface does not compile
		// (commons-collections' AllPredicate(Predicate[]), joda-time's
		// MatchingParser(DateTimeParser[]): 8 of the 1,034 grounded
		// Defects4J pairs; issue 16).
		return "new " + parseType(elem).erasure() + "[0]"
	}
	return v
}

// ordinaryReceiverArg is receiverArg's value for a type that is not an
// abstract project type.
func ordinaryReceiverArg(p *Project, typ string) string {
	for _, c := range p.realCandidates(typ, maxBuildDepth) {
		if !harnessHelper.MatchString(c) {
			return c
		}
	}
	c := candidates(typ, nil)
	if len(c) > 2 && (strings.HasPrefix(c[2], "new java.util.") && strings.HasSuffix(c[2], "()")) {
		return c[2]
	}
	if c[0] == "new "+parseType(typ).erasure()+"()" {
		return "null" // a guessed default instance: an interface or abstract class has none
	}
	return c[0]
}

// isObjectType reports whether a parameter type is java.lang.Object.
func isObjectType(typ string) bool {
	return typ == "Object" || typ == "java.lang.Object"
}
