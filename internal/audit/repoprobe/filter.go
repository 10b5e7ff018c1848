package repoprobe

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/benchforge/benchforge/internal/llm"
)

// RepoFreq is the reference index behind distinctiveness (benchchecker
// §3.3, Challenge 2): for a word, how many repositories of a reference
// corpus contain it, and how many repositories the corpus has. It is
// implemented by internal/audit/refindex and, in memory, by MapFreq.
type RepoFreq interface {
	RepoFreq(word string) int
	Repos() int
}

// MapFreq is an in-memory RepoFreq built from word sets.
type MapFreq struct {
	counts map[string]int
	repos  int
}

// NewMapFreq counts, for every word, the repositories whose files
// contain it (identifier-like words as lexed for targets).
func NewMapFreq(repos [][]File) *MapFreq {
	m := &MapFreq{counts: map[string]int{}, repos: len(repos)}
	for _, files := range repos {
		seen := map[string]bool{}
		for _, f := range files {
			for _, t := range lexTokens(string(f.Content)) {
				if t.word && !seen[t.text] {
					seen[t.text] = true
					m.counts[t.text]++
				}
			}
		}
	}
	return m
}

// RepoFreq returns the number of repositories containing word.
func (m *MapFreq) RepoFreq(word string) int { return m.counts[word] }

// Repos returns the number of repositories indexed.
func (m *MapFreq) Repos() int { return m.repos }

// Entropy is the context-independence score of a target given its query,
// benchchecker Algorithm 3: the target is split into sub-tokens by case
// and underscores; a sub-token equal or lexically related (see related)
// to a sub-token of the query is revealed and only joins the context;
// every other sub-token is scored by the reference model given the query
// plus the sub-tokens before it (ref.Score, one call each, the loss being
// minus the log-probability of the tokens that end inside the sub-token —
// a model token straddling the boundary is charged whole), and the
// maximum loss (nats) is the entropy. A fully revealed target has entropy
// 0. It returns the entropy and the number of Score calls made.
func Entropy(ctx context.Context, ref llm.Model, query, target string) (float64, int, error) {
	qsubs := querySubTokens(query)
	best, calls := 0.0, 0
	for _, s := range splitSubTokens(target) {
		if slices.ContainsFunc(qsubs, func(q string) bool { return related(q, s.text) }) {
			continue
		}
		prompt := query + target[:s.start]
		resp, err := ref.Score(ctx, llm.ScoreRequest{Prompt: prompt, Continuation: target[s.start:s.end]})
		calls++
		if err != nil {
			return 0, calls, fmt.Errorf("repoprobe.Entropy(target %q): reference model %s: %w", target, ref.ID(), err)
		}
		best = max(best, continuationLoss(resp, len(prompt)))
	}
	return best, calls, nil
}

// querySubTokens are the distinct sub-tokens of the query's words, in
// order.
func querySubTokens(query string) []string {
	var qsubs []string
	seen := map[string]bool{}
	for _, t := range lexTokens(query) {
		if !t.word {
			continue
		}
		for _, s := range splitSubTokens(t.text) {
			if !seen[s.text] {
				seen[s.text] = true
				qsubs = append(qsubs, s.text)
			}
		}
	}
	return qsubs
}

// continuationLoss is minus the log-probability of the scored tokens that
// end past the prompt's n bytes (a token straddling the boundary is
// charged whole).
func continuationLoss(resp *llm.ScoreResponse, n int) float64 {
	loss := 0.0
	for _, t := range resp.Tokens {
		if t.HasLogprob && t.Offset+len(t.Token) > n {
			loss -= t.Logprob
		}
	}
	return loss
}

// SelectOptions configure the filters and weights of benchchecker §3.3.
// Zero fields take the defaults in brackets.
type SelectOptions struct {
	// Freq is the reference index; nil disables distinctiveness.
	Freq RepoFreq
	// MaxRepoFrac: targets in more than MaxRepoFrac·Repos reference
	// repositories are common and dropped [0.01].
	MaxRepoFrac float64
	// Reference scores context-independence; nil disables it.
	Reference llm.Model
	// MinEntropy: queries whose target entropy (nats) is below it are
	// predictable from context and dropped [2.0, i.e. the reference model
	// gives the hardest unrevealed sub-token probability above e⁻² ≈ 0.14].
	MinEntropy float64
	// MaxQueries: selection stops once this many queries pass [300].
	MaxQueries int
	// Seed orders candidates before the cap.
	Seed uint64
	// NoDistinct and NoContext switch a criterion off for ablations (the
	// filter and its factor of the weight).
	NoDistinct, NoContext bool
}

// SelectStats counts what selection did.
type SelectStats struct {
	Candidates  int `json:"candidates"`
	Common      int `json:"dropped_common"`
	Predictable int `json:"dropped_predictable"`
	ScoreCalls  int `json:"reference_calls"`
	Selected    int `json:"selected"`
	Unscored    int `json:"unscored"` // candidates left after the cap
}

// Select filters candidate queries into signature snippets and weights
// them (benchchecker §3.3): it drops common targets (distinctiveness via
// Freq), shuffles the rest with Seed, scores each with Entropy until
// MaxQueries pass the entropy filter, and gives each the weight
// entropy / repository frequency (a word absent from the index counts as
// in one repository, the one under test), normalised to mean 1. The
// result is ordered by weight, heaviest first — the probing order, which
// lets sequential stopping decide early.
func Select(ctx context.Context, cands []Query, opts SelectOptions) ([]Query, SelectStats, error) {
	opts.defaults()
	st := SelectStats{Candidates: len(cands)}
	pool := distinctPool(cands, opts, &st)
	r := rand.New(rand.NewPCG(opts.Seed, 0x5e1ec7))
	r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	out, err := independent(ctx, pool, opts, &st)
	if err != nil {
		return nil, st, err
	}
	weigh(out, opts.NoDistinct)
	slices.SortStableFunc(out, func(a, b Query) int {
		switch {
		case a.Weight > b.Weight:
			return -1
		case a.Weight < b.Weight:
			return 1
		}
		return 0
	})
	st.Selected = len(out)
	return out, st, nil
}

func (o *SelectOptions) defaults() {
	if o.MaxRepoFrac <= 0 {
		o.MaxRepoFrac = 0.01
	}
	if o.MinEntropy <= 0 {
		o.MinEntropy = 2.0
	}
	if o.MaxQueries <= 0 {
		o.MaxQueries = 300
	}
}

// distinctPool sets each candidate's repository frequency and keeps the
// distinctive ones (all of them under NoDistinct).
func distinctPool(cands []Query, opts SelectOptions, st *SelectStats) []Query {
	var pool []Query
	for _, q := range cands {
		q.RepoFreq = 1
		if opts.Freq != nil {
			q.RepoFreq = max(1, opts.Freq.RepoFreq(q.Target))
		}
		if !opts.NoDistinct && !distinctive(opts.Freq, q.Target, opts.MaxRepoFrac) {
			st.Common++
			continue
		}
		pool = append(pool, q)
	}
	return pool
}

// independent scores the pool's queries in order with Entropy and keeps
// those at or above MinEntropy until MaxQueries pass (every one, with
// entropy 1, under NoContext or without a reference).
func independent(ctx context.Context, pool []Query, opts SelectOptions, st *SelectStats) ([]Query, error) {
	var out []Query
	for i, q := range pool {
		if len(out) == opts.MaxQueries {
			st.Unscored = len(pool) - i
			break
		}
		q.Entropy = 1
		if !opts.NoContext && opts.Reference != nil {
			h, calls, err := Entropy(ctx, opts.Reference, q.Prompt, q.Target)
			st.ScoreCalls += calls
			if err != nil {
				return nil, err
			}
			if h < opts.MinEntropy {
				st.Predictable++
				continue
			}
			q.Entropy = h
		}
		out = append(out, q)
	}
	return out, nil
}

// weigh gives each query the weight entropy / repository frequency (the
// frequency taken as 1 under NoDistinct), normalised to mean 1.
func weigh(out []Query, noDistinct bool) {
	sum := 0.0
	for i := range out {
		f := float64(out[i].RepoFreq)
		if noDistinct {
			f = 1
		}
		out[i].Weight = out[i].Entropy / f
		sum += out[i].Weight
	}
	for i := range out {
		out[i].Weight *= float64(len(out)) / sum
	}
}
