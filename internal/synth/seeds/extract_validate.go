package seeds

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// LLMValidator is filter F5 (rxsynth §3.2) through a chat model: the model
// is asked, with a JSON-schema-constrained answer, whether (i) the buggy
// method contains code that could directly cause the labelled exception at
// runtime and (ii) the fix specifically addresses that cause; Extract
// accepts at confidence ≥ MinConfidence. Temperature is 0 so that cached
// answers reproduce.
type LLMValidator struct {
	Model     llm.Model
	MaxTokens int // 0 means 512
}

const validateSystem = `You validate real Java bug/fix pairs mined from bug benchmarks.
Answer with one JSON object {"causes": bool, "fix_addresses": bool, "confidence": number in [0,1], "reason": string}.
"causes": the BUGGY method contains code that could directly throw the labelled exception at runtime.
"fix_addresses": the FIXED method specifically removes or guards that cause (not an unrelated change, and not merely adding a new throw of the exception).
"confidence": your confidence that both hold.`

var validateSchema = json.RawMessage(`{"type":"object","properties":{` +
	`"causes":{"type":"boolean"},"fix_addresses":{"type":"boolean"},` +
	`"confidence":{"type":"number"},"reason":{"type":"string"}},` +
	`"required":["causes","fix_addresses","confidence","reason"],"additionalProperties":false}`)

// Validate implements Validator.
func (v LLMValidator) Validate(ctx context.Context, s corpus.Seed) (Validation, error) {
	if v.Model == nil {
		return Validation{}, fmt.Errorf("seeds.LLMValidator(%s): %w: no model", s.BugID, errs.ErrUsage)
	}
	max := v.MaxTokens
	if max == 0 {
		max = 512
	}
	prompt := fmt.Sprintf("Labelled exception: %s\n\nBUGGY method:\n```java\n%s\n```\n\nFIXED method:\n```java\n%s\n```\n\nUnified diff:\n```diff\n%s```\n",
		s.Exception, s.BuggyMethod, s.FixedMethod, s.Diff)
	resp, err := v.Model.Chat(ctx, llm.ChatRequest{System: validateSystem, Messages: []llm.Message{{Role: "user", Content: prompt}},
		MaxTokens: max, Temperature: 0, JSON: true, Schema: validateSchema, SchemaName: "seed_validation"})
	if err != nil {
		return Validation{}, fmt.Errorf("seeds.LLMValidator(%s) with %s: %w", s.BugID, v.Model.ID(), err)
	}
	if len(resp.Choices) == 0 {
		return Validation{}, fmt.Errorf("seeds.LLMValidator(%s) with %s: %w: no answer", s.BugID, v.Model.ID(), errs.ErrUnavailable)
	}
	return parseValidation(resp.Choices[0].Text)
}

func parseValidation(text string) (Validation, error) {
	t := strings.TrimSpace(text)
	t = strings.TrimPrefix(strings.TrimPrefix(t, "```json"), "```")
	t = strings.TrimSpace(strings.TrimSuffix(t, "```"))
	var a struct {
		Causes       *bool    `json:"causes"`
		FixAddresses *bool    `json:"fix_addresses"`
		Confidence   *float64 `json:"confidence"`
		Reason       string   `json:"reason"`
	}
	if err := json.Unmarshal([]byte(t), &a); err != nil {
		return Validation{}, fmt.Errorf("validator answer is not the JSON object asked for: %w: %v (answer %q)", errs.ErrInput, err, snippet(text))
	}
	if a.Causes == nil || a.FixAddresses == nil || a.Confidence == nil {
		return Validation{}, fmt.Errorf("validator answer lacks causes, fix_addresses or confidence: %w (answer %q)", errs.ErrInput, snippet(text))
	}
	if *a.Confidence < 0 || *a.Confidence > 1 {
		return Validation{}, fmt.Errorf("validator confidence %v outside [0,1]: %w", *a.Confidence, errs.ErrInput)
	}
	return Validation{Accept: *a.Causes && *a.FixAddresses, Confidence: *a.Confidence, Reason: a.Reason}, nil
}

func snippet(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
