package judge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// Options configure a Judge.
type Options struct {
	// Rubric is RubricPatch (default) or RubricWhole.
	Rubric string
	// MaxTokens bounds one judge answer; 0 means 1024.
	MaxTokens int
	// RepairMaxTokens bounds the regenerated method; 0 means 4096.
	RepairMaxTokens int
	// Temperature of every call; judges run at 0 by default.
	Temperature float64
	// Now stamps records; nil means time.Now.
	Now func() time.Time
}

// Judge validates pairs with one judge model and, under the patch-anchored
// rubric, an optional repair model for the one fix-only regeneration.
type Judge struct {
	model, repair llm.Model
	opts          Options
}

// New returns a Judge. repair may be nil: Stage 2 failures are then
// excluded without a repair attempt.
func New(model, repair llm.Model, opts Options) (*Judge, error) {
	if model == nil {
		return nil, fmt.Errorf("judge: %w: no judge model", errs.ErrUsage)
	}
	switch opts.Rubric {
	case "":
		opts.Rubric = RubricPatch
	case RubricPatch, RubricWhole:
	default:
		return nil, fmt.Errorf("judge: %w: rubric %q is not %q or %q", errs.ErrUsage, opts.Rubric, RubricPatch, RubricWhole)
	}
	if opts.Rubric == RubricWhole && repair != nil {
		return nil, fmt.Errorf("judge: %w: the repair belongs to the %s rubric; drop the repair model for %s", errs.ErrUsage, RubricPatch, RubricWhole)
	}
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = 1024
	}
	if opts.RepairMaxTokens <= 0 {
		opts.RepairMaxTokens = 4096
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Judge{model: model, repair: repair, opts: opts}, nil
}

// Model is the judge model's id.
func (j *Judge) Model() string { return j.model.ID() }

// Rubric is the rubric the judge applies.
func (j *Judge) Rubric() string { return j.opts.Rubric }

// Judge runs the whole procedure on one pair and returns its record. A
// model error (network, budget, cancellation) is returned as an error and
// no record is produced, so a resumed run judges the pair again; an answer
// that cannot be read is a record with verdict "unparseable".
func (j *Judge) Judge(ctx context.Context, p corpus.Pair) (Record, error) {
	rec := Record{PairID: p.PairID, SampleID: p.SampleID, ErrorType: p.ErrorType, Rubric: j.opts.Rubric,
		Model: j.model.ID(), PromptVersion: PromptVersion, PromptHash: PromptHash(j.opts.Rubric)}
	var err error
	if verr := p.Validate(); verr != nil {
		rec.Initial, rec.Verdict, rec.Category, rec.Reason = Reject, Reject, CatInvalid, verr.Error()
	} else if j.opts.Rubric == RubricWhole {
		err = j.whole(ctx, p, &rec)
	} else {
		err = j.patch(ctx, p, &rec)
	}
	if err != nil {
		return Record{}, fmt.Errorf("judge pair %s: %w", p.PairID, err)
	}
	rec.Time = j.opts.Now().UTC()
	return rec, nil
}

// patch applies the patch-anchored criterion (§5.1) with the one fix-only
// repair of §5.3.
func (j *Judge) patch(ctx context.Context, p corpus.Pair, rec *Record) error {
	s1, s2, err := j.twoStages(ctx, p.ErrorType, p.BuggyMethod, p.FixedMethod)
	if err != nil {
		return err
	}
	rec.Stage1, rec.Stage2 = s1, s2
	if v, cat, why := outcome(s1, s2, ""); v != Reject || cat != CatStage2Reject {
		rec.Initial, rec.Verdict, rec.Category, rec.Reason = v, v, cat, why
		if v == Accept {
			rec.Confidence = minConfidence(s1.Confidence, s2.Confidence)
		}
		return nil
	}
	// Stage 1 confirmed the defect and Stage 2 found the fix inadequate:
	// the pair is eligible for exactly one fix-only regeneration.
	rec.Initial = Reject
	if j.repair == nil {
		rec.Verdict, rec.Category, rec.Reason = Reject, CatStage2Reject, "stage 2: "+nonEmpty(s2.Reason, "the trigger still reaches "+p.ErrorType)
		return nil
	}
	return j.repairPair(ctx, p, s1, s2, rec)
}

// rejudgeCategory renames the rejections of a repaired pair's re-judging.
var rejudgeCategory = map[string]string{CatStage1Reject: CatRejudgeStage1, CatStage2Reject: CatStage2AfterFix}

// repairPair asks the repair model once for a new fixed method, gates it
// and re-judges the repaired pair, whose verdict is the record's.
func (j *Judge) repairPair(ctx context.Context, p corpus.Pair, s1 *Stage1Result, s2 *Stage2Result, rec *Record) error {
	rp := &Repair{Model: j.repair.ID()}
	rec.Repair = rp
	d := promptData{Type: p.ErrorType, Buggy: p.BuggyMethod, Fixed: p.FixedMethod, Site: s1.ThrowingExpression,
		Line: s1.Line, Trigger: s1.Trigger, Reason: nonEmpty(s2.Reason, "(no reason given)")}
	var err error
	if rp.Raw, err = j.ask(ctx, j.repair, promptRepair, d, false, j.opts.RepairMaxTokens); err != nil {
		return fmt.Errorf("repair: %w", err)
	}
	fixed, failure := gateRepair(p.BuggyMethod, rp.Raw)
	if failure != "" {
		rp.GateFailure = failure
		rec.Verdict, rec.Category, rec.Reason = Reject, CatRepairGate, "repair: "+failure
		return nil
	}
	rp.FixedMethod = fixed
	r1, r2, err := j.twoStages(ctx, p.ErrorType, p.BuggyMethod, fixed)
	if err != nil {
		return fmt.Errorf("re-judging the repaired pair: %w", err)
	}
	rp.Stage1, rp.Stage2 = r1, r2
	v, cat, why := outcome(r1, r2, "re-judge ")
	rec.Verdict, rec.Category, rec.Reason = v, cmp.Or(rejudgeCategory[cat], cat), why
	if v == Accept {
		rec.Confidence = minConfidence(r1.Confidence, r2.Confidence)
	}
	return nil
}

// twoStages runs Stage 1 and, when it confirms a patch-local T-risk,
// Stage 2 with its site and trigger. s2 is nil when Stage 2 did not run.
func (j *Judge) twoStages(ctx context.Context, typ, buggy, fixed string) (*Stage1Result, *Stage2Result, error) {
	d := promptData{Type: typ, Buggy: buggy, Fixed: fixed}
	raw, err := j.ask(ctx, j.model, promptStage1, d, true, j.opts.MaxTokens)
	if err != nil {
		return nil, nil, fmt.Errorf("stage 1: %w", err)
	}
	s1 := &Stage1Result{Answer: Answer{Raw: raw}}
	if s1.Stage1, err = ParseStage1(raw); err != nil {
		s1.Unparseable = err.Error()
		return s1, nil, nil
	}
	if !s1.CanThrowT {
		return s1, nil, nil
	}
	d.Site, d.Line, d.Trigger = nonEmpty(s1.ThrowingExpression, "(not given)"), s1.Line, nonEmpty(s1.Trigger, "(not given)")
	if raw, err = j.ask(ctx, j.model, promptStage2, d, true, j.opts.MaxTokens); err != nil {
		return nil, nil, fmt.Errorf("stage 2: %w", err)
	}
	s2 := &Stage2Result{Answer: Answer{Raw: raw}}
	if s2.Stage2, err = ParseStage2(raw); err != nil {
		s2.Unparseable = err.Error()
	}
	return s1, s2, nil
}

// outcome reads the verdict of one two-stage judgement: accept iff Stage 1
// confirms T at the patched site and Stage 2 confirms the fix removes it.
// A Stage 2 rejection comes back as (Reject, CatStage2Reject).
func outcome(s1 *Stage1Result, s2 *Stage2Result, prefix string) (verdict, category, reason string) {
	switch {
	case s1.Unparseable != "":
		return Unparseable, CatUnparseable, prefix + "stage 1: " + s1.Unparseable
	case !s1.CanThrowT:
		return Reject, CatStage1Reject, prefix + "stage 1: no patch-local risk of the label" + summary(s1.PatchSummary)
	case s2 == nil: // cannot happen after a confirming Stage 1
		return Unparseable, CatUnparseable, prefix + "stage 2: no answer"
	case s2.Unparseable != "":
		return Unparseable, CatUnparseable, prefix + "stage 2: " + s2.Unparseable
	case s2.StillReachesT:
		return Reject, CatStage2Reject, prefix + "stage 2: " + nonEmpty(s2.Reason, "the trigger still reaches the label at the site")
	}
	return Accept, "", ""
}

// whole applies the whole-method rubric (§5.2): accept iff the buggy method
// can throw T anywhere and the fixed method cannot.
func (j *Judge) whole(ctx context.Context, p corpus.Pair, rec *Record) error {
	raw, err := j.ask(ctx, j.model, promptWhole, promptData{Type: p.ErrorType, Buggy: p.BuggyMethod, Fixed: p.FixedMethod}, true, j.opts.MaxTokens)
	if err != nil {
		return fmt.Errorf("whole-method: %w", err)
	}
	w := &WholeResult{Answer: Answer{Raw: raw}}
	rec.Whole = w
	if w.Whole, err = ParseWhole(raw); err != nil {
		w.Unparseable = err.Error()
		rec.Initial, rec.Verdict, rec.Category, rec.Reason = Unparseable, Unparseable, CatUnparseable, "whole-method: "+w.Unparseable
		return nil
	}
	if w.BuggyCanThrowT && !w.FixedCanThrowT {
		rec.Initial, rec.Verdict = Accept, Accept
		rec.Confidence = minConfidence(w.Confidence, nil)
		return nil
	}
	why := "fixed method can still throw " + p.ErrorType
	if !w.BuggyCanThrowT {
		why = "buggy method cannot throw " + p.ErrorType
	}
	rec.Initial, rec.Verdict, rec.Category, rec.Reason = Reject, Reject, CatWholeReject, "whole-method: "+why+summary(w.Reason)
	return nil
}

// ask renders a prompt, calls m once and returns the first answer's text.
func (j *Judge) ask(ctx context.Context, m llm.Model, name string, d promptData, asJSON bool, maxTokens int) (string, error) {
	sys, user, err := render(name, d)
	if err != nil {
		return "", err
	}
	resp, err := m.Chat(ctx, llm.ChatRequest{System: sys, Messages: []llm.Message{{Role: "user", Content: user}},
		MaxTokens: maxTokens, Temperature: j.opts.Temperature, JSON: asJSON})
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
			err = fmt.Errorf("%w (%w)", ctx.Err(), err)
		}
		return "", fmt.Errorf("%s: %w", m.ID(), err)
	}
	if len(resp.Choices) == 0 {
		return "", fmt.Errorf("%s: %w: answer has no choices", m.ID(), errs.ErrUnavailable)
	}
	return resp.Choices[0].Text, nil
}

func minConfidence(a, b *float64) float64 {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return *b
	case b == nil:
		return *a
	}
	return min(*a, *b)
}

func nonEmpty(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}

func summary(s string) string {
	if s == "" {
		return ""
	}
	return " (" + clip(s, 300) + ")"
}
