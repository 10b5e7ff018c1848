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
		switch c {
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\v':
			b.WriteString(`\v`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		default:
			if c < 0x20 || c >= 0x7f {
				b.WriteByte('\\')
				b.WriteByte('0' + c>>6)
				b.WriteByte('0' + (c>>3)&7)
				b.WriteByte('0' + c&7)
			} else {
				b.WriteByte(c)
			}
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
		c := s[i]
		switch c {
		case '"':
			return b.String(), s[i+1:], nil
		case '\\':
			i++
			if i >= len(s) {
				return "", s, errBadQuote
			}
			switch e := s[i]; e {
			case 'a':
				b.WriteByte('\a')
			case 'b':
				b.WriteByte('\b')
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			case 'v':
				b.WriteByte('\v')
			case 'f':
				b.WriteByte('\f')
			case 'r':
				b.WriteByte('\r')
			case '"', '\\':
				b.WriteByte(e)
			case '0', '1', '2', '3':
				if i+2 >= len(s) || !isOctal(s[i+1]) || !isOctal(s[i+2]) {
					return "", s, errBadQuote
				}
				b.WriteByte((e-'0')<<6 | (s[i+1]-'0')<<3 | (s[i+2] - '0'))
				i += 2
			default:
				return "", s, errBadQuote
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", s, errBadQuote
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
