package patchcheck

import "context"

// lineChain is one added fix line followed statement by statement along a
// walk (CodeTracker's statement tracking, Jodavi & Tsantalis FSE 2022;
// issue 13 item 2): at each state of the tracked function its descendant
// is the line that continues it — the same text anywhere in the tracked
// scope (unchanged, or moved within it), else its closest counterpart when
// that is within the threshold (modified: the new text is kept). A step
// further than the threshold, or one back to the buggy line, ends the
// chain. Years of small edits (a parameter type, `final`, a renamed
// local, a wrapped call) each stay within the threshold while the sum of
// them drifts far from the fix's text; one jump from the fix to the
// snapshot sees only the sum.
type lineChain struct {
	text  string  // the descendant's text in this state
	score float64 // the weakest step so far
	alive bool
	kind  string // unchanged | modified | reverted | rewritten
	// at is the commit of the last step that changed the line (the landing
	// commit when none did), for `git show`.
	at string
}

// chainStep carries the chains of the previous state (scope version
// was) into the state whose block evaluation is b, on scope version sv
// (the state's function texts). prev is nil at the landing state. Weak
// lines (break;, return null;) have no chain: they are judged with their
// neighbours, never alone.
func (c *Checker) chainStep(ctx context.Context, tb *trackedBlock, prev []lineChain, was, sv *version, b Block, commit string) ([]lineChain, error) {
	if tb.pb.kind != "added" || len(b.MatchedLines) != len(tb.pb.adds) {
		return nil, nil
	}
	out := make([]lineChain, len(b.MatchedLines))
	sc := newLines(was, sv)
	for j, ml := range b.MatchedLines {
		if weakLine(ml.Patch) {
			continue
		}
		var err error
		if out[j], err = c.chainLine(ctx, tb, prev, j, ml, sc, commit); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// chainLine is the chain of the j-th added line in the state at commit,
// whose one-jump match is ml: the previous chain continued in sc, unless
// ml itself matches at least as well.
func (c *Checker) chainLine(ctx context.Context, tb *trackedBlock, prev []lineChain, j int, ml MatchedLine, sc scope, commit string) (lineChain, error) {
	direct := lineChain{text: ml.Snapshot, score: ml.Similarity, alive: ml.Similarity >= c.opts.threshold() && !ml.Reverted, kind: "unchanged", at: commit}
	if prev == nil || !prev[j].alive {
		// The landing state, or a chain that ended: the line's own match
		// starts (or restarts: a fix re-applied) the chain.
		return direct, nil
	}
	next, err := c.continueLine(ctx, prev[j], tb.buggyOf(j), sc)
	if err != nil {
		return lineChain{}, err
	}
	if next.at = prev[j].at; next.kind != "unchanged" {
		next.at = commit
	}
	if direct.alive && direct.score >= next.score {
		next = direct
	}
	return next, nil
}

// newLines is the scope of sv whose lines can continue a chain: all of
// them for an unchanged line, but as a modified line's counterpart only
// the lines this state added (a line the previous state already had is
// some other line's descendant, as the one-jump match keeps the fixed
// version's own lines from counting: otherwise a fix line that was
// deleted would continue into the untouched line beside it).
func newLines(was, sv *version) scope {
	sc := scope{snap: sv, via: "function", lines: sv.funcLines(-1), avail: map[string]int{}}
	for _, li := range sc.lines {
		sc.avail[sv.lines[li].text]++
	}
	if was != nil {
		for _, l := range was.lines {
			sc.avail[l.text]--
		}
	}
	return sc
}

// continueLine finds line p's descendant in scope sc.
func (c *Checker) continueLine(ctx context.Context, p lineChain, buggy string, sc scope) (lineChain, error) {
	// Unchanged (or moved within the scope) unless this state has fewer
	// copies of the text than the last: then one of them was deleted, and
	// which one is unknown.
	for _, li := range sc.lines {
		if sc.snap.lines[li].text == p.text && sc.avail[p.text] >= 0 {
			return lineChain{text: p.text, score: p.score, alive: true, kind: "unchanged"}, nil
		}
	}
	ml, _, err := c.matchPresent(ctx, p.text, buggy, "added", sc, -1)
	if err != nil {
		return lineChain{}, err
	}
	switch {
	case ml.Reverted || (buggy != "" && ml.Snapshot == buggy):
		return lineChain{text: ml.Snapshot, kind: "reverted"}, nil
	case ml.Similarity < c.opts.threshold():
		return lineChain{text: p.text, score: ml.Similarity, kind: "rewritten"}, nil
	}
	return lineChain{text: ml.Snapshot, score: min(p.score, ml.Similarity), alive: true, kind: "modified"}, nil
}

// buggyOf is the buggy line the j-th added line of tb's block replaced
// ("" when it replaced none).
func (tb *trackedBlock) buggyOf(j int) string {
	if d, ok := tb.pb.pair[tb.pb.adds[j]]; ok {
		return tb.fw.bug.lines[d].text
	}
	return ""
}

// applyChains raises each line of b whose chain is alive and scores better
// than its one-jump match to the chain's score, and recomputes the block's
// similarity (its weakest line, as in matchBlock). snap, when not nil, is
// the file the evidence line numbers come from.
func (c *Checker) applyChains(b *Block, chains []lineChain, snap *version) {
	if len(chains) != len(b.MatchedLines) || b.Kind != "added" {
		return
	}
	score := 1.0
	for j := range b.MatchedLines {
		ml, ch := &b.MatchedLines[j], chains[j]
		if ch.alive && ch.score > ml.Similarity {
			ml.Snapshot, ml.Similarity, ml.Via, ml.Reverted = ch.text, round(ch.score), "tracked-"+ch.kind, false
			ml.TrackedAt = ch.at
			ml.Line = lineOf(snap, ch.text)
		}
		score = min(score, ml.Similarity)
	}
	c.setScore(b, score)
}

// lineOf is the first line of v with text, or 0.
func lineOf(v *version, text string) int {
	if v == nil {
		return 0
	}
	for _, l := range v.lines {
		if l.text == text {
			return l.start
		}
	}
	return 0
}
