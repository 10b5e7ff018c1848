package track

import (
	"bytes"
	"iter"
	"strings"
)

// fastSpan finds the tracked function in src without a parse, by its
// header line (the line of its text that names it, e.g. "public int
// size() {" or "def size(self):"): when that line occurs exactly once in
// src, the function runs from it to its matching closing brace (Java) or
// to the next line indented no deeper than the header (Python). ok is
// false when the header is not unique or the span cannot be closed; the
// caller then parses the file.
//
// prev, the version text was read from (nil: none), settles a header that
// src holds several times — the bodies of a state-machine enum each
// override process(...) — by the line above it there ("InBody {");
// anchored says it was settled so.
func fastSpan(src []byte, text, name string, python bool, prev []byte) (span string, ok, anchored bool) {
	header := headerLine(text, name)
	if header == "" {
		return "", false, false
	}
	at := uniqueLine(src, header, "")
	if at == -2 && headerCount(prev, header) == headerCount(src, header) {
		// As many bodies as before: none was copied or moved in beside it.
		// The line above must open the enclosing body and name one place in
		// both ("InBody {"; not "@Override", above a method that may have
		// moved into another class), so the function's class is unchanged.
		if above, ok := lineAbove(prev, text, header); ok && strings.HasSuffix(above, "{") &&
			headerCount(prev, above) == 1 && headerCount(src, above) == 1 {
			at, anchored = uniqueLine(src, header, above), true
		}
	}
	if at < 0 {
		return "", false, false
	}
	var end int
	if python {
		end = pythonEnd(src, at)
	} else {
		end = braceEnd(src, at)
	}
	if end < 0 {
		return "", false, false
	}
	return string(src[at:end]), true, anchored
}

// headerLine is the first line of text containing "name(" (trimmed).
func headerLine(text, name string) string {
	for _, l := range strings.SplitN(text, "\n", 12) {
		if strings.Contains(l, name+"(") || strings.Contains(l, name+" (") {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// uniqueLine is the byte offset of the start of the only line of src whose
// trimmed text is header and, unless above is "", whose nearest non-blank
// line above is above (trimmed); -1 when there is none, -2 when several.
// The offset skips the line's indentation.
func uniqueLine(src []byte, header, above string) int {
	found := -1
	for ls, p := range headerLines(src, header) {
		if above == "" || prevLine(src, ls) == above {
			if found >= 0 {
				return -2
			}
			found = p
		}
	}
	return found
}

// headerCount is how many lines of src read header (trimmed).
func headerCount(src []byte, header string) int {
	n := 0
	if header == "" {
		for l := range bytes.SplitSeq(src, []byte("\n")) {
			if len(bytes.TrimSpace(l)) == 0 {
				n++
			}
		}
		return n
	}
	for range headerLines(src, header) {
		n++
	}
	return n
}

// headerLines yields the start of each line of src whose trimmed text is
// header (not empty), and where header starts in it. Only lines holding
// header can read it: they are found by searching for it, not by
// splitting every line.
func headerLines(src []byte, header string) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		hb := []byte(header)
		for off := 0; off < len(src); {
			i := bytes.Index(src[off:], hb)
			if i < 0 {
				return
			}
			p := off + i
			ls := bytes.LastIndexByte(src[:p], '\n') + 1
			le := bytes.IndexByte(src[p:], '\n')
			if le < 0 {
				le = len(src)
			} else {
				le += p
			}
			if string(bytes.TrimSpace(src[ls:le])) == header && !yield(ls, p) {
				return
			}
			off = le + 1
		}
	}
}

// lineAbove is the trimmed non-blank line above text's header line in
// prev, where text occurs once; false when it cannot be told.
func lineAbove(prev []byte, text, header string) (string, bool) {
	i := bytes.Index(prev, []byte(text))
	if i < 0 || bytes.LastIndex(prev, []byte(text)) != i {
		return "", false
	}
	h := strings.Index(text, header)
	if h < 0 {
		return "", false
	}
	p := i + h
	above := prevLine(prev, bytes.LastIndexByte(prev[:p], '\n')+1)
	return above, above != ""
}

// prevLine is the trimmed text of the nearest non-blank line before the
// line starting at ls.
func prevLine(src []byte, ls int) string {
	for end := ls - 1; end > 0; {
		start := bytes.LastIndexByte(src[:end], '\n') + 1
		if t := bytes.TrimSpace(src[start:end]); len(t) > 0 {
			return string(t)
		}
		end = start - 1
	}
	return ""
}

// braceEnd is the offset after the brace closing the first block opened
// at or after at, skipping string and char literals and comments; -1 when
// unbalanced or when a ';' ends the declaration first (no body).
func braceEnd(src []byte, at int) int {
	depth := 0
	for i := at; i < len(src); i++ {
		switch c := src[i]; c {
		case '"', '\'':
			i = skipQuoted(src, i, c)
		case '/':
			if i = skipComment(src, i); i < 0 {
				return -1
			}
		case ';':
			if depth == 0 {
				return -1
			}
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i + 1
			}
			if depth < 0 {
				return -1
			}
		}
	}
	return -1
}

// skipComment is the offset of the last byte of the comment starting at
// src[i] == '/' (the newline ending a line comment, or len(src); the '/'
// closing a block comment), i itself when no comment starts there, or -1
// for an unterminated block comment.
func skipComment(src []byte, i int) int {
	if i+1 >= len(src) {
		return i
	}
	switch src[i+1] {
	case '/':
		for i < len(src) && src[i] != '\n' {
			i++
		}
		return i
	case '*':
		j := bytes.Index(src[i+2:], []byte("*/"))
		if j < 0 {
			return -1
		}
		return i + j + 3
	}
	return i
}

func skipQuoted(src []byte, i int, q byte) int {
	if q == '"' && bytes.HasPrefix(src[i:], []byte(`"""`)) { // Java text block
		j := bytes.Index(src[i+3:], []byte(`"""`))
		if j < 0 {
			return len(src)
		}
		return i + 3 + j + 2
	}
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case q, '\n':
			return j
		}
	}
	return len(src)
}

// pythonEnd is the offset where the def starting at at ends: before the
// first later non-blank, non-comment line indented no deeper than the def
// line (trailing blank lines excluded).
func pythonEnd(src []byte, at int) int {
	ls := bytes.LastIndexByte(src[:at], '\n') + 1
	ind := at - ls
	nl := bytes.IndexByte(src[at:], '\n')
	if nl < 0 {
		return len(src)
	}
	end := at + nl
	for p := at + nl + 1; p < len(src); {
		le := bytes.IndexByte(src[p:], '\n')
		if le < 0 {
			le = len(src)
		} else {
			le += p
		}
		line := src[p:le]
		tr := bytes.TrimLeft(line, " \t")
		if len(bytes.TrimSpace(tr)) > 0 {
			if len(line)-len(tr) <= ind && tr[0] != '#' && tr[0] != ')' {
				return end
			}
			end = le
		}
		p = le + 1
	}
	return end
}
