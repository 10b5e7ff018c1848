package repoprobe

import (
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
	"slices"
	"unicode/utf8"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/benchforge/benchforge/internal/textsim"
)

// Query is one target–query pair (benchchecker §3.2): Prompt is the prefix
// of an original snippet ending immediately before the single-word Target
// at byte Offset of file Path. RepoFreq, Entropy and Weight are filled in
// by Select.
type Query struct {
	ID       string      `json:"id"`
	Kind     PatternKind `json:"kind"`
	Path     string      `json:"path"`
	Offset   int         `json:"offset"`
	Prompt   string      `json:"prompt"`
	Target   string      `json:"target"`
	RepoFreq int         `json:"repo_freq"`
	Entropy  float64     `json:"entropy"`
	Weight   float64     `json:"weight"`
}

// QueryOptions tune template instantiation. Zero fields take the defaults
// in brackets.
type QueryOptions struct {
	// MaxMembers: pattern members aligned into a template [20].
	MaxMembers int
	// MaxTargetsPerTemplate: targets per template, evenly spaced over its
	// fixed words [8].
	MaxTargetsPerTemplate int
	// MinTargetLen: shortest target word, in bytes [4].
	MinTargetLen int
	// MinQueryChars / MaxQueryChars bound the prompt: it starts at the
	// snippet start but at most MaxQueryChars before the target, and
	// reaches back before the snippet (into the file) when the snippet
	// prefix is shorter than MinQueryChars [64, 1000].
	MinQueryChars, MaxQueryChars int
	// DedupRatio: a query whose last DedupTokens tokens (plus target) have
	// SequenceMatcher ratio ≥ DedupRatio with an earlier kept query is a
	// near-duplicate and dropped [0.8, 48].
	DedupRatio  float64
	DedupTokens int
}

func (o *QueryOptions) defaults() {
	def := func(p *int, v int) {
		if *p <= 0 {
			*p = v
		}
	}
	def(&o.MaxMembers, 20)
	def(&o.MaxTargetsPerTemplate, 8)
	def(&o.MinTargetLen, 4)
	def(&o.MinQueryChars, 64)
	def(&o.MaxQueryChars, 1000)
	def(&o.DedupTokens, 48)
	if o.DedupRatio <= 0 {
		o.DedupRatio = 0.8
	}
}

// holeTok marks a template hole in a token list being aligned; it cannot
// occur in lexed code.
const holeTok = "\x00hole\x00"

// BuildQueries instantiates the patterns into target–query pairs
// (benchchecker §4.1, "Template Extraction" and "Syntactic Query
// Deduplication"). Clone and text patterns get a template from their
// members (textsim.Extract, SequenceMatcher); patterns with a template
// already seen are structural duplicates and skipped. Targets are the
// fixed words of the template — words every member shares, so
// repository-specific rather than instance-specific — and each query is
// cut from the first member. A co-occurrence pattern is its own template:
// its second and later words are targets, each cut from a supporting file
// at the earliest embedding of the pattern. Near-duplicate queries are
// removed last.
func BuildQueries(files []File, pats []Pattern, opts QueryOptions) []Query {
	opts.defaults()
	return dedupQueries(instantiate(files, pats, opts), opts)
}

// instantiate is BuildQueries before deduplication.
func instantiate(files []File, pats []Pattern, opts QueryOptions) []Query {
	in := &instantiator{files: files, opts: opts, seenTmpl: map[string]bool{}, lexed: map[int][]tok{}}
	var qs []Query
	for _, p := range pats {
		switch {
		case len(p.Snippets) == 0:
		case p.Kind == KindCooccur:
			qs = in.cooccur(qs, p)
		default:
			qs = in.template(qs, p)
		}
	}
	return qs
}

// instantiator turns patterns into queries, lexing each file once and
// instantiating each distinct template once.
type instantiator struct {
	files    []File
	opts     QueryOptions
	seenTmpl map[string]bool
	lexed    map[int][]tok
}

func (in *instantiator) fileToks(fi int) []tok {
	if t, ok := in.lexed[fi]; ok {
		return t
	}
	t := lexTokens(string(in.files[fi].Content))
	in.lexed[fi] = t
	return t
}

// cooccur makes one query per word of a co-occurrence pattern after the
// first: the word as target, found in a supporting file after the words
// before it.
func (in *instantiator) cooccur(qs []Query, p Pattern) []Query {
	for j := 1; j < len(p.Words); j++ {
		fi := p.Snippets[(j-1)%len(p.Snippets)].File
		start, off, ok := embed(in.fileToks(fi), p.Words[:j+1])
		if ok {
			qs = append(qs, makeQuery(in.files[fi], p.Kind, start, off, p.Words[j], in.opts))
		}
	}
	return qs
}

// template aligns a clone or text pattern's members into a template
// (textsim.Extract) and makes queries for up to MaxTargetsPerTemplate of
// its fixed words, evenly spread, in the first member.
func (in *instantiator) template(qs []Query, p Pattern) []Query {
	members := p.Snippets[:min(len(p.Snippets), in.opts.MaxMembers)]
	toks := make([][]tok, len(members))
	seqs := make([][]string, len(members))
	for i, s := range members {
		toks[i] = lexTokens(string(in.files[s.File].Content[s.Start:s.End]))
		seqs[i] = texts(toks[i])
	}
	tmpl := textsim.Extract(seqs)
	key := string(p.Kind) + "\x01" + tmpl.String("\x00")
	if in.seenTmpl[key] {
		return qs
	}
	in.seenTmpl[key] = true
	s := members[0]
	for _, ti := range spread(fixedTargets(tmpl, toks[0], seqs[0], in.opts.MinTargetLen), in.opts.MaxTargetsPerTemplate) {
		t := toks[0][ti]
		if ti == 0 && s.Start == 0 {
			continue // nothing precedes the target
		}
		qs = append(qs, makeQuery(in.files[s.File], p.Kind, s.Start, s.Start+t.off, t.text, in.opts))
	}
	return qs
}

// fixedTargets aligns the template with the first member (its tokens
// toks, their texts seq) to find where its fixed words are in the
// original text, and returns the member's token indexes of the fixed
// words of at least minLen bytes, each word once.
func fixedTargets(tmpl textsim.Template, toks []tok, seq []string, minLen int) []int {
	var flat []string
	for _, pc := range tmpl {
		if pc.Hole {
			flat = append(flat, holeTok)
		} else {
			flat = append(flat, pc.Tokens...)
		}
	}
	m := difflib.NewMatcherWithJunk(flat, seq, false, nil)
	var cand []int
	used := map[string]bool{}
	for _, b := range m.GetMatchingBlocks() {
		for k := range b.Size {
			t := toks[b.B+k]
			if t.word && len(t.text) >= minLen && !used[t.text] {
				used[t.text] = true
				cand = append(cand, b.B+k)
			}
		}
	}
	return cand
}

func texts(ts []tok) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.text
	}
	return out
}

// spread picks at most k elements of xs, evenly spaced, in order.
func spread(xs []int, k int) []int {
	if len(xs) <= k {
		return xs
	}
	out := make([]int, k)
	for i := range k {
		out[i] = xs[i*len(xs)/k]
	}
	return out
}

// embed finds the earliest embedding of words in ts and returns the
// offsets of its first and last word.
func embed(ts []tok, words []string) (start, last int, ok bool) {
	k := 0
	for _, t := range ts {
		if t.text == words[k] {
			if k == 0 {
				start = t.off
			}
			k++
			if k == len(words) {
				return start, t.off, true
			}
		}
	}
	return 0, 0, false
}

// makeQuery cuts the prompt for a target at byte off of f whose snippet
// starts at byte start.
func makeQuery(f File, kind PatternKind, start, off int, target string, opts QueryOptions) Query {
	from := max(start, off-opts.MaxQueryChars)
	if off-from < opts.MinQueryChars {
		from = max(0, off-opts.MinQueryChars)
	}
	for from < off && !utf8.RuneStart(f.Content[from]) {
		from++
	}
	prompt := string(f.Content[from:off])
	return Query{ID: queryID(prompt, target), Kind: kind, Path: f.Path, Offset: off, Prompt: prompt, Target: target}
}

// queryID is a content hash of the prompt and target: stable across runs,
// so probe logs resume.
func queryID(prompt, target string) string {
	h := sha256.Sum256([]byte(prompt + "\x00" + target))
	return hex.EncodeToString(h[:8])
}

// dedupQueries drops exact repeats and syntactic near-duplicates: a query
// whose tail (last DedupTokens tokens and the target) has a
// SequenceMatcher ratio ≥ DedupRatio with the tail of an earlier kept
// query (textsim.Ratio, the criterion of textsim.Dedup). Candidate pairs
// are those of MinHash-LSH on token 3-grams (textsim.NearDuplicates at
// Jaccard 0.4); only kept queries are indexed and a query stops at its
// first match (textsim.FirstPassDedup), so the pass is near-linear.
func dedupQueries(qs []Query, opts QueryOptions) []Query {
	uniq, tails := dedupTails(qs, opts)
	bags := tokenBags(tails)
	keep := textsim.FirstPassDedup(tails, 3, 0.4, func(kept, i int) bool {
		// A third of the pairs that reach here fail; the multiset bound
		// rejects most of those without building a SequenceMatcher.
		return quickRatio(bags[kept], bags[i]) >= opts.DedupRatio &&
			textsim.Ratio(tails[kept], tails[i]) >= opts.DedupRatio
	})
	out := make([]Query, len(keep))
	for k, i := range keep {
		out[k] = uniq[i]
	}
	return out
}

// tokenBags renames each tail's tokens to small integers and sorts them,
// for quickRatio.
func tokenBags(tails [][]string) [][]uint32 {
	ids := map[string]uint32{}
	bags := make([][]uint32, len(tails))
	for i, t := range tails {
		b := make([]uint32, len(t))
		for k, s := range t {
			id, ok := ids[s]
			if !ok {
				id = uint32(len(ids))
				ids[s] = id
			}
			b[k] = id
		}
		slices.Sort(b)
		bags[i] = b
	}
	return bags
}

// quickRatio is difflib's QuickRatio of two token bags: the ratio as if
// every common token (with multiplicity) were matched. Matching blocks
// never match more, and the ratio 2M/(|a|+|b|) is computed the same way
// and rounds monotonically, so it bounds textsim.Ratio from above.
func quickRatio(a, b []uint32) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	return 2.0 * float64(textsim.IntersectSorted(a, b)) / float64(len(a)+len(b))
}

// dedupTails drops exact repeats (same id) and returns the rest with
// each query's tail: its last DedupTokens tokens and the target.
func dedupTails(qs []Query, opts QueryOptions) ([]Query, [][]string) {
	seen := map[string]bool{}
	var uniq []Query
	for _, q := range qs {
		if !seen[q.ID] {
			seen[q.ID] = true
			uniq = append(uniq, q)
		}
	}
	tails := make([][]string, len(uniq))
	for i, q := range uniq {
		ts := texts(lexTokens(q.Prompt))
		if len(ts) > opts.DedupTokens {
			ts = ts[len(ts)-opts.DedupTokens:]
		}
		tails[i] = append(ts, q.Target)
	}
	return uniq, tails
}

// SingleQueries builds queries without pattern identification, for the
// "without repetitiveness" ablation (benchchecker Table 5): n word
// occurrences drawn at random (seeded) from all files. Only where the
// target comes from changes: with no pattern, the snippet is the file up
// to the word, so the prompt is cut as a pattern query's is (makeQuery:
// the MaxQueryChars before the target, fewer at the file's start). Cut at
// the line holding the word instead, a prompt was a sixth as long as the
// full method's (median 64 bytes against 400 on the apache-java testbed),
// so the ablation also took away the context the target copies from.
func SingleQueries(files []File, n int, seed uint64, opts QueryOptions) []Query {
	opts.defaults()
	type occ struct {
		file int
		t    tok
	}
	var all []occ
	for fi, f := range files {
		for i, t := range lexTokens(string(f.Content)) {
			if i > 0 && t.word && len(t.text) >= opts.MinTargetLen {
				all = append(all, occ{fi, t})
			}
		}
	}
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	var qs []Query
	for _, o := range all[:min(len(all), 3*n)] {
		qs = append(qs, makeQuery(files[o.file], KindSingle, 0, o.t.off, o.t.text, opts))
	}
	qs = dedupQueries(qs, opts)
	return qs[:min(len(qs), n)]
}
