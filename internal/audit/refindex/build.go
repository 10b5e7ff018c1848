package refindex

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
)

// Kind is the layout of a corpus source.
type Kind string

// Source kinds. KindAuto picks by the path: a directory is KindDir, a
// .zip/.jar file KindZip, a .parquet file KindParquet.
const (
	KindAuto    Kind = ""
	KindDir     Kind = "dir"
	KindZip     Kind = "zip"
	KindParquet Kind = "parquet"
)

// Source is one corpus to count.
type Source struct {
	Path string
	Kind Kind
	// Prefix is prepended to every repository name of this source, to keep
	// names unique across sources ("jdk/", "python/").
	Prefix string
	// Skip lists top-level entries (DIR and ZIP) that are not repositories.
	Skip []string
	// RepoColumn and ContentColumn name the Parquet columns; empty means
	// the first present of DefaultRepoColumns resp. DefaultContentColumns.
	RepoColumn, ContentColumn string
}

// DefaultExts are the file extensions Build reads from DIR and ZIP sources
// when Options.Exts is empty.
var DefaultExts = []string{
	".java", ".py", ".pyi", ".go", ".c", ".h", ".cc", ".cpp", ".hpp", ".js", ".ts",
	".kt", ".scala", ".rs", ".rb", ".cs", ".php", ".swift",
}

// Options tune Build.
type Options struct {
	// Exts are the file extensions read from DIR and ZIP sources; empty
	// means DefaultExts, ["*"] means every text file. Parquet rows are not
	// filtered.
	Exts []string
	// MaxFileBytes skips larger files (generated code); 0 means 4 MiB.
	MaxFileBytes int64
	// Progress, when set, is called after every file or Parquet row group.
	Progress func(Progress)
}

// Progress reports how far Build is.
type Progress struct {
	Source string // path of the source being read
	Repos  int    // repositories seen so far, all sources
	Files  int64  // files (or rows) read so far, all sources
	Bytes  int64  // bytes read so far, all sources
	// Total is the number of bytes Build expects to read in all, when
	// known before reading (DIR and ZIP sources); 0 when unknown.
	Total int64
}

const defaultMaxFileBytes = 4 << 20

// builder accumulates repository frequencies. Every repository keeps the
// list of word ids it contains; consecutive duplicates are dropped with a
// per-word "last repository" mark, and lists are sorted and deduplicated
// when they double, so memory stays near the sum of the repositories'
// vocabularies even when a source interleaves repositories.
type builder struct {
	ids   map[string]uint32
	words []string
	last  []uint32 // per word: repository serial + 1 that last added it
	repos map[string]int
	lists [][]uint32 // per repository serial
	clean []int      // per repository: length of the sorted, unique head
	prog  Progress
	opts  Options
}

func newBuilder(opts Options) *builder {
	return &builder{ids: map[string]uint32{}, repos: map[string]int{}, opts: opts}
}

// repo returns the serial of repository name, creating it.
func (b *builder) repo(name string) int {
	if r, ok := b.repos[name]; ok {
		return r
	}
	r := len(b.lists)
	b.repos[name] = r
	b.lists = append(b.lists, nil)
	b.clean = append(b.clean, 0)
	b.prog.Repos = len(b.lists)
	return r
}

// add counts the words of src for repository serial r.
func (b *builder) add(r int, src []byte) {
	mark := uint32(r + 1)
	list := b.lists[r]
	Words(src, func(w []byte) {
		id, ok := b.ids[string(w)]
		if !ok {
			id = uint32(len(b.words))
			s := string(w)
			b.ids[s] = id
			b.words = append(b.words, s)
			b.last = append(b.last, 0)
		}
		if b.last[id] != mark {
			b.last[id] = mark
			list = append(list, id)
		}
	})
	if len(list) > 2*b.clean[r]+1024 {
		list = compact(list)
		b.clean[r] = len(list)
	}
	b.lists[r] = list
}

func compact(list []uint32) []uint32 {
	slices.Sort(list)
	return slices.Compact(list)
}

// index turns the accumulated lists into an Index.
func (b *builder) index() (*Index, error) {
	counts := make([]uint32, len(b.words))
	for r, list := range b.lists {
		for _, id := range compact(list) {
			counts[id]++
		}
		b.lists[r] = nil
	}
	order := make([]int, len(b.words))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return b.words[order[i]] < b.words[order[j]] })
	words := make([]string, len(order))
	cs := make([]uint32, len(order))
	for k, i := range order {
		words[k], cs[k] = b.words[i], counts[i]
	}
	names := make([]string, 0, len(b.repos))
	for n := range b.repos {
		names = append(names, n)
	}
	return newIndex(len(b.repos), sortedUnique(names), words, cs)
}

func (b *builder) progress(src string) {
	if b.opts.Progress != nil {
		p := b.prog
		p.Source = src
		b.opts.Progress(p)
	}
}

// Build counts, for every word of the sources, the repositories that
// contain it. Repositories with the same name (after Prefix) in several
// sources are one repository. A repository counts once it has a file
// that passes the filters (extension, size); a Parquet row with a null or
// empty repository or content is skipped.
func Build(ctx context.Context, sources []Source, opts Options) (*Index, error) {
	if len(sources) == 0 {
		return nil, fmt.Errorf("refindex.Build: %w: no corpus given", errs.ErrUsage)
	}
	if opts.MaxFileBytes <= 0 {
		opts.MaxFileBytes = defaultMaxFileBytes
	}
	if len(opts.Exts) == 0 {
		opts.Exts = DefaultExts
	}
	b := newBuilder(opts)
	plans, err := planAll(sources, opts)
	if err != nil {
		return nil, err
	}
	for _, p := range plans {
		b.prog.Total += p.total
	}
	defer func() {
		for _, p := range plans {
			p.close()
		}
	}()
	for i, p := range plans {
		if err := p.run(ctx, b); err != nil {
			return nil, fmt.Errorf("refindex.Build(%s): %w", sources[i].Path, err)
		}
	}
	return b.index()
}

// planAll opens and lists every source; on an error the ones opened are
// closed again.
func planAll(sources []Source, opts Options) ([]plan, error) {
	plans := make([]plan, len(sources))
	for i, s := range sources {
		p, err := planSource(s, opts)
		if err != nil {
			for _, q := range plans[:i] {
				q.close()
			}
			return nil, err
		}
		plans[i] = p
	}
	return plans, nil
}

// plan is a source opened and listed, ready to read.
type plan struct {
	total int64
	run   func(ctx context.Context, b *builder) error
	close func()
}

func planSource(s Source, opts Options) (plan, error) {
	st, err := os.Stat(s.Path)
	if err != nil {
		return plan{}, fmt.Errorf("refindex.Build: corpus %s: %w: %w", s.Path, err, errs.ErrNotFound)
	}
	kind := s.Kind
	if kind == KindAuto {
		if kind = autoKind(s.Path, st); kind == KindAuto {
			return plan{}, fmt.Errorf("refindex.Build: corpus %s: %w: want a directory, a .zip/.jar or a .parquet file", s.Path, errs.ErrUsage)
		}
	}
	switch kind {
	case KindDir:
		return planDir(s, opts)
	case KindZip:
		return planZip(s, opts)
	case KindParquet:
		return planParquet(s)
	}
	return plan{}, fmt.Errorf("refindex.Build: corpus %s: %w: unknown kind %q", s.Path, errs.ErrUsage, kind)
}

// autoKind is the kind of the corpus at path: a directory, a ZIP (or
// JAR) or a Parquet file by its extension; KindAuto when none.
func autoKind(path string, st os.FileInfo) Kind {
	ext := strings.ToLower(filepath.Ext(path))
	switch {
	case st.IsDir():
		return KindDir
	case ext == ".zip" || ext == ".jar":
		return KindZip
	case ext == ".parquet":
		return KindParquet
	}
	return KindAuto
}

// member is one file of a DIR or ZIP source.
type member struct {
	name string // for errors
	size int64
	open func() (io.ReadCloser, error)
}

func wantFile(rel string, size int64, opts Options) bool {
	if size > opts.MaxFileBytes {
		return false
	}
	if len(opts.Exts) == 1 && opts.Exts[0] == "*" {
		return true
	}
	ext := strings.ToLower(path.Ext(rel))
	return ext != "" && slices.Contains(opts.Exts, ext)
}

// skipName reports whether a directory entry is never read: hidden entries
// (.git) and byte-code caches.
func skipName(name string) bool {
	return strings.HasPrefix(name, ".") || name == "__pycache__"
}

// groups is the list of repositories of a DIR or ZIP source with their
// files, in sorted repository order.
type groups struct {
	names []string
	files map[string][]member
}

func (g *groups) add(repo string, m member) {
	if _, ok := g.files[repo]; !ok {
		g.names = append(g.names, repo)
	}
	g.files[repo] = append(g.files[repo], m)
}

func (g *groups) plan(s Source, closer func()) plan {
	sort.Strings(g.names)
	var total int64
	for _, fs := range g.files {
		for _, m := range fs {
			total += m.size
		}
	}
	return plan{total: total, close: closer, run: func(ctx context.Context, b *builder) error {
		var buf bytes.Buffer
		for _, name := range g.names {
			if err := g.read(ctx, b, s, name, &buf); err != nil {
				return err
			}
		}
		return nil
	}}
}

// read indexes the files of repository name, binary ones counted but not
// indexed.
func (g *groups) read(ctx context.Context, b *builder, s Source, name string, buf *bytes.Buffer) error {
	r := b.repo(s.Prefix + name)
	for _, m := range g.files[name] {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := readMember(m, buf); err != nil {
			return err
		}
		data := buf.Bytes()
		if !isBinary(data) {
			b.add(r, data)
		}
		b.prog.Files++
		b.prog.Bytes += m.size
		b.progress(s.Path)
	}
	return nil
}

func readMember(m member, buf *bytes.Buffer) error {
	rc, err := m.open()
	if err != nil {
		return fmt.Errorf("%s: %w: %w", m.name, err, errs.ErrInput)
	}
	defer rc.Close()
	buf.Reset()
	if _, err := io.Copy(buf, io.LimitReader(rc, m.size+1)); err != nil {
		return fmt.Errorf("%s: read: %w: %w", m.name, err, errs.ErrInput)
	}
	return nil
}

// isBinary reports a NUL byte in the first 8 KiB.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0
}

// planDir lists a directory: each top-level folder is a repository, and
// each top-level file is a repository of its own (a Python stdlib module).
func planDir(s Source, opts Options) (plan, error) {
	g := &groups{files: map[string][]member{}}
	top, err := os.ReadDir(s.Path)
	if err != nil {
		return plan{}, fmt.Errorf("refindex.Build: corpus %s: %w: %w", s.Path, err, errs.ErrInput)
	}
	for _, e := range top {
		name := e.Name()
		if skipName(name) || slices.Contains(s.Skip, name) {
			continue
		}
		if err := g.addTree(s, opts, name); err != nil {
			return plan{}, fmt.Errorf("refindex.Build: corpus %s: walk: %w: %w", s.Path, err, errs.ErrInput)
		}
	}
	return g.plan(s, func() {}), nil
}

// addTree adds the wanted files under the top-level entry name of a DIR
// source, as repository name; hidden entries and caches are skipped.
func (g *groups) addTree(s Source, opts Options, name string) error {
	root := filepath.Join(s.Path, name)
	return filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && skipName(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		return g.addDirFile(s, opts, name, p, d)
	})
}

// addDirFile adds file p of a DIR source to repository name when it is
// a regular file the options want.
func (g *groups) addDirFile(s Source, opts Options, name, p string, d os.DirEntry) error {
	if !d.Type().IsRegular() || skipName(d.Name()) {
		return nil
	}
	info, err := d.Info()
	if err != nil {
		return err
	}
	rel, _ := filepath.Rel(s.Path, p)
	if !wantFile(filepath.ToSlash(rel), info.Size(), opts) {
		return nil
	}
	g.add(name, member{name: p, size: info.Size(), open: func() (io.ReadCloser, error) { return os.Open(p) }})
	return nil
}

// planZip lists a ZIP archive: the first path element of an entry names
// its repository (java.base/java/lang/String.java → java.base); an entry
// at the archive root is a repository of its own.
func planZip(s Source, opts Options) (plan, error) {
	zr, err := zip.OpenReader(s.Path)
	if err != nil {
		return plan{}, fmt.Errorf("refindex.Build: corpus %s: open zip: %w: %w", s.Path, err, errs.ErrInput)
	}
	g := &groups{files: map[string][]member{}}
	for _, zf := range zr.File {
		if zf.FileInfo().IsDir() {
			continue
		}
		rel := strings.TrimPrefix(path.Clean("/"+zf.Name), "/")
		elems := strings.Split(rel, "/")
		if rel == "" || slices.ContainsFunc(elems, skipName) || slices.Contains(s.Skip, elems[0]) {
			continue
		}
		size := int64(zf.UncompressedSize64)
		if zf.UncompressedSize64 > 1<<62 || !wantFile(rel, size, opts) {
			continue
		}
		g.add(elems[0], member{name: s.Path + "!" + zf.Name, size: size, open: zf.Open})
	}
	return g.plan(s, func() { zr.Close() }), nil
}
