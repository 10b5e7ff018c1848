package track

import (
	"strings"
)

// inlinedInto is the function of v, grown since prev, that holds most of
// the deleted function's body lines (at least two and half of them;
// CodeTracker's inline-method rule), or -1. text is the deleted
// function's source and name its name.
//
// An inline puts the callee's statements at its call site with the
// parameters replaced by the call's arguments, and a returned expression
// in place of the call (RefactoringMiner's inline-method detection, on
// which CodeTracker builds): JxPath's compare(l, r) went into
// compute(left, right) as "double ld = InfoSetUtil.doubleValue(left);"
// and "return evaluateCompare(ld == rd ? 0 : ld < rd ? -1 : 1);". So each
// body line is also tried with the arguments of the call that the grown
// function made in prev, and a "return E" line is found when E is inside
// one of the function's lines.
func inlinedInto(text, name string, v, prev *fileVersion) int {
	lines := fn{Text: text}.sourceLinesCopy()
	body := telling(lines[min(1, len(lines)):]) // the header cannot survive an inline
	if len(body) < 2 {
		return -1
	}
	params := paramNames(text, name)
	best, bestN := -1, 0
	fs := v.functions()
	for i := range fs {
		f := &fs[i]
		if !newOrGrown(f, prev) {
			continue
		}
		want := body
		if args := callArgs(prev, f.Key, name); len(args) > 0 {
			want = substitute(body, params, args)
		}
		if n := inlinedLines(f, body, want); n > bestN {
			best, bestN = i, n
		}
	}
	if bestN < 2 || 2*bestN < len(body) {
		return -1
	}
	return best
}

// inlinedLines counts the body lines f holds: as they were, with the
// call's arguments in place of the parameters (want, in body's order), or
// as a returned expression inside one of f's lines.
func inlinedLines(f *fn, body, want []string) int {
	have := map[string]bool{}
	for _, l := range f.sourceLines() {
		have[l] = true
	}
	n := 0
	for i, l := range body {
		if have[l] || have[want[i]] || returnedInside(f, want[i]) {
			n++
		}
	}
	return n
}

// minReturned is the shortest returned expression taken as evidence
// inside another line: "r" or "null" is anywhere.
const minReturned = 8

// returnedInside reports whether line is "return E" (with or without a
// semicolon) and E is inside one of f's lines.
func returnedInside(f *fn, line string) bool {
	e, ok := strings.CutPrefix(line, "return ")
	if !ok {
		return false
	}
	e = strings.TrimSpace(strings.TrimSuffix(e, ";"))
	if len(e) < minReturned {
		return false
	}
	for _, l := range f.sourceLines() {
		if strings.Contains(l, e) {
			return true
		}
	}
	return false
}

// callArgs are the argument texts of the first call to name in the
// function key of prev (where the grown function called the one about to
// be inlined), or nil.
func callArgs(prev *fileVersion, key, name string) []string {
	if prev == nil {
		return nil
	}
	k := prev.byKey(key)
	if k < 0 {
		return nil
	}
	t := prev.functions()[k].Text
	for i := 0; ; {
		j := indexIdent(t[i:], name)
		if j < 0 {
			return nil
		}
		i += j + len(name)
		if rest := strings.TrimLeft(t[i:], " \t"); strings.HasPrefix(rest, "(") {
			return splitArgs(rest)
		}
	}
}

// paramNames are the parameter names in the header of the function name
// whose source is text: the last identifier of each parameter, before
// any default value or annotation.
func paramNames(text, name string) []string {
	i := indexIdent(text, name)
	if i < 0 {
		return nil
	}
	rest := strings.TrimLeft(text[i+len(name):], " \t")
	var out []string
	for _, p := range splitArgs(rest) {
		p, _, _ = strings.Cut(p, "=")
		if py, _, ok := strings.Cut(p, ":"); ok {
			p = py
		}
		ids := identifiers(p)
		if len(ids) == 0 {
			return nil
		}
		out = append(out, ids[len(ids)-1])
	}
	return out
}

// splitArgs splits the parenthesised list that s starts with at its
// top-level commas; nil when s does not start with "(" or never closes
// it.
func splitArgs(s string) []string {
	if !strings.HasPrefix(s, "(") {
		return nil
	}
	var out []string
	depth, start := 0, 1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth--; depth == 0 {
				if a := strings.TrimSpace(s[start:i]); a != "" || len(out) > 0 {
					out = append(out, a)
				}
				return out
			}
		case ',':
			if depth == 1 {
				out, start = append(out, strings.TrimSpace(s[start:i])), i+1
			}
		case '"', '\'':
			i = skipQuoted([]byte(s), i, s[i]) // the quote closing it
		}
	}
	return nil
}

// substitute is lines with each parameter replaced by its argument, as
// whole identifiers. A Python method's self or cls, which the call's
// receiver supplies, has no argument.
func substitute(lines, params, args []string) []string {
	if len(params) == len(args)+1 && (params[0] == "self" || params[0] == "cls") {
		params = params[1:]
	}
	if len(params) != len(args) {
		return lines
	}
	to := map[string]string{}
	for i, p := range params {
		to[p] = args[i]
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = replaceIdents(l, to)
	}
	return out
}

// replaceIdents replaces the identifiers of l found in to.
func replaceIdents(l string, to map[string]string) string {
	var sb strings.Builder
	for i := 0; i < len(l); {
		if !isIdentByte(l[i]) || i > 0 && isIdentByte(l[i-1]) {
			sb.WriteByte(l[i])
			i++
			continue
		}
		j := i
		for j < len(l) && isIdentByte(l[j]) {
			j++
		}
		if r, ok := to[l[i:j]]; ok && (i == 0 || l[i-1] != '.') {
			sb.WriteString(r)
		} else {
			sb.WriteString(l[i:j])
		}
		i = j
	}
	return sb.String()
}

// identifiers are the identifier-like words of s, in order.
func identifiers(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r > 127 || !isIdentByte(byte(r)) })
}

// indexIdent is the index of name in s as a whole identifier, or -1.
func indexIdent(s, name string) int {
	for off := 0; ; {
		i := strings.Index(s[off:], name)
		if i < 0 {
			return -1
		}
		i += off
		end := i + len(name)
		if (i == 0 || !isIdentByte(s[i-1])) && (end == len(s) || !isIdentByte(s[end])) {
			return i
		}
		off = i + 1
	}
}
