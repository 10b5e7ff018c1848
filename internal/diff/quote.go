package diff

import (
	"errors"
	"strings"
)

// needsQuote reports whether git would C-quote the path (core.quotePath on,
// the default): control characters, '"', '\\', DEL and bytes >= 0x80.
func needsQuote(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c >= 0x7f {
			return true
		}
	}
	return false
}

// escapedBytes are the bytes C quoting writes as a backslash and the
// letter at the same index of escapeLetters.
const (
	escapedBytes  = "\a\b\t\n\v\f\r\"\\"
	escapeLetters = `abtnvfr"\`
)

// quote C-quotes s the way git's quote_c_style does, if it needs quoting.
func quote(s string) string {
	if !needsQuote(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch k := strings.IndexByte(escapedBytes, c); {
		case k >= 0:
			b.WriteByte('\\')
			b.WriteByte(escapeLetters[k])
		case c < 0x20 || c >= 0x7f:
			b.WriteByte('\\')
			b.WriteByte('0' + c>>6)
			b.WriteByte('0' + (c>>3)&7)
			b.WriteByte('0' + c&7)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

var errBadQuote = errors.New("malformed quoted name")

// unquote reads a C-quoted name at the start of s (which begins with '"')
// and returns it and the text after the closing quote.
func unquote(s string) (name, rest string, err error) {
	if s == "" || s[0] != '"' {
		return "", s, errBadQuote
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			return b.String(), s[i+1:], nil
		case '\\':
			c, n, ok := unescape(s[i+1:])
			if !ok {
				return "", s, errBadQuote
			}
			b.WriteByte(c)
			i += n
		default:
			b.WriteByte(c)
		}
	}
	return "", s, errBadQuote
}

// unescape decodes the escape sequence at the start of s (what follows a
// backslash): one of escapeLetters or three octal digits up to \377. n is
// its length.
func unescape(s string) (c byte, n int, ok bool) {
	if s == "" {
		return 0, 0, false
	}
	if k := strings.IndexByte(escapeLetters, s[0]); k >= 0 {
		return escapedBytes[k], 1, true
	}
	if s[0] < '0' || s[0] > '3' || len(s) < 3 || !isOctal(s[1]) || !isOctal(s[2]) {
		return 0, 0, false
	}
	return (s[0]-'0')<<6 | (s[1]-'0')<<3 | (s[2] - '0'), 3, true
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// parseName reads a whole-line name: C-quoted if it starts with '"' (and
// then nothing may follow), else verbatim.
func parseName(s string) (string, error) {
	if strings.HasPrefix(s, `"`) {
		name, rest, err := unquote(s)
		if err != nil {
			return "", err
		}
		if rest != "" {
			return "", errBadQuote
		}
		return name, nil
	}
	return s, nil
}
