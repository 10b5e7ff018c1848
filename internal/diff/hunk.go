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
	bad := func() (*Hunk, error) {
		return nil, p.errorf("malformed hunk header %q; want \"@@ -start,count +start,count @@\"", l)
	}
	h := &Hunk{}
	rest := l[len("@@ -"):]
	var ok bool
	if h.OldStart, h.OldLines, rest, ok = rangeOf(rest); !ok {
		return bad()
	}
	if rest, ok = strings.CutPrefix(rest, " +"); !ok {
		return bad()
	}
	if h.NewStart, h.NewLines, rest, ok = rangeOf(rest); !ok {
		return bad()
	}
	if rest, ok = strings.CutPrefix(rest, " @@"); !ok {
		return bad()
	}
	h.Section = strings.TrimPrefix(rest, " ")
	switch {
	case h.OldLines == 0 && h.NewLines == 0:
		return nil, p.errorf("hunk %q has no lines", l)
	case h.OldStart == 0 && h.OldLines > 0, h.NewStart == 0 && h.NewLines > 0:
		return nil, p.errorf("hunk %q starts at line 0 but has lines", l)
	}
	return h, nil
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
	oldLeft, newLeft := h.OldLines, h.NewLines
	h.Lines = make([]Line, 0, min(oldLeft+newLeft, len(p.s)-p.off+1))
	var oldClosed, newClosed bool
	marker := func() error {
		if len(h.Lines) == 0 {
			return p.errorf("\"\\ No newline at end of file\" before any line of the hunk")
		}
		last := &h.Lines[len(h.Lines)-1]
		if last.NoNewline {
			return p.errorf("repeated \"\\ No newline at end of file\"")
		}
		last.NoNewline = true
		oldClosed = oldClosed || last.Op != Add
		newClosed = newClosed || last.Op != Del
		ended = true
		p.advance()
		return nil
	}
	for oldLeft > 0 || newLeft > 0 {
		found := func() (int, int) { return h.OldLines - oldLeft, h.NewLines - newLeft }
		if p.eof() {
			fo, fn := found()
			return false, p.errorf("hunk %q says %d old and %d new lines, found %d and %d before the patch ends",
				h.header(), h.OldLines, h.NewLines, fo, fn)
		}
		l := p.line()
		op, text := Context, ""
		if l != "" {
			op, text = Op(l[0]), l[1:]
		}
		switch op {
		case '\\':
			if err := marker(); err != nil {
				return false, err
			}
			continue
		case Context, Add, Del:
		default:
			fo, fn := found()
			return false, p.errorf("hunk %q says %d old and %d new lines, found %d and %d; this line is none of ' ', '-', '+'",
				h.header(), h.OldLines, h.NewLines, fo, fn)
		}
		if (op != Add && oldLeft == 0) || (op != Del && newLeft == 0) {
			fo, fn := found()
			side, n, f := "old", h.OldLines, fo
			if op != Del && newLeft == 0 {
				side, n, f = "new", h.NewLines, fn
			}
			return false, p.errorf("hunk %q says %d %s lines, found more (%d so far, then this %s line)",
				h.header(), n, side, f, op)
		}
		if (op != Add && oldClosed) || (op != Del && newClosed) {
			return false, p.errorf("line after \"\\ No newline at end of file\" on the same side")
		}
		h.Lines = append(h.Lines, Line{Op: op, Text: text})
		if op != Add {
			oldLeft--
		}
		if op != Del {
			newLeft--
		}
		p.advance()
	}
	for !p.eof() && strings.HasPrefix(p.line(), `\`) {
		if err := marker(); err != nil {
			return false, err
		}
	}
	return ended, nil
}
