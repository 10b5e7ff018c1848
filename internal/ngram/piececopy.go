package ngram

import "strings"

// pieceCopy is the cache's copy of identifier pieces (Cache.Pieces): the
// sub-word pieces of the identifiers in the request's text so far,
// counted in the form they take inside a camelCase identifier ("foo",
// " foo" and "Foo" all count as "Foo"), so that after a piece such as
// "get" the model can continue with a piece its prompt used in another
// identifier ("converter" → "getConverter").
//
// Why: the suffix cache copies only what followed the same last tokens
// earlier in the prompt, so it reproduces "getConverter" only if the
// prompt already held it. An LLM copies by content, not by position: an
// induction head attends to earlier tokens like the current one and
// copies their neighbourhood (Olsson et al. 2022, "In-context learning
// and induction heads"), and a pointer component can copy any word of
// its context (Merity et al. 2017, "Pointer sentinel mixture models"),
// so a target whose sub-tokens all appear in the prompt (entropy 0 in
// benchchecker Algorithm 3, what context-independence removes) is
// guessed by composing them. Measured on the apache-java testbed
// (seed 1, headline capacity, w/o-context-independence): 451 of the
// non-members' 1,724 queries have such targets, and the suffix cache
// alone hits 7 of the 372 whose target is not in the prompt verbatim
// (1.9 %); with this copy, 9 (testdata/testbed/apache-java.measured.md:
// a pointer spread over the prompt's pieces is far less sure than an
// LLM, so it is kept off by default).
//
// It applies in two ways, the first that does: after a piece that, case
// folded, was followed inside an identifier earlier (fuzzy induction:
// "quuxWidget", then "getQuux" goes on with "Widget"); and after a piece
// that the model itself mostly continues with another piece of the same
// identifier — more than half of its bigram continuation counts go to a
// capitalised piece ("get", "set", "create", "is"; the table built once
// by WithCache) — the prompt's pieces by their counts. Where the suffix
// cache has a context too, the cache's distribution is the even mixture
// of the two (with), as an LLM's copying weighs both the exact
// continuation and the pieces it could compose. It adds no mass where
// an identifier usually ends (after "int", "value"), and since whether
// it applies depends on the history alone, the mixture stays a
// distribution.
type pieceCopy struct {
	m      *Model
	counts map[string]int32 // the prompt's pieces, in inner form
	total  int32
	// succ counts, by a piece in folded form (lower case, no blank), the
	// inner pieces that followed it inside an identifier: "quuxWidget"
	// gives quux → Widget, so "getQuux" goes on with "Widget".
	succ map[string]map[string]int32
	log  []pieceEntry // additions, for rollback
	buf  map[string]int32
}

type pieceEntry struct {
	hist  int    // history length before the addition
	piece string // inner form added to counts
	prev  string // folded predecessor whose succ got piece ("" for none)
}

// pieceTable says, by word id, whether the model continues the piece
// with a capitalised piece (an inner piece of the same identifier) more
// often than not: the share of the word's bigram continuation counts
// that go to inner pieces exceeds one half.
type pieceTable struct{ cont []bool }

// newPieceTable builds the table from m's bigram level.
func newPieceTable(m *Model) *pieceTable {
	t := &pieceTable{cont: make([]bool, len(m.vocab))}
	if m.order < 2 || len(m.lv[0].first) == 0 {
		return t
	}
	inners := make([]bool, len(m.vocab))
	for id, text := range m.vocab {
		inners[id] = id >= firstWordID && inner(text) == text
	}
	l1, l2 := m.lv[0], m.lv[1]
	for w := firstWordID; w < len(m.vocab); w++ {
		var in, all uint64
		for j := l1.first[w]; j < l1.first[w+1]; j++ {
			all += uint64(l2.adj[j])
			if inners[l2.word[j]] {
				in += uint64(l2.adj[j])
			}
		}
		t.cont[w] = 2*in > all
	}
	return t
}

func newPieceCopy(m *Model) *pieceCopy {
	return &pieceCopy{m: m, counts: map[string]int32{}, succ: map[string]map[string]int32{}, buf: map[string]int32{}}
}

// add counts token text t, which follows history hist, when it is an
// identifier piece of at least two letters, and, when it is an inner
// piece after another piece, as that piece's successor.
func (p *pieceCopy) add(t string, hist []string) {
	k := inner(strings.TrimPrefix(t, " "))
	if k == "" {
		return
	}
	e := pieceEntry{hist: len(hist), piece: k}
	if len(hist) > 0 && k == t {
		if prev := fold(hist[len(hist)-1]); prev != "" {
			next := p.succ[prev]
			if next == nil {
				next = map[string]int32{}
				p.succ[prev] = next
			}
			next[k]++
			e.prev = prev
		}
	}
	p.counts[k]++
	p.total++
	p.log = append(p.log, e)
}

// rollback undoes the additions of the tokens at history positions ≥ h.
func (p *pieceCopy) rollback(h int) {
	for len(p.log) > 0 && p.log[len(p.log)-1].hist >= h {
		e := p.log[len(p.log)-1]
		if p.counts[e.piece]--; p.counts[e.piece] <= 0 {
			delete(p.counts, e.piece)
		}
		p.total--
		if e.prev != "" {
			next := p.succ[e.prev]
			if next[e.piece]--; next[e.piece] <= 0 {
				delete(next, e.piece)
			}
			if len(next) == 0 {
				delete(p.succ, e.prev)
			}
		}
		p.log = p.log[:len(p.log)-1]
	}
}

// dist is the piece distribution after history hist: what followed the
// last piece, case folded, inside an identifier earlier (fuzzy
// induction: "quuxWidget" then "getQuux" → "Widget"); else the prompt's
// pieces when the model mostly continues the last token with an inner
// piece (pieceTable); else none.
func (p *pieceCopy) dist(hist []string) (map[string]int32, int32) {
	if p == nil || p.total == 0 || len(hist) == 0 {
		return nil, 0
	}
	last := hist[len(hist)-1]
	if next := p.succ[fold(last)]; len(next) > 0 {
		var total int32
		for _, n := range next {
			total += n
		}
		return next, total
	}
	if id, ok := p.m.ids[last]; ok && p.m.cache.table != nil && p.m.cache.table.cont[id] {
		return p.counts, p.total
	}
	return nil, 0
}

// fold is a piece's case-folded form without its glued blank ("" for
// what is not a piece of two letters or more).
func fold(t string) string {
	if inner(strings.TrimPrefix(t, " ")) == "" {
		return ""
	}
	return strings.ToLower(strings.TrimPrefix(t, " "))
}

// inner is piece s as it appears inside a camelCase identifier: first
// letter upper-cased ("" for what is not a piece of two letters or more).
func inner(s string) string {
	if len(s) < 2 || !isPiece(s) || !letter(s[0]) {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// isPiece says whether s is made of ASCII letters and digits only (the
// pieces SplitIdentifiers cuts; separators '_' and '$' are pieces of
// their own and not copied).
func isPiece(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !letter(s[i]) && !digit(s[i]) {
			return false
		}
	}
	return true
}

// with is the cache's distribution after hist given the suffix cache's
// (next, total; nil when it has no context): the suffix cache's alone
// when the piece copy does not apply, the piece copy's alone when the
// suffix cache has nothing, else the even mixture of the two, as counts
// scaled to a common total (in a buffer reused by the next call).
func (p *pieceCopy) with(next map[string]int32, total int32, hist []string) (map[string]int32, int32) {
	pn, pt := p.dist(hist)
	switch {
	case pt == 0:
		return next, total
	case total == 0:
		return pn, pt
	}
	clear(p.buf)
	for t, n := range next {
		p.buf[t] += n * pt
	}
	for t, n := range pn {
		p.buf[t] += n * total
	}
	return p.buf, 2 * total * pt
}
