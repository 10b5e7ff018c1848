package jvm

import (
	"strconv"
	"strings"
)

// diagnostic is one javac error in -XDrawDiagnostics form:
//
//	B3.java:12:16: compiler.err.cant.resolve.location.args: kindname.method, helper, , int, (compiler.misc.location: kindname.class, bfv.p3.B3, null)
type diagnostic struct {
	File      string   // base name, "B3.java"
	Line, Col int      // 1-based
	Key       string   // "compiler.err.cant.resolve.location.args"
	Args      []string // top-level arguments
	Raw       string
}

// parseDiagnostics reads javac -XDrawDiagnostics output. Lines that are
// not diagnostics (counts, notes, source excerpts) are skipped; warnings
// are dropped.
func parseDiagnostics(out string) []diagnostic {
	var ds []diagnostic
	for _, l := range strings.Split(out, "\n") {
		d, ok := parseDiagnostic(strings.TrimRight(l, "\r"))
		if ok {
			ds = append(ds, d)
		}
	}
	return ds
}

func parseDiagnostic(l string) (diagnostic, bool) {
	// file:line:col: key: args — the file has no ':' (we name it).
	f := strings.SplitN(l, ":", 4)
	if len(f) != 4 || !strings.HasSuffix(f[0], ".java") {
		return diagnostic{}, false
	}
	line, err1 := strconv.Atoi(f[1])
	col, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return diagnostic{}, false
	}
	rest := strings.TrimSpace(f[3])
	key, args, _ := strings.Cut(rest, ": ")
	key = strings.TrimSpace(key)
	if !strings.HasPrefix(key, "compiler.err.") {
		return diagnostic{}, false
	}
	return diagnostic{File: f[0], Line: line, Col: col, Key: key, Args: splitDiagArgs(args), Raw: l}, true
}

// splitDiagArgs splits at ", " outside parentheses and angle brackets.
func splitDiagArgs(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == ',' && depth == 0 && i+1 < len(s) && s[i+1] == ' ' {
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 2
			i++
			continue
		}
		depth = diagDepth(s, i, depth)
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// diagDepth is the nesting depth of parentheses and type argument lists
// after s[i], given the depth before it.
func diagDepth(s string, i, depth int) int {
	switch s[i] {
	case '(':
		return depth + 1
	case '<': // a type argument list follows a name; "<" alone is an operator
		if i > 0 && (isIdentByte(s[i-1]) || s[i-1] == '>') {
			return depth + 1
		}
	case ')', '>':
		if depth > 0 {
			return depth - 1
		}
	}
	return depth
}

// location is a "(compiler.misc.location…)" argument: where javac looked.
type location struct {
	Kind  string // "class" or "variable"
	Name  string // class name (qualified) or variable name
	VType string // for a variable: its type
}

func parseLocation(a string) (location, bool) {
	a = strings.TrimSpace(a)
	if !strings.HasPrefix(a, "(compiler.misc.location") || !strings.HasSuffix(a, ")") {
		return location{}, false
	}
	_, body, ok := strings.Cut(a[1:len(a)-1], ": ")
	if !ok {
		return location{}, false
	}
	p := splitDiagArgs(body)
	if len(p) < 3 {
		return location{}, false
	}
	loc := location{Kind: strings.TrimPrefix(p[0], "kindname."), Name: p[1]}
	if loc.Kind == "variable" {
		loc.VType = p[2]
	}
	return loc, true
}

// splitTypeList splits javac's comma-joined argument types "int,java.lang.String".
func splitTypeList(s string) []string {
	if s == "" || s == "compiler.misc.no.args" {
		return nil
	}
	return splitTypeArgs(s)
}

// isIdentByte reports whether c belongs to an identifier or a number
// (any non-ASCII byte counts as a letter).
func isIdentByte(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }
