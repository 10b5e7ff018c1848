// Package judgetest owns a scripted OpenAI-compatible chat server for tests
// of the judge and of `benchforge synth validate`: each /chat/completions
// request is classified by prompt (stage 1, stage 2, repair, whole-method)
// and answered with the text a test script returns, in the documented
// chat.completion response shape, so the real openai provider, llm.Session
// cache and retries are exercised over a real loopback socket.
package judgetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
)

// Prompt kinds, recognised by the answer format each prompt asks for.
const (
	Stage1 = "stage1"
	Stage2 = "stage2"
	Repair = "repair"
	Whole  = "whole"
	Other  = "other"
)

// Request is one chat request as the script sees it.
type Request struct {
	Model  string
	Kind   string
	System string
	User   string
	JSON   bool // response_format asked for a JSON object
}

// Server answers chat completions with Script's text. A Script returning
// status ≠ 0 makes the server answer with that HTTP status and an OpenAI
// error body instead.
type Server struct {
	Script func(Request) (text string, status int)

	mu    sync.Mutex
	calls map[string]int
	seq   int
}

// Calls returns how many requests of kind k were answered.
func (s *Server) Calls(k string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[k]
}

// Kind classifies a judge prompt by the answer it asks for.
func Kind(user string) string {
	switch {
	case strings.Contains(user, `"buggy_can_throw_T"`):
		return Whole
	case strings.Contains(user, `"still_reaches_T"`):
		return Stage2
	case strings.Contains(user, "Rejected fix:"):
		return Repair
	case strings.Contains(user, `"can_throw_T"`):
		return Stage1
	}
	return Other
}

type chatReq struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string `json:"role"`
		Content any    `json:"content"`
	} `json:"messages"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
}

// ServeHTTP implements http.Handler for POST .../chat/completions.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		writeErr(w, http.StatusNotFound, "invalid_request_error", "unknown path "+r.URL.Path)
		return
	}
	var q chatReq
	if err := json.NewDecoder(r.Body).Decode(&q); err != nil {
		writeErr(w, http.StatusBadRequest, "invalid_request_error", "bad JSON: "+err.Error())
		return
	}
	req := Request{Model: q.Model, JSON: q.ResponseFormat != nil && q.ResponseFormat.Type == "json_object"}
	for _, m := range q.Messages {
		text := contentText(m.Content)
		switch m.Role {
		case "system", "developer":
			req.System += text
		case "user":
			req.User += text
		}
	}
	req.Kind = Kind(req.User)
	text, status := s.Script(req)
	if status != 0 {
		writeErr(w, status, "server_error", text)
		return
	}
	s.mu.Lock()
	if s.calls == nil {
		s.calls = map[string]int{}
	}
	s.calls[req.Kind]++
	s.seq++
	id := s.seq
	s.mu.Unlock()
	pt, ct := len(strings.Fields(req.System+" "+req.User)), len(strings.Fields(text))
	resp := map[string]any{
		"id": fmt.Sprintf("chatcmpl-judgetest-%d", id), "object": "chat.completion", "created": 1700000000, "model": q.Model,
		"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": text, "refusal": nil},
			"logprobs": nil, "finish_reason": "stop"}},
		"usage": map[string]int{"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct},
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-request-id", fmt.Sprintf("req_judgetest_%d", id))
	_ = json.NewEncoder(w).Encode(resp)
}

// contentText reads a message content given as a string or as parts.
func contentText(c any) string {
	switch x := c.(type) {
	case string:
		return x
	case []any:
		var b strings.Builder
		for _, p := range x {
			if m, ok := p.(map[string]any); ok {
				if t, ok := m["text"].(string); ok {
					b.WriteString(t)
				}
			}
		}
		return b.String()
	}
	return ""
}

func writeErr(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}})
}
