package judge

import "github.com/benchforge/benchforge/internal/synth/corpus"

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

// The judge's records are the contract types of internal/synth/corpus,
// so the JVM verifier can read them without importing the judge; these
// names keep the judge's callers reading judge.Record.
type (
	Answer       = corpus.Answer
	Stage1       = corpus.Stage1
	Stage2       = corpus.Stage2
	Whole        = corpus.Whole
	Stage1Result = corpus.Stage1Result
	Stage2Result = corpus.Stage2Result
	WholeResult  = corpus.WholeResult
	Repair       = corpus.JudgeRepair
	Record       = corpus.JudgeRecord
)

// Key is the judgement log's record id.
func Key(r Record) string { return r.PairID }
