package diff

import (
	"math/bits"
	"strings"
)

var headerPrefixes = []string{"old mode ", "new mode ", "new file mode ", "deleted file mode ",
	"rename from ", "rename to ", "copy from ", "copy to ", "index "}

// extendedHeader recognises a git extended header line and returns its flag
// and value, or 0 when the line is not one of them.
func extendedHeader(l string) (int, string) {
	for i, pre := range headerPrefixes {
		if strings.HasPrefix(l, pre) {
			return 1 << i, l[len(pre):]
		}
	}
	return 0, ""
}

func bitIndex(key int) int { return bits.TrailingZeros(uint(key)) }

func (p *parser) mode(val string) (string, error) {
	m := strings.TrimSpace(val)
	if m == "" || len(m) > 8 {
		return "", p.errorf("%q: malformed file mode", p.hdr())
	}
	for i := 0; i < len(m); i++ {
		if !isOctal(m[i]) {
			return "", p.errorf("%q: malformed file mode", p.hdr())
		}
	}
	return m, nil
}

func (p *parser) pathValue(val string) (string, error) {
	name, err := parseName(val)
	if err != nil || name == "" {
		return "", p.errorf("%q: malformed file name", p.hdr())
	}
	return name, nil
}

// index parses "index OLD..NEW[ MODE]" into fd's hashes and returns MODE.
func (p *parser) index(fd *FileDiff, val string) (string, error) {
	f := strings.Fields(val)
	if len(f) == 0 || len(f) > 2 {
		return "", p.errorf("%q: want \"index OLD..NEW [MODE]\"", p.hdr())
	}
	oldH, newH, ok := strings.Cut(f[0], "..")
	if !ok || oldH == "" || newH == "" {
		return "", p.errorf("%q: want \"index OLD..NEW [MODE]\"", p.hdr())
	}
	fd.OldHash, fd.NewHash = oldH, newH
	if len(f) == 2 {
		return p.mode(f[1])
	}
	return "", nil
}

// gitHeaderCheck resolves a git file's names from its "---"/"+++" lines,
// rename/copy headers or "diff --git" line, and rejects contradictory
// headers (as git apply does) so that every parsed FileDiff renders to a
// patch that parses back to it.
func (p *parser) gitHeaderCheck(fd *FileDiff, h *gitHeader) error {
	if msg := headerConflict(h.seen, h.indexMode); msg != "" {
		return p.headerError(h, "%s", msg)
	}
	if h.indexMode != "" {
		fd.OldMode, fd.NewMode = h.indexMode, h.indexMode
	}
	fd.IsRename = h.seen&hRenameFrom != 0
	fd.IsCopy = h.seen&hCopyFrom != 0
	if err := p.gitNames(fd, h); err != nil {
		return err
	}
	if fd.IsNew && fd.OldMode != "" {
		return p.headerError(h, "new file with an old mode")
	}
	if fd.IsDeleted && fd.NewMode != "" {
		return p.headerError(h, "deleted file with a new mode")
	}
	return nil
}

// headerError is a *ParseError at the "diff --git" line of h.
func (p *parser) headerError(h *gitHeader, format string, args ...any) error {
	e := p.errorf(format, args...).(*ParseError)
	e.Line = h.no
	e.Msg = "diff --git header: " + e.Msg
	return e
}

const renameCopy = hRenameFrom | hRenameTo | hCopyFrom | hCopyTo

// headerConflicts are extended headers that may not come together: any of
// has with any of conflicts.
var headerConflicts = []struct {
	has, conflicts int
	msg            string
}{
	{hNewFile, hOldMode | hNewMode | hDeletedFile | renameCopy,
		"\"new file mode\" conflicts with other mode, delete, rename or copy headers"},
	{hDeletedFile, hOldMode | hNewMode | renameCopy,
		"\"deleted file mode\" conflicts with other mode, rename or copy headers"},
	{hRenameFrom | hRenameTo, hCopyFrom | hCopyTo, "both rename and copy headers"},
}

// headerPairs are extended headers that must come together.
var headerPairs = []struct {
	a, b int
	msg  string
}{
	{hRenameFrom, hRenameTo, "\"rename from\" and \"rename to\" must come together"},
	{hCopyFrom, hCopyTo, "\"copy from\" and \"copy to\" must come together"},
}

// headerConflict describes the first contradiction among the extended
// headers seen and the index line's mode, or returns "".
func headerConflict(seen int, indexMode string) string {
	for _, c := range headerConflicts {
		if seen&c.has != 0 && seen&c.conflicts != 0 {
			return c.msg
		}
	}
	for _, c := range headerPairs {
		if (seen&c.a != 0) != (seen&c.b != 0) {
			return c.msg
		}
	}
	if indexMode != "" && seen&(hOldMode|hNewMode|hNewFile|hDeletedFile) != 0 {
		return "index line carries a mode although mode headers are present"
	}
	return ""
}

// gitNames sets fd's paths and prefix from the "---"/"+++" lines when read
// (checking them against rename or copy headers), else from the rename or
// copy headers, else from the "diff --git" line.
func (p *parser) gitNames(fd *FileDiff, h *gitHeader) error {
	renamed := fd.IsRename || fd.IsCopy
	switch {
	case h.hasNames:
		if renamed && (fd.IsNew || fd.IsDeleted) {
			return p.headerError(h, "rename or copy of a new or deleted file")
		}
		if renamed && (h.from != fd.OldPath || h.to != fd.NewPath) {
			return p.headerError(h, "rename/copy headers name %q -> %q but \"---\"/\"+++\" name %q -> %q",
				h.from, h.to, fd.OldPath, fd.NewPath)
		}
	case renamed:
		fd.OldPath, fd.NewPath = h.from, h.to
		fd.Prefix = h.line == quote("a/"+h.from)+" "+quote("b/"+h.to)
	default:
		return p.namesFromGitLine(fd, h)
	}
	return nil
}

// namesFromGitLine sets fd's paths from a "diff --git" line that names
// the same file twice; a new file has no old path, a deleted one no new.
func (p *parser) namesFromGitLine(fd *FileDiff, h *gitHeader) error {
	n, prefixed, ok := parseGitLine(h.line)
	if !ok {
		return p.headerError(h, "cannot tell the file name from %q; a header without rename lines must name the same file twice", h.line)
	}
	fd.Prefix = prefixed
	fd.OldPath, fd.NewPath = n, n
	if fd.IsNew {
		fd.OldPath = ""
	}
	if fd.IsDeleted {
		fd.NewPath = ""
	}
	return nil
}

// parseGitLine reads the two names of "diff --git A B", which must be the
// same file (optionally with a/ and b/ prefixes).
func parseGitLine(s string) (name string, prefixed, ok bool) {
	a, b, ok := splitGitLine(s)
	switch {
	case !ok || a == "" || b == "":
		return "", false, false
	case hasPrefix(a, "a/") && hasPrefix(b, "b/") && a[2:] == b[2:]:
		return a[2:], true, true
	case a == b:
		return a, false, true
	}
	return "", false, false
}

// splitBeforeQuoted splits "A \"B\"" at the first space followed by a
// well-formed quoted name that runs to the end.
func splitBeforeQuoted(s string) (a, b string, ok bool) {
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' || i+1 >= len(s) || s[i+1] != '"' {
			continue
		}
		if m, err := parseName(s[i+1:]); err == nil {
			return s[:i], m, true
		}
	}
	return "", "", false
}

// splitGitLine splits "A B" into its names, unquoting quoted ones.
// Unquoted names may contain spaces, so a line of two unquoted names is
// split in the middle.
func splitGitLine(s string) (a, b string, ok bool) {
	switch {
	case strings.HasPrefix(s, `"`):
		n, rest, err := unquote(s)
		if err != nil || !strings.HasPrefix(rest, " ") {
			return "", "", false
		}
		m, err := parseName(rest[1:])
		if err != nil {
			return "", "", false
		}
		return n, m, true
	case strings.HasSuffix(s, `"`):
		return splitBeforeQuoted(s)
	}
	mid := len(s) / 2
	if len(s)%2 == 0 || s[mid] != ' ' {
		return "", "", false
	}
	return s[:mid], s[mid+1:], true
}
