package ngram

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/golden"
)

// goldenModel trains an order-6 model on the 146 Java patches of the
// hand-labelled Stage II samples vendored at the repository root: real
// code and diff text (~250 KB), enough for wide contexts that are
// widened, deep levels and the rest bucket, and stable across changes to
// this package.
func goldenModel(t testing.TB) *Model {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "labels", "stage2", "samples-java.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var docs []Doc
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var s struct {
			ID    string `json:"id"`
			Patch string `json:"patch"`
		}
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		docs = append(docs, Doc{Name: s.ID, Text: []byte(s.Patch)})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return train(t, Corpus{Docs: docs}, 6)
}

// goldenRequests covers every way the server draws or scores a token:
// greedy, temperature 1 and not, top-k, top-p, n > 1, stop strings,
// logprobs with and without echo, scoring only, chat, several prompts
// (one cut inside a token, for healing).
func goldenRequests() []struct{ path, body string } {
	prompts := []string{
		"    public boolean equals(Object o) {\n        if (this == o)\n",
		"-            if (hexDigits > 16) { // too many for Long\n+            if (hex",
		"     * @param str the String to check\n     * @return ",
		"        for (int i = 0; i < ",
		"import java.util.",
	}
	var reqs []struct{ path, body string }
	add := func(path, format string, args ...any) {
		reqs = append(reqs, struct{ path, body string }{path, fmt.Sprintf(format, args...)})
	}
	for i, p := range prompts {
		pj, _ := json.Marshal(p)
		add("/v1/completions", `{"model":"m","prompt":%s,"max_tokens":24,"temperature":0,"logprobs":5,"echo":true}`, pj)
		add("/v1/completions", `{"model":"m","prompt":%s,"max_tokens":24,"temperature":0.8,"n":3,"seed":%d}`, pj, 7+i)
		add("/v1/completions", `{"model":"m","prompt":%s,"max_tokens":24,"temperature":1,"n":2,"seed":%d,"logprobs":3}`, pj, 11+i)
		add("/v1/completions", `{"model":"m","prompt":%s,"max_tokens":24,"temperature":1.3,"top_k":20,"n":2,"seed":%d}`, pj, 5+i)
		add("/v1/completions", `{"model":"m","prompt":%s,"max_tokens":24,"temperature":0.7,"top_p":0.9,"n":2,"seed":%d,"stop":["\n"]}`, pj, 9+i)
		add("/v1/completions", `{"model":"m","prompt":%s,"max_tokens":24,"temperature":1.9,"n":4,"seed":%d}`, pj, 13+i)
	}
	add("/v1/completions", `{"model":"m","prompt":["a","    return "],"max_tokens":0,"logprobs":2,"echo":true}`)
	add("/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"public static int max(int a, int b) {"}],"max_tokens":20,"temperature":0.9,"seed":3}`)
	return reqs
}

// TestServeGolden pins the served completions — tokens, texts and
// log-probabilities, byte for byte — of a real model on vendored data,
// with and without the cache component, so speed work on candidate
// scoring and sampling cannot change what a request gets. Regenerate
// (only for an intended change of the model's outputs) with
//
//	go test ./internal/ngram -run TestServeGolden -update
func TestServeGolden(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		// Go may fuse x*y+z into one FMA on other architectures (arm64,
		// ppc64le, s390x), which changes the last bits of prob's terms.
		t.Skip("the golden was made on amd64, where Go never fuses multiply-add")
	}
	m := goldenModel(t)
	cached, err := m.WithCache(Cache{Weight: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	for _, v := range []struct {
		name string
		m    *Model
	}{{"plain", m}, {"cache", cached}} {
		srv := httptest.NewServer(NewServer(v.m, "m"))
		// Twice: a second pass runs from warm per-context memos.
		for pass := range 2 {
			for _, r := range goldenRequests() {
				line := goldenPost(t, srv.URL+r.path, r.body)
				if pass == 0 {
					fmt.Fprintf(&got, "%s %s %s\n%s\n", v.name, r.path, r.body, line)
				} else if !strings.Contains(got.String(), "\n"+line+"\n") {
					t.Errorf("%s %s: second pass differs from the first: %s", v.name, r.body, line)
				}
			}
		}
		srv.Close()
	}
	golden.Check(t, filepath.Join("testdata", "serve.golden.txt"), got.Bytes())
}

// goldenPost posts body and returns the response without its id and
// creation time, which differ per run.
func goldenPost(t *testing.T, url, body string) string {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: status %d: %s", body, resp.StatusCode, data)
	}
	var v map[string]json.RawMessage
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	delete(v, "id")
	delete(v, "created")
	out, err := json.Marshal(v) // map keys sorted: stable bytes
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
