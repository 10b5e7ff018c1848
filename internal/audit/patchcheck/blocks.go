package patchcheck

import (
	"strings"

	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/textsim"
)

// pblock is a patch block before matching.
type pblock struct {
	file string // path in the fixed version
	fn   int    // function index in the fixed version, -1 for top level
	kind string // "added" | "deletion"
	adds []int  // fixed-version line indices that must be present
	// pair maps an added line to the buggy line it replaced, when one is
	// similar enough (token ratio ≥ 0.5) to be its earlier form.
	pair map[int]int
	ctx  []int // deletion: fixed-version context line indices
	// nBefore is how many of ctx precede the deletion point.
	nBefore int
	dels    []int // deletion: buggy-version line indices that must be absent
	// newName caches namesNew for adds (0 unknown, 1 no, 2 yes): a block
	// is matched once per state of its history.
	newName int8
	// facts caches blockFacts (factsDone: computed), for the same reason.
	facts     []factSet
	factsDone bool
}

// lineDiff diffs two versions at the level of their logical lines.
func lineDiff(bug, fix *version) []*diff.Hunk {
	enc := func(v *version) []byte {
		var b strings.Builder
		for _, l := range v.lines {
			b.WriteString(strings.ReplaceAll(l.text, "\n", "\\n"))
			b.WriteByte('\n')
		}
		return []byte(b.String())
	}
	return diff.Unified("a", "b", enc(bug), enc(fix), 0).Hunks
}

// blocksOf groups the changed logical lines of one file into blocks: one
// "added" block per enclosing function of the fixed version, and one
// "deletion" block per hunk that only removes logic.
func blocksOf(file string, bug, fix *version) []*pblock {
	var out []*pblock
	byFn := map[int]*pblock{}
	for _, h := range lineDiff(bug, fix) {
		adds, dels, ni := changedLines(h, bug, fix)
		switch {
		case len(adds) > 0:
			out = addToFuncBlocks(out, byFn, file, bug, fix, adds, dels)
		case len(dels) > 0:
			out = append(out, deletionBlock(file, fix, dels, ni))
		}
	}
	return out
}

// changedLines are the non-trivial fixed lines hunk h adds and buggy lines
// it deletes, and the fixed line position after the hunk.
func changedLines(h *diff.Hunk, bug, fix *version) (adds, dels []int, ni int) {
	oi, ni := h.OldStart-1, h.NewStart-1
	if h.OldLines == 0 {
		oi = h.OldStart // the line after which the insertion goes
	}
	if h.NewLines == 0 {
		ni = h.NewStart
	}
	for _, l := range h.Lines {
		switch l.Op {
		case diff.Del:
			if !bug.lines[oi].trivial {
				dels = append(dels, oi)
			}
			oi++
		case diff.Add:
			if !fix.lines[ni].trivial {
				adds = append(adds, ni)
			}
			ni++
		}
	}
	return adds, dels, ni
}

// addToFuncBlocks adds each added line to the "added" block of its
// enclosing function (new blocks are appended to out and indexed in
// byFn), paired with its most similar deleted line.
func addToFuncBlocks(out []*pblock, byFn map[int]*pblock, file string, bug, fix *version, adds, dels []int) []*pblock {
	for _, a := range adds {
		fi := fix.enclosing(fix.lines[a].startByte)
		b := byFn[fi]
		if b == nil {
			b = &pblock{file: file, fn: fi, kind: "added", pair: map[int]int{}}
			byFn[fi] = b
			out = append(out, b)
		}
		b.adds = append(b.adds, a)
		if d, ok := bestPair(fix.lines[a].text, bug, dels); ok {
			b.pair[a] = d
		}
	}
	return out
}

// deletionBlock is the block of a hunk that only deletes logic: the fixed
// version's lines around the insertion point pos are its context.
func deletionBlock(file string, fix *version, dels []int, pos int) *pblock {
	fi := -1
	if len(fix.funcs) > 0 {
		fi = fix.enclosing(anchorByte(fix, pos))
	}
	b := &pblock{file: file, fn: fi, kind: "deletion", dels: dels}
	before, after := contextAround(fix, fi, pos, 2)
	b.ctx, b.nBefore = append(before, after...), len(before)
	return b
}

// anchorByte is a byte offset of the fixed version at line position pos
// (the start of line pos, or the end of the previous one).
func anchorByte(v *version, pos int) int {
	if pos < len(v.lines) {
		if pos > 0 {
			// prefer the previous line: an insertion point at a
			// function's closing brace belongs to that function.
			return v.lines[pos-1].startByte
		}
		return v.lines[pos].startByte
	}
	if len(v.lines) > 0 {
		return v.lines[len(v.lines)-1].startByte
	}
	return 0
}

// contextAround returns up to n non-trivial lines of function fi before
// position pos and up to n from pos on, in order.
func contextAround(v *version, fi, pos, n int) (before, after []int) {
	for i := pos - 1; i >= 0 && len(before) < n; i-- {
		if v.contextLine(i, fi) {
			before = append([]int{i}, before...)
		}
	}
	for i := pos; i < len(v.lines) && len(after) < n; i++ {
		if v.contextLine(i, fi) {
			after = append(after, i)
		}
	}
	return before, after
}

// contextLine reports whether line i is non-trivial and in function fi
// (any function for fi < 0).
func (v *version) contextLine(i, fi int) bool {
	if v.lines[i].trivial {
		return false
	}
	if fi < 0 {
		return true
	}
	fn := v.funcs[fi]
	return v.lines[i].startByte >= fn.StartByte && v.lines[i].startByte < fn.EndByte
}

// bestPair finds among the buggy lines dels the one most similar to the
// fixed line text (token ratio ≥ 0.5).
func bestPair(text string, bug *version, dels []int) (int, bool) {
	best, bestSim := -1, 0.5
	at := strings.Fields(text)
	for _, d := range dels {
		if s := textsim.Ratio(at, strings.Fields(bug.lines[d].text)); s >= bestSim {
			best, bestSim = d, s
		}
	}
	return best, best >= 0
}

// sourceLines are the trimmed source lines the patch fd added within
// pb's added logical lines in fix (a dict's new entry, not the first line
// of the whole literal), for following top-level code by text.
func (pb *pblock) sourceLines(fix *version, fd *diff.FileDiff) []string {
	added := map[string]bool{}
	for _, h := range fd.Hunks {
		for _, l := range h.Lines {
			if l.Op == diff.Add {
				added[strings.TrimSpace(l.Text)] = true
			}
		}
	}
	src := strings.Split(string(fix.src), "\n")
	var out []string
	for _, a := range pb.adds {
		for n := max(1, fix.lines[a].start); n <= min(fix.lines[a].end, len(src)); n++ {
			if t := strings.TrimSpace(src[n-1]); t != "" && added[t] {
				out = append(out, t)
			}
		}
	}
	return out
}
