package refindex

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/benchforge/benchforge/internal/jdk"
)

// BenchmarkBuildJDK builds the index over the whole JDK src.zip and
// reports the index size.
func BenchmarkBuildJDK(b *testing.B) {
	zip, err := jdk.SrcZip()
	if err != nil {
		b.Skip(err)
	}
	out := filepath.Join(b.TempDir(), "jdk.idx")
	for b.Loop() {
		ix, err := Build(context.Background(), []Source{{Path: zip, Prefix: "jdk/"}}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := ix.Save(out); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(ix.Words()), "words")
		b.ReportMetric(float64(ix.Repos()), "repos")
	}
	st, _ := os.Stat(out)
	b.ReportMetric(float64(st.Size()), "file-bytes")
}

// BenchmarkLookup measures RepoFreq over a mix of present and absent
// words of an index of 500k words.
func BenchmarkLookup(b *testing.B) {
	const n = 500_000
	words := make([]string, n)
	counts := make([]uint32, n)
	for i := range words {
		words[i] = "w" + string(rune('a'+i%26)) + itoa(i)
		counts[i] = uint32(i%7 + 1)
	}
	slices.Sort(words)
	ix, err := newIndex(10, nil, words, counts)
	if err != nil {
		b.Fatal(err)
	}
	queries := make([]string, 1024)
	for i := range queries {
		if i%2 == 0 {
			queries[i] = words[(i*7919)%n]
		} else {
			queries[i] = "absent" + itoa(i)
		}
	}
	b.ResetTimer()
	sum := 0
	for i := 0; b.Loop(); i++ {
		sum += ix.RepoFreq(queries[i&1023])
	}
	if sum < 0 {
		b.Fatal(sum)
	}
}

func itoa(i int) string {
	var b [20]byte
	p := len(b)
	for {
		p--
		b[p] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			return string(b[p:])
		}
	}
}
