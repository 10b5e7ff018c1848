package openai_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/llm/llmtest"
	"github.com/benchforge/benchforge/internal/llm/openai"
)

var caps = llmtest.Caps{Chat: true, Generate: true, Score: true, Embed: true, JSON: true}

// fakeServer serves an llmtest.OpenAI under /v1 on loopback.
func fakeServer(t *testing.T, hook llmtest.Hook) (*llmtest.OpenAI, string) {
	t.Helper()
	f := &llmtest.OpenAI{Hook: hook}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, "openai:fake-model@" + srv.URL + "/v1"
}

func TestContractBare(t *testing.T) {
	llmtest.Run(t, caps, func(t *testing.T) llm.Model {
		_, spec := fakeServer(t, nil)
		m, err := llm.Open(spec, llm.Options{Timeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return m
	})
}

func TestContractSession(t *testing.T) {
	llmtest.Run(t, caps, func(t *testing.T) llm.Model {
		_, spec := fakeServer(t, nil)
		s := newSession(t, llm.SessionOptions{CacheDir: t.TempDir()})
		m, err := s.Open(spec)
		if err != nil {
			t.Fatal(err)
		}
		return m
	})
}

func newSession(t *testing.T, o llm.SessionOptions) *llm.Session {
	t.Helper()
	if o.Retry.BaseDelay == 0 {
		o.Retry = llm.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond, MaxDelay: 3 * time.Second}
	}
	if o.Provider.Timeout == 0 {
		o.Provider.Timeout = 5 * time.Second
	}
	if o.CacheDir == "" {
		o.NoCache = true
	}
	s, err := llm.NewSession(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

var chatReq = llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "hello"}}, MaxTokens: 8}

// TestErrorPaths drives the provider through a Session against servers that
// fail in the ways real endpoints do.
func TestErrorPaths(t *testing.T) {
	tests := []errorPath{
		{name: "429 Retry-After seconds", wantRequests: 2, minElapsed: time.Second,
			hook: failFirst(1, func(w http.ResponseWriter) {
				w.Header().Set("Retry-After", "1")
				llmtest.OpenAIError(w, 429, "rate_limit_exceeded", "slow down")
			})},
		{name: "429 retry-after-ms", wantRequests: 3, minElapsed: 200 * time.Millisecond, maxElapsed: 2 * time.Second,
			hook: failFirst(2, func(w http.ResponseWriter) {
				w.Header().Set("Retry-After-Ms", "100")
				llmtest.OpenAIError(w, 429, "rate_limit_exceeded", "slow down")
			})},
		{name: "500 then success", wantRequests: 2,
			hook: failFirst(1, func(w http.ResponseWriter) { llmtest.OpenAIError(w, 500, "server_error", "boom") })},
		{name: "502 HTML body then success", wantRequests: 2,
			hook: failFirst(1, func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(502)
				w.Write([]byte("<html>Bad Gateway</html>"))
			})},
		{name: "503 always: exhausted", wantRequests: 3, wantErr: errs.ErrUnavailable, wantStatus: 503,
			hook: failFirst(99, func(w http.ResponseWriter) { llmtest.OpenAIError(w, 503, "server_error", "overloaded") })},
		// A malformed, empty or null 200 answer is a provider fault: retried,
		// and an error (never an answer) when it persists.
		{name: "malformed JSON: retried", wantRequests: 3, wantErr: errs.ErrUnavailable, wantStatus: 200,
			hook: failFirst(99, func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"id": "chatcmpl-1", "choices": [{"index": 0,`))
			})},
		{name: "malformed JSON then success", wantRequests: 2,
			hook: failFirst(1, func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"id": "chatcmpl-1", "choices": [{"index": 0,`))
			})},
		{name: "empty choices: retried", wantRequests: 3, wantErr: errs.ErrUnavailable, wantStatus: 200,
			hook: failFirst(99, func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[]}`))
			})},
		{name: "null content then success", wantRequests: 2,
			hook: failFirst(1, func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":"stop"}]}`))
			})},
		{name: "empty content: retried", wantRequests: 3, wantErr: errs.ErrUnavailable, wantStatus: 200,
			hook: failFirst(99, func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "application/json")
				w.Write([]byte(`{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"stop"}]}`))
			})},
		{name: "200 HTML body then success", wantRequests: 2,
			hook: failFirst(1, func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "text/html")
				w.Write([]byte("<html><body>Service temporarily unavailable</body></html>"))
			})},
		{name: "truncated body then success", wantRequests: 2, hook: failFirst(1, truncated)},
		{name: "truncated body always", wantRequests: 3, wantErr: errs.ErrUnavailable, wantStatus: 200, hook: failFirst(99, truncated)},
		{name: "dropped connection then success", wantRequests: 2, hook: failFirst(1, hijackClose)},
		{name: "slow response beyond timeout", wantRequests: 3, wantErr: context.DeadlineExceeded,
			timeout: 100 * time.Millisecond, maxElapsed: 2 * time.Second,
			hook: func(w http.ResponseWriter, r *http.Request, n int64) bool {
				select {
				case <-r.Context().Done():
				case <-time.After(time.Second):
				}
				return true
			}},
		{name: "401 not retried", wantRequests: 1, wantErr: errs.ErrUsage, wantStatus: 401,
			hook: failFirst(99, func(w http.ResponseWriter) {
				llmtest.OpenAIError(w, 401, "invalid_request_error", "Incorrect API key provided")
			})},
		{name: "404 model", wantRequests: 1, wantErr: errs.ErrNotFound, wantStatus: 404,
			hook: failFirst(99, func(w http.ResponseWriter) {
				llmtest.OpenAIError(w, 404, "invalid_request_error", "The model does not exist")
			})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, spec := fakeServer(t, tc.hook)
			s := newSession(t, llm.SessionOptions{Provider: llm.Options{Timeout: tc.timeout}})
			m, err := s.Open(spec)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			resp, err := m.Chat(context.Background(), chatReq)
			elapsed := time.Since(start)
			if got := f.Requests(); got != tc.wantRequests {
				t.Errorf("server saw %d requests, want %d", got, tc.wantRequests)
			}
			tc.checkElapsed(t, elapsed)
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("Chat: %v", err)
				}
				if len(resp.Choices) != 1 || resp.Choices[0].Text == "" {
					t.Errorf("Chat = %+v, want one answer", resp.Choices)
				}
				return
			}
			tc.checkErr(t, err, m.ID())
		})
	}
}

// errorPath is a server failure TestErrorPaths drives a Chat call into.
type errorPath struct {
	name         string
	hook         llmtest.Hook
	timeout      time.Duration
	wantRequests int64
	wantErr      error // nil: success
	wantStatus   int   // of the *ResponseError, when wantErr != nil
	minElapsed   time.Duration
	maxElapsed   time.Duration
}

// checkElapsed: the call took at least minElapsed and, if set, at most
// maxElapsed.
func (tc errorPath) checkElapsed(t *testing.T, elapsed time.Duration) {
	t.Helper()
	if elapsed < tc.minElapsed {
		t.Errorf("took %v, want at least %v (Retry-After honoured)", elapsed, tc.minElapsed)
	}
	if tc.maxElapsed > 0 && elapsed > tc.maxElapsed {
		t.Errorf("took %v, want at most %v", elapsed, tc.maxElapsed)
	}
}

// checkErr: err wraps wantErr and, when wantStatus is set, is a
// *ResponseError of that status from model id's chat with a request id.
func (tc errorPath) checkErr(t *testing.T, err error, id string) {
	t.Helper()
	if !errors.Is(err, tc.wantErr) {
		t.Fatalf("err = %v, want %v", err, tc.wantErr)
	}
	if tc.wantStatus == 0 {
		return
	}
	var re *llm.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v, want a *llm.ResponseError", err)
	}
	if re.Status != tc.wantStatus || re.Provider != id || re.Op != "chat" {
		t.Errorf("ResponseError = %+v, want status %d from %s chat", re, tc.wantStatus, id)
	}
	if re.RequestID == "" && re.Status != 0 {
		t.Errorf("ResponseError has no request id: %v", re)
	}
}

// failFirst fails the first k requests with fail and lets the rest
// through to the fake.
func failFirst(k int64, fail func(w http.ResponseWriter)) llmtest.Hook {
	return func(w http.ResponseWriter, r *http.Request, n int64) bool {
		if n <= k {
			fail(w)
			return true
		}
		return false
	}
}

// hijackClose drops the connection without an answer.
func hijackClose(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		conn.Close()
	}
}

// truncated answers 200 with a body shorter than its Content-Length.
func truncated(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", "1000")
	w.WriteHeader(200)
	w.Write([]byte(`{"id":"chatcmpl-1","choices":[`))
}

func TestKeyHandling(t *testing.T) {
	const key = "sk-test-SECRET-0123456789"
	f := &llmtest.OpenAI{Key: key}
	srv := httptest.NewServer(f)
	defer srv.Close()
	spec := "openai:fake-model@" + srv.URL + "/v1"

	t.Setenv(openai.KeyEnv, key)
	m, err := llm.Open(spec, llm.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Chat(context.Background(), chatReq); err != nil {
		t.Fatalf("Chat with the env key: %v", err)
	}

	t.Setenv(openai.KeyEnv, "sk-wrong-key-987654")
	m, _ = llm.Open(spec, llm.Options{Timeout: 5 * time.Second})
	_, err = m.Chat(context.Background(), chatReq)
	if !errors.Is(err, errs.ErrUsage) || strings.Contains(err.Error(), "sk-wrong-key-987654") {
		t.Errorf("Chat with a wrong key: err = %v, want ErrUsage not naming the key", err)
	}

	// A remote endpoint without any key is a usage error naming the variable.
	t.Setenv(openai.KeyEnv, "")
	_, err = llm.Open("openai:gpt-4o-mini", llm.Options{})
	if !errors.Is(err, errs.ErrUsage) || !strings.Contains(err.Error(), openai.KeyEnv) {
		t.Errorf("Open without key: err = %v, want ErrUsage naming %s", err, openai.KeyEnv)
	}
}

func TestParams(t *testing.T) {
	// The request the SDK sends carries exactly the requested parameters.
	var got map[string]any
	f, spec := fakeServer(t, nil)
	f.Hook = func(w http.ResponseWriter, r *http.Request, n int64) bool {
		got = decode(t, r)
		return false
	}
	_ = f
	m, err := llm.Open(spec, llm.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	seed := int64(3)
	if _, err := m.Score(context.Background(), llm.ScoreRequest{Prompt: "a b", Continuation: " c"}); err != nil {
		t.Fatal(err)
	}
	if !hasParams(got, map[string]any{"echo": true, "max_tokens": 0.0, "logprobs": 0.0, "prompt": "a b c"}) {
		t.Errorf("score request = %v, want echo, max_tokens 0, logprobs 0, prompt %q", got, "a b c")
	}
	if _, err := m.Generate(context.Background(), llm.GenerateRequest{Prompt: "p", MaxTokens: 4, Temperature: 0.5,
		TopP: 0.9, Seed: &seed, N: 2, Stop: []string{"\n"}}); err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]any{"max_tokens": 4.0, "temperature": 0.5, "top_p": 0.9, "seed": 3.0, "n": 2.0, "model": "fake-model"} {
		if got[k] != v {
			t.Errorf("generate request %s = %v, want %v", k, got[k], v)
		}
	}
	if _, ok := got["logprobs"]; ok {
		t.Errorf("generate request without Logprobs sent logprobs: %v", got)
	}
}

// hasParams reports whether got holds every key of want with its value.
func hasParams(got, want map[string]any) bool {
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// decode reads a request's JSON body and puts it back for the next handler.
func decode(t *testing.T, r *http.Request) map[string]any {
	t.Helper()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Errorf("read request: %v", err)
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Errorf("request body %q: %v", b, err)
	}
	return v
}
