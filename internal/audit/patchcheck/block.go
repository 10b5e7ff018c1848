package patchcheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/gitrepo"
)

// minContext is the identifier Jaccard a function found by context alone
// must reach.
const minContext = 0.3

// localize picks the snapshot function for fixed function fi: by key, by
// name (best context among overloads), else by contextual features. It
// returns -1 and "file" when none qualifies.
func localize(fix *version, fi int, snap *version) (int, string) {
	if fi < 0 || snap.file == nil || fix.file == nil {
		return -1, "file"
	}
	if i := slices.Index(snap.keys, fix.keys[fi]); i >= 0 {
		return i, "function:key"
	}
	best, bestJ, byName := closestFunc(fix, fi, snap)
	switch {
	case byName:
		return best, "function:name"
	case best >= 0 && bestJ >= minContext:
		return best, "function:context"
	}
	return -1, "file"
}

// closestFunc is the snapshot function with the best identifier Jaccard
// to fixed function fi, preferring functions of the same name (byName).
func closestFunc(fix *version, fi int, snap *version) (best int, bestJ float64, byName bool) {
	ids := fix.identifiers(fi)
	best, bestJ = -1, -1.0
	for i, fn := range snap.funcs {
		same := fn.Name == fix.funcs[fi].Name
		if byName && !same {
			continue
		}
		j := jaccard(ids, snap.identifiers(i))
		if same && !byName {
			best, bestJ, byName = i, j, true
			continue
		}
		if j > bestJ {
			best, bestJ = i, j
		}
	}
	return best, bestJ, byName
}

// scopeHint is the history tracker's answer for one block: the key of the
// patched function's descendant in the snapshot file and the functions
// fix lines were extracted into.
type scopeHint struct {
	key   string
	extra []string
	// whole: snap is a scope version (the tracked function first, then the
	// extra functions, nothing else): its first function is the descendant
	// and every line is in scope.
	whole bool
}

// hinted is the snapshot function the tracker named, or -1.
func (h *scopeHint) hinted(snap *version) int {
	if h.whole {
		if len(snap.funcs) == 0 {
			return -1
		}
		return 0
	}
	for i, k := range snap.keys {
		if k == h.key {
			return i
		}
	}
	return -1
}

// extraLines are the lines of the functions the fix lines were extracted
// into.
func (h *scopeHint) extraLines(snap *version) []int {
	var out []int
	for _, e := range h.extra {
		for i, k := range snap.keys {
			if k == e {
				out = append(out, snap.funcLines(i)...)
			}
		}
	}
	return out
}

// matchBlock localises and matches one block; a non-nil hint (the history
// tracker's descendant) replaces the localisation.
func (c *Checker) matchBlock(ctx context.Context, fw *fileWork, pb *pblock, sf *snapFile, hint *scopeHint) (Block, bool, error) {
	b := newBlock(fw, pb, sf)
	if sf.v == nil {
		b.Localized = "none"
		return b, false, nil
	}
	sfi, gone := c.localizeBlock(fw.fix, pb, sf.v, hint, &b)
	if gone {
		return b, false, nil
	}
	sc := blockScope(fw.fix, pb, sf, sfi, hint)
	if sfi >= 0 {
		b.SnapshotFunction = sf.v.funcName(sfi)
	}
	var score float64
	var exact bool
	var err error
	if pb.kind == "added" {
		score, exact, err = c.matchAdded(ctx, fw, pb, sc, sfi, hint, &b)
	} else {
		score, exact, err = c.matchDeletion(ctx, fw, pb, sc, sfi, &b)
	}
	if err != nil {
		return b, false, err
	}
	// Facts judge a descendant whose identity is known (followed by the
	// walk, or the same key or name), not one guessed by context: a
	// function the printer's fix added to is not the one beside it.
	if pb.kind == "added" && sfi >= 0 && !c.opts.NoFacts && score < c.opts.threshold() && b.Localized != "function:context" {
		b.Facts = factEvidence(fw, pb, sf.v, descendantRoots(sf.v, sfi, hint))
	}
	c.setScore(&b, score)
	return b, exact && b.Passed, nil
}

// newBlock is pb's record before matching: where it is and its lines.
func newBlock(fw *fileWork, pb *pblock, sf *snapFile) Block {
	b := Block{File: pb.file, SnapshotFile: sf.path, FileVia: sf.via, Function: fw.fix.funcName(pb.fn),
		Kind: pb.kind, PatchLines: []string{}, MatchedLines: []MatchedLine{}}
	for _, a := range pb.adds {
		b.PatchLines = append(b.PatchLines, fw.fix.lines[a].text)
	}
	for _, d := range pb.dels {
		b.PatchLines = append(b.PatchLines, "- "+fw.bug.lines[d].text)
	}
	return b
}

// localizeBlock finds the snapshot function of pb (-1: the whole file) and
// records how in b.Localized; gone means the patched function is not in
// the snapshot and the block fails.
func (c *Checker) localizeBlock(fix *version, pb *pblock, snap *version, hint *scopeHint, b *Block) (sfi int, gone bool) {
	switch {
	case c.opts.NoLocalize:
		b.Localized = "file"
		return -1, false
	case hint != nil && (hint.key != "" || hint.whole):
		if sfi = hint.hinted(snap); sfi >= 0 {
			b.Localized = "function:history"
			return sfi, false
		}
		sfi, b.Localized = localize(fix, pb.fn, snap)
		return sfi, false
	}
	sfi, b.Localized = localize(fix, pb.fn, snap)
	if sfi < 0 && pb.fn >= 0 && fix.file != nil && snap.file != nil {
		// The patched function is gone (no key, name or context match).
		// benchchecker §3.4 restricts the search to that function because
		// a file-wide search finds common lines ("return null;")
		// anywhere: the block is not present.
		b.Localized = "function:missing"
		return sfi, true
	}
	return sfi, false
}

// blockScope is where pb's lines are searched in the snapshot: the
// localised function (with the functions fix lines were extracted into),
// its lines not claimed by the fixed function's unchanged lines, and the
// syntax-tree alignment of the fixed function with it.
func blockScope(fix *version, pb *pblock, sf *snapFile, sfi int, hint *scopeHint) scope {
	snap := sf.v
	sc := scope{snap: snap, via: "file", lines: snap.funcLines(sfi)}
	switch {
	case hint != nil && hint.whole && sfi >= 0:
		sc.lines = snap.funcLines(-1)
	case hint != nil && sfi >= 0:
		sc.lines = append(sc.lines, hint.extraLines(snap)...)
	}
	fixScope := -1
	if sfi >= 0 {
		fixScope = pb.fn
	}
	sc.avail = available(snap, sc.lines, fix, fix.funcLines(fixScope), pb.adds)
	if sfi >= 0 {
		sc.via = "function"
		need := append(append([]int{}, pb.adds...), pb.ctx...)
		nm := fix.align(fix.funcs[pb.fn].Node, snap, snap.funcs[sfi].Node)
		sc.align = alignLines(fix, need, nm, sf.leaf)
	}
	return sc
}

// available counts, per text, the snapshot lines of scope not claimed by
// the fixed scope's lines outside the block (adds).
func available(snap *version, scope []int, fix *version, fixScope, adds []int) map[string]int {
	avail := map[string]int{}
	for _, li := range scope {
		avail[snap.lines[li].text]++
	}
	inBlock := map[int]bool{}
	for _, a := range adds {
		inBlock[a] = true
	}
	for _, li := range fixScope {
		if !inBlock[li] {
			avail[fix.lines[li].text]--
		}
	}
	return avail
}

// aligned is the snapshot line the syntax trees align fixed line li
// with, or -1.
func (sc scope) aligned(li int) int {
	if a, ok := sc.align[li]; ok {
		return a
	}
	return -1
}

// matchAdded matches the lines an added block must have: its score is
// its weakest line.
func (c *Checker) matchAdded(ctx context.Context, fw *fileWork, pb *pblock, sc scope, sfi int, hint *scopeHint, b *Block) (float64, bool, error) {
	fix, snap := fw.fix, sc.snap
	allWeak := allWeakLines(fix, pb.adds) && !pb.namesNew(fix, fw.bug)
	score, exact := 1.0, true
	groups, stmts := initCauseGroups(fix, pb.adds), map[string]MatchedLine{}
	for _, a := range pb.adds {
		if sfi >= 0 && !c.opts.NoLocalize && a == headerLine(fix, pb.fn) {
			ml := declaration(fix.lines[a].text, snap, sfi)
			exact = exact && ml.Similarity == 1 && ml.Via == "exact-header"
			b.MatchedLines = append(b.MatchedLines, ml)
			continue
		}
		ml, err := c.matchAddedLine(ctx, fw, pb, a, sc, hint, allWeak)
		if err != nil {
			return 0, false, err
		}
		if stmt, ok := groups[a]; ok && ml.Similarity < 1 && !c.opts.ExactOnly {
			if ml, err = c.matchInitCause(ctx, ml, stmt, stmts, sc); err != nil {
				return 0, false, err
			}
		}
		exact = exact && ml.Similarity == 1 && ml.Via[:min(len(ml.Via), 5)] == "exact"
		score = min(score, ml.Similarity)
		b.MatchedLines = append(b.MatchedLines, ml)
	}
	return score, exact, nil
}

// matchInitCause is ml, a line of the java-init-cause idiom
// (initcause.go), or the match of the one statement stmt the idiom says
// when that is better; stmts caches the statements' matches (the three
// lines share one snapshot line).
func (c *Checker) matchInitCause(ctx context.Context, ml MatchedLine, stmt string, stmts map[string]MatchedLine, sc scope) (MatchedLine, error) {
	g, ok := stmts[stmt]
	if !ok {
		var err error
		if g, _, err = c.matchPresent(ctx, stmt, "", "added", sc, -1); err != nil {
			return ml, err
		}
		stmts[stmt] = g
	}
	if g.Similarity <= ml.Similarity {
		return ml, nil
	}
	g.Patch, g.Via = ml.Patch, g.Via+"+init-cause"
	return g, nil
}

// allWeakLines reports whether every line lis of v is weak.
func allWeakLines(v *version, lis []int) bool {
	for _, li := range lis {
		if !weakLine(v.lines[li].text) {
			return false
		}
	}
	return true
}

// namesNew is namesNew of pb's added lines, computed once per block.
func (pb *pblock) namesNew(fix, bug *version) bool {
	if pb.newName == 0 {
		pb.newName = 1
		if namesNew(fix, bug, pb.adds) {
			pb.newName = 2
		}
	}
	return pb.newName == 2
}

// namesNew reports whether a line lis of fix names an identifier the
// buggy file bug lacks: one the fix introduced (Compress-3's
// "haveUnclosedEntry = false;" sets the field its patch adds), so the
// line is evidence alone, however short.
func namesNew(fix, bug *version, lis []int) bool {
	var src []byte
	if bug != nil {
		src = bug.src
	}
	for _, li := range lis {
		for _, t := range strings.Fields(fix.lines[li].text) {
			if len(t) > 2 && isIdentStart(t[0]) && !keywords[t] && !mentions(src, t) {
				return true
			}
		}
	}
	return false
}

func isIdentStart(b byte) bool { return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// matchAddedLine matches fixed line a: its best counterpart in scope, else
// the same text elsewhere in the tracked file (moved), and, in a block of
// weak lines only, no better than its neighbours.
func (c *Checker) matchAddedLine(ctx context.Context, fw *fileWork, pb *pblock, a int, sc scope, hint *scopeHint, allWeak bool) (MatchedLine, error) {
	fix := fw.fix
	buggy := ""
	if d, ok := pb.pair[a]; ok {
		buggy = fw.bug.lines[d].text
	}
	ml, at, err := c.matchPresent(ctx, fix.lines[a].text, buggy, "added", sc, sc.aligned(a))
	if err != nil {
		return ml, err
	}
	if ml.Similarity < 1 && !c.opts.ExactOnly {
		// a table the fix added entries to is judged by those entries
		if eml, ok, err := c.entryMatch(ctx, fix.lines[a].text, buggy, sc); ok || err != nil {
			return eml, err
		}
	}
	if ml.Similarity < c.opts.threshold() && hint != nil && !hint.whole {
		movedInFile(&ml, fix.lines[a].text, sc.snap, sc.lines)
	}
	if at >= 0 && allWeak && !c.opts.NoLocalize {
		err = c.capByNeighbours(ctx, &ml, fix, a, sc.snap, at)
	}
	return ml, err
}

// capByNeighbours lowers ml, weak fixed line a matched at snapshot line
// at, to the support of its neighbours when that is lower.
func (c *Checker) capByNeighbours(ctx context.Context, ml *MatchedLine, fix *version, a int, snap *version, at int) error {
	sup, err := c.neighbourSupport(ctx, fix, a, snap, at)
	if err != nil {
		return err
	}
	if sup < ml.Similarity {
		ml.Similarity, ml.Via = round(sup), ml.Via+"+neighbours"
	}
	return nil
}

// matchDeletion scores a deletion block: its context must show the place
// and the deleted lines must be absent between the context matched before
// and after. The context shows the place by its best line on each side
// (one drifted neighbour, "mLocale = locale;" become "locale =
// LocaleUtils.toLocale(locale);", does not undo a deletion beside it).
func (c *Checker) matchDeletion(ctx context.Context, fw *fileWork, pb *pblock, sc scope, sfi int, b *Block) (float64, bool, error) {
	pos, score, exact, err := c.matchDeletionContext(ctx, fw, pb, sc, b)
	if err != nil {
		return 0, false, err
	}
	region := deletionRegion(sc.lines, pos, pb.nBefore, len(pb.dels))
	for _, d := range pb.dels {
		ml, err := c.matchAbsent(ctx, fw.bug.lines[d].text, sc.snap, region)
		if err != nil {
			return 0, false, err
		}
		exact = exact && ml.Similarity == 1
		score = min(score, ml.Similarity)
		b.MatchedLines = append(b.MatchedLines, ml)
	}
	if len(pb.ctx) == 0 && sfi < 0 && pb.fn >= 0 && !c.opts.NoLocalize {
		// The function holding the deletion is gone: nothing to vouch
		// for the fix.
		score = 0
	}
	// The context shows where the deleted lines would be; a walk that
	// followed the function needs no place: a deleted line nowhere in
	// the function is not back (Compress-9's write() lost every line
	// around its deletion to later rewrites, pytest's Package.collect
	// its pathlib-era neighbours).
	if score < c.opts.threshold() && sfi >= 0 && len(pb.dels) > 0 && strings.HasPrefix(b.Localized, "function:history") {
		if whole, err := c.absentFromScope(ctx, fw, pb, sc); err != nil || whole > score {
			return max(score, whole), exact, err
		}
	}
	return score, exact, nil
}

// absentFromScope is the weakest absence of pb's deleted lines from the
// whole scope (the tracked function, with the functions its lines were
// extracted into).
func (c *Checker) absentFromScope(ctx context.Context, fw *fileWork, pb *pblock, sc scope) (float64, error) {
	score := 1.0
	for _, d := range pb.dels {
		ml, err := c.matchAbsent(ctx, fw.bug.lines[d].text, sc.snap, sc.lines)
		if err != nil {
			return 0, err
		}
		score = min(score, ml.Similarity)
	}
	return score, nil
}

// matchDeletionContext matches a deletion block's context lines. It
// returns the snapshot line of each (-1 below the threshold), the score
// (the weaker of the best line before and the best line after) and
// whether all matched exactly.
func (c *Checker) matchDeletionContext(ctx context.Context, fw *fileWork, pb *pblock, sc scope, b *Block) ([]int, float64, bool, error) {
	score, exact := 1.0, true
	pos := make([]int, len(pb.ctx))
	side := [2]float64{-1, -1}
	for k, li := range pb.ctx {
		ml, at, err := c.matchPresent(ctx, fw.fix.lines[li].text, "", "context", sc, sc.aligned(li))
		if err != nil {
			return nil, 0, false, err
		}
		if ml.Similarity < c.opts.threshold() {
			at = -1
		}
		pos[k] = at
		exact = exact && ml.Similarity == 1
		si := 0
		if k >= pb.nBefore {
			si = 1
		}
		side[si] = max(side[si], ml.Similarity)
		b.MatchedLines = append(b.MatchedLines, ml)
	}
	for _, s := range side {
		if s >= 0 {
			score = min(score, s)
		}
	}
	return pos, score, exact, nil
}

// headerLine is the logical line of v that declares function fi (its
// name followed by the parameter list, within its first lines: after
// decorators or annotations), or -1.
func headerLine(v *version, fi int) int {
	if fi < 0 {
		return -1
	}
	name := v.funcs[fi].Name + " ("
	ls := v.funcLines(fi)
	for _, li := range ls[:min(4, len(ls))] {
		t := v.lines[li].text
		if strings.HasPrefix(t, name) || strings.Contains(t, " "+name) {
			return li
		}
	}
	return -1
}

// declaration matches a fix line that is the patched function's own
// declaration with the localised function's declaration: the function's
// identity is what localisation (or the history walk, through renames and
// re-signatures) followed, so its changed parameter types or annotations
// are not fix logic to look for (Lang-30's String parameters became
// CharSequence again; Python signatures gained annotations).
func declaration(text string, snap *version, sfi int) MatchedLine {
	ml := MatchedLine{Patch: text, Role: "added", Similarity: 1, Via: "header"}
	if h := headerLine(snap, sfi); h >= 0 {
		ml.Snapshot, ml.Line = snap.lines[h].text, snap.lines[h].start
		if ml.Snapshot == text {
			ml.Via = "exact-header"
		}
	}
	return ml
}

// movedScore is what a fix line found verbatim elsewhere in its tracked
// file scores: present (the labelling protocol counts logic moved or
// extracted within the file as present), below an exact match in place.
const movedScore = 0.9

// movedInFile: a distinctive fix line (six tokens or more, not weak) that
// left the tracked function but occurs verbatim (normalised) elsewhere in
// the same tracked file — a static initialiser, a field, a helper the
// walk did not see being extracted — counts as moved within the file.
func movedInFile(ml *MatchedLine, text string, snap *version, scope []int) {
	if weakLine(text) || len(strings.Fields(text)) < 6 {
		return
	}
	in := map[int]bool{}
	for _, li := range scope {
		in[li] = true
	}
	for li, l := range snap.lines {
		if !in[li] && l.text == text {
			ml.Snapshot, ml.Line, ml.Similarity, ml.Via, ml.Reverted = l.text, l.start, movedScore, "exact-file-moved", false
			return
		}
	}
}

// weakLines carry no evidence alone (issue 13: "break;", "return
// null;", a lone "else:" decided blocks both ways): a block made only of
// them is judged with the lines around each (its other lines, when it has
// some, already place it).
var weakLines = map[string]bool{
	"break ;": true, "continue ;": true, "return ;": true, "return null ;": true, "return true ;": true,
	"return false ;": true, "else": true, "else :": true, "pass": true, "break": true, "continue": true,
	"return": true, "return None": true, "return True": true, "return False": true, "}": true, "} else {": true,
	"try :": true, "try {": true, "finally :": true, "} finally {": true, "return result ;": true, "return result": true,
}

// weakLine: a listed generic line, one of at most three tokens, or one
// with at most two words (names, literals, keywords) around punctuation:
// "next ( pos ) ;" occurs in many places of a parser and says no more
// than "break ;" where it stands (Lang-43).
func weakLine(t string) bool {
	ts := strings.Fields(t)
	if weakLines[t] || len(ts) <= 3 {
		return true
	}
	words := 0
	for _, b := range blind(ts) {
		if b == "ID" || b == "LIT" || keywords[b] {
			words++
		}
	}
	return words <= 2
}

// neighbourSupport is how well the snapshot lines around at continue the
// fixed lines around a: the better of the previous and the next non-trivial
// neighbours' similarities (1 when the fixed line has no neighbour).
func (c *Checker) neighbourSupport(ctx context.Context, fix *version, a int, snap *version, at int) (float64, error) {
	best, any := 0.0, false
	for _, dir := range []int{-1, 1} {
		fi, si := neighbour(fix, a, dir), neighbour(snap, at, dir)
		if fi < 0 {
			continue
		}
		any = true
		if si < 0 {
			continue
		}
		s, err := c.similarity(ctx, fix.lines[fi].text, snap.lines[si].text)
		if err != nil {
			return 0, err
		}
		best = max(best, s)
	}
	if !any {
		return 1, nil
	}
	return best, nil
}

// neighbour is the nearest non-trivial line of v after (dir 1) or before
// (dir -1) line i within the same function, or -1.
func neighbour(v *version, i, dir int) int {
	fi := v.enclosing(v.lines[i].startByte)
	for j := i + dir; j >= 0 && j < len(v.lines); j += dir {
		if v.enclosing(v.lines[j].startByte) != fi {
			return -1
		}
		if !v.lines[j].trivial && !weakLines[v.lines[j].text] {
			return j
		}
	}
	return -1
}

// deletionRegion is the part of scope between the matched context lines:
// after the last matched "before" line and before the first matched "after"
// line; with only one side matched, window lines on the open side; with
// none, the whole scope.
func deletionRegion(scope []int, pos []int, nBefore, window int) []int {
	lo, hi := lastMatched(pos[:nBefore]), firstMatched(pos[nBefore:])
	switch {
	case lo < 0 && hi < 0:
		return scope
	case hi < 0:
		return firstAfter(scope, lo, window+2)
	case lo < 0:
		return lastBefore(scope, hi, window+2)
	}
	var out []int
	for _, li := range scope {
		if li > lo && li < hi {
			out = append(out, li)
		}
	}
	return out
}

// lastMatched is the greatest matched (non-negative) position, or -1.
func lastMatched(pos []int) int {
	lo := -1
	for _, p := range pos {
		if p >= 0 {
			lo = max(lo, p)
		}
	}
	return lo
}

// firstMatched is the least matched (non-negative) position, or -1.
func firstMatched(pos []int) int {
	hi := -1
	for _, p := range pos {
		if p >= 0 && (hi < 0 || p < hi) {
			hi = p
		}
	}
	return hi
}

// firstAfter is the first n lines of scope after line lo.
func firstAfter(scope []int, lo, n int) []int {
	var out []int
	for _, li := range scope {
		if li > lo && len(out) < n {
			out = append(out, li)
		}
	}
	return out
}

// lastBefore is the last n lines of scope before line hi, in order.
func lastBefore(scope []int, hi, n int) []int {
	var out []int
	for i := len(scope) - 1; i >= 0; i-- {
		if scope[i] < hi && len(out) < n {
			out = append(out, scope[i])
		}
	}
	sort.Ints(out)
	return out
}

// verify builds the modified patch — each patched function of the fixed
// file replaced by its localised snapshot counterpart, diffed against the
// buggy file — and runs the verifier (benchchecker §3.4 "Testing
// Verification"). A pass makes v present with method "tests".
func (c *Checker) verify(ctx context.Context, s bench.Sample, repo *gitrepo.Repo, files []*fileWork, snaps []*snapFile, v *Verdict) error {
	var patch bytes.Buffer
	for i, fw := range files {
		mod, skip := withSnapshotFuncs(fw, snaps[i])
		if skip != "" {
			v.Reason += "; test verification skipped: " + skip
			return nil
		}
		if bytes.Equal(mod, fw.bug.src) {
			// the snapshot's functions are the buggy ones: this file
			// stays as it is (a header without hunks does not parse)
			continue
		}
		old := fw.fd.OldPath
		if old == "" {
			old = fw.fd.Name()
		}
		fd := diff.Unified("a/"+old, "b/"+fw.fd.Name(), fw.bug.src, mod, 3)
		patch.WriteString("diff --git a/" + old + " b/" + fw.fd.Name() + "\n")
		patch.WriteString(fd.String())
	}
	if patch.Len() == 0 {
		v.Reason += "; test verification skipped: the snapshot's code in place of the patch is the buggy code itself"
		return nil
	}
	return c.runVerifier(ctx, s, repo, patch.Bytes(), v)
}

// withSnapshotFuncs is the fixed file with each patched function replaced
// by its localised snapshot counterpart and, in Java, with the members and
// imports those functions need (withMembers, withImports); skip says why
// that cannot be built ("" when it can: every block lies in a function).
func withSnapshotFuncs(fw *fileWork, sf *snapFile) (mod []byte, skip string) {
	if sf.v == nil || fw.fix.file == nil || sf.v.file == nil {
		return nil, fw.fd.Name() + " has no snapshot counterpart"
	}
	var rs []funcRepl
	var ts []transplant
	done := map[int]bool{}
	for _, pb := range fw.blocks {
		if pb.fn < 0 {
			// Only functions are replaced: a top-level block would keep
			// the gold patch's code in the modified patch, and the tests
			// would judge the gold fix rather than the snapshot.
			return nil, fw.fd.Name() + " has a patch block outside any function, which would keep the gold code"
		}
		if done[pb.fn] {
			continue
		}
		done[pb.fn] = true
		sfi, _ := localize(fw.fix, pb.fn, sf.v)
		if sfi < 0 {
			return nil, fmt.Sprintf("%s %s not localised in the snapshot", fw.fd.Name(), fw.fix.funcName(pb.fn))
		}
		ff, sfn := fw.fix.funcs[pb.fn], sf.v.funcs[sfi]
		rs = append(rs, funcRepl{ff.StartByte, ff.EndByte, sf.v.src[sfn.StartByte:sfn.EndByte]})
		ts = append(ts, transplant{node: sfn.Node, snapClass: sfn.Class, cls: ff.Class})
	}
	rs = outermost(rs)
	mod = append([]byte(nil), fw.fix.src...)
	for i := len(rs) - 1; i >= 0; i-- {
		r := rs[i]
		mod = append(mod[:r.from:r.from], append(append([]byte(nil), r.text...), mod[r.to:]...)...)
	}
	if strings.HasSuffix(fw.fd.Name(), ".java") {
		var used []byte
		mod, used = withMembers(mod, sf.v.file, ts)
		for _, r := range rs {
			used = append(append(used, r.text...), '\n')
		}
		mod = withImports(mod, sf.v.src, used)
	}
	return mod, ""
}

// importedName is the simple name an import declaration brings in
// ("Objects" for "import java.util.Objects;").
func importedName(imp string) string {
	imp = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(imp), ";"))
	return imp[strings.LastIndexByte(imp, '.')+1:]
}

// mentions reports whether text holds name as a whole word.
func mentions(text []byte, name string) bool {
	for i := 0; ; {
		j := bytes.Index(text[i:], []byte(name))
		if j < 0 {
			return false
		}
		j += i
		end := j + len(name)
		if (j == 0 || !isWordByte(text[j-1])) && (end == len(text) || !isWordByte(text[end])) {
			return true
		}
		i = j + 1
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// javaImport is one import declaration on its own line.
var javaImport = regexp.MustCompile(`(?m)^[ \t]*import[ \t]+(static[ \t]+)?[\w.]+(\.\*)?[ \t]*;[ \t]*$`)

// withImports adds to Java file src the snapshot's single-name imports it
// lacks whose name the snapshot's functions (used) mention, after its last
// import (or its package line): those functions name the types their file
// imports (java.util.Objects for Objects.equals), and without them the
// modified patch would not compile, so the tests could not judge it. Only
// names used and not imported yet are added, since an import of a class
// the buggy tree lacks fails the build. A wildcard import is added only
// for a JDK package (jackson-core's TextBuffer came to import java.io.*
// for its IOException), which every build has.
func withImports(src, snap, used []byte) []byte {
	named := map[string]bool{} // simple names src imports already
	have := map[string]bool{}  // its import lines
	for _, m := range javaImport.FindAll(src, -1) {
		named[importedName(string(m))] = true
		have[strings.TrimSpace(string(m))] = true
	}
	var add []byte
	for _, m := range javaImport.FindAll(snap, -1) {
		imp := strings.TrimSpace(string(m))
		name := importedName(imp)
		// A name src imports already resolves (a second import of it
		// from another package, as commons-math 4's moved classes, would
		// not compile).
		if strings.HasSuffix(imp, ".*;") {
			if jdkWildcard(imp) && !have[imp] {
				have[imp] = true
				add = append(append(add, imp...), '\n')
			}
			continue
		}
		if named[name] || !mentions(used, name) {
			continue
		}
		named[name] = true
		add = append(append(add, imp...), '\n')
	}
	if len(add) == 0 {
		return src
	}
	at := 0
	if locs := javaImport.FindAllIndex(src, -1); len(locs) > 0 {
		at = locs[len(locs)-1][1]
	} else if loc := regexp.MustCompile(`(?m)^[ \t]*package[ \t]+[\w.]+[ \t]*;[ \t]*$`).FindIndex(src); loc != nil {
		at = loc[1]
	}
	if at < len(src) && src[at] == '\n' {
		at++
	} else if at > 0 {
		add = append([]byte("\n"), add...)
	}
	return append(append(append([]byte(nil), src[:at]...), add...), src[at:]...)
}

// jdkWildcard reports whether imp imports a java.* package on demand
// ("import java.io.*;"; not static, not a project package, not javax.*,
// some of which later JDKs dropped).
func jdkWildcard(imp string) bool {
	return strings.HasPrefix(imp, "import java.")
}

// funcRepl replaces the fixed file's bytes [from, to) with text.
type funcRepl struct {
	from, to int
	text     []byte
}

// outermost sorts rs by position and drops each replacement that lies
// inside another: a patched function nested in a patched function (a
// closure, a method of a local class) is already replaced by its outer
// function's snapshot text, and splicing it as well would cut into text
// that is no longer there.
func outermost(rs []funcRepl) []funcRepl {
	sort.Slice(rs, func(a, b int) bool {
		if rs[a].from != rs[b].from {
			return rs[a].from < rs[b].from
		}
		return rs[a].to > rs[b].to
	})
	var out []funcRepl
	for _, r := range rs {
		if n := len(out); n > 0 && r.from < out[n-1].to {
			continue
		}
		out = append(out, r)
	}
	return out
}

// runVerifier runs the tests with patch and records the result in v: a
// pass makes v present by tests.
func (c *Checker) runVerifier(ctx context.Context, s bench.Sample, repo *gitrepo.Repo, patch []byte, v *Verdict) error {
	passed, detail, err := c.opts.Verifier.Verify(ctx, s, repo, patch)
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	v.Tests = &TestResult{Passed: passed && err == nil, Detail: detail, Patch: string(patch)}
	if err != nil {
		v.Tests.Error = err.Error()
		var inc interface{ Inconclusive() bool }
		if v.Tests.Inconclusive = errors.As(err, &inc) && inc.Inconclusive(); v.Tests.Inconclusive {
			v.Reason += "; test verification inconclusive: " + err.Error()
		} else {
			v.Reason += "; test verification failed to run: " + err.Error()
		}
		return nil
	}
	if passed {
		v.Present, v.Verdict, v.Method, v.Cause = true, Present, MethodTests, CauseTests
		v.Reason = fmt.Sprintf("similarity %.2f is inconclusive, but the tests pass with the snapshot's code in place of the patch", v.Score)
	} else {
		v.Reason += "; the tests fail with the snapshot's code in place of the patch"
	}
	return nil
}
