// Package answer owns the tolerant reading of structured fields out of
// free-text model answers. Models asked for one JSON object send it whole,
// in a fenced code block, inside prose, as "key: value" lines or as a bare
// "Yes."; a Reader tries those sources from strictest to most tolerant and
// takes the first that holds one of the caller's decisive keys.
//
// An answer from which no decisive field can be read is reported as such,
// never guessed: Read returns no fields, and the caller records the raw
// text as unparseable. What each field means, and which words decide it,
// stays with the caller (the judge's stages, the probes' verdicts).
package answer

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"unicode/utf8"
)

// How an answer was read, from strictest to most tolerant. Callers record
// it with the answer, so a reading that needed tolerance stays visible.
const (
	JSON     = "json"     // the whole answer is one JSON object
	Fenced   = "fenced"   // a JSON object in a fenced code block
	Embedded = "embedded" // a JSON object inside prose (e.g. trailing text)
	Lines    = "lines"    // "key: value" lines
	YesNo    = "yesno"    // a bare yes/no answer to a one-question prompt
)

// MaxLen bounds the text an answer is read from. Structured answers are a
// few hundred bytes; a model that rambles past this is cut, so every stage
// stays linear in a bounded input (callers keep the raw text).
const MaxLen = 64 << 10

// ErrEmpty is Clean's error for an answer with nothing but white space.
var ErrEmpty = errors.New("empty answer")

// Clean prepares an answer for reading: it cuts the text at MaxLen,
// replaces invalid UTF-8 (a cut may split a rune) and trims white space.
// An empty result is ErrEmpty, which callers wrap as their unparseable
// error.
func Clean(text string) (string, error) {
	if len(text) > MaxLen {
		text = text[:MaxLen]
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	text = strings.TrimSpace(text)
	if text == "" {
		return "", ErrEmpty
	}
	return text, nil
}

// Reader says where to look for an answer's fields. The zero value reads
// nothing: a source counts only when it holds a decisive key.
type Reader struct {
	// Decisive are the normalised keys (lower-case ASCII letters and
	// digits) of which a source must hold one, non-null, to be taken.
	Decisive []string
	// Fences returns the bodies of the answer's fenced code blocks in
	// order; nil skips the stage. It is the caller's because what counts
	// as a fence differs: the judge reads Markdown line fences as its
	// code gate does, the probes also one-line ```{…}``` blocks.
	Fences func(text string) []string
	// FenceProse also takes a JSON object embedded in prose inside a
	// fenced block (labelled Fenced); without it such a block is left to
	// the Embedded stage over the whole answer.
	FenceProse bool
	// BareYesNo reads an answer opening with a lone "Yes" or "No" as
	// {Decisive[0]: true|false}. Only for a one-question prompt: where
	// two booleans are asked, one word cannot answer both.
	BareYesNo bool
}

// Read finds the answer's fields, trying in order: the whole text as one
// JSON object, fenced blocks, a JSON object embedded in prose, "key: value"
// lines and, with BareYesNo, an opening yes/no. It returns the fields and
// how they were read, or nil and "" when no source holds a decisive key.
// text is expected to be Clean's result.
func (r Reader) Read(text string) (Fields, string) {
	stages := []struct {
		how  string
		read func(string) (Fields, bool)
	}{
		{JSON, r.whole}, {Fenced, r.fenced}, {Embedded, r.embedded}, {Lines, r.lines}, {YesNo, r.yesNo},
	}
	for _, st := range stages {
		if f, ok := st.read(text); ok {
			return f, st.how
		}
	}
	return nil, ""
}

// whole reads text as one JSON object with a decisive key.
func (r Reader) whole(text string) (Fields, bool) {
	if f, ok := object(text); ok && f.Has(r.Decisive...) {
		return f, true
	}
	return nil, false
}

// lines reads text's "key: value" lines when they give a decisive key.
func (r Reader) lines(text string) (Fields, bool) {
	if f := keyValueLines(text); f.Has(r.Decisive...) {
		return f, true
	}
	return nil, false
}

// yesNo reads, with BareYesNo, an opening yes or no as the first decisive
// key's value.
func (r Reader) yesNo(text string) (Fields, bool) {
	if !r.BareYesNo || len(r.Decisive) == 0 {
		return nil, false
	}
	if b, ok := bareYesNo(text); ok {
		return Fields{r.Decisive[0]: b}, true
	}
	return nil, false
}

// fenced reads the first fenced block of text that is a JSON object with
// a decisive key or, with FenceProse, embeds one.
func (r Reader) fenced(text string) (Fields, bool) {
	if r.Fences == nil {
		return nil, false
	}
	for _, code := range r.Fences(text) {
		if f, ok := object(strings.TrimSpace(code)); ok && f.Has(r.Decisive...) {
			return f, true
		}
		if r.FenceProse {
			if f, ok := r.embedded(code); ok {
				return f, true
			}
		}
	}
	return nil, false
}

// object decodes s as exactly one JSON object.
func object(s string) (Fields, bool) {
	if !strings.HasPrefix(s, "{") {
		return nil, false
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, false
	}
	return normalise(m), true
}

// maxStarts bounds the '{' positions embedded tries, so an answer full of
// braces (code, say) costs linear time, not quadratic.
const maxStarts = 32

// embedded decodes the first JSON object starting at a '{' of s that holds
// a decisive key, ignoring what surrounds it (leading or trailing prose).
func (r Reader) embedded(s string) (Fields, bool) {
	for tries, off := 0, 0; tries < maxStarts && off < len(s); tries++ {
		i := strings.IndexByte(s[off:], '{')
		if i < 0 {
			return nil, false
		}
		off += i
		var m map[string]any
		if json.NewDecoder(strings.NewReader(s[off:])).Decode(&m) == nil {
			if f := normalise(m); f.Has(r.Decisive...) {
				return f, true
			}
		}
		off++
	}
	return nil, false
}

// keyLine is "key: value" or "key = value", the key optionally quoted,
// bulleted or in Markdown bold.
var keyLine = regexp.MustCompile(`^[\s>*\-•]*[*_"'` + "`" + `]*([A-Za-z][A-Za-z0-9_ \-]{0,40}?)[*_"'` + "`" + `]*\s*[:=]\s*(.*)$`)

// keyValueLines reads every "key: value" line; the first line of a key
// wins, as a model's later lines tend to restate or hedge.
func keyValueLines(text string) Fields {
	f := Fields{}
	for line := range strings.SplitSeq(text, "\n") {
		m := keyLine.FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil {
			continue
		}
		k := normKey(m[1])
		if _, dup := f[k]; dup || k == "" {
			continue
		}
		f[k] = lineValue(m[2])
	}
	return f
}

// lineValue is the value of a "key: value" line without Markdown
// emphasis, a trailing comma or enclosing quotes.
func lineValue(v string) string {
	v = strings.TrimSpace(v)
	v = strings.TrimRight(strings.TrimLeft(v, "*_`"), "*_`,")
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		v = v[1 : len(v)-1]
	}
	return v
}

// bareYesNo reads an answer that opens with a lone "Yes" or "No" (after
// Markdown emphasis or heading markers), followed by the end of the text,
// punctuation or a line break — so "No JSON, sorry" or "Nothing to say"
// are not read as "no".
func bareYesNo(s string) (bool, bool) {
	b, s, ok := yesNoWord(strings.TrimLeft(s, " \t\r\n*_#>`\"'"))
	if !ok {
		return false, false
	}
	s = strings.TrimLeft(strings.TrimLeft(s, "*_`\"'"), " \t")
	if s == "" {
		return b, true
	}
	switch r, _ := utf8.DecodeRuneInString(s); r {
	case '.', ',', ';', ':', '!', '-', '—', '–', ')', '\n', '\r':
		return b, true
	}
	return false, false
}

// yesNoWord reads a leading "yes" or "no", in any case, and returns what
// follows it.
func yesNoWord(s string) (b bool, rest string, ok bool) {
	switch {
	case len(s) >= 3 && strings.EqualFold(s[:3], "yes"):
		return true, s[3:], true
	case len(s) >= 2 && strings.EqualFold(s[:2], "no"):
		return false, s[2:], true
	}
	return false, s, false
}
