package mutation

import (
	"bytes"

	"github.com/benchforge/benchforge/internal/code"
)

// Comments. A pair keeps its host method's real comments: the seeds keep
// theirs, and rxsynth §6.1 counts PLOC as non-blank lines, comment lines
// included, computed identically on both sides — a comment-stripped
// mutation corpus would be shorter than the seeds by their comment lines
// alone (the grounded corpus's PLOC δ was −0.16 pooled for that reason).
// §4.3 strips a model's comments so that the generator cannot name the
// label in one ("// added null check"); an operator writes no comment,
// but the host's comment on the mutated statement may describe the very
// guard the operator removes. So the comments on a line an edit touches,
// and the run of comment-only lines directly above such a line, are cut
// from both sides; every other comment stays.

// commentSpans returns the byte spans (file offsets) of the comment tokens
// of f inside [start, end).
func commentSpans(f *code.File, start, end int) [][2]int {
	var out [][2]int
	for _, t := range f.Tokens() {
		if t.Kind == code.Comment && t.StartByte >= start && t.EndByte <= end {
			out = append(out, [2]int{t.StartByte, t.EndByte})
		}
	}
	return out
}

// siteComments returns the deletions (file offsets) of the comments in
// spans that sit at the mutated site of edits: on a line an edit touches,
// or in the comment-only lines directly above one. A comment inside an
// edit is the edit's own text and is left to it.
func siteComments(src []byte, spans [][2]int, edits []Edit) []Edit {
	hot := map[int]bool{} // line-start offsets of the site's lines
	for _, e := range edits {
		for p := lineStart(src, e.Start); p <= e.End && p < len(src); p = nextLine(src, p) {
			hot[p] = true
		}
	}
	var cut []Edit
	// Bottom-up, so that a comment cut for sitting above the site makes
	// the comment line above it part of the site too.
	for i := len(spans) - 1; i >= 0; i-- {
		s := spans[i]
		if insideEdit(s, edits) || !nearSite(src, s, hot) {
			continue
		}
		cut = append(cut, commentDeletion(src, s))
		for p := lineStart(src, s[0]); p < s[1]; p = nextLine(src, p) {
			hot[p] = true
		}
	}
	return cut
}

// nearSite reports whether comment span s touches a hot line, or stands
// alone on its lines directly above one.
func nearSite(src []byte, s [2]int, hot map[int]bool) bool {
	for p := lineStart(src, s[0]); p < s[1]; p = nextLine(src, p) {
		if hot[p] {
			return true
		}
	}
	return aloneOnLines(src, s) && hot[nextLine(src, s[1]-1)]
}

// commentDeletion deletes comment s with the blanks before it; a comment
// alone on its lines goes with its lines, so no blank line is left.
func commentDeletion(src []byte, s [2]int) Edit {
	if aloneOnLines(src, s) {
		return Edit{Start: lineStart(src, s[0]), End: nextLine(src, s[1]-1)}
	}
	start := s[0]
	for start > 0 && (src[start-1] == ' ' || src[start-1] == '\t') {
		start--
	}
	end := s[1]
	if end > 0 && src[end-1] == '\n' { // a line comment's token may hold its newline
		end--
	}
	return Edit{Start: start, End: end}
}

// aloneOnLines reports whether only blanks share comment s's lines.
func aloneOnLines(src []byte, s [2]int) bool {
	before := src[lineStart(src, s[0]):s[0]]
	after := src[s[1]:min(nextLine(src, s[1]), len(src))]
	if s[1] > 0 && src[s[1]-1] == '\n' {
		after = nil
	}
	return len(bytes.TrimSpace(before)) == 0 && len(bytes.TrimSpace(after)) == 0
}

// nextLine returns the offset just past the newline ending the line that
// holds off (len(src) on the last line).
func nextLine(src []byte, off int) int {
	if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(src)
}

// insideEdit reports whether span s overlaps an edit's range.
func insideEdit(s [2]int, edits []Edit) bool {
	for _, e := range edits {
		if s[0] < e.End && e.Start < s[1] {
			return true
		}
	}
	return false
}

// withoutSiteComments returns the method text [start, end) of src with the
// site comments cut and, when edits are given, the edits applied; ok is
// false when they overlap.
func withoutSiteComments(src []byte, start, end int, cut, edits []Edit) ([]byte, bool) {
	all := make([]Edit, 0, len(cut)+len(edits))
	for _, e := range append(append([]Edit{}, cut...), edits...) {
		all = append(all, Edit{Start: e.Start - start, End: e.End - start, Text: e.Text})
	}
	return apply(src[start:end], all)
}
