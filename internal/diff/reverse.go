package diff

import (
	"slices"
	"strings"
)

// Reverse returns the patch that undoes fd: old and new names, modes,
// hashes and times swapped, a new file becomes a deleted one and back, and
// each hunk's additions become deletions (re-ordered so that a change
// block still lists its deletions first). A "GIT binary patch" payload with
// both a forward and a reverse section has them swapped; any other payload
// is kept as is. fd is not modified.
func Reverse(fd *FileDiff) *FileDiff {
	r := *fd
	r.OldPath, r.NewPath = fd.NewPath, fd.OldPath
	r.OldMode, r.NewMode = fd.NewMode, fd.OldMode
	r.OldHash, r.NewHash = fd.NewHash, fd.OldHash
	r.OldTime, r.NewTime = fd.NewTime, fd.OldTime
	r.IsNew, r.IsDeleted = fd.IsDeleted, fd.IsNew
	r.Extended = slices.Clone(fd.Extended)
	r.Binary = reverseBinary(fd.Binary)
	r.Hunks = nil
	for _, h := range fd.Hunks {
		r.Hunks = append(r.Hunks, reverseHunk(h))
	}
	return &r
}

func reverseHunk(h *Hunk) *Hunk {
	r := &Hunk{OldStart: h.NewStart, OldLines: h.NewLines, NewStart: h.OldStart, NewLines: h.OldLines,
		Section: h.Section, Lines: make([]Line, 0, len(h.Lines))}
	for i := 0; i < len(h.Lines); {
		if h.Lines[i].Op == Context {
			r.Lines = append(r.Lines, h.Lines[i])
			i++
			continue
		}
		j := i
		for j < len(h.Lines) && h.Lines[j].Op != Context {
			j++
		}
		r.Lines = appendAs(r.Lines, h.Lines[i:j], Add, Del) // additions become deletions, first
		r.Lines = appendAs(r.Lines, h.Lines[i:j], Del, Add)
		i = j
	}
	return r
}

// appendAs appends the lines of block with op from to dst as op to.
func appendAs(dst, block []Line, from, to Op) []Line {
	for _, l := range block {
		if l.Op == from {
			l.Op = to
			dst = append(dst, l)
		}
	}
	return dst
}

// reverseBinary swaps the forward and reverse sections of a "GIT binary
// patch" payload (marker line first, each section starting with "literal
// N" or "delta N").
func reverseBinary(b []string) []string {
	var starts []int
	for i, l := range b {
		if i > 0 && (strings.HasPrefix(l, "literal ") || strings.HasPrefix(l, "delta ")) {
			starts = append(starts, i)
		}
	}
	if len(starts) != 2 || starts[0] != 1 {
		return slices.Clone(b)
	}
	out := make([]string, 0, len(b))
	out = append(out, b[0])
	out = append(out, b[starts[1]:]...)
	return append(out, b[starts[0]:starts[1]]...)
}
