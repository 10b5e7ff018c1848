// Package llm owns benchforge's model layer: one small, context-first Model
// interface (generate, chat, score with log-probabilities, embed) that every
// caller uses, whatever the provider.
//
// Both jobs need it. The audit probes a *target* model with text only
// (benchchecker §3.3), scores context with a *reference* model's
// log-probabilities (§4.1 entropy filter; the §5 logit baselines), and the
// synthesis pipeline calls a *generator* and *judges* with chat and JSON output
// (rxsynth §4.3 seed-grounded generation, §5.1–§5.3 patch-anchored judging).
//
// Layers:
//
//   - Spec strings ("openai:gpt-4o-mini", "openai:qwen@http://127.0.0.1:8000/v1",
//     "anthropic:claude-sonnet-4-5", "ngram:models/jdk.bfng") are parsed by
//     ParseSpec and opened through a registry of provider constructors
//     (Register / Open). Providers live in sub-packages (llm/openai,
//     llm/anthropic) and register themselves in init; import
//     internal/llm/providers to get all of them.
//   - A Session wraps every provider Model with a content-addressed SQLite
//     cache (llm/cache), retries with exponential backoff and full jitter,
//     per-provider concurrency and requests/tokens-per-minute limits, a
//     MaxCost budget, and a per-run Manifest (calls, cache hits, tokens, cost,
//     wall time).
//   - Batch jobs (Session.SubmitChatBatch / CollectBatch / PendingBatches,
//     for providers implementing Batcher: OpenAI's Batch API and Anthropic's Message Batches) are recorded in
//     the cache DB by id and, once collected, land in the cache under the
//     same keys as normal calls, so the normal path then hits the cache.
//
// API keys come only from the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY)
// or a key file (Options.KeyFile); a loopback base URL needs none. Keys never
// appear in errors, cache rows or manifests.
package llm

import (
	"context"
	"encoding/json"
)

// Model is one language model behind one provider. Every method honours ctx
// cancellation. An operation the provider cannot perform returns an error
// wrapping errs.ErrUnsupported that says why and what to use instead.
type Model interface {
	// ID is the spec-normalised id, e.g. "openai:gpt-4o-mini".
	ID() string
	// Generate continues a raw text prompt (legacy completions), returning
	// max(N,1) samples, optionally with per-token log-probabilities.
	Generate(ctx context.Context, req GenerateRequest) (*GenerateResponse, error)
	// Chat answers a system + message conversation, optionally constrained to
	// JSON (or a JSON schema).
	Chat(ctx context.Context, req ChatRequest) (*ChatResponse, error)
	// Score returns the per-token log-probabilities of Prompt+Continuation
	// under the model, without generating.
	Score(ctx context.Context, req ScoreRequest) (*ScoreResponse, error)
	// Embed returns one vector per input.
	Embed(ctx context.Context, req EmbedRequest) (*EmbedResponse, error)
}

// Usage counts the tokens a call consumed, as the provider reported them.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

// Add returns u + v.
func (u Usage) Add(v Usage) Usage {
	return Usage{u.PromptTokens + v.PromptTokens, u.CompletionTokens + v.CompletionTokens}
}

// Meta is carried by every response.
type Meta struct {
	// RequestID is the provider's request id (x-request-id / request-id
	// header, else the response id), for support tickets and audit trails.
	RequestID string `json:"request_id,omitempty"`
	// Model is the model id the provider reported (may differ from the
	// requested one, e.g. a dated snapshot).
	Model string `json:"model,omitempty"`
	// Usage is the provider-reported usage of the call(s) that produced this
	// response; for answers served from the cache it is the usage recorded
	// when the answer was first paid for.
	Usage Usage `json:"usage"`
	// CacheHits counts the samples of this response served from the cache
	// (0 from a bare provider Model).
	CacheHits int `json:"cache_hits,omitempty"`
}

// GenerateRequest asks for raw-text continuations of Prompt.
type GenerateRequest struct {
	Prompt      string   `json:"prompt"`
	MaxTokens   int      `json:"max_tokens"`
	Temperature float64  `json:"temperature"`
	TopP        float64  `json:"top_p,omitempty"` // 0: provider default
	Seed        *int64   `json:"seed,omitempty"`
	Stop        []string `json:"stop,omitempty"`
	// N is the number of samples; 0 means 1.
	N int `json:"n,omitempty"`
	// Logprobs asks for the log-probability of every generated token;
	// TopLogprobs (>0) also for that many alternatives per position.
	Logprobs    bool `json:"logprobs,omitempty"`
	TopLogprobs int  `json:"top_logprobs,omitempty"`
}

// TokenLogprob is one token with its log-probability (natural log).
type TokenLogprob struct {
	Token string `json:"token"`
	// Offset is the byte offset of the token in the scored or generated text.
	Offset int `json:"offset"`
	// Logprob is log P(token | preceding tokens). HasLogprob is false for a
	// text's first token, which has no conditional probability.
	Logprob    float64            `json:"logprob"`
	HasLogprob bool               `json:"has_logprob"`
	Top        map[string]float64 `json:"top,omitempty"`
}

// Sample is one generated continuation.
type Sample struct {
	Text         string         `json:"text"`
	FinishReason string         `json:"finish_reason,omitempty"`
	Tokens       []TokenLogprob `json:"tokens,omitempty"`
}

// GenerateResponse holds max(N,1) samples in order.
type GenerateResponse struct {
	Samples []Sample `json:"samples"`
	Meta
}

// Message is one chat turn. Role is "user" or "assistant"; the system prompt
// goes in ChatRequest.System.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ChatRequest is a chat call.
type ChatRequest struct {
	System      string    `json:"system,omitempty"`
	Messages    []Message `json:"messages"`
	MaxTokens   int       `json:"max_tokens"`
	Temperature float64   `json:"temperature"`
	TopP        float64   `json:"top_p,omitempty"`
	Seed        *int64    `json:"seed,omitempty"`
	Stop        []string  `json:"stop,omitempty"`
	N           int       `json:"n,omitempty"`
	// JSON asks for a single JSON object as the answer. With Schema set the
	// answer must also conform to that JSON schema (named SchemaName).
	JSON       bool            `json:"json,omitempty"`
	Schema     json.RawMessage `json:"schema,omitempty"`
	SchemaName string          `json:"schema_name,omitempty"`
}

// ChatChoice is one chat answer.
type ChatChoice struct {
	Text         string `json:"text"`
	FinishReason string `json:"finish_reason,omitempty"`
}

// ChatResponse holds max(N,1) answers in order.
type ChatResponse struct {
	Choices []ChatChoice `json:"choices"`
	Meta
}

// ScoreRequest asks for the log-probabilities of Prompt+Continuation.
// Continuation may be empty (score the whole text).
type ScoreRequest struct {
	Prompt       string `json:"prompt"`
	Continuation string `json:"continuation,omitempty"`
	// TopLogprobs (>0) also returns that many alternatives per position.
	TopLogprobs int `json:"top_logprobs,omitempty"`
}

// ScoreResponse lists the tokens of Prompt+Continuation in order.
type ScoreResponse struct {
	Tokens []TokenLogprob `json:"tokens"`
	// ContinuationStart is the index in Tokens of the first token that
	// starts at or after len(Prompt); len(Tokens) when there is none.
	ContinuationStart int `json:"continuation_start"`
	Meta
}

// ContinuationLogprob sums the log-probabilities of the continuation tokens.
func (r *ScoreResponse) ContinuationLogprob() float64 {
	var s float64
	for _, t := range r.Tokens[r.ContinuationStart:] {
		if t.HasLogprob {
			s += t.Logprob
		}
	}
	return s
}

// EmbedRequest asks for one embedding per input.
type EmbedRequest struct {
	Inputs     []string `json:"inputs"`
	Dimensions int      `json:"dimensions,omitempty"`
}

// EmbedResponse holds one vector per input, in input order.
type EmbedResponse struct {
	Vectors [][]float64 `json:"vectors"`
	Meta
}

// Samples returns max(n, 1).
func samples(n int) int {
	if n < 1 {
		return 1
	}
	return n
}
