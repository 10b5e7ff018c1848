package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
)

// Hook may take over a request before the fake answers it; n is the
// 1-based count of requests the server has received. It returns true when
// it wrote the response itself.
type Hook func(w http.ResponseWriter, r *http.Request, n int64) bool

// OpenAI is an in-memory OpenAI-compatible server answering /completions
// (n, max_tokens, echo, logprobs, seed), /chat/completions (n,
// response_format), /embeddings and /models in the documented shapes,
// deterministically. Serve it under any prefix ending in /v1.
type OpenAI struct {
	Hook Hook
	// Key, when set, must arrive as "Authorization: Bearer <Key>".
	Key string

	n       atomic.Int64
	mu      sync.Mutex
	paths   map[string]int
	files   map[string][]byte
	batches map[string]*fakeBatch
}

// Requests is the number of requests received so far.
func (f *OpenAI) Requests() int64 { return f.n.Load() }

// Path counts requests whose path ends in suffix.
func (f *OpenAI) Path(suffix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for p, c := range f.paths {
		if strings.HasSuffix(p, suffix) {
			n += c
		}
	}
	return n
}

var wordRE = regexp.MustCompile(`\s*\S+|\s+$`)

// Tokenize splits text the way the fake does: each token is a word with its
// leading whitespace; it returns the tokens and their byte offsets.
func Tokenize(text string) ([]string, []int) {
	var toks []string
	var offs []int
	for _, loc := range wordRE.FindAllStringIndex(text, -1) {
		toks = append(toks, text[loc[0]:loc[1]])
		offs = append(offs, loc[0])
	}
	return toks, offs
}

// bufferBody reads the whole request body up front (so the server notices a
// client that hangs up while a hook stalls) and puts it back for the handler.
func bufferBody(r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
}

func hash(parts ...any) uint64 {
	h := fnv.New64a()
	fmt.Fprint(h, parts...)
	return h.Sum64()
}

var vocab = []string{" int", " x", " =", " 0", ";", " return", " if", " (", ")", " {", " }", " null", " i", " ++"}

func logprob(parts ...any) float64 { return -0.05 - float64(hash(parts...)%400)/100 }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// OpenAIError writes the documented error body.
func OpenAIError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}})
}

func (f *OpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.count(r)
	w.Header().Set("X-Request-Id", fmt.Sprintf("req_fake_%d", n))
	bufferBody(r)
	if f.Hook != nil && f.Hook(w, r, n) {
		return
	}
	if f.Key != "" && r.Header.Get("Authorization") != "Bearer "+f.Key {
		OpenAIError(w, http.StatusUnauthorized, "invalid_request_error", "Incorrect API key provided")
		return
	}
	if strings.Contains(r.URL.Path, "/files") || strings.Contains(r.URL.Path, "/batches") {
		f.batchAPI(w, r)
		return
	}
	var body map[string]any
	if r.Method == http.MethodPost {
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			OpenAIError(w, http.StatusBadRequest, "invalid_request_error", "bad JSON: "+err.Error())
			return
		}
	}
	f.route(w, r.URL.Path, body, n)
}

// count numbers request r and counts it under its path.
func (f *OpenAI) count(r *http.Request) int64 {
	n := f.n.Add(1)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.paths == nil {
		f.paths = map[string]int{}
	}
	f.paths[r.URL.Path]++
	return n
}

// route answers request n for path with JSON body.
func (f *OpenAI) route(w http.ResponseWriter, path string, body map[string]any, n int64) {
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		f.chat(w, body, n)
	case strings.HasSuffix(path, "/completions"):
		f.completions(w, body, n)
	case strings.HasSuffix(path, "/embeddings"):
		f.embeddings(w, body)
	case strings.HasSuffix(path, "/models"):
		writeJSON(w, 200, map[string]any{"object": "list", "data": []any{
			map[string]any{"id": "fake-model", "object": "model", "created": 0, "owned_by": "benchforge"}}})
	default:
		OpenAIError(w, http.StatusNotFound, "invalid_request_error", "unknown path "+path)
	}
}

func num(body map[string]any, key string, def float64) float64 {
	if v, ok := body[key].(float64); ok {
		return v
	}
	return def
}

func (f *OpenAI) completions(w http.ResponseWriter, body map[string]any, reqN int64) {
	prompt, ok := body["prompt"].(string)
	if !ok {
		OpenAIError(w, 400, "invalid_request_error", "prompt must be a string")
		return
	}
	model, _ := body["model"].(string)
	n := int(num(body, "n", 1))
	maxTok := int(num(body, "max_tokens", 16))
	echo, _ := body["echo"].(bool)
	_, wantLP := body["logprobs"]
	seed, temp := num(body, "seed", 0), num(body, "temperature", 1)
	ptoks, poffs := Tokenize(prompt)
	var choices []any
	for i := range n {
		var gen []string
		for j := range maxTok {
			gen = append(gen, vocab[hash(prompt, seed, temp, i, j)%uint64(len(vocab))])
		}
		text := strings.Join(gen, "")
		choice := map[string]any{"index": i, "finish_reason": "length", "text": text, "logprobs": nil}
		if echo {
			choice["text"] = prompt + text
		}
		if wantLP {
			choice["logprobs"] = completionLogprobs(prompt, ptoks, poffs, gen, i, echo)
		}
		choices = append(choices, choice)
	}
	writeJSON(w, 200, map[string]any{
		"id": fmt.Sprintf("cmpl-%d", reqN), "object": "text_completion", "created": 1700000000, "model": model,
		"choices": choices,
		"usage":   map[string]any{"prompt_tokens": len(ptoks), "completion_tokens": n * maxTok, "total_tokens": len(ptoks) + n*maxTok},
	})
}

// completionLogprobs is the "logprobs" object of choice i, the tokens gen
// generated after prompt (tokenised as ptoks at poffs), preceded by the
// prompt's tokens when echoed (the first without a logprob).
func completionLogprobs(prompt string, ptoks []string, poffs []int, gen []string, i int, echo bool) map[string]any {
	var toks []string
	var offs []int
	var lps []any
	off := 0
	if echo {
		toks, offs = append(toks, ptoks...), append(offs, poffs...)
		for k := range ptoks {
			if k == 0 {
				lps = append(lps, nil)
			} else {
				lps = append(lps, logprob(strings.Join(ptoks[:k], ""), ptoks[k]))
			}
		}
		off = len(prompt)
	}
	for k, g := range gen {
		toks, offs = append(toks, g), append(offs, off)
		off += len(g)
		lps = append(lps, logprob(prompt, i, k, g))
	}
	return map[string]any{"tokens": toks, "token_logprobs": lps, "text_offset": offs, "top_logprobs": nil}
}

func (f *OpenAI) chat(w http.ResponseWriter, body map[string]any, reqN int64) {
	model, _ := body["model"].(string)
	msgs, _ := body["messages"].([]any)
	if len(msgs) == 0 {
		OpenAIError(w, 400, "invalid_request_error", "messages must be non-empty")
		return
	}
	last, _ := msgs[len(msgs)-1].(map[string]any)
	content, _ := last["content"].(string)
	format, _ := body["response_format"].(map[string]any)
	n := int(num(body, "n", 1))
	var choices []any
	for i := range n {
		text := fmt.Sprintf("answer %d to %q", i, content)
		if format != nil && (format["type"] == "json_object" || format["type"] == "json_schema") {
			b, _ := json.Marshal(map[string]any{"answer": text, "sample": i})
			text = string(b)
		}
		choices = append(choices, map[string]any{"index": i, "finish_reason": "stop", "logprobs": nil,
			"message": map[string]any{"role": "assistant", "content": text, "refusal": nil}})
	}
	pt := len(strings.Fields(fmt.Sprint(msgs)))
	writeJSON(w, 200, map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", reqN), "object": "chat.completion", "created": 1700000000, "model": model,
		"choices": choices,
		"usage":   map[string]any{"prompt_tokens": pt, "completion_tokens": 7 * n, "total_tokens": pt + 7*n},
	})
}

func (f *OpenAI) embeddings(w http.ResponseWriter, body map[string]any) {
	model, _ := body["model"].(string)
	inputs, _ := body["input"].([]any)
	dim := int(num(body, "dimensions", 8))
	var data []any
	tokens := 0
	for i, in := range inputs {
		s, _ := in.(string)
		tokens += len(strings.Fields(s)) + 1
		vec := make([]float64, dim)
		for d := range vec {
			vec[d] = float64(hash(s, d)%2000)/1000 - 1
		}
		data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": vec})
	}
	writeJSON(w, 200, map[string]any{"object": "list", "model": model, "data": data,
		"usage": map[string]any{"prompt_tokens": tokens, "total_tokens": tokens}})
}

// Anthropic is an in-memory Messages API server (POST /v1/messages) in the
// documented shapes, with the request-id header and error bodies of the form
// {"type":"error","error":{"type":...,"message":...}}. It also serves the
// Message Batches endpoints (see anthropic_batch.go).
type Anthropic struct {
	Hook Hook
	// Key, when set, must arrive in the x-api-key header.
	Key string
	// BatchOutcome, when set, may decide a batch request's result type
	// from its custom_id and params (JSON) before it is processed:
	// "canceled" or "expired" (anything else, or "", processes the request
	// as POST /v1/messages would).
	BatchOutcome func(customID string, params []byte) string
	// ResultsBase, when set, replaces the scheme and host of the batches'
	// results_url (to test a results_url on another origin).
	ResultsBase string

	n       atomic.Int64
	mu      sync.Mutex
	paths   map[string]int
	batches map[string]*antBatch
}

// Requests is the number of requests received so far.
func (f *Anthropic) Requests() int64 { return f.n.Load() }

// Path counts requests whose path ends in suffix.
func (f *Anthropic) Path(suffix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for p, c := range f.paths {
		if strings.HasSuffix(p, suffix) {
			n += c
		}
	}
	return n
}

// AnthropicError writes the documented error body.
func AnthropicError(w http.ResponseWriter, status int, typ, msg string) {
	writeJSON(w, status, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
}

func (f *Anthropic) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.n.Add(1)
	f.mu.Lock()
	if f.paths == nil {
		f.paths = map[string]int{}
	}
	f.paths[r.URL.Path]++
	f.mu.Unlock()
	w.Header().Set("Request-Id", fmt.Sprintf("req_ant_%d", n))
	bufferBody(r)
	if f.Hook != nil && f.Hook(w, r, n) {
		return
	}
	if f.Key != "" && r.Header.Get("X-Api-Key") != f.Key {
		AnthropicError(w, 401, "authentication_error", "invalid x-api-key")
		return
	}
	if strings.Contains(r.URL.Path, "/v1/messages/batches") {
		f.batchAPI(w, r)
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/v1/messages") || r.Method != http.MethodPost {
		AnthropicError(w, 404, "not_found_error", "unknown path "+r.URL.Path)
		return
	}
	body, _ := io.ReadAll(r.Body)
	status, res := message(body, fmt.Sprintf("msg_%d", n))
	writeJSON(w, status, res)
}

// message answers one Messages API request body: 200 and a Message, or 400
// and an error body.
func message(raw []byte, id string) (int, map[string]any) {
	var body struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
		Messages  []struct {
			Role    string `json:"role"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
		System []struct {
			Text string `json:"text"`
		} `json:"system"`
		OutputConfig *struct {
			Format map[string]any `json:"format"`
		} `json:"output_config"`
		Temperature *float64 `json:"temperature"`
	}
	if err := json.Unmarshal(raw, &body); err != nil || body.MaxTokens <= 0 || len(body.Messages) == 0 {
		return 400, map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error",
			"message": fmt.Sprintf("bad request (max_tokens %d, %d messages, %v)", body.MaxTokens, len(body.Messages), err)}}
	}
	if t := body.Temperature; t != nil && (*t < 0 || *t > 1) {
		return 400, map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error",
			"message": fmt.Sprintf("temperature: range: 0..1 (got %v)", *t)}}
	}
	last := body.Messages[len(body.Messages)-1]
	var content string
	for _, c := range last.Content {
		content += c.Text
	}
	system := ""
	for _, s := range body.System {
		system += s.Text
	}
	text := fmt.Sprintf("answer to %q", content)
	if body.OutputConfig != nil || strings.Contains(system, "JSON") {
		b, _ := json.Marshal(map[string]any{"answer": text})
		text = string(b)
	}
	return 200, map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": body.Model,
		"content":     []any{map[string]any{"type": "text", "text": text}},
		"stop_reason": "end_turn", "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": len(strings.Fields(content)) + len(strings.Fields(system)) + 3, "output_tokens": 9},
	}
}
