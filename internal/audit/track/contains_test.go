package track

import (
	"bytes"
	"maps"
	"math/rand"
	"strings"
	"testing"
)

// TestContainsText compares containsText with bytes.Contains on files of
// repeated headers (a state-machine enum's process methods), with the
// text present, cut short at either end, and altered in one byte.
func TestContainsText(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	header := "    boolean process(Token t, HtmlTreeBuilder tb) {\n"
	for i := 0; i < 2000; i++ {
		var sb strings.Builder
		var bodies []string
		for k := 0; k < 1+rng.Intn(6); k++ {
			body := header + strings.Repeat("        tb.insert(t);\n", rng.Intn(4)) + "        return " + string(rune('a'+rng.Intn(3))) + ";\n    }\n"
			bodies = append(bodies, body)
			sb.WriteString(body)
		}
		src := []byte(sb.String())
		text := bodies[rng.Intn(len(bodies))]
		switch rng.Intn(4) {
		case 1:
			text = text[:len(text)-1-rng.Intn(5)]
		case 2:
			text = text[rng.Intn(5):]
		case 3:
			b := []byte(text)
			b[rng.Intn(len(b))] ^= 1
			text = string(b)
		}
		if got, want := containsText(src, text), bytes.Contains(src, []byte(text)); got != want {
			t.Fatalf("containsText(%q, %q) = %v, want %v", src, text, got, want)
		}
	}
	for _, c := range []struct{ src, text string }{{"", "x"}, {"abc", ""}, {"short", "short"}, {header, header + "x"}} {
		if got, want := containsText([]byte(c.src), c.text), strings.Contains(c.src, c.text); got != want {
			t.Errorf("containsText(%q, %q) = %v, want %v", c.src, c.text, got, want)
		}
	}
}

// TestWords: words splits as strings.FieldsFunc on the identifier
// characters would, on multi-byte runes and invalid UTF-8 too.
func TestWords(t *testing.T) {
	ref := func(s string) map[string]bool {
		out := map[string]bool{}
		for _, w := range strings.FieldsFunc(s, func(r rune) bool {
			return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		}) {
			if len(w) > 1 {
				out[w] = true
			}
		}
		return out
	}
	for _, s := range []string{
		"", "a", "ab", "int size() { return n_1 + $x; }", "naïve_x é1 ab\u00e9cd",
		"x\xffyz \xe2\x82", "_ __ a_b 12 3", "déjà-vu über_cool",
	} {
		if got, want := words(s), ref(s); !maps.Equal(got, want) {
			t.Errorf("words(%q) = %v, want %v", s, got, want)
		}
	}
}
