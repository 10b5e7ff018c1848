package textsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func toks(s string) []string { return strings.Fields(s) }

func TestJaccard(t *testing.T) {
	tests := []struct {
		a, b string
		n    int
		want float64 // computed by hand from the n-gram sets
	}{
		{"a b c", "a b c", 1, 1},
		{"a b c", "d e f", 1, 0},
		{"a b c d", "a b c e", 1, 3.0 / 5},   // {a,b,c} ∩ ; ∪ {a,b,c,d,e}
		{"a a b", "a b b", 1, 1},             // sets ignore counts
		{"a b c d", "a b c e", 2, 2.0 / 4},   // {ab,bc,cd} vs {ab,bc,ce}: 2 / 4
		{"x = a + b ;", "x = a + c ;", 5, 0}, // every 5-gram of 6 tokens touches the change
		{"", "", 5, 1},
		{"a", "", 5, 0},
		{"a b", "a b", 5, 1}, // shorter than n: one whole-sequence shingle
	}
	for _, tt := range tests {
		if got := NGramJaccard(toks(tt.a), toks(tt.b), tt.n); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("NGramJaccard(%q, %q, %d) = %v, want %v", tt.a, tt.b, tt.n, got, tt.want)
		}
	}
	if got := TokenSetJaccard(toks("if ( x == null )"), toks("if ( y == null )")); math.Abs(got-5.0/7) > 1e-12 {
		t.Errorf("TokenSetJaccard = %v, want 5/7", got)
	}
}

// randomDocs makes n documents of about size tokens over a vocabulary,
// with every tenth document a light edit of an earlier one.
func randomDocs(n, size int, seed uint64) [][]string {
	r := rand.New(rand.NewPCG(seed, 7))
	docs := make([][]string, n)
	for i := range docs {
		if i%10 == 9 {
			src := docs[r.IntN(i)]
			d := append([]string(nil), src...)
			d[r.IntN(len(d))] = "edited"
			docs[i] = d
			continue
		}
		d := make([]string, size)
		for j := range d {
			d[j] = fmt.Sprintf("t%d", r.IntN(500))
		}
		docs[i] = d
	}
	return docs
}

func TestNearDuplicatesMatchesAllPairs(t *testing.T) {
	docs := randomDocs(600, 60, 1)
	want := AllPairs(docs, 5, 0.7)
	got := NearDuplicates(docs, 5, 0.7)
	if len(want) < 50 {
		t.Fatalf("fixture has only %d near-duplicate pairs", len(want))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("LSH pairs differ from all pairs (-want +got):\n%s", d)
	}
}

func TestMinHashEstimatesJaccard(t *testing.T) {
	a := Shingles(toks(strings.Repeat("a b c d e f g h ", 20)+"x y z"), 2)
	b := Shingles(toks(strings.Repeat("a b c d e f g h ", 20)+"p q r"), 2)
	exact := JaccardSorted(a, b)
	m := NewMinHasher(512, 3)
	sa, sb := m.Signature(a), m.Signature(b)
	agree := 0
	for i := range sa {
		if sa[i] == sb[i] {
			agree++
		}
	}
	est := float64(agree) / float64(len(sa))
	// Standard error of the estimate is sqrt(J(1-J)/k) ≈ 0.02 here.
	if math.Abs(est-exact) > 0.1 {
		t.Errorf("MinHash estimate %.3f, exact %.3f", est, exact)
	}
}

func TestBandsFor(t *testing.T) {
	for _, th := range []float64{0.5, 0.7, 0.8, 0.9} {
		b, r := BandsFor(128, th)
		if b*r != 128 {
			t.Fatalf("BandsFor(128, %v) = %d×%d", th, b, r)
		}
		if s := math.Pow(1/float64(b), 1/float64(r)); s > th {
			t.Errorf("BandsFor(128, %v): S-curve threshold %.2f above target", th, s)
		}
	}
}

// licence headers: must cluster together; unrelated comments must not.
func TestClusterSimHash(t *testing.T) {
	apache := "Licensed to the Apache Software Foundation (ASF) under one or more contributor license agreements. See the NOTICE file distributed with this work for additional information regarding copyright ownership. The ASF licenses this file to You under the Apache License, Version 2.0"
	texts := []string{
		apache,
		"Returns the number of elements in this list, or zero when the list is empty and no element was ever added to it by any caller",
		strings.Replace(apache, "2.0", "2.0.", 1),                           // must match: punctuation only
		strings.Replace(apache, "more contributor", "more contributors", 1), // must match: one word
		"Parses the given date string using the configured locale and time zone, falling back to ISO-8601 when no pattern is set",
	}
	got := ClusterSimHash(texts, 3)
	want := [][]int{{0, 2, 3}, {1}, {4}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("clusters (-want +got):\n%s", d)
	}
}

func TestClusterHashesIndexMatchesLinear(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	hashes := make([]uint64, 3000)
	for i := range hashes {
		if i > 0 && i%3 == 0 {
			h := hashes[r.IntN(i)]
			for range r.IntN(5) {
				h ^= 1 << r.IntN(64)
			}
			hashes[i] = h
		} else {
			hashes[i] = r.Uint64()
		}
	}
	for _, k := range []int{0, 1, 3, 6} {
		got := ClusterHashes(hashes, k)
		want := clusterLinear(hashes, k)
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("k=%d: indexed clustering differs from Algorithm 1 (-want +got):\n%s", k, d)
		}
	}
}

// clusterLinear is benchchecker Algorithm 1 verbatim, the reference.
func clusterLinear(hashes []uint64, k int) [][]int {
	var keys []uint64
	var out [][]int
	for i, h := range hashes {
		found := false
		for c, key := range keys {
			if Hamming(key, h) <= k {
				out[c] = append(out[c], i)
				found = true
				break
			}
		}
		if !found {
			keys = append(keys, h)
			out = append(out, []int{i})
		}
	}
	return out
}

func TestExtractTemplate(t *testing.T) {
	tests := []struct {
		name    string
		members []string
		want    string
	}{
		{"one member", []string{"a b c"}, "a b c"},
		{"middle differs", []string{"options . setFoo ( true ) ;", "options . setBar ( true ) ;"}, "options . <text> ( true ) ;"},
		{"three members", []string{"x = getA ( 1 )", "x = getB ( 2 )", "x = getC ( 1 )"}, "x = <text> ( <text> )"},
		{"tail differs", []string{"import java . util . List ;", "import java . util . Map ;"}, "import java . util . <text> ;"},
		{"insertion", []string{"a b c", "a X b c"}, "a <text> b c"},
	}
	for _, tt := range tests {
		var ms [][]string
		for _, m := range tt.members {
			ms = append(ms, toks(m))
		}
		if got := Extract(ms).String(" "); got != tt.want {
			t.Errorf("%s: Extract = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestRatioAndDedup(t *testing.T) {
	// Python: difflib.SequenceMatcher(None, "a b c d".split(), "a b x d".split()).ratio() == 0.75
	if got := Ratio(toks("a b c d"), toks("a b x d")); got != 0.75 {
		t.Errorf("Ratio = %v, want 0.75", got)
	}
	seqs := [][]string{toks("foo . bar ( x )"), toks("foo . bar ( y )"), toks("completely other query text")}
	if d := cmp.Diff([]int{0, 2}, Dedup(seqs, 0.8)); d != "" {
		t.Errorf("Dedup: %s", d)
	}
}

func TestCloneGroups(t *testing.T) {
	blockA := toks(strings.Repeat("if ( ID == LIT ) { return ID ; } ", 6))
	blockB := toks(strings.Repeat("for ( ID ID = LIT ; ID < ID ; ID ++ ) { ID . ID ( ) ; } ", 3))
	nearA := append(append([]string(nil), blockA...), "ID", ";")
	short := toks("return ID ;")
	blocks := [][]string{blockA, blockB, blockA, short, short, nearA}
	if d := cmp.Diff([][]int{{0, 2}}, CloneGroups(blocks, CloneOptions{MinTokens: 20})); d != "" {
		t.Errorf("type-2 groups: %s", d)
	}
	if d := cmp.Diff([][]int{{0, 2, 5}}, CloneGroups(blocks, CloneOptions{MinTokens: 20, Similarity: 0.7})); d != "" {
		t.Errorf("type-3 groups: %s", d)
	}
}

func BenchmarkNearDuplicates(b *testing.B) {
	for _, n := range []int{5000, 50000} {
		docs := randomDocs(n, 150, 2)
		b.Run(fmt.Sprintf("lsh-%d", n), func(b *testing.B) {
			for b.Loop() {
				NearDuplicates(docs, 5, 0.8)
			}
		})
		if n <= 5000 {
			b.Run(fmt.Sprintf("allpairs-%d", n), func(b *testing.B) {
				for b.Loop() {
					AllPairs(docs, 5, 0.8)
				}
			})
		}
	}
}

// firstPassReference is FirstPassDedup written the direct way: every
// qualifying earlier pair from NearDuplicates, then a pass in order.
func firstPassReference(docs [][]string, n int, threshold float64, same func(kept, doc int) bool) []int {
	cand := map[int][]int{}
	for _, p := range NearDuplicates(docs, n, threshold) {
		cand[p.J] = append(cand[p.J], p.I)
	}
	isKept := make([]bool, len(docs))
	var kept []int
	for i := range docs {
		dup := false
		for _, j := range cand[i] {
			if isKept[j] && same(j, i) {
				dup = true
				break
			}
		}
		if !dup {
			isKept[i] = true
			kept = append(kept, i)
		}
	}
	return kept
}

func TestFirstPassDedupMatchesPairwise(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	vocab := strings.Fields("a b c d e f g h i j k l m n o p")
	var docs [][]string
	for range 600 {
		if len(docs) > 0 && r.IntN(2) == 0 {
			// a near-copy of an earlier doc: a few tokens changed
			d := slices.Clone(docs[r.IntN(len(docs))])
			for range 1 + r.IntN(4) {
				d[r.IntN(len(d))] = vocab[r.IntN(len(vocab))]
			}
			docs = append(docs, d)
			continue
		}
		d := make([]string, 20+r.IntN(20))
		for k := range d {
			d[k] = vocab[r.IntN(len(vocab))]
		}
		docs = append(docs, d)
	}
	same := func(a, b int) bool { return Ratio(docs[a], docs[b]) >= 0.8 }
	want := firstPassReference(docs, 3, 0.4, same)
	got := FirstPassDedup(docs, 3, 0.4, same)
	if !slices.Equal(got, want) {
		t.Fatalf("FirstPassDedup kept %d docs, the pairwise pass %d", len(got), len(want))
	}
	if len(want) == len(docs) || len(want) < 100 {
		t.Fatalf("the fixture must have both duplicates and keepers: kept %d of %d", len(want), len(docs))
	}
}

// TestFirstPassDedupMatchesBucketWalk checks the similarity join against
// walking the LSH buckets (firstPassLSH, the pass before issue 19) at
// several thresholds, on docs with empty and too-short ones among
// near-copies, with a same that rejects some qualifying pairs: exactly
// the pairs that collide and reach the threshold may be asked.
func TestFirstPassDedupMatchesBucketWalk(t *testing.T) {
	docs := mixedDocs(rand.New(rand.NewPCG(3, 9)), 800, strings.Fields("a b c d e f g h i j k l"))
	for _, th := range []float64{0.2, 0.4, 0.7, 0.9} {
		asked := map[[2]int]bool{}
		same := func(j, i int) bool {
			asked[[2]int{j, i}] = true
			return (j*31+i*17)%5 != 0
		}
		want := firstPassLSH(docs, 3, th, same)
		got := FirstPassDedup(docs, 3, th, same)
		if !slices.Equal(got, want) {
			t.Fatalf("threshold %v: the join kept %d docs, the bucket walk %d", th, len(got), len(want))
		}
		if len(want) == len(docs) {
			t.Fatalf("threshold %v: nothing was a duplicate", th)
		}
		checkAskedReach(t, docs, asked, th)
	}
}

// mixedDocs draws n docs over vocab: a tenth empty, a tenth of one word,
// four tenths near-copies of an earlier doc (up to three words changed),
// the rest of 2–41 random words.
func mixedDocs(r *rand.Rand, n int, vocab []string) [][]string {
	var docs [][]string
	for range n {
		switch k := r.IntN(10); {
		case k == 0:
			docs = append(docs, nil)
		case k == 1:
			docs = append(docs, []string{vocab[r.IntN(len(vocab))]})
		case k < 6 && len(docs) > 0:
			docs = append(docs, nearCopy(r, docs[r.IntN(len(docs))], vocab))
		default:
			d := make([]string, 2+r.IntN(40))
			for i := range d {
				d[i] = vocab[r.IntN(len(vocab))]
			}
			docs = append(docs, d)
		}
	}
	return docs
}

// nearCopy is a copy of doc with up to three words replaced.
func nearCopy(r *rand.Rand, doc, vocab []string) []string {
	d := slices.Clone(doc)
	for range r.IntN(4) {
		if len(d) > 0 {
			d[r.IntN(len(d))] = vocab[r.IntN(len(vocab))]
		}
	}
	return d
}

// checkAskedReach: every pair same was asked about has a 3-shingle
// Jaccard similarity of at least th.
func checkAskedReach(t *testing.T, docs [][]string, asked map[[2]int]bool, th float64) {
	t.Helper()
	for p := range asked {
		if JaccardSorted(Shingles(docs[p[0]], 3), Shingles(docs[p[1]], 3)) < th {
			t.Fatalf("threshold %v: same asked of a pair below it", th)
		}
	}
}
