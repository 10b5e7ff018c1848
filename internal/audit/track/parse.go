package track

import (
	"bytes"
	"container/list"
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
	trees *code.Trees // parses it incrementally under key
	key   string
}

// functions parses the version on first use.
func (v *fileVersion) functions() []fn {
	v.once.Do(func() { v.funcs = parseFuncs(v.trees, v.key, v.path, v.src) })
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

// versions is a cache of parsed file versions shared by every sample of a
// run (many samples follow the same file through the same commits): each
// (commit, path) is read and parsed once while it stays in the cache.
// It is bounded by bytes, not entries — one StringUtils.java weighs as much
// as a hundred small files — and evicts the least recently used.
type versions struct {
	mu     sync.Mutex
	m      map[string]*list.Element
	lru    *list.List // of *cached, most recent at the front
	size   int64
	budget int64
	trees  *code.Trees // nil: each version parsed afresh
}

type cached struct {
	key  string
	v    *fileVersion
	cost int64
}

// versionCost is what a version weighs: its source and, once parsed, the
// function texts copied from it.
func versionCost(v *fileVersion) int64 { return 2*int64(len(v.src)) + 256 }

func newVersions(budget int64) *versions {
	return &versions{m: map[string]*list.Element{}, lru: list.New(), budget: budget}
}

// get returns path at commit, nil when the file is not there.
func (c *versions) get(ctx context.Context, repo *gitrepo.Repo, commit, path string) (*fileVersion, error) {
	key := repo.GitDir() + "\x00" + commit + "\x00" + path
	c.mu.Lock()
	if e, ok := c.m[key]; ok {
		c.lru.MoveToFront(e)
		c.mu.Unlock()
		return e.Value.(*cached).v, nil
	}
	c.mu.Unlock()
	src, err := repo.ReadFile(ctx, commit, path)
	if err != nil {
		if errors.Is(err, errs.ErrNotFound) && ctx.Err() == nil {
			return nil, nil
		}
		return nil, err
	}
	v := &fileVersion{path: path, src: code.AsUTF8(src), trees: c.trees, key: repo.GitDir() + "\x00" + path}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, dup := c.m[key]; dup {
		return e.Value.(*cached).v, nil
	}
	cv := &cached{key: key, v: v, cost: versionCost(v)}
	c.m[key] = c.lru.PushFront(cv)
	c.size += cv.cost
	for c.size > c.budget && c.lru.Len() > 1 {
		old := c.lru.Remove(c.lru.Back()).(*cached)
		delete(c.m, old.key)
		c.size -= old.cost
	}
	return v, nil
}

func parseFuncs(trees *code.Trees, key, path string, src []byte) []fn {
	lang, err := code.DetectLang(path)
	if err != nil {
		return nil
	}
	f, err := trees.Parse(lang, key, path, src)
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
// Words are runs of ASCII letters, digits and '_' (any other byte, every
// byte of a multi-byte rune included, separates them).
func words(s string) map[string]bool {
	out := map[string]bool{}
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && isWordByte(s[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && i-start > 1 {
			out[s[start:i]] = true
		}
		start = -1
	}
	return out
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
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

// headLen is how much of a long text containsText searches for first:
// no longer than the needles the runtime's vectorised index takes.
const headLen = 31

// containsText is bytes.Contains(src, text), faster for a long text such
// as a whole function declaration: every commit a walk visits is first
// searched for the tracked function's unchanged text, and for needles
// past headLen bytes.Index hashes the whole file (Rabin-Karp). Here text's
// first headLen bytes are found by the vectorised index and the rest
// compared at each hit.
func containsText(src []byte, text string) bool {
	if len(text) <= headLen {
		return bytes.Contains(src, []byte(text))
	}
	head := []byte(text[:headLen])
	end := len(src) - len(text) + headLen // a later head leaves no room for text
	for off := 0; off+len(text) <= len(src); {
		i := bytes.Index(src[off:end], head)
		if i < 0 {
			return false
		}
		at := off + i
		if string(src[at:at+len(text)]) == text {
			return true
		}
		off = at + 1
	}
	return false
}
