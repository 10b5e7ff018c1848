package textsim

import (
	"math/rand"
	"strings"
	"testing"
)

// levenshteinTable is the textbook dynamic programme Levenshtein must
// agree with.
func levenshteinTable(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func TestLevenshteinKnown(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"kitten", "sitting", 3},
		{"flaw", "lawn", 2}, {"if ( x == null ) return ;", "if ( x == null ) { return ; }", 4},
		{strings.Repeat("a", 65), strings.Repeat("a", 64), 1},
		{strings.Repeat("ab", 100), strings.Repeat("ba", 100), 2},
	} {
		if got := Levenshtein(c.a, c.b); got != c.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// TestLevenshteinMatchesTable compares both bit-vector paths (one word,
// several blocks) with the table on random strings, lengths across the
// 64-byte block edges, over small and large alphabets.
func TestLevenshteinMatchesTable(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	gen := func(n int, alpha string) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alpha[rng.Intn(len(alpha))]
		}
		return string(b)
	}
	for i := 0; i < 3000; i++ {
		alpha := []string{"ab", "abcd", "if ( x . get ) ;", "\x00\xff\x80z"}[i%4]
		a := gen(rng.Intn(200), alpha)
		b := gen(rng.Intn(200), alpha)
		if i%3 == 0 && len(a) > 0 { // near-identical pairs, as real lines are
			b = a[:rng.Intn(len(a))] + gen(rng.Intn(4), alpha) + a[rng.Intn(len(a)):]
		}
		if got, want := Levenshtein(a, b), levenshteinTable(a, b); got != want {
			t.Fatalf("Levenshtein(%q, %q) = %d, want %d", a, b, got, want)
		}
	}
}

func FuzzLevenshtein(f *testing.F) {
	f.Add("kitten", "sitting")
	f.Add(strings.Repeat("x", 70), strings.Repeat("xy", 40))
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 1000 || len(b) > 1000 {
			return
		}
		if got, want := Levenshtein(a, b), levenshteinTable(a, b); got != want {
			t.Fatalf("Levenshtein(%q, %q) = %d, want %d", a, b, got, want)
		}
	})
}

func BenchmarkLevenshtein(b *testing.B) {
	x := "if ( value . length ( ) == 0 ) value = attr . getValue ( ) ;"
	y := "if ( value . isEmpty ( ) ) { value = attribute . getValue ( ) ; }"
	for _, c := range []struct{ name, a, b string }{{"short", x, y}, {"long", x + x, y + y}} {
		b.Run(c.name+"/bits", func(b *testing.B) {
			for range b.N {
				Levenshtein(c.a, c.b)
			}
		})
		b.Run(c.name+"/table", func(b *testing.B) {
			for range b.N {
				levenshteinTable(c.a, c.b)
			}
		})
	}
}
