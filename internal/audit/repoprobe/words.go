package repoprobe

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/benchforge/benchforge/internal/ngram"
)

// File is one source file of a repository snapshot. Mining is decoupled
// from git: callers read the snapshot (internal/gitrepo) or a folder or
// archive and pass its files.
type File struct {
	Path    string
	Content []byte
}

// tok is one non-whitespace lexeme of a file with its byte offset; word
// marks an identifier (or comment word) that is not a keyword.
type tok struct {
	text string
	off  int
	word bool
}

// lexTokens lexes src with the n-gram tokenizer (internal/ngram: fast and
// total, and byte offsets map back to the source) and drops whitespace.
func lexTokens(src string) []tok {
	nt := ngram.Tokenize(src)
	out := make([]tok, 0, len(nt))
	for _, t := range nt {
		if t.Kind == ngram.KindSpace {
			continue
		}
		text := strings.TrimLeft(t.Text, " \t")
		if text == "" {
			continue
		}
		off := t.Offset + len(t.Text) - len(text)
		out = append(out, tok{text: text, off: off, word: t.Kind == ngram.KindIdent && isWord(text)})
	}
	return out
}

// isWord reports whether s is an identifier-like word that can be a
// target: it starts with a letter or '_', and is not a keyword.
func isWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	if !(unicode.IsLetter(r) || r == '_') {
		return false
	}
	return !keywords[s]
}

// wordAt returns the identifier-like word at the start of s after leading
// whitespace: the maximal run of letters, digits, '_' and '$'.
func firstWord(s string) string {
	s = strings.TrimLeftFunc(s, unicode.IsSpace)
	end := 0
	for i, r := range s {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '$') {
			break
		}
		end = i + utf8.RuneLen(r)
	}
	return s[:end]
}

// keywords are the Java and Python keywords and literal words: never
// targets, never co-occurrence items.
var keywords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`abstract assert boolean break byte case catch char class const
continue default do double else enum extends final finally float for goto if implements import
instanceof int interface long native new package private protected public return short static
strictfp super switch synchronized this throw throws transient try void volatile while var record
yield sealed permits non true false null
False None True and as async await def del elif except from global in is lambda nonlocal not or
pass raise with self cls print`) {
		m[w] = true
	}
	return m
}()

// subToken is one piece of an identifier split by case and underscores.
type subToken struct {
	text       string
	start, end int // byte range in the identifier
}

// splitSubTokens splits an identifier into sub-tokens at underscores and
// '$', at lower→upper case changes ("getName" → get, Name), before the last
// capital of an acronym run followed by lower case ("HTTPServer" → HTTP,
// Server), and between letters and digits ("utf8" → utf, 8).
func splitSubTokens(id string) []subToken {
	var out []subToken
	// Byte offsets from ranging over the string, so an invalid byte
	// (decoded as one U+FFFD of width 1) keeps its real width.
	var rs []rune
	var offs []int
	for i, r := range id {
		rs = append(rs, r)
		offs = append(offs, i)
	}
	offs = append(offs, len(id))
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, subToken{text: id[offs[start]:offs[end]], start: offs[start], end: offs[end]})
		}
		start = -1
	}
	for i, r := range rs {
		if r == '_' || r == '$' || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		if subTokenBoundary(rs, i) {
			flush(i)
			start = i
		}
	}
	flush(len(rs))
	return out
}

// subTokenBoundary says whether a sub-token starts at letter or digit
// rs[i] (i > 0, rs[i-1] a letter or digit too): a lower→upper case
// change, the last capital of an acronym run followed by lower case, or a
// letter–digit change.
func subTokenBoundary(rs []rune, i int) bool {
	p, r := rs[i-1], rs[i]
	switch {
	case unicode.IsLower(p) && unicode.IsUpper(r):
		return true
	case unicode.IsUpper(p) && unicode.IsUpper(r) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
		return true
	}
	return unicode.IsDigit(p) != unicode.IsDigit(r)
}

// stem is a tiny Porter-style suffix stripper for identifier sub-tokens
// (lower-cased): it removes one inflectional or derivational suffix from
// suffixes (longest first), keeping a stem of at least three letters,
// maps "-ies" to "-y", undoubles a final consonant left by stripping
// ("getter" → "get") and drops a final silent e. It is deliberately crude: it only has to make
// "parse"/"parser"/"parsing", "element"/"elements", "entry"/"entries"
// collide (benchchecker §4.1, Algorithm 3: lexically related sub-tokens).
func stem(w string) string {
	w = strings.ToLower(w)
	if len(w) > 4 && strings.HasSuffix(w, "ies") {
		return w[:len(w)-3] + "y"
	}
	for _, suf := range suffixes {
		if len(w)-len(suf) >= 3 && strings.HasSuffix(w, suf) {
			w = undouble(w[:len(w)-len(suf)])
			break
		}
	}
	// parse/pars, close/clos: drop a final silent e so "parser" and
	// "parse" share a stem.
	if len(w) > 3 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

// undouble is Porter step 1b: a final doubled consonant left by
// stripping a suffix is undoubled ("getter" → "gett" → "get", "mapping"
// → "map").
func undouble(w string) string {
	if n := len(w); n >= 4 && w[n-1] == w[n-2] && !strings.ContainsRune("aeioulsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

var suffixes = []string{
	"ations", "ation", "ments", "ment", "ings", "ing", "ers", "ions", "ion",
	"able", "ible", "ness", "ity", "ies", "ed", "er", "or", "ly", "es", "s",
}

// related reports whether two sub-tokens are lexically related: equal
// ignoring case, equal stems, or one a prefix of the other when the
// shorter has at least four letters (abbreviations such as
// "conf"/"config"/"configuration", "impl"/"implementation").
func related(a, b string) bool {
	a, b = strings.ToLower(a), strings.ToLower(b)
	if a == b || stem(a) == stem(b) {
		return true
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	return len(a) >= 4 && strings.HasPrefix(b, a)
}
