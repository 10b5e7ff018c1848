package jvm

import (
	"fmt"
	"slices"
	"strings"
)

// Stubs for the symbols a method uses but does not declare, grown from
// javac's "cannot find symbol" and type-mismatch diagnostics (rxsynth
// §5.4: harnesses keep the method bodies verbatim and add only the stubs
// needed for execution). Every stub member is static, every stub value is
// non-exceptional (0, "", empty collections, new T()) — never null, which
// would manufacture the failure.

type stubMember struct {
	name   string
	typ    string   // field type, or method return type
	params []string // nil for a field
	method bool
	// inst marks a member of a stub class reached through an instance
	// ("n.name"): it must be an instance member, or a null receiver would
	// not throw. Harness-class members and "Node.X" members are static.
	inst bool
}

type stubClass struct {
	name    string
	ctors   [][]string
	members []*stubMember
	// throwable is set when the code throws or catches the class: it then
	// extends RuntimeException (unchecked, so no try needs to declare it).
	throwable bool
}

type stubSet struct {
	harness []*stubMember // members of the Buggy/Fixed classes
	// super holds the instance members reached through "super.": they go
	// in a base class the Buggy/Fixed classes extend, since in the harness
	// class itself they would clash with the method ("super.addNotify()"
	// inside addNotify()).
	super   []*stubMember
	classes []*stubClass
}

func (s *stubSet) count() int {
	n := len(s.harness) + len(s.super)
	for _, c := range s.classes {
		n += 1 + len(c.ctors) + len(c.members)
	}
	return n
}

// describe lists the stubs for the execution record.
func (s *stubSet) describe() []string {
	var out []string
	for _, m := range s.harness {
		out = append(out, m.decl(""))
	}
	for _, m := range s.super {
		out = append(out, m.decl("super."))
	}
	for _, c := range s.classes {
		if c.throwable {
			out = append(out, "class "+c.name+" extends RuntimeException")
		} else {
			out = append(out, "class "+c.name)
		}
		for _, k := range c.ctors {
			out = append(out, c.name+"("+strings.Join(k, ", ")+")")
		}
		for _, m := range c.members {
			out = append(out, m.decl(c.name+"."))
		}
	}
	return out
}

// state fingerprints every stub decision (types, statics, supertypes), so
// a repair round can tell whether it changed anything.
func (s *stubSet) state() string {
	var b strings.Builder
	b.WriteString(strings.Join(s.describe(), "\n"))
	for _, ms := range append([][]*stubMember{s.harness, s.super}, s.classMembers()...) {
		for _, m := range ms {
			fmt.Fprintf(&b, "|%t", m.inst)
		}
	}
	return b.String()
}

func (s *stubSet) classMembers() [][]*stubMember {
	out := make([][]*stubMember, len(s.classes))
	for i, c := range s.classes {
		out[i] = c.members
	}
	return out
}

func (m *stubMember) decl(prefix string) string {
	if m.method {
		return m.typ + " " + prefix + m.name + "(" + strings.Join(m.params, ", ") + ")"
	}
	return m.typ + " " + prefix + m.name
}

func (s *stubSet) class(name string) *stubClass {
	for _, c := range s.classes {
		if c.name == name {
			return c
		}
	}
	return nil
}

func (s *stubSet) addClass(name string) *stubClass {
	if c := s.class(name); c != nil {
		return c
	}
	c := &stubClass{name: name}
	s.classes = append(s.classes, c)
	return c
}

// members returns the member list of owner ("" for the harness class).
func (s *stubSet) members(owner string) *[]*stubMember {
	if owner == "" {
		return &s.harness
	}
	return &s.addClass(owner).members
}

func findMember(ms []*stubMember, name string, method bool, params []string) *stubMember {
	for _, m := range ms {
		if m.name == name && m.method == method && (!method || params == nil || strings.Join(m.params, ",") == strings.Join(params, ",")) {
			return m
		}
	}
	return nil
}

// anyMember finds a stub field or method called name anywhere.
func (s *stubSet) anyMember(name string) *stubMember {
	if m := findMember(s.harness, name, false, nil); m != nil {
		return m
	}
	if m := findMember(s.harness, name, true, nil); m != nil {
		return m
	}
	for _, c := range s.classes {
		if m := findMember(c.members, name, false, nil); m != nil {
			return m
		}
		if m := findMember(c.members, name, true, nil); m != nil {
			return m
		}
	}
	return nil
}

// render writes the members as static Java declarations.
func renderMembers(b *strings.Builder, ms []*stubMember) {
	for _, m := range ms {
		mod := "static "
		if m.inst {
			mod = ""
		}
		if !m.method {
			fmt.Fprintf(b, "  %s%s %s = %s;\n", mod, m.typ, m.name, defaultValue(m.typ))
			continue
		}
		ps := make([]string, len(m.params))
		for i, p := range m.params {
			ps[i] = fmt.Sprintf("%s a%d", p, i)
		}
		body := ""
		if m.typ != "void" {
			body = " return " + defaultValue(m.typ) + "; "
		}
		fmt.Fprintf(b, "  %s%s %s(%s) {%s}\n", mod, m.typ, m.name, strings.Join(ps, ", "), body)
	}
}

func (s *stubSet) renderClasses(b *strings.Builder) {
	for _, c := range s.classes {
		ext := ""
		if c.throwable {
			ext = " extends RuntimeException"
		}
		fmt.Fprintf(b, "class %s%s {\n  public %s() {}\n", c.name, ext, c.name)
		for _, k := range c.ctors {
			ps := make([]string, len(k))
			for i, p := range k {
				ps[i] = fmt.Sprintf("%s a%d", p, i)
			}
			fmt.Fprintf(b, "  public %s(%s) {}\n", c.name, strings.Join(ps, ", "))
		}
		renderMembers(b, c.members)
		b.WriteString("}\n")
	}
}

// javaType turns a type javac printed into one we can write back:
// null, captured and intersection types become Object.
func javaType(t string) string {
	t = strings.TrimSpace(t)
	if t == "" || strings.Contains(t, "compiler.") || strings.Contains(t, "nulltype") || strings.Contains(t, "&") || strings.Contains(t, "capture") {
		return "Object"
	}
	return t
}

func javaTypes(ts []string) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = javaType(t)
	}
	return out
}

func isObject(t string) bool { return t == "java.lang.Object" || t == "Object" }

// guessReturn guesses a new stub method's result type from its name and
// how the call is used on its line.
func guessReturn(name, line string, col int) string {
	if hasBooleanPrefix(name) {
		return "boolean"
	}
	// A call that is a whole statement: "foo(x);" or "a.b.foo(x);".
	i := max(0, min(col-1, len(line)))
	j := strings.Index(line[i:], name)
	if j < 0 {
		return "Object"
	}
	start, end := i+j, i+j+len(name)
	close := matchParen(line, end)
	if close < 0 {
		return "Object"
	}
	after := strings.TrimSpace(line[close+1:])
	if strings.HasPrefix(after, ";") && startsStatement(beforeReceiver(line[:start])) {
		return "void"
	}
	return "Object"
}

// booleanPrefixes name predicates: "isEmpty", "hasNext", "contains".
var booleanPrefixes = []string{"is", "has", "can", "should", "contains", "equals", "matches", "exists"}

// hasBooleanPrefix reports whether name is a boolean prefix alone or one
// followed by a capitalised word.
func hasBooleanPrefix(name string) bool {
	for _, p := range booleanPrefixes {
		if strings.HasPrefix(name, p) && (len(name) == len(p) || name[len(p)] >= 'A' && name[len(p)] <= 'Z') {
			return true
		}
	}
	return false
}

// beforeReceiver is the text before a call, trimmed, without the
// receiver chain ("x = a.b." → "x =").
func beforeReceiver(before string) string {
	before = strings.TrimSpace(before)
	for strings.HasSuffix(before, ".") { // drop a receiver chain
		before = strings.TrimRight(strings.TrimSuffix(before, "."), "_$abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
		before = strings.TrimSpace(before)
	}
	return before
}

// statementEnds are the endings of the text before a statement.
var statementEnds = []string{"{", "}", ";", ")", "else"}

// startsStatement reports whether what comes after before starts a
// statement.
func startsStatement(before string) bool {
	return before == "" || slices.ContainsFunc(statementEnds, func(e string) bool { return strings.HasSuffix(before, e) })
}

// matchParen returns the index of the ')' closing the first '(' at or
// after i, or -1.
func matchParen(s string, i int) int {
	for i < len(s) && s[i] == ' ' {
		i++
	}
	if i >= len(s) || s[i] != '(' {
		return -1
	}
	depth := 0
	for k := i; k < len(s); k++ {
		switch s[k] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// identAt returns the identifier javac's column points at: the name
// starting there, or, when the column is a call's '(' or '.', the name
// just before it.
func identAt(line string, col int) string {
	i := col - 1
	if i < 0 || i >= len(line) {
		return ""
	}
	if line[i] == '(' || line[i] == '.' {
		return identEndingAt(line, i)
	}
	j := i
	for j < len(line) && isIdentByte(line[j]) {
		j++
	}
	return line[i:j]
}

// identEndingAt returns the identifier ending just before index end
// (skipping spaces and one balanced call's arguments).
func identEndingAt(line string, end int) string {
	k := skipSpacesBack(line, end-1)
	if k >= 0 && line[k] == ')' {
		if k = openingParen(line, k); k < 0 {
			return "" // unbalanced
		}
		k = skipSpacesBack(line, k-1)
	}
	if k < 0 {
		return ""
	}
	e := k + 1
	for k >= 0 && isIdentByte(line[k]) {
		k--
	}
	return line[k+1 : max(e, k+1)]
}

// skipSpacesBack is the index of the last non-space byte at or before k,
// or -1.
func skipSpacesBack(line string, k int) int {
	for k >= 0 && line[k] == ' ' {
		k--
	}
	return k
}

// openingParen is the index of the '(' matching the ')' at k, or -1.
func openingParen(line string, k int) int {
	depth := 0
	for ; k >= 0; k-- {
		if line[k] == ')' {
			depth++
		} else if line[k] == '(' {
			depth--
			if depth == 0 {
				return k
			}
		}
	}
	return -1
}

// identStartingAfter returns the identifier after index i, skipping spaces.
func identStartingAfter(line string, i int) string {
	for i < len(line) && line[i] == ' ' {
		i++
	}
	j := i
	for j < len(line) && isIdentByte(line[j]) {
		j++
	}
	return line[i:j]
}
