package grounded

import (
	"fmt"
	"testing"

	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// BenchmarkPrompt renders seed-grounded prompts (schedules, diffs and
// template) over 80 NPE seeds: the per-prompt overhead besides the model.
func BenchmarkPrompt(b *testing.B) {
	var seeds []corpus.Seed
	base := testSeeds()
	for i := 0; i < 80; i++ {
		s := base[i%5]
		s.BugID = fmt.Sprintf("X-%d#1", i)
		seeds = append(seeds, s)
	}
	p := NewPrompter(Options{Seed: 1})
	testcheck.Must(b, p.Prepare(seeds))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.Prompt(corpus.NullPointer, i); err != nil {
			b.Fatal(err)
		}
	}
}
