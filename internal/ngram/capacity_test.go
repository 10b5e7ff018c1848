package ngram

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
)

// TestCapacityKnobs: the count cutoff and the discount scale keep every
// next-token distribution proper, shrink the model, and take away the
// memorisation of text seen once while text seen three times stays
// predictable under the cutoff.
func TestCapacityKnobs(t *testing.T) {
	src, dir := stackThrice(t)
	c := Corpus{Paths: []string{dir}}
	full := trainOpts(t, c, Options{Order: 6})
	cut := trainOpts(t, c, Options{Order: 6, MinCount: 2})
	smooth := trainOpts(t, c, Options{Order: 6, DiscountScale: 1.5})
	for name, m := range map[string]*Model{"cutoff": cut, "scaled": smooth} {
		for _, prompt := range []string{"", "public", "    public void", "if (size ==", "never seen tokens here"} {
			if got := sumNext(m, prompt); math.Abs(got-1) > 1e-5 {
				t.Errorf("%s: next-token distribution after %q sums to %.9f, want 1", name, prompt, got)
			}
		}
	}
	if f, k := full.Stats().NGrams[5], cut.Stats().NGrams[5]; k >= f || k == 0 {
		t.Errorf("6-grams: %d with MinCount 2, %d without; want fewer but some", k, f)
	}
	// Counter.java is in the corpus once: the cutoff forgets it.
	once := javaCorpus["src/a/Counter.java"]
	lpFull, lpCut := Summarize(full.ScoreText(once)).MeanLogProb, Summarize(cut.ScoreText(once)).MeanLogProb
	if lpFull-lpCut < 0.5 {
		t.Errorf("text seen once: mean logprob %.3f without the cutoff, %.3f with it; want it forgotten (≥ 0.5 nats lower)", lpFull, lpCut)
	}
	// Stack.java is there three times: still memorised.
	prompt := src[:strings.Index(src, "throw new")+len("throw new")]
	want := src[len(prompt):strings.Index(src, "T item = ")]
	got, err := cut.Sample(context.Background(), prompt, SampleOptions{MaxTokens: len(Tokenize(want)), Temperature: 0})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Text != want {
		t.Errorf("cutoff model, greedy continuation of text seen 3 times = %q, want %q", got[0].Text, want)
	}
	if d1, d := full.Discounts(6)[0], smooth.Discounts(6)[0]; !(d > d1 && d <= 1) {
		t.Errorf("D1 of order 6: %.3f scaled by 1.5 gave %.3f; want larger, at most 1", d1, d)
	}
	if lpS := Summarize(smooth.ScoreText(src)).MeanLogProb; lpS >= Summarize(full.ScoreText(src)).MeanLogProb {
		t.Errorf("scaled discounts give training text mean logprob %.3f, not below the estimate's", lpS)
	}
	budget := trainOpts(t, c, Options{Order: 6, MaxNGrams: 50})
	for k, n := range budget.Stats().NGrams[1:] {
		if n > 50 || n == 0 {
			t.Errorf("MaxNGrams 50: %d %d-grams", n, k+2)
		}
	}
	if got := sumNext(budget, "    public void"); math.Abs(got-1) > 1e-5 {
		t.Errorf("budget model: distribution sums to %v", got)
	}
	if _, err := Train(context.Background(), c, Options{MinCount: -1}); !errors.Is(err, errs.ErrUsage) {
		t.Errorf("MinCount -1: %v, want ErrUsage", err)
	}
}

// TestTrainDocs trains from in-memory documents as from files.
func TestTrainDocs(t *testing.T) {
	src := javaCorpus["src/a/Counter.java"]
	fromFile := trainOpts(t, Corpus{Paths: []string{writeFiles(t, map[string]string{"a/Counter.java": src})}}, Options{Order: 4})
	fromDoc := trainOpts(t, Corpus{Docs: []Doc{{Name: "Counter.java", Text: []byte(src)}}}, Options{Order: 4})
	a, b := Summarize(fromFile.ScoreText(src)), Summarize(fromDoc.ScoreText(src))
	if a != b || fromDoc.Stats().Files != 1 {
		t.Errorf("from a file %+v, from a doc %+v (files %d)", a, b, fromDoc.Stats().Files)
	}
}

func trainOpts(t testing.TB, c Corpus, o Options) *Model {
	t.Helper()
	m, err := Train(context.Background(), c, o)
	if err != nil {
		t.Fatalf("Train(%+v): %v", o, err)
	}
	return m
}

// TestCache: the cache component lets the model copy an identifier it
// never saw in training from the prompt, keeps the candidate mass at one,
// and is off at weight 0.
func TestCache(t *testing.T) {
	m := train(t, Corpus{Paths: []string{writeFiles(t, javaCorpus)}}, 4)
	prompt := "    FooBarBaz a = new FooBarBaz();\n    FooBarBaz b = new"
	plain, err := m.Sample(context.Background(), prompt, SampleOptions{MaxTokens: 1, Temperature: 0})
	if err != nil {
		t.Fatal(err)
	}
	cm, err := m.WithCache(Cache{Weight: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	got, err := cm.Sample(context.Background(), prompt, SampleOptions{MaxTokens: 1, Temperature: 0, N: 2})
	if err != nil {
		t.Fatal(err)
	}
	if plain[0].Text == " FooBarBaz" || got[0].Text != " FooBarBaz" || got[1].Text != " FooBarBaz" {
		t.Errorf("greedy next token without cache %q, with cache %q/%q; want only the cache to copy \" FooBarBaz\"", plain[0].Text, got[0].Text, got[1].Text)
	}
	sc := cm.Score(prompt, " FooBarBaz")
	if len(sc) != 1 || sc[0].LogProb < math.Log(0.5) || !sc[0].Unknown {
		t.Errorf("cache score of the copied identifier %+v; want an unknown token with p ≥ 0.5", sc)
	}
	// Candidate mass stays one after mixing.
	s := cm.newState(false)
	c := cm.newCache()
	for _, tk := range Tokenize(prompt) {
		cm.push(&s, cm.id(tk.Text))
		c.add(tk.Text)
	}
	cands, rest := cm.candidates(&s, nil)
	sum := rest
	for _, x := range cands {
		sum += x.p
	}
	mixed, rest2 := cm.mixCandidates(&s, c, cands, rest)
	sum2 := rest2
	for _, x := range mixed {
		sum2 += x.p
	}
	if math.Abs(sum-sum2) > 1e-9 {
		t.Errorf("candidate mass %.12f before mixing, %.12f after", sum, sum2)
	}
	zero, _ := m.WithCache(Cache{})
	if a, b := Summarize(zero.ScoreText(prompt)), Summarize(m.ScoreText(prompt)); a != b {
		t.Errorf("weight 0: %+v, no cache: %+v", a, b)
	}
	if _, err := m.WithCache(Cache{Weight: 1}); !errors.Is(err, errs.ErrUsage) {
		t.Errorf("weight 1 accepted: %v", err)
	}
}

func TestSplitIdentifiers(t *testing.T) {
	for in, want := range map[string]string{
		"getFooBar":     "get|Foo|Bar",
		" HTTPServer":   " HTTP|Server",
		"MAX_SIZE":      "MAX|_|SIZE",
		"utf8Decoder":   "utf|8|Decoder",
		"x":             "x",
		" $jacocoData":  " $|jacoco|Data",
		"IOUtils":       "IO|Utils",
		"parseInt(s)":   "parse|Int|(|s|)",
		"CSVFormat.RFC": "CSV|Format|.|RFC",
	} {
		var parts []string
		text := ""
		for _, tk := range SplitIdentifiers(Tokenize(in)) {
			parts = append(parts, tk.Text)
			if in[tk.Offset:tk.Offset+len(tk.Text)] != tk.Text {
				t.Errorf("%q: piece %q at offset %d does not match the input", in, tk.Text, tk.Offset)
			}
			text += tk.Text
		}
		if got := strings.Join(parts, "|"); got != want || text != in {
			t.Errorf("SplitIdentifiers(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSplitModel: a sub-word model spells an identifier it never saw
// from pieces it did, survives a save and load, and keeps distributions
// proper.
func TestSplitModel(t *testing.T) {
	c := Corpus{Paths: []string{writeFiles(t, javaCorpus)}}
	whole := trainOpts(t, c, Options{Order: 4})
	split := trainOpts(t, c, Options{Order: 4, SplitIdentifiers: true})
	unseen := "Arrays.copyState(items"
	if a, b := Summarize(whole.ScoreText(unseen)), Summarize(split.ScoreText(unseen)); a.Unknown == 0 || b.Unknown != 0 {
		t.Errorf("unknown tokens in %q: %d whole-word, %d sub-word; want some, then none", unseen, a.Unknown, b.Unknown)
	}
	if got := sumNext(split, "    public int"); math.Abs(got-1) > 1e-5 {
		t.Errorf("sub-word model: distribution sums to %v", got)
	}
	p := filepath.Join(t.TempDir(), "split.bfng")
	if err := split.Save(p); err != nil {
		t.Fatal(err)
	}
	back, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := Summarize(split.ScoreText(unseen)), Summarize(back.ScoreText(unseen)); a != b || !back.split {
		t.Errorf("after save/load %+v, before %+v (split %v)", b, a, back.split)
	}
}

// stackThrice writes javaCorpus with Stack.java vendored twice more (seen
// three times) and returns Stack.java's source and the folder.
func stackThrice(t *testing.T) (string, string) {
	files := map[string]string{}
	for k, v := range javaCorpus {
		files[k] = v
	}
	src := javaCorpus["src/a/Stack.java"]
	files["vendor/x/Stack.java"] = src
	files["vendor/y/Stack.java"] = src
	return src, writeFiles(t, files)
}
