package ngram

// SplitIdentifiers splits every identifier token into sub-words the way a
// code model's sub-word vocabulary tends to: at lower→upper case changes
// ("getFoo" → "get" "Foo"), before the last capital of an upper-case run
// followed by a lower-case letter ("HTTPServer" → "HTTP" "Server"), at
// letter↔digit changes ("utf8" → "utf" "8") and around underscores and
// '$' ("MAX_SIZE" → "MAX" "_" "SIZE"). A glued leading blank stays on the
// first piece. Concatenated, the pieces are the token again, so text is
// still reproduced byte for byte. A model trained with
// Options.SplitIdentifiers uses it for training, scoring and sampling: it
// can then spell an identifier it never saw from pieces it did, as a
// sub-word language model does.
func SplitIdentifiers(toks []Token) []Token {
	out := make([]Token, 0, len(toks)+len(toks)/4)
	for _, t := range toks {
		if t.Kind != KindIdent {
			out = append(out, t)
			continue
		}
		start := 0
		if len(t.Text) > 0 && t.Text[0] == ' ' {
			start = 1
		}
		prev := 0
		for i := start + 1; i < len(t.Text); i++ {
			if cut(t.Text, i) {
				out = append(out, Token{Text: t.Text[prev:i], Offset: t.Offset + prev, Kind: KindIdent})
				prev = i
			}
		}
		out = append(out, Token{Text: t.Text[prev:], Offset: t.Offset + prev, Kind: KindIdent})
	}
	return out
}

// cut reports whether an identifier splits before byte i (ASCII rules;
// other bytes never split).
func cut(s string, i int) bool {
	a, b := s[i-1], s[i]
	sep := func(c byte) bool { return c == '_' || c == '$' }
	switch {
	case sep(a) != sep(b):
		return true
	case sep(a):
		return false
	case lower(a) && upper(b), digit(a) != digit(b) && (letter(a) || letter(b)):
		return true
	case upper(a) && upper(b) && i+1 < len(s) && lower(s[i+1]):
		return true
	}
	return false
}

func lower(c byte) bool  { return c >= 'a' && c <= 'z' }
func upper(c byte) bool  { return c >= 'A' && c <= 'Z' }
func digit(c byte) bool  { return c >= '0' && c <= '9' }
func letter(c byte) bool { return lower(c) || upper(c) }

// tokenize is Tokenize with the model's identifier splitting.
func (m *Model) tokenize(text string) []Token {
	if m.split {
		return SplitIdentifiers(Tokenize(text))
	}
	return Tokenize(text)
}
