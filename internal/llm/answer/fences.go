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
		trimmed := strings.TrimLeft(l, " ")
		indent := len(l) - len(trimmed)
		if cur == nil {
			if indent > 3 {
				continue
			}
			f := fenceRun(trimmed)
			if f == "" || (f[0] == '`' && strings.Contains(trimmed[len(f):], "`")) {
				continue
			}
			cur, fence, body = &Block{Info: strings.TrimSpace(trimmed[len(f):]), Line: i + 1}, f, nil
			continue
		}
		if f := fenceRun(trimmed); indent <= 3 && f != "" && f[0] == fence[0] && len(f) >= len(fence) && strings.TrimSpace(trimmed[len(f):]) == "" {
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
