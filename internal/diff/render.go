package diff

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Format writes the files as one patch.
func Format(w io.Writer, files []*FileDiff) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	for _, fd := range files {
		if _, err := bw.WriteString(fd.String()); err != nil {
			return fmt.Errorf("format diff %s: %w", fd.Name(), err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("format diff: %w", err)
	}
	return nil
}

// String renders the file's part of a patch in the format it was parsed
// from (git when Git is set, else plain "---"/"+++" after the Extended
// lines).
func (fd *FileDiff) String() string {
	var b strings.Builder
	oldName, newName := fd.label(false), fd.label(true)
	if fd.Git {
		b.WriteString("diff --git ")
		oldP, newP := fd.OldPath, fd.NewPath
		if oldP == "" {
			oldP = newP
		}
		if newP == "" {
			newP = oldP
		}
		b.WriteString(quote(fd.prefix("a/") + oldP))
		b.WriteByte(' ')
		b.WriteString(quote(fd.prefix("b/") + newP))
		b.WriteByte('\n')
		fd.writeGitHeader(&b)
	} else {
		for _, e := range fd.Extended {
			b.WriteString(e)
			b.WriteByte('\n')
		}
	}
	switch {
	case fd.IsBinary && len(fd.Binary) > 0:
		for _, l := range fd.Binary {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		return b.String()
	case fd.IsBinary:
		fmt.Fprintf(&b, "Binary files %s and %s differ\n", oldName, newName)
		return b.String()
	case fd.Git && len(fd.Hunks) == 0:
		return b.String()
	}
	writeFileLine(&b, "--- ", oldName, fd.OldTime)
	writeFileLine(&b, "+++ ", newName, fd.NewTime)
	for _, h := range fd.Hunks {
		h.write(&b)
	}
	return b.String()
}

func (fd *FileDiff) prefix(p string) string {
	if fd.Prefix {
		return p
	}
	return ""
}

// label is a side's name as written on "---"/"+++" lines: quoted, with
// prefix, or /dev/null.
func (fd *FileDiff) label(newSide bool) string {
	switch {
	case !newSide && fd.IsNew, newSide && fd.IsDeleted:
		return "/dev/null"
	case newSide:
		return quote(fd.prefix("b/") + fd.NewPath)
	}
	return quote(fd.prefix("a/") + fd.OldPath)
}

func writeFileLine(b *strings.Builder, lead, name, time string) {
	b.WriteString(lead)
	b.WriteString(name)
	// git ends the line with a TAB when the name has a space, for patch(1).
	if time != "" || strings.Contains(name, " ") {
		b.WriteByte('\t')
		b.WriteString(time)
	}
	b.WriteByte('\n')
}

func (fd *FileDiff) writeGitHeader(b *strings.Builder) {
	line := func(parts ...string) {
		for _, s := range parts {
			b.WriteString(s)
		}
		b.WriteByte('\n')
	}
	indexMode := ""
	switch {
	case fd.IsNew:
		if fd.NewMode != "" {
			line("new file mode ", fd.NewMode)
		}
	case fd.IsDeleted:
		if fd.OldMode != "" {
			line("deleted file mode ", fd.OldMode)
		}
	case fd.OldMode == fd.NewMode && fd.OldHash != "":
		indexMode = fd.OldMode
	default:
		if fd.OldMode != "" {
			line("old mode ", fd.OldMode)
		}
		if fd.NewMode != "" {
			line("new mode ", fd.NewMode)
		}
	}
	for _, e := range fd.Extended {
		line(e)
	}
	switch {
	case fd.IsRename:
		line("rename from ", quote(fd.OldPath))
		line("rename to ", quote(fd.NewPath))
	case fd.IsCopy:
		line("copy from ", quote(fd.OldPath))
		line("copy to ", quote(fd.NewPath))
	}
	if fd.OldHash != "" || fd.NewHash != "" {
		if indexMode != "" {
			line("index ", fd.OldHash, "..", fd.NewHash, " ", indexMode)
		} else {
			line("index ", fd.OldHash, "..", fd.NewHash)
		}
	}
}

// String renders the hunk: header, lines and no-newline markers.
func (h *Hunk) String() string {
	var b strings.Builder
	h.write(&b)
	return b.String()
}

func (h *Hunk) write(b *strings.Builder) {
	b.WriteString(h.header())
	b.WriteByte('\n')
	for _, l := range h.Lines {
		b.WriteByte(byte(l.Op))
		b.WriteString(l.Text)
		b.WriteByte('\n')
		if l.NoNewline {
			b.WriteString("\\ No newline at end of file\n")
		}
	}
}
