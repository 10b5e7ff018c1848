package diff

import "strings"

// Unified computes the line diff between old and new as a plain ("---",
// "+++") FileDiff with context lines around each change (3 is the usual
// amount; negative counts as 0). Names "a/x" and "b/y" are read as git's
// prefixes (Prefix set). Equal texts give no hunks. The edit script
// is minimal: Myers' O((N+M)D) algorithm in linear space, run after
// removing the common prefix and suffix and the lines that occur on one
// side only (which can never match), so a few edits in a large file cost
// little and two unrelated files cost linear time.
func Unified(oldName, newName string, old, new []byte, context int) *FileDiff {
	fd := &FileDiff{OldPath: oldName, NewPath: newName}
	if hasPrefix(oldName, "a/") && hasPrefix(newName, "b/") {
		// As the parser reads such names: git's prefixes.
		fd.OldPath, fd.NewPath, fd.Prefix = oldName[2:], newName[2:], true
	}
	a, b := splitLines(string(old)), splitLines(string(new))
	delA, addB := lineEdits(a, b)
	fd.Hunks = buildHunks(a, b, delA, addB, max(context, 0))
	return fd
}

// lineEdits marks the lines of a deleted and of b added by a minimal diff.
func lineEdits(a, b []string) (delA, addB []bool) {
	delA, addB = make([]bool, len(a)), make([]bool, len(b))
	pre, suf := commonEnds(a, b)
	a, b = a[pre:len(a)-suf], b[pre:len(b)-suf]
	da, db := delA[pre:len(delA)-suf], addB[pre:len(addB)-suf]

	ia, ib, countA, countB := internLines(a, b)
	// Lines found on one side only are changes; diff the rest.
	ra, xa := sharedLines(ia, countB, da)
	rb, xb := sharedLines(ib, countA, db)
	m := &myers{a: ra, b: rb, delA: make([]bool, len(ra)), addB: make([]bool, len(rb))}
	m.diff(0, len(ra), 0, len(rb))
	for i, d := range m.delA {
		da[xa[i]] = da[xa[i]] || d
	}
	for i, d := range m.addB {
		db[xb[i]] = db[xb[i]] || d
	}
	return delA, addB
}

// commonEnds counts the lines a and b share at their start and, in what
// remains, at their end.
func commonEnds(a, b []string) (pre, suf int) {
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	return pre, suf
}

// internLines numbers the distinct lines of a and b and counts how often
// each number occurs on each side.
func internLines(a, b []string) (ia, ib, countA, countB []int32) {
	ids := make(map[string]int32, len(a)+len(b))
	intern := func(s string) int32 {
		id, ok := ids[s]
		if !ok {
			id = int32(len(ids))
			ids[s] = id
		}
		return id
	}
	ia, ib = make([]int32, len(a)), make([]int32, len(b))
	for i, s := range a {
		ia[i] = intern(s)
	}
	for i, s := range b {
		ib[i] = intern(s)
	}
	countA, countB = make([]int32, len(ids)), make([]int32, len(ids))
	for _, id := range ia {
		countA[id]++
	}
	for _, id := range ib {
		countB[id]++
	}
	return ia, ib, countA, countB
}

// sharedLines marks as changed the lines of one side whose number never
// occurs on the other side (otherCount 0) and returns the rest with their
// indexes.
func sharedLines(ids, otherCount []int32, changed []bool) (kept []int32, at []int) {
	for i, id := range ids {
		if otherCount[id] == 0 {
			changed[i] = true
		} else {
			kept, at = append(kept, id), append(at, i)
		}
	}
	return kept, at
}

type myers struct {
	a, b       []int32
	delA, addB []bool
	v1, v2     []int
}

// diff marks the edits between a[alo:ahi] and b[blo:bhi].
func (m *myers) diff(alo, ahi, blo, bhi int) {
	alo, ahi, blo, bhi = m.trim(alo, ahi, blo, bhi)
	if alo == ahi || blo == bhi {
		m.replace(alo, ahi, blo, bhi)
		return
	}
	x, y, ok := m.bisect(alo, ahi, blo, bhi)
	if !ok || (x == alo && y == blo) || (x == ahi && y == bhi) {
		m.replace(alo, ahi, blo, bhi)
		return
	}
	m.diff(alo, x, blo, y)
	m.diff(x, ahi, y, bhi)
}

// trim narrows a[alo:ahi] and b[blo:bhi] to what lies between their
// common prefix and suffix.
func (m *myers) trim(alo, ahi, blo, bhi int) (int, int, int, int) {
	for alo < ahi && blo < bhi && m.a[alo] == m.b[blo] {
		alo, blo = alo+1, blo+1
	}
	for alo < ahi && blo < bhi && m.a[ahi-1] == m.b[bhi-1] {
		ahi, bhi = ahi-1, bhi-1
	}
	return alo, ahi, blo, bhi
}

// replace marks all of a[alo:ahi] deleted and all of b[blo:bhi] added.
func (m *myers) replace(alo, ahi, blo, bhi int) {
	for i := alo; i < ahi; i++ {
		m.delA[i] = true
	}
	for j := blo; j < bhi; j++ {
		m.addB[j] = true
	}
}

// bisect finds a point (x, y) on a shortest edit path through the middle
// snake, searching forward and backward at once (Myers 1986, §4b; the
// layout follows diff-match-patch's bisect).
//
// Long because the forward and backward passes share the diagonal arrays
// and bounds as locals in Stage II's hottest loop; split into methods they
// would live behind a pointer, and the two halves mirror each other line
// for line, which reads best side by side.
func (m *myers) bisect(alo, ahi, blo, bhi int) (int, int, bool) {
	a, b := m.a[alo:ahi], m.b[blo:bhi]
	n, mm := len(a), len(b)
	maxD := (n + mm + 1) / 2
	off, size := maxD, 2*maxD+2
	if cap(m.v1) < size {
		m.v1, m.v2 = make([]int, size), make([]int, size)
	}
	v1, v2 := m.v1[:size], m.v2[:size]
	for i := range v1 {
		v1[i], v2[i] = -1, -1
	}
	v1[off+1], v2[off+1] = 0, 0
	delta := n - mm
	front := delta%2 != 0
	k1start, k1end, k2start, k2end := 0, 0, 0, 0
	for d := 0; d < maxD; d++ {
		for k1 := -d + k1start; k1 <= d-k1end; k1 += 2 {
			k1o := off + k1
			var x1 int
			if k1 == -d || (k1 != d && v1[k1o-1] < v1[k1o+1]) {
				x1 = v1[k1o+1]
			} else {
				x1 = v1[k1o-1] + 1
			}
			y1 := x1 - k1
			for x1 < n && y1 < mm && a[x1] == b[y1] {
				x1, y1 = x1+1, y1+1
			}
			v1[k1o] = x1
			switch {
			case x1 > n:
				k1end += 2
			case y1 > mm:
				k1start += 2
			case front:
				k2o := off + delta - k1
				if k2o >= 0 && k2o < size && v2[k2o] != -1 && x1 >= n-v2[k2o] {
					return alo + x1, blo + y1, true
				}
			}
		}
		for k2 := -d + k2start; k2 <= d-k2end; k2 += 2 {
			k2o := off + k2
			var x2 int
			if k2 == -d || (k2 != d && v2[k2o-1] < v2[k2o+1]) {
				x2 = v2[k2o+1]
			} else {
				x2 = v2[k2o-1] + 1
			}
			y2 := x2 - k2
			for x2 < n && y2 < mm && a[n-x2-1] == b[mm-y2-1] {
				x2, y2 = x2+1, y2+1
			}
			v2[k2o] = x2
			switch {
			case x2 > n:
				k2end += 2
			case y2 > mm:
				k2start += 2
			case !front:
				k1o := off + delta - k2
				if k1o >= 0 && k1o < size && v1[k1o] != -1 {
					x1 := v1[k1o]
					y1 := off + x1 - k1o
					if x1 >= n-x2 {
						return alo + x1, blo + y1, true
					}
				}
			}
		}
	}
	return 0, 0, false
}

// buildHunks groups the edits into hunks with up to ctx context lines,
// merging changes that are at most 2*ctx lines apart.
func buildHunks(a, b []string, delA, addB []bool, ctx int) []*Hunk {
	steps := editSteps(a, b, delA, addB)
	var hunks []*Hunk
	for s := 0; s < len(steps); {
		if steps[s].op == Context {
			s++
			continue
		}
		start := max(s-ctx, 0)
		stop := min(lastChange(steps, s, ctx)+ctx, len(steps))
		hunks = append(hunks, stepHunk(a, b, steps[start:stop]))
		s = stop
	}
	return hunks
}

// editStep is one line of the edit script.
type editStep struct {
	op   Op
	i, j int // line index in a (for Context, Del) and in b (Context, Add)
}

// editSteps walks a and b in step, deletions before additions.
func editSteps(a, b []string, delA, addB []bool) []editStep {
	steps := make([]editStep, 0, max(len(a), len(b)))
	for i, j := 0, 0; i < len(a) || j < len(b); {
		switch {
		case i < len(a) && delA[i]:
			steps = append(steps, editStep{Del, i, j})
			i++
		case j < len(b) && addB[j]:
			steps = append(steps, editStep{Add, i, j})
			j++
		default:
			steps = append(steps, editStep{Context, i, j})
			i, j = i+1, j+1
		}
	}
	return steps
}

// lastChange returns one past the last change of the hunk whose first
// change is steps[s]: later changes join it while the context between
// them is shorter than 2*ctx lines.
func lastChange(steps []editStep, s, ctx int) int {
	end := s
	for e := s; e < len(steps); e++ {
		if steps[e].op != Context {
			end = e + 1
		} else if e-end >= 2*ctx {
			break
		}
	}
	return end
}

// stepHunk builds the hunk of steps, numbering it from its first step.
func stepHunk(a, b []string, steps []editStep) *Hunk {
	h := &Hunk{}
	for _, st := range steps {
		switch st.op {
		case Context:
			h.Lines = append(h.Lines, mkLine(Context, a[st.i]))
			h.OldLines++
			h.NewLines++
		case Del:
			h.Lines = append(h.Lines, mkLine(Del, a[st.i]))
			h.OldLines++
		case Add:
			h.Lines = append(h.Lines, mkLine(Add, b[st.j]))
			h.NewLines++
		}
	}
	h.OldStart, h.NewStart = steps[0].i, steps[0].j
	if h.OldLines > 0 {
		h.OldStart++
	}
	if h.NewLines > 0 {
		h.NewStart++
	}
	return h
}

func mkLine(op Op, s string) Line {
	text, hasNL := strings.CutSuffix(s, "\n")
	return Line{Op: op, Text: text, NoNewline: !hasNL}
}
