package ngram

import (
	"context"
	"math"
	"strings"
	"testing"
)

// TestPieceCopy: with Cache.Pieces a sub-word model continues an
// identifier with a piece its prompt used in another identifier
// ("quuxWidget" → "getQuuxWidget"), which the suffix cache alone does
// not; the candidate mass stays one, nothing changes outside an
// identifier, and a sampler's rollback undoes the pieces it added.
func TestPieceCopy(t *testing.T) {
	// Getters and setters: the model learns that "get" and "set" go on
	// with a capitalised piece, never which one an unseen field needs.
	files := map[string]string{}
	for _, f := range []string{"width", "height", "name", "colorDepth", "maxSize", "lineCount"} {
		up := strings.ToUpper(f[:1]) + f[1:]
		files["src/"+up+".java"] = "class Has" + up + " {\n    private int " + f + ";\n    public int get" + up + "() {\n        return " + f +
			";\n    }\n    public void set" + up + "(int v) {\n        " + f + " = v;\n    }\n}\n"
	}
	m := trainOpts(t, Corpus{Paths: []string{writeFiles(t, files)}}, Options{Order: 4, SplitIdentifiers: true})
	prompt := "    private int quuxWidget = 1;\n    public int get"
	suffix, err := m.WithCache(Cache{Weight: 0.4})
	if err != nil {
		t.Fatal(err)
	}
	pieces, err := m.WithCache(Cache{Weight: 0.4, Pieces: true})
	if err != nil {
		t.Fatal(err)
	}
	a, b := suffix.Score(prompt, "QuuxWidget"), pieces.Score(prompt, "QuuxWidget")
	if len(a) != 2 || len(b) != 2 {
		t.Fatalf("scored %d and %d pieces, want 2 (Quux, Widget)", len(a), len(b))
	}
	// The first piece comes from the piece copy: λ times its share of
	// the prompt's pieces (private, int ×2, quux, widget, public, get: 1/7).
	if b[0].LogProb < math.Log(0.4/7) || a[0].LogProb > math.Log(0.4/7)-1 {
		t.Errorf("log p(Quux | …get): suffix cache %.2f, piece copy %.2f; want the piece copy ≥ log(0.4/7) = %.2f and the suffix cache far below",
			a[0].LogProb, b[0].LogProb, math.Log(0.4/7))
	}
	// Where the suffix cache has a context too (" get" was followed by
	// " =" before), the two are mixed evenly: " =" keeps half the cache's
	// mass and the pieces share the other half.
	both := "    int get = 0;\n" + prompt
	if sc := pieces.Score(both, "Quux"); sc[0].LogProb < math.Log(0.4*0.5/9) {
		t.Errorf("log p(Quux) with both caches %.2f, want ≥ log(0.4·0.5/9) = %.2f", sc[0].LogProb, math.Log(0.4*0.5/9))
	}
	if x, y := suffix.Score(both, " ="), pieces.Score(both, " ="); y[0].LogProb > x[0].LogProb-math.Log(1.5) {
		t.Errorf("log p( =) %.2f with pieces, %.2f without; want the suffix cache's share halved", y[0].LogProb, x[0].LogProb)
	}
	// Outside an identifier (after " = ") the two agree.
	if x, y := Summarize(suffix.ScoreText(prompt+" = 2;")), Summarize(pieces.ScoreText(prompt+" = 2;")); x.Tokens != y.Tokens {
		t.Errorf("token counts differ: %+v, %+v", x, y)
	}
	if x, y := suffix.Score("    x = 1;\n    y", " = 2;"), pieces.Score("    x = 1;\n    y", " = 2;"); x[0] != y[0] {
		t.Errorf("after a one-letter name: %+v with pieces, %+v without", y[0], x[0])
	}
	s := pieces.newState(false)
	c := pieces.newCache()
	for _, tk := range pieces.tokenize(prompt) {
		pieces.push(&s, pieces.id(tk.Text))
		c.add(tk.Text)
	}
	cands, rest := pieces.candidates(&s, nil)
	sum := rest
	for _, x := range cands {
		sum += x.p
	}
	mixed, rest2 := pieces.mixCandidates(&s, c, cands, rest)
	sum2 := rest2
	for _, x := range mixed {
		sum2 += x.p
	}
	if math.Abs(sum-sum2) > 1e-9 || len(mixed) <= len(cands) {
		t.Errorf("candidate mass %.12f before mixing, %.12f after; %d candidates, %d after (want the copied pieces added)", sum, sum2, len(cands), len(mixed))
	}
	h, l := c.mark()
	before := c.pieces.total
	c.add("Zork")
	c.add("Blah")
	c.rollback(h, l)
	if c.pieces.total != before || c.pieces.counts["Zork"] != 0 || len(c.pieces.log) != int(before) {
		t.Errorf("after rollback %d pieces (%d logged), Zork %d; want %d", c.pieces.total, len(c.pieces.log), c.pieces.counts["Zork"], before)
	}
	got, err := pieces.Sample(context.Background(), prompt, SampleOptions{MaxTokens: 2, Temperature: 1, N: 40, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, g := range got {
		if g.Text == "QuuxWidget" {
			n++
		}
	}
	if n == 0 {
		t.Errorf("no sample of 40 completes getQuuxWidget: first %+v", got[0])
	}
}
