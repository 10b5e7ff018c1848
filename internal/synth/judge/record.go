package judge

import "time"

// Rubrics.
const (
	// RubricPatch is the patch-anchored criterion of §5.1, with the one
	// fix-only repair of §5.3.
	RubricPatch = "patch-anchored"
	// RubricWhole asks whether the buggy method as a whole can throw T and
	// the fixed method as a whole cannot (§5.2's existential rubric), for
	// comparison only: no repair.
	RubricWhole = "whole-method"
)

// Verdicts.
const (
	Accept      = "accept"
	Reject      = "reject"
	Unparseable = "unparseable"
)

// Exclusion categories (excluded.jsonl). Stage 1 failures are permanent;
// only a Stage 2 failure is eligible for repair (§5.3).
const (
	CatStage1Reject   = "stage1_reject"              // buggy method does not throw T at the patched site
	CatStage2Reject   = "stage2_reject"              // fix inadequate and no repair model was given
	CatRepairGate     = "repair_failed_gate"         // regenerated fix is not one method with the buggy signature
	CatStage2AfterFix = "stage2_reject_after_repair" // re-judged repaired pair: the trigger still reaches T
	CatRejudgeStage1  = "stage1_reject_after_repair" // re-judged repaired pair: Stage 1 no longer confirms
	CatUnparseable    = "unparseable"                // a judge answer could not be read (stage in the reason)
	CatWholeReject    = "whole_method_reject"        // whole-method rubric rejected the pair
	CatInvalid        = "invalid_pair"               // the candidate record itself is unusable; not judged
)

// Categories lists the exclusion categories in pipeline order, for tables.
var Categories = []string{CatInvalid, CatStage1Reject, CatStage2Reject, CatRepairGate, CatRejudgeStage1, CatStage2AfterFix, CatUnparseable, CatWholeReject}

// Answer is one model answer: the raw text always, and the parse error when
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

// Repair is the one fix-only regeneration of a pair Stage 2 rejected, its
// gate, and the single re-judgement of the repaired pair (§5.3).
type Repair struct {
	Model       string        `json:"model"`
	Raw         string        `json:"raw"`
	FixedMethod string        `json:"fixed_method,omitempty"`
	GateFailure string        `json:"gate_failure,omitempty"`
	Stage1      *Stage1Result `json:"stage1,omitempty"`
	Stage2      *Stage2Result `json:"stage2,omitempty"`
}

// Record is one line of judgements.jsonl: everything one validation pass
// decided about one pair, keyed by pair id.
type Record struct {
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
	Repair *Repair       `json:"repair,omitempty"`

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

// Key is the judgement log's record id.
func Key(r Record) string { return r.PairID }
