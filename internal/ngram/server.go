package ngram

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// Server limits. Requests beyond them get a 400 error.
const (
	maxBodyBytes     = 1 << 20
	maxServerTokens  = 4096 // max_tokens
	maxServerChoices = 128  // prompts × n
	maxServerLogprob = 20   // logprobs
	maxStopStrings   = 4
	defaultMaxTokens = 16 // as in the OpenAI completions API
)

// NewServer returns an http.Handler serving the model under the name id in
// the OpenAI wire format:
//
//	GET  /v1/models, /v1/models/{id}
//	POST /v1/completions        (prompt, max_tokens, n, temperature, top_p,
//	                             seed, stop, logprobs, echo; top_k as an extension)
//	POST /v1/chat/completions   (messages joined by newlines into a prompt)
//
// With echo and logprobs the prompt's tokens are scored, the first one with
// a null log-probability as in OpenAI; max_tokens 0 then scores text
// without generating. Errors use OpenAI's {"error":{...}} shape with
// status 400, 404, 405 or 413. The handler is safe for concurrent use.
func NewServer(m *Model, id string) http.Handler {
	created := time.Now().Unix()
	return &server{m: m, id: id, created: created, idPrefix: "cmpl-" + strconv.FormatInt(created, 10) + "-"}
}

type server struct {
	m        *Model
	id       string
	created  int64
	idPrefix string // of completion ids: cmpl-<created>-<seq>
	seq      atomic.Uint64
	prompts  promptCache
}

// promptCache keeps the state of recent prompts (promptState: their
// tokens and the context after them). Clients send the same prompt
// again and again (n samples in separate requests, a benchmark's or a
// retry's), and its state is a pure function of the text; it is shared
// read-only (the sampler does not modify it). Bounded by entries and by
// prompt bytes; the oldest entry goes first.
type promptCache struct {
	mu    sync.Mutex
	toks  map[string]*promptState
	order []string // insertion order, oldest first
	bytes int
}

const (
	promptCacheEntries = 64
	promptCacheBytes   = 4 << 20
)

// tokens returns the model's state of prompt, from the cache when it
// was seen recently.
func (s *server) tokens(prompt string) *promptState {
	c := &s.prompts
	c.mu.Lock()
	t, ok := c.toks[prompt]
	c.mu.Unlock()
	if ok {
		return t
	}
	t = s.m.promptState(s.m.tokenize(prompt))
	if len(prompt) > promptCacheBytes/promptCacheEntries {
		return t // a long prompt would evict many short ones
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.toks == nil {
		c.toks = map[string]*promptState{}
	}
	if _, ok := c.toks[prompt]; ok {
		return t
	}
	for len(c.order) >= promptCacheEntries || c.bytes+len(prompt) > promptCacheBytes {
		c.bytes -= len(c.order[0])
		delete(c.toks, c.order[0])
		c.order = c.order[1:]
	}
	c.toks[prompt] = t
	c.order = append(c.order, prompt)
	c.bytes += len(prompt)
	return t
}

type apiError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

func (s *server) fail(w http.ResponseWriter, status int, param, code, format string, args ...any) {
	e := apiError{Message: fmt.Sprintf(format, args...), Type: "invalid_request_error"}
	if param != "" {
		e.Param = &param
	}
	if code != "" {
		e.Code = &code
	}
	writeJSONResponse(w, status, map[string]apiError{"error": e})
}

func writeJSONResponse(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // the client has gone; nothing to do
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimSuffix(r.URL.Path, "/")
	method := func(want string) bool {
		if r.Method == want || (want == http.MethodGet && r.Method == http.MethodHead) {
			return true
		}
		w.Header().Set("Allow", want)
		s.fail(w, http.StatusMethodNotAllowed, "", "method_not_allowed", "%s %s is not supported; use %s", r.Method, r.URL.Path, want)
		return false
	}
	switch {
	case path == "/v1/models":
		if method(http.MethodGet) {
			writeJSONResponse(w, http.StatusOK, map[string]any{"object": "list", "data": []modelInfo{s.info()}})
		}
	case strings.HasPrefix(path, "/v1/models/"):
		if method(http.MethodGet) {
			s.model(w, strings.TrimPrefix(path, "/v1/models/"))
		}
	case path == "/v1/completions":
		if method(http.MethodPost) {
			s.completions(w, r)
		}
	case path == "/v1/chat/completions":
		if method(http.MethodPost) {
			s.chat(w, r)
		}
	default:
		s.fail(w, http.StatusNotFound, "", "not_found", "unknown path %s; this server offers /v1/models, /v1/completions and /v1/chat/completions", r.URL.Path)
	}
}

// model answers GET /v1/models/NAME.
func (s *server) model(w http.ResponseWriter, name string) {
	if name != s.id {
		s.fail(w, http.StatusNotFound, "model", "model_not_found", "the model %q does not exist; this server serves %q", name, s.id)
		return
	}
	writeJSONResponse(w, http.StatusOK, s.info())
}

type modelInfo struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

func (s *server) info() modelInfo {
	return modelInfo{ID: s.id, Object: "model", Created: s.created, OwnedBy: "benchforge"}
}

// samplingRequest holds the fields shared by both completion endpoints.
type samplingRequest struct {
	Model       string          `json:"model"`
	MaxTokens   *int            `json:"max_tokens"`
	N           *int            `json:"n"`
	Temperature *float64        `json:"temperature"`
	TopP        *float64        `json:"top_p"`
	TopK        *int            `json:"top_k"`
	Seed        *int64          `json:"seed"`
	Stop        json.RawMessage `json:"stop"`
	Stream      bool            `json:"stream"`
}

type completionRequest struct {
	samplingRequest
	Prompt   json.RawMessage `json:"prompt"`
	Logprobs *int            `json:"logprobs"`
	Echo     bool            `json:"echo"`
	// prompt is Prompt decoded, when fastDecode read a single string.
	prompt *string
}

type logprobs struct {
	Tokens        []string             `json:"tokens"`
	TokenLogprobs []*float64           `json:"token_logprobs"`
	TopLogprobs   []map[string]float64 `json:"top_logprobs"`
	TextOffset    []int                `json:"text_offset"`
}

type completionChoice struct {
	Text         string    `json:"text"`
	Index        int       `json:"index"`
	Logprobs     *logprobs `json:"logprobs"`
	FinishReason string    `json:"finish_reason"`
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

type completionResponse struct {
	ID      string             `json:"id"`
	Object  string             `json:"object"`
	Created int64              `json:"created"`
	Model   string             `json:"model"`
	Choices []completionChoice `json:"choices"`
	Usage   usage              `json:"usage"`
}

// reqError is a request validation failure.
type reqError struct {
	status      int
	param, code string
	msg         string
}

func (e *reqError) Error() string { return e.msg }

func badParam(param, format string, args ...any) *reqError {
	return &reqError{status: http.StatusBadRequest, param: param, msg: fmt.Sprintf(format, args...)}
}

// decode reads the JSON body into v.
func (s *server) decode(w http.ResponseWriter, r *http.Request, v any) *reqError {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return &reqError{status: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("request body exceeds %d bytes", maxBodyBytes)}
		}
		return badParam("", "reading request body: %v", err)
	}
	if q, ok := v.(*completionRequest); ok && fastDecode(body, q) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return badParam("", "request body is not valid JSON for this endpoint: %v", err)
	}
	if dec.More() {
		return badParam("", "request body has data after the JSON object")
	}
	return nil
}

// options validates the sampling fields and converts them.
func (s *server) options(q *samplingRequest, prompts int) (SampleOptions, *reqError) {
	if e := s.checkModel(q); e != nil {
		return SampleOptions{}, e
	}
	o := SampleOptions{N: 1, MaxTokens: defaultMaxTokens, Temperature: 1}
	if e := q.sizes(&o, prompts); e != nil {
		return o, e
	}
	if e := q.sampling(&o); e != nil {
		return o, e
	}
	if q.Seed != nil {
		o.Seed = uint64(*q.Seed)
	} else {
		var b [8]byte
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
		o.Seed = binary.LittleEndian.Uint64(b[:])
	}
	stop, err := stringOrList(q.Stop, "stop")
	if err != nil {
		return o, err
	}
	if len(stop) > maxStopStrings {
		return o, badParam("stop", "at most %d stop sequences are allowed", maxStopStrings)
	}
	o.Stop = stop
	return o, nil
}

// checkModel checks the request names this server's model and does not
// ask for streaming.
func (s *server) checkModel(q *samplingRequest) *reqError {
	if q.Model == "" {
		return badParam("model", "you must provide a model parameter")
	}
	if q.Model != s.id {
		return &reqError{status: http.StatusNotFound, param: "model", code: "model_not_found",
			msg: fmt.Sprintf("the model %q does not exist; this server serves %q", q.Model, s.id)}
	}
	if q.Stream {
		return badParam("stream", "streaming is not supported by this server")
	}
	return nil
}

// sizes sets and bounds n (choices per prompt, over all prompts) and
// max_tokens.
func (q *samplingRequest) sizes(o *SampleOptions, prompts int) *reqError {
	if q.N != nil {
		o.N = *q.N
	}
	if o.N < 1 || o.N*prompts > maxServerChoices {
		return badParam("n", "n must be between 1 and %d per request (prompts × n)", maxServerChoices)
	}
	if q.MaxTokens != nil {
		o.MaxTokens = *q.MaxTokens
	}
	if o.MaxTokens < 0 || o.MaxTokens > maxServerTokens {
		return badParam("max_tokens", "max_tokens must be between 0 and %d", maxServerTokens)
	}
	return nil
}

// sampling sets and bounds temperature, top_p and top_k.
func (q *samplingRequest) sampling(o *SampleOptions) *reqError {
	if q.Temperature != nil {
		o.Temperature = *q.Temperature
	}
	if !(o.Temperature >= 0 && o.Temperature <= 2) {
		return badParam("temperature", "temperature must be between 0 and 2")
	}
	if q.TopP != nil {
		o.TopP = *q.TopP
		if !(o.TopP > 0 && o.TopP <= 1) {
			return badParam("top_p", "top_p must be in (0, 1]")
		}
	}
	if q.TopK != nil {
		o.TopK = *q.TopK
		if o.TopK < 0 {
			return badParam("top_k", "top_k must be >= 0")
		}
	}
	return nil
}

// stringOrList decodes a JSON string or array of strings; null or absent
// gives nil.
func stringOrList(raw json.RawMessage, param string) ([]string, *reqError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err == nil {
		return many, nil
	}
	return nil, badParam(param, "%s must be a string or an array of strings (token-id arrays are not supported)", param)
}

func (s *server) completions(w http.ResponseWriter, r *http.Request) {
	var q completionRequest
	if e := s.decode(w, r, &q); e != nil {
		s.fail(w, e.status, e.param, e.code, "%s", e.msg)
		return
	}
	prompts, opts, nlp, e := s.completionParams(&q)
	if e != nil {
		s.fail(w, e.status, e.param, e.code, "%s", e.msg)
		return
	}
	resp := completionResponse{
		ID: s.idPrefix + strconv.FormatUint(s.seq.Add(1), 10), Object: "text_completion",
		Created: time.Now().Unix(), Model: s.id, Choices: []completionChoice{},
	}
	for pi, prompt := range prompts {
		if !s.complete(r.Context(), &resp, &q, pi, prompt, opts, nlp) {
			return // the client went away
		}
	}
	resp.Usage.TotalTokens = resp.Usage.PromptTokens + resp.Usage.CompletionTokens
	writeCompletion(w, &resp)
}

// writeCompletion writes resp with status 200 as writeJSONResponse does,
// byte for byte. A response without log-probabilities (a sampled
// completion that did not ask for them, as most do) has a fixed shape
// and is encoded by hand into a pooled buffer: encoding/json's
// reflection was a sixth of the handler's time outside the model.
// Responses with log-probabilities (floats, maps) go through
// encoding/json.
func writeCompletion(w http.ResponseWriter, resp *completionResponse) {
	if resp.Choices == nil || slices.ContainsFunc(resp.Choices, func(c completionChoice) bool { return c.Logprobs != nil }) {
		writeJSONResponse(w, http.StatusOK, resp)
		return
	}
	bp := wirePool.Get().(*[]byte)
	b := appendCompletion((*bp)[:0], resp)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b) // the client has gone; nothing to do
	if cap(b) <= maxPooledWire {
		*bp = b
		wirePool.Put(bp)
	}
}

// maxPooledWire bounds the response buffers kept for reuse, so a rare
// huge response (128 choices of 4096 tokens) does not stay in the pool.
const maxPooledWire = 64 << 10

var wirePool = sync.Pool{New: func() any { return new([]byte) }}

// appendCompletion appends encoding/json's encoding of r, whose choices
// have no logprobs, with its trailing newline.
func appendCompletion(b []byte, r *completionResponse) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, r.ID)
	b = append(b, `,"object":`...)
	b = appendJSONString(b, r.Object)
	b = append(b, `,"created":`...)
	b = strconv.AppendInt(b, r.Created, 10)
	b = append(b, `,"model":`...)
	b = appendJSONString(b, r.Model)
	b = append(b, `,"choices":[`...)
	for i, c := range r.Choices {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"text":`...)
		b = appendJSONString(b, c.Text)
		b = append(b, `,"index":`...)
		b = strconv.AppendInt(b, int64(c.Index), 10)
		b = append(b, `,"logprobs":null,"finish_reason":`...)
		b = appendJSONString(b, c.FinishReason)
		b = append(b, '}')
	}
	b = append(b, `],"usage":{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(r.Usage.PromptTokens), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(r.Usage.CompletionTokens), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(r.Usage.TotalTokens), 10)
	return append(b, "}}\n"...)
}

// appendJSONString appends s quoted as encoding/json quotes a string
// with HTML escaping off (its appendString): `"` and `\` and the control
// bytes escaped (\b \f \n \r \t short, others \u00xx), each invalid
// UTF-8 byte as \ufffd, U+2028 and U+2029 as escapes, all else as is.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// completionParams validates a completion request: its prompts, sampling
// options and number of top log-probabilities.
func (s *server) completionParams(q *completionRequest) ([]string, SampleOptions, int, *reqError) {
	var prompts []string
	var e *reqError
	if q.prompt != nil {
		prompts = []string{*q.prompt} // stringOrList's result, decoded already
	} else {
		prompts, e = stringOrList(q.Prompt, "prompt")
	}
	if e == nil && prompts == nil {
		e = badParam("prompt", "you must provide a prompt")
	}
	if e == nil && len(prompts) == 0 {
		e = badParam("prompt", "prompt must not be an empty array")
	}
	var opts SampleOptions
	if e == nil {
		opts, e = s.options(&q.samplingRequest, len(prompts))
	}
	nlp := 0
	if e == nil && q.Logprobs != nil {
		nlp = *q.Logprobs
		if nlp < 0 || nlp > maxServerLogprob {
			e = badParam("logprobs", "logprobs must be between 0 and %d", maxServerLogprob)
		}
	}
	return prompts, opts, nlp, e
}

// complete samples prompt pi's completions into resp; false means the
// client went away.
func (s *server) complete(ctx context.Context, resp *completionResponse, q *completionRequest, pi int, prompt string, opts SampleOptions, nlp int) bool {
	// Without logprobs only the prompt's token count is reported, so
	// the prompt is not scored.
	var promptScores []TokenLogProb
	var promptTop [][]Candidate
	ptoks := s.tokens(prompt) // once, for the count and the sampler
	if q.Logprobs != nil {
		promptScores, promptTop = s.m.scoreWithTop(prompt, nlp)
		resp.Usage.PromptTokens += len(promptScores)
	} else {
		resp.Usage.PromptTokens += len(ptoks.toks)
	}
	comps, err := s.m.sampleTokens(ctx, ptoks, opts, nlp)
	if err != nil {
		return false
	}
	for ci, c := range comps {
		ch := completionChoice{Text: c.Text, Index: pi*opts.N + ci, FinishReason: c.FinishReason}
		if q.Echo {
			ch.Text = prompt + c.Text
		}
		if q.Logprobs != nil {
			ch.Logprobs = buildLogprobs(q.Echo, prompt, promptScores, promptTop, c, nlp)
		}
		resp.Usage.CompletionTokens += len(c.Tokens)
		resp.Choices = append(resp.Choices, ch)
	}
	return true
}

func buildLogprobs(echo bool, prompt string, ps []TokenLogProb, ptop [][]Candidate, c Completion, k int) *logprobs {
	lp := &logprobs{Tokens: []string{}, TokenLogprobs: []*float64{}, TopLogprobs: []map[string]float64{}, TextOffset: []int{}}
	topMap := func(cs []Candidate) map[string]float64 {
		if k == 0 {
			return nil
		}
		m := make(map[string]float64, len(cs))
		for _, x := range cs {
			m[x.Token] = x.LogProb
		}
		return m
	}
	if echo {
		for i, t := range ps {
			lp.Tokens = append(lp.Tokens, t.Token)
			lp.TextOffset = append(lp.TextOffset, t.Offset)
			if i == 0 {
				lp.TokenLogprobs = append(lp.TokenLogprobs, nil)
				lp.TopLogprobs = append(lp.TopLogprobs, nil)
				continue
			}
			v := t.LogProb
			lp.TokenLogprobs = append(lp.TokenLogprobs, &v)
			var top []Candidate
			if i < len(ptop) {
				top = ptop[i]
			}
			lp.TopLogprobs = append(lp.TopLogprobs, topMap(top))
		}
	}
	off := len(prompt)
	for i, t := range c.Tokens {
		v := c.LogProbs[i]
		lp.Tokens = append(lp.Tokens, t)
		lp.TokenLogprobs = append(lp.TokenLogprobs, &v)
		var top []Candidate
		if i < len(c.TopLogProbs) {
			top = c.TopLogProbs[i]
		}
		lp.TopLogprobs = append(lp.TopLogprobs, topMap(top))
		lp.TextOffset = append(lp.TextOffset, off)
		off += len(t)
	}
	if k == 0 {
		lp.TopLogprobs = nil
	}
	return lp
}

// scoreWithTop scores every token of text (the first without context) and,
// when k > 0, lists the k most likely tokens at each position.
func (m *Model) scoreWithTop(text string, k int) ([]TokenLogProb, [][]Candidate) {
	toks := m.tokenize(text)
	out := make([]TokenLogProb, len(toks))
	var tops [][]Candidate
	if k > 0 {
		tops = make([][]Candidate, len(toks))
	}
	s := m.newState(false)
	c := m.newCache()
	var buf []cand
	for i, t := range toks {
		out[i] = m.scoreOne(&s, c, t, 0)
		if k > 0 {
			cs, rest := m.candidates(&s, buf)
			cs, _ = m.mixCandidates(&s, c, cs, rest)
			buf = cs
			tops[i] = m.toCandidates(cs, k, c)
		}
		m.push(&s, m.id(t.Text))
		if c != nil {
			c.add(t.Text)
		}
	}
	return out, tops
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	samplingRequest
	Messages []chatMessage `json:"messages"`
}

type chatChoice struct {
	Index        int         `json:"index"`
	Message      chatMessage `json:"message"`
	Logprobs     any         `json:"logprobs"`
	FinishReason string      `json:"finish_reason"`
}

func (s *server) chat(w http.ResponseWriter, r *http.Request) {
	var q chatRequest
	if e := s.decode(w, r, &q); e != nil {
		s.fail(w, e.status, e.param, e.code, "%s", e.msg)
		return
	}
	if len(q.Messages) == 0 {
		s.fail(w, http.StatusBadRequest, "messages", "", "you must provide at least one message")
		return
	}
	opts, e := s.options(&q.samplingRequest, 1)
	if e != nil {
		s.fail(w, e.status, e.param, e.code, "%s", e.msg)
		return
	}
	parts := make([]string, len(q.Messages))
	for i, m := range q.Messages {
		parts[i] = m.Content
	}
	prompt := strings.Join(parts, "\n")
	ptoks := s.tokens(prompt)
	comps, err := s.m.sampleTokens(r.Context(), ptoks, opts, 0)
	if err != nil {
		return
	}
	resp := map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d-%d", s.created, s.seq.Add(1)), "object": "chat.completion",
		"created": time.Now().Unix(), "model": s.id,
	}
	choices := make([]chatChoice, len(comps))
	u := usage{PromptTokens: len(ptoks.toks)}
	for i, c := range comps {
		choices[i] = chatChoice{Index: i, Message: chatMessage{Role: "assistant", Content: c.Text}, FinishReason: c.FinishReason}
		u.CompletionTokens += len(c.Tokens)
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	resp["choices"] = choices
	resp["usage"] = u
	writeJSONResponse(w, http.StatusOK, resp)
}

// Request decoding.
//
// A completion request is mostly one shape: a flat object of a model
// name, a prompt string, a few numbers and flags. encoding/json decodes
// it by reflection, twice for the prompt (into a RawMessage, then into
// a string): about a twentieth of a served request's CPU.
// fastDecode reads that shape strictly — each key spelled as its field's
// tag and given once, string values with short escapes only (no \u,
// no control bytes, valid UTF-8), JSON number literals that strconv
// parses as encoding/json does, true and false — and hands every other
// body (null, arrays, unknown or differently spelt keys, \u escapes,
// trailing data, anything malformed) to encoding/json, whose result or
// error stands. TestFastDecode compares the two on what it accepts.

// wireReader reads a request body.
type wireReader struct {
	b []byte
	i int
}

// fastDecode decodes body into q when it has the common shape and
// reports whether it did; q is unchanged otherwise.
func fastDecode(body []byte, q *completionRequest) bool {
	r := wireReader{b: body}
	var out completionRequest
	var seen uint32
	if !r.next('{') {
		return false
	}
	for first := true; !r.next('}'); first = false {
		if !first && !r.next(',') {
			return false
		}
		key, ok := r.str()
		if !ok || !r.next(':') {
			return false
		}
		bit, ok := out.field(&r, key)
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
	}
	r.ws()
	if r.i != len(r.b) {
		return false
	}
	*q = out
	return true
}

// field reads the value of key into q and returns the key's bit; false
// for an unknown key or a value of another shape.
func (q *completionRequest) field(r *wireReader, key string) (uint32, bool) {
	var ok bool
	switch key {
	case "model":
		q.Model, ok = r.str()
		return 1 << 0, ok
	case "prompt", "stop":
		r.ws()
		start := r.i
		var text string
		if text, ok = r.str(); !ok {
			return 0, false
		}
		raw := json.RawMessage(slices.Clone(r.b[start:r.i]))
		if key == "stop" {
			q.Stop = raw
			return 1 << 1, true
		}
		q.Prompt, q.prompt = raw, &text
		return 1 << 2, true
	case "stream":
		q.Stream, ok = r.boolean()
		return 1 << 3, ok
	case "echo":
		q.Echo, ok = r.boolean()
		return 1 << 4, ok
	case "temperature":
		q.Temperature, ok = r.float()
		return 1 << 5, ok
	case "top_p":
		q.TopP, ok = r.float()
		return 1 << 6, ok
	case "seed":
		var n *int
		if n, ok = r.integer(); ok {
			q.Seed = new(int64(*n))
		}
		return 1 << 7, ok
	}
	return q.intField(r, key)
}

// intField reads the integer fields.
func (q *completionRequest) intField(r *wireReader, key string) (uint32, bool) {
	var ok bool
	switch key {
	case "max_tokens":
		q.MaxTokens, ok = r.integer()
		return 1 << 8, ok
	case "n":
		q.N, ok = r.integer()
		return 1 << 9, ok
	case "top_k":
		q.TopK, ok = r.integer()
		return 1 << 10, ok
	case "logprobs":
		q.Logprobs, ok = r.integer()
		return 1 << 11, ok
	}
	return 0, false
}

// ws skips JSON whitespace.
func (r *wireReader) ws() {
	for r.i < len(r.b) && (r.b[r.i] == ' ' || r.b[r.i] == '\t' || r.b[r.i] == '\n' || r.b[r.i] == '\r') {
		r.i++
	}
}

// next consumes c after whitespace, if it is there.
func (r *wireReader) next(c byte) bool {
	r.ws()
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// str reads a string of the common shape (see fastDecode).
func (r *wireReader) str() (string, bool) {
	if !r.next('"') {
		return "", false
	}
	var buf []byte // nil until the first escape
	start, ascii := r.i, true
	for r.i < len(r.b) {
		// Plain ASCII bytes, most of a prompt, skipped in a tight loop.
		for r.i < len(r.b) && r.b[r.i] >= 0x20 && r.b[r.i] < utf8.RuneSelf && r.b[r.i] != '"' && r.b[r.i] != '\\' {
			r.i++
		}
		if r.i == len(r.b) {
			break
		}
		switch c := r.b[r.i]; {
		case c == '"':
			seg := r.b[start:r.i]
			r.i++
			if buf != nil {
				seg = append(buf, seg...)
			}
			return string(seg), ascii || utf8.Valid(seg)
		case c == '\\':
			e, ok := shortEscape(r.b, r.i+1)
			if !ok {
				return "", false
			}
			buf = append(append(buf, r.b[start:r.i]...), e)
			r.i += 2
			start = r.i
		case c < 0x20:
			return "", false
		default:
			ascii = ascii && c < utf8.RuneSelf
			r.i++
		}
	}
	return "", false
}

// shortEscape is the byte the escape letter at b[i] stands for, false
// for \u (encoding/json's surrogate rules are left to it) or a bad one.
func shortEscape(b []byte, i int) (byte, bool) {
	if i >= len(b) {
		return 0, false
	}
	switch b[i] {
	case '"', '\\', '/':
		return b[i], true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

// number reads a JSON number literal (-?int frac? exp?) and returns it.
func (r *wireReader) number() (string, bool) {
	r.ws()
	start := r.i
	if r.i < len(r.b) && r.b[r.i] == '-' {
		r.i++
	}
	if r.i < len(r.b) && r.b[r.i] == '0' {
		r.i++
	} else if !r.digits() {
		return "", false
	}
	if r.i < len(r.b) && r.b[r.i] == '.' {
		r.i++
		if !r.digits() {
			return "", false
		}
	}
	if r.i < len(r.b) && (r.b[r.i] == 'e' || r.b[r.i] == 'E') {
		r.i++
		if r.i < len(r.b) && (r.b[r.i] == '+' || r.b[r.i] == '-') {
			r.i++
		}
		if !r.digits() {
			return "", false
		}
	}
	return string(r.b[start:r.i]), true
}

// digits consumes a run of decimal digits; false when there is none.
func (r *wireReader) digits() bool {
	start := r.i
	for r.i < len(r.b) && r.b[r.i] >= '0' && r.b[r.i] <= '9' {
		r.i++
	}
	return r.i > start
}

// integer reads a number into an int as encoding/json does
// (strconv.ParseInt; a fraction, exponent or overflow is its error).
func (r *wireReader) integer() (*int, bool) {
	s, ok := r.number()
	if !ok {
		return nil, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || int64(int(n)) != n {
		return nil, false
	}
	return new(int(n)), true
}

// float reads a number into a float64 as encoding/json does.
func (r *wireReader) float() (*float64, bool) {
	s, ok := r.number()
	if !ok {
		return nil, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, false
	}
	return &f, true
}

// boolean reads true or false.
func (r *wireReader) boolean() (bool, bool) {
	r.ws()
	for _, lit := range []string{"true", "false"} {
		if bytes.HasPrefix(r.b[r.i:], []byte(lit)) {
			r.i += len(lit)
			return lit == "true", true
		}
	}
	return false, false
}
