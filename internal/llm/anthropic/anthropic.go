// Package anthropic is the llm provider for Anthropic's Messages API, built
// on github.com/anthropics/anthropic-sdk-go/v2. It supports Chat only: the
// API has no raw-text completion, no log-probabilities and no embeddings, so
// Generate, Score and Embed return errors wrapping errs.ErrUnsupported.
//
// Chat with N > 1 makes N requests (the API has no n parameter). JSON
// output uses output_config.format (structured outputs) when a schema is
// given, and a system instruction otherwise.
//
// Model implements llm.Batcher with the Message Batches API (batch.go):
// create, poll processing_status, download results_url, and report every
// errored, canceled, expired or missing request by custom_id.
//
// The SDK's retries are disabled (option.WithMaxRetries(0)) and its
// environment defaults (ANTHROPIC_BASE_URL, ANTHROPIC_CUSTOM_HEADERS, the
// credential chain) are not read (option.WithoutEnvironmentDefaults), so
// llm.Session's retry policy is the only one and the key comes only from
// ANTHROPIC_API_KEY or a key file, sent as the documented x-api-key header.
//
// Importing this package registers the "anthropic" provider.
package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
)

// DefaultBaseURL is used when the spec names no base URL.
const DefaultBaseURL = "https://api.anthropic.com"

// KeyEnv is the environment variable holding the API key.
const KeyEnv = "ANTHROPIC_API_KEY"

// DefaultMaxTokens is sent when a ChatRequest sets none (the API requires it).
const DefaultMaxTokens = 1024

const jsonInstruction = "Answer with a single JSON object and nothing else: no prose, no code fences."

func init() {
	llm.Register("anthropic", func(sp llm.Spec, o llm.Options) (llm.Model, error) { return New(sp, o) })
}

// Model is an Anthropic model.
type Model struct {
	spec llm.Spec
	id   string
	base string
	opts []option.RequestOption
	msgs sdk.MessageService
}

// New builds the model for sp ("anthropic:<model>[@<base URL>]").
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
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(base + "/"),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(0),
		option.WithRequestTimeout(o.AttemptTimeout()),
	}
	if key != "" {
		opts = append(opts, option.WithHeader("X-Api-Key", key))
	}
	return &Model{spec: sp, id: sp.String(), base: base, opts: opts, msgs: sdk.NewMessageService(opts...)}, nil
}

// ID is the spec-normalised id.
func (m *Model) ID() string { return m.id }

// Generate is unsupported.
func (m *Model) Generate(context.Context, llm.GenerateRequest) (*llm.GenerateResponse, error) {
	return nil, llm.Unsupported(m.id, "generate raw-text completions",
		"Anthropic's API has only the chat-shaped Messages endpoint", "use Chat, or an openai-compatible or ngram model")
}

// Score is unsupported.
func (m *Model) Score(context.Context, llm.ScoreRequest) (*llm.ScoreResponse, error) {
	return nil, llm.Unsupported(m.id, "score text",
		"Anthropic's API returns no log-probabilities", "use an openai-compatible or ngram reference model")
}

// Embed is unsupported.
func (m *Model) Embed(context.Context, llm.EmbedRequest) (*llm.EmbedResponse, error) {
	return nil, llm.Unsupported(m.id, "embed text",
		"Anthropic offers no embeddings endpoint", "use an openai-compatible embedding model")
}

// Params maps a ChatRequest to Messages API parameters.
func (m *Model) Params(req llm.ChatRequest) (sdk.MessageNewParams, error) {
	p := sdk.MessageNewParams{
		Model:     sdk.Model(m.spec.Model),
		MaxTokens: DefaultMaxTokens,
	}
	if req.MaxTokens > 0 {
		p.MaxTokens = int64(req.MaxTokens)
	}
	system := req.System
	switch {
	case len(req.Schema) > 0:
		var schema map[string]any
		if err := json.Unmarshal(req.Schema, &schema); err != nil {
			return p, fmt.Errorf("JSON schema: %w", err)
		}
		p.OutputConfig = sdk.OutputConfigParam{Format: sdk.JSONOutputFormatParam{Schema: schema}}
	case req.JSON:
		system = strings.TrimSpace(system + "\n\n" + jsonInstruction)
	}
	if system != "" {
		p.System = []sdk.TextBlockParam{{Text: system}}
	}
	for i, msg := range req.Messages {
		switch msg.Role {
		case "user":
			p.Messages = append(p.Messages, sdk.NewUserMessage(sdk.NewTextBlock(msg.Content)))
		case "assistant":
			p.Messages = append(p.Messages, sdk.NewAssistantMessage(sdk.NewTextBlock(msg.Content)))
		default:
			return p, fmt.Errorf("message %d has role %q; want user or assistant (system goes in ChatRequest.System)", i, msg.Role)
		}
	}
	if len(p.Messages) == 0 {
		return p, errors.New("no messages")
	}
	if len(req.Stop) > 0 {
		p.StopSequences = req.Stop
	}
	return p, nil
}

// Chat calls POST /v1/messages once per requested answer.
func (m *Model) Chat(ctx context.Context, req llm.ChatRequest) (*llm.ChatResponse, error) {
	p, err := m.Params(req)
	if err != nil {
		return nil, fmt.Errorf("%s chat: %w: %w", m.id, err, errs.ErrUsage)
	}
	// This SDK version has no sampling fields; the API still documents
	// temperature and top_p, so they are set on the JSON body directly.
	extra := []option.RequestOption{option.WithJSONSet("temperature", req.Temperature)}
	if req.TopP > 0 {
		extra = append(extra, option.WithJSONSet("top_p", req.TopP))
	}
	out := &llm.ChatResponse{}
	for range max(req.N, 1) {
		ch, meta, err := m.chatOnce(ctx, p, extra)
		if err != nil {
			return nil, err
		}
		out.Choices = append(out.Choices, ch)
		out.Usage = out.Usage.Add(meta.Usage)
		out.RequestID, out.Model = meta.RequestID, meta.Model
	}
	return out, nil
}

func (m *Model) chatOnce(ctx context.Context, p sdk.MessageNewParams, extra []option.RequestOption) (llm.ChatChoice, llm.Meta, error) {
	var c capture
	opts := append([]option.RequestOption{option.WithMiddleware(c.middleware(m.id, "chat"))}, extra...)
	res, err := m.msgs.New(ctx, p, opts...)
	if err != nil {
		return llm.ChatChoice{}, llm.Meta{}, m.classify("chat", &c, err)
	}
	ch, err := Choice(res)
	if err != nil {
		return llm.ChatChoice{}, llm.Meta{}, &llm.ResponseError{Provider: m.id, Op: "chat", RequestID: requestID(c.header, res.ID),
			Status: c.status, Body: llm.Snippet(c.body), Reason: err.Error()}
	}
	return ch, llm.Meta{RequestID: requestID(c.header, res.ID), Model: string(res.Model),
		Usage: llm.Usage{PromptTokens: res.Usage.InputTokens, CompletionTokens: res.Usage.OutputTokens}}, nil
}

// Choice extracts the text answer of a Message; a message without text
// content is an error, never a silently empty answer.
func Choice(res *sdk.Message) (llm.ChatChoice, error) {
	if res == nil || res.ID == "" {
		return llm.ChatChoice{}, errors.New("response has no message id")
	}
	var b strings.Builder
	texts := 0
	for _, blk := range res.Content {
		if blk.Type == "text" {
			b.WriteString(blk.Text)
			texts++
		}
	}
	if texts == 0 || b.Len() == 0 {
		return llm.ChatChoice{}, fmt.Errorf("no text content (stop_reason %q)", res.StopReason)
	}
	return llm.ChatChoice{Text: b.String(), FinishReason: string(res.StopReason)}, nil
}

// capture records the raw HTTP exchange of one SDK call.
type capture struct {
	status int
	header http.Header
	body   []byte
	// endpoint is "METHOD URL" of the request, for errors.
	endpoint string
	// stream leaves a 2xx body unread (batch results can be large).
	stream bool
}

func (c *capture) middleware(id, op string) option.Middleware {
	return func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
		c.endpoint = req.Method + " " + req.URL.Redacted()
		res, err := next(req)
		if err != nil {
			return res, err
		}
		c.status, c.header = res.StatusCode, res.Header
		if c.stream && res.StatusCode < 300 {
			return res, nil
		}
		body, rerr := io.ReadAll(io.LimitReader(res.Body, 64<<20))
		res.Body.Close()
		if rerr != nil {
			if cerr := req.Context().Err(); cerr != nil {
				return nil, cerr
			}
			return nil, &llm.ResponseError{Provider: id, Op: op, RequestID: requestID(res.Header, ""), Status: res.StatusCode,
				Body: llm.Snippet(body), Reason: "truncated body", Truncated: true, Err: rerr}
		}
		c.body = body
		res.Body = io.NopCloser(bytes.NewReader(body))
		return res, nil
	}
}

func requestID(h http.Header, fallback string) string {
	if h != nil {
		if v := h.Get("Request-Id"); v != "" {
			return v
		}
		if v := h.Get("X-Request-Id"); v != "" {
			return v
		}
	}
	return fallback
}

// apiError is Anthropic's documented error body:
// {"type":"error","error":{"type":"overloaded_error","message":"..."},"request_id":"req_..."}.
type apiError struct {
	Type  string `json:"type"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	RequestID string `json:"request_id"`
}

func (m *Model) classify(op string, c *capture, err error) error {
	var re *llm.ResponseError
	if errors.As(err, &re) {
		return err
	}
	if c.status == 0 {
		endpoint := c.endpoint
		if endpoint == "" {
			endpoint = "POST " + m.base + "/v1/messages"
		}
		return fmt.Errorf("%s %s: %s: %w", m.id, op, endpoint, err)
	}
	e := &llm.ResponseError{Provider: m.id, Op: op, RequestID: requestID(c.header, ""), Status: c.status,
		Body: llm.Snippet(c.body), RetryAfter: llm.ParseRetryAfter(c.header, time.Now())}
	if c.status < 400 {
		e.Reason, e.Err = "malformed response", err
		return e
	}
	var ae apiError
	if json.Unmarshal(c.body, &ae) == nil && ae.Type == "error" {
		e.Reason = ae.Error.Type
		if e.RequestID == "" {
			e.RequestID = ae.RequestID
		}
	}
	return e
}
