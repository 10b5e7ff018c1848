package code

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system CPU time so far.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports CPU ns/op and MB per CPU-second, which unlike ns/op
// hold steady on a loaded machine. Call it after the b.Loop loop with the
// CPU time taken before it.
func reportCPU(b *testing.B, start time.Duration, bytes int) {
	cpu := cpuTime(b) - start
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	if bytes > 0 && cpu > 0 {
		b.ReportMetric(float64(bytes)*float64(b.N)/cpu.Seconds()/1e6, "MB/cpu-s")
	}
}

// jdkFile returns one file from the JDK's src.zip, or skips.
func jdkFile(tb testing.TB, name string) []byte {
	tb.Helper()
	var candidates []string
	if h := os.Getenv("JAVA_HOME"); h != "" {
		candidates = append(candidates, filepath.Join(h, "lib", "src.zip"))
	}
	globbed, _ := filepath.Glob("/usr/lib/jvm/*/lib/src.zip")
	for _, p := range append(candidates, globbed...) {
		zr, err := zip.OpenReader(p)
		if err != nil {
			continue
		}
		defer zr.Close()
		for _, zf := range zr.File {
			if zf.Name != name {
				continue
			}
			rc, err := zf.Open()
			if err != nil {
				tb.Fatalf("open %s in %s: %v", name, p, err)
			}
			defer rc.Close()
			b, err := io.ReadAll(rc)
			if err != nil {
				tb.Fatalf("read %s in %s: %v", name, p, err)
			}
			return b
		}
	}
	tb.Skipf("no JDK src.zip holding %s", name)
	return nil
}

// benchMethod is a generated method of n statements like the candidates
// the synthesis gates see (about 45 bytes a statement).
func benchMethod(n int) []byte {
	var b strings.Builder
	b.WriteString("public int sum(int[] vals, String name) {\n    if (name == null) {\n        return 0;\n    }\n")
	b.WriteString("    int acc = name.length();\n")
	for i := range n {
		fmt.Fprintf(&b, "    acc += vals[%d] * %d + step%d(acc); // step %d\n", i%3, i+1, i, i)
	}
	b.WriteString("    return acc;\n}")
	return []byte(b.String())
}

// BenchmarkParseJavaMethod parses a 20-statement method in the dummy class
// (what every synthesis gate does twice per candidate).
func BenchmarkParseJavaMethod(b *testing.B) {
	src := benchMethod(20)
	b.SetBytes(int64(len(src)))
	start := cpuTime(b)
	for b.Loop() {
		f, err := ParseJavaMethod(src)
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	reportCPU(b, start, len(src))
}

// BenchmarkParseMethodTokens is BenchmarkParseJavaMethod plus Tokens and
// Functions.
func BenchmarkParseMethodTokens(b *testing.B) {
	src := benchMethod(20)
	b.SetBytes(int64(len(src)))
	start := cpuTime(b)
	for b.Loop() {
		f, err := ParseJavaMethod(src)
		if err != nil {
			b.Fatal(err)
		}
		if len(f.Tokens()) == 0 || len(f.Functions()) != 1 {
			b.Fatal("no tokens or functions")
		}
		f.Close()
	}
	reportCPU(b, start, len(src))
}

// BenchmarkLexArrayList lexes java.util.ArrayList from the JDK sources.
func BenchmarkLexArrayList(b *testing.B) {
	src := jdkFile(b, "java.base/java/util/ArrayList.java")
	b.SetBytes(int64(len(src)))
	start := cpuTime(b)
	for b.Loop() {
		if len(Lex(LangJava, src)) == 0 {
			b.Fatal("no tokens")
		}
	}
	reportCPU(b, start, len(src))
}

// BenchmarkNormalizeArrayList normalises java.util.ArrayList.
func BenchmarkNormalizeArrayList(b *testing.B) {
	src := jdkFile(b, "java.base/java/util/ArrayList.java")
	b.SetBytes(int64(len(src)))
	start := cpuTime(b)
	for b.Loop() {
		if len(Normalize(LangJava, src)) == 0 {
			b.Fatal("no lines")
		}
	}
	reportCPU(b, start, len(src))
}

// BenchmarkParsePair parses a 30-statement method and its fixed version
// (an inserted null guard) separately and as a pair (incremental second
// parse).
func BenchmarkParsePair(b *testing.B) {
	var body strings.Builder
	for i := range 30 {
		fmt.Fprintf(&body, "    acc += vals[%d] * %d + step%d(acc);\n", i%3, i+1, i)
	}
	buggy := []byte("public int sum(int[] vals, String name) {\n    int acc = name.length();\n" + body.String() + "    return acc;\n}")
	fixed := []byte("public int sum(int[] vals, String name) {\n    if (name == null) {\n        return 0;\n    }\n    int acc = name.length();\n" + body.String() + "    return acc;\n}")
	b.Run("separate", func(b *testing.B) {
		for b.Loop() {
			for _, src := range [][]byte{buggy, fixed} {
				if _, err := ParseJavaMethod(src); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("pair", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := ParseJavaMethodPair(buggy, fixed); err != nil {
				b.Fatal(err)
			}
		}
	})
}
