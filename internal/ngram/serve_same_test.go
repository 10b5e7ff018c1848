package ngram

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/benchforge/benchforge/internal/golden"
)

// TestServeSameBytes pins the exact response bytes of the server (as
// sent, not re-encoded: TestServeGolden compares decoded values) for the
// requests of BenchmarkServeVsEcho and those of TestServeGolden, so work
// on the served path — candidate scoring, the prompt cache, the JSON
// encoding — cannot change a token, a log-probability's digits or the
// layout. The expectation was recorded with the implementation before
// issue 19's serve work (commit a1946b5). The benchmark's requests are
// sent once in order and once from 8 concurrent clients, which must
// give the same bytes: memos filled in another order change nothing.
// With the JDK's src.zip the same runs on the benchmark's own model;
// its digest is for the src.zip named in the golden file.
func TestServeSameBytes(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the expectation was made on amd64, where Go never fuses multiply-add (see TestServeGolden)")
	}
	m := goldenModel(t)
	cached, err := m.WithCache(Cache{Weight: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, v := range []struct {
		name string
		m    *Model
	}{{"plain", m}, {"cache", cached}} {
		sameBytes(t, &got, v.name, v.m, "m")
	}
	golden.Check(t, filepath.Join("testdata", "serve-bytes.golden.txt"), []byte(got.String()))

	zp, size := jdkZipSize()
	if zp == "" {
		t.Skip("no JDK src.zip: the benchmark model's digest is not checked")
	}
	want, err := os.ReadFile(filepath.Join("testdata", "serve-bytes-jdk.golden.txt"))
	header := fmt.Sprintf("model trained on 5 MB of java.base from %s (%d bytes)\n", zp, size)
	if err == nil && !strings.HasPrefix(string(want), header) && !golden.Updating() {
		t.Skipf("the JDK digest was recorded for another src.zip (%q); this machine has %s", strings.SplitN(string(want), "\n", 2)[0], header)
	}
	var jdk strings.Builder
	jdk.WriteString(header)
	sameBytes(t, &jdk, "jdk", benchJDKModel(t), "jdk")
	golden.Check(t, filepath.Join("testdata", "serve-bytes-jdk.golden.txt"), []byte(jdk.String()))
}

// jdkZipSize is the src.zip jdkSrcZip would use and its size, or "".
func jdkZipSize() (string, int64) {
	for _, p := range jdkZips {
		if fi, err := os.Stat(p); err == nil {
			return p, fi.Size()
		}
	}
	return "", 0
}

// sameBytes serves m as id and writes, for each request set, the digest
// of its responses in order and the first responses in full.
func sameBytes(t *testing.T, out *strings.Builder, name string, m *Model, id string) {
	srv := httptest.NewServer(NewServer(m, id))
	defer srv.Close()
	var bench []struct{ path, body string }
	for seed := 1; seed <= 300; seed++ {
		bench = append(bench, struct{ path, body string }{"/v1/completions",
			fmt.Sprintf(`{"model":%q,"prompt":%q,"max_tokens":16,"temperature":0.8,"seed":%d}`, id, benchPrompt, seed)})
	}
	var varied []struct{ path, body string }
	for _, r := range goldenRequests() {
		r.body = strings.Replace(r.body, `"model":"m"`, fmt.Sprintf(`"model":%q`, id), 1)
		varied = append(varied, r)
	}
	seq := postAll(t, srv.URL, bench, 1)
	writeDigest(out, name+" bench c1", seq)
	if par := postAll(t, srv.URL, bench, 8); digest(par) != digest(seq) {
		t.Errorf("%s: the benchmark's requests from 8 clients got other bytes than from one", name)
	}
	writeDigest(out, name+" varied", postAll(t, srv.URL, varied, 1))
}

// respID and respCreated match what differs per run in a response: its
// id (a per-server counter) and creation time.
var (
	respID      = regexp.MustCompile(`"id":"(chat)?cmpl-[0-9]+-[0-9]+"`)
	respCreated = regexp.MustCompile(`"created":[0-9]+`)
)

// postAll posts every request from conc clients and returns the response
// bodies in request order, with respID and respCreated scrubbed.
func postAll(t *testing.T, base string, reqs []struct{ path, body string }, conc int) []string {
	t.Helper()
	out := make([]string, len(reqs))
	var wg sync.WaitGroup
	next := make(chan int, len(reqs))
	for i := range reqs {
		next <- i
	}
	close(next)
	for range conc {
		wg.Go(func() {
			for i := range next {
				resp, err := http.Post(base+reqs[i].path, "application/json", strings.NewReader(reqs[i].body))
				if err != nil {
					t.Error(err)
					return
				}
				data, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					t.Errorf("POST %s: status %d, %v: %s", reqs[i].body, resp.StatusCode, err, data)
					return
				}
				if !respID.Match(data) || !respCreated.Match(data) {
					t.Errorf("POST %s: response %s lacks the id or created field", reqs[i].body, data)
				}
				s := respID.ReplaceAllString(string(data), `"id":"${1}cmpl-ID"`)
				out[i] = respCreated.ReplaceAllString(s, `"created":0`)
			}
		})
	}
	wg.Wait()
	return out
}

func digest(resps []string) string {
	h := sha256.New()
	for _, r := range resps {
		io.WriteString(h, r)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// writeDigest writes the set's size and digest and its first three
// responses, so a difference can be read, not only detected.
func writeDigest(out *strings.Builder, name string, resps []string) {
	fmt.Fprintf(out, "%s: %d responses, sha256 %s\n", name, len(resps), digest(resps))
	for _, r := range resps[:min(3, len(resps))] {
		out.WriteString(r) // each ends in a newline, as sent
	}
}

// TestAppendCompletion compares the hand encoding of a response without
// log-probabilities with encoding/json's (as writeJSONResponse sets it
// up) byte for byte: every single byte, invalid and valid UTF-8, the
// separators JSON escapes, and strings of random bytes from a fixed seed.
func TestAppendCompletion(t *testing.T) {
	texts := []string{"", "\u2028\u2029", "<a href=\"x\">&amp;</a>", "\xff\xfe", "\xe2\x80", "\xed\xa0\x80", "\U0001F600 é \ufffd", "\x7f\x00\x1f"}
	for c := 0; c < 256; c++ {
		texts = append(texts, string([]byte{byte(c)}), "a"+string([]byte{byte(c)})+"b")
	}
	rng := rand.New(rand.NewPCG(19, 4))
	for range 500 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		texts = append(texts, string(b))
	}
	for i, text := range texts {
		r := completionResponse{ID: "cmpl-1-" + text, Object: "text_completion", Created: int64(i) * 1e9, Model: text,
			Choices: []completionChoice{{Text: text, Index: i, FinishReason: FinishStop}}, Usage: usage{PromptTokens: i, CompletionTokens: 1, TotalTokens: i + 1}}
		if i%3 == 0 {
			r.Choices = append(r.Choices, completionChoice{Text: "x" + text, Index: i + 1, FinishReason: FinishLength})
		}
		if i%7 == 0 {
			r.Choices = []completionChoice{}
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(&r); err != nil {
			t.Fatal(err)
		}
		if got := appendCompletion(nil, &r); string(got) != want.String() {
			t.Errorf("text %q: hand encoding\n%s\nencoding/json\n%s", text, got, want.String())
		}
	}
}

// TestPromptCache checks the server's prompt states are the model's,
// from the cache or not, and that the cache stays within its bounds.
func TestPromptCache(t *testing.T) {
	testServer(t) // trains serverModel once
	m := serverModel
	s := NewServer(m, "m").(*server)
	long := strings.Repeat("x = y;\n", promptCacheBytes/promptCacheEntries/7+1)
	for i := range 3 * promptCacheEntries {
		p := fmt.Sprintf("    int v%d = f(%d);\n", i%(promptCacheEntries+8), i)
		if i%40 == 0 {
			p = long + p
		}
		for range 2 {
			got, want := s.tokens(p), m.promptState(m.tokenize(p))
			if !slices.Equal(got.toks, want.toks) || !slices.Equal(got.ctx, want.ctx) {
				t.Fatalf("prompt %q: cached state %v, want %v", p, got, want)
			}
		}
	}
	c := &s.prompts
	if len(c.toks) != len(c.order) || len(c.order) > promptCacheEntries || c.bytes > promptCacheBytes {
		t.Errorf("cache holds %d entries (%d in order), %d bytes; bounds %d, %d", len(c.toks), len(c.order), c.bytes, promptCacheEntries, promptCacheBytes)
	}
	if _, ok := c.toks[long+"    int v0 = f(0);\n"]; ok {
		t.Error("a prompt over the per-entry share was cached")
	}
}

// TestFastDecode compares fastDecode with encoding/json (as decode runs
// it) on hand-written bodies and on random edits of the benchmark's:
// whatever fastDecode accepts, encoding/json must decode without error
// to the same request (and prompt string); it must accept the common
// shape, so the fast path is the one taken.
func TestFastDecode(t *testing.T) {
	bench := fmt.Sprintf(`{"model":"jdk","prompt":%q,"max_tokens":16,"temperature":0.8,"seed":%d}`, benchPrompt, 7)
	bodies := []string{bench, `{}`, ` { "model" : "m" , "prompt" : "a\"b\\c\/d\b\f\n\r\t" } `, `{"prompt":"\u0041"}`,
		`{"prompt":"é ü 😀"}`, "{\"prompt\":\"\xff\"}", "{\"prompt\":\"a\x01\"}", `{"n":0}`, `{"n":-0}`, `{"n":1.5}`, `{"n":1e2}`,
		`{"n":01}`, `{"temperature":1.}`, `{"temperature":.5}`, `{"temperature":-}`, `{"temperature":1e}`, `{"temperature":1e+5}`,
		`{"temperature":-0.0}`, `{"seed":9223372036854775807}`, `{"seed":9223372036854775808}`, `{"temperature":1e400}`,
		`{"model":"a","model":"b"}`, `{"model":"a","extra":1}`, `{"Model":"a"}`, `{"model":null}`, `{"prompt":null}`,
		`{"model":"a"}x`, `{"model":"a"} `, `{"model":"a",}`, `{"model":"a" "n":1}`, `{"model":{"a":1}}`, `{"stream":true,"echo":false}`,
		`{"echo":tru}`, `{"echo":truex}`, `{"stop":"\n"}`, `{"stop":["a"]}`, `{"prompt":["a","b"]}`, `{"logprobs":5,"top_k":3,"top_p":0.9}`,
		`{"model":"a"`, `{"model":"a`, `{"model`, `[]`, ``, `{"prompt":"a\`}
	for _, r := range goldenRequests() {
		bodies = append(bodies, r.body)
	}
	rng := rand.New(rand.NewPCG(19, 5))
	const alphabet = "{}[]\":,\\ 0123456789.-+eEtrufalsn\n\x00\xc3\xa9"
	for range 20000 {
		b := []byte(bench)
		for range 1 + rng.IntN(3) {
			i := rng.IntN(len(b))
			switch rng.IntN(3) {
			case 0:
				b[i] = alphabet[rng.IntN(len(alphabet))]
			case 1:
				b = append(b[:i], b[i+1:]...)
			default:
				b = append(b[:i], append([]byte{alphabet[rng.IntN(len(alphabet))]}, b[i:]...)...)
			}
		}
		bodies = append(bodies, string(b))
	}
	accepted := 0
	for _, body := range bodies {
		var fast completionRequest
		if !fastDecode([]byte(body), &fast) {
			continue
		}
		accepted++
		var want completionRequest
		dec := json.NewDecoder(strings.NewReader(body))
		if err := dec.Decode(&want); err != nil || dec.More() {
			t.Errorf("fastDecode accepted %q, which encoding/json rejects (%v)", body, err)
			continue
		}
		if want.Prompt != nil {
			ps, e := stringOrList(want.Prompt, "prompt")
			if e != nil || len(ps) != 1 || fast.prompt == nil || *fast.prompt != ps[0] {
				t.Errorf("%q: prompt %v, want %q (%v)", body, fast.prompt, ps, e)
			}
		}
		fast.prompt = nil
		if !reflect.DeepEqual(fast, want) {
			t.Errorf("%q: fastDecode gives %+v, encoding/json %+v", body, fast, want)
		}
	}
	var q completionRequest
	if !fastDecode([]byte(bench), &q) || accepted < 1000 {
		t.Errorf("fastDecode accepted %d of %d bodies; the benchmark's must be one", accepted, len(bodies))
	}
	t.Logf("fastDecode accepted %d of %d bodies", accepted, len(bodies))
}
