package repoprobe

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitSubTokens(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"getUserName", []string{"get", "User", "Name"}},
		{"HTTPServer", []string{"HTTP", "Server"}},
		{"parse_http_response", []string{"parse", "http", "response"}},
		{"__init__", []string{"init"}},
		{"utf8Decoder", []string{"utf", "8", "Decoder"}},
		{"URL", []string{"URL"}},
		{"x", []string{"x"}},
		{"$jacocoData", []string{"jacoco", "Data"}},
		{"", nil},
	} {
		var got []string
		for _, s := range splitSubTokens(c.in) {
			if c.in[s.start:s.end] != s.text {
				t.Errorf("%q: span %d:%d is %q, not %q", c.in, s.start, s.end, c.in[s.start:s.end], s.text)
			}
			got = append(got, s.text)
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("splitSubTokens(%q) (-want +got):\n%s", c.in, d)
		}
	}
}

func TestRelated(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"parse", "parser", true},
		{"parsing", "Parse", true},
		{"element", "elements", true},
		{"entry", "entries", true},
		{"config", "configuration", true},
		{"impl", "implementation", true},
		{"Name", "name", true},
		{"get", "set", false},
		{"get", "getter", true}, // stem
		{"map", "mapping", true},
		{"id", "idle", false}, // prefix rule needs four letters
		{"user", "count", false},
		{"table", "tablespace", true},
		{"node", "nose", false},
	} {
		if got := related(c.a, c.b); got != c.want {
			t.Errorf("related(%q, %q) = %v, want %v (stems %q %q)", c.a, c.b, got, c.want, stem(c.a), stem(c.b))
		}
	}
}

func TestFirstWord(t *testing.T) {
	for in, want := range map[string]string{
		" fooBar(x)": "fooBar", "\n\tx_1 = 2": "x_1", "(a)": "", "": "", "$x.y": "$x", "résumé!": "résumé",
	} {
		if got := firstWord(in); got != want {
			t.Errorf("firstWord(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLexTokensOffsets(t *testing.T) {
	src := "int  fooBar = baz(1) ; // note here\n"
	for _, tk := range lexTokens(src) {
		if src[tk.off:tk.off+len(tk.text)] != tk.text {
			t.Errorf("token %q at %d does not match source", tk.text, tk.off)
		}
	}
	var words []string
	for _, tk := range lexTokens(src) {
		if tk.word {
			words = append(words, tk.text)
		}
	}
	if d := cmp.Diff([]string{"fooBar", "baz", "note", "here"}, words); d != "" {
		t.Errorf("words (-want +got):\n%s", d)
	}
}

func FuzzSplitSubTokens(f *testing.F) {
	for _, s := range []string{"getUserName", "HTTPServer", "a_b$c", "ÄÖü9x", "\xff\xfe", "A1B2c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		prev := 0
		for _, st := range splitSubTokens(s) {
			if st.start < prev || st.end <= st.start || st.end > len(s) {
				t.Fatalf("%q: bad span %d:%d after %d", s, st.start, st.end, prev)
			}
			prev = st.end
		}
		_ = related(s, "x"+s)
		_ = stem(s)
		_ = firstWord(s)
	})
}
