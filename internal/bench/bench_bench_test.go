package bench

import (
	"context"
	"testing"

	"github.com/benchforge/benchforge/internal/shareddata"
)

func benchmarkLoad(b *testing.B, path string, format Format) {
	if _, err := Detect(path); err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		if _, _, err := Load(context.Background(), path, format, LoadOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// The benchmarks time whole benchmarks, so they need the full copies.
func BenchmarkLoadSWEBenchVerified(b *testing.B) {
	benchmarkLoad(b, shareddata.Full(b, verifiedRel...), FormatSWEBench)
}
func BenchmarkLoadDefects4J(b *testing.B) {
	benchmarkLoad(b, shareddata.Full(b, defects4jDir...), FormatDefects4J)
}
