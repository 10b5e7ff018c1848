package ngram

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
)

// DefaultOrder is the n-gram order used when Options.Order is 0.
const DefaultOrder = 6

// MaxOrder is the largest supported order.
const MaxOrder = 12

// Options configures Train.
type Options struct {
	Order int // n-gram order, 1..MaxOrder; 0 = DefaultOrder
	// MinCount is a count cutoff (capacity knob): k-grams with k >= 2 seen
	// fewer than MinCount times in the corpus are dropped before the
	// Kneser–Ney estimates are made, as SRILM's -gtNmin and KenLM's
	// --prune do, so their mass goes to the lower orders and the model
	// keeps only what it saw repeatedly. Continuation counts are taken
	// before the cutoff (KenLM). 0 or 1 keeps every n-gram.
	MinCount int
	// MaxNGrams is a capacity budget relative to the data: at each order
	// k >= 2 the count cutoff is raised until at most MaxNGrams distinct
	// k-grams remain (the most frequent; ties at the cutoff all go), so
	// the more a corpus holds, the more of its rarer sequences — one
	// repository's among many — are forgotten. 0 = no budget.
	MaxNGrams int
	// DiscountScale multiplies the estimated discounts D1, D2, D3+ of
	// every order (each capped at its count class: D1 <= 1, D2 <= 2,
	// D3+ <= 3), moving probability from what was seen to the
	// interpolated lower orders: above 1 the model smooths more and
	// reproduces its training text less. 0 means 1 (the estimates).
	DiscountScale float64
	// SplitIdentifiers trains (and makes the model score and sample) on
	// sub-word pieces of identifiers (see SplitIdentifiers), so unseen
	// identifiers are spelled from seen pieces. It is saved with the
	// model.
	SplitIdentifiers bool
	// Progress, when set, is called after each file with the bytes read so
	// far and the total size of the selected files.
	Progress func(done, total int64)
}

// Train builds a model from the corpus. Each file is one sequence,
// bracketed by <s> and </s>; n-grams never cross files. It fails with
// errs.ErrInput when the corpus selects no text.
func Train(ctx context.Context, src Corpus, opts Options) (*Model, error) {
	order, err := opts.order()
	if err != nil {
		return nil, err
	}
	files, total, closeAll, err := src.files(ctx)
	if err != nil {
		return nil, fmt.Errorf("ngram.Train: %w", err)
	}
	defer closeAll()

	m := &Model{order: order, ids: make(map[string]uint32), split: opts.SplitIdentifiers}
	m.vocab = []string{UnkToken, BOSToken, EOSToken}
	tokens, err := m.readTokens(ctx, files, total, opts.Progress)
	if err != nil {
		return nil, err
	}
	if m.stats.Tokens == 0 {
		return nil, fmt.Errorf("ngram.Train: corpus %v selects no non-empty text files (check --include/--exclude): %w", src.Paths, errs.ErrInput)
	}
	if len(tokens) >= math.MaxUint32 || len(m.vocab) >= math.MaxUint32 {
		return nil, fmt.Errorf("ngram.Train: corpus too large (%d tokens); limit it with MaxBytes: %w", len(tokens), errs.ErrInput)
	}
	m.stats.Vocab = len(m.vocab)
	if err := m.build(ctx, tokens, max(opts.MinCount, 1), opts.MaxNGrams, opts.DiscountScale); err != nil {
		return nil, err
	}
	m.trainSpelling()
	m.finish()
	return m, nil
}

// order validates the options and returns the model order (DefaultOrder
// for 0).
func (opts Options) order() (int, error) {
	order := opts.Order
	if order == 0 {
		order = DefaultOrder
	}
	if order < 1 || order > MaxOrder {
		return 0, fmt.Errorf("ngram.Train: order %d: want 1..%d: %w", order, MaxOrder, errs.ErrUsage)
	}
	if opts.MinCount < 0 || opts.MaxNGrams < 0 || opts.DiscountScale < 0 || math.IsNaN(opts.DiscountScale) {
		return 0, fmt.Errorf("ngram.Train: MinCount %d, DiscountScale %v: want >= 0: %w", opts.MinCount, opts.DiscountScale, errs.ErrUsage)
	}
	return order, nil
}

// readTokens reads the corpus files in order into one token-id stream,
// each file bracketed by <s> and </s>, growing the vocabulary and the
// corpus statistics as it goes.
func (m *Model) readTokens(ctx context.Context, files []sourceFile, total int64, progress func(done, total int64)) ([]uint32, error) {
	tokens := make([]uint32, 0, total/4+16)
	var buf bytes.Buffer
	var toks []Token
	var done int64
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ok, err := readSource(f, &buf)
		if err != nil {
			return nil, fmt.Errorf("ngram.Train: %w", err)
		}
		done += f.size
		if ok {
			text := buf.String()
			toks = appendTokens(toks[:0], text)
			if m.split {
				toks = SplitIdentifiers(toks)
			}
			tokens = m.appendIDs(tokens, toks)
			m.stats.Files++
			m.stats.Bytes += int64(len(text))
			m.stats.Tokens += int64(len(toks))
		}
		if progress != nil {
			progress(done, total)
		}
	}
	return tokens, nil
}

// appendIDs appends one document's token ids, bracketed by <s> and </s>,
// adding unseen tokens to the vocabulary.
func (m *Model) appendIDs(tokens []uint32, toks []Token) []uint32 {
	tokens = append(tokens, bosID)
	for _, t := range toks {
		id, known := m.ids[t.Text]
		if !known {
			id = uint32(len(m.vocab))
			s := strings.Clone(t.Text)
			m.vocab = append(m.vocab, s)
			m.ids[s] = id
		}
		tokens = append(tokens, id)
	}
	return append(tokens, eosID)
}

// build counts the n-grams of tokens into the trie levels. Level k nodes
// are created by grouping the positions of k-grams by their (k-1)-gram
// prefix node (a counting sort) and sorting each group by last word, so
// node ids come out in trie order with no hash table. Continuation counts
// N1+(•w) of level k-1 come from the distinct level-k nodes' suffixes.
func (m *Model) build(ctx context.Context, tokens []uint32, minCount, budget int, discScale float64) error {
	n := len(tokens)
	V := len(m.vocab)
	m.lv = make([]level, m.order)
	m.lv[0] = unigramLevel(tokens, V)
	b := &builder{tokens: tokens, prev: tokens, minCount: minCount, budget: budget,
		bosStart: make([]bool, V), grouped: make([]uint64, 0, n)}
	b.bosStart[bosID] = true // k-grams starting with <s> keep raw counts
	if m.order > 1 {
		b.cur = make([]uint32, n)
	}
	for k := 2; k <= m.order; k++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		m.lv[k-1] = b.nextLevel(&m.lv[k-2])
		if k == 2 {
			b.prev = make([]uint32, n)
		}
		b.prev, b.cur = b.cur, b.prev
	}
	m.lv[m.order-1].first = nil
	m.stats.NGrams = make([]int64, m.order)
	for k := range m.lv {
		m.stats.NGrams[k] = int64(len(m.lv[k].word))
	}
	m.stats.NGrams[0] = int64(V)
	m.computeDiscounts(discScale)
	m.computeContexts()
	return nil
}

// unigramLevel is level 1: node id = word id; adjusted counts start as
// raw counts.
func unigramLevel(tokens []uint32, V int) level {
	l1 := level{word: make([]uint32, V), adj: make([]uint32, V)}
	for i := range l1.word {
		l1.word[i] = uint32(i)
	}
	for _, t := range tokens {
		l1.adj[t]++
	}
	return l1
}

// builder holds build's state from one level to the next.
type builder struct {
	tokens   []uint32
	prev     []uint32 // node of the (k-1)-gram ending at each position
	cur      []uint32 // node of the k-gram ending at each position (invalid: none)
	grouped  []uint64 // k-gram positions grouped by prefix node: word<<32 | position
	bosStart []bool   // per level k-1 node: its n-gram starts with <s>
	minCount int
	budget   int
}

// extends says whether position i continues the (k-1)-gram ending at
// i-1 into a k-gram (n-grams never cross files).
func (b *builder) extends(i int) bool {
	return b.prev[i-1] != invalid && b.tokens[i] != bosID && b.tokens[i-1] != eosID
}

// group sorts the k-gram positions by prefix node (a counting sort), each
// group by last word, and returns where each parent's group starts.
func (b *builder) group(parents int) []uint32 {
	n := len(b.tokens)
	start := make([]uint32, parents+1)
	for i := 1; i < n; i++ {
		if b.extends(i) {
			start[b.prev[i-1]+1]++
		}
	}
	for p := 1; p <= parents; p++ {
		start[p] += start[p-1]
	}
	b.grouped = b.grouped[:start[parents]]
	fill := slices.Clone(start[:parents])
	for i := 1; i < n; i++ {
		b.cur[i] = invalid
		if b.extends(i) {
			p := b.prev[i-1]
			b.grouped[fill[p]] = uint64(b.tokens[i])<<32 | uint64(i)
			fill[p]++
		}
	}
	b.cur[0] = invalid
	for p := 0; p < parents; p++ {
		if g := b.grouped[start[p]:start[p+1]]; len(g) > 1 {
			slices.Sort(g)
		}
	}
	return start
}

// nextLevel builds level k from level k-1 (pl): its nodes, in trie
// order, are the runs of equal last words within each parent's group
// that reach the count cutoff; pl gets its child index and its final
// adjusted counts (continuation counts except for <s>-initial n-grams,
// whose raw counts stay).
func (b *builder) nextLevel(pl *level) level {
	parents := len(pl.word)
	start := b.group(parents)
	cont := make([]uint32, parents) // N1+(• v) for level k-1 nodes v
	var nl level
	nl.word = make([]uint32, 0, len(b.grouped)/2+1)
	nl.adj = make([]uint32, 0, len(b.grouped)/2+1)
	pl.first = make([]uint32, parents+1)
	var nextBOS []bool
	cutK := b.minCount
	if b.budget > 0 {
		cutK = max(cutK, budgetCut(b.grouped, start, b.budget))
	}
	for p := 0; p < parents; p++ {
		pl.first[p] = uint32(len(nl.word))
		g := b.grouped[start[p]:start[p+1]]
		for a := 0; a < len(g); {
			w := uint32(g[a] >> 32)
			e := a + 1
			for e < len(g) && uint32(g[e]>>32) == w {
				e++
			}
			run := g[a:e]
			a = e
			if suffix := b.prev[uint32(run[0])]; suffix != invalid {
				cont[suffix]++
			}
			if len(run) < cutK {
				continue // cut off: cur stays invalid, no longer k-gram extends it
			}
			id := uint32(len(nl.word))
			nl.word = append(nl.word, w)
			nl.adj = append(nl.adj, uint32(len(run)))
			nextBOS = append(nextBOS, b.bosStart[p])
			for _, pos := range run {
				b.cur[uint32(pos)] = id
			}
		}
	}
	pl.first[parents] = uint32(len(nl.word))
	for v := range pl.adj {
		if !b.bosStart[v] {
			pl.adj[v] = cont[v]
		}
	}
	b.bosStart = nextBOS
	return nl
}

// countsOfCounts is n1..n4, how many of a level's adjusted counts are 1,
// 2, 3 and 4 (at level 1 the special tokens other than </s> left out).
func countsOfCounts(adj []uint32, unigrams bool) [5]float64 {
	var nr [5]float64
	for v, a := range adj {
		if unigrams && v < firstWordID && v != eosID {
			continue
		}
		if a >= 1 && a <= 4 {
			nr[a]++
		}
	}
	return nr
}

// computeDiscounts sets D1, D2, D3+ per order from the counts-of-counts of
// the adjusted counts (Chen & Goodman 1998, eq. 26), times scale (0 = 1),
// each capped at its count class. Orders with too few counts to estimate
// them (tiny corpora, or all singletons cut off) fall back to 0.5, 1.0, 1.5.
func (m *Model) computeDiscounts(scale float64) {
	m.disc = make([][3]float64, m.order)
	for k := range m.lv {
		m.disc[k] = discountsFromCounts(countsOfCounts(m.lv[k].adj, k == 0))
		if scale > 0 && scale != 1 {
			for i := range m.disc[k] {
				m.disc[k][i] = min(m.disc[k][i]*scale, float64(i+1))
			}
		}
	}
}

func discountsFromCounts(nr [5]float64) [3]float64 {
	d := [3]float64{0.5, 1.0, 1.5}
	if nr[1] == 0 || nr[2] == 0 {
		return d
	}
	y := nr[1] / (nr[1] + 2*nr[2])
	for i := 1; i <= 3; i++ {
		if nr[i] == 0 || nr[i+1] == 0 {
			continue
		}
		v := float64(i) - float64(i+1)*y*nr[i+1]/nr[i]
		if v > 0 && v <= float64(i) && !math.IsNaN(v) {
			d[i-1] = v
		}
	}
	return d
}

// computeContexts sets, for every context node, the sum of its children's
// adjusted counts and its backoff weight
// γ(h) = (D1·N1(h•) + D2·N2(h•) + D3+·N3+(h•)) / Σ_w a(hw).
func (m *Model) computeContexts() {
	for k := 0; k < m.order-1; k++ {
		l, nl, d := &m.lv[k], &m.lv[k+1], &m.disc[k+1]
		nodes := len(l.word)
		l.den = make([]uint32, nodes)
		l.gamma = make([]float32, nodes)
		for h := 0; h < nodes; h++ {
			var sum, g float64
			for c := l.first[h]; c < l.first[h+1]; c++ {
				a := nl.adj[c]
				sum += float64(a)
				g += discount(d, a)
			}
			if sum > 0 {
				l.den[h] = uint32(min(sum, math.MaxUint32))
				l.gamma[h] = float32(g / sum)
			} else {
				l.gamma[h] = 1
			}
		}
	}
}

// trainSpelling fits the byte unigram model used for unknown tokens on the
// vocabulary's token types (add-one smoothed, with an end-of-token mark).
func (m *Model) trainSpelling() {
	var counts [257]float64
	for _, t := range m.vocab[firstWordID:] {
		for i := 0; i < len(t); i++ {
			counts[t[i]]++
		}
		counts[256]++
	}
	total := 0.0
	for i := range counts {
		counts[i]++
		total += counts[i]
	}
	for i := range counts {
		m.spell[i] = math.Log(counts[i] / total)
	}
}

// finish computes the derived unigram quantities after Train or Load.
func (m *Model) finish() {
	l := &m.lv[0]
	d := &m.disc[0]
	var sum, g float64
	for v, a := range l.adj {
		if v == bosID {
			continue
		}
		sum += float64(a)
		g += discount(d, a)
	}
	m.uniDen = sum
	m.uniGamma = 1
	if sum > 0 {
		m.uniGamma = g / sum
	}
	m.uniform = 1 / float64(len(m.vocab)-1)
	m.uniCum = make([]float64, len(l.adj))
	acc := 0.0
	for v, a := range l.adj {
		if v != bosID {
			acc += math.Max(float64(a)-discount(d, a), 0)
		}
		m.uniCum[v] = acc
	}
	if m.ids == nil {
		m.ids = make(map[string]uint32, len(m.vocab))
		for i, t := range m.vocab[firstWordID:] {
			m.ids[t] = uint32(i + firstWordID)
		}
	}
	m.initUnigramTop()
	m.memo = &ctxMemo{}
}

// budgetCut is the smallest count cutoff that leaves at most budget
// distinct k-grams in the sorted groups of positions.
func budgetCut(grouped []uint64, start []uint32, budget int) int {
	hist := map[int]int{} // run length → distinct k-grams with it
	for p := 0; p+1 < len(start); p++ {
		g := grouped[start[p]:start[p+1]]
		for a := 0; a < len(g); {
			b := a + 1
			for b < len(g) && g[b]>>32 == g[a]>>32 {
				b++
			}
			hist[b-a]++
			a = b
		}
	}
	counts := make([]int, 0, len(hist))
	for c := range hist {
		counts = append(counts, c)
	}
	slices.Sort(counts)
	kept := 0
	for i := len(counts) - 1; i >= 0; i-- {
		if kept+hist[counts[i]] > budget {
			return counts[i] + 1
		}
		kept += hist[counts[i]]
	}
	return 1
}
