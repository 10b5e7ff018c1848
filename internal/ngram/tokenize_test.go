package ngram

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"empty", "", nil},
		{"java statement", "int x = a.b(1);", []string{"int", " x", " =", " a", ".", "b", "(", "1", ")", ";"}},
		{"indent", "{\n    return x;\n}", []string{"{", "\n    ", "return", " x", ";", "\n", "}"}},
		{"double blank", "a  b", []string{"a", "  ", "b"}},
		{"operators", "x>>>=1&&y!=z->w", []string{"x", ">>>=", "1", "&&", "y", "!=", "z", "->", "w"}},
		{"numbers", "0x1Fp-3 1e+10 3.14f .5 1_000L", []string{"0x1Fp-3", " 1e+10", " 3.14f", " .5", " 1_000L"}},
		{"hex e is a digit", "0x1e+5", []string{"0x1e", "+", "5"}},
		{"strings", `s = "a \"q\" b" + 'c';`, []string{"s", " =", ` "a \"q\" b"`, " +", " 'c'", ";"}},
		{"unterminated string stops at newline", "\"abc\nd", []string{`"abc`, "\n", "d"}},
		{"line comment prose", "x; // don't stop\ny", []string{"x", ";", " //", " don", "'", "t", " stop", "\n", "y"}},
		{"block comment", "/** It's */ int", []string{"/**", " It", "'", "s", " */", " int"}},
		{"python comment", "# it's\nx = 1", []string{"#", " it", "'", "s", "\n", "x", " =", " 1"}},
		{"long string lexed as words", `"` + strings.Repeat("word ", 10) + `"`,
			[]string{`"`, "word", " word", " word", " word", " word", " word", " word", " word", " word", " word", " ", `"`}},
		{"triple quoted", "'''a\nb'''", []string{"'''a\nb'''"}},
		{"unicode ident", "naïve = π", []string{"naïve", " =", " π"}},
		{"invalid utf8", "a\xffb", []string{"a", "\xff", "b"}},
		{"control byte", "a\x00b", []string{"a", "\x00", "b"}},
		{"trailing blank", "a ", []string{"a", " "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, tok := range Tokenize(tt.src) {
				got = append(got, tok.Text)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Tokenize(%q) mismatch (-want +got):\n%s", tt.src, diff)
			}
		})
	}
}

func TestTokenizeKinds(t *testing.T) {
	toks := Tokenize("x = \"s\" + 12;\n  // c")
	want := []Kind{KindIdent, KindPunct, KindString, KindPunct, KindNumber, KindPunct, KindSpace, KindPunct, KindIdent}
	var got []Kind
	for _, tok := range toks {
		got = append(got, tok.Kind)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kinds mismatch (-want +got):\n%s", diff)
	}
}

// checkTokens verifies the invariants every tokenization must keep.
func checkTokens(t *testing.T, src string, toks []Token) {
	t.Helper()
	var b strings.Builder
	for i, tok := range toks {
		if tok.Text == "" {
			t.Fatalf("token %d is empty", i)
		}
		if tok.Offset != b.Len() {
			t.Fatalf("token %d %q: offset %d, want %d", i, tok.Text, tok.Offset, b.Len())
		}
		b.WriteString(tok.Text)
	}
	if b.String() != src {
		t.Fatalf("tokens do not reconstruct the input:\n got %q\nwant %q", b.String(), src)
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{
		"", "int x = 1;", "/* a */ // b\n# c", `"\"`, "'''", `"""a\"""`, "0x1p+3e-", "a\xff\xfe",
		"  \n\t x", `s = "` + strings.Repeat("ab ", 30) + `\"`, "/**/", "`raw\nstring`",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		checkTokens(t, src, Tokenize(src))
	})
}
