package diff

import (
	"fmt"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
)

// DefaultFuzz is patch(1)'s default fuzz factor.
const DefaultFuzz = 2

// ApplyOptions tunes how tolerant Apply is of a target that differs from
// the patch's old side.
type ApplyOptions struct {
	// Fuzz is the most context lines ignored at each end of a hunk that
	// does not match in full: 0 means DefaultFuzz, negative means none.
	Fuzz int
	// MaxOffset bounds how many lines from its expected place a hunk may be
	// found: 0 means anywhere, negative means only the expected place.
	MaxOffset int
}

// HunkResult says where a hunk applied.
type HunkResult struct {
	Hunk int // 1-based index in FileDiff.Hunks
	// Line is the old file's 1-based line where the hunk's first old line
	// matched; for a hunk with no old lines, the line after which its new
	// lines went (as in the header).
	Line int
	// Offset is Line minus the header's OldStart.
	Offset int
	// Fuzz is the number of context lines ignored at each end.
	Fuzz int
	// LooseEOL is set when the hunk only matched after ignoring CR/LF and
	// end-of-file newline differences (a CRLF file and an LF patch, say).
	LooseEOL bool
}

// ApplyError is a hunk that could not be placed. It wraps errs.ErrInput.
type ApplyError struct {
	File   string // the old name as written in the patch (a/Foo.java)
	Hunk   int    // 1-based; 0 when the file as a whole does not fit
	Header string // the hunk's "@@ ... @@" line
	Reason string
}

func (e *ApplyError) Error() string {
	if e.Hunk == 0 {
		return fmt.Sprintf("apply %s: %s", e.File, e.Reason)
	}
	return fmt.Sprintf("apply %s hunk %d (%s): %s", e.File, e.Hunk, e.Header, e.Reason)
}

// Unwrap makes errors.Is(err, errs.ErrInput) hold.
func (e *ApplyError) Unwrap() error { return errs.ErrInput }

// Apply applies fd to old and returns the new content. See ApplyReport.
func Apply(old []byte, fd *FileDiff, opts ApplyOptions) ([]byte, error) {
	out, _, err := ApplyReport(old, fd, opts)
	return out, err
}

// ApplyReport applies fd to old like patch(1): each hunk is looked for at
// its header's line (shifted by the previous hunk's offset), then at the
// nearest lines above and below, first with all its context, then ignoring
// up to opts.Fuzz context lines at each end; and at each of those steps
// first exactly, then ignoring CR/LF differences (added lines then take the
// file's line ending). Hunks must apply in order without overlapping. It
// reports where each hunk applied. Binary patches give errs.ErrUnsupported.
func ApplyReport(old []byte, fd *FileDiff, opts ApplyOptions) ([]byte, []HunkResult, error) {
	file := fd.label(false)
	if fd.IsNew {
		file = fd.label(true)
	}
	if fd.IsBinary {
		return nil, nil, fmt.Errorf("apply %s: binary patch: %w", file, errs.ErrUnsupported)
	}
	if fd.IsNew && len(old) > 0 {
		return nil, nil, &ApplyError{File: file, Reason: "patch creates the file, but it already has content"}
	}
	a := newApplier(old, opts)
	results := make([]HunkResult, 0, len(fd.Hunks))
	for hi, h := range fd.Hunks {
		res, ok := a.place(h)
		if !ok {
			return nil, results, &ApplyError{File: file, Hunk: hi + 1, Header: h.header(),
				Reason: "context not found; patch may target another revision"}
		}
		res.Hunk = hi + 1
		results = append(results, res)
	}
	out := a.finish()
	if fd.IsDeleted && len(out) > 0 {
		return nil, results, &ApplyError{File: file,
			Reason: fmt.Sprintf("patch deletes the file, but %d bytes remain after it", len(out))}
	}
	return out, results, nil
}

// applier writes the patched file as its hunks are placed in order.
type applier struct {
	lines              []string // the old file's
	w                  lineWriter
	cursor             int // the first line not yet written
	lastOffset         int // the previous hunk's offset
	maxFuzz, maxOffset int
}

func newApplier(old []byte, opts ApplyOptions) *applier {
	a := &applier{lines: splitLines(string(old)), maxFuzz: opts.Fuzz, maxOffset: opts.MaxOffset}
	if a.maxFuzz == 0 {
		a.maxFuzz = DefaultFuzz
	}
	a.w.crlf = isCRLF(a.lines)
	a.w.b.Grow(len(old) + len(old)/8)
	return a
}

// place looks for h with ever more fuzz and, once found, writes the file's
// lines up to it and the hunk's result. It reports whether h was placed.
func (a *applier) place(h *Hunk) (HunkResult, bool) {
	oldSide := make([]Line, 0, h.OldLines)
	for _, l := range h.Lines {
		if l.Op != Add {
			oldSide = append(oldSide, l)
		}
	}
	lead, trail := edgeContext(h.Lines)
	for fuzz := 0; fuzz <= max(a.maxFuzz, 0); fuzz++ {
		pre, suf := min(fuzz, lead), min(fuzz, trail)
		if fuzz > 0 && pre == min(fuzz-1, lead) && suf == min(fuzz-1, trail) {
			continue // nothing more to ignore
		}
		if len(oldSide) > 0 && pre+suf >= len(oldSide) {
			break // would match nothing
		}
		if res, ok := a.placeTrimmed(h, oldSide[pre:len(oldSide)-suf], pre, suf); ok {
			res.Fuzz = fuzz
			return res, true
		}
	}
	return HunkResult{}, false
}

// placeTrimmed looks for pat, h's old side without its first pre and last
// suf lines, first exactly and then ignoring line-end differences, and
// writes h there.
func (a *applier) placeTrimmed(h *Hunk, pat []Line, pre, suf int) (HunkResult, bool) {
	base := h.OldStart - 1
	if h.OldLines == 0 {
		base = h.OldStart
	}
	for _, loose := range []bool{false, true} {
		pos, ok := search(a.lines, pat, base+a.lastOffset+pre, a.cursor, a.maxOffset, loose)
		if !ok {
			continue
		}
		a.copyTo(pos)
		emit(&a.w, a.lines[pos:], h.Lines[pre:len(h.Lines)-suf], loose)
		a.cursor = pos + len(pat)
		a.lastOffset = pos - pre - base
		res := HunkResult{Line: pos - pre + 1, Offset: a.lastOffset, LooseEOL: loose}
		if h.OldLines == 0 {
			res.Line = pos - pre
		}
		return res, true
	}
	return HunkResult{}, false
}

// copyTo writes the old file's lines from the cursor up to end.
func (a *applier) copyTo(end int) {
	for _, l := range a.lines[a.cursor:end] {
		a.w.line(l)
	}
}

// finish writes the rest of the old file and returns the new content.
func (a *applier) finish() []byte {
	a.copyTo(len(a.lines))
	return []byte(a.w.b.String())
}

// edgeContext counts the context lines at the start and end of a hunk.
func edgeContext(ls []Line) (lead, trail int) {
	for lead < len(ls) && ls[lead].Op == Context {
		lead++
	}
	for trail < len(ls)-lead && ls[len(ls)-1-trail].Op == Context {
		trail++
	}
	return lead, trail
}

// search finds pat in lines at or after lo, nearest to want first.
func search(lines []string, pat []Line, want, lo, maxOffset int, loose bool) (int, bool) {
	hi := len(lines) - len(pat) // last possible start
	if len(pat) == 0 {
		// Nothing to anchor on: only the expected place will do.
		return want, want >= lo && want <= hi
	}
	limit := searchLimit(want, lo, hi, maxOffset)
	for d := 0; d <= limit; d++ {
		if p := want + d; p >= lo && p <= hi && matchAt(lines, pat, p, loose) {
			return p, true
		}
		if p := want - d; d > 0 && p >= lo && p <= hi && matchAt(lines, pat, p, loose) {
			return p, true
		}
	}
	return 0, false
}

// searchLimit is the farthest search goes from want within lo..hi, as
// bounded by maxOffset (0: no bound; negative: want only).
func searchLimit(want, lo, hi, maxOffset int) int {
	limit := max(want-lo, hi-want)
	if maxOffset < 0 {
		return 0
	} else if maxOffset > 0 {
		return min(limit, maxOffset)
	}
	return limit
}

func matchAt(lines []string, pat []Line, p int, loose bool) bool {
	for i, l := range pat {
		if !lineEqual(lines[p+i], l, loose) {
			return false
		}
	}
	return true
}

// lineEqual compares a file line (with its terminator) to a patch line.
func lineEqual(fl string, l Line, loose bool) bool {
	body, hasNL := strings.CutSuffix(fl, "\n")
	if !loose {
		return body == l.Text && hasNL != l.NoNewline
	}
	return strings.TrimSuffix(body, "\r") == strings.TrimSuffix(l.Text, "\r")
}

// emit writes a placed hunk: the file's own lines for context, the
// patch's lines for additions.
func emit(w *lineWriter, region []string, hl []Line, loose bool) {
	k := 0
	for _, l := range hl {
		switch l.Op {
		case Context:
			w.line(region[k])
			k++
		case Del:
			k++
		case Add:
			text := l.Text
			if loose {
				text = strings.TrimSuffix(text, "\r")
				if w.crlf {
					text += "\r"
				}
			}
			if !l.NoNewline {
				text += "\n"
			}
			w.line(text)
		}
	}
}

// lineWriter joins lines, adding a line break after a line that had none
// when more text follows it (a kept last line that the patch extends).
type lineWriter struct {
	b    strings.Builder
	open bool
	crlf bool
}

func (w *lineWriter) line(s string) {
	if w.open {
		if w.crlf {
			w.b.WriteString("\r\n")
		} else {
			w.b.WriteByte('\n')
		}
	}
	w.b.WriteString(s)
	w.open = !strings.HasSuffix(s, "\n")
}

// splitLines splits s after each "\n"; the last line may lack one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	n := strings.Count(s, "\n")
	out := make([]string, 0, n+1)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// isCRLF reports whether most of the lines end in CRLF.
func isCRLF(lines []string) bool {
	crlf := 0
	for _, l := range lines {
		if strings.HasSuffix(l, "\r\n") {
			crlf++
		}
	}
	return crlf > 0 && 2*crlf >= len(lines)
}
