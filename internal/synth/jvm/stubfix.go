package jvm

import (
	"errors"
	"slices"
	"strings"
	"unicode"
)

var errNoStub = errors.New("no stub can fix this")

// owner maps a javac location to a stub owner: "" for the harness class,
// a stub class name, or ok=false for a real (JDK) type we must not touch.
// A variable of type Object that is one of our own stubs is retyped to a
// fresh stub class so that members can be added to it.
func (s *stubSet) owner(loc location, harness map[string]bool) (string, bool) {
	switch loc.Kind {
	case "class", "interface":
		n := simple(loc.Name)
		if harness[n] {
			return "", true
		}
		if s.class(n) != nil {
			return n, true
		}
	case "variable":
		return s.variableOwner(loc)
	}
	return "", false
}

// variableOwner is owner for a variable: the stub class it has, or, for
// an Object-typed stub field, a fresh stub class it is retyped to.
func (s *stubSet) variableOwner(loc location) (string, bool) {
	vt := simple(parseType(loc.VType).base)
	if s.class(vt) != nil {
		return vt, true
	}
	if !isObject(loc.VType) {
		return "", false
	}
	if m := s.anyMember(loc.Name); m != nil && !m.method && s.class(m.typ) != nil {
		return m.typ, true // retyped earlier in this round
	}
	if m := s.anyMember(loc.Name); m != nil && isObject(m.typ) && !m.method {
		n := stubTypeName(loc.Name)
		s.addClass(n)
		m.typ = n
		return n, true
	}
	return "", false
}

// superCall reports whether the member javac points at (col, 1-based:
// the '.' of a select, or the name after it) is reached as "super.name".
func superCall(text string, col int) bool {
	i := min(max(col-1, 0), len(text))
	before := strings.TrimRight(text[:i], " \t")
	if i >= len(text) || text[i] != '.' { // caret at the name
		b, ok := strings.CutSuffix(before, ".")
		if !ok {
			return false
		}
		before = strings.TrimRight(b, " \t")
	}
	rest, ok := strings.CutSuffix(before, "super")
	return ok && (rest == "" || !isIdentByte(rest[len(rest)-1]))
}

func stubTypeName(v string) string {
	r := []rune(v)
	r[0] = unicode.ToUpper(r[0])
	return "T" + string(r)
}

// overload adds the constructor or method overload of a stub class, or a
// harness-class stub method, that takes the argument types javac found.
// The buggy and the fixed method often make the same call: it is added
// once, or the stub class would not compile.
func (s *stubSet) overload(kind, name, ownerName string, ps []string, harness map[string]bool) error {
	if c := s.class(ownerName); c != nil {
		return c.overload(kind, name, ps)
	}
	if harness[ownerName] && kind == "method" {
		if m := findMember(s.harness, name, true, nil); m != nil && findMember(s.harness, name, true, ps) == nil {
			s.harness = append(s.harness, &stubMember{name: name, typ: m.typ, params: ps, method: true})
			return nil
		}
	}
	return errNoStub
}

// overload is stubSet.overload on a stub class.
func (c *stubClass) overload(kind, name string, ps []string) error {
	if kind == "constructor" {
		if !slices.ContainsFunc(c.ctors, func(k []string) bool { return slices.Equal(k, ps) }) {
			c.ctors = append(c.ctors, ps)
		}
		return nil
	}
	if m := findMember(c.members, name, true, nil); m != nil && findMember(c.members, name, true, ps) == nil {
		c.members = append(c.members, &stubMember{name: name, typ: m.typ, params: ps, method: true, inst: m.inst})
		return nil
	}
	return errNoStub
}

// throwableType lists the types a thrown or caught stub class must
// convert to; RuntimeException is a subtype of each.
var throwableType = map[string]bool{
	"java.lang.Throwable": true, "java.lang.Exception": true, "java.lang.RuntimeException": true,
}

// retype changes stub member name from type from to type to.
func (s *stubSet) retype(name, from, to string) error {
	if name == "" {
		return errNoStub
	}
	m := s.anyMember(name)
	to = javaType(to)
	if m == nil || !retypable(m, from, to) {
		return errNoStub
	}
	// An overload has its method's result type (fix adds it so): retype
	// them all, or the one called with the fixed method's own class
	// (m(this) in B<n> and F<n>) keeps the old type and is reported again
	// every round.
	for _, o := range s.listOf(m) {
		if o.name == m.name && o.method == m.method && (o.typ == m.typ || isObject(o.typ)) {
			o.typ = to
		}
	}
	return nil
}

// retypable reports whether m, which javac saw as type from, may become
// type to: to says more than Object, and from is Object or m's own type.
func retypable(m *stubMember, from, to string) bool {
	return to != "void" && to != "Object" && (isObject(from) || simple(parseType(from).base) == simple(parseType(m.typ).base))
}

// listOf returns the member list holding m.
func (s *stubSet) listOf(m *stubMember) []*stubMember {
	for _, ms := range append([][]*stubMember{s.harness, s.super}, s.classMembers()...) {
		if slices.Contains(ms, m) {
			return ms
		}
	}
	return []*stubMember{m}
}

// callArgs returns the top-level argument texts of the call whose name or
// '(' is at index i of line.
func callArgs(line string, i int) []string {
	if i < 0 || i >= len(line) {
		return nil
	}
	o := strings.IndexByte(line[i:], '(')
	if o < 0 {
		return nil
	}
	o += i
	c := matchParen(line, o)
	if c < 0 {
		return nil
	}
	return splitArgs(line[o+1 : c])
}

// splitArgs splits an argument list's text at top-level commas.
func splitArgs(s string) []string {
	var out []string
	depth, start := 0, 0
	for k := 0; k < len(s); k++ {
		switch s[k] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:k]))
				start = k + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// exprName returns the member an argument expression names: "x", "this.x",
// "foo()" or "a.foo(1)" → the last identifier before any call parens.
func exprName(e string) string {
	e = strings.TrimSpace(e)
	if i := strings.IndexByte(e, '('); i >= 0 {
		e = e[:i]
	}
	if i := strings.LastIndexByte(e, '.'); i >= 0 {
		e = e[i+1:]
	}
	if !isIdent(e) {
		return ""
	}
	return e
}
