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
		vt := simple(parseType(loc.VType).base)
		if s.class(vt) != nil {
			return vt, true
		}
		if isObject(loc.VType) {
			if m := s.anyMember(loc.Name); m != nil && !m.method && s.class(m.typ) != nil {
				return m.typ, true // retyped earlier in this round
			}
			if m := s.anyMember(loc.Name); m != nil && isObject(m.typ) && !m.method {
				n := stubTypeName(loc.Name)
				s.addClass(n)
				m.typ = n
				return n, true
			}
		}
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

// fix updates the stubs for one diagnostic on source line text. It
// returns errNoStub when the error is not about a missing or stubbed
// symbol (a real compile error of the method, or beyond these rules).
func (s *stubSet) fix(d diagnostic, text string, harness map[string]bool) error {
	a := d.Args
	switch d.Key {
	case "compiler.err.cant.resolve.location", "compiler.err.cant.resolve.location.args",
		"compiler.err.cant.resolve", "compiler.err.cant.resolve.args":
		if len(a) < 2 {
			return errNoStub
		}
		kind, name := strings.TrimPrefix(a[0], "kindname."), a[1]
		if !isIdent(name) || strings.Contains(name, ".") {
			return errNoStub
		}
		own, inst := "", false
		if len(a) >= 5 {
			loc, ok := parseLocation(a[4])
			if !ok {
				return errNoStub
			}
			if own, ok = s.owner(loc, harness); !ok {
				return errNoStub
			}
			inst = own != "" && loc.Kind == "variable"
		}
		switch kind {
		case "class":
			if harness[name] {
				return errNoStub
			}
			s.addClass(name)
			return nil
		case "variable":
			i := d.Col - 1 + len(name)
			if unicode.IsUpper(rune(name[0])) && i < len(text) && text[i] == '.' {
				s.addClass(name) // Util.parse(x): a class used statically
				return nil
			}
			ms := s.members(own)
			if findMember(*ms, name, false, nil) != nil {
				return nil // reported twice in one round
			}
			typ := "Object"
			before := strings.TrimSpace(text[:max(0, min(d.Col-1, len(text)))])
			switch {
			case strings.HasSuffix(before, "!"):
				typ = "boolean"
			case strings.HasPrefix(text[min(i, len(text)):], ".length") && !strings.HasPrefix(text[min(i, len(text)):], ".length("):
				typ = "int[]"
			}
			*ms = append(*ms, &stubMember{name: name, typ: typ, inst: inst})
			return nil
		case "method":
			var params []string
			if len(a) >= 4 {
				params = javaTypes(splitTypeList(a[3]))
			}
			ms := s.members(own)
			if own == "" && superCall(text, d.Col) {
				ms, inst = &s.super, true
			}
			if findMember(*ms, name, true, params) != nil {
				return nil // reported twice in one round
			}
			typ := guessReturn(name, text, d.Col)
			if m := findMember(*ms, name, true, nil); m != nil {
				typ = m.typ // an overload: keep the known result type
			}
			*ms = append(*ms, &stubMember{name: name, typ: typ, params: params, method: true, inst: inst})
			return nil
		}
		return errNoStub

	case "compiler.err.non-static.cant.be.ref":
		// An instance stub member also used statically: make it static.
		if len(a) < 2 {
			return errNoStub
		}
		for _, c := range s.classes {
			for _, m := range c.members {
				if m.name == a[1] && m.inst {
					m.inst = false
					return nil
				}
			}
		}
		return errNoStub

	case "compiler.err.cant.apply.symbol":
		// kindname.constructor|method, name, required, found, kindname.class, owner, reason
		if len(a) < 6 {
			return errNoStub
		}
		kind, name, req, found, ownerName := strings.TrimPrefix(a[0], "kindname."), a[1], a[2], a[3], simple(a[5])
		if err := s.overload(kind, name, ownerName, javaTypes(splitTypeList(found)), harness); err == nil || s.class(ownerName) != nil {
			return err
		}
		// A JDK method given one of our Object stubs: retype the stub
		// to the parameter type the method requires.
		rs, fs := splitTypeList(req), splitTypeList(found)
		if len(rs) != len(fs) {
			return errNoStub
		}
		args := callArgs(text, d.Col-1)
		changed := false
		for i := range fs {
			if isObject(fs[i]) && !isObject(rs[i]) && i < len(args) {
				if m := s.anyMember(exprName(args[i])); m != nil && isObject(m.typ) {
					m.typ = javaType(rs[i])
					changed = true
				}
			}
		}
		if changed {
			return nil
		}
		return errNoStub

	case "compiler.err.cant.apply.symbols":
		// kindname.constructor|method, name, found,{(compiler.misc.inapplicable.method: kindname.X, owner, sig, reason),…}:
		// as above, once the stub has two overloads and neither fits.
		if len(a) != 3 {
			return errNoStub
		}
		found, cands, ok := strings.Cut(a[2], "{")
		if !ok {
			return errNoStub
		}
		kind, name := strings.TrimPrefix(a[0], "kindname."), a[1]
		_, cand, _ := strings.Cut(cands, ": ")
		p := splitDiagArgs(cand)
		if len(p) < 2 {
			return errNoStub
		}
		ownerName := simple(p[1])
		if s.class(ownerName) == nil && !harness[ownerName] {
			return errNoStub
		}
		return s.overload(kind, name, ownerName, javaTypes(splitTypeList(strings.TrimSuffix(found, ","))), harness)

	case "compiler.err.override.incompatible.ret":
		// The method overrides a "super." stub (super.size(s) inside
		// size(String)): the stub returns what the method returns.
		// Args: (compiler.misc.cant.override: m(params), B, m(params), P), method type, stub type.
		if len(a) != 3 {
			return errNoStub
		}
		_, body, ok := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(a[0], "("), ")"), ": ")
		if !ok {
			return errNoStub
		}
		name, _, _ := strings.Cut(body, "(")
		for _, m := range s.super {
			if m.method && m.name == strings.TrimSpace(name) && m.typ != javaType(a[1]) {
				m.typ = javaType(a[1])
				return nil
			}
		}
		return errNoStub

	case "compiler.err.except.never.thrown.in.try":
		// "catch (X e)" of a stub class javac took as checked: make it
		// unchecked (often already done this round for another diagnostic
		// on the same class; the next javac run sees it).
		if len(a) != 1 {
			return errNoStub
		}
		c := s.class(simple(a[0]))
		if c == nil {
			return errNoStub
		}
		c.throwable = true
		return nil

	case "compiler.err.unreported.exception.need.to.catch.or.throw":
		// "throw new X(...)" of a stub class that is not yet Throwable
		// (javac names the type <any>).
		i := d.Col - 1
		if i < 0 || i >= len(text) || !strings.HasPrefix(text[i:], "throw") {
			return errNoStub
		}
		rest := strings.TrimSpace(text[i+len("throw"):])
		if !strings.HasPrefix(rest, "new ") {
			return errNoStub
		}
		c := s.class(identStartingAfter(rest, len("new ")))
		if c == nil || c.throwable {
			return errNoStub
		}
		c.throwable = true
		return nil

	case "compiler.err.prob.found.req":
		if len(a) < 1 {
			return errNoStub
		}
		// Unwrap "(compiler.misc.X: (compiler.misc.inconvertible.types: A, B))".
		arg := a[0]
		for {
			_, body, ok := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(arg, "("), ")"), ": ")
			if !ok {
				return errNoStub
			}
			p := splitDiagArgs(body)
			if len(p) == 1 && strings.HasPrefix(p[0], "(compiler.misc.") {
				arg = p[0]
				continue
			}
			if len(p) != 2 {
				return errNoStub
			}
			if c := s.class(simple(p[0])); c != nil && throwableType[p[1]] {
				// A stub class thrown or caught ("catch (XException e)"),
				// perhaps reported again by the other method this round.
				c.throwable = true
				return nil
			}
			return s.retype(identAt(text, d.Col), p[0], p[1])
		}

	case "compiler.err.operator.cant.be.applied.1", "compiler.err.incomparable.types":
		var op, l, r string
		if d.Key == "compiler.err.incomparable.types" {
			if len(a) != 2 {
				return errNoStub
			}
			op, l, r = "==", a[0], a[1]
			if i := d.Col - 1; i >= 0 && i+1 < len(text) && text[i:i+2] == "!=" {
				op = "!="
			}
		} else {
			if len(a) != 3 {
				return errNoStub
			}
			op, l, r = a[0], a[1], a[2]
		}
		i := d.Col - 1
		if i < 0 || i > len(text) {
			return errNoStub
		}
		want := func(other string) string {
			if op == "&&" || op == "||" {
				return "boolean"
			}
			if isObject(other) || s.class(simple(other)) != nil {
				return "int"
			}
			return javaType(other)
		}
		if isObject(l) || s.class(simple(l)) != nil {
			if err := s.retype(identEndingAt(text, i), l, want(r)); err == nil {
				return nil
			}
		}
		if isObject(r) || s.class(simple(r)) != nil {
			j := min(i+len(op), len(text))
			return s.retype(identStartingAfter(text, j), r, want(l))
		}
		return errNoStub

	case "compiler.err.operator.cant.be.applied":
		if len(a) != 2 || !(isObject(a[1]) || s.class(simple(a[1])) != nil) {
			return errNoStub
		}
		want := "int"
		if a[0] == "!" {
			want = "boolean"
		}
		i := d.Col - 1
		if i < 0 || i > len(text) {
			return errNoStub
		}
		if err := s.retype(identStartingAfter(text, min(i+len(a[0]), len(text))), a[1], want); err == nil {
			return nil
		}
		return s.retype(identEndingAt(text, i), a[1], want)
	}
	return errNoStub
}

// overload adds the constructor or method overload of a stub class, or a
// harness-class stub method, that takes the argument types javac found.
// The buggy and the fixed method often make the same call: it is added
// once, or the stub class would not compile.
func (s *stubSet) overload(kind, name, ownerName string, ps []string, harness map[string]bool) error {
	if c := s.class(ownerName); c != nil {
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
	if harness[ownerName] && kind == "method" {
		if m := findMember(s.harness, name, true, nil); m != nil && findMember(s.harness, name, true, ps) == nil {
			s.harness = append(s.harness, &stubMember{name: name, typ: m.typ, params: ps, method: true})
			return nil
		}
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
	if m == nil || to == "void" || to == "Object" || !(isObject(from) || simple(parseType(from).base) == simple(parseType(m.typ).base)) {
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
	var out []string
	depth, start := 0, o+1
	for k := o + 1; k < c; k++ {
		switch line[k] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(line[start:k]))
				start = k + 1
			}
		}
	}
	return append(out, strings.TrimSpace(line[start:c]))
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
