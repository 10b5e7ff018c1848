// Package openai is the llm provider for OpenAI and every OpenAI-compatible
// endpoint (vLLM, llama.cpp server, Ollama, benchforge's own `lm serve`),
// built on the official github.com/openai/openai-go/v3 client.
//
// Generate and Score use the legacy /completions endpoint (n samples,
// logprobs, echo: the only OpenAI-shaped way to get the log-probabilities of
// given text, benchchecker §4.1); Chat uses /chat/completions with optional
// response_format json_object / json_schema; Embed uses /embeddings.
//
// The SDK's own retries are disabled (option.WithMaxRetries(0)) and the
// SDK's environment defaults (OPENAI_BASE_URL, OPENAI_ORG_ID,
// OPENAI_CUSTOM_HEADERS, ...) are not read: the services are built from
// explicit options only, so llm.Session's uniform retry policy is the only
// one, and the base URL is exactly the spec's.
//
// Importing this package registers the "openai" provider with llm.Register.
package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
)

// DefaultBaseURL is used when the spec names no base URL.
const DefaultBaseURL = "https://api.openai.com/v1"

// KeyEnv is the environment variable holding the API key.
const KeyEnv = "OPENAI_API_KEY"

func init() {
	llm.Register("openai", func(sp llm.Spec, o llm.Options) (llm.Model, error) { return New(sp, o) })
}

// Model is an OpenAI-compatible model.
type Model struct {
	spec    llm.Spec
	id      string
	base    string
	opts    []option.RequestOption
	comp    sdk.CompletionService
	chat    sdk.ChatCompletionService
	emb     sdk.EmbeddingService
	files   sdk.FileService
	batches sdk.BatchService
}

// New builds the model for sp ("openai:<model>[@<base URL>]").
func New(sp llm.Spec, o llm.Options) (*Model, error) {
	key, err := o.APIKey(sp, KeyEnv)
	if err != nil {
		return nil, err
	}
	base := sp.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	opts := []option.RequestOption{
		option.WithBaseURL(base + "/"),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
		option.WithRequestTimeout(o.AttemptTimeout()),
	}
	if key != "" {
		opts = append(opts, option.WithAPIKey(key))
	}
	return &Model{
		spec: sp, id: sp.String(), base: base, opts: opts,
		comp:    sdk.NewCompletionService(opts...),
		chat:    sdk.NewChatCompletionService(opts...),
		emb:     sdk.NewEmbeddingService(opts...),
		files:   sdk.NewFileService(opts...),
		batches: sdk.NewBatchService(opts...),
	}, nil
}

// ID is the spec-normalised id.
func (m *Model) ID() string { return m.id }

// capture records the raw HTTP exchange of one SDK call, so errors can name
// the status, request id and body even when the SDK cannot decode them.
type capture struct {
	status int
	header http.Header
	body   []byte
}

const maxBody = 256 << 20

func (c *capture) middleware(id, op string) option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		res, err := next(req)
		if err != nil {
			return res, err
		}
		c.status, c.header = res.StatusCode, res.Header
		body, rerr := io.ReadAll(io.LimitReader(res.Body, maxBody))
		res.Body.Close()
		if rerr != nil {
			if cerr := req.Context().Err(); cerr != nil {
				return nil, cerr
			}
			return nil, &llm.ResponseError{Provider: id, Op: op, RequestID: requestID(res.Header), Status: res.StatusCode,
				Body: llm.Snippet(body), Reason: "truncated body", Truncated: true, Err: rerr}
		}
		c.body = body
		res.Body = io.NopCloser(bytes.NewReader(body))
		return res, nil
	}
}

func requestID(h http.Header) string {
	if h == nil {
		return ""
	}
	if v := h.Get("X-Request-Id"); v != "" {
		return v
	}
	return h.Get("Request-Id")
}

// classify turns an SDK error into an llm error.
func (m *Model) classify(op string, c *capture, err error) error {
	var re *llm.ResponseError
	if errors.As(err, &re) {
		return err
	}
	if c.status == 0 { // transport failure, timeout or cancellation
		return fmt.Errorf("%s %s: POST %s: %w", m.id, op, m.base, err)
	}
	e := &llm.ResponseError{Provider: m.id, Op: op, RequestID: requestID(c.header), Status: c.status,
		Body: llm.Snippet(c.body), RetryAfter: llm.ParseRetryAfter(c.header, time.Now())}
	var apiErr *sdk.Error
	if c.status < 400 || !errors.As(err, &apiErr) {
		e.Err = err
	}
	if c.status < 400 {
		e.Reason = "malformed response"
	}
	return e
}

// empty returns the error for a 2xx answer that lacks what was asked for.
func (m *Model) empty(op string, c *capture, reason string) error {
	return &llm.ResponseError{Provider: m.id, Op: op, RequestID: requestID(c.header), Status: c.status,
		Body: llm.Snippet(c.body), Reason: reason}
}

func (m *Model) call(op string, c *capture) []option.RequestOption {
	return []option.RequestOption{option.WithMiddleware(c.middleware(m.id, op))}
}

func meta(c *capture, id, model string, u llm.Usage) llm.Meta {
	rid := requestID(c.header)
	if rid == "" {
		rid = id
	}
	return llm.Meta{RequestID: rid, Model: model, Usage: u}
}

// completionParams maps a GenerateRequest to /completions parameters.
func (m *Model) completionParams(req llm.GenerateRequest) sdk.CompletionNewParams {
	p := sdk.CompletionNewParams{
		Model:       sdk.CompletionNewParamsModel(m.spec.Model),
		Prompt:      sdk.CompletionNewParamsPromptUnion{OfString: sdk.String(req.Prompt)},
		MaxTokens:   sdk.Int(int64(req.MaxTokens)),
		Temperature: sdk.Float(req.Temperature),
		N:           sdk.Int(int64(max(req.N, 1))),
	}
	if req.TopP > 0 {
		p.TopP = sdk.Float(req.TopP)
	}
	if req.Seed != nil {
		p.Seed = sdk.Int(*req.Seed)
	}
	if len(req.Stop) > 0 {
		p.Stop = sdk.CompletionNewParamsStopUnion{OfStringArray: req.Stop}
	}
	if req.Logprobs || req.TopLogprobs > 0 {
		p.Logprobs = sdk.Int(int64(req.TopLogprobs))
	}
	return p
}

// rawLogprobs is the legacy completions logprobs object, decoded by hand so
// that JSON null (the first echoed token) is told apart from 0.
type rawLogprobs struct {
	Tokens        []string             `json:"tokens"`
	TokenLogprobs []*float64           `json:"token_logprobs"`
	TextOffset    []int                `json:"text_offset"`
	TopLogprobs   []map[string]float64 `json:"top_logprobs"`
}

func tokens(raw string) ([]llm.TokenLogprob, error) {
	if raw == "" || raw == "null" {
		return nil, nil
	}
	var lp rawLogprobs
	if err := json.Unmarshal([]byte(raw), &lp); err != nil {
		return nil, fmt.Errorf("logprobs: %w", err)
	}
	if err := lp.check(); err != nil {
		return nil, err
	}
	return lp.tokenLogprobs(), nil
}

// check rejects logprobs whose arrays do not line up with the tokens.
func (lp *rawLogprobs) check() error {
	if len(lp.TokenLogprobs) != len(lp.Tokens) || (lp.TextOffset != nil && len(lp.TextOffset) != len(lp.Tokens)) {
		return fmt.Errorf("logprobs: %d tokens, %d logprobs, %d offsets", len(lp.Tokens), len(lp.TokenLogprobs), len(lp.TextOffset))
	}
	return nil
}

// tokenLogprobs converts checked logprobs; without text offsets each token
// starts where the previous one ended.
func (lp *rawLogprobs) tokenLogprobs() []llm.TokenLogprob {
	out := make([]llm.TokenLogprob, len(lp.Tokens))
	off := 0
	for i, t := range lp.Tokens {
		out[i].Token = t
		if lp.TextOffset != nil {
			out[i].Offset = lp.TextOffset[i]
		} else {
			out[i].Offset = off
		}
		off += len(t)
		if p := lp.TokenLogprobs[i]; p != nil {
			out[i].Logprob, out[i].HasLogprob = *p, true
		}
		if i < len(lp.TopLogprobs) && len(lp.TopLogprobs[i]) > 0 {
			out[i].Top = lp.TopLogprobs[i]
		}
	}
	return out
}

// Generate calls /completions.
func (m *Model) Generate(ctx context.Context, req llm.GenerateRequest) (*llm.GenerateResponse, error) {
	var c capture
	res, err := m.comp.New(ctx, m.completionParams(req), m.call("generate", &c)...)
	if err != nil {
		return nil, m.classify("generate", &c, err)
	}
	n := max(req.N, 1)
	if len(res.Choices) != n {
		return nil, m.empty("generate", &c, fmt.Sprintf("asked for %d choices, got %d", n, len(res.Choices)))
	}
	samples, err := completionSamples(res.Choices, req.Logprobs || req.TopLogprobs > 0)
	if err != nil {
		return nil, m.empty("generate", &c, err.Error())
	}
	return &llm.GenerateResponse{Samples: samples,
		Meta: meta(&c, res.ID, res.Model, llm.Usage{PromptTokens: res.Usage.PromptTokens, CompletionTokens: res.Usage.CompletionTokens})}, nil
}

// completionSamples puts each choice's sample at its index; every index
// must occur once.
func completionSamples(choices []sdk.CompletionChoice, wantTokens bool) ([]llm.Sample, error) {
	samples := make([]llm.Sample, len(choices))
	for _, ch := range choices {
		i := int(ch.Index)
		if i < 0 || i >= len(samples) || samples[i].FinishReason != "" {
			return nil, fmt.Errorf("choice index %d out of range or repeated", ch.Index)
		}
		s, err := completionSample(ch, wantTokens)
		if err != nil {
			return nil, err
		}
		samples[i] = s
	}
	return samples, nil
}

// completionSample converts a completion choice, with its tokens when
// wantTokens.
func completionSample(ch sdk.CompletionChoice, wantTokens bool) (llm.Sample, error) {
	s := llm.Sample{Text: ch.Text, FinishReason: string(ch.FinishReason)}
	if s.FinishReason == "" {
		s.FinishReason = "unknown"
	}
	if wantTokens {
		var err error
		if s.Tokens, err = tokens(ch.Logprobs.RawJSON()); err != nil {
			return s, err
		}
	}
	return s, nil
}

// Score calls /completions with echo, logprobs and max_tokens 0: the
// provider returns the prompt's own tokens with their log-probabilities.
func (m *Model) Score(ctx context.Context, req llm.ScoreRequest) (*llm.ScoreResponse, error) {
	var c capture
	text := req.Prompt + req.Continuation
	p := sdk.CompletionNewParams{
		Model:       sdk.CompletionNewParamsModel(m.spec.Model),
		Prompt:      sdk.CompletionNewParamsPromptUnion{OfString: sdk.String(text)},
		MaxTokens:   sdk.Int(0),
		Temperature: sdk.Float(0),
		Echo:        sdk.Bool(true),
		Logprobs:    sdk.Int(int64(req.TopLogprobs)),
	}
	res, err := m.comp.New(ctx, p, m.call("score", &c)...)
	if err != nil {
		return nil, m.classify("score", &c, err)
	}
	if len(res.Choices) == 0 {
		return nil, m.empty("score", &c, "no choices")
	}
	toks, err := tokens(res.Choices[0].Logprobs.RawJSON())
	if err != nil {
		return nil, m.empty("score", &c, err.Error())
	}
	if len(toks) == 0 && text != "" {
		return nil, llm.Unsupported(m.id, "score text",
			"the endpoint returned no echoed log-probabilities (it does not support echo+logprobs on /completions)",
			"use a vLLM, llama.cpp or ngram reference model")
	}
	toks, start := echoedTokens(toks, len(text), len(req.Prompt))
	return &llm.ScoreResponse{Tokens: toks, ContinuationStart: start,
		Meta: meta(&c, res.ID, res.Model, llm.Usage{PromptTokens: res.Usage.PromptTokens, CompletionTokens: res.Usage.CompletionTokens})}, nil
}

// echoedTokens keeps the tokens of the echoed text, textLen bytes (a
// server may append generated tokens), and returns the index of the first
// token after the promptLen-byte prompt.
func echoedTokens(toks []llm.TokenLogprob, textLen, promptLen int) ([]llm.TokenLogprob, int) {
	for len(toks) > 0 && toks[len(toks)-1].Offset >= textLen {
		toks = toks[:len(toks)-1]
	}
	start := len(toks)
	for i, t := range toks {
		if t.Offset >= promptLen {
			start = i
			break
		}
	}
	return toks, start
}

// chatParams maps a ChatRequest to /chat/completions parameters.
func (m *Model) chatParams(req llm.ChatRequest) (sdk.ChatCompletionNewParams, error) {
	p := sdk.ChatCompletionNewParams{
		Model:       shared.ChatModel(m.spec.Model),
		Temperature: sdk.Float(req.Temperature),
		N:           sdk.Int(int64(max(req.N, 1))),
	}
	if req.MaxTokens > 0 {
		p.MaxTokens = sdk.Int(int64(req.MaxTokens))
	}
	var err error
	if p.Messages, err = chatMessages(req); err != nil {
		return p, err
	}
	if req.TopP > 0 {
		p.TopP = sdk.Float(req.TopP)
	}
	if req.Seed != nil {
		p.Seed = sdk.Int(*req.Seed)
	}
	if len(req.Stop) > 0 {
		p.Stop = sdk.ChatCompletionNewParamsStopUnion{OfStringArray: req.Stop}
	}
	p.ResponseFormat, err = responseFormat(req)
	return p, err
}

// chatMessages maps the system prompt and messages.
func chatMessages(req llm.ChatRequest) ([]sdk.ChatCompletionMessageParamUnion, error) {
	var msgs []sdk.ChatCompletionMessageParamUnion
	if req.System != "" {
		msgs = append(msgs, sdk.SystemMessage(req.System))
	}
	for i, msg := range req.Messages {
		switch msg.Role {
		case "user":
			msgs = append(msgs, sdk.UserMessage(msg.Content))
		case "assistant":
			msgs = append(msgs, sdk.AssistantMessage(msg.Content))
		default:
			return msgs, fmt.Errorf("message %d has role %q; want user or assistant (system goes in ChatRequest.System)", i, msg.Role)
		}
	}
	return msgs, nil
}

// responseFormat asks for output matching req.Schema, or any JSON object
// with req.JSON; the zero value is free text.
func responseFormat(req llm.ChatRequest) (sdk.ChatCompletionNewParamsResponseFormatUnion, error) {
	switch {
	case len(req.Schema) > 0:
		var schema map[string]any
		if err := json.Unmarshal(req.Schema, &schema); err != nil {
			return sdk.ChatCompletionNewParamsResponseFormatUnion{}, fmt.Errorf("JSON schema: %w", err)
		}
		name := req.SchemaName
		if name == "" {
			name = "answer"
		}
		return sdk.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: name, Schema: schema, Strict: sdk.Bool(true)}}}, nil
	case req.JSON:
		return sdk.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}, nil
	}
	return sdk.ChatCompletionNewParamsResponseFormatUnion{}, nil
}

// Chat calls /chat/completions.
func (m *Model) Chat(ctx context.Context, req llm.ChatRequest) (*llm.ChatResponse, error) {
	p, err := m.chatParams(req)
	if err != nil {
		return nil, fmt.Errorf("%s chat: %w: %w", m.id, err, errs.ErrUsage)
	}
	var c capture
	res, err := m.chat.New(ctx, p, m.call("chat", &c)...)
	if err != nil {
		return nil, m.classify("chat", &c, err)
	}
	return m.chatResponse(res, max(req.N, 1), &c)
}

// chatResponse converts a chat completion holding n choices.
func (m *Model) chatResponse(res *sdk.ChatCompletion, n int, c *capture) (*llm.ChatResponse, error) {
	if len(res.Choices) != n {
		return nil, m.empty("chat", c, fmt.Sprintf("asked for %d choices, got %d", n, len(res.Choices)))
	}
	out := &llm.ChatResponse{Choices: make([]llm.ChatChoice, n),
		Meta: meta(c, res.ID, res.Model, llm.Usage{PromptTokens: res.Usage.PromptTokens, CompletionTokens: res.Usage.CompletionTokens})}
	seen := make([]bool, n)
	for _, ch := range res.Choices {
		i := int(ch.Index)
		if i < 0 || i >= n || seen[i] {
			return nil, m.empty("chat", c, fmt.Sprintf("choice index %d out of range or repeated", ch.Index))
		}
		seen[i] = true
		if reason := noAnswer(ch); reason != "" {
			return nil, m.empty("chat", c, reason)
		}
		out.Choices[i] = llm.ChatChoice{Text: ch.Message.Content, FinishReason: ch.FinishReason}
	}
	return out, nil
}

// noAnswer says why a chat choice holds no answer (a refusal, or no
// content), or returns "".
func noAnswer(ch sdk.ChatCompletionChoice) string {
	switch {
	case ch.Message.Refusal != "" && ch.Message.Content == "":
		return "model refused: " + llm.Snippet([]byte(ch.Message.Refusal))
	case ch.Message.Content == "":
		// "content": null or "": no answer to judge; an answer it is not.
		return fmt.Sprintf("choice %d has no content", ch.Index)
	}
	return ""
}

// Embed calls /embeddings.
func (m *Model) Embed(ctx context.Context, req llm.EmbedRequest) (*llm.EmbedResponse, error) {
	if len(req.Inputs) == 0 {
		return &llm.EmbedResponse{}, nil
	}
	p := sdk.EmbeddingNewParams{
		Model:          sdk.EmbeddingModel(m.spec.Model),
		Input:          sdk.EmbeddingNewParamsInputUnion{OfArrayOfStrings: req.Inputs},
		EncodingFormat: sdk.EmbeddingNewParamsEncodingFormatFloat,
	}
	if req.Dimensions > 0 {
		p.Dimensions = sdk.Int(int64(req.Dimensions))
	}
	var c capture
	res, err := m.emb.New(ctx, p, m.call("embed", &c)...)
	if err != nil {
		return nil, m.classify("embed", &c, err)
	}
	if len(res.Data) != len(req.Inputs) {
		return nil, m.empty("embed", &c, fmt.Sprintf("asked for %d embeddings, got %d", len(req.Inputs), len(res.Data)))
	}
	vectors, err := embeddingsByIndex(res.Data)
	if err != nil {
		return nil, m.empty("embed", &c, err.Error())
	}
	return &llm.EmbedResponse{Vectors: vectors,
		Meta: meta(&c, "", res.Model, llm.Usage{PromptTokens: res.Usage.PromptTokens})}, nil
}

// embeddingsByIndex puts each embedding at its index; every index must
// occur once with a non-empty vector.
func embeddingsByIndex(data []sdk.Embedding) ([][]float64, error) {
	vectors := make([][]float64, len(data))
	for _, d := range data {
		i := int(d.Index)
		if i < 0 || i >= len(vectors) || vectors[i] != nil || len(d.Embedding) == 0 {
			return nil, fmt.Errorf("embedding index %d out of range, repeated or empty", d.Index)
		}
		vectors[i] = d.Embedding
	}
	return vectors, nil
}
