package seeds

import (
	"context"
	"testing"

	"github.com/benchforge/benchforge/internal/shareddata"
)

func BenchmarkScanDefects4J(b *testing.B) {
	defects4jRoot := shareddata.Full(b, "defects4j") // times all 854 bugs
	for b.Loop() {
		if _, err := ScanDefects4J(context.Background(), defects4jRoot, ScanOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
