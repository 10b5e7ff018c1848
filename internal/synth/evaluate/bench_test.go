package evaluate

import (
	"context"
	"testing"

	"github.com/benchforge/benchforge/internal/synth/fidelity/fidelitytest"
)

// BenchmarkRun is the speed target: the full evaluation (5 folds ×
// 3 run seeds, 3,000 pairs against 170 seeds, LR/RF/GB with and without
// the type on both tasks, the real-CV baseline, the leaky diagnostic, the
// sweep and 10,000-resample bootstraps) in under 60 s on 2 cores.
func BenchmarkRun(b *testing.B) {
	seeds := fidelitytest.Seeds(170, 1)
	pairs := fidelitytest.Pairs(seeds, 3000, 1)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Run(context.Background(), pairs, seeds, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
