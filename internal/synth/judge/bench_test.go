package judge

import (
	"context"
	"fmt"
	"testing"

	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// BenchmarkRunScripted measures the judge's own cost per pair — prompt
// rendering, two or more HTTP round trips through the openai provider and
// llm.Session (no cache), parsing, the repair gate and one fsynced log
// append — against the scripted loopback server.
func BenchmarkRunScripted(b *testing.B) {
	_, url := scripted(b, script)
	s := newSessionB(b)
	m, err := s.Open("openai:judge-a@" + url)
	testcheck.Must(b, err)
	r, err := s.Open("openai:repairer@" + url)
	testcheck.Must(b, err)
	j, err := New(m, r, Options{Now: fixedNow})
	testcheck.Must(b, err)
	valid := testPairs[:7]
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		pairs := make([]corpus.Pair, len(valid))
		for k, p := range valid {
			p.PairID = fmt.Sprintf("%s-%d", p.PairID, i)
			pairs[k] = p
		}
		if _, err := Run(context.Background(), j, pairs, b.TempDir(), RunOptions{Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(valid))/b.Elapsed().Seconds(), "pairs/s")
}
