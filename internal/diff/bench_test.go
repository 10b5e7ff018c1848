package diff

import (
	"bytes"
	"os"
	"testing"
)

// BenchmarkParse parses all Defects4J source patches concatenated and
// repeated to at least 20 MB.
func BenchmarkParse(b *testing.B) {
	var corpus []byte
	for _, p := range defects4jPatches(b, "*.src.patch") {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		corpus = append(corpus, data...)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			corpus = append(corpus, '\n')
		}
	}
	one := len(corpus)
	corpus = bytes.Repeat(corpus, (20<<20)/one+1)
	b.SetBytes(int64(len(corpus)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := ParseBytes(corpus); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnified diffs a 10,000-line file against a copy with 50
// scattered edits.
func BenchmarkUnified(b *testing.B) {
	old, new := largePair(10000, 50)
	b.SetBytes(int64(len(old)))
	b.ResetTimer()
	for b.Loop() {
		Unified("a/f", "b/f", old, new, 3)
	}
}

// BenchmarkApply applies that diff.
func BenchmarkApply(b *testing.B) {
	old, new := largePair(10000, 50)
	fd := Unified("a/f", "b/f", old, new, 3)
	b.SetBytes(int64(len(old)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := Apply(old, fd, ApplyOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
