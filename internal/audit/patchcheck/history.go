package patchcheck

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/benchforge/benchforge/internal/audit/track"
	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/gitrepo"
)

// History is a verdict's history chain: where the fix landed, what
// happened to each block's function on the way to the snapshot, and when
// the fix was present (benchchecker §3.4 asks whether the patch persists;
// the timeline says from when to when).
type History struct {
	Landed   string         `json:"landed,omitempty"`
	LandedAt string         `json:"landed_at,omitempty"`
	Via      string         `json:"via"`
	Note     string         `json:"note,omitempty"`
	Blocks   []BlockHistory `json:"blocks,omitempty"`
	Timeline []Interval     `json:"timeline"`
}

// BlockHistory is one block's chain of steps (up to this verdict's
// snapshot) and its presence timeline.
type BlockHistory struct {
	File     string       `json:"file"`
	Function string       `json:"function,omitempty"`
	Chain    []track.Step `json:"chain"`
	Timeline []Interval   `json:"timeline"`
}

// Interval is a stretch of the first-parent chain during which the fix
// (or a block of it) is present: from commit From until commit To ended it
// (To "" when it lasts to the last snapshot checked), and why.
type Interval struct {
	From     string `json:"from"`
	FromDate string `json:"from_date"`
	To       string `json:"to,omitempty"`
	ToDate   string `json:"to_date,omitempty"`
	EndedBy  string `json:"ended_by,omitempty"`
}

// trackedBlock is one block's walk: its states and the block evaluated at
// the first commit of each.
type trackedBlock struct {
	fw     *fileWork
	pb     *pblock
	states []track.State
	evals  []Block
	// chains are the block's added lines followed statement by statement,
	// per state (nil where the walk lost the function).
	chains [][]lineChain
}

// CheckAll decides sample s at every snapshot of snaps (commits of the
// default branch's first-parent chain) in one pass: the fix is anchored
// in the history, each block's function is followed commit by commit to
// the latest snapshot, and each block is scored once per state of its
// walk; a snapshot's verdict reads the states in force there. With
// Options.NoHistory every snapshot is decided by Check (one jump).
func (c *Checker) CheckAll(ctx context.Context, s bench.Sample, repo *gitrepo.Repo, snaps []gitrepo.Commit) ([]Verdict, error) {
	return c.checkAll(ctx, s, repo, snaps, nil)
}

// checkAll is CheckAll for item sl of a run (nil: alone), which prepares
// the run's next samples while the history is still loading.
func (c *Checker) checkAll(ctx context.Context, s bench.Sample, repo *gitrepo.Repo, snaps []gitrepo.Commit, sl *aheadSlot) ([]Verdict, error) {
	if c.opts.NoHistory || repo == nil {
		return c.each(ctx, s, repo, snaps)
	}
	v0 := c.blank(s)
	files, v, done := sl.prepare(ctx, c, s, repo)
	if done {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return repeat(v, snaps), nil
	}
	tip, err := c.tip(ctx, repo)
	if err != nil {
		return c.unknownAll(ctx, v0, snaps, CauseNoSnapshot, fmt.Sprintf("default branch of %s: %v", s.Repo, err))
	}
	for !c.tr.Loaded(repo, tip) && sl.prepareNext(ctx, c, s) {
		// Each turn prepares one later sample while the log is read.
	}
	h, err := c.tr.History(ctx, repo, tip)
	if err != nil {
		return c.unknownAll(ctx, v0, snaps, CauseUnreadable, err.Error())
	}
	an, err := c.anchor(ctx, s, repo, h, files)
	if err != nil {
		return c.unknownAll(ctx, v0, snaps, CauseUnreadable, err.Error())
	}
	if an.Index < 0 {
		return c.unanchored(ctx, s, repo, snaps, an, v0)
	}
	return c.tracked(ctx, s, repo, h, an, files, v0, snaps)
}

// blank is s's verdict before any check.
func (c *Checker) blank(s bench.Sample) Verdict {
	return Verdict{SampleID: s.ID, Repo: s.Repo, Threshold: c.opts.threshold(), Blocks: []Block{}}
}

// unanchored decides the snapshots of a sample whose fix was not found in
// the history: by one jump from the base commit when the sample has no
// fix commit, else absent (not merged).
func (c *Checker) unanchored(ctx context.Context, s bench.Sample, repo *gitrepo.Repo, snaps []gitrepo.Commit, an track.Anchor, v0 Verdict) ([]Verdict, error) {
	if s.FixCommit != "" {
		return absentAll(v0, snaps, "fix not merged before the cutoff: "+an.Reason, an), nil
	}
	// The gold patch never landed verbatim upstream: judge it by one jump
	// from the base commit, and say so.
	vs, err := c.each(ctx, s, repo, snaps)
	for i := range vs {
		vs[i].History = &History{Via: "one-jump", Note: an.Reason + "; decided by one jump from the base commit", Timeline: []Interval{}}
	}
	return vs, err
}

// each decides every snapshot by Check.
func (c *Checker) each(ctx context.Context, s bench.Sample, repo *gitrepo.Repo, snaps []gitrepo.Commit) ([]Verdict, error) {
	out := make([]Verdict, 0, len(snaps))
	for _, sn := range snaps {
		v, err := c.Check(ctx, s, repo, sn)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func repeat(v Verdict, snaps []gitrepo.Commit) []Verdict {
	out := make([]Verdict, len(snaps))
	for i, sn := range snaps {
		out[i] = v
		out[i].SnapshotCommit = sn.Hash
	}
	return out
}

func (c *Checker) unknownAll(ctx context.Context, v Verdict, snaps []gitrepo.Commit, cause Cause, reason string) ([]Verdict, error) {
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return repeat(unknown(v, cause, reason), snaps), nil
}

func absentAll(v Verdict, snaps []gitrepo.Commit, reason string, an track.Anchor) []Verdict {
	v.Verdict, v.Method, v.Cause, v.Reason, v.Score, v.Present = Absent, MethodSimilarity, CauseNotMerged, reason, 0, false
	v.History = &History{Via: an.Via, Note: an.Reason, Timeline: []Interval{}}
	return repeat(v, snaps)
}

// tip is the default branch's tip commit.
func (c *Checker) tip(ctx context.Context, repo *gitrepo.Repo) (string, error) {
	br, err := repo.DefaultBranch(ctx)
	if err != nil {
		return "", err
	}
	cm, err := repo.Resolve(ctx, br)
	if err != nil {
		return "", err
	}
	return cm.Hash, nil
}

// anchor finds where the fix landed: the fix commit (Defects4J), else the
// first commit after the base commit holding the gold patch's added lines.
func (c *Checker) anchor(ctx context.Context, s bench.Sample, repo *gitrepo.Repo, h *track.History, files []*fileWork) (track.Anchor, error) {
	if s.FixCommit != "" {
		return c.tr.AnchorFix(ctx, repo, h, s.FixCommit)
	}
	var added []track.AddedLines
	for _, fw := range files {
		if ls := patchLines(fw.fd, diff.Add); len(ls) > 0 {
			added = append(added, track.AddedLines{Path: fw.fd.Name(), Lines: ls, Removed: patchLines(fw.fd, diff.Del)})
		}
	}
	return c.tr.AnchorPatch(ctx, repo, h, s.BaseCommit, added)
}

// patchLines are the trimmed lines of a file diff with op (diff.Add: the
// lines it adds) that carry code (not blank, not a lone brace or a
// comment).
func patchLines(fd *diff.FileDiff, op diff.Op) []string {
	var out []string
	for _, h := range fd.Hunks {
		for _, l := range h.Lines {
			if t := strings.TrimSpace(l.Text); l.Op == op && carriesCode(t) {
				out = append(out, t)
			}
		}
	}
	return out
}

// carriesCode reports whether trimmed line t is long enough to identify
// the fix and not a comment.
func carriesCode(t string) bool {
	return len(t) >= 4 && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "//") && !strings.HasPrefix(t, "*")
}

// tracked follows every block from the landing commit to the latest
// snapshot and reads each snapshot's verdict off the walk.
func (c *Checker) tracked(ctx context.Context, s bench.Sample, repo *gitrepo.Repo, h *track.History, an track.Anchor, files []*fileWork, v0 Verdict, snaps []gitrepo.Commit) ([]Verdict, error) {
	idx, upto, err := positions(ctx, repo, h, snaps)
	if err != nil {
		return nil, err
	}
	var tbs []*trackedBlock
	if an.Index <= upto {
		if tbs, err = c.walkBlocks(ctx, repo, h, an.Index, upto, files); err != nil {
			return nil, err
		}
	}
	landed := h.Commits[an.Index]
	out := make([]Verdict, len(snaps))
	for i, sn := range snaps {
		v := v0
		v.SnapshotCommit = sn.Hash
		hist := &History{Landed: landed.Hash, LandedAt: landed.Time.Format(time.RFC3339), Via: an.Via}
		if idx[i] < 0 || idx[i] < an.Index {
			out[i] = notLanded(v, hist, landed)
			continue
		}
		if err := c.decideAt(ctx, repo, &v, tbs, idx[i]); err != nil {
			return nil, err
		}
		hist.Blocks = blockHistories(h, tbs, idx[i])
		v.History = hist
		if err := c.verifyTracked(ctx, s, repo, sn.Hash, files, tbs, idx[i], &v); err != nil {
			return nil, err
		}
		out[i] = v
	}
	// The timeline after the verdicts: their whole-file scores replace
	// the scope scores of the states in force at the snapshots.
	setTimelines(out, h, tbs, upto)
	return out, nil
}

// positions are the first-parent positions of snaps in h (-1 for one not
// on it) and the greatest of them.
func positions(ctx context.Context, repo *gitrepo.Repo, h *track.History, snaps []gitrepo.Commit) ([]int, int, error) {
	idx := make([]int, len(snaps))
	upto := -1
	for i, sn := range snaps {
		p, err := h.Position(ctx, repo, sn.Hash)
		if err != nil {
			return nil, 0, err
		}
		idx[i] = p
		upto = max(upto, idx[i])
	}
	return idx, upto, nil
}

// notLanded is v at a snapshot before the fix landed: absent.
func notLanded(v Verdict, hist *History, landed track.Commit) Verdict {
	v.Verdict, v.Method, v.Cause, v.Score = Absent, MethodSimilarity, CauseNotMerged, 0
	v.Reason = fmt.Sprintf("fix not merged before the cutoff (it landed in %s on %s)", short(landed.Hash), landed.Time.Format("2006-01-02"))
	v.History = hist
	return v
}

// verifyTracked runs the tests on a verdict not decided present whose
// score is high enough, with the snapshot files the walks reached at
// position i.
func (c *Checker) verifyTracked(ctx context.Context, s bench.Sample, repo *gitrepo.Repo, snap string, files []*fileWork, tbs []*trackedBlock, i int, v *Verdict) error {
	if !c.wantsTests(v) {
		return nil
	}
	sfs, err := c.trackedFiles(ctx, repo, snap, files, tbs, i)
	if err != nil {
		return err
	}
	return c.verify(ctx, s, repo, files, sfs, v)
}

// setTimelines gives every tracked verdict the sample's timeline up to
// position upto and each of its blocks that block's timeline.
func setTimelines(out []Verdict, h *track.History, tbs []*trackedBlock, upto int) {
	timeline := sampleTimeline(h, tbs, upto)
	for i := range out {
		if out[i].History == nil {
			continue
		}
		out[i].History.Timeline = timeline
		for k := range out[i].History.Blocks {
			out[i].History.Blocks[k].Timeline = intervals(h, tbs[k:k+1])
		}
	}
}

// trackedFiles are the snapshot files the walks reached, one per file of
// the fix (for test verification).
func (c *Checker) trackedFiles(ctx context.Context, repo *gitrepo.Repo, snap string, files []*fileWork, tbs []*trackedBlock, i int) ([]*snapFile, error) {
	out := make([]*snapFile, len(files))
	for k, fw := range files {
		out[k] = &snapFile{via: "missing"}
		for _, tb := range tbs {
			st := tb.states[stateAt(tb.states, i)]
			if tb.fw != fw || st.Path == "" {
				continue
			}
			sf, err := c.snapVersion(ctx, repo, snap, st.Path)
			if err != nil {
				return nil, err
			}
			if sf != nil {
				out[k] = &snapFile{path: sf.path, via: "history", v: sf.v, leaf: sf.leaf}
			}
			break
		}
	}
	return out, nil
}

// walkBlocks follows each block's function (one walk per distinct file
// and function) and scores the block at every state.
func (c *Checker) walkBlocks(ctx context.Context, repo *gitrepo.Repo, h *track.History, from, upto int, files []*fileWork) ([]*trackedBlock, error) {
	walks := map[string][]track.State{}
	var out []*trackedBlock
	for _, fw := range files {
		for _, pb := range fw.blocks {
			tg := track.Target{Path: fw.fd.Name()}
			if pb.fn >= 0 && fw.fix.file != nil {
				f := fw.fix.funcs[pb.fn]
				tg.Key, tg.Name, tg.Text = fw.fix.keys[pb.fn], f.Name, string(fw.fix.src[f.StartByte:f.EndByte])
			} else {
				tg.Lines = pb.sourceLines(fw.fix, fw.fd)
			}
			wk := tg.Path + "\x00" + tg.Key + "\x00" + strings.Join(tg.Lines, "\x00") + "\x00" + tg.Text
			states, ok := walks[wk]
			if !ok {
				var err error
				if states, err = c.tr.Follow(ctx, repo, h, from, upto, tg); err != nil {
					return nil, err
				}
				walks[wk] = states
			}
			tb := &trackedBlock{fw: fw, pb: pb, states: states}
			if err := c.scoreStates(ctx, repo, h, tb); err != nil {
				return nil, err
			}
			out = append(out, tb)
		}
	}
	return out, nil
}

// scoreStates evaluates tb's block once per state, on a scope version
// built from the state's function texts (no whole-file parse: a hot
// function has dozens of states).
func (c *Checker) scoreStates(ctx context.Context, repo *gitrepo.Repo, h *track.History, tb *trackedBlock) error {
	var prev []lineChain
	var was *version
	for _, st := range tb.states {
		if st.Path == "" || st.Key == "" {
			b, err := c.scoreAtFile(ctx, repo, h.Commits[st.From].Hash, tb, st, nil)
			if err != nil {
				return err
			}
			tb.evals, tb.chains, prev, was = append(tb.evals, b), append(tb.chains, nil), nil, nil
			continue
		}
		at := c.scopeFile(st.Path, append([]string{st.Text}, st.ExtraText...))
		sv := at.v
		b, _, err := c.matchBlock(ctx, tb.fw, tb.pb, at, &scopeHint{whole: true})
		if err != nil {
			return err
		}
		chains, err := c.chainStep(ctx, tb, prev, was, sv, b, h.Commits[st.From].Hash)
		if err != nil {
			return err
		}
		c.applyChains(&b, chains, nil)
		b.EvidenceCommit = h.Commits[st.From].Hash
		tb.evals, tb.chains, prev, was = append(tb.evals, b), append(tb.chains, chains), chains, sv
	}
	return nil
}

// scoreAtFile evaluates tb's block against st's file at commit (a gone
// function fails without a search).
func (c *Checker) scoreAtFile(ctx context.Context, repo *gitrepo.Repo, commit string, tb *trackedBlock, st track.State, chains []lineChain) (Block, error) {
	if st.Path == "" {
		b := Block{File: tb.pb.file, Function: tb.fw.fix.funcName(tb.pb.fn), Kind: tb.pb.kind, FileVia: "history",
			Localized: "history:gone", PatchLines: []string{}, MatchedLines: []MatchedLine{}, Reason: st.Gone}
		return b, nil
	}
	sf, err := c.snapVersion(ctx, repo, commit, st.Path)
	if err != nil {
		return Block{}, err
	}
	if sf == nil {
		sf = &snapFile{via: "missing"}
	}
	at := &snapFile{path: sf.path, via: "history", v: sf.v, leaf: sf.leaf}
	b, _, err := c.matchBlock(ctx, tb.fw, tb.pb, at, &scopeHint{key: st.Key, extra: st.Extra})
	if err != nil {
		return Block{}, err
	}
	c.applyChains(&b, chains, sf.v)
	b.EvidenceCommit = commit
	return b, nil
}

// scopeFile is the parsed scope version of texts (the tracked function and
// its extra functions) at path, cached by content: samples whose fixes
// touch one function (Jsoup's HtmlTreeBuilderState.process) walk the same
// states.
func (c *Checker) scopeFile(p string, texts []string) *snapFile {
	h := sha256.New()
	for _, t := range texts {
		h.Write([]byte(t))
		h.Write([]byte{0})
	}
	k := p + "\x00" + hex.EncodeToString(h.Sum(nil))
	if sf, ok := c.scopes.get(k); ok {
		return sf
	}
	sv := c.scopeVersion(p, texts)
	sf := &snapFile{path: p, via: "history", v: sv, leaf: leafLines(sv)}
	c.scopes.put(k, sf)
	return sf
}

// scopeVersion parses the tracked function and its extra functions alone:
// Java methods inside a dummy class, Python functions dedented one after
// another.
func (c *Checker) scopeVersion(p string, texts []string) *version {
	var sb strings.Builder
	java := langOf(p) == "java"
	if java {
		sb.WriteString("class __Scope__ {\n")
	}
	for _, t := range texts {
		if !java {
			t = dedent(t)
		}
		sb.WriteString(t)
		sb.WriteString("\n\n")
	}
	if java {
		sb.WriteString("}\n")
	}
	// The states of one function follow each other: parse incrementally.
	return parseVersion(c.trees, "scope\x00"+p, p, []byte(sb.String()), c.opts.NoPreprocess)
}

// dedent makes a Python function's text (which starts at its first
// decorator or def, its later lines keeping their file indentation) parse
// on its own: with decorators, the def line's indentation is removed from
// every later line; without, a body indented deeper than column 0 parses
// as it is.
func dedent(t string) string {
	if !strings.HasPrefix(t, "@") {
		return t
	}
	lines := strings.Split(t, "\n")
	ind := ""
	for _, l := range lines[1:] {
		tr := strings.TrimLeft(l, " \t")
		if strings.HasPrefix(tr, "def ") || strings.HasPrefix(tr, "async def ") {
			ind = l[:len(l)-len(tr)]
			break
		}
	}
	for k := 1; k < len(lines); k++ {
		lines[k] = strings.TrimPrefix(lines[k], ind)
	}
	return strings.Join(lines, "\n")
}

// decideAt fills v's blocks, score and verdict from the states in force at
// chain index i.
func (c *Checker) decideAt(ctx context.Context, repo *gitrepo.Repo, v *Verdict, tbs []*trackedBlock, i int) error {
	score, exact := 1.0, true
	v.Blocks = []Block{}
	for _, tb := range tbs {
		k := stateAt(tb.states, i)
		// The snapshot's own file (shared by every sample of the
		// repository, so parsed once) gives the evidence line numbers;
		// the function's text is the state's.
		b, err := c.scoreAtFile(ctx, repo, v.SnapshotCommit, tb, tb.states[k], tb.chains[k])
		if err != nil {
			return err
		}
		tb.evals[k] = b
		for _, ml := range b.MatchedLines {
			exact = exact && ml.Similarity == 1 && strings.HasPrefix(ml.Via, "exact")
		}
		score = min(score, b.Similarity)
		v.Blocks = append(v.Blocks, b)
	}
	c.conclude(v, score, exact, "the tracked descendant of its function")
	return nil
}

// stateAt is the index of the state in force at chain index i.
func stateAt(states []track.State, i int) int {
	k := 0
	for j, st := range states {
		if st.From <= i {
			k = j
		}
	}
	return k
}

// blockHistories are the chains of tbs up to chain index i, with each
// block's timeline.
func blockHistories(h *track.History, tbs []*trackedBlock, i int) []BlockHistory {
	var out []BlockHistory
	for _, tb := range tbs {
		bh := BlockHistory{File: tb.pb.file, Function: tb.fw.fix.funcName(tb.pb.fn), Chain: []track.Step{}}
		for _, st := range tb.states {
			if st.From <= i {
				bh.Chain = append(bh.Chain, st.Step)
			}
		}
		out = append(out, bh)
	}
	return out
}

// sampleTimeline is when every block was present at once.
func sampleTimeline(h *track.History, tbs []*trackedBlock, upto int) []Interval {
	if len(tbs) == 0 {
		return []Interval{}
	}
	return intervals(h, tbs)
}

// intervals merges the states of tbs into the stretches where every
// block passes; each stretch ends at the state change that made a block
// fail, named by that step.
func intervals(h *track.History, tbs []*trackedBlock) []Interval {
	out := []Interval{}
	var open *Interval
	for _, i := range stateStarts(tbs) {
		pass, why := allPass(tbs, i)
		c := h.Commits[i]
		switch {
		case pass && open == nil:
			out = append(out, Interval{From: c.Hash, FromDate: c.Time.Format(time.RFC3339)})
			open = &out[len(out)-1]
		case !pass && open != nil:
			open.To, open.ToDate, open.EndedBy = c.Hash, c.Time.Format(time.RFC3339), why
			open = nil
		}
	}
	return out
}

// stateStarts are the positions where any block's state changes, sorted.
func stateStarts(tbs []*trackedBlock) []int {
	bounds := map[int]bool{}
	for _, tb := range tbs {
		for _, st := range tb.states {
			bounds[st.From] = true
		}
	}
	var idx []int
	for i := range bounds {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	return idx
}

// allPass reports whether every block passes in its state at position i;
// if not, why is what the first failing block's state did to the fix.
func allPass(tbs []*trackedBlock, i int) (pass bool, why string) {
	for _, tb := range tbs {
		if k := stateAt(tb.states, i); !tb.evals[k].Passed {
			return false, endedBy(tb.states[k], tb.evals[k])
		}
	}
	return true, ""
}

// endedBy says what a failing state did to the fix.
func endedBy(st track.State, b Block) string {
	switch {
	case st.Gone != "":
		return st.Step.Kind + ": " + st.Gone
	case reverted(b):
		return "reverted to the buggy text"
	case b.Localized == "function:missing":
		return "function not found"
	}
	return fmt.Sprintf("%s: rewritten beyond the threshold (score %.2f)", st.Step.Kind, b.Similarity)
}

// reverted reports a block whose weakest line matched its buggy form.
func reverted(b Block) bool {
	for _, ml := range b.MatchedLines {
		if ml.Reverted {
			return true
		}
	}
	return false
}
