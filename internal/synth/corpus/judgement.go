package corpus

import "time"

// The judge's records (judgements.jsonl, rxsynth §5) live here, not in
// internal/synth/judge, because later stages read them — the JVM
// verifier's judge-fed regime shows a judge's Stage 1 localisation — and
// the verifier must stay independent of the judge's code. The judge names
// them too (judge.Record is JudgeRecord). Verdict, category and rubric
// values are the judge's constants.

// Stage1 is the parsed Stage 1 answer (§5.1): the patch summary, whether
// the buggy method can throw T at the patched location, and if so where
// and on which concrete trigger.
type Stage1 struct {
	PatchSummary       string   `json:"patch_summary,omitempty"`
	CanThrowT          bool     `json:"can_throw_T"`
	ThrowingExpression string   `json:"throwing_expression,omitempty"`
	Line               int      `json:"line,omitempty"`
	Trigger            string   `json:"trigger,omitempty"`
	Confidence         *float64 `json:"confidence,omitempty"`
	Parsed             string   `json:"parsed"`
}

// Stage2 is the parsed Stage 2 answer: whether the Stage 1 trigger still
// reaches T at the Stage 1 site in the fixed method.
type Stage2 struct {
	StillReachesT bool     `json:"still_reaches_T"`
	Reason        string   `json:"reason,omitempty"`
	Confidence    *float64 `json:"confidence,omitempty"`
	Parsed        string   `json:"parsed"`
}

// Whole is the parsed answer under the whole-method rubric (§5.2): can the
// buggy method throw T anywhere, and can the fixed method.
type Whole struct {
	BuggyCanThrowT bool     `json:"buggy_can_throw_T"`
	FixedCanThrowT bool     `json:"fixed_can_throw_T"`
	Reason         string   `json:"reason,omitempty"`
	Confidence     *float64 `json:"confidence,omitempty"`
	Parsed         string   `json:"parsed"`
}

// Answer is one judge-model answer: the raw text always, and the parse error when
// it could not be read.
type Answer struct {
	Raw         string `json:"raw"`
	Unparseable string `json:"unparseable,omitempty"`
}

// Stage1Result is a Stage 1 call and its reading.
type Stage1Result struct {
	Answer
	Stage1
}

// Stage2Result is a Stage 2 call and its reading.
type Stage2Result struct {
	Answer
	Stage2
}

// WholeResult is a whole-method call and its reading.
type WholeResult struct {
	Answer
	Whole
}

// JudgeRepair is the one fix-only regeneration of a pair Stage 2 rejected, its
// gate, and the single re-judgement of the repaired pair (§5.3).
type JudgeRepair struct {
	Model       string        `json:"model"`
	Raw         string        `json:"raw"`
	FixedMethod string        `json:"fixed_method,omitempty"`
	GateFailure string        `json:"gate_failure,omitempty"`
	Stage1      *Stage1Result `json:"stage1,omitempty"`
	Stage2      *Stage2Result `json:"stage2,omitempty"`
}

// JudgeRecord is one line of judgements.jsonl: everything one validation pass
// decided about one pair, keyed by pair id.
type JudgeRecord struct {
	PairID        string `json:"pair_id"`
	SampleID      string `json:"sample_id,omitempty"`
	ErrorType     string `json:"error_type"`
	Rubric        string `json:"rubric"`
	Model         string `json:"model"`
	PromptVersion string `json:"prompt_version"`
	PromptHash    string `json:"prompt_hash"`

	Stage1 *Stage1Result `json:"stage1,omitempty"`
	Stage2 *Stage2Result `json:"stage2,omitempty"`
	Whole  *WholeResult  `json:"whole,omitempty"`
	Repair *JudgeRepair  `json:"repair,omitempty"`

	// Initial is the verdict on the pair as submitted (before any repair):
	// what agreement between judges is computed on (Tables 5 and 6).
	Initial string `json:"initial"`
	// Verdict is the final verdict, after the repair when there was one.
	Verdict  string `json:"verdict"`
	Category string `json:"category,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// Confidence is the accepting judgement's confidence: the smaller of
	// the two stage confidences the model gave (the weaker link), the one
	// given when only one was, 0 when none was.
	Confidence float64   `json:"confidence"`
	Time       time.Time `json:"time"`
}
