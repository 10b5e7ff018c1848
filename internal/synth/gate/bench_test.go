package gate

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/textsim"
)

// BenchmarkGates gates 2,000 distinct candidates (methods of 8–30
// statements) per iteration and reports candidates/s.
func BenchmarkGates(b *testing.B) {
	const n = 2000
	cands := make([]corpus.Candidate, n)
	for i := range cands {
		tag := fmt.Sprintf("m%d", i)
		k := 8 + i%23
		cands[i] = cand(tag, corpus.NullPointer, longMethod(tag, k, false), longMethod(tag, k, true))
	}
	seeds := []corpus.Seed{{BugID: "S", SourceBug: "S", Exception: corpus.NullPointer, BuggyMethod: longMethod("seed", 8, false), FixedMethod: longMethod("seed", 8, true)}}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Run(context.Background(), cands, seeds, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "candidates/s")
}

// synthDocs returns n token sequences of 80–300 tokens drawn from a skewed
// 3,000-token vocabulary; every 20th is a light edit of an earlier one.
func synthDocs(n int) [][]string {
	r := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 3000)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("t%d", i)
	}
	docs := make([][]string, n)
	for i := range docs {
		if i > 0 && i%20 == 0 {
			d := append([]string{}, docs[r.IntN(i)]...)
			d[r.IntN(len(d))] = vocab[r.IntN(len(vocab))]
			docs[i] = d
			continue
		}
		l := 80 + r.IntN(220)
		d := make([]string, l)
		for k := range d {
			d[k] = vocab[int(float64(len(vocab))*r.Float64()*r.Float64())]
		}
		docs[i] = d
	}
	return docs
}

// BenchmarkNearDup compares MinHash-LSH near-duplicate search with the
// exact all-pairs scan at threshold 0.8 over token 5-grams. All-pairs at
// 50,000 is sampled: the first 1,000 documents against all others, which is
// 1,000·49,000 of the 50,000·49,999/2 pairs, so the full scan takes about
// 25.5 times the sample.
func BenchmarkNearDup(b *testing.B) {
	for _, n := range []int{5000, 50000} {
		docs := synthDocs(n)
		b.Run(fmt.Sprintf("lsh/%d", n), func(b *testing.B) {
			for b.Loop() {
				textsim.NearDuplicates(docs, N, 0.8)
			}
		})
		if n == 5000 {
			b.Run(fmt.Sprintf("allpairs/%d", n), func(b *testing.B) {
				for b.Loop() {
					textsim.AllPairs(docs, N, 0.8)
				}
			})
			continue
		}
		b.Run(fmt.Sprintf("allpairs-sample1000/%d", n), func(b *testing.B) {
			sh := make([][]uint64, len(docs))
			for i, d := range docs {
				sh[i] = textsim.Shingles(d, N)
			}
			for b.Loop() {
				for i := range 1000 {
					for j := i + 1; j < len(sh); j++ {
						textsim.JaccardSorted(sh[i], sh[j])
					}
				}
			}
		})
	}
}
