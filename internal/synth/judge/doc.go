// Package judge owns the semantic validation of synthetic bug/fix pairs
// (rxsynth §5.1–§5.3): the two-stage patch-anchored judge, its one fix-only
// repair, the append-only judgement log, the core/excluded partitions with
// their release flags (§8.1), the per-type validation and repair table
// (Table 7), and agreement between judges (Tables 5 and 6).
//
// Criterion (§5.1). A pair labelled T is accepted iff
//
//   - Stage 1 (buggy method, fixed method, T) answers can_throw_T = true:
//     the buggy method can throw T at the location the patch changes, with
//     the throwing expression, its line and a concrete trigger (argument
//     values or object state) — unrelated T-risks elsewhere do not count;
//   - Stage 2 (the Stage 1 site and trigger, both methods) answers
//     still_reaches_T = false: the same trigger no longer reaches T at that
//     site in the fixed method (another path to T elsewhere does not count).
//
// Both prompts assume single-threaded execution, no reflection and no
// caller-side validation. They live in prompts/*.tmpl (embedded), versioned
// by PromptVersion; every record carries PromptHash.
//
// Repair (§5.3). A Stage 1 failure rejects the pair for good. A Stage 2
// failure gets exactly one regeneration of the fixed method by the repair
// model, given the site, trigger and Stage 2 reason (the buggy method is
// unchanged). The regenerated method must parse as one method with the
// buggy method's signature and differ from it (the gate), and the repaired
// pair is judged once more, both stages; there is no second attempt.
//
// Answers. JSON is requested; ParseStage1, ParseStage2 and ParseWhole also
// read fenced JSON, JSON followed or preceded by prose, "key: value" lines
// and (for the one-question stages) a bare Yes/No. An answer whose decisive
// field cannot be read is recorded as "unparseable" with its raw text and
// the pair is excluded under that category: it is never guessed.
//
// Records. judgements.jsonl holds one Record per pair, keyed by pair id and
// appended as soon as the pair is decided (internal/jsonl), so a killed run
// resumes without judging a pair twice. The model calls themselves go
// through an llm.Session cache, so rerunning a pass into a fresh directory
// costs nothing. The whole-method rubric (RubricWhole, §5.2: can the buggy
// method throw T anywhere and can the fixed one not) is there to compare
// with; it has no repair.
//
// Release flags (§8.1): ise_low_confidence on accepted IllegalStateException
// pairs whose confidence is at most the threshold (default 1: all of them,
// as the paper flags all 405; see DefaultISEMaxConfidence), and
// fix_introduces_label where the fixed method has more explicit
// `throw new T(...)` than the buggy one.
package judge
