package ngram

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
)

// Corpus names the training text: directories (walked recursively), ZIP
// archives (such as the JDK's lib/src.zip) and single files. Include and
// Exclude are globs over the slash-separated path of a file relative to its
// directory or archive root ("java.base/java/lang/String.java"); a pattern
// without "/" matches the base name, "*" and "?" stay within one path
// element and "**" crosses elements. With no Include, DefaultInclude is
// used. Files are read in a fixed order (sorted directory walk, archive
// order) so training is deterministic.
type Corpus struct {
	Paths []string
	// Snapshots are trees read through a function, e.g. a repository at a
	// commit; Include and Exclude apply to their paths as to a directory's.
	Snapshots    []Snapshot
	Include      []string
	Exclude      []string
	MaxBytes     int64 // stop adding files once this many bytes are taken; 0 = no limit
	MaxFileBytes int64 // skip larger files (generated code); 0 = 4 MiB
	// Docs are in-memory documents trained after the files of Paths, in
	// the order given (named explicitly: Include/Exclude do not apply,
	// MaxBytes and MaxFileBytes do). Callers that hold text already, such
	// as a testbed reading repositories straight from git, need not write
	// it to disk first.
	Docs []Doc
}

// Doc is one in-memory training document; Name is used in errors only.
type Doc struct {
	Name string
	Text []byte
}

// Snapshot is a tree of files that is not on disk, such as a git
// repository at a commit.
type Snapshot struct {
	// Name names the tree in errors, e.g. "clones/lang.git@2019-01-01".
	Name string
	// Paths are the tree's files, slash-separated, in training order.
	Paths []string
	// Read returns the contents of paths.
	Read func(ctx context.Context, paths []string) (map[string][]byte, error)
}

// DefaultInclude is the source-file globs used when Corpus.Include is empty.
var DefaultInclude = []string{
	"*.java", "*.py", "*.go", "*.c", "*.h", "*.cc", "*.cpp", "*.hpp", "*.js", "*.ts",
	"*.kt", "*.scala", "*.rs", "*.rb", "*.cs", "*.php", "*.swift",
}

const defaultMaxFileBytes = 4 << 20

// sourceFile is one selected corpus member.
type sourceFile struct {
	name string // root path plus relative path, for errors
	size int64
	open func() (io.ReadCloser, error)
}

type globSet []*regexp.Regexp

func compileGlobs(pats []string) (globSet, error) {
	var gs globSet
	for _, p := range pats {
		if p == "" {
			return nil, fmt.Errorf("glob %q: empty pattern: %w", p, errs.ErrUsage)
		}
		re, err := regexp.Compile(globRegexp(p))
		if err != nil {
			return nil, fmt.Errorf("glob %q: %v: %w", p, err, errs.ErrUsage)
		}
		gs = append(gs, re)
	}
	return gs, nil
}

// globRegexp translates a glob into an anchored regular expression: "*"
// and "?" stay within a path element, "**" crosses elements ("**/" also
// matches none), and a pattern without "/" matches the base name.
func globRegexp(p string) string {
	var b strings.Builder
	b.WriteString("^")
	if !strings.Contains(p, "/") {
		b.WriteString("(?:.*/)?")
	}
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '*' && i+2 < len(p) && p[i+1] == '*' && p[i+2] == '/':
			i += 2
			b.WriteString("(?:.*/)?")
		case c == '*' && i+1 < len(p) && p[i+1] == '*':
			i++
			b.WriteString(".*")
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return b.String()
}

func (gs globSet) match(rel string) bool {
	for _, re := range gs {
		if re.MatchString(rel) {
			return true
		}
	}
	return false
}

// files lists the selected corpus members in training order and their
// total size. Archives stay open until closeAll is called.
func (c Corpus) files(ctx context.Context) (files []sourceFile, total int64, closeAll func(), err error) {
	l, err := c.newLister()
	if err != nil {
		return nil, 0, nil, err
	}
	if len(c.Paths) == 0 && len(c.Snapshots) == 0 && len(c.Docs) == 0 {
		return nil, 0, l.closeAll, fmt.Errorf("corpus: no paths given: %w", errs.ErrUsage)
	}
	for _, root := range c.Paths {
		if err := l.addRoot(ctx, root); err != nil {
			l.closeAll()
			return nil, 0, nil, err
		}
	}
	for _, sn := range c.Snapshots {
		if err := l.addSnapshot(ctx, sn); err != nil {
			l.closeAll()
			return nil, 0, nil, err
		}
	}
	for _, d := range c.Docs {
		l.addDoc(d)
	}
	return l.files, l.total, l.closeAll, nil
}

// lister collects a corpus's files in training order, applying the globs
// and the size limits, and keeps the archives it opened.
type lister struct {
	incG, excG globSet
	maxFile    int64
	maxBytes   int64
	files      []sourceFile
	total      int64
	full       bool // MaxBytes reached: nothing more is taken
	closers    []io.Closer
}

func (c Corpus) newLister() (*lister, error) {
	inc := c.Include
	if len(inc) == 0 {
		inc = DefaultInclude
	}
	incG, err := compileGlobs(inc)
	if err != nil {
		return nil, err
	}
	excG, err := compileGlobs(c.Exclude)
	if err != nil {
		return nil, err
	}
	maxFile := c.MaxFileBytes
	if maxFile <= 0 {
		maxFile = defaultMaxFileBytes
	}
	return &lister{incG: incG, excG: excG, maxFile: maxFile, maxBytes: c.MaxBytes}, nil
}

func (l *lister) closeAll() {
	for _, cl := range l.closers {
		cl.Close()
	}
}

// selected says whether the globs take the file at rel.
func (l *lister) selected(rel string) bool { return l.incG.match(rel) && !l.excG.match(rel) }

// add takes f, found at rel under its root, if the globs and limits let it.
func (l *lister) add(f sourceFile, rel string) {
	if l.full || f.size > l.maxFile || !l.selected(rel) {
		return
	}
	l.take(f)
}

// take appends f and marks the corpus full once MaxBytes is reached.
func (l *lister) take(f sourceFile) {
	l.files = append(l.files, f)
	l.total += f.size
	if l.maxBytes > 0 && l.total >= l.maxBytes {
		l.full = true
	}
}

// addRoot adds one of Corpus.Paths: a directory, a ZIP or JAR archive, or
// a single file.
func (l *lister) addRoot(ctx context.Context, root string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	st, err := os.Stat(root)
	if err != nil {
		return fmt.Errorf("corpus %s: %w: %w", root, err, errs.ErrNotFound)
	}
	switch {
	case st.IsDir():
		return l.addDir(root)
	case strings.EqualFold(filepath.Ext(root), ".zip") || strings.EqualFold(filepath.Ext(root), ".jar"):
		return l.addZip(root)
	default:
		p := root
		f := sourceFile{name: p, size: st.Size(), open: func() (io.ReadCloser, error) { return os.Open(p) }}
		if st.Size() <= l.maxFile && !l.full {
			// Named explicitly: globs do not apply. (Unlike the other
			// sources, a single file does not mark the corpus full.)
			l.files = append(l.files, f)
			l.total += f.size
		}
		return nil
	}
}

func (l *lister) addDir(root string) error {
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		l.add(sourceFile{name: p, size: info.Size(), open: func() (io.ReadCloser, error) { return os.Open(p) }}, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return fmt.Errorf("corpus %s: walk: %w: %w", root, err, errs.ErrInput)
	}
	return nil
}

func (l *lister) addZip(root string) error {
	zr, err := zip.OpenReader(root)
	if err != nil {
		return fmt.Errorf("corpus %s: open zip: %w: %w", root, err, errs.ErrInput)
	}
	l.closers = append(l.closers, zr)
	for _, zf := range zr.File {
		if zf.FileInfo().IsDir() {
			continue
		}
		l.add(sourceFile{name: root + "!" + zf.Name, size: int64(zf.UncompressedSize64), open: zf.Open}, path.Clean(zf.Name))
	}
	return nil
}

// addSnapshot reads the snapshot's selected paths and adds them.
func (l *lister) addSnapshot(ctx context.Context, sn Snapshot) error {
	var want []string
	for _, p := range sn.Paths {
		if l.selected(p) {
			want = append(want, p)
		}
	}
	if l.full || len(want) == 0 {
		return nil
	}
	data, err := sn.Read(ctx, want)
	if err != nil {
		return fmt.Errorf("corpus %s: %w", sn.Name, err)
	}
	for _, p := range want {
		b, ok := data[p]
		if !ok {
			continue
		}
		l.add(sourceFile{name: sn.Name + ":" + p, size: int64(len(b)), open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }}, p)
	}
	return nil
}

// addDoc adds an in-memory document (named explicitly: globs do not
// apply, the size limits do).
func (l *lister) addDoc(d Doc) {
	text := d.Text
	if int64(len(text)) > l.maxFile || l.full {
		return
	}
	l.take(sourceFile{name: d.Name, size: int64(len(text)),
		open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(text)), nil }})
}

// readSource reads f, returning ok=false for binary files (a NUL byte in
// the first 8 KiB).
func readSource(f sourceFile, buf *bytes.Buffer) (ok bool, err error) {
	rc, err := f.open()
	if err != nil {
		return false, fmt.Errorf("corpus file %s: %w: %w", f.name, err, errs.ErrInput)
	}
	defer rc.Close()
	buf.Reset()
	if _, err := io.Copy(buf, io.LimitReader(rc, f.size+1)); err != nil {
		return false, fmt.Errorf("corpus file %s: read: %w: %w", f.name, err, errs.ErrInput)
	}
	head := buf.Bytes()
	if len(head) > 8192 {
		head = head[:8192]
	}
	return bytes.IndexByte(head, 0) < 0, nil
}
