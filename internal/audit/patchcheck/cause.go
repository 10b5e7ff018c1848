package patchcheck

// Cause is why a verdict came out as it did, typed so that callers count
// and group verdicts without parsing Reason (which is prose for people).
type Cause string

// The causes, by verdict.
const (
	// present
	CauseVerbatim Cause = "verbatim" // every line occurs as it is (normalised)
	CauseSimilar  Cause = "similar"  // every line has a counterpart ≥ threshold
	CauseTests    Cause = "tests"    // the tests pass with the snapshot's code
	// absent
	CauseNotMerged     Cause = "not-merged"         // the fix landed after the snapshot
	CauseLinesMissing  Cause = "lines-missing"      // a block's lines are below the threshold
	CauseReverted      Cause = "reverted"           // a line is back to its buggy text
	CauseFileGone      Cause = "file-gone"          // the patched file is not in the snapshot
	CauseFunctionGone  Cause = "function-gone"      // the patched function is not in the snapshot
	CauseDeletedKept   Cause = "deleted-logic-kept" // a deletion's lines are still there, or its context is not
	CauseNoLogicChange Cause = "no-logic-change"    // not_applicable: formatting, comments or imports only
	CauseNoSource      Cause = "no-source"          // not_applicable: only tests, docs or build files
	// unknown
	CauseNoClone    Cause = "no-clone"    // no local clone of the repository
	CauseNoSnapshot Cause = "no-snapshot" // no commit before the cutoff, or no default branch
	CauseBadPatch   Cause = "bad-patch"   // the gold patch does not parse or has no text hunks
	CauseUnreadable Cause = "unreadable"  // a commit or file is missing from the clone
)

// causeLabels are the short phrases a summary groups unknown verdicts by.
var causeLabels = map[Cause]string{
	CauseNoClone:    "no local clone",
	CauseNoSnapshot: "no commit before the cutoff",
	CauseBadPatch:   "gold patch does not parse",
	CauseUnreadable: "commit or file missing from the clone",
}

// Label is the short phrase for c in a summary ("" for none).
func (c Cause) Label() string {
	if l, ok := causeLabels[c]; ok {
		return l
	}
	return string(c)
}
