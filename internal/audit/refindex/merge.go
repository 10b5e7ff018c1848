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
	var dups []string
	for i := 1; i < len(names); i++ {
		if names[i] == names[i-1] && (len(dups) == 0 || dups[len(dups)-1] != names[i]) {
			dups = append(dups, names[i])
		}
	}
	if len(dups) > 0 {
		more := ""
		if len(dups) > 5 {
			more = fmt.Sprintf(" and %d more", len(dups)-5)
			dups = dups[:5]
		}
		return nil, fmt.Errorf("refindex.Merge: %w: repositories in more than one shard: %s%s (build shards over disjoint repositories)", errs.ErrInput, strings.Join(dups, ", "), more)
	}
	// k-way merge of the sorted word lists.
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
				return nil, fmt.Errorf("refindex.Merge: %w: word %q in more than 2^32-1 repositories", errs.ErrInput, w)
			}
			counts[k] = uint32(n)
		} else {
			words = append(words, w)
			counts = append(counts, uint32(n))
		}
		c.i++
		if c.i == c.ix.Words() {
			heap.Pop(h)
		} else {
			heap.Fix(h, 0)
		}
	}
	return newIndex(repos, names, words, counts)
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
	bad := func(line int, format string, args ...any) error {
		return fmt.Errorf("refindex.ImportCSV(%s:%d): %w: %s", name, line, errs.ErrInput, fmt.Sprintf(format, args...))
	}
	m := map[string]uint64{}
	total, maxCount := 0, uint64(0)
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
			return nil, bad(line, "%v", err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) < 2 || len(rec) > 3 {
			return nil, bad(line, "%d columns, want word,count[,repos]", len(rec))
		}
		c, err := strconv.ParseUint(strings.TrimSpace(rec[1]), 10, 32)
		if err != nil {
			if line == 1 {
				continue // header
			}
			return nil, bad(line, "count %q is not a non-negative integer", rec[1])
		}
		w := rec[0]
		if !IsWord(w) || len(w) > MaxStoredWordLen {
			return nil, bad(line, "%q is not a word ([A-Za-z_$][A-Za-z0-9_$]*, Unicode letters allowed, at most %d bytes)", w, MaxStoredWordLen)
		}
		if len(rec) == 3 {
			t, err := strconv.Atoi(strings.TrimSpace(rec[2]))
			if err != nil || t <= 0 {
				return nil, bad(line, "repository total %q is not a positive integer", rec[2])
			}
			if total != 0 && t != total {
				return nil, bad(line, "repository total %d differs from %d on an earlier row", t, total)
			}
			total = t
		}
		if c == 0 {
			continue
		}
		m[w] += c
		maxCount = max(maxCount, m[w])
	}
	switch {
	case repos > 0 && total > 0 && repos != total:
		return nil, fmt.Errorf("refindex.ImportCSV(%s): %w: --repos %d disagrees with the file's repository total %d", name, errs.ErrUsage, repos, total)
	case repos == 0 && total > 0:
		repos = total
	case repos == 0:
		repos = int(maxCount)
	}
	if maxCount > uint64(repos) {
		return nil, fmt.Errorf("refindex.ImportCSV(%s): %w: a word is in %d repositories, more than the total %d", name, errs.ErrInput, maxCount, repos)
	}
	words := make([]string, 0, len(m))
	for w := range m {
		words = append(words, w)
	}
	sort.Strings(words)
	counts := make([]uint32, len(words))
	for i, w := range words {
		counts[i] = uint32(m[w])
	}
	return newIndex(repos, nil, words, counts)
}
