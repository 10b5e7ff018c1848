package metrics

import (
	"archive/zip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// jdkSourceBudget is how many bytes of java.base sources the benchmark reads.
const jdkSourceBudget = 20 << 20

// jdkSources reads up to budget bytes of java.base .java files from the
// JDK's src.zip ($JAVA_HOME/lib/src.zip or /usr/lib/jvm/*/lib/src.zip).
func jdkSources(tb testing.TB, budget int) [][]byte {
	tb.Helper()
	var candidates []string
	if h := os.Getenv("JAVA_HOME"); h != "" {
		candidates = append(candidates, filepath.Join(h, "lib", "src.zip"))
	}
	globbed, _ := filepath.Glob("/usr/lib/jvm/*/lib/src.zip")
	candidates = append(candidates, globbed...)
	for _, p := range candidates {
		zr, err := zip.OpenReader(p)
		if err != nil {
			continue
		}
		defer zr.Close()
		if out := javaBaseSources(tb, p, zr, budget); len(out) > 0 {
			return out
		}
	}
	tb.Skip("no JDK src.zip with java.base sources found")
	return nil
}

// javaBaseSources reads up to budget bytes of the java.base .java files
// in zr, the src.zip at p.
func javaBaseSources(tb testing.TB, p string, zr *zip.ReadCloser, budget int) [][]byte {
	tb.Helper()
	var out [][]byte
	total := 0
	for _, zf := range zr.File {
		if !strings.HasPrefix(zf.Name, "java.base/") || !strings.HasSuffix(zf.Name, ".java") {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			tb.Fatalf("open %s in %s: %v", zf.Name, p, err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			tb.Fatalf("read %s in %s: %v", zf.Name, p, err)
		}
		out = append(out, b)
		if total += len(b); total >= budget {
			break
		}
	}
	return out
}

// BenchmarkJDKParseMetrics parses java.base sources and computes all
// metrics and constructs of every method.
func BenchmarkJDKParseMetrics(b *testing.B) {
	srcs := jdkSources(b, jdkSourceBudget)
	total := 0
	for _, s := range srcs {
		total += len(s)
	}
	b.SetBytes(int64(total))
	b.ResetTimer()
	for b.Loop() {
		methods := 0
		for _, s := range srcs {
			f, err := code.Parse(code.LangJava, "jdk.java", s)
			testcheck.Must(b, err)
			methods += len(OfFile(f))
			f.Close()
		}
		if methods == 0 {
			b.Fatal("no methods measured")
		}
	}
}
