package answer

import "strings"

// The Markdown fence reader lives here, beside Reader, because the
// synthesis gate, the judge and the JVM verifier all read model answers
// with it, and the verifier must not depend on the gate.

// Block is one fenced code block of a model answer.
type Block struct {
	Info string // the info string after the opening fence, trimmed
	Code string
	Line int // 1-based line of the opening fence
}

// FencedBodies returns the bodies of text's fenced blocks, unterminated
// ones included: the shape Reader's Fences hook wants, so the judge and
// the JVM harness read answers with the same fences as the synthesis gate
// reads generated code.
func FencedBodies(text string) []string {
	blocks, _ := FencedBlocks(text)
	code := make([]string, len(blocks))
	for i, b := range blocks {
		code[i] = b.Code
	}
	return code
}

// FencedBlocks returns the fenced code blocks of a Markdown answer
// (CommonMark fences: a line of three or more backticks or tildes indented
// at most three spaces opens; a line of the same character, at least as
// long, with nothing else, closes). An unterminated block is returned with
// ok false.
func FencedBlocks(text string) (blocks []Block, ok bool) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var cur *Block
	var fence string
	var body []string
	for i, l := range lines {
		if cur == nil {
			if f, info, ok := openingFence(l); ok {
				cur, fence, body = &Block{Info: info, Line: i + 1}, f, nil
			}
			continue
		}
		if closesFence(l, fence) {
			cur.Code = strings.Join(body, "\n")
			blocks = append(blocks, *cur)
			cur = nil
			continue
		}
		body = append(body, l)
	}
	if cur != nil {
		cur.Code = strings.Join(body, "\n")
		return append(blocks, *cur), false
	}
	return blocks, true
}

// openingFence reads line l as an opening fence: indented at most three
// spaces, a fence run and an info string (with no backtick after a
// backtick fence).
func openingFence(l string) (fence, info string, ok bool) {
	trimmed := strings.TrimLeft(l, " ")
	if len(l)-len(trimmed) > 3 {
		return "", "", false
	}
	f := fenceRun(trimmed)
	if f == "" || (f[0] == '`' && strings.Contains(trimmed[len(f):], "`")) {
		return "", "", false
	}
	return f, strings.TrimSpace(trimmed[len(f):]), true
}

// closesFence reports whether line l closes a block opened by fence:
// indented at most three spaces, a run of its character at least as long
// and nothing else.
func closesFence(l, fence string) bool {
	trimmed := strings.TrimLeft(l, " ")
	f := fenceRun(trimmed)
	return len(l)-len(trimmed) <= 3 && f != "" && f[0] == fence[0] && len(f) >= len(fence) && strings.TrimSpace(trimmed[len(f):]) == ""
}

// fenceRun returns the leading run of three or more backticks or tildes.
func fenceRun(s string) string {
	if len(s) < 3 || (s[0] != '`' && s[0] != '~') {
		return ""
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return s[:n]
}
