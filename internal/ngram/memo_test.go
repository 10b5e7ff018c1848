package ngram

import (
	"archive/zip"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
)

// BenchmarkMemorisation measures how often greedy decoding reproduces the
// next 16 tokens of code the model was trained on, against code it was not
// trained on, and the mean log-probability of those true continuations. It needs a trained model
// and the corpus it came from:
//
//	benchforge lm train --corpus src.zip --include 'java.base/**/*.java' --out jdk.bfng
//	BENCHFORGE_MEMO_MODEL=jdk.bfng BENCHFORGE_MEMO_ZIP=src.zip \
//	  BENCHFORGE_MEMO_SEEN=java.base/ BENCHFORGE_MEMO_UNSEEN=java.desktop/ \
//	  go test -run '^$' -bench Memorisation -benchtime 1x ./internal/ngram
func BenchmarkMemorisation(b *testing.B) {
	modelPath, zipPath := os.Getenv("BENCHFORGE_MEMO_MODEL"), os.Getenv("BENCHFORGE_MEMO_ZIP")
	if modelPath == "" || zipPath == "" {
		b.Skip("set BENCHFORGE_MEMO_MODEL and BENCHFORGE_MEMO_ZIP")
	}
	m, err := Load(modelPath)
	if err != nil {
		b.Fatal(err)
	}
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		b.Fatal(err)
	}
	defer zr.Close()
	sample := func(prefix string, n int) []string {
		var files []*zip.File
		for _, f := range zr.File {
			if strings.HasPrefix(f.Name, prefix) && strings.HasSuffix(f.Name, ".java") {
				files = append(files, f)
			}
		}
		rng := rand.New(rand.NewPCG(1, 2))
		var texts []string
		for len(texts) < n && len(files) > 0 {
			f := files[rng.IntN(len(files))]
			rc, err := f.Open()
			if err != nil {
				b.Fatal(err)
			}
			data, _ := io.ReadAll(rc)
			rc.Close()
			texts = append(texts, string(data))
		}
		return texts
	}
	const probes, want = 200, 16
	for b.Loop() {
		for _, set := range []struct{ name, prefix string }{{"seen", os.Getenv("BENCHFORGE_MEMO_SEEN")}, {"unseen", os.Getenv("BENCHFORGE_MEMO_UNSEEN")}} {
			texts := sample(set.prefix, probes)
			{
				exact, tokens, lp, lpn := 0, 0, 0.0, 0
				rng := rand.New(rand.NewPCG(3, 4))
				for _, text := range texts {
					toks := Tokenize(text)
					if len(toks) < 64 {
						continue
					}
					cut := 32 + rng.IntN(len(toks)-32-want)
					prompt := text[:toks[cut].Offset]
					var truth strings.Builder
					for _, t := range toks[cut : cut+want] {
						truth.WriteString(t.Text)
					}
					for _, t := range m.Score(prompt, truth.String()) {
						lp += t.LogProb
						lpn++
					}
					c, err := m.Sample(context.Background(), prompt, SampleOptions{MaxTokens: want})
					if err != nil {
						b.Fatal(err)
					}
					got := c[0].Text
					if strings.HasPrefix(truth.String(), got) || strings.HasPrefix(got, truth.String()) {
						exact++
					}
					tokens++
				}
				b.ReportMetric(float64(exact)/float64(tokens), set.name+"-exact16")
				b.ReportMetric(lp/float64(lpn), set.name+"-logprob/token")
			}
		}
	}
}

// TestCacheKeys: the context keys built as suffixes of the longest equal
// the joins they replace, separator-holding tokens included.
func TestCacheKeys(t *testing.T) {
	for _, hist := range [][]string{
		{"a"}, {"foo", "(", "bar"}, {"x", "y", "z", "w"}, {"a\x00b", "c"}, {"p", "\x00", "q"},
	} {
		c := &cacheLM{hist: hist}
		for n := 0; n <= len(hist); n++ {
			got := c.keys(n, nil)
			if len(got) != n {
				t.Fatalf("%q n=%d: %d keys", hist, n, len(got))
			}
			for j := 1; j <= n; j++ {
				if got[j-1] != c.key(j) {
					t.Errorf("%q n=%d: key %d = %q, want %q", hist, n, j, got[j-1], c.key(j))
				}
			}
		}
	}
}
