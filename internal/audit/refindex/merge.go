package refindex

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
)

// Merge joins shards built over disjoint sets of repositories into one
// index: repository counts add, word by word, and so do the repository
// totals. Named repositories must be disjoint: a name in two shards is an
// error wrapping errs.ErrInput (adding the counts would count that
// repository twice; rebuild the shards so each repository is in exactly
// one). Imported shards have anonymous repositories whose overlap cannot
// be checked: disjointness is then the caller's precondition.
func Merge(shards ...*Index) (*Index, error) {
	if len(shards) == 0 {
		return nil, fmt.Errorf("refindex.Merge: %w: no shards", errs.ErrUsage)
	}
	repos := 0
	var names []string
	for _, s := range shards {
		repos += s.repos
		names = append(names, s.names...)
	}
	sort.Strings(names)
	if dups := duplicates(names); len(dups) > 0 {
		more := ""
		if len(dups) > 5 {
			more = fmt.Sprintf(" and %d more", len(dups)-5)
			dups = dups[:5]
		}
		return nil, fmt.Errorf("refindex.Merge: %w: repositories in more than one shard: %s%s (build shards over disjoint repositories)", errs.ErrInput, strings.Join(dups, ", "), more)
	}
	words, counts, err := mergeWords(shards)
	if err != nil {
		return nil, err
	}
	return newIndex(repos, names, words, counts)
}

// duplicates is the names that occur more than once in sorted, once each.
func duplicates(sorted []string) []string {
	var dups []string
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] && (len(dups) == 0 || dups[len(dups)-1] != sorted[i]) {
			dups = append(dups, sorted[i])
		}
	}
	return dups
}

// mergeWords is the k-way merge of the shards' sorted word lists, the
// counts of a word in several shards added.
func mergeWords(shards []*Index) ([]string, []uint32, error) {
	h := &cursors{}
	for _, s := range shards {
		if s.Words() > 0 {
			h.items = append(h.items, cursor{ix: s})
		}
	}
	heap.Init(h)
	var words []string
	var counts []uint32
	for h.Len() > 0 {
		c := &h.items[0]
		w := string(c.ix.word(c.i))
		n := uint64(c.ix.counts[c.i])
		if k := len(words) - 1; k >= 0 && words[k] == w {
			n += uint64(counts[k])
			if n > 1<<32-1 {
				return nil, nil, fmt.Errorf("refindex.Merge: %w: word %q in more than 2^32-1 repositories", errs.ErrInput, w)
			}
			counts[k] = uint32(n)
		} else {
			words = append(words, w)
			counts = append(counts, uint32(n))
		}
		h.advance()
	}
	return words, counts, nil
}

type cursor struct {
	ix *Index
	i  int
}

type cursors struct{ items []cursor }

func (h *cursors) Len() int { return len(h.items) }
func (h *cursors) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	return bytes.Compare(a.ix.word(a.i), b.ix.word(b.i)) < 0
}
func (h *cursors) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *cursors) Push(x any)    { h.items = append(h.items, x.(cursor)) }
func (h *cursors) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// advance moves the first cursor to its next word, dropping it at its
// shard's end.
func (h *cursors) advance() {
	c := &h.items[0]
	c.i++
	if c.i == c.ix.Words() {
		heap.Pop(h)
	} else {
		heap.Fix(h, 0)
	}
}

// ImportCSV reads a word,count[,repos] CSV (one word per row, count = the
// number of repositories containing it) as produced by the SQL in the
// package documentation, and returns an index of repos anonymous
// repositories. A header row (a count that is not a number on line 1) is
// skipped. The optional third column is the corpus's repository total,
// the same on every row; it is used when repos is 0 and must agree with a
// non-zero repos. With neither, the total is the largest count, a lower
// bound. A word listed twice has its counts added. Words that are not
// words as Words defines them are errors naming name:line, so a swapped
// column or a different tokenisation is caught.
func ImportCSV(r io.Reader, name string, repos int) (*Index, error) {
	cr := csv.NewReader(bufio.NewReaderSize(r, 1<<20))
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	ci := &csvImport{name: name, counts: map[string]uint64{}}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			line := 0
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				line = pe.Line
			}
			return nil, ci.bad(line, "%v", err)
		}
		line, _ := cr.FieldPos(0)
		if err := ci.row(line, rec); err != nil {
			return nil, err
		}
	}
	repos, err := ci.repos(repos)
	if err != nil {
		return nil, err
	}
	words := make([]string, 0, len(ci.counts))
	for w := range ci.counts {
		words = append(words, w)
	}
	sort.Strings(words)
	counts := make([]uint32, len(words))
	for i, w := range words {
		counts[i] = uint32(ci.counts[w])
	}
	return newIndex(repos, nil, words, counts)
}

// csvImport is ImportCSV's state: the counts so far, the repository total
// the rows give (0: none) and the largest count.
type csvImport struct {
	name     string
	counts   map[string]uint64
	total    int
	maxCount uint64
}

func (ci *csvImport) bad(line int, format string, args ...any) error {
	return fmt.Errorf("refindex.ImportCSV(%s:%d): %w: %s", ci.name, line, errs.ErrInput, fmt.Sprintf(format, args...))
}

// row adds the row at line: word, count and an optional repository total.
func (ci *csvImport) row(line int, rec []string) error {
	if len(rec) < 2 || len(rec) > 3 {
		return ci.bad(line, "%d columns, want word,count[,repos]", len(rec))
	}
	c, err := strconv.ParseUint(strings.TrimSpace(rec[1]), 10, 32)
	if err != nil {
		if line == 1 {
			return nil // header
		}
		return ci.bad(line, "count %q is not a non-negative integer", rec[1])
	}
	w := rec[0]
	if !IsWord(w) || len(w) > MaxStoredWordLen {
		return ci.bad(line, "%q is not a word ([A-Za-z_$][A-Za-z0-9_$]*, Unicode letters allowed, at most %d bytes)", w, MaxStoredWordLen)
	}
	if len(rec) == 3 {
		if err := ci.repoTotal(line, rec[2]); err != nil {
			return err
		}
	}
	if c == 0 {
		return nil
	}
	ci.counts[w] += c
	ci.maxCount = max(ci.maxCount, ci.counts[w])
	return nil
}

// repoTotal checks a row's repository total: positive, and the same as
// on earlier rows.
func (ci *csvImport) repoTotal(line int, field string) error {
	t, err := strconv.Atoi(strings.TrimSpace(field))
	if err != nil || t <= 0 {
		return ci.bad(line, "repository total %q is not a positive integer", field)
	}
	if ci.total != 0 && t != ci.total {
		return ci.bad(line, "repository total %d differs from %d on an earlier row", t, ci.total)
	}
	ci.total = t
	return nil
}

// repos is the index's repository total: repos when given (it must agree
// with the file's total), else the file's total, else the largest count.
func (ci *csvImport) repos(repos int) (int, error) {
	switch {
	case repos > 0 && ci.total > 0 && repos != ci.total:
		return 0, fmt.Errorf("refindex.ImportCSV(%s): %w: --repos %d disagrees with the file's repository total %d", ci.name, errs.ErrUsage, repos, ci.total)
	case repos == 0 && ci.total > 0:
		repos = ci.total
	case repos == 0:
		repos = int(ci.maxCount)
	}
	if ci.maxCount > uint64(repos) {
		return 0, fmt.Errorf("refindex.ImportCSV(%s): %w: a word is in %d repositories, more than the total %d", ci.name, errs.ErrInput, ci.maxCount, repos)
	}
	return repos, nil
}
