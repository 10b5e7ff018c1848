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
		fd.writeGitLine(&b)
		fd.writeGitHeader(&b)
	} else {
		writeLines(&b, fd.Extended)
	}
	switch {
	case fd.IsBinary && len(fd.Binary) > 0:
		writeLines(&b, fd.Binary)
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

// writeGitLine writes the "diff --git" line, naming one side twice for a
// new or deleted file.
func (fd *FileDiff) writeGitLine(b *strings.Builder) {
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
}

// writeLines writes each of lines and a line break.
func writeLines(b *strings.Builder, lines []string) {
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
}

// writeLine writes the concatenation of parts and a line break.
func writeLine(b *strings.Builder, parts ...string) {
	for _, s := range parts {
		b.WriteString(s)
	}
	b.WriteByte('\n')
}

func (fd *FileDiff) writeGitHeader(b *strings.Builder) {
	indexMode := fd.writeModes(b)
	writeLines(b, fd.Extended)
	switch {
	case fd.IsRename:
		writeLine(b, "rename from ", quote(fd.OldPath))
		writeLine(b, "rename to ", quote(fd.NewPath))
	case fd.IsCopy:
		writeLine(b, "copy from ", quote(fd.OldPath))
		writeLine(b, "copy to ", quote(fd.NewPath))
	}
	if fd.OldHash != "" || fd.NewHash != "" {
		if indexMode != "" {
			writeLine(b, "index ", fd.OldHash, "..", fd.NewHash, " ", indexMode)
		} else {
			writeLine(b, "index ", fd.OldHash, "..", fd.NewHash)
		}
	}
}

// writeModes writes the mode headers, or returns the mode to put on the
// "index" line when an unchanged mode goes there instead.
func (fd *FileDiff) writeModes(b *strings.Builder) (indexMode string) {
	switch {
	case fd.IsNew:
		if fd.NewMode != "" {
			writeLine(b, "new file mode ", fd.NewMode)
		}
	case fd.IsDeleted:
		if fd.OldMode != "" {
			writeLine(b, "deleted file mode ", fd.OldMode)
		}
	case fd.OldMode == fd.NewMode && fd.OldHash != "":
		return fd.OldMode
	default:
		if fd.OldMode != "" {
			writeLine(b, "old mode ", fd.OldMode)
		}
		if fd.NewMode != "" {
			writeLine(b, "new mode ", fd.NewMode)
		}
	}
	return ""
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
