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
