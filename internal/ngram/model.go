package ngram

import (
	"math"
	"slices"
)

// Reserved vocabulary ids.
const (
	unkID = 0 // any token text not in the vocabulary
	bosID = 1 // start of a training file; only ever a context
	eosID = 2 // end of a training file
	// firstWordID is the first id of a real token text.
	firstWordID = 3
)

const invalid = ^uint32(0)

// Special token texts, as reported by Vocab. They never come out of
// Tokenize as single tokens, so they cannot collide with code.
const (
	UnkToken = "<unk>"
	BOSToken = "<s>"
	EOSToken = "</s>"
)

// level holds the k-grams of one order as a sorted trie layer: the
// children of a (k-1)-gram node h are the nodes first[h]..first[h+1]-1 of
// the next layer, sorted by word id.
type level struct {
	word []uint32 // last word of each k-gram
	adj  []uint32 // Kneser–Ney adjusted count (raw or continuation count)
	// As contexts (all but the highest order):
	first []uint32  // len(word)+1; child range in the next level
	den   []uint32  // sum of the children's adjusted counts
	gamma []float32 // interpolation weight γ(h) given to the lower order
}

// Model is a trained interpolated modified Kneser–Ney n-gram model. It is
// read-only after Train or Load and safe for concurrent use.
type Model struct {
	order    int
	vocab    []string          // id → token text
	ids      map[string]uint32 // token text → id (real tokens only)
	lv       []level           // lv[k-1] holds the k-grams
	disc     [][3]float64      // disc[k-1]: D1, D2, D3+ for k-grams
	uniDen   float64           // sum of unigram adjusted counts (without <s>)
	uniGamma float64           // γ of the empty context
	uniform  float64           // 1/|V| over predictable ids (all but <s>)
	spell    [257]float64      // natural-log byte probabilities; [256] = end
	stats    Stats

	uniTop     []cand    // most probable tokens with no context
	uniTopRest float64   // probability of all others
	uniTopIDs  []uint32  // uniTop's ids, ascending
	uniCum     []float64 // cumulative discounted unigram counts, by id
	uniP       []float64 // p(w) with no context, by id (prob's first term)

	split bool     // identifiers split into sub-words (Options.SplitIdentifiers)
	cache Cache    // cache component (WithCache); not saved
	memo  *ctxMemo // per-context candidate tables (candidates.go)
}

// Stats describes a model's training data and size.
type Stats struct {
	Files  int     `json:"files"`
	Bytes  int64   `json:"bytes"`
	Tokens int64   `json:"tokens"`
	Vocab  int     `json:"vocab"`
	NGrams []int64 `json:"ngrams"` // distinct k-grams for k = 1..order
}

// Order is the model's n-gram order.
func (m *Model) Order() int { return m.order }

// Stats describes the training data.
func (m *Model) Stats() Stats {
	s := m.stats
	s.NGrams = append([]int64(nil), s.NGrams...)
	return s
}

// Discounts returns the modified Kneser–Ney discounts D1, D2, D3+ used for
// k-grams (1 <= k <= Order).
func (m *Model) Discounts(k int) [3]float64 {
	if k < 1 || k > m.order {
		return [3]float64{}
	}
	return m.disc[k-1]
}

func discount(d *[3]float64, a uint32) float64 {
	switch a {
	case 0:
		return 0
	case 1:
		return d[0]
	case 2:
		return d[1]
	}
	return d[2]
}

// discounted is a k-gram's discounted count max(a − D(a), 0) as prob's
// terms take it. math.Max is an assembly call on amd64 that is never
// inlined (these calls were 2% of a cold server's sampling instructions
// under callgrind). a − D(a) is never −0 (a is a count, never −0), and
// for every other value, NaN included, the comparison gives math.Max's
// bits.
func discounted(d *[3]float64, a uint32) float64 {
	v := float64(a) - discount(d, a)
	if v < 0 {
		return 0
	}
	return v
}

// child returns the index in lv[j+1] of word w after context node h of
// lv[j], or invalid.
func (m *Model) child(j int, h, w uint32) uint32 {
	lo, hi := m.lv[j].first[h], m.lv[j].first[h+1]
	words := m.lv[j+1].word
	for lo < hi {
		mid := lo + (hi-lo)/2
		switch x := words[mid]; {
		case x == w:
			return mid
		case x < w:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return invalid
}

// state is the context of a prediction: ctx[j-1] is the trie node of the
// last j tokens (level j), or invalid. Its length is at most order-1.
type state struct {
	ctx []uint32
}

func (m *Model) newState(bos bool) state {
	s := state{ctx: make([]uint32, 0, m.order)}
	if bos && m.order > 1 {
		s.ctx = append(s.ctx, bosID)
	}
	return s
}

// push appends token w to the context.
func (m *Model) push(s *state, w uint32) {
	n := min(len(s.ctx)+1, m.order-1)
	if n <= 0 {
		return
	}
	old := s.ctx
	s.ctx = s.ctx[:n]
	// Walk from the longest: ctx[j] (level j+1) = child of old ctx[j-1].
	for j := n - 1; j >= 1; j-- {
		p := old[j-1]
		if p == invalid || m.lv[j-1].den[p] == 0 {
			s.ctx[j] = invalid
			continue
		}
		s.ctx[j] = m.child(j-1, p, w)
	}
	s.ctx[0] = w
}

// prob is the interpolated modified Kneser–Ney probability of w after s
// (Chen & Goodman 1998, eq. 26, with KenLM's adjusted counts):
//
//	p(w|h) = max(a(hw) - D(a(hw)), 0)/Σ_v a(hv) + γ(h)·p(w|h')
//
// bottoming out in the uniform distribution over all ids but <s>.
func (m *Model) prob(s *state, w uint32) float64 {
	if w == bosID || int(w) >= len(m.vocab) {
		return 0
	}
	p := m.uniP[w]
	for j := 1; j <= len(s.ctx); j++ {
		h := s.ctx[j-1]
		if h == invalid {
			break
		}
		den := m.lv[j-1].den[h]
		if den == 0 {
			break
		}
		var a uint32
		if c := m.child(j-1, h, w); c != invalid {
			a = m.lv[j].adj[c]
		}
		p = discounted(&m.disc[j], a)/float64(den) + float64(m.lv[j-1].gamma[h])*p
	}
	return p
}

// id maps token text to its vocabulary id (unkID when unknown).
func (m *Model) id(text string) uint32 {
	if id, ok := m.ids[text]; ok {
		return id
	}
	return unkID
}

// spellLogProb is the log-probability the spelling model gives the bytes of
// an unknown token: a byte unigram model with an end marker.
func (m *Model) spellLogProb(text string) float64 {
	lp := m.spell[256]
	for i := 0; i < len(text); i++ {
		lp += m.spell[text[i]]
	}
	return lp
}

// TokenLogProb is one scored token.
type TokenLogProb struct {
	Token   string  `json:"token"`
	Offset  int     `json:"offset"`  // byte offset in prompt+continuation
	LogProb float64 `json:"logprob"` // natural log
	Unknown bool    `json:"unknown"` // not in the vocabulary: <unk> times the spelling model
}

// Score returns the natural-log probability of each token of continuation
// given prompt. The two are tokenized together, as the model saw text in
// training, and the tokens that end inside continuation are scored (a token
// straddling the boundary, such as a newline-and-indent run, is scored
// whole); offsets count from the start of prompt. An empty prompt means no
// context: the first token is predicted by the unigram distribution. Every
// token gets a finite log-probability.
func (m *Model) Score(prompt, continuation string) []TokenLogProb {
	toks := m.tokenize(prompt + continuation)
	i := 0
	for i < len(toks) && toks[i].Offset+len(toks[i].Text) <= len(prompt) {
		i++
	}
	s := m.newState(false)
	c := m.newCache()
	for _, t := range toks[:i] {
		m.push(&s, m.id(t.Text))
		if c != nil {
			c.add(t.Text)
		}
	}
	return m.scoreTokens(&s, c, toks[i:], 0)
}

// ScoreText scores every token of text, the first one without context.
func (m *Model) ScoreText(text string) []TokenLogProb {
	s := m.newState(false)
	return m.scoreTokens(&s, m.newCache(), m.tokenize(text), 0)
}

func (m *Model) scoreTokens(s *state, c *cacheLM, toks []Token, base int) []TokenLogProb {
	out := make([]TokenLogProb, len(toks))
	for i, t := range toks {
		out[i] = m.scoreOne(s, c, t, base)
		m.push(s, m.id(t.Text))
		if c != nil {
			c.add(t.Text)
		}
	}
	return out
}

// scoreOne scores token t after s (and the cache c, when set).
func (m *Model) scoreOne(s *state, c *cacheLM, t Token, base int) TokenLogProb {
	w := m.id(t.Text)
	var lp float64
	if c != nil {
		lp = math.Log(m.mixedProb(s, c, t.Text))
	} else {
		lp = math.Log(m.prob(s, w))
		if w == unkID {
			lp += m.spellLogProb(t.Text)
		}
	}
	return TokenLogProb{Token: t.Text, Offset: base + t.Offset, LogProb: lp, Unknown: w == unkID}
}

// Summary aggregates token scores.
type Summary struct {
	Tokens      int     `json:"tokens"`
	SumLogProb  float64 `json:"sum_logprob"`
	MeanLogProb float64 `json:"mean_logprob"`
	Perplexity  float64 `json:"perplexity"` // exp(-mean log-prob)
	Unknown     int     `json:"unknown"`
}

// Summarize returns the sum, mean and perplexity of scores.
func Summarize(scores []TokenLogProb) Summary {
	var s Summary
	for _, t := range scores {
		s.Tokens++
		s.SumLogProb += t.LogProb
		if t.Unknown {
			s.Unknown++
		}
	}
	if s.Tokens > 0 {
		s.MeanLogProb = s.SumLogProb / float64(s.Tokens)
		s.Perplexity = math.Exp(-s.MeanLogProb)
	}
	return s
}

// Candidate is a possible next token with its natural-log probability.
type Candidate struct {
	Token   string  `json:"token"`
	LogProb float64 `json:"logprob"`
}

// cand is a candidate id with its plain probability.
type cand struct {
	id uint32
	p  float64
	// lw is log p up to rounding (from the context tables), used only for
	// sampling weights p^(1/T), so a step needs one exp per candidate
	// instead of a math.Pow.
	lw float64
}

// maxCandidates bounds the candidate set examined per prediction step.
const maxCandidates = 512

// candidates returns the exact probabilities of the tokens most likely to
// follow s, sorted by descending probability: every token seen after the
// longest matching context, widened to shorter contexts while the set stays
// within maxCandidates (the sets nest: a token seen after a context was
// also seen after its suffix). rest is the probability of all other tokens
// (<unk> included). With no usable context the candidates are the
// maxCandidates most probable unigrams, computed once per model.
func (m *Model) candidates(s *state, buf []cand) (cands []cand, rest float64) {
	cands, rest, e, _ := m.step(s, buf)
	if e != nil {
		cands = append(buf[:0], cands...) // the entry's own slice is read-only
	}
	return cands, rest
}

// top is the deepest usable context length of s; 0 = none.
func (m *Model) top(s *state) int {
	top := 0
	for j := 1; j <= len(s.ctx); j++ {
		h := s.ctx[j-1]
		if h == invalid || m.lv[j-1].den[h] == 0 {
			break
		}
		top = j
	}
	return top
}

// candidatesAt computes the candidates of s, whose deepest usable
// context length is top, and returns their ids in ascending order too
// (a slice of the model's, read-only).
func (m *Model) candidatesAt(s *state, top int, buf []cand) (cands []cand, rest float64, ids []uint32) {
	cands = buf[:0]
	if top == 0 {
		cands = append(cands, m.uniTop...)
		return cands, m.uniTopRest, m.uniTopIDs
	}
	base := m.base(s, top)
	t := m.table(s, base)
	cands, rest = m.fromTable(s, t, base, top, buf)
	return cands, rest, t.words // every child of the base is a candidate
}

// base is the level of s's context whose children are the candidates
// of a step with deepest usable context length top (> 0): the shortest
// context reached while each is within maxCandidates children.
func (m *Model) base(s *state, top int) int {
	base := top
	for j := top - 1; j >= 1; j-- {
		h := s.ctx[j-1]
		if m.lv[j-1].first[h+1]-m.lv[j-1].first[h] > maxCandidates {
			break
		}
		base = j
	}
	return base
}

// initUnigramTop precomputes the candidates for an empty context.
func (m *Model) initUnigramTop() {
	// The unigram term of every id, once: a new context table needs it
	// for each of its words (3% of a cold server's sampling time).
	m.uniP = make([]float64, len(m.vocab))
	for w, a := range m.lv[0].adj[:len(m.vocab)] {
		m.uniP[w] = discounted(&m.disc[0], a)/m.uniDen + m.uniGamma*m.uniform
	}
	var s state
	all := make([]cand, 0, len(m.vocab))
	for w := uint32(eosID); int(w) < len(m.vocab); w++ {
		p := m.prob(&s, w)
		all = append(all, cand{id: w, p: p, lw: math.Log(p)})
	}
	sortCands(all)
	if len(all) > maxCandidates {
		all = all[:maxCandidates]
	}
	sum := 0.0
	for _, c := range all {
		sum += c.p
	}
	m.uniTop = append([]cand(nil), all...)
	m.uniTopRest = math.Max(0, 1-sum)
	m.uniTopIDs = make([]uint32, len(all))
	for i, c := range all {
		m.uniTopIDs[i] = c.id
	}
	slices.Sort(m.uniTopIDs)
}

// sortCands orders by descending probability, then id, so results are
// deterministic.
func sortCands(c []cand) { slices.SortFunc(c, candCmp) }

// TopNext returns the k most likely next tokens after prompt, with their
// natural-log probabilities.
func (m *Model) TopNext(prompt string, k int) []Candidate {
	s := m.newState(false)
	for _, t := range m.tokenize(prompt) {
		m.push(&s, m.id(t.Text))
	}
	return m.topK(&s, k, nil)
}

func (m *Model) topK(s *state, k int, buf []cand) []Candidate {
	if k <= 0 {
		return nil
	}
	cands, _ := m.candidates(s, buf)
	if len(cands) > k {
		cands = cands[:k]
	}
	out := make([]Candidate, len(cands))
	for i, c := range cands {
		out[i] = Candidate{Token: m.vocab[c.id], LogProb: math.Log(c.p)}
	}
	return out
}
