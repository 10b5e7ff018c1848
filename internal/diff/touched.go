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
	var out []Touch
	index := map[string]int{}
	get := func(name string) *Touch {
		i, ok := index[name]
		if !ok {
			i = len(out)
			index[name] = i
			out = append(out, Touch{Function: name})
		}
		return &out[i]
	}
	const sideOld, sideNew = 1, 2
	sides := map[string]int{}
	for _, h := range fd.Hunks {
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
			dels := 0
			for ; j < len(h.Lines) && h.Lines[j].Op != Context; j++ {
				if h.Lines[j].Op == Del {
					dels++
				}
			}
			// Old-side function of this block: where additions land when
			// there are no new spans, and the insertion point's function.
			var anchor string
			if dels == 0 {
				anchor = innermost(oldFuncs, oldNo-1, oldNo)
				if anchor != "" {
					get(anchor)
					sides[anchor] |= sideOld
				}
			} else {
				anchor = innermost(oldFuncs, oldNo, oldNo)
			}
			for _, l := range h.Lines[i:j] {
				switch l.Op {
				case Del:
					f := innermost(oldFuncs, oldNo, oldNo)
					t := get(f)
					t.OldLines = append(t.OldLines, oldNo)
					t.Deleted++
					sides[f] |= sideOld
					oldNo++
				case Add:
					f, side := anchor, sideOld
					if newFuncs != nil {
						f, side = innermost(newFuncs, newNo, newNo), sideNew
					}
					t := get(f)
					t.NewLines = append(t.NewLines, newNo)
					t.Added++
					sides[f] |= side
					newNo++
				}
			}
			i = j
		}
	}
	for i := range out {
		switch sides[out[i].Function] {
		case sideOld:
			out[i].Side = "old"
		case sideNew:
			out[i].Side = "new"
		default:
			out[i].Side = "both"
		}
	}
	return out
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
		b := spans[best]
		if l, bl := s.EndLine-s.StartLine, b.EndLine-b.StartLine; l < bl || (l == bl && s.StartLine > b.StartLine) {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	return spans[best].Name
}
