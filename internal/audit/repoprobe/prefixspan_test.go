package repoprobe

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// parseSeq reads the PrefixSpan paper's notation: "a(abc)(ac)d(cf)".
func parseSeq(s string) [][]string {
	var out [][]string
	for i := 0; i < len(s); i++ {
		if s[i] == '(' {
			j := strings.IndexByte(s[i:], ')') + i
			var set []string
			for _, c := range s[i+1 : j] {
				set = append(set, string(c))
			}
			out = append(out, set)
			i = j
			continue
		}
		out = append(out, []string{string(s[i])})
	}
	return out
}

func render(items [][]string) string {
	var b strings.Builder
	for _, is := range items {
		if len(is) == 1 {
			b.WriteString(is[0])
		} else {
			b.WriteString("(" + strings.Join(is, "") + ")")
		}
	}
	return b.String()
}

// TestPrefixSpanTextbook checks the running example of Pei et al. (ICDE
// 2001, Table 1 and §3): the sequence database below with min_sup = 2 has
// exactly these 53 sequential patterns (their Table 2), with supports.
func TestPrefixSpanTextbook(t *testing.T) {
	db := [][][]string{
		parseSeq("a(abc)(ac)d(cf)"),
		parseSeq("(ad)c(bc)(ae)"),
		parseSeq("(ef)(ab)(df)cb"),
		parseSeq("eg(af)cbc"),
	}
	want := map[string]int{
		"a": 4, "aa": 2, "ab": 4, "a(bc)": 2, "a(bc)a": 2, "aba": 2, "abc": 2,
		"(ab)": 2, "(ab)c": 2, "(ab)d": 2, "(ab)f": 2, "(ab)dc": 2,
		"ac": 4, "aca": 2, "acb": 3, "acc": 3, "ad": 2, "adc": 2, "af": 2,
		"b": 4, "ba": 2, "bc": 3, "(bc)": 2, "(bc)a": 2, "bd": 2, "bdc": 2, "bf": 2,
		"c": 4, "ca": 2, "cb": 3, "cc": 3,
		"d": 3, "db": 2, "dc": 3, "dcb": 2,
		"e": 3, "ea": 2, "eab": 2, "eac": 2, "eacb": 2, "eb": 2, "ebc": 2,
		"ec": 2, "ecb": 2, "ef": 2, "efb": 2, "efc": 2, "efcb": 2,
		"f": 3, "fb": 2, "fbc": 2, "fc": 2, "fcb": 2,
	}
	got := map[string]int{}
	for _, p := range PrefixSpan(context.Background(), db, 2, 0, 0) {
		got[render(p.Items)] = p.Support
	}
	if len(want) != 53 {
		t.Fatalf("test table has %d patterns", len(want))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("patterns (-want +got):\n%s", d)
	}
}

// contains reports whether sequence s contains pattern p (itemset
// subsequence), by brute force.
func containsSeq(s, p [][]string) bool {
	k := 0
	for _, is := range s {
		if k == len(p) {
			break
		}
		ok := true
		for _, x := range p[k] {
			if !slices.Contains(is, x) {
				ok = false
				break
			}
		}
		if ok {
			k++
		}
	}
	return k == len(p)
}

// TestPrefixSpanBruteForce cross-checks supports and completeness against
// brute-force enumeration on random word databases (single-item itemsets,
// the co-occurrence case).
func TestPrefixSpanBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alpha := []string{"p", "q", "r", "s", "t"}
	for trial := range 30 {
		var db [][][]string
		for range 6 {
			var s [][]string
			for range 1 + r.IntN(7) {
				s = append(s, []string{alpha[r.IntN(len(alpha))]})
			}
			db = append(db, s)
		}
		minSup, maxLen := 2+r.IntN(2), 3
		got := map[string]int{}
		for _, p := range PrefixSpan(context.Background(), db, minSup, maxLen, 0) {
			got[strings.Join(p.Words(), "")] = p.Support
			for _, si := range p.Seqs {
				if !containsSeq(db[si], p.Items) {
					t.Fatalf("trial %d: %v not in seq %d", trial, p.Items, si)
				}
			}
		}
		want := map[string]int{}
		var enum func(prefix []string)
		enum = func(prefix []string) {
			if len(prefix) == maxLen {
				return
			}
			for _, a := range alpha {
				p := append(slices.Clone(prefix), a)
				var items [][]string
				for _, w := range p {
					items = append(items, []string{w})
				}
				sup := 0
				for _, s := range db {
					if containsSeq(s, items) {
						sup++
					}
				}
				if sup >= minSup {
					want[strings.Join(p, "")] = sup
					enum(p)
				}
			}
		}
		enum(nil)
		if d := cmp.Diff(want, got); d != "" {
			t.Fatalf("trial %d (minSup %d): (-want +got)\n%s", trial, minSup, d)
		}
	}
}

func TestPrefixSpanLimits(t *testing.T) {
	db := [][][]string{parseSeq("abcd"), parseSeq("abcd"), parseSeq("abdc")}
	for _, p := range PrefixSpan(context.Background(), db, 2, 2, 0) {
		if p.Len() > 2 {
			t.Errorf("pattern %v longer than maxLen 2", p.Items)
		}
	}
	if n := len(PrefixSpan(context.Background(), db, 2, 0, 5)); n != 5 {
		t.Errorf("maxPatterns 5: got %d patterns", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if n := len(PrefixSpan(ctx, db, 1, 0, 0)); n != 0 {
		t.Errorf("cancelled: got %d patterns", n)
	}
	if n := len(PrefixSpan(context.Background(), nil, 1, 0, 0)); n != 0 {
		t.Errorf("empty db: got %d patterns", n)
	}
}

func TestMergeClosed(t *testing.T) {
	db := [][][]string{parseSeq("xyz"), parseSeq("xyz"), parseSeq("xyw"), parseSeq("qz")}
	pats := MergeClosed(PrefixSpan(context.Background(), db, 2, 0, 0))
	got := map[string]int{}
	for _, p := range pats {
		got[strings.Join(p.Words(), "")] = p.Support
	}
	// x, y, xy (3) are closed by xy; xz, yz, xyz (2) by xyz; z has support 3 alone.
	want := map[string]int{"xy": 3, "xyz": 2, "z": 3}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("closed patterns (-want +got):\n%s", d)
	}
}
