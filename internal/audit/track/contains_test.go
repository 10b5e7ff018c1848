package track

import (
	"bytes"
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
