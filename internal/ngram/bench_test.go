package ngram

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

var (
	benchOnce  sync.Once
	benchModel *Model
)

// benchJDKModel trains a 6-gram model on 5 MB of java.base (skipping when
// there is no JDK src.zip).
func benchJDKModel(b testing.TB) *Model {
	zp := jdkSrcZip(b)
	benchOnce.Do(func() {
		m, err := Train(context.Background(), Corpus{Paths: []string{zp}, Include: []string{"java.base/**.java"}, MaxBytes: 5 << 20}, Options{})
		if err != nil {
			b.Fatal(err)
		}
		benchModel = m
	})
	return benchModel
}

const benchPrompt = "    public boolean equals(Object o) {\n        if (this == o)\n"

// BenchmarkServeCompletions measures completions of 16 tokens per second
// through a loopback HTTP server with concurrent clients.
func BenchmarkServeCompletions(b *testing.B) {
	m := benchJDKModel(b)
	srv := httptest.NewServer(NewServer(m, "jdk"))
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var seed atomic.Int64
	b.SetParallelism(4)
	cpu0 := cpuSeconds()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			body := fmt.Sprintf(`{"model":"jdk","prompt":%q,"max_tokens":16,"temperature":0.8,"seed":%d}`, benchPrompt, seed.Add(1))
			resp, err := client.Post(srv.URL+"/v1/completions", "application/json", strings.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "completions/s")
	// The machine may be shared: also report process CPU per completion
	// (server and client together), which bounds throughput on idle cores.
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N)*1e6, "cpu-µs/completion")
}

// cpuSeconds is this process's user+system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkScore measures echo-style scoring throughput in tokens/s.
func BenchmarkScore(b *testing.B) {
	m := benchJDKModel(b)
	text := strings.Repeat(benchPrompt+"            return true;\n        return false;\n    }\n", 20)
	n := len(Tokenize(text))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.ScoreText(text)
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkTrain measures training throughput on 2 MB of java.base.
func BenchmarkTrain(b *testing.B) {
	zp := jdkSrcZip(b)
	c := Corpus{Paths: []string{zp}, Include: []string{"java.base/**.java"}, MaxBytes: 2 << 20}
	var bytes int64
	for i := 0; i < b.N; i++ {
		m, err := Train(context.Background(), c, Options{})
		if err != nil {
			b.Fatal(err)
		}
		bytes = m.Stats().Bytes
	}
	b.SetBytes(bytes)
}

// BenchmarkTokenize measures the generic tokenizer in MB/s.
func BenchmarkTokenize(b *testing.B) {
	data, err := os.ReadFile("tokenize.go")
	if err != nil {
		b.Fatal(err)
	}
	src := string(data)
	b.SetBytes(int64(len(src)))
	var buf []Token
	for i := 0; i < b.N; i++ {
		buf = appendTokens(buf[:0], src)
	}
}
