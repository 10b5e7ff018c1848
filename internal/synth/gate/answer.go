package gate

import (
	"fmt"
	"strings"

	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/llm/answer"
)

// Reject is why a candidate failed a gate.
type Reject struct {
	Cause  string
	Detail string
}

func (r *Reject) Error() string { return r.Cause + ": " + r.Detail }

func reject(cause, format string, args ...any) *Reject {
	return &Reject{Cause: cause, Detail: fmt.Sprintf(format, args...)}
}

// javaInfo reports whether a fence's info string marks Java code (or none).
func javaInfo(info string) bool {
	w := strings.ToLower(strings.Fields(info + " x")[0])
	return info == "" || w == "java"
}

// ParseAnswer splits a model answer into its buggy and fixed methods
// (rxsynth §4.4, syntactic gate): exactly two fenced Java blocks, buggy
// first; each has imports, package lines and a class wrapper holding just
// that method removed (Method). It never panics; every failure is a
// *Reject naming the cause.
func ParseAnswer(text string) (buggy, fixed string, rej *Reject) {
	blocks, ok := answer.FencedBlocks(text)
	if !ok {
		return "", "", reject(CauseTruncated, "code block opened at line %d is never closed", blocks[len(blocks)-1].Line)
	}
	if len(blocks) != 2 {
		return "", "", reject(CauseBlockCount, "want exactly 2 fenced Java blocks, found %d", len(blocks))
	}
	for _, b := range blocks {
		if !javaInfo(b.Info) {
			return "", "", reject(CauseNotJava, "block at line %d is marked %q", b.Line, b.Info)
		}
	}
	if buggy, rej = Method(blocks[0].Code); rej != nil {
		rej.Detail = "buggy block: " + rej.Detail
		return "", "", rej
	}
	if fixed, rej = Method(blocks[1].Code); rej != nil {
		rej.Detail = "fixed block: " + rej.Detail
		return "", "", rej
	}
	return buggy, fixed, nil
}

var typeDecls = map[string]bool{"class_declaration": true, "interface_declaration": true, "enum_declaration": true,
	"record_declaration": true, "annotation_type_declaration": true}

// Method reduces a code block to one method declaration: package and import
// lines are dropped, and a single class whose body holds exactly that one
// method (or constructor) is unwrapped. Any other type declaration — a
// class with fields or several methods, an interface, enum or record, two
// types — is rejected with CauseTypeDecl; empty code with CauseMethodCount.
func Method(block string) (string, *Reject) {
	if strings.TrimSpace(block) == "" {
		return "", reject(CauseMethodCount, "empty code block")
	}
	f, err := code.Parse(code.LangJava, "answer.java", []byte(block))
	if err != nil {
		return "", reject(CauseParse, "%v", err)
	}
	defer f.Close()
	n := f.Nodes()
	src := []byte(block)
	var cut [][2]int
	var types []int
	for c := range f.Children(0) {
		switch {
		case n[c].Kind() == "package_declaration" || n[c].Kind() == "import_declaration":
			cut = append(cut, [2]int{n[c].StartByte(), n[c].EndByte()})
		case typeDecls[n[c].Kind()]:
			types = append(types, c)
		}
	}
	if len(types) > 0 {
		return unwrap(f, block, types)
	}
	var b strings.Builder
	pos := 0
	for _, c := range cut {
		b.Write(src[pos:c[0]])
		pos = c[1]
	}
	b.Write(src[pos:])
	return strings.Trim(b.String(), "\n"), nil
}

// unwrap returns the one method of a wrapper class (the only type
// declaration of the block, types), or why the block is not one.
func unwrap(f *code.File, block string, types []int) (string, *Reject) {
	n := f.Nodes()
	if len(types) > 1 || n[types[0]].Kind() != "class_declaration" {
		return "", reject(CauseTypeDecl, "block declares %s", declNames(f, types))
	}
	members := classMembers(f, f.ChildByField(types[0], "body"))
	if len(members) != 1 || (n[members[0]].Kind() != "method_declaration" && n[members[0]].Kind() != "constructor_declaration") {
		return "", reject(CauseTypeDecl, "block is a class (%s) with %d members, not a wrapper around one method", declNames(f, types), len(members))
	}
	m := members[0]
	start := strings.LastIndexByte(block[:n[m].StartByte()], '\n') + 1
	return dedent(block[start:n[m].EndByte()]), nil
}

// classMembers returns the members of class body node body (-1 for
// none), comments left out.
func classMembers(f *code.File, body int) []int {
	if body < 0 {
		return nil
	}
	n := f.Nodes()
	var members []int
	for c := range f.Children(body) {
		if n[c].Named() && n[c].Kind() != "line_comment" && n[c].Kind() != "block_comment" {
			members = append(members, c)
		}
	}
	return members
}

func declNames(f *code.File, types []int) string {
	var out []string
	for _, t := range types {
		name := "?"
		if nm := f.ChildByField(t, "name"); nm >= 0 {
			name = f.Text(nm)
		}
		out = append(out, strings.TrimSuffix(f.Nodes()[t].Kind(), "_declaration")+" "+name)
	}
	return strings.Join(out, ", ")
}

// dedent removes the first line's indentation from every line that starts
// with it.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	ind := lines[0][:len(lines[0])-len(strings.TrimLeft(lines[0], " \t"))]
	if ind == "" {
		return s
	}
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, ind)
	}
	return strings.Join(lines, "\n")
}
