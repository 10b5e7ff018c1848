package diff

import (
	"fmt"
	"io"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
)

// maxNum bounds line numbers and counts in hunk headers so that arithmetic
// on them cannot overflow.
const maxNum = 1 << 30

// Parse reads a whole patch. See ParseString.
func Parse(r io.Reader) ([]*FileDiff, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("parse diff: read: %w", err)
	}
	return ParseString(string(data))
}

// ParseBytes parses a patch held in memory. See ParseString.
func ParseBytes(data []byte) ([]*FileDiff, error) { return ParseString(string(data)) }

// ParseString parses a patch of one or more files: git patches ("diff
// --git" with extended headers, binary markers), plain `diff -u` output and
// SVN patches ("Index:" headers). Text outside any file (mail headers,
// commit messages) is skipped. A malformed patch gives a *ParseError naming
// the input line; a combined (merge) diff gives an error wrapping
// errs.ErrUnsupported. Line texts share memory with s.
func ParseString(s string) ([]*FileDiff, error) {
	p := &parser{s: s}
	p.load()
	var files []*FileDiff
	var pending []string // lines since the last file: a plain file's header
	for !p.eof() {
		line := p.line()
		switch {
		case strings.HasPrefix(line, "diff --git "):
			fd, err := p.gitFile()
			if err != nil {
				return nil, err
			}
			files = append(files, fd)
			pending = nil
		case strings.HasPrefix(line, "diff --cc ") || strings.HasPrefix(line, "diff --combined "):
			return nil, p.unsupported("combined diff of a merge commit")
		case strings.HasPrefix(line, "--- ") && strings.HasPrefix(p.peek(), "+++ "):
			fd := &FileDiff{Extended: pending}
			pending = nil
			if err := p.plainFile(fd); err != nil {
				return nil, err
			}
			files = append(files, fd)
		case strings.HasPrefix(line, "@@ -"):
			return nil, p.errorf("hunk header outside a file (no \"---\"/\"+++\" lines before it)")
		default:
			pending = append(pending, line)
			p.advance()
		}
	}
	return files, nil
}

type parser struct {
	s        string
	off, end int // current line is s[off:end]; s[end] is '\n' or end == len(s)
	no       int // 1-based number of the current line
}

func (p *parser) load() {
	p.no++
	if p.off >= len(p.s) {
		p.end = p.off
		return
	}
	if i := strings.IndexByte(p.s[p.off:], '\n'); i >= 0 {
		p.end = p.off + i
	} else {
		p.end = len(p.s)
	}
}

func (p *parser) eof() bool    { return p.off >= len(p.s) }
func (p *parser) line() string { return p.s[p.off:p.end] }
func (p *parser) advance()     { p.off = p.end + 1; p.load() }
func (p *parser) hdr() string  { return strings.TrimSuffix(p.line(), "\r") }
func (p *parser) peek() string {
	start := p.end + 1
	if start >= len(p.s) {
		return ""
	}
	if i := strings.IndexByte(p.s[start:], '\n'); i >= 0 {
		return p.s[start : start+i]
	}
	return p.s[start:]
}

func (p *parser) errorf(format string, args ...any) error {
	return &ParseError{Line: p.no, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) unsupported(what string) error {
	return fmt.Errorf("diff line %d: %s is not supported: %w", p.no, what, errs.ErrUnsupported)
}

// name is one side's name as read from a "---"/"+++" line.
type name struct {
	path    string
	devnull bool
	time    string
}

// fileLine parses the text after "--- " or "+++ ".
func (p *parser) fileLine(rest string) (name, error) {
	tok, time, _ := strings.Cut(rest, "\t")
	if tok == "" {
		return name{}, p.errorf("%q names no file", p.hdr())
	}
	if tok == "/dev/null" {
		return name{devnull: true, time: time}, nil
	}
	path, err := parseName(tok)
	if err != nil || path == "" {
		return name{}, p.errorf("%q: malformed file name", p.hdr())
	}
	return name{path: path, time: time}, nil
}

// names reads the "---" and "+++" lines (the current line and the next),
// sets paths, times, prefix and new/deleted status, and advances past them.
func (p *parser) names(fd *FileDiff) error {
	oldN, err := p.fileLine(p.hdr()[4:])
	if err != nil {
		return err
	}
	p.advance()
	newN, err := p.fileLine(p.hdr()[4:])
	if err != nil {
		return err
	}
	if oldN.devnull && newN.devnull {
		return p.errorf("both \"---\" and \"+++\" are /dev/null")
	}
	fd.Prefix = gitPrefixed(oldN, newN)
	if fd.IsNew && !oldN.devnull {
		return p.errorf("new file, but \"---\" names %q instead of /dev/null", oldN.path)
	}
	if fd.IsDeleted && !newN.devnull {
		return p.errorf("deleted file, but \"+++\" names %q instead of /dev/null", newN.path)
	}
	fd.IsNew, fd.IsDeleted = oldN.devnull, newN.devnull
	fd.OldPath, fd.NewPath = strip(oldN.path, fd.Prefix), strip(newN.path, fd.Prefix)
	fd.OldTime, fd.NewTime = oldN.time, newN.time
	p.advance()
	return nil
}

// gitPrefixed reports whether the names carry git's a/ and b/ prefixes
// (judged on the side that is not /dev/null).
func gitPrefixed(oldN, newN name) bool {
	switch {
	case oldN.devnull:
		return hasPrefix(newN.path, "b/")
	case newN.devnull:
		return hasPrefix(oldN.path, "a/")
	}
	return hasPrefix(oldN.path, "a/") && hasPrefix(newN.path, "b/")
}

// hasPrefix reports whether s starts with a prefix and has more after it.
func hasPrefix(s, prefix string) bool { return len(s) > len(prefix) && strings.HasPrefix(s, prefix) }

func strip(s string, prefixed bool) string {
	if prefixed && len(s) > 2 {
		return s[2:]
	}
	return s
}

// plainFile parses a file that starts at a "---" line.
func (p *parser) plainFile(fd *FileDiff) error {
	if err := p.names(fd); err != nil {
		return err
	}
	return p.hunks(fd)
}

// header flags of a git extended header, each allowed once.
const (
	hOldMode = 1 << iota
	hNewMode
	hNewFile
	hDeletedFile
	hRenameFrom
	hRenameTo
	hCopyFrom
	hCopyTo
	hIndex
)

var headerNames = []string{"old mode", "new mode", "new file mode", "deleted file mode",
	"rename from", "rename to", "copy from", "copy to", "index"}

// gitHeader is what gitFile gathers from a git file's header lines.
type gitHeader struct {
	line      string // the "diff --git" line after that prefix
	no        int    // its line number
	seen      int    // the extended headers present (h* flags)
	from, to  string // rename or copy names
	indexMode string // the mode on the "index" line
	hasNames  bool   // "---"/"+++" lines were read
}

// gitFile parses a file that starts at a "diff --git" line.
func (p *parser) gitFile() (*FileDiff, error) {
	h := &gitHeader{line: p.hdr()[len("diff --git "):], no: p.no}
	fd := &FileDiff{Git: true}
	p.advance()
	if err := p.gitHeaderLines(fd, h); err != nil {
		return nil, err
	}
	if err := p.gitHeaderCheck(fd, h); err != nil {
		return nil, err
	}
	if h.hasNames {
		if err := p.hunks(fd); err != nil {
			return nil, err
		}
		if len(fd.Hunks) == 0 {
			return nil, p.errorf("git \"---\"/\"+++\" lines of %s not followed by a hunk", fd.Name())
		}
	}
	return fd, nil
}

// gitHeaderLines reads a git file's header up to and including its
// "---"/"+++" lines or binary marker, or up to the next file.
func (p *parser) gitHeaderLines(fd *FileDiff, h *gitHeader) error {
	for !p.eof() {
		l := p.hdr()
		if key, val := extendedHeader(l); key != 0 {
			if err := p.extendedLine(fd, h, key, val); err != nil {
				return err
			}
			p.advance()
			continue
		}
		done, err := p.gitHeaderEnd(fd, h, l)
		if err != nil || done {
			return err
		}
	}
	return nil
}

// extendedLine records the extended header line key with value val.
func (p *parser) extendedLine(fd *FileDiff, h *gitHeader, key int, val string) error {
	if h.seen&key != 0 {
		return p.errorf("repeated %q header", headerNames[bitIndex(key)])
	}
	h.seen |= key
	var err error
	switch key {
	case hOldMode:
		fd.OldMode, err = p.mode(val)
	case hNewMode:
		fd.NewMode, err = p.mode(val)
	case hNewFile:
		fd.IsNew = true
		fd.NewMode, err = p.mode(val)
	case hDeletedFile:
		fd.IsDeleted = true
		fd.OldMode, err = p.mode(val)
	case hRenameFrom, hCopyFrom:
		h.from, err = p.pathValue(val)
	case hRenameTo, hCopyTo:
		h.to, err = p.pathValue(val)
	case hIndex:
		h.indexMode, err = p.index(fd, val)
	}
	return err
}

// gitHeaderEnd handles a header line l that is not an extended header:
// done reports that the header ended (names or binary marker read, or the
// next file begins); other lines are kept in fd.Extended.
func (p *parser) gitHeaderEnd(fd *FileDiff, h *gitHeader, l string) (done bool, err error) {
	switch {
	case strings.HasPrefix(l, "--- "):
		if !strings.HasPrefix(p.peek(), "+++ ") {
			return false, p.errorf("\"---\" line not followed by a \"+++\" line")
		}
		if err := p.names(fd); err != nil {
			return false, err
		}
		h.hasNames = true
		return true, nil
	case strings.HasPrefix(l, "Binary files ") && strings.HasSuffix(l, " differ"):
		fd.IsBinary = true
		p.advance()
		return true, nil
	case l == "GIT binary patch":
		p.binaryPatch(fd)
		return true, nil
	case strings.HasPrefix(l, "diff --git "), strings.HasPrefix(l, "diff --cc "),
		strings.HasPrefix(l, "diff --combined "):
		return true, nil
	case strings.HasPrefix(l, "@@ -"):
		return false, p.errorf("hunk without \"---\"/\"+++\" lines")
	}
	fd.Extended = append(fd.Extended, p.line())
	p.advance()
	return false, nil
}

// binaryPatch keeps the lines of a "GIT binary patch", up to the next
// file, in fd.Binary.
func (p *parser) binaryPatch(fd *FileDiff) {
	fd.IsBinary = true
	for !p.eof() && !strings.HasPrefix(p.line(), "diff --git ") {
		fd.Binary = append(fd.Binary, p.line())
		p.advance()
	}
}
