package anthropic_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/llm/anthropic"
	"github.com/benchforge/benchforge/internal/llm/llmtest"
)

const key = "sk-ant-test-SECRET-42"

func fakeServer(t *testing.T, hook llmtest.Hook) (*llmtest.Anthropic, string) {
	t.Helper()
	f := &llmtest.Anthropic{Hook: hook, Key: key}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	t.Setenv(anthropic.KeyEnv, key)
	return f, "anthropic:claude-sonnet-4-5@" + srv.URL
}

var caps = llmtest.Caps{Chat: true, JSON: true}

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
		s, err := llm.NewSession(llm.SessionOptions{CacheDir: t.TempDir(), Provider: llm.Options{Timeout: 5 * time.Second}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		m, err := s.Open(spec)
		if err != nil {
			t.Fatal(err)
		}
		return m
	})
}

func TestUnsupportedMessage(t *testing.T) {
	t.Setenv(anthropic.KeyEnv, key)
	m, err := llm.Open("anthropic:claude-sonnet-4-5", llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Score(context.Background(), llm.ScoreRequest{Prompt: "x"})
	want := "anthropic:claude-sonnet-4-5 cannot score text: Anthropic's API returns no log-probabilities; use an openai-compatible or ngram reference model"
	if !errors.Is(err, errs.ErrUnsupported) || !strings.Contains(err.Error(), want) {
		t.Errorf("Score err = %v, want ErrUnsupported with %q", err, want)
	}
}

func TestErrorShapes(t *testing.T) {
	tests := []struct {
		name         string
		status       int
		errType      string
		wantRequests int64
		wantErr      error
	}{
		{"overloaded 529 retried then ok", 529, "overloaded_error", 2, nil},
		{"rate limit 429 retried then ok", 429, "rate_limit_error", 2, nil},
		{"invalid request 400", 400, "invalid_request_error", 1, errs.ErrInput},
		{"authentication 401", 401, "authentication_error", 1, errs.ErrUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, spec := fakeServer(t, func(w http.ResponseWriter, r *http.Request, n int64) bool {
				if n == 1 {
					w.Header().Set("Retry-After", "0")
					llmtest.AnthropicError(w, tc.status, tc.errType, "it failed")
					return true
				}
				return false
			})
			m := openNoCache(t, spec)
			resp, err := m.Chat(context.Background(), llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "hi"}}})
			if f.Requests() != tc.wantRequests {
				t.Errorf("server saw %d requests, want %d", f.Requests(), tc.wantRequests)
			}
			if tc.wantErr == nil {
				if err != nil || resp.RequestID == "" || resp.Choices[0].Text == "" {
					t.Fatalf("Chat = %+v, %v; want an answer with a request id", resp, err)
				}
				return
			}
			checkResponseError(t, err, tc.wantErr, tc.status, tc.errType)
		})
	}
}

// checkResponseError: err wraps want and is a *ResponseError with the
// status, reason and request id of the fake's error, without the key.
func checkResponseError(t *testing.T, err, want error, status int, errType string) {
	t.Helper()
	var re *llm.ResponseError
	if !errors.Is(err, want) || !errors.As(err, &re) {
		t.Fatalf("err = %v, want %v and a *ResponseError", err, want)
	}
	if re.Status != status || re.Reason != errType || re.RequestID != "req_ant_1" {
		t.Errorf("ResponseError = %+v, want status %d, reason %s, request id req_ant_1", re, status, errType)
	}
	if strings.Contains(err.Error(), key) {
		t.Errorf("error %q contains the API key", err)
	}
}

// openNoCache opens spec in a session without a cache that tries each
// call three times.
func openNoCache(t *testing.T, spec string) llm.Model {
	t.Helper()
	s, err := llm.NewSession(llm.SessionOptions{NoCache: true,
		Retry: llm.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestNoTextContent(t *testing.T) {
	_, spec := fakeServer(t, func(w http.ResponseWriter, r *http.Request, n int64) bool {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":"max_tokens","usage":{"input_tokens":3,"output_tokens":0}}`))
		return true
	})
	m, err := llm.Open(spec, llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Chat(context.Background(), llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "hi"}}})
	var re *llm.ResponseError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, "no text content") {
		t.Errorf("err = %v, want a ResponseError about missing text", err)
	}
}
