package ngram

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkServeVsEcho measures `lm serve` against its floor: the same
// completion requests (16 tokens, temperature 0.8, n 1) sent over real
// loopback HTTP to the n-gram server and to a trivial Go echo server that
// reads the body and answers a fixed completion of the same shape, at
// concurrency 1 and 8. `-count N` repeats each sub-benchmark N times in
// a row, so the benchmark runs serveRounds rounds of all four itself
// (later rounds are named serve/c1#01 and so on): machine load then
// falls on both sides, and the server warms up across rounds on
// requests that never repeat. The ratio of ns/op within a round is the
// figure of issue 19 (scripts/bench.sh prints the median):
//
//	go test -run '^$' -bench ServeVsEcho -benchtime 200x ./internal/ngram
func BenchmarkServeVsEcho(b *testing.B) {
	m := benchJDKModel(b)
	echoBody := []byte(`{"id":"cmpl-1","object":"text_completion","created":1,"model":"jdk","choices":[{"text":"            return true;\n        if (o == null","index":0,"logprobs":null,"finish_reason":"length"}],"usage":{"prompt_tokens":14,"completion_tokens":16,"total_tokens":30}}` + "\n")
	echo := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(echoBody)
	})
	servers := map[string]string{"serve": loopback(b, NewServer(m, "jdk")), "echo": loopback(b, echo)}
	for range serveRounds {
		for _, conc := range []int{1, 8} {
			for _, name := range []string{"serve", "echo"} {
				b.Run(fmt.Sprintf("%s/c%d", name, conc), func(b *testing.B) { postLoop(b, servers[name], conc) })
			}
		}
	}
}

// serveRounds is how many interleaved rounds BenchmarkServeVsEcho runs.
const serveRounds = 5

// loopback serves h on a free loopback port until the benchmark ends.
func loopback(b *testing.B, h http.Handler) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/v1/completions"
}

// benchSeed numbers the requests of every run in this process, so no
// request repeats an earlier one: a served step memoised for one seed is
// reused only where another seed's completion truly reaches the same
// context, as in a server's real traffic.
var benchSeed atomic.Int64

// postLoop sends b.N completion requests from conc clients.
func postLoop(b *testing.B, url string, conc int) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var next atomic.Int64
	seed := &benchSeed
	var wg sync.WaitGroup
	cpu0 := cpuSeconds()
	b.ResetTimer()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(b.N) {
				body := fmt.Sprintf(`{"model":"jdk","prompt":%q,"max_tokens":16,"temperature":0.8,"seed":%d}`, benchPrompt, seed.Add(1))
				resp, err := client.Post(url, "application/json", strings.NewReader(body))
				if err != nil {
					b.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Errorf("status %d", resp.StatusCode)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
	// The machine may be shared: process CPU per request (client and
	// server together) bounds throughput on idle cores.
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N)*1e6, "cpu-µs/req")
}
