package repoprobe

import (
	"archive/zip"
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// jdkModules reads every .java file of the JDK's src.zip by module; it
// skips the benchmark when no src.zip is installed.
func jdkModules(b *testing.B) map[string][]File {
	zpath := os.Getenv("BENCHFORGE_SRC_ZIP")
	if zpath == "" {
		zpath = "/usr/lib/jvm/temurin-25-jdk-amd64/lib/src.zip"
	}
	zr, err := zip.OpenReader(zpath)
	if err != nil {
		b.Skipf("no JDK src.zip (%v); set BENCHFORGE_SRC_ZIP", err)
	}
	defer zr.Close()
	mods := map[string][]File{}
	for _, f := range zr.File {
		mod, rest, ok := strings.Cut(f.Name, "/")
		if !ok || !strings.HasSuffix(rest, ".java") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			b.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			b.Fatal(err)
		}
		mods[mod] = append(mods[mod], File{Path: rest, Content: data})
	}
	return mods
}

// BenchmarkMineJavaBase measures pattern identification, template
// extraction and query building over the whole java.base module (the
// speed target of issue 5: under 60 s on 2 cores). The reference index
// is every JDK module (built outside the timer).
func BenchmarkMineJavaBase(b *testing.B) {
	mods := jdkModules(b)
	files := mods["java.base"]
	var all [][]File
	for _, fs := range mods {
		all = append(all, fs)
	}
	freq := NewMapFreq(all)
	var bytes int64
	for _, f := range files {
		bytes += int64(len(f.Content))
	}
	b.SetBytes(bytes)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		pats, err := Mine(context.Background(), files, MineOptions{Freq: freq, MaxRepoFrac: 0.1})
		if err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		qs := BuildQueries(files, pats, QueryOptions{})
		b.ReportMetric(float64(len(files)), "files")
		b.ReportMetric(float64(len(pats)), "patterns")
		b.ReportMetric(float64(len(qs)), "queries")
		b.ReportMetric(t1.Sub(t0).Seconds(), "mine-s")
		b.ReportMetric(time.Since(t1).Seconds(), "queries-s")
	}
}
