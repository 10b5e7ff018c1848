package mutation

import (
	"bytes"
	"slices"
	"strings"

	"github.com/benchforge/benchforge/internal/code"
)

// method is one Java method (or constructor) of a parsed file, with the
// facts the operators need: its parameter names and every other name
// declared inside it (locals, loop, catch, lambda and resource variables).
type method struct {
	f      *code.File
	n      []code.Node
	fn     code.Function
	decl   int // node index of the declaration
	body   int // node index of the body block, -1 if none
	static bool
	params map[string]bool
	locals map[string]bool
}

func newMethod(f *code.File, fn code.Function) *method {
	m := &method{f: f, n: f.Nodes(), fn: fn, decl: fn.Node, body: f.ChildByField(fn.Node, "body"),
		static: isStatic(f, fn.Node), params: map[string]bool{}, locals: map[string]bool{}}
	for _, p := range fn.Params {
		m.params[p.Name] = true
	}
	if m.body < 0 {
		return m
	}
	for i := m.body; i < m.n[m.body].End(); i++ {
		for _, name := range m.declared(i) {
			m.locals[name] = true
		}
	}
	return m
}

// isStatic reports whether the declaration at node decl has the static
// modifier.
func isStatic(f *code.File, decl int) bool {
	n := f.Nodes()
	for c := range f.Children(decl) {
		if n[c].Kind() == "modifiers" && strings.Contains(" "+f.Text(c)+" ", " static ") {
			return true
		}
	}
	return false
}

// declared returns the names node i declares: a local, loop, catch or
// resource variable, or lambda parameters.
func (m *method) declared(i int) []string {
	f := m.f
	switch m.n[i].Kind() {
	case "variable_declarator", "formal_parameter", "catch_formal_parameter", "enhanced_for_statement", "resource", "spread_parameter":
		if name := f.ChildByField(i, "name"); name >= 0 {
			return []string{f.Text(name)}
		}
	case "lambda_expression":
		if p := f.ChildByField(i, "parameters"); p >= 0 && m.n[p].Kind() == "identifier" {
			return []string{f.Text(p)}
		}
	case "inferred_parameters":
		var names []string
		for c := range f.Children(i) {
			if m.n[c].Kind() == "identifier" {
				names = append(names, f.Text(c))
			}
		}
		return names
	}
	return nil
}

func (m *method) kind(i int) string { return m.n[i].Kind() }
func (m *method) text(i int) string { return m.f.Text(i) }
func (m *method) field(i int, name string) int {
	if i < 0 {
		return -1
	}
	return m.f.ChildByField(i, name)
}

// named returns the named children of i.
func (m *method) named(i int) []int {
	var out []int
	for c := range m.f.Children(i) {
		if m.n[c].Named() && m.n[c].Kind() != "line_comment" && m.n[c].Kind() != "block_comment" {
			out = append(out, c)
		}
	}
	return out
}

// unparen strips parenthesized_expression wrappers.
func (m *method) unparen(i int) int {
	for i >= 0 && m.kind(i) == "parenthesized_expression" {
		ch := m.named(i)
		if len(ch) != 1 {
			return i
		}
		i = ch[0]
	}
	return i
}

// op returns the operator token of a binary or unary expression.
func (m *method) op(i int) string {
	if o := m.field(i, "operator"); o >= 0 {
		return m.text(o)
	}
	return ""
}

// condition returns the unparenthesised condition of an if/while/for, or -1.
func (m *method) condition(i int) int {
	c := m.field(i, "condition")
	if c < 0 {
		return -1
	}
	return m.unparen(c)
}

// inBlock reports whether statement i sits directly in a block, so it can
// be removed or replaced by several statements.
func (m *method) inBlock(i int) bool {
	p := m.n[i].Parent()
	return p >= 0 && m.kind(p) == "block"
}

// single returns the only statement of a block, i itself for a
// non-block statement, or -1.
func (m *method) single(i int) int {
	if m.kind(i) != "block" {
		return i
	}
	ch := m.named(i)
	if len(ch) != 1 {
		return -1
	}
	return ch[0]
}

// earlyExit reports whether statement i (or the single statement of block
// i) leaves the enclosing code: return, throw, break or continue.
func (m *method) earlyExit(i int) bool {
	s := m.single(i)
	if s < 0 {
		return false
	}
	switch m.kind(s) {
	case "return_statement", "throw_statement", "break_statement", "continue_statement":
		return true
	}
	return false
}

// isNull reports whether expression i is the null literal.
func (m *method) isNull(i int) bool { return i >= 0 && m.kind(m.unparen(i)) == "null_literal" }

// nullCompare matches `X op null` or `null op X` with op in ops and returns
// X's text.
func (m *method) nullCompare(i int, op string) (string, bool) {
	i = m.unparen(i)
	if i < 0 || m.kind(i) != "binary_expression" || m.op(i) != op {
		return "", false
	}
	l, r := m.unparen(m.field(i, "left")), m.unparen(m.field(i, "right"))
	switch {
	case m.isNull(r) && refExpr(m.kind(l)):
		return m.text(l), true
	case m.isNull(l) && refExpr(m.kind(r)):
		return m.text(r), true
	}
	return "", false
}

func refExpr(kind string) bool {
	return kind == "identifier" || kind == "field_access"
}

// derefs reports whether a node in [from, to) dereferences the expression
// whose text is x: x.m(), x.f or x[i].
func (m *method) derefs(x string, from, to int) bool {
	for i := from; i < to; i++ {
		var obj int
		switch m.kind(i) {
		case "method_invocation", "field_access":
			obj = m.field(i, "object")
		case "array_access":
			obj = m.field(i, "array")
		default:
			continue
		}
		if obj >= 0 && m.text(m.unparen(obj)) == x {
			return true
		}
	}
	return false
}

// bodyEnd is one past the last node of the method body.
func (m *method) bodyEnd() int { return m.n[m.decl].End() }

// nameRefs returns the identifier nodes in [from, to) used as variable
// references: not method names, field names of a field access, or labels.
func (m *method) nameRefs(from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		if m.kind(i) != "identifier" {
			continue
		}
		switch m.n[i].Field() {
		case "name", "field", "label":
			continue
		}
		out = append(out, i)
	}
	return out
}

// Edit replaces bytes [Start, End) of the source file with Text.
type Edit struct {
	Start, End int
	Text       string
}

// lineStart returns the offset of the start of the line holding off.
func lineStart(src []byte, off int) int {
	return bytes.LastIndexByte(src[:off], '\n') + 1
}

// indentOf returns the leading blanks of the line holding off.
func indentOf(src []byte, off int) string {
	s := lineStart(src, off)
	e := s
	for e < len(src) && (src[e] == ' ' || src[e] == '\t') {
		e++
	}
	return string(src[s:e])
}

// removal deletes node i; when it stands alone on its lines the lines go
// too, so no blank line is left behind.
func (m *method) removal(i int) Edit {
	src := m.f.Src
	s, e := m.n[i].StartByte(), m.n[i].EndByte()
	ls := lineStart(src, s)
	if strings.TrimSpace(string(src[ls:s])) == "" {
		le := e
		for le < len(src) && (src[le] == ' ' || src[le] == '\t' || src[le] == '\r') {
			le++
		}
		if le == len(src) || src[le] == '\n' {
			if le < len(src) {
				le++
			}
			return Edit{Start: ls, End: le}
		}
	}
	return Edit{Start: s, End: e}
}

// replace replaces node i with text.
func (m *method) replace(i int, text string) Edit {
	return Edit{Start: m.n[i].StartByte(), End: m.n[i].EndByte(), Text: text}
}

// unwrap replaces statement stmt with the statements of block blk,
// re-indented to stmt's indentation. A block whose declarations would
// collide with names declared elsewhere in the method stays a block.
func (m *method) unwrap(stmt, blk int) Edit {
	if m.kind(blk) != "block" {
		return m.replace(stmt, m.text(blk))
	}
	ch := m.named(blk)
	if len(ch) == 0 {
		return m.removal(stmt)
	}
	for i := blk; i < m.n[blk].End(); i++ {
		if m.kind(i) == "variable_declarator" && m.n[m.n[i].Parent()].Kind() == "local_variable_declaration" {
			name := m.text(m.field(i, "name"))
			if m.declaredOutside(name, blk) {
				return m.replace(stmt, m.text(blk))
			}
		}
	}
	src := m.f.Src
	outer := indentOf(src, m.n[stmt].StartByte())
	inner := indentOf(src, m.n[ch[0]].StartByte())
	first, last := m.n[ch[0]].StartByte(), m.n[ch[len(ch)-1]].EndByte()
	// Keep comments between the first and last statement; drop the
	// block's own braces.
	lines := strings.Split(string(src[first:last]), "\n")
	for k := 1; k < len(lines); k++ {
		if strings.HasPrefix(lines[k], inner) {
			lines[k] = outer + lines[k][len(inner):]
		}
	}
	return m.replace(stmt, strings.Join(lines, "\n"))
}

// declaredOutside reports whether name is declared in the method outside
// the subtree of node in.
func (m *method) declaredOutside(name string, in int) bool {
	for i := m.decl; i < m.n[m.decl].End(); i++ {
		if i >= in && i < m.n[in].End() {
			continue
		}
		switch m.kind(i) {
		case "variable_declarator", "formal_parameter", "catch_formal_parameter", "enhanced_for_statement", "resource":
			if nm := m.field(i, "name"); nm >= 0 && m.text(nm) == name {
				return true
			}
		}
	}
	return false
}

// apply applies edits (non-overlapping) to src.
func apply(src []byte, edits []Edit) ([]byte, bool) {
	edits = slices.Clone(edits)
	slices.SortFunc(edits, func(a, b Edit) int { return a.Start - b.Start })
	var out []byte
	pos := 0
	for _, e := range edits {
		if e.Start < pos || e.End < e.Start || e.End > len(src) {
			return nil, false
		}
		out = append(out, src[pos:e.Start]...)
		out = append(out, e.Text...)
		pos = e.End
	}
	return append(out, src[pos:]...), true
}

// javaString renders s as a Java string literal (ASCII-escaped).
func javaString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r > 0x7e:
			b.WriteString("?")
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
