package track

import (
	"bytes"
	"strings"
)

// fastSpan finds the tracked function in src without a parse, by its
// header line (the line of its text that names it, e.g. "public int
// size() {" or "def size(self):"): when that line occurs exactly once in
// src, the function runs from it to its matching closing brace (Java) or
// to the next line indented no deeper than the header (Python). ok is
// false when the header is not unique or the span cannot be closed; the
// caller then parses the file.
func fastSpan(src []byte, text, name string, python bool) (string, bool) {
	header := headerLine(text, name)
	if header == "" {
		return "", false
	}
	at := uniqueLine(src, header)
	if at < 0 {
		return "", false
	}
	var end int
	if python {
		end = pythonEnd(src, at)
	} else {
		end = braceEnd(src, at)
	}
	if end < 0 {
		return "", false
	}
	return string(src[at:end]), true
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
// trimmed text is header (-1 when none or several); the offset skips the
// line's indentation.
func uniqueLine(src []byte, header string) int {
	hb := []byte(header)
	found := -1
	for off := 0; off < len(src); {
		i := bytes.Index(src[off:], hb)
		if i < 0 {
			break
		}
		p := off + i
		ls := bytes.LastIndexByte(src[:p], '\n') + 1
		le := bytes.IndexByte(src[p:], '\n')
		if le < 0 {
			le = len(src)
		} else {
			le += p
		}
		if string(bytes.TrimSpace(src[ls:le])) == header {
			if found >= 0 {
				return -1
			}
			found = p
		}
		off = p + len(hb)
	}
	return found
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
