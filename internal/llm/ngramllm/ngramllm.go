// Package ngramllm is the in-process "ngram" provider of internal/llm: it
// loads a built-in n-gram model file (internal/ngram, .bfng) and serves
// Generate, Chat and Score without any HTTP, for the offline reference
// model of the audit and for tests. Spec: "ngram:PATH", e.g.
// "ngram:models/jdk.bfng".
//
// The model's content hash is the provider's cache fingerprint, so a
// retrained model at the same path never hits a stale cached answer.
package ngramllm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/ngram"
)

func init() { llm.Register("ngram", open) }

// loaded caches models by path and content hash: loading a large model
// takes seconds, and one process often opens the same spec many times.
var loaded sync.Map // fingerprint -> *ngram.Model

type model struct {
	id string
	fp string
	m  *ngram.Model
}

func open(sp llm.Spec, _ llm.Options) (llm.Model, error) {
	if sp.BaseURL != "" {
		return nil, fmt.Errorf("open %s: %w: the ngram provider is in-process and takes no @URL; serve the model with `benchforge lm serve` and use openai:NAME@URL instead", sp, errs.ErrUsage)
	}
	fp, err := fingerprint(sp.Model)
	if err != nil {
		return nil, err
	}
	if m, ok := loaded.Load(fp); ok {
		return &model{id: sp.String(), fp: fp, m: m.(*ngram.Model)}, nil
	}
	m, err := ngram.Load(sp.Model)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", sp, err)
	}
	loaded.Store(fp, m)
	return &model{id: sp.String(), fp: fp, m: m}, nil
}

// New wraps an already loaded model, e.g. one just trained in memory. fp
// must change whenever the model does (a hash of its training data works).
func New(id string, m *ngram.Model, fp string) llm.Model {
	return &model{id: "ngram:" + id, fp: fp, m: m}
}

func fingerprint(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return "", fmt.Errorf("open ngram:%s: %w: no such model file; train one with `benchforge lm train`", path, errs.ErrNotFound)
		}
		return "", fmt.Errorf("open ngram:%s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("open ngram:%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// requestID numbers calls within the process, so records can still name
// the call that produced them.
func (m *model) requestID() string {
	return fmt.Sprintf("ngram-%d", requests.Add(1))
}

var requests atomic.Int64

func (m *model) ID() string          { return m.id }
func (m *model) Fingerprint() string { return m.fp }

func sampleOptions(n, maxTokens int, temp, topP float64, seed *int64, stop []string) ngram.SampleOptions {
	o := ngram.SampleOptions{N: max(n, 1), MaxTokens: maxTokens, Temperature: temp, TopP: topP, Stop: stop}
	if seed != nil {
		o.Seed = uint64(*seed)
	}
	return o
}

func (m *model) sample(ctx context.Context, prompt string, o ngram.SampleOptions, logprobs bool) ([]llm.Sample, llm.Usage, error) {
	comps, err := m.m.Sample(ctx, prompt, o)
	if err != nil {
		return nil, llm.Usage{}, fmt.Errorf("%s: sample: %w", m.id, err)
	}
	u := llm.Usage{PromptTokens: int64(len(m.m.ScoreText(prompt)))}
	out := make([]llm.Sample, len(comps))
	for i, c := range comps {
		s := llm.Sample{Text: c.Text, FinishReason: c.FinishReason}
		if logprobs {
			off := 0
			for j, tok := range c.Tokens {
				lp := llm.TokenLogprob{Token: tok, Offset: off, HasLogprob: true}
				if j < len(c.LogProbs) {
					lp.Logprob = c.LogProbs[j]
				}
				s.Tokens = append(s.Tokens, lp)
				off += len(tok)
			}
		}
		u.CompletionTokens += int64(len(c.Tokens))
		out[i] = s
	}
	return out, u, nil
}

func (m *model) Generate(ctx context.Context, req llm.GenerateRequest) (*llm.GenerateResponse, error) {
	o := sampleOptions(req.N, req.MaxTokens, req.Temperature, req.TopP, req.Seed, req.Stop)
	samples, u, err := m.sample(ctx, req.Prompt, o, req.Logprobs)
	if err != nil {
		return nil, err
	}
	return &llm.GenerateResponse{Samples: samples, Meta: llm.Meta{Model: m.id, Usage: u, RequestID: m.requestID()}}, nil
}

// Chat joins the system prompt and messages with newlines into one prompt,
// as `benchforge lm serve` does: an n-gram model has no notion of turns,
// and it cannot honour a JSON response format (answers are what the model
// continues with; callers' parsers reject them as unparseable).
func (m *model) Chat(ctx context.Context, req llm.ChatRequest) (*llm.ChatResponse, error) {
	var parts []string
	if req.System != "" {
		parts = append(parts, req.System)
	}
	for _, msg := range req.Messages {
		parts = append(parts, msg.Content)
	}
	o := sampleOptions(req.N, req.MaxTokens, req.Temperature, req.TopP, req.Seed, req.Stop)
	samples, u, err := m.sample(ctx, strings.Join(parts, "\n"), o, false)
	if err != nil {
		return nil, err
	}
	resp := &llm.ChatResponse{Meta: llm.Meta{Model: m.id, Usage: u, RequestID: m.requestID()}}
	for _, s := range samples {
		resp.Choices = append(resp.Choices, llm.ChatChoice{Text: s.Text, FinishReason: s.FinishReason})
	}
	return resp, nil
}

func (m *model) Score(ctx context.Context, req llm.ScoreRequest) (*llm.ScoreResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	toks := m.m.ScoreText(req.Prompt + req.Continuation)
	resp := &llm.ScoreResponse{ContinuationStart: len(toks), Meta: llm.Meta{Model: m.id, RequestID: m.requestID()}}
	for i, t := range toks {
		// The first token has no conditional probability, as in OpenAI's
		// echo+logprobs answers.
		resp.Tokens = append(resp.Tokens, llm.TokenLogprob{Token: t.Token, Offset: t.Offset, Logprob: t.LogProb, HasLogprob: i > 0})
		if t.Offset >= len(req.Prompt) && resp.ContinuationStart == len(toks) {
			resp.ContinuationStart = i
		}
	}
	resp.Usage.PromptTokens = int64(len(toks))
	return resp, nil
}

func (m *model) Embed(context.Context, llm.EmbedRequest) (*llm.EmbedResponse, error) {
	return nil, llm.Unsupported(m.id, "embed texts", "an n-gram model has no embedding space", "use an openai-compatible embedding model")
}
