package seeds

import (
	"context"
	"os"
	"testing"
)

func BenchmarkScanDefects4J(b *testing.B) {
	if _, err := os.Stat(defects4jRoot); err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		if _, err := ScanDefects4J(context.Background(), defects4jRoot, ScanOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
