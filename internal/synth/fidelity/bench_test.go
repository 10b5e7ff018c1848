package fidelity

import (
	"context"
	"testing"

	"github.com/benchforge/benchforge/internal/synth/fidelity/fidelitytest"
)

// BenchmarkRun is the speed target: 5,000 pairs against 200 seeds
// (parse and measure 10,400 methods, every table, 10,000 nearest-seed
// searches) in under 5 s.
func BenchmarkRun(b *testing.B) {
	seeds := fidelitytest.Seeds(200, 1)
	pairs := fidelitytest.Pairs(seeds, 5000, 1)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Run(context.Background(), pairs, seeds, Options{Fixed: true}); err != nil {
			b.Fatal(err)
		}
	}
}
