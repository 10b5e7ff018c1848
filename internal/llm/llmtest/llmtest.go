// Package llmtest owns the contract every llm.Model implementation must
// meet (Run), and in-memory OpenAI-compatible and Anthropic servers in the
// documented response shapes (OpenAI, Anthropic) for tests, including each
// provider's batch API (OpenAI Batch, Anthropic Message Batches).
package llmtest

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
)

// Caps says which optional operations an implementation supports; the
// others must fail with errs.ErrUnsupported and a message saying "cannot".
type Caps struct {
	Generate bool
	Score    bool
	Embed    bool
	// JSON: Chat with JSON=true answers a JSON object.
	JSON bool
	// Chat false means Chat is unsupported too (e.g. a pure n-gram LM).
	Chat bool
	// Skip names subtests ("Embed", ...) for operations an endpoint does not
	// serve at all, so that neither success nor ErrUnsupported is expected.
	Skip []string
}

func (c Caps) skip(t *testing.T) {
	for _, s := range c.Skip {
		if strings.HasSuffix(t.Name(), "/"+s) {
			t.Skipf("endpoint does not serve %s", s)
		}
	}
}

// Run checks the Model contract against the model newModel returns (a fresh
// one per subtest).
func Run(t *testing.T, caps Caps, newModel func(t *testing.T) llm.Model) {
	ctx := context.Background()
	for _, c := range contract {
		t.Run(c.name, func(t *testing.T) {
			caps.skip(t)
			c.check(t, ctx, caps, newModel)
		})
	}
}

// contract lists Run's subtests in order.
var contract = []struct {
	name  string
	check func(t *testing.T, ctx context.Context, caps Caps, newModel func(t *testing.T) llm.Model)
}{
	{"ID", checkID},
	{"Chat", checkChat},
	{"ChatJSON", checkChatJSON},
	{"Generate", checkGenerate},
	{"Score", checkScore},
	{"Embed", checkEmbed},
	{"Canceled", checkCanceled},
}

// checkID checks that the model's ID is a normalised spec.
func checkID(t *testing.T, ctx context.Context, caps Caps, newModel func(t *testing.T) llm.Model) {
	m := newModel(t)
	sp, err := llm.ParseSpec(m.ID())
	if err != nil {
		t.Fatalf("ID %q does not parse: %v", m.ID(), err)
	}
	if sp.String() != m.ID() {
		t.Errorf("ID %q is not spec-normalised (%q)", m.ID(), sp.String())
	}
}

// checkChat checks one and two chat choices, or that chat is unsupported.
func checkChat(t *testing.T, ctx context.Context, caps Caps, newModel func(t *testing.T) llm.Model) {
	m := newModel(t)
	req := llm.ChatRequest{System: "You review Java code.", Messages: []llm.Message{{Role: "user", Content: "Is x++ atomic?"}},
		MaxTokens: 32, Temperature: 0}
	resp, err := m.Chat(ctx, req)
	if !caps.Chat {
		wantUnsupported(t, err)
		return
	}
	if err != nil {
		t.Fatalf("Chat: %v", err)
	}
	if len(resp.Choices) != 1 || resp.Choices[0].Text == "" {
		t.Fatalf("Chat choices = %+v, want one non-empty", resp.Choices)
	}
	checkMeta(t, resp.Meta)
	req.N = 2
	resp, err = m.Chat(ctx, req)
	if err != nil {
		t.Fatalf("Chat N=2: %v", err)
	}
	if len(resp.Choices) != 2 {
		t.Fatalf("Chat N=2 gave %d choices", len(resp.Choices))
	}
}

// checkChatJSON checks that JSON chat answers a JSON object, with and
// without a schema.
func checkChatJSON(t *testing.T, ctx context.Context, caps Caps, newModel func(t *testing.T) llm.Model) {
	if !caps.Chat || !caps.JSON {
		t.Skip("no JSON chat")
	}
	m := newModel(t)
	for _, schema := range []json.RawMessage{nil, json.RawMessage(`{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"]}`)} {
		resp, err := m.Chat(ctx, llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "Say hi as JSON"}},
			MaxTokens: 64, JSON: true, Schema: schema})
		if err != nil {
			t.Fatalf("Chat JSON (schema %s): %v", schema, err)
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(resp.Choices[0].Text), &obj); err != nil {
			t.Errorf("Chat JSON answer %q is not a JSON object: %v", resp.Choices[0].Text, err)
		}
	}
}

// checkGenerate checks three sampled completions with logprobs, or that
// generation is unsupported.
func checkGenerate(t *testing.T, ctx context.Context, caps Caps, newModel func(t *testing.T) llm.Model) {
	m := newModel(t)
	seed := int64(7)
	resp, err := m.Generate(ctx, llm.GenerateRequest{Prompt: "public int size() {", MaxTokens: 5, Temperature: 1,
		Seed: &seed, N: 3, Logprobs: true})
	if !caps.Generate {
		wantUnsupported(t, err)
		return
	}
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	if len(resp.Samples) != 3 {
		t.Fatalf("Generate N=3 gave %d samples", len(resp.Samples))
	}
	for i, s := range resp.Samples {
		checkSample(t, i, s)
	}
	checkMeta(t, resp.Meta)
}

// checkScore checks the tokens, offsets and logprobs of a scored
// continuation, or that scoring is unsupported.
func checkScore(t *testing.T, ctx context.Context, caps Caps, newModel func(t *testing.T) llm.Model) {
	m := newModel(t)
	req := llm.ScoreRequest{Prompt: "for (int i = 0;", Continuation: " i < n; i++) {"}
	resp, err := m.Score(ctx, req)
	if !caps.Score {
		wantUnsupported(t, err)
		return
	}
	if err != nil {
		t.Fatalf("Score: %v", err)
	}
	text := req.Prompt + req.Continuation
	if len(resp.Tokens) == 0 || resp.ContinuationStart <= 0 || resp.ContinuationStart >= len(resp.Tokens) {
		t.Fatalf("Score: %d tokens, continuation at %d; want prompt and continuation tokens", len(resp.Tokens), resp.ContinuationStart)
	}
	checkScoreTokens(t, resp, len(text))
	if lp := resp.ContinuationLogprob(); lp >= 0 {
		t.Errorf("ContinuationLogprob = %v, want < 0", lp)
	}
	checkMeta(t, resp.Meta)
}

// checkEmbed checks two embeddings of one dimension, or that embedding is
// unsupported.
func checkEmbed(t *testing.T, ctx context.Context, caps Caps, newModel func(t *testing.T) llm.Model) {
	m := newModel(t)
	resp, err := m.Embed(ctx, llm.EmbedRequest{Inputs: []string{"int x = 0;", "return null;"}})
	if !caps.Embed {
		wantUnsupported(t, err)
		return
	}
	if err != nil {
		t.Fatalf("Embed: %v", err)
	}
	if len(resp.Vectors) != 2 || len(resp.Vectors[0]) == 0 || len(resp.Vectors[0]) != len(resp.Vectors[1]) {
		t.Fatalf("Embed gave %d vectors of dims %v", len(resp.Vectors), dims(resp.Vectors))
	}
}

// checkCanceled checks that a canceled context stops Chat and Generate.
func checkCanceled(t *testing.T, ctx context.Context, caps Caps, newModel func(t *testing.T) llm.Model) {
	m := newModel(t)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err := m.Chat(cctx, llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "hi"}}})
	if caps.Chat && !errors.Is(err, context.Canceled) {
		t.Errorf("Chat on a canceled context: err = %v, want context.Canceled", err)
	}
	_, err = m.Generate(cctx, llm.GenerateRequest{Prompt: "x", MaxTokens: 1})
	if caps.Generate && !errors.Is(err, context.Canceled) {
		t.Errorf("Generate on a canceled context: err = %v, want context.Canceled", err)
	}
}

// checkScoreTokens checks that the tokens of a text of textLen bytes have
// ordered offsets inside it and that the continuation's have logprobs.
func checkScoreTokens(t *testing.T, resp *llm.ScoreResponse, textLen int) {
	t.Helper()
	prev := -1
	for i, tok := range resp.Tokens {
		if tok.Offset < prev || tok.Offset >= textLen {
			t.Errorf("token %d %+v: offset out of order or outside the %d-byte text", i, tok, textLen)
		}
		prev = tok.Offset
		if i >= resp.ContinuationStart && (!tok.HasLogprob || tok.Logprob > 0) {
			t.Errorf("continuation token %d %+v: want a logprob <= 0", i, tok)
		}
	}
}

// checkSample checks that generated sample i has text and tokens with
// logprobs.
func checkSample(t *testing.T, i int, s llm.Sample) {
	t.Helper()
	if s.Text == "" || len(s.Tokens) == 0 {
		t.Errorf("sample %d = %+v, want text and tokens", i, s)
	}
	for _, tok := range s.Tokens {
		if !tok.HasLogprob || tok.Logprob > 0 {
			t.Errorf("sample %d token %+v: want a logprob <= 0", i, tok)
		}
	}
}

func dims(v [][]float64) []int {
	var d []int
	for _, x := range v {
		d = append(d, len(x))
	}
	return d
}

func checkMeta(t *testing.T, m llm.Meta) {
	t.Helper()
	if m.RequestID == "" {
		t.Errorf("Meta.RequestID is empty")
	}
	if m.Model == "" {
		t.Errorf("Meta.Model (reported model) is empty")
	}
	if m.Usage.PromptTokens <= 0 {
		t.Errorf("Meta.Usage = %+v, want prompt tokens > 0", m.Usage)
	}
}

func wantUnsupported(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, errs.ErrUnsupported) {
		t.Fatalf("err = %v, want errs.ErrUnsupported", err)
	}
	if !strings.Contains(err.Error(), "cannot") {
		t.Errorf("unsupported error %q should say what the model cannot do", err)
	}
}
