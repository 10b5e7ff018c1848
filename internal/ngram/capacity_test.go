package ngram

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
)

// TestCapacityKnobs: the count cutoff and the discount scale keep every
// next-token distribution proper, shrink the model, and take away the
// memorisation of text seen once while text seen three times stays
// predictable under the cutoff.
func TestCapacityKnobs(t *testing.T) {
	files := map[string]string{}
	for k, v := range javaCorpus {
		files[k] = v
	}
	src := javaCorpus["src/a/Stack.java"]
	files["vendor/x/Stack.java"] = src
	files["vendor/y/Stack.java"] = src
	c := Corpus{Paths: []string{writeFiles(t, files)}}
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
