package jvm

import (
	"fmt"
	"strings"
	"unicode"

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
	var out []tok
	line, paren := 1, 0
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f':
			i++
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			j := strings.Index(src[i+2:], "*/")
			end := len(src)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			line += strings.Count(src[i:end], "\n")
			i = end
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(src) && src[j] != c && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(src))
			out = append(out, tok{src[i:j], line})
			i = j
		case strings.HasPrefix(src[i:], "..."):
			out = append(out, tok{"...", line})
			i += 3
		case c >= 0x80 || c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
			j := i
			for j < len(src) {
				r := rune(src[j])
				if r >= 0x80 || r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) {
					j++
					continue
				}
				break
			}
			out = append(out, tok{src[i:j], line})
			i = j
		default:
			out = append(out, tok{string(c), line})
			i++
			switch c {
			case '(':
				paren++
			case ')':
				paren--
			case '{', ';':
				if paren <= 0 {
					return out
				}
			}
		}
	}
	return out
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	return c >= 0x80 || c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// ParseSignature reads a Java method declaration's header. It rejects
// constructors, fields and anything without a body.
func ParseSignature(method string) (Signature, error) {
	bad := func(format string, a ...any) (Signature, error) {
		return Signature{}, fmt.Errorf("parse method header: %w: %s", errs.ErrInput, fmt.Sprintf(format, a...))
	}
	t := lexHeader(method)
	if len(t) == 0 || t[len(t)-1].s != "{" {
		return bad("no method body '{' found")
	}
	sig := Signature{TypeVars: map[string]string{}, BodyLine: t[len(t)-1].line}
	i := 0
	skipBalanced := func(open, close string) bool {
		depth := 0
		for ; i < len(t); i++ {
			switch t[i].s {
			case open:
				depth++
			case close:
				depth--
				if depth == 0 {
					i++
					return true
				}
			}
		}
		return false
	}
	// Annotations and modifiers.
	for i < len(t) {
		switch {
		case t[i].s == "@" && i+1 < len(t) && t[i+1].s != "interface":
			i += 2
			for i+1 < len(t) && t[i].s == "." && isIdent(t[i+1].s) {
				i += 2
			}
			if i < len(t) && t[i].s == "(" && !skipBalanced("(", ")") {
				return bad("unbalanced annotation arguments")
			}
			continue
		case javaModifiers[t[i].s]:
			if t[i].s == "static" {
				sig.Static = true
			}
			i++
			continue
		}
		break
	}
	// Type parameters.
	if i < len(t) && t[i].s == "<" {
		start := i
		if !skipBalanced("<", ">") {
			return bad("unbalanced type parameters")
		}
		for _, tp := range splitTop(t[start+1 : i-1]) {
			if len(tp) == 0 || !isIdent(tp[0].s) {
				continue
			}
			bound := "Object"
			for k := 1; k+1 < len(tp); k++ {
				if tp[k].s == "extends" && isIdent(tp[k+1].s) {
					bound = tp[k+1].s
					break
				}
			}
			sig.TypeVars[tp[0].s] = bound
		}
	}
	// Return type then name: the name is the identifier before "(".
	open := -1
	for k := i; k < len(t); k++ {
		if t[k].s == "(" {
			open = k
			break
		}
	}
	if open < 0 || open == i {
		return bad("no parameter list")
	}
	if !isIdent(t[open-1].s) || javaModifiers[t[open-1].s] {
		return bad("no method name before '('")
	}
	sig.Name = t[open-1].s
	sig.Return = joinToks(t[i : open-1])
	if sig.Return == "" {
		return bad("%s looks like a constructor; only methods can be verified", sig.Name)
	}
	i = open
	if !skipBalanced("(", ")") {
		return bad("unbalanced parameter list")
	}
	for _, pt := range splitTop(t[open+1 : i-1]) {
		p, err := parseParam(pt)
		if err != nil {
			return bad("%v", err)
		}
		if p.Name == "this" { // receiver parameter
			continue
		}
		sig.Params = append(sig.Params, p)
	}
	return sig, nil
}

func parseParam(pt []tok) (Param, error) {
	k := 0
	for k < len(pt) {
		if pt[k].s == "final" {
			k++
			continue
		}
		if pt[k].s == "@" && k+1 < len(pt) {
			k += 2
			for k+1 < len(pt) && pt[k].s == "." {
				k += 2
			}
			if k < len(pt) && pt[k].s == "(" {
				depth := 0
				for ; k < len(pt); k++ {
					if pt[k].s == "(" {
						depth++
					} else if pt[k].s == ")" {
						depth--
						if depth == 0 {
							k++
							break
						}
					}
				}
			}
			continue
		}
		break
	}
	pt = pt[k:]
	dims := 0
	for len(pt) >= 2 && pt[len(pt)-1].s == "]" && pt[len(pt)-2].s == "[" { // C-style "int a[]"
		dims++
		pt = pt[:len(pt)-2]
	}
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
