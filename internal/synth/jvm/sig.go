package jvm

import (
	"fmt"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
)

// Signature is what the harness needs from a method's header.
type Signature struct {
	Name   string  `json:"name"`
	Static bool    `json:"static,omitempty"`
	Return string  `json:"return"`
	Params []Param `json:"params"`
	// TypeVars maps the method's type parameters to their erasure
	// ("T" → "Object", "E extends Comparable<E>" → "Comparable").
	TypeVars map[string]string `json:"-"`
	// BodyLine is the 1-based line of the method text holding the body's
	// opening brace.
	BodyLine int `json:"-"`
}

// Param is one formal parameter; Type is as written ("List<String>",
// "int[]"), with varargs turned into an array.
type Param struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

var javaModifiers = map[string]bool{"public": true, "private": true, "protected": true, "static": true,
	"final": true, "abstract": true, "synchronized": true, "native": true, "strictfp": true, "default": true,
	"transient": true, "volatile": true}

type tok struct {
	s    string
	line int
}

// lexHeader tokenises src up to (and including) the first '{' outside an
// annotation argument, dropping comments and whitespace. String and char
// literals become one token each.
func lexHeader(src string) []tok {
	lx := &headerLexer{src: src, line: 1}
	for lx.i < len(src) {
		if lx.step() {
			break
		}
	}
	return lx.out
}

// headerLexer is lexHeader's state: the read offset, the current line and
// the depth of parentheses (an annotation's arguments).
type headerLexer struct {
	src   string
	i     int
	line  int
	paren int
	out   []tok
}

// step consumes one blank, comment or token and reports whether it was
// the header's end.
func (lx *headerLexer) step() bool {
	c, rest := lx.src[lx.i], lx.src[lx.i:]
	switch {
	case c == '\n':
		lx.line++
		lx.i++
	case isBlank(c):
		lx.i++
	case strings.HasPrefix(rest, "//"):
		lx.skipLineComment()
	case strings.HasPrefix(rest, "/*"):
		lx.skipBlockComment()
	case c == '"' || c == '\'':
		lx.emit(lx.quotedEnd(c))
	case strings.HasPrefix(rest, "..."):
		lx.emit(lx.i + 3)
	case isIdentByte(c):
		lx.emit(lx.wordEnd())
	default:
		lx.emit(lx.i + 1)
		return lx.punct(c)
	}
	return false
}

// emit makes src[i:end] a token and moves past it.
func (lx *headerLexer) emit(end int) {
	lx.out = append(lx.out, tok{lx.src[lx.i:end], lx.line})
	lx.i = end
}

func (lx *headerLexer) skipLineComment() {
	for lx.i < len(lx.src) && lx.src[lx.i] != '\n' {
		lx.i++
	}
}

// skipBlockComment skips a /* */ comment (to the end of src when it is
// not closed), counting its lines.
func (lx *headerLexer) skipBlockComment() {
	end := len(lx.src)
	if j := strings.Index(lx.src[lx.i+2:], "*/"); j >= 0 {
		end = lx.i + 2 + j + 2
	}
	lx.line += strings.Count(lx.src[lx.i:end], "\n")
	lx.i = end
}

// quotedEnd is the end of the string or char literal opened at i by
// quote: past its closing quote, or at the end of its line.
func (lx *headerLexer) quotedEnd(quote byte) int {
	src := lx.src
	j := lx.i + 1
	for j < len(src) && src[j] != quote && src[j] != '\n' {
		if src[j] == '\\' {
			j++
		}
		j++
	}
	return min(j+1, len(src))
}

// wordEnd is the end of the identifier or number starting at i.
func (lx *headerLexer) wordEnd() int {
	j := lx.i
	for j < len(lx.src) && isIdentByte(lx.src[j]) {
		j++
	}
	return j
}

// punct tracks parentheses after the punctuation token c and reports
// whether c ends the header: a '{' or ';' outside them.
func (lx *headerLexer) punct(c byte) bool {
	switch c {
	case '(':
		lx.paren++
	case ')':
		lx.paren--
	case '{', ';':
		return lx.paren <= 0
	}
	return false
}

func isBlank(c byte) bool { return strings.IndexByte(" \t\r\f", c) >= 0 }

// isIdentStart reports whether c may start an identifier (any non-ASCII
// byte counts as a letter).
func isIdentStart(c byte) bool {
	return c >= 0x80 || c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdent(s string) bool { return s != "" && isIdentStart(s[0]) }

// badHeader is ParseSignature's error.
func badHeader(format string, a ...any) error {
	return fmt.Errorf("parse method header: %w: %s", errs.ErrInput, fmt.Sprintf(format, a...))
}

// ParseSignature reads a Java method declaration's header. It rejects
// constructors, fields and anything without a body.
func ParseSignature(method string) (Signature, error) {
	t := lexHeader(method)
	if len(t) == 0 || t[len(t)-1].s != "{" {
		return Signature{}, badHeader("no method body '{' found")
	}
	sig := Signature{TypeVars: map[string]string{}, BodyLine: t[len(t)-1].line}
	p := &headerParser{t: t}
	for _, step := range []func(*Signature) error{p.modifiers, p.typeParams, p.nameAndReturn, p.params} {
		if err := step(&sig); err != nil {
			return Signature{}, err
		}
	}
	return sig, nil
}

// headerParser reads a method header's tokens from i on.
type headerParser struct {
	t []tok
	i int
}

// skipBalanced moves past the open…close group starting at i, nested
// ones included; false when it is not closed.
func (p *headerParser) skipBalanced(open, close string) bool {
	depth := 0
	for ; p.i < len(p.t); p.i++ {
		switch p.t[p.i].s {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				p.i++
				return true
			}
		}
	}
	return false
}

// at reports whether the token at i is s.
func (p *headerParser) at(s string) bool { return p.i < len(p.t) && p.t[p.i].s == s }

// modifiers skips the annotations and modifiers, noting static.
func (p *headerParser) modifiers(sig *Signature) error {
	for p.i < len(p.t) {
		switch {
		case p.at("@") && p.i+1 < len(p.t) && p.t[p.i+1].s != "interface":
			if !p.skipAnnotation() {
				return badHeader("unbalanced annotation arguments")
			}
		case javaModifiers[p.t[p.i].s]:
			sig.Static = sig.Static || p.t[p.i].s == "static"
			p.i++
		default:
			return nil
		}
	}
	return nil
}

// skipAnnotation moves past "@" Name(.Name)* and its arguments; false
// when they are not closed.
func (p *headerParser) skipAnnotation() bool {
	p.i += 2
	for p.i+1 < len(p.t) && p.t[p.i].s == "." && isIdent(p.t[p.i+1].s) {
		p.i += 2
	}
	return !p.at("(") || p.skipBalanced("(", ")")
}

// typeParams reads the method's type parameters into sig.TypeVars.
func (p *headerParser) typeParams(sig *Signature) error {
	if !p.at("<") {
		return nil
	}
	start := p.i
	if !p.skipBalanced("<", ">") {
		return badHeader("unbalanced type parameters")
	}
	for _, tp := range splitTop(p.t[start+1 : p.i-1]) {
		if len(tp) > 0 && isIdent(tp[0].s) {
			sig.TypeVars[tp[0].s] = typeParamBound(tp)
		}
	}
	return nil
}

// typeParamBound is the erasure of one type parameter: its first
// "extends" bound, or Object.
func typeParamBound(tp []tok) string {
	for k := 1; k+1 < len(tp); k++ {
		if tp[k].s == "extends" && isIdent(tp[k+1].s) {
			return tp[k+1].s
		}
	}
	return "Object"
}

// nameAndReturn reads the return type then the name: the name is the
// identifier before "(", where it leaves i.
func (p *headerParser) nameAndReturn(sig *Signature) error {
	open := -1
	for k := p.i; k < len(p.t); k++ {
		if p.t[k].s == "(" {
			open = k
			break
		}
	}
	if open < 0 || open == p.i {
		return badHeader("no parameter list")
	}
	if !isIdent(p.t[open-1].s) || javaModifiers[p.t[open-1].s] {
		return badHeader("no method name before '('")
	}
	sig.Name = p.t[open-1].s
	sig.Return = joinToks(p.t[p.i : open-1])
	if sig.Return == "" {
		return badHeader("%s looks like a constructor; only methods can be verified", sig.Name)
	}
	p.i = open
	return nil
}

// params reads the parameter list, dropping a receiver parameter.
func (p *headerParser) params(sig *Signature) error {
	open := p.i
	if !p.skipBalanced("(", ")") {
		return badHeader("unbalanced parameter list")
	}
	for _, pt := range splitTop(p.t[open+1 : p.i-1]) {
		prm, err := parseParam(pt)
		if err != nil {
			return badHeader("%v", err)
		}
		if prm.Name != "this" { // else a receiver parameter
			sig.Params = append(sig.Params, prm)
		}
	}
	return nil
}

func parseParam(pt []tok) (Param, error) {
	pt, dims := cStyleDims(pt[skipParamModifiers(pt):])
	if len(pt) < 2 || !isIdent(pt[len(pt)-1].s) {
		return Param{}, fmt.Errorf("cannot read parameter %q", joinToks(pt))
	}
	p := Param{Name: pt[len(pt)-1].s}
	typ := pt[:len(pt)-1]
	if n := len(typ); n > 0 && typ[n-1].s == "..." {
		typ = typ[:n-1]
		dims++
	}
	p.Type = joinToks(typ) + strings.Repeat("[]", dims)
	if joinToks(typ) == "" {
		return Param{}, fmt.Errorf("parameter %s has no type", p.Name)
	}
	return p, nil
}

// skipParamModifiers is the index of a parameter's first token after
// "final" and its annotations.
func skipParamModifiers(pt []tok) int {
	p := &headerParser{t: pt}
	for p.i < len(pt) {
		switch {
		case p.at("final"):
			p.i++
		case p.at("@") && p.i+1 < len(pt):
			p.i += 2
			for p.i+1 < len(pt) && pt[p.i].s == "." {
				p.i += 2
			}
			if p.at("(") {
				p.skipBalanced("(", ")")
			}
		default:
			return p.i
		}
	}
	return p.i
}

// cStyleDims drops the C-style array brackets after a parameter's name
// ("int a[]") and counts them.
func cStyleDims(pt []tok) ([]tok, int) {
	dims := 0
	for len(pt) >= 2 && pt[len(pt)-1].s == "]" && pt[len(pt)-2].s == "[" {
		dims++
		pt = pt[:len(pt)-2]
	}
	return pt, dims
}

// splitTop splits tokens at commas outside <>, () and [].
func splitTop(ts []tok) [][]tok {
	var out [][]tok
	depth, start := 0, 0
	for k, x := range ts {
		switch x.s {
		case "<", "(", "[":
			depth++
		case ">", ")", "]":
			depth--
		case ",":
			if depth == 0 {
				out = append(out, ts[start:k])
				start = k + 1
			}
		}
	}
	if start < len(ts) {
		out = append(out, ts[start:])
	}
	return out
}

// joinToks renders tokens as a type: identifiers separated by a space
// only where two word tokens meet ("? extends T").
func joinToks(ts []tok) string {
	var b strings.Builder
	for k, x := range ts {
		if k > 0 && isWord(ts[k-1].s) && isWord(x.s) {
			b.WriteByte(' ')
		}
		b.WriteString(x.s)
	}
	return b.String()
}

func isWord(s string) bool { return isIdent(s) || s == "?" || s != "" && s[0] >= '0' && s[0] <= '9' }
