package llm_test

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
)

func TestParseSpec(t *testing.T) {
	tests := []struct {
		in       string
		want     llm.Spec
		loopback bool
		wantErr  string
	}{
		{in: "openai:gpt-4o-mini", want: llm.Spec{Provider: "openai", Model: "gpt-4o-mini"}},
		{in: "openai:qwen2.5-coder-7b@http://127.0.0.1:8000/v1", loopback: true,
			want: llm.Spec{Provider: "openai", Model: "qwen2.5-coder-7b", BaseURL: "http://127.0.0.1:8000/v1"}},
		{in: "openai:qwen2.5-coder:7b@http://localhost:11434/v1/", loopback: true,
			want: llm.Spec{Provider: "openai", Model: "qwen2.5-coder:7b", BaseURL: "http://localhost:11434/v1"}},
		{in: "openai:m@http://[::1]:8000/v1", loopback: true, want: llm.Spec{Provider: "openai", Model: "m", BaseURL: "http://[::1]:8000/v1"}},
		{in: "openai:m@https://api.together.xyz/v1", want: llm.Spec{Provider: "openai", Model: "m", BaseURL: "https://api.together.xyz/v1"}},
		{in: "anthropic:claude-sonnet-4-5", want: llm.Spec{Provider: "anthropic", Model: "claude-sonnet-4-5"}},
		{in: "ngram:models/jdk.bfng", want: llm.Spec{Provider: "ngram", Model: "models/jdk.bfng"}},
		{in: "gpt-4o", wantErr: "missing provider prefix"},
		{in: ":gpt-4o", wantErr: "missing provider prefix"},
		{in: "openai:", wantErr: "missing model name"},
		{in: "OpenAI:gpt-4o", wantErr: "provider must be lower-case"},
		{in: "openai:@http://127.0.0.1:1/v1", wantErr: "missing model name"},
		{in: "openai:m@http://", wantErr: "not an http(s) URL with a host"},
		{in: "openai:m@https://user:sk-secret@api.openai.com/v1", wantErr: "must not carry credentials"},
		{in: "openai:m@http://127.0.0.1/v1?key=x", wantErr: "must not have a query"},
		{in: "openai:gpt 4", wantErr: "whitespace"},
		{in: "openai:x@notaurl", wantErr: `bad base URL "notaurl"`},
		{in: "openai:x@ftp://host/v1", wantErr: "bad base URL"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := llm.ParseSpec(tc.in)
			if tc.wantErr != "" {
				checkSpecError(t, tc.in, err, tc.wantErr)
				return
			}
			if err != nil {
				t.Fatalf("ParseSpec(%q): %v", tc.in, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseSpec(%q) (-want +got):\n%s", tc.in, diff)
			}
			if got.Loopback() != tc.loopback {
				t.Errorf("Loopback() = %v, want %v", got.Loopback(), tc.loopback)
			}
			again, err := llm.ParseSpec(got.String())
			if err != nil || again != got {
				t.Errorf("String() %q does not round-trip: %+v, %v", got.String(), again, err)
			}
		})
	}
}

// checkSpecError: err wraps ErrUsage, mentions want and the accepted
// forms, and carries no secret that the input did not.
func checkSpecError(t *testing.T, in string, err error, want string) {
	t.Helper()
	if !isErr(err, errs.ErrUsage, want, "accepted forms") {
		t.Fatalf("ParseSpec(%q) err = %v, want ErrUsage containing %q and the accepted forms", in, err, want)
	}
	if strings.Contains(err.Error(), "sk-secret") && !strings.Contains(in, "sk-secret") {
		t.Errorf("error leaks a secret")
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"openai:gpt-4o-mini", "openai:q:7b@http://127.0.0.1:8000/v1", "ngram:a/b.bfng",
		"anthropic:x@https://h/p", "x:@http", "a:b@http://[::1", "a:b@https://u@h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := llm.ParseSpec(s)
		if err != nil {
			if !errors.Is(err, errs.ErrUsage) {
				t.Fatalf("ParseSpec(%q) error %v does not wrap ErrUsage", s, err)
			}
			return
		}
		again, err := llm.ParseSpec(sp.String())
		if err != nil || again != sp {
			t.Fatalf("ParseSpec(%q) = %+v; String %q re-parses to %+v, %v", s, sp, sp.String(), again, err)
		}
		_ = sp.Loopback()
	})
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		h    map[string]string
		want time.Duration
	}{
		{"none", nil, 0},
		{"seconds", map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{"fractional seconds", map[string]string{"Retry-After": "0.5"}, 500 * time.Millisecond},
		{"http date", map[string]string{"Retry-After": "Sat, 01 Mar 2025 12:00:07 GMT"}, 7 * time.Second},
		{"date in the past", map[string]string{"Retry-After": "Sat, 01 Mar 2025 11:00:00 GMT"}, 0},
		{"ms wins", map[string]string{"Retry-After": "3", "Retry-After-Ms": "250"}, 250 * time.Millisecond},
		{"garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"negative", map[string]string{"Retry-After": "-5"}, 0},
		{"huge", map[string]string{"Retry-After": "1e300"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tc.h {
				h.Set(k, v)
			}
			if got := llm.ParseRetryAfter(h, now); got != tc.want {
				t.Errorf("ParseRetryAfter(%v) = %v, want %v", tc.h, got, tc.want)
			}
		})
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"3", "0.5", "Sat, 01 Mar 2025 12:00:07 GMT", "-1", "NaN", "Inf", "1e309"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, ra, ms string) {
		h := http.Header{}
		h.Set("Retry-After", ra)
		h.Set("Retry-After-Ms", ms)
		if d := llm.ParseRetryAfter(h, time.Now()); d < 0 {
			t.Fatalf("ParseRetryAfter(%q, %q) = %v < 0", ra, ms, d)
		}
	})
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("é", 600) // 2 bytes each
	s := llm.Snippet([]byte(long))
	if len(s) > 520 || !strings.HasSuffix(s, "…") || strings.ContainsRune(s, '\uFFFD') {
		t.Errorf("Snippet cut badly: len %d, suffix %q", len(s), s[len(s)-4:])
	}
	if got := llm.Snippet([]byte("ok")); got != "ok" {
		t.Errorf("Snippet(ok) = %q", got)
	}
}
