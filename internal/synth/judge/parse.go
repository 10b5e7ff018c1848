package judge

import (
	"errors"
	"fmt"

	"github.com/benchforge/benchforge/internal/llm/answer"
)

// ErrUnparseable marks a judge answer from which the decisive field could
// not be read. Such an answer is recorded as "unparseable" with its raw
// text; it is never guessed (§5.1, Table 6 note a).
var ErrUnparseable = errors.New("unparseable judge answer")

// How an answer was read, from strictest to most tolerant.
const (
	ParsedJSON     = answer.JSON     // the whole answer is one JSON object
	ParsedFenced   = answer.Fenced   // a JSON object in a fenced code block
	ParsedEmbedded = answer.Embedded // a JSON object inside prose (e.g. trailing text)
	ParsedLines    = answer.Lines    // "key: value" lines
	ParsedYesNo    = answer.YesNo    // a bare yes/no answer to a one-question stage
)

// ParseStage1 reads a Stage 1 answer. The decisive field is can_throw_T; a
// bare yes/no answer is accepted for it. Errors wrap ErrUnparseable.
func ParseStage1(text string) (Stage1, error) {
	f, how, err := readFields(text, []string{"canthrowt", "canthrow"}, true)
	if err != nil {
		return Stage1{}, err
	}
	s := Stage1{Parsed: how}
	s.CanThrowT, err = boolean(f, "canthrowt", "canthrow")
	if err != nil {
		return Stage1{}, err
	}
	s.PatchSummary = f.Text("patchsummary", "summary")
	s.ThrowingExpression = f.Text("throwingexpression", "expression", "site")
	s.Trigger = f.Text("trigger")
	s.Line = f.Int("line", "linenumber")
	s.Confidence = confidence(f)
	return s, nil
}

// ParseStage2 reads a Stage 2 answer. The decisive field is
// still_reaches_T; a bare yes/no answer is accepted for it.
func ParseStage2(text string) (Stage2, error) {
	f, how, err := readFields(text, []string{"stillreachest", "stillreaches"}, true)
	if err != nil {
		return Stage2{}, err
	}
	s := Stage2{Parsed: how}
	if s.StillReachesT, err = boolean(f, "stillreachest", "stillreaches"); err != nil {
		return Stage2{}, err
	}
	s.Reason = f.Text("reason", "explanation")
	s.Confidence = confidence(f)
	return s, nil
}

// ParseWhole reads a whole-method answer. It asks two questions, so a bare
// yes/no cannot answer it: both booleans must be present.
func ParseWhole(text string) (Whole, error) {
	f, how, err := readFields(text, []string{"buggycanthrowt", "fixedcanthrowt"}, false)
	if err != nil {
		return Whole{}, err
	}
	w := Whole{Parsed: how}
	if w.BuggyCanThrowT, err = boolean(f, "buggycanthrowt", "buggycanthrow"); err != nil {
		return Whole{}, err
	}
	if w.FixedCanThrowT, err = boolean(f, "fixedcanthrowt", "fixedcanthrow"); err != nil {
		return Whole{}, err
	}
	w.Reason = f.Text("reason", "explanation")
	w.Confidence = confidence(f)
	return w, nil
}

// display names the decisive keys in errors as the prompts spell them.
var display = map[string]string{"canthrowt": "can_throw_T", "stillreachest": "still_reaches_T",
	"buggycanthrowt": "buggy_can_throw_T", "fixedcanthrowt": "fixed_can_throw_T"}

func shown(k string) string {
	if d, ok := display[k]; ok {
		return d
	}
	return k
}

// boolean reads a decisive yes/no field: a JSON boolean, or a string whose
// first word is true/false/yes/no/y/n. Anything else is unparseable.
func boolean(f answer.Fields, keys ...string) (bool, error) {
	v, ok := f.Get(keys...)
	if !ok {
		return false, fmt.Errorf("%w: no %q field", ErrUnparseable, shown(keys[0]))
	}
	if b, ok := answer.Bool(v, answer.FirstYesNo); ok {
		return b, nil
	}
	if x, ok := v.(string); ok {
		return false, fmt.Errorf("%w: field %q is %q, not a yes/no value", ErrUnparseable, shown(keys[0]), clip(x, 40))
	}
	return false, fmt.Errorf("%w: field %q is %v, not a boolean", ErrUnparseable, shown(keys[0]), v)
}

// verbalConfidence reads the words some judge models give instead of a
// number; the probes do not take them (see evaluate's confidence).
var verbalConfidence = map[string]float64{"high": 0.9, "medium": 0.6, "moderate": 0.6, "low": 0.3}

func confidence(f answer.Fields) *float64 {
	return f.Confidence(verbalConfidence, "confidence", "conf")
}

// readFields finds the answer's fields, trying in order: the whole text as
// JSON, fenced JSON blocks (also a JSON object in prose inside one), JSON
// objects embedded in prose, "key: value" lines and — when allowYesNo — a
// bare yes/no first word. A candidate source is used only if it holds one
// of the decisive keys.
func readFields(text string, decisive []string, allowYesNo bool) (answer.Fields, string, error) {
	text, err := answer.Clean(text)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrUnparseable, err)
	}
	r := answer.Reader{Decisive: decisive, Fences: answer.FencedBodies, FenceProse: true, BareYesNo: allowYesNo}
	if f, how := r.Read(text); how != "" {
		return f, how, nil
	}
	return nil, "", fmt.Errorf("%w: no JSON object or key: value lines with %q in %q", ErrUnparseable, shown(decisive[0]), clip(text, 80))
}

// clip is answer.Clip under the name the judge's messages (and tests) use.
func clip(s string, n int) string { return answer.Clip(s, n) }
