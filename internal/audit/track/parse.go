package track

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/benchforge/benchforge/internal/change"
	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo"
)

// fn is one function of a file version, as the tracker sees it.
type fn struct {
	Key, Name, Class string
	Text             string // the whole declaration's source
	lines            []string
}

// fileVersion is one file at one commit: its source and functions (nil
// for a language without a front-end or a file that does not parse).
type fileVersion struct {
	path  string
	src   []byte
	once  sync.Once
	funcs []fn
}

// functions parses the version on first use.
func (v *fileVersion) functions() []fn {
	v.once.Do(func() { v.funcs = parseFuncs(v.path, v.src) })
	return v.funcs
}

func (v *fileVersion) byKey(k string) int {
	for i, f := range v.functions() {
		if f.Key == k {
			return i
		}
	}
	return -1
}

func (v *fileVersion) hasKey(k string) bool { return v.byKey(k) >= 0 }

// sourceLines are fn's trimmed, non-blank source lines (comments kept;
// only used to see which lines left a function and where they went).
func (f *fn) sourceLines() []string {
	if f.lines == nil {
		f.lines = f.sourceLinesCopy()
	}
	return f.lines
}

// sourceLinesCopy computes sourceLines without caching them.
func (f fn) sourceLinesCopy() []string {
	var out []string
	for _, l := range strings.Split(f.Text, "\n") {
		if t := strings.TrimSpace(l); len(t) > 3 {
			out = append(out, t)
		}
	}
	return out
}

// versions is a bounded cache of parsed file versions shared by every
// sample of a run (many samples follow the same file through the same
// commits): each (commit, path) is read and parsed once.
type versions struct {
	mu    sync.Mutex
	m     map[string]*fileVersion
	order []string
	max   int
}

func newVersions(max int) *versions { return &versions{m: map[string]*fileVersion{}, max: max} }

// get returns path at commit, nil when the file is not there.
func (c *versions) get(ctx context.Context, repo *gitrepo.Repo, commit, path string) (*fileVersion, error) {
	key := repo.GitDir() + "\x00" + commit + "\x00" + path
	c.mu.Lock()
	v, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return v, nil
	}
	src, err := repo.ReadFile(ctx, commit, path)
	if err != nil {
		if errors.Is(err, errs.ErrNotFound) && ctx.Err() == nil {
			return nil, nil
		}
		return nil, err
	}
	v = &fileVersion{path: path, src: src}
	c.mu.Lock()
	if _, dup := c.m[key]; !dup {
		c.m[key] = v
		c.order = append(c.order, key)
		if len(c.order) > c.max {
			delete(c.m, c.order[0])
			c.order = c.order[1:]
		}
	}
	c.mu.Unlock()
	return v, nil
}

func parseFuncs(path string, src []byte) []fn {
	lang, err := code.DetectLang(path)
	if err != nil {
		return nil
	}
	f, err := code.Parse(lang, path, src)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []fn
	for _, x := range f.Functions() {
		out = append(out, fn{Key: change.Key(x), Name: x.Name, Class: x.Class, Text: string(src[x.StartByte:x.EndByte])})
	}
	return out
}

// words is the set of identifier-like words of s, for body similarity.
func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(s, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if len(w) > 1 {
			out[w] = true
		}
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	n := 0
	for w := range a {
		if b[w] {
			n++
		}
	}
	return float64(n) / float64(len(a)+len(b)-n)
}
