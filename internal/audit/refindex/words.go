package refindex

import (
	"unicode"
	"unicode/utf8"
)

// MaxWordLen is the longest word, in bytes, that Build counts. Longer runs
// (base64 blobs, generated tables) are skipped, so RepoFreq of such a word
// is 0 in a built index.
const MaxWordLen = 100

// byte classes for the scanner.
const (
	clOther = iota
	clStart // ASCII letter, '_' or '$': may start and continue a word
	clDigit // ASCII digit: continues a word, never starts one
	clHigh  // first byte of a multi-byte UTF-8 sequence: decode it
)

var class = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = clStart
		t[c-'a'+'A'] = clStart
	}
	t['_'], t['$'] = clStart, clStart
	for c := '0'; c <= '9'; c++ {
		t[c] = clDigit
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = clHigh
	}
	return t
}()

// wordRune reports whether the rune at src[i] (a multi-byte sequence)
// belongs to a word, and its size. Invalid UTF-8 is a separator.
func wordRune(src []byte, i int) (letter, digit bool, size int) {
	r, size := utf8.DecodeRune(src[i:])
	if r == utf8.RuneError {
		return false, false, size
	}
	return unicode.IsLetter(r), unicode.IsDigit(r), size
}

// Words calls fn with every word of src, in order (duplicates included),
// as a sub-slice of src that fn must not keep. A word is a maximal run of
// word characters — ASCII letters, digits, '_', '$' and non-ASCII Unicode
// letters and digits — that does not start with a digit and is at most
// MaxWordLen bytes long. A run that starts with a digit (0x1F, 10L, 3rd)
// yields nothing.
func Words(src []byte, fn func(w []byte)) {
	for i := 0; i < len(src); {
		switch kind, size := leadAt(src, i); kind {
		case leadNumber:
			// A digit-led run is a number literal: skip the whole run.
			i = skipRun(src, i)
		case leadWord:
			j := skipRun(src, i+size)
			if j-i <= MaxWordLen {
				fn(src[i:j])
			}
			i = j
		default:
			i += size
		}
	}
}

// lead is what the character at a position can start.
type lead int

const (
	leadNone   lead = iota // no word character
	leadWord               // a word: a letter, '_' or '$'
	leadNumber             // a digit-led run
)

// leadAt classifies the character at i and returns its size in bytes.
func leadAt(src []byte, i int) (lead, int) {
	switch class[src[i]] {
	case clStart:
		return leadWord, 1
	case clDigit:
		return leadNumber, 1
	case clHigh:
		letter, digit, size := wordRune(src, i)
		switch {
		case digit:
			return leadNumber, size
		case letter:
			return leadWord, size
		}
		return leadNone, size
	}
	return leadNone, 1
}

// skipRun returns the end of the run of word characters starting at i.
func skipRun(src []byte, i int) int {
	n := len(src)
	for i < n {
		c := class[src[i]]
		if c == clStart || c == clDigit {
			i++
			continue
		}
		if c == clHigh {
			letter, digit, sz := wordRune(src, i)
			if letter || digit {
				i += sz
				continue
			}
		}
		break
	}
	return i
}

// IsWord reports whether s is exactly one word as Words defines it (the
// length limit aside): lookups of anything else always return 0.
func IsWord(s string) bool {
	if s == "" {
		return false
	}
	n := 0
	Words([]byte(s), func(w []byte) {
		if len(w) == len(s) {
			n++
		} else {
			n += 2
		}
	})
	if n == 1 {
		return true
	}
	// Longer than MaxWordLen: Words skipped it; check the characters.
	if n == 0 && len(s) > MaxWordLen {
		return isWordChars(s)
	}
	return false
}

func isWordChars(s string) bool {
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			return false
		case r == '_' || r == '$' || unicode.IsLetter(r):
		case unicode.IsDigit(r):
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}
