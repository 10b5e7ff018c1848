package diff

// Span is a function's extent in a file, 1-based and inclusive. Name is the
// aggregation key: pass a signature to keep overloads apart.
type Span struct {
	Name               string
	StartLine, EndLine int
}

// Touch is the part of a file diff that falls in one function.
type Touch struct {
	// Function is the innermost enclosing span's Name; "" is top level
	// (outside every span).
	Function string
	// Side is "old" when only old-side lines of the function change
	// (deletions, or a pure insertion whose neighbouring old lines lie in
	// the function), "new" when only new-side lines do, else "both".
	Side string
	// OldLines are the deleted lines (old numbering); NewLines the added
	// lines (new numbering).
	OldLines, NewLines []int
	Added, Deleted     int
}

// Touched maps each changed line of fd to the innermost function span that
// encloses it and aggregates per function, in order of first appearance.
// Deleted lines map to oldFuncs by their old line number, added lines to
// newFuncs by their new line number. A pure insertion (a run of additions
// with no deletion) also marks the old-side function enclosing both of its
// neighbouring old lines (no top-level entry is made for that mark alone). When newFuncs is nil, added lines are attributed
// on the old side instead: to the function enclosing the block's first
// deleted line, or for a pure insertion its neighbouring old lines. The
// innermost span is the shortest one containing the line (ties: the later
// start); spans with EndLine < StartLine are ignored.
func Touched(fd *FileDiff, oldFuncs, newFuncs []Span) []Touch {
	t := &toucher{oldFuncs: oldFuncs, newFuncs: newFuncs, index: map[string]int{}, sides: map[string]int{}}
	for _, h := range fd.Hunks {
		t.hunk(h)
	}
	for i := range t.out {
		switch t.sides[t.out[i].Function] {
		case sideOld:
			t.out[i].Side = "old"
		case sideNew:
			t.out[i].Side = "new"
		default:
			t.out[i].Side = "both"
		}
	}
	return t.out
}

// Bits of toucher.sides.
const sideOld, sideNew = 1, 2

// toucher gathers Touched's result.
type toucher struct {
	oldFuncs, newFuncs []Span
	out                []Touch
	index              map[string]int // Function -> index in out
	sides              map[string]int // Function -> sideOld|sideNew
}

// get returns the Touch of function name, adding it when new.
func (t *toucher) get(name string) *Touch {
	i, ok := t.index[name]
	if !ok {
		i = len(t.out)
		t.index[name] = i
		t.out = append(t.out, Touch{Function: name})
	}
	return &t.out[i]
}

// hunk attributes the changed lines of h.
func (t *toucher) hunk(h *Hunk) {
	oldNo, newNo := h.OldStart, h.NewStart // numbers of the next line
	if h.OldLines == 0 {
		oldNo++
	}
	if h.NewLines == 0 {
		newNo++
	}
	for i := 0; i < len(h.Lines); {
		if h.Lines[i].Op == Context {
			oldNo, newNo = oldNo+1, newNo+1
			i++
			continue
		}
		j := i
		for j < len(h.Lines) && h.Lines[j].Op != Context {
			j++
		}
		oldNo, newNo = t.block(h.Lines[i:j], oldNo, newNo)
		i = j
	}
}

// block attributes a run of changed lines whose first old and new line
// numbers are oldNo and newNo, and returns the numbers after it.
func (t *toucher) block(lines []Line, oldNo, newNo int) (int, int) {
	anchor := t.anchor(lines, oldNo)
	for _, l := range lines {
		switch l.Op {
		case Del:
			f := innermost(t.oldFuncs, oldNo, oldNo)
			tc := t.get(f)
			tc.OldLines = append(tc.OldLines, oldNo)
			tc.Deleted++
			t.sides[f] |= sideOld
			oldNo++
		case Add:
			f, side := anchor, sideOld
			if t.newFuncs != nil {
				f, side = innermost(t.newFuncs, newNo, newNo), sideNew
			}
			tc := t.get(f)
			tc.NewLines = append(tc.NewLines, newNo)
			tc.Added++
			t.sides[f] |= side
			newNo++
		}
	}
	return oldNo, newNo
}

// anchor returns the old-side function of a block of changed lines whose
// first old line number is oldNo: where additions land when there are no
// new spans. For a pure insertion it is the function enclosing both
// neighbouring old lines, which the insertion marks as touched.
func (t *toucher) anchor(lines []Line, oldNo int) string {
	for _, l := range lines {
		if l.Op == Del {
			return innermost(t.oldFuncs, oldNo, oldNo)
		}
	}
	anchor := innermost(t.oldFuncs, oldNo-1, oldNo)
	if anchor != "" {
		t.get(anchor)
		t.sides[anchor] |= sideOld
	}
	return anchor
}

// innermost returns the name of the shortest span containing lines lo..hi,
// or "" when none does.
func innermost(spans []Span, lo, hi int) string {
	best := -1
	for i, s := range spans {
		if s.EndLine < s.StartLine || s.StartLine > lo || s.EndLine < hi {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		if s.inside(spans[best]) {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	return spans[best].Name
}

// inside reports whether s is the more inner of two spans that both
// contain the lines looked up: shorter, or as long and starting later.
func (s Span) inside(b Span) bool {
	l, bl := s.EndLine-s.StartLine, b.EndLine-b.StartLine
	return l < bl || (l == bl && s.StartLine > b.StartLine)
}
