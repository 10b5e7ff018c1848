package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// faultServer is an OpenAI-compatible endpoint on loopback that answers
// with fault until it has failed `failures` times, then with a real
// answer.
type faultServer struct {
	hits     atomic.Int64
	failures int64
	fault    func(w http.ResponseWriter, r *http.Request)
}

func (s *faultServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if n := s.hits.Add(1); n <= s.failures {
		s.fault(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, `{"id":"chatcmpl-ok","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"recovered answer"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":2}}`)
}

func newFaultServer(t *testing.T, failures int64, fault func(w http.ResponseWriter, r *http.Request)) (*faultServer, string) {
	s := &faultServer{failures: failures, fault: fault}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL + "/v1"
}

// echoKey answers like OpenAI to a bad key: 401, the key in the message.
func echoKey(w http.ResponseWriter, r *http.Request) {
	key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	fmt.Fprintf(w, `{"error":{"message":"Incorrect API key provided: %s. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","code":"invalid_api_key"}}`, key)
}

// grepTree fails for every file under dir that holds secret.
func grepTree(t *testing.T, dir, secret string) {
	t.Helper()
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s holds the key", p)
		}
		return nil
	})
}

// TestKeyNeverPersisted runs model-using commands against an endpoint
// that echoes the key in its 401 body: the key is in no output, cache or
// record, and the user still learns what went wrong.
func TestKeyNeverPersisted(t *testing.T) {
	key := "sk-proj-fake" + strconv.Itoa(os.Getpid()) + "XYZ0123456789"
	t.Setenv("OPENAI_API_KEY", key)
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-fake"+strconv.Itoa(os.Getpid())+"0123456789")
	srv, url := newFaultServer(t, 1<<30, echoKey)
	seeds := writeNPESeeds(t, 2)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"llm chat", []string{"llm", "chat", "--model", "openai:m@" + url, "--user", "hi"}},
		{"synth generate", []string{"synth", "generate", "--generator", "openai:m@" + url, "--seeds", seeds,
			"--types", "NullPointerException", "--per-type", "2", "--workers", "1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work := t.TempDir()
			cacheDir, out := filepath.Join(work, "cache"), filepath.Join(work, "out")
			args := append(append([]string{"benchforge"}, tc.args...), "--cache-dir", cacheDir, "--out", out)
			if tc.name == "llm chat" {
				args = append(append([]string{"benchforge"}, tc.args...), "--cache-dir", cacheDir, "--manifest", filepath.Join(work, "manifest.json"))
			}
			before := srv.hits.Load()
			var stdout, stderr bytes.Buffer
			code := Run(context.Background(), args, &stdout, &stderr)
			if code == 0 || srv.hits.Load() == before {
				t.Fatalf("exit %d after %d requests; want a failed call", code, srv.hits.Load()-before)
			}
			for name, s := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String()} {
				if strings.Contains(s, key) {
					t.Errorf("%s holds the key: %s", name, s)
				}
			}
			if !strings.Contains(stderr.String(), "Incorrect API key provided: [redacted]") && !strings.Contains(stderr.String(), "HTTP 401") {
				t.Errorf("stderr does not say what failed: %s", stderr.String())
			}
			grepTree(t, work, key)
		})
	}
}

// TestNullAnswerNotCached: a 200 answer with "content": null is retried
// and, after --max-attempts, stops the run (exit 6) without being cached;
// once the provider recovers the rerun makes the call, and the run after
// that is served from the cache.
func TestNullAnswerNotCached(t *testing.T) {
	srv, url := newFaultServer(t, 2, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":"stop"}]}`)
	})
	cacheDir := t.TempDir()
	args := []string{"llm", "chat", "--model", "openai:m@" + url, "--user", "hi", "--cache-dir", cacheDir, "--max-attempts", "2"}
	_, errOut, code := run(t, args...)
	if code != exitUnavailable || srv.hits.Load() != 2 || !strings.Contains(errOut, "gave up after 2 attempts") {
		t.Fatalf("exit %d after %d requests, stderr %q; want exit %d after 2", code, srv.hits.Load(), errOut, exitUnavailable)
	}
	out, errOut, code := run(t, args...)
	if code != 0 || srv.hits.Load() != 3 || !strings.Contains(out, "recovered answer") {
		t.Fatalf("rerun: exit %d, %d requests, stdout %q stderr %q; want the recovered answer from a new call", code, srv.hits.Load(), out, errOut)
	}
	out, _, code = run(t, args...)
	if code != 0 || srv.hits.Load() != 3 || !strings.Contains(out, "recovered answer") {
		t.Errorf("third run: exit %d, %d requests; want the answer from the cache", code, srv.hits.Load())
	}
}

// TestMalformedAnswersRetried: truncated JSON, an HTML page and empty
// choices in a 200 answer are retried like a 5xx; the run goes on.
func TestMalformedAnswersRetried(t *testing.T) {
	bodies := []string{`{"id":"chatcmpl-1","choices":[{"index":0,`, `<html><body>upstream busy</body></html>`,
		`{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[]}`}
	var i atomic.Int64
	srv, url := newFaultServer(t, int64(len(bodies)), func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, bodies[i.Add(1)-1])
	})
	out, errOut, code := run(t, "llm", "chat", "--model", "openai:m@"+url, "--user", "hi", "--no-cache", "--max-attempts", "4")
	if code != 0 || srv.hits.Load() != 4 || !strings.Contains(out, "recovered answer") {
		t.Fatalf("exit %d after %d requests, stdout %q stderr %q; want the 4th attempt's answer", code, srv.hits.Load(), out, errOut)
	}
}

// TestHungEndpoint: --request-timeout and --max-attempts bound what a
// hung endpoint costs.
func TestHungEndpoint(t *testing.T) {
	srv, url := newFaultServer(t, 1<<30, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // then the server notices the client hanging up
		select {
		case <-r.Context().Done():
		case <-time.After(20 * time.Second):
		}
	})
	start := time.Now()
	_, errOut, code := run(t, "llm", "chat", "--model", "openai:m@"+url, "--user", "hi", "--no-cache",
		"--request-timeout", "1s", "--max-attempts", "2")
	el := time.Since(start)
	if code != exitUnavailable || srv.hits.Load() != 2 || el > 10*time.Second {
		t.Fatalf("exit %d after %d requests in %v, stderr %q; want exit %d after 2 one-second attempts", code, srv.hits.Load(), el, errOut, exitUnavailable)
	}
}
