package code

import (
	"strings"
)

// Param is one formal parameter. For Java varargs Type ends in "...";
// Python *args / **kwargs keep their stars in Name, and Type is the
// annotation text or "".
type Param struct {
	Name string `json:"name"`
	Type string `json:"type,omitempty"`
}

// Function is one function-like declaration with its spans. For a Java
// declaration without a body (abstract, interface, native) the body span is
// empty and placed at EndByte / EndLine.
type Function struct {
	Name      string  `json:"name"`
	Class     string  `json:"class,omitempty"`
	Kind      string  `json:"kind"` // "method" | "constructor" | "function"
	Signature string  `json:"signature"`
	Params    []Param `json:"params"`
	// Whole declaration (Java: modifiers and annotations included; Python:
	// decorators included). Lines are 1-based and inclusive.
	StartByte int `json:"start_byte"`
	EndByte   int `json:"end_byte"`
	StartLine int `json:"start_line"`
	EndLine   int `json:"end_line"`
	// The body: Java block including braces; Python block after the colon.
	BodyStartByte int `json:"body_start_byte"`
	BodyEndByte   int `json:"body_end_byte"`
	BodyStartLine int `json:"body_start_line"`
	BodyEndLine   int `json:"body_end_line"`

	// Node is the index in File.Nodes of the declaration node.
	Node int `json:"-"`
}

// HasBody reports whether the declaration has a body.
func (fn Function) HasBody() bool { return fn.BodyEndByte > fn.BodyStartByte }

// QualifiedName is Class + "." + Name, or Name for a top-level function.
func (fn Function) QualifiedName() string {
	if fn.Class == "" {
		return fn.Name
	}
	return fn.Class + "." + fn.Name
}

// functionKinds maps the kinds of function declarations to Function.Kind
// (Python's "function" becomes "method" in a class body).
var functionKinds = map[Lang]map[string]string{
	LangJava:   javaFunctionKinds,
	LangPython: {"function_definition": "function"},
}

var javaFunctionKinds = map[string]string{
	"method_declaration":              "method",
	"constructor_declaration":         "constructor",
	"compact_constructor_declaration": "constructor",
}

var javaTypeDecls = map[string]bool{
	"class_declaration": true, "interface_declaration": true, "enum_declaration": true,
	"record_declaration": true, "annotation_type_declaration": true,
}

// Functions returns the file's functions in source order (see the package
// doc for what counts).
func (f *File) Functions() []Function {
	var out []Function
	if f.g == nil || len(f.ids) != len(f.nodes) { // not from Parse: no tree
		return nil
	}
	fnKinds := f.g.fnKinds
	for i, id := range f.ids {
		if int(id) >= len(fnKinds) || fnKinds[id] == "" {
			continue
		}
		switch f.Lang {
		case LangJava:
			out = append(out, f.javaFunction(i, fnKinds[id]))
		case LangPython:
			out = append(out, f.pythonFunction(i))
		}
	}
	return out
}

func (f *File) javaFunction(i int, kind string) Function {
	n := &f.nodes[i]
	fn := Function{Kind: kind, Node: i, Params: []Param{},
		StartByte: n.StartByte(), EndByte: n.EndByte(), StartLine: n.StartLine(), EndLine: endLine(n)}
	if c := f.ChildByField(i, "name"); c >= 0 {
		fn.Name = f.Text(c)
	}
	sigEnd := n.EndByte()
	if b := f.ChildByField(i, "body"); b >= 0 {
		f.setBody(&fn, b)
		sigEnd = f.nodes[b].StartByte()
	} else {
		fn.BodyStartByte, fn.BodyEndByte = n.EndByte(), n.EndByte()
		fn.BodyStartLine, fn.BodyEndLine = fn.EndLine, fn.EndLine
	}
	if ps := f.ChildByField(i, "parameters"); ps >= 0 {
		fn.Params = f.javaParams(ps)
	}
	fn.Signature = strings.TrimSuffix(f.signature(i, n.StartByte(), sigEnd), ";")
	fn.Class = f.classChain(i)
	return fn
}

// setBody records fn's body, node b.
func (f *File) setBody(fn *Function, b int) {
	bn := &f.nodes[b]
	fn.BodyStartByte, fn.BodyEndByte = bn.StartByte(), bn.EndByte()
	fn.BodyStartLine, fn.BodyEndLine = bn.StartLine(), endLine(bn)
}

// javaParams reads the formal and varargs parameters of the Java
// parameter list ps.
func (f *File) javaParams(ps int) []Param {
	params := []Param{}
	for c := range f.Children(ps) {
		switch f.nodes[c].Kind() {
		case "formal_parameter":
			p := Param{Type: f.squash(f.ChildByField(c, "type"))}
			if nm := f.ChildByField(c, "name"); nm >= 0 {
				p.Name = f.Text(nm)
			}
			if d := f.ChildByField(c, "dimensions"); d >= 0 {
				p.Type += f.squash(d)
			}
			params = append(params, p)
		case "spread_parameter":
			params = append(params, f.javaSpreadParam(c))
		}
	}
	return params
}

// javaSpreadParam reads a varargs parameter "T... name": its type gets
// the "...".
func (f *File) javaSpreadParam(c int) Param {
	p := Param{}
	for cc := range f.Children(c) {
		switch f.nodes[cc].Kind() {
		case "variable_declarator":
			if nm := f.ChildByField(cc, "name"); nm >= 0 {
				p.Name = f.Text(nm)
			}
		case "modifiers", "...", "annotation", "marker_annotation":
		default:
			if f.nodes[cc].Named() {
				p.Type = f.squash(cc)
			}
		}
	}
	p.Type += "..."
	return p
}

func (f *File) pythonFunction(i int) Function {
	n := &f.nodes[i]
	fn := Function{Kind: "function", Node: i, Params: []Param{},
		StartByte: n.StartByte(), EndByte: n.EndByte(), StartLine: n.StartLine(), EndLine: endLine(n)}
	f.pythonScope(&fn, n)
	if c := f.ChildByField(i, "name"); c >= 0 {
		fn.Name = f.Text(c)
	}
	sigEnd := n.EndByte()
	if b := f.ChildByField(i, "body"); b >= 0 {
		f.setBody(&fn, b)
		sigEnd = f.pythonSignatureEnd(i, f.nodes[b].StartByte())
	}
	if ps := f.ChildByField(i, "parameters"); ps >= 0 {
		fn.Params = f.pythonParams(ps)
	}
	fn.Signature = f.signature(i, n.StartByte(), sigEnd)
	fn.Class = f.classChain(i)
	return fn
}

// pythonScope starts fn at its decorators, when it has any, and makes it
// a method when a class body holds it.
func (f *File) pythonScope(fn *Function, n *Node) {
	scope := n.Parent()
	if scope >= 0 && f.nodes[scope].Kind() == "decorated_definition" {
		d := &f.nodes[scope]
		fn.StartByte, fn.StartLine = d.StartByte(), d.StartLine()
		scope = d.Parent()
	}
	if scope >= 0 && f.nodes[scope].Kind() == "block" {
		if p := f.nodes[scope].Parent(); p >= 0 && f.nodes[p].Kind() == "class_definition" {
			fn.Kind = "method"
		}
	}
}

// pythonSignatureEnd is where the signature of function i stops: before
// the ':' that introduces the body starting at bodyStart.
func (f *File) pythonSignatureEnd(i, bodyStart int) int {
	sigEnd := bodyStart
	for c := range f.Children(i) {
		if f.nodes[c].Kind() == ":" && f.nodes[c].StartByte() < bodyStart {
			sigEnd = f.nodes[c].StartByte()
		}
	}
	return sigEnd
}

// pythonParams reads the plain, splat, typed and default parameters of
// the Python parameter list ps.
func (f *File) pythonParams(ps int) []Param {
	params := []Param{}
	for c := range f.Children(ps) {
		switch f.nodes[c].Kind() {
		case "identifier", "list_splat_pattern", "dictionary_splat_pattern", "tuple_pattern":
			params = append(params, Param{Name: f.squash(c)})
		case "typed_parameter":
			p := Param{Type: f.squash(f.ChildByField(c, "type"))}
			for cc := range f.Children(c) {
				if f.nodes[cc].Field() == "" && f.nodes[cc].Named() {
					p.Name = f.squash(cc)
					break
				}
			}
			params = append(params, p)
		case "default_parameter", "typed_default_parameter":
			params = append(params, Param{
				Name: f.squash(f.ChildByField(c, "name")),
				Type: f.squash(f.ChildByField(c, "type")),
			})
		}
	}
	return params
}

// endLine is the last line holding a byte of n: a node ending at column 1
// ends on the previous line.
func endLine(n *Node) int {
	if n.EndCol() == 1 && n.EndLine() > n.StartLine() {
		return n.EndLine() - 1
	}
	return n.EndLine()
}

// ClassBody is the index of the body node (class_body, enum_body, …) of
// the Java type declaration named chain ("Outer.Inner", as Function.Class
// names a method's class), or -1 when the file declares no such type.
func (f *File) ClassBody(chain string) int {
	if f.Lang != LangJava {
		return -1
	}
	for i := range f.nodes {
		if !javaTypeDecls[f.nodes[i].Kind()] {
			continue
		}
		name := f.ChildByField(i, "name")
		if name < 0 {
			continue
		}
		full := f.Text(name)
		if outer := f.classChain(i); outer != "" {
			full = outer + "." + full
		}
		if full == chain {
			return f.ChildByField(i, "body")
		}
	}
	return -1
}

// classChain joins the names of the class-like declarations enclosing
// node i, outermost first.
func (f *File) classChain(i int) string {
	var names []string
	for p := f.nodes[i].Parent(); p >= 0; p = f.nodes[p].Parent() {
		pn := &f.nodes[p]
		switch {
		case p == f.wrapClass:
		case f.Lang == LangJava && javaTypeDecls[pn.Kind()], f.Lang == LangPython && pn.Kind() == "class_definition":
			if c := f.ChildByField(p, "name"); c >= 0 {
				names = append(names, f.Text(c))
			}
		case f.Lang == LangJava && pn.Kind() == "class_body" && pn.Parent() >= 0 &&
			!javaTypeDecls[f.nodes[pn.Parent()].Kind()]:
			names = append(names, f.anonymousName(pn.Parent()))
		}
	}
	for l, r := 0, len(names)-1; l < r; l, r = l+1, r-1 {
		names[l], names[r] = names[r], names[l]
	}
	return strings.Join(names, ".")
}

// anonymousName names the anonymous class whose body's parent is node
// owner: an enum constant's body is "<Name>" after its constant (the many
// bodies of a state-machine enum each override the same methods, and
// one name for all made their methods one key); any other is
// "<anonymous>".
func (f *File) anonymousName(owner int) string {
	if f.nodes[owner].Kind() == "enum_constant" {
		if c := f.ChildByField(owner, "name"); c >= 0 {
			return "<" + f.Text(c) + ">"
		}
	}
	return "<anonymous>"
}

// signature renders the declaration text in [start, end) without comments
// or annotations, on one line with single spaces.
func (f *File) signature(decl, start, end int) string {
	var b strings.Builder
	pos := start
	skip := func(s, e int) {
		if s > pos {
			b.Write(f.Src[pos:s])
		}
		b.WriteByte(' ')
		pos = max(pos, e)
	}
	for j := decl; j < f.nodes[decl].End(); j++ {
		n := &f.nodes[j]
		if n.StartByte() >= end {
			break
		}
		switch n.Kind() {
		case "line_comment", "block_comment", "comment", "annotation", "marker_annotation", "decorator":
			skip(n.StartByte(), n.EndByte())
			j = n.End() - 1
		}
	}
	if end > pos {
		b.Write(f.Src[pos:end])
	}
	s := strings.Join(strings.Fields(b.String()), " ")
	return signatureSpaces.Replace(s)
}

// signatureSpaces removes the blanks signature does not keep.
var signatureSpaces = strings.NewReplacer("( ", "(", " )", ")", " ,", ",", " [", "[", "[ ", "[", " ]", "]", " (", "(")

// squash returns node i's text on one line with single spaces, or "" for
// i < 0.
func (f *File) squash(i int) string {
	if i < 0 {
		return ""
	}
	return strings.Join(strings.Fields(f.Text(i)), " ")
}
