package ngram

import (
	"unicode"
	"unicode/utf8"
)

// Kind classifies a token produced by Tokenize.
type Kind uint8

// Token kinds. Comment and long-string contents are lexed as words, so
// their pieces carry KindIdent/KindNumber/KindPunct like code does.
const (
	KindSpace  Kind = iota // a whitespace run containing a newline, or several blanks
	KindIdent              // identifier or keyword (letters, digits, '_', '$')
	KindNumber             // numeric literal
	KindString             // complete string or character literal (short ones only)
	KindPunct              // operator, punctuation, comment or quote delimiter
	KindOther              // any other rune, or a byte that is not valid UTF-8
)

func (k Kind) String() string {
	switch k {
	case KindSpace:
		return "space"
	case KindIdent:
		return "ident"
	case KindNumber:
		return "number"
	case KindString:
		return "string"
	case KindPunct:
		return "punct"
	default:
		return "other"
	}
}

// Token is one lexeme of source text. Text is a substring of the input and
// Offset its byte offset, so concatenating the Text of all tokens gives the
// input back exactly. A single blank before a token is part of the token
// (" foo"), as in byte-pair tokenizers; other whitespace runs are tokens of
// their own (KindSpace).
type Token struct {
	Text   string
	Offset int
	Kind   Kind
}

const (
	maxSpaceToken  = 64 // longer whitespace runs are split into pieces
	maxStringToken = 48 // longer string literals are lexed as words
)

// operators lists multi-byte operators, longest first, matched by maximal
// munch. The union of Java, Python, C and JavaScript operators.
var operators = []string{
	">>>=", "<<=", ">>=", ">>>", "...", "**=", "//=", "===", "!==", "->", "::", "++", "--",
	"&&", "||", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=", "%=", "&=",
	"|=", "^=", "<<", ">>", "**", ":=", "=>", "@=",
}

// opsByFirst indexes operators by their first byte.
var opsByFirst = func() (t [256][]string) {
	for _, op := range operators {
		t[op[0]] = append(t[op[0]], op)
	}
	return t
}()

// Tokenize splits code into tokens with a single generic lexer for C-family
// languages, Java and Python: identifiers, numbers, string and character
// literals (with escapes; Python triple quotes and Java text blocks),
// operators by maximal munch, and whitespace. Comments ("//", "/* */", "#")
// are recognised only so that their prose is lexed as words, not as quotes.
// It never fails: every byte of src belongs to exactly one token.
func Tokenize(src string) []Token {
	return appendTokens(make([]Token, 0, len(src)/4+1), src)
}

type lexMode uint8

const (
	modeCode lexMode = iota
	modeLineComment
	modeBlockComment
	modeText // inside a long string: words only, no terminator
)

func appendTokens(dst []Token, src string) []Token {
	return lexRange(dst, src, 0, len(src), modeCode)
}

// lexRange lexes src[start:end] in the given mode and appends the tokens.
func lexRange(dst []Token, src string, start, end int, mode lexMode) []Token {
	i := start
	for i < end {
		c := src[i]
		if mode == modeLineComment && (c == '\n' || c == '\r') {
			mode = modeCode
		}
		if !isSpace(c) {
			dst, i, mode = lexOne(dst, src, i, i, end, mode)
			continue
		}
		j := i
		for j < end && isSpace(src[j]) {
			j++
		}
		if j-i == 1 && c == ' ' && j < end {
			// A single blank is glued to the token that follows.
			dst, i, mode = lexOne(dst, src, i, j, end, mode)
			continue
		}
		dst, i = appendSpaces(dst, src, i, j), j
	}
	return dst
}

// appendSpaces emits the blanks src[i:j] as space tokens of at most
// maxSpaceToken bytes.
func appendSpaces(dst []Token, src string, i, j int) []Token {
	for i < j {
		k := min(j, i+maxSpaceToken)
		dst = append(dst, Token{Text: src[i:k], Offset: i, Kind: KindSpace})
		i = k
	}
	return dst
}

// lexOne lexes the token starting at body (the token itself starts at tok,
// which is body or body-1 when a blank is glued to it) and returns the
// position after it.
func lexOne(dst []Token, src string, tok, body, end int, mode lexMode) ([]Token, int, lexMode) {
	if out, next, m, ok := lexModal(dst, src, tok, body, end, mode); ok {
		return out, next, m
	}
	if out, next, ok := lexWord(dst, src, tok, body, end); ok {
		return out, next, mode
	}
	rest := src[body:end]
	c := rest[0]
	if mode == modeCode {
		for _, op := range opsByFirst[c] {
			if hasPrefix(rest, op) {
				dst = append(dst, Token{Text: src[tok : body+len(op)], Offset: tok, Kind: KindPunct})
				return dst, body + len(op), mode
			}
		}
	}
	k := KindPunct
	if c < 0x20 || c == 0x7f {
		k = KindOther
	}
	dst = append(dst, Token{Text: src[tok : body+1], Offset: tok, Kind: k})
	return dst, body + 1, mode
}

// lexModal lexes what only the mode gives a meaning: the end of a block
// comment inside one, and in code a comment opener or a string literal.
func lexModal(dst []Token, src string, tok, body, end int, mode lexMode) ([]Token, int, lexMode, bool) {
	rest := src[body:end]
	c := rest[0]
	punct := func(n int, next lexMode) ([]Token, int, lexMode, bool) {
		return append(dst, Token{Text: src[tok : body+n], Offset: tok, Kind: KindPunct}), body + n, next, true
	}
	switch mode {
	case modeBlockComment:
		if hasPrefix(rest, "*/") {
			return punct(2, modeCode)
		}
	case modeCode:
		switch {
		case hasPrefix(rest, "/**") && !hasPrefix(rest, "/**/"):
			return punct(3, modeBlockComment)
		case hasPrefix(rest, "/*"):
			return punct(2, modeBlockComment)
		case hasPrefix(rest, "//"):
			return punct(2, modeLineComment)
		case c == '#':
			return punct(1, modeLineComment)
		case c == '"' || c == '\'' || c == '`':
			return lexString(dst, src, tok, body, end), stringEnd(src, body, end), mode, true
		}
	}
	return dst, 0, mode, false
}

// lexWord lexes an identifier (ASCII or Unicode letters), a number, or a
// single non-letter Unicode character.
func lexWord(dst []Token, src string, tok, body, end int) ([]Token, int, bool) {
	c := src[body]
	switch {
	case isIdentStart(c):
		e := scanIdentEnd(src, body, end)
		return append(dst, Token{Text: src[tok:e], Offset: tok, Kind: KindIdent}), e, true
	case isDigit(c) || (c == '.' && body+1 < end && isDigit(src[body+1])):
		e := scanNumber(src, body, end)
		return append(dst, Token{Text: src[tok:e], Offset: tok, Kind: KindNumber}), e, true
	case c >= utf8.RuneSelf:
		r, n := utf8.DecodeRuneInString(src[body:end])
		if r != utf8.RuneError && (unicode.IsLetter(r) || r == '_') {
			e := scanIdentEnd(src, body, end)
			return append(dst, Token{Text: src[tok:e], Offset: tok, Kind: KindIdent}), e, true
		}
		return append(dst, Token{Text: src[tok : body+n], Offset: tok, Kind: KindOther}), body + n, true
	}
	return dst, 0, false
}

// stringEnd returns the end of the string literal starting at i: after the
// closing quote, or before the newline (or end) when it is unterminated.
// Triple quotes may span lines.
func stringEnd(src string, i, end int) int {
	q := src[i]
	if i+2 < end && src[i+1] == q && src[i+2] == q {
		return tripleStringEnd(src, q, i+3, end)
	}
	j := i + 1
	for j < end {
		switch src[j] {
		case '\\':
			j += 2
			continue
		case q:
			return j + 1
		case '\n', '\r':
			if q != '`' {
				return j
			}
		}
		j++
	}
	return end
}

// tripleStringEnd is the end of a triple-quoted literal (quote q) whose
// contents start at j: after the closing quotes, or end.
func tripleStringEnd(src string, q byte, j, end int) int {
	for j < end {
		switch {
		case src[j] == '\\':
			j += 2
		case j+2 < end && src[j] == q && src[j+1] == q && src[j+2] == q:
			return j + 3
		default:
			j++
		}
	}
	return end
}

// lexString emits the literal at body (glued blank at tok) as one token
// when it is short, or as its quotes plus its contents lexed as words.
func lexString(dst []Token, src string, tok, body, end int) []Token {
	e := min(stringEnd(src, body, end), end)
	if e-tok <= maxStringToken {
		return append(dst, Token{Text: src[tok:e], Offset: tok, Kind: KindString})
	}
	q := src[body]
	open := body + 1
	if body+2 < e && src[body+1] == q && src[body+2] == q {
		open = body + 3
	}
	dst = append(dst, Token{Text: src[tok:open], Offset: tok, Kind: KindPunct})
	close := closingQuote(src, q, open-body, open, e)
	dst = lexRange(dst, src, open, close, modeText)
	if close < e {
		dst = append(dst, Token{Text: src[close:e], Offset: close, Kind: KindPunct})
	}
	return dst
}

// closingQuote is where the closing quotes (width 1 or 3, quote q) of a
// literal whose contents start at open and which ends at e begin; e when
// it is unterminated or the quote is escaped.
func closingQuote(src string, q byte, width, open, e int) int {
	if e-open < width {
		return e
	}
	for k := 1; k <= width; k++ {
		if src[e-k] != q {
			return e
		}
	}
	if e-width-1 >= open && src[e-width-1] == '\\' {
		return e
	}
	return e - width
}

func scanIdentEnd(src string, i, end int) int {
	for i < end {
		c := src[i]
		if c < utf8.RuneSelf {
			if isIdentStart(c) || isDigit(c) {
				i++
				continue
			}
			return i
		}
		r, n := utf8.DecodeRuneInString(src[i:end])
		if r == utf8.RuneError || !(unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)) {
			return i
		}
		i += n
	}
	return i
}

func scanNumber(src string, i, end int) int {
	hex := i+1 < end && src[i] == '0' && (src[i+1] == 'x' || src[i+1] == 'X')
	j := i
	for j < end {
		c := src[j]
		switch {
		case isDigit(c) || isIdentStart(c) || c == '.':
			j++
		case (c == '+' || c == '-') && j > i && isExponent(src[j-1], hex):
			j++
		default:
			return j
		}
	}
	return j
}

// isExponent says whether p marks an exponent a sign may follow: e or E
// in a decimal number, p or P in a hexadecimal one.
func isExponent(p byte, hex bool) bool {
	if hex {
		return p == 'p' || p == 'P'
	}
	return p == 'e' || p == 'E'
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
}
