package jvm

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/template"

	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// The harness-construction regimes of rxsynth §5.4 / Table 8: what the
// model proposing inputs is shown besides the labelled type.
const (
	// RegimeJudgeFed shows both methods and the production judge's site,
	// line, trigger and explanation: can the judge's account be reproduced?
	RegimeJudgeFed = "judge-fed"
	// RegimeDiffAided shows both methods and their unified diff: the
	// paper's primary arm, independent of the judge.
	RegimeDiffAided = "diff-aided"
	// RegimeMethodsOnly shows only the two methods: the localisation
	// control.
	RegimeMethodsOnly = "methods-only"
)

// Regimes lists the regimes in Table 8's order.
var Regimes = []string{RegimeJudgeFed, RegimeDiffAided, RegimeMethodsOnly}

// HarnessPromptVersion names prompts/harness.tmpl. Change it with any
// edit to the template; every model-built record carries it and the hash.
const HarnessPromptVersion = "harness-v1"

// MaxModelInputs is the most argument vectors one answer may propose;
// later ones are recorded as dropped. Table 8 compares what a builder
// derives, not how widely it searches.
const MaxModelInputs = 5

//go:embed prompts/harness.tmpl
var harnessFS embed.FS

var harnessPrompt = template.Must(template.New("harness.tmpl").Option("missingkey=error").
	Funcs(template.FuncMap{"inc": func(i int) int { return i + 1 }}).ParseFS(harnessFS, "prompts/harness.tmpl"))

// HarnessPromptHash is the sha256 (hex) of the version, the regime and
// the template text: the exact prompt family behind a record.
func HarnessPromptHash(regime string) string {
	b, _ := harnessFS.ReadFile("prompts/harness.tmpl") // embedded and parsed above, so present
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00", HarnessPromptVersion, regime, len(b))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// ModelHarness is what a model-built harness recorded for one pair: the
// regime, the model, the prompt, the raw answer and the inputs read from
// it. Exactly one of NoJudgement, Unparseable or Inputs explains a pair
// that ran nothing.
type ModelHarness struct {
	Regime        string `json:"regime"`
	Model         string `json:"model"`
	PromptVersion string `json:"prompt_version"`
	PromptHash    string `json:"prompt_hash"`
	// NoJudgement says why a judge-fed pair got no model call.
	NoJudgement string `json:"no_judgement,omitempty"`
	Raw         string `json:"raw,omitempty"`
	// Parsed is how the answer was read (answer.JSON, …); Unparseable why
	// it could not be.
	Parsed      string       `json:"parsed,omitempty"`
	Unparseable string       `json:"unparseable,omitempty"`
	Inputs      []ModelInput `json:"inputs,omitempty"`
}

// ModelInput is one proposed argument vector. Dropped says why it did not
// run: wrong arity, not an expression, or javac's message.
type ModelInput struct {
	Args    []string `json:"args"`
	Why     string   `json:"why,omitempty"`
	Dropped string   `json:"dropped,omitempty"`
}

// Reasons of a model-built pair that ran no input.
const (
	ReasonNoJudgement = "no judgement"
	ReasonUnparseable = "unparseable harness answer"
	ReasonDeclined    = "the model proposed no input"
	ReasonAllDropped  = "no proposed input compiles"
)

// idleReason says why a model-built harness has no input to run.
func (m *ModelHarness) idleReason() string {
	switch {
	case m.NoJudgement != "":
		return ReasonNoJudgement + ": " + m.NoJudgement
	case m.Unparseable != "":
		return m.Unparseable // ErrUnparseable's text, then why
	case len(m.Inputs) == 0:
		return ReasonDeclined
	}
	return fmt.Sprintf("%s (%d proposed, all dropped)", ReasonAllDropped, len(m.Inputs))
}

// Builder asks a model for the inputs of one pair under one regime.
type Builder struct {
	model     llm.Model
	regime    string
	judged    map[string]corpus.JudgeRecord
	maxTokens int
}

// NewBuilder returns a builder for regime. judgements (a `synth validate`
// judgements.jsonl) are required by, and only allowed for, judge-fed.
func NewBuilder(m llm.Model, regime string, judgements []corpus.JudgeRecord) (*Builder, error) {
	if err := checkBuilder(m, regime, judgements); err != nil {
		return nil, err
	}
	b := &Builder{model: m, regime: regime, maxTokens: 1024}
	if judgements != nil {
		b.judged = map[string]corpus.JudgeRecord{}
		for _, r := range judgements {
			b.judged[r.PairID] = r // a later record of a pair supersedes
		}
	}
	return b, nil
}

// checkBuilder refuses a missing model, an unknown regime, and
// judgements given to a regime other than judge-fed or missing for it.
func checkBuilder(m llm.Model, regime string, judgements []corpus.JudgeRecord) error {
	switch {
	case m == nil:
		return fmt.Errorf("harness builder: %w: no model", errs.ErrUsage)
	case !slices.Contains(Regimes, regime):
		return fmt.Errorf("harness builder: %w: regime %q is not one of %s", errs.ErrUsage, regime, strings.Join(Regimes, ", "))
	case regime == RegimeJudgeFed && judgements == nil:
		return fmt.Errorf("harness builder: %w: the %s regime needs the judge's records (judgements.jsonl of 'synth validate')", errs.ErrUsage, regime)
	case regime != RegimeJudgeFed && judgements != nil:
		return fmt.Errorf("harness builder: %w: judgements are shown only in the %s regime, not %s", errs.ErrUsage, RegimeJudgeFed, regime)
	}
	return nil
}

// Regime is the builder's regime.
func (b *Builder) Regime() string { return b.regime }

// Model is the builder model's id.
func (b *Builder) Model() string { return b.model.ID() }

// harnessData fills the template.
type harnessData struct {
	Type, Buggy, Fixed, Diff   string
	Site, Trigger, Explanation string
	Line                       int
	Params                     []Param
	Static                     bool
	Max                        int
}

// Build asks the model for p's inputs. A model failure (network, budget,
// cancellation) is an error and no record, so a resumed run asks again;
// an answer that cannot be read is recorded as such.
func (b *Builder) Build(ctx context.Context, p corpus.Pair) (*ModelHarness, error) {
	mh := &ModelHarness{Regime: b.regime, Model: b.model.ID(), PromptVersion: HarnessPromptVersion, PromptHash: HarnessPromptHash(b.regime)}
	sig, err := ParseSignature(p.BuggyMethod)
	if err != nil {
		return mh, nil // the harness reports it as "cannot compile"; nothing to ask
	}
	d := harnessData{Type: p.ErrorType, Buggy: strings.TrimRight(p.BuggyMethod, "\n"), Fixed: strings.TrimRight(p.FixedMethod, "\n"),
		Params: sig.Params, Static: sig.Static, Max: MaxModelInputs}
	switch b.regime {
	case RegimeDiffAided:
		d.Diff = strings.TrimRight(diff.Unified("buggy", "fixed", []byte(p.BuggyMethod), []byte(p.FixedMethod), 3).String(), "\n")
	case RegimeJudgeFed:
		s1, why := b.judgement(p.PairID)
		if s1 == nil {
			mh.NoJudgement = why
			return mh, nil
		}
		d.Site, d.Line, d.Trigger, d.Explanation = s1.ThrowingExpression, s1.Line, s1.Trigger, s1.PatchSummary
	}
	if mh.Raw, err = b.ask(ctx, p.PairID, d); err != nil {
		return nil, err
	}
	if mh.Inputs, mh.Parsed, err = ParseInputs(mh.Raw); err != nil {
		mh.Unparseable = err.Error()
	}
	return mh, nil
}

// ask renders the prompt from d and returns the model's answer text.
func (b *Builder) ask(ctx context.Context, id string, d harnessData) (string, error) {
	var sys, user strings.Builder
	if err := harnessPrompt.ExecuteTemplate(&sys, "system", d); err != nil {
		return "", fmt.Errorf("render harness prompt for %s: %w", id, err)
	}
	if err := harnessPrompt.ExecuteTemplate(&user, "user", d); err != nil {
		return "", fmt.Errorf("render harness prompt for %s: %w", id, err)
	}
	resp, err := b.model.Chat(ctx, llm.ChatRequest{System: sys.String(), Messages: []llm.Message{{Role: "user", Content: user.String()}},
		MaxTokens: b.maxTokens, JSON: true})
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
			err = fmt.Errorf("%w (%w)", ctx.Err(), err)
		}
		return "", fmt.Errorf("harness model %s on %s: %w", b.model.ID(), id, err)
	}
	if len(resp.Choices) == 0 {
		return "", fmt.Errorf("harness model %s on %s: %w: answer has no choices", b.model.ID(), id, errs.ErrUnavailable)
	}
	return resp.Choices[0].Text, nil
}

// judgement returns the judge's Stage 1 localisation of a pair: the
// initial judgement's, else the re-judgement's after a repair (the buggy
// method, and so its site, is the same). nil and why when there is none
// to show.
func (b *Builder) judgement(id string) (*corpus.Stage1, string) {
	r, ok := b.judged[id]
	if !ok {
		return nil, "pair not in the judgements file"
	}
	switch {
	case usableStage1(r.Stage1):
		return &r.Stage1.Stage1, ""
	case r.Repair != nil && usableStage1(r.Repair.Stage1):
		return &r.Repair.Stage1.Stage1, ""
	case r.Stage1 == nil:
		return nil, "the judgement has no stage 1 (rubric " + r.Rubric + ")"
	case r.Stage1.Unparseable != "":
		return nil, "the judge's stage 1 answer was unparseable"
	}
	return nil, "the judge localised no patch-local risk"
}

// usableStage1 reports whether a Stage 1 answer localises a risk the
// prompt can show: parsed, able to throw, with a site or a trigger.
func usableStage1(s *corpus.Stage1Result) bool {
	return s != nil && s.Unparseable == "" && s.CanThrowT && (s.ThrowingExpression != "" || s.Trigger != "")
}
