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
func (p *parser) gitHeaderCheck(fd *FileDiff, seen int, from, to, indexMode, gitLine string, gitNo int, hasNames bool) error {
	fail := func(format string, args ...any) error {
		e := p.errorf(format, args...).(*ParseError)
		e.Line = gitNo
		e.Msg = "diff --git header: " + e.Msg
		return e
	}
	const renameCopy = hRenameFrom | hRenameTo | hCopyFrom | hCopyTo
	switch {
	case seen&hNewFile != 0 && seen&(hOldMode|hNewMode|hDeletedFile|renameCopy) != 0:
		return fail("\"new file mode\" conflicts with other mode, delete, rename or copy headers")
	case seen&hDeletedFile != 0 && seen&(hOldMode|hNewMode|renameCopy) != 0:
		return fail("\"deleted file mode\" conflicts with other mode, rename or copy headers")
	case seen&(hRenameFrom|hRenameTo) != 0 && seen&(hCopyFrom|hCopyTo) != 0:
		return fail("both rename and copy headers")
	case (seen&hRenameFrom != 0) != (seen&hRenameTo != 0):
		return fail("\"rename from\" and \"rename to\" must come together")
	case (seen&hCopyFrom != 0) != (seen&hCopyTo != 0):
		return fail("\"copy from\" and \"copy to\" must come together")
	case indexMode != "" && seen&(hOldMode|hNewMode|hNewFile|hDeletedFile) != 0:
		return fail("index line carries a mode although mode headers are present")
	}
	if indexMode != "" {
		fd.OldMode, fd.NewMode = indexMode, indexMode
	}
	fd.IsRename = seen&hRenameFrom != 0
	fd.IsCopy = seen&hCopyFrom != 0
	switch {
	case hasNames:
		if (fd.IsRename || fd.IsCopy) && (fd.IsNew || fd.IsDeleted) {
			return fail("rename or copy of a new or deleted file")
		}
		if (fd.IsRename || fd.IsCopy) && (from != fd.OldPath || to != fd.NewPath) {
			return fail("rename/copy headers name %q -> %q but \"---\"/\"+++\" name %q -> %q",
				from, to, fd.OldPath, fd.NewPath)
		}
	case fd.IsRename || fd.IsCopy:
		fd.OldPath, fd.NewPath = from, to
		fd.Prefix = gitLine == quote("a/"+from)+" "+quote("b/"+to)
	default:
		n, prefixed, ok := parseGitLine(gitLine)
		if !ok {
			return fail("cannot tell the file name from %q; a header without rename lines must name the same file twice", gitLine)
		}
		fd.Prefix = prefixed
		fd.OldPath, fd.NewPath = n, n
		if fd.IsNew {
			fd.OldPath = ""
		}
		if fd.IsDeleted {
			fd.NewPath = ""
		}
	}
	if fd.IsNew && fd.OldMode != "" {
		return fail("new file with an old mode")
	}
	if fd.IsDeleted && fd.NewMode != "" {
		return fail("deleted file with a new mode")
	}
	return nil
}

// parseGitLine reads the two names of "diff --git A B", which must be the
// same file (optionally with a/ and b/ prefixes). Unquoted names may
// contain spaces, so the line is split in the middle.
func parseGitLine(s string) (name string, prefixed, ok bool) {
	var a, b string
	switch {
	case strings.HasPrefix(s, `"`):
		n, rest, err := unquote(s)
		if err != nil || !strings.HasPrefix(rest, " ") {
			return "", false, false
		}
		m, err := parseName(rest[1:])
		if err != nil {
			return "", false, false
		}
		a, b = n, m
	case strings.HasSuffix(s, `"`):
		found := false
		for i := 0; i < len(s) && !found; i++ {
			if s[i] != ' ' || i+1 >= len(s) || s[i+1] != '"' {
				continue
			}
			if m, err := parseName(s[i+1:]); err == nil {
				a, b, found = s[:i], m, true
			}
		}
		if !found {
			return "", false, false
		}
	default:
		mid := len(s) / 2
		if len(s)%2 == 0 || s[mid] != ' ' {
			return "", false, false
		}
		a, b = s[:mid], s[mid+1:]
	}
	switch {
	case a == "" || b == "":
		return "", false, false
	case hasPrefix(a, "a/") && hasPrefix(b, "b/") && a[2:] == b[2:]:
		return a[2:], true, true
	case a == b:
		return a, false, true
	}
	return "", false, false
}
