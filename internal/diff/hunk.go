package diff

import "strings"

// hunks parses consecutive hunks of fd starting at the current line.
func (p *parser) hunks(fd *FileDiff) error {
	ended := false // a hunk ended with a no-newline marker: nothing may follow
	for !p.eof() {
		l := p.hdr()
		if strings.HasPrefix(l, "@@@") {
			return p.unsupported("combined diff hunk (@@@)")
		}
		if !strings.HasPrefix(l, "@@ -") {
			return nil
		}
		if ended {
			return p.errorf("hunk after one that ends with \"\\ No newline at end of file\"")
		}
		h, err := p.hunkHeader(l)
		if err != nil {
			return err
		}
		p.advance()
		if ended, err = p.hunkBody(h); err != nil {
			return err
		}
		fd.Hunks = append(fd.Hunks, h)
	}
	return nil
}

// hunkHeader parses "@@ -A[,B] +C[,D] @@[ section]".
func (p *parser) hunkHeader(l string) (*Hunk, error) {
	h, ok := parseHunkHeader(l)
	if !ok {
		return nil, p.errorf("malformed hunk header %q; want \"@@ -start,count +start,count @@\"", l)
	}
	switch {
	case h.OldLines == 0 && h.NewLines == 0:
		return nil, p.errorf("hunk %q has no lines", l)
	case h.OldStart == 0 && h.OldLines > 0, h.NewStart == 0 && h.NewLines > 0:
		return nil, p.errorf("hunk %q starts at line 0 but has lines", l)
	}
	return h, nil
}

// parseHunkHeader reads the ranges and section of hunk header l.
func parseHunkHeader(l string) (*Hunk, bool) {
	h := &Hunk{}
	rest := l[len("@@ -"):]
	var ok bool
	if h.OldStart, h.OldLines, rest, ok = rangeOf(rest); !ok {
		return nil, false
	}
	if rest, ok = strings.CutPrefix(rest, " +"); !ok {
		return nil, false
	}
	if h.NewStart, h.NewLines, rest, ok = rangeOf(rest); !ok {
		return nil, false
	}
	if rest, ok = strings.CutPrefix(rest, " @@"); !ok {
		return nil, false
	}
	h.Section = strings.TrimPrefix(rest, " ")
	return h, true
}

// rangeOf parses "start[,count]" at the start of s.
func rangeOf(s string) (start, count int, rest string, ok bool) {
	start, rest, ok = number(s)
	if !ok {
		return 0, 0, s, false
	}
	count = 1
	if strings.HasPrefix(rest, ",") {
		if count, rest, ok = number(rest[1:]); !ok {
			return 0, 0, s, false
		}
	}
	return start, count, rest, true
}

func number(s string) (int, string, bool) {
	n, i := 0, 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		n = n*10 + int(s[i]-'0')
		if n > maxNum {
			return 0, s, false
		}
	}
	return n, s[i:], i > 0
}

// hunkBody reads the lines of h, driven by its counts, and any trailing
// "\ No newline at end of file" markers. ended reports that a marker was
// seen, so the hunk must be the file's last.
func (p *parser) hunkBody(h *Hunk) (ended bool, err error) {
	r := &hunkReader{p: p, h: h, oldLeft: h.OldLines, newLeft: h.NewLines}
	h.Lines = make([]Line, 0, min(r.oldLeft+r.newLeft, len(p.s)-p.off+1))
	for r.oldLeft > 0 || r.newLeft > 0 {
		if p.eof() {
			fo, fn := r.found()
			return false, p.errorf("hunk %q says %d old and %d new lines, found %d and %d before the patch ends",
				h.header(), h.OldLines, h.NewLines, fo, fn)
		}
		l := p.line()
		op, text := Context, ""
		if l != "" {
			op, text = Op(l[0]), l[1:]
		}
		var err error
		if op == '\\' {
			err = r.marker()
		} else {
			err = r.add(op, text)
		}
		if err != nil {
			return false, err
		}
	}
	for !p.eof() && strings.HasPrefix(p.line(), `\`) {
		if err := r.marker(); err != nil {
			return false, err
		}
	}
	return r.ended, nil
}

// hunkReader is the state of hunkBody: the lines each side still expects
// and whether a no-newline marker closed it.
type hunkReader struct {
	p                    *parser
	h                    *Hunk
	oldLeft, newLeft     int
	oldClosed, newClosed bool
	ended                bool // a marker was seen
}

// check rejects a line with op that is none of ' ', '-', '+', exceeds
// its side's count or follows that side's no-newline marker.
func (r *hunkReader) check(op Op) error {
	h, p := r.h, r.p
	switch op {
	case Context, Add, Del:
	default:
		fo, fn := r.found()
		return p.errorf("hunk %q says %d old and %d new lines, found %d and %d; this line is none of ' ', '-', '+'",
			h.header(), h.OldLines, h.NewLines, fo, fn)
	}
	if (op != Add && r.oldLeft == 0) || (op != Del && r.newLeft == 0) {
		return r.tooMany(op)
	}
	if (op != Add && r.oldClosed) || (op != Del && r.newClosed) {
		return p.errorf("line after \"\\ No newline at end of file\" on the same side")
	}
	return nil
}

// tooMany is the error for a line with op on a side whose count is used
// up (the new side when both are).
func (r *hunkReader) tooMany(op Op) error {
	h := r.h
	fo, fn := r.found()
	side, n, f := "old", h.OldLines, fo
	if op != Del && r.newLeft == 0 {
		side, n, f = "new", h.NewLines, fn
	}
	return r.p.errorf("hunk %q says %d %s lines, found more (%d so far, then this %s line)",
		h.header(), n, side, f, op)
}

// found counts the old and new lines read so far.
func (r *hunkReader) found() (int, int) {
	return r.h.OldLines - r.oldLeft, r.h.NewLines - r.newLeft
}

// marker applies a "\ No newline at end of file" line to the last line.
func (r *hunkReader) marker() error {
	h, p := r.h, r.p
	if len(h.Lines) == 0 {
		return p.errorf("\"\\ No newline at end of file\" before any line of the hunk")
	}
	last := &h.Lines[len(h.Lines)-1]
	if last.NoNewline {
		return p.errorf("repeated \"\\ No newline at end of file\"")
	}
	last.NoNewline = true
	r.oldClosed = r.oldClosed || last.Op != Add
	r.newClosed = r.newClosed || last.Op != Del
	r.ended = true
	p.advance()
	return nil
}

// add appends the line with op and text, checking it against the counts
// and markers.
func (r *hunkReader) add(op Op, text string) error {
	if err := r.check(op); err != nil {
		return err
	}
	h, p := r.h, r.p
	h.Lines = append(h.Lines, Line{Op: op, Text: text})
	if op != Add {
		r.oldLeft--
	}
	if op != Del {
		r.newLeft--
	}
	p.advance()
	return nil
}
