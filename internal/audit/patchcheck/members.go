package patchcheck

import (
	"sort"

	"github.com/benchforge/benchforge/internal/code"
)

// A modified patch (benchchecker §3.4) puts the snapshot's functions into
// the buggy tree. Years later those functions often use members their
// class gained since the fix: a constant (LocaleUtils' UNDERSCORE), a
// field (ZipArchiveEntry's localHeaderOffset), a small helper. Without
// them the modified file does not compile and the tests cannot judge the
// snapshot's logic, so the sample stays inconclusive. withMembers copies
// such members from the snapshot's class into the buggy file's class:
// only members the copied code names, that the buggy class does not
// declare under that name, taken transitively (a copied constant's
// initialiser may name another).

// memberKinds are the class-body declarations withMembers may copy.
var memberKinds = map[string]bool{
	"field_declaration": true, "constant_declaration": true, "method_declaration": true,
	"class_declaration": true, "interface_declaration": true, "enum_declaration": true, "record_declaration": true,
}

// localNameOwners are the nodes whose "name" child declares a local name
// (a parameter, a local variable, a loop or catch variable, a resource).
var localNameOwners = map[string]bool{
	"variable_declarator": true, "formal_parameter": true, "catch_formal_parameter": true,
	"enhanced_for_statement": true, "resource": true,
}

// transplant is one snapshot function put into the modified file: its
// declaration node in the snapshot, its class there and its class in the
// modified file.
type transplant struct {
	node           int
	snapClass, cls string
}

// withMembers adds to Java file mod, at the end of each transplanted
// function's class, the snapshot members those functions need that the
// class lacks, and returns the text it added too (for withImports); mod
// unchanged when it or the snapshot does not parse cleanly or nothing is
// missing.
func withMembers(mod []byte, snap *code.File, ts []transplant) (out, added []byte) {
	mf, err := code.Parse(code.LangJava, "modified.java", mod)
	if err != nil || len(mf.SyntaxErrors()) > 0 || len(snap.SyntaxErrors()) > 0 {
		return mod, nil
	}
	type insert struct {
		at   int
		text []byte
	}
	var ins []insert
	for cls, group := range byClass(ts) {
		body := mf.ClassBody(cls)
		sbody := snap.ClassBody(group[0].snapClass)
		if body < 0 || sbody < 0 || mf.Nodes()[body].Kind() == "enum_body" {
			continue // an enum's members go after its constants' ";": not handled
		}
		if add := missingMembers(snap, sbody, group, memberNames(mf, body)); len(add) > 0 {
			ins = append(ins, insert{mf.Nodes()[body].EndByte() - 1, add})
			added = append(added, add...)
		}
	}
	sort.Slice(ins, func(i, j int) bool { return ins[i].at > ins[j].at })
	out = mod
	for _, in := range ins {
		out = append(append(append([]byte(nil), out[:in.at]...), in.text...), out[in.at:]...)
	}
	return out, added
}

// byClass groups ts by their class in the modified file.
func byClass(ts []transplant) map[string][]transplant {
	out := map[string][]transplant{}
	for _, t := range ts {
		out[t.cls] = append(out[t.cls], t)
	}
	return out
}

// missingMembers is the text of the members of the snapshot class body
// sbody that the transplanted functions name, directly or through another
// added member, and that have (the modified class's member names) lacks,
// in snapshot order, each on its own lines.
func missingMembers(snap *code.File, sbody int, group []transplant, have map[string]bool) []byte {
	decls := memberDecls(snap, sbody)
	need := map[string]bool{}
	for _, t := range group {
		usedNames(snap, t.node, need)
	}
	added := map[int]bool{}
	for grew := true; grew; {
		grew = false
		for _, d := range decls {
			if added[d.node] || !needsAny(d.names, need, have) {
				continue
			}
			added[d.node], grew = true, true
			usedNames(snap, d.node, need)
		}
	}
	var out []byte
	for _, d := range decls {
		if added[d.node] {
			out = append(append(append(out, "\n    "...), snap.Text(d.node)...), '\n')
		}
	}
	return out
}

// needsAny reports whether one of names is needed and not declared yet.
func needsAny(names []string, need, have map[string]bool) bool {
	for _, n := range names {
		if need[n] && !have[n] {
			return true
		}
	}
	return false
}

// memberDecl is one member declaration and the names it declares.
type memberDecl struct {
	node  int
	names []string
}

// memberDecls lists the member declarations of class body node body.
func memberDecls(f *code.File, body int) []memberDecl {
	var out []memberDecl
	for c := range f.Children(body) {
		if !memberKinds[f.Nodes()[c].Kind()] {
			continue
		}
		out = append(out, memberDecl{node: c, names: declaredNames(f, c)})
	}
	return out
}

// declaredNames are the names member declaration d declares: its name, or
// its declarators' names for a field.
func declaredNames(f *code.File, d int) []string {
	if n := f.ChildByField(d, "name"); n >= 0 {
		return []string{f.Text(n)}
	}
	var out []string
	for c := range f.Children(d) {
		if f.Nodes()[c].Field() == "declarator" {
			if n := f.ChildByField(c, "name"); n >= 0 {
				out = append(out, f.Text(n))
			}
		}
	}
	return out
}

// memberNames is the set of names class body body declares.
func memberNames(f *code.File, body int) map[string]bool {
	out := map[string]bool{}
	for _, d := range memberDecls(f, body) {
		for _, n := range d.names {
			out[n] = true
		}
	}
	return out
}

// usedNames adds to need the identifiers and type names in node i's
// subtree that it does not declare itself (parameters and locals).
func usedNames(f *code.File, i int, need map[string]bool) {
	nodes := f.Nodes()
	local := map[string]bool{}
	for j := i; j < nodes[i].End(); j++ {
		if localNameOwners[nodes[j].Kind()] {
			if n := f.ChildByField(j, "name"); n >= 0 {
				local[f.Text(n)] = true
			}
		}
	}
	for j := i; j < nodes[i].End(); j++ {
		if k := nodes[j].Kind(); k == "identifier" || k == "type_identifier" {
			if t := f.Text(j); !local[t] {
				need[t] = true
			}
		}
	}
}
