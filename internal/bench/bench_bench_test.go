package bench

import (
	"context"
	"testing"
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

func BenchmarkLoadSWEBenchVerified(b *testing.B) { benchmarkLoad(b, verifiedFile, FormatSWEBench) }
func BenchmarkLoadDefects4J(b *testing.B)        { benchmarkLoad(b, defects4jRoot, FormatDefects4J) }
