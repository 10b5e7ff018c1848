package repoprobe

import (
	"context"
	"fmt"
	"math"
	"path"
	"runtime"
	"slices"
	"strings"

	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/step"
	"github.com/benchforge/benchforge/internal/textsim"
)

// PatternKind names the three syntactic pattern forms of benchchecker §4.1.
type PatternKind string

// Pattern kinds.
const (
	KindClone   PatternKind = "clone"   // code-block clones (rename-blind function groups)
	KindText    PatternKind = "text"    // text duplications (comments, licence headers, imports)
	KindCooccur PatternKind = "cooccur" // word co-occurrences (PrefixSpan over per-file word sequences)
	// KindSingle marks a query built from an isolated word occurrence, not
	// from a repeated pattern: the "without repetitiveness" ablation.
	KindSingle PatternKind = "single"
)

// Snippet is one occurrence of a pattern: bytes [Start, End) of file File
// (an index into the mined file list).
type Snippet struct {
	File       int `json:"file"`
	Start, End int
}

// Pattern is a group of snippets sharing a repeated structure. For
// co-occurrence patterns Words is the word sequence and each snippet is a
// whole supporting file.
type Pattern struct {
	Kind     PatternKind `json:"kind"`
	Snippets []Snippet   `json:"snippets"`
	Words    []string    `json:"words,omitempty"`
}

// MineOptions tune pattern identification. Zero fields take the defaults
// in brackets.
type MineOptions struct {
	// CloneMinTokens: shortest function (rename-blind tokens) considered
	// for clones [50, NiCad's ~10 lines].
	CloneMinTokens int
	// CloneSimilarity: token 5-gram Jaccard for near-miss (type-3) clones
	// [0: exact rename-blind type-2 clones only; near-miss search costs
	// MinHash-LSH time on large repositories].
	CloneSimilarity float64
	// SimHashDist: Hamming threshold of text-duplication clustering [3].
	SimHashDist int
	// TextMinChars: shortest comment / import block clustered [60].
	TextMinChars int
	// MinSupport and MinSupportFrac: a co-occurrence pattern must occur in
	// at least max(MinSupport, ⌈MinSupportFrac·files⌉) files [3, 0.005].
	MinSupport     int
	MinSupportFrac float64
	// MaxPatternLen: longest co-occurrence pattern, in words [3].
	MaxPatternLen int
	// MaxSeqWords: per-file word sequence is cut to this many words [48].
	MaxSeqWords int
	// MaxCooccur: co-occurrence patterns kept, most supported first [2000].
	MaxCooccur int
	// Freq and MaxRepoFrac restrict co-occurrence words to distinctive
	// ones (repository frequency ≤ MaxRepoFrac·Repos) [nil: all words;
	// 0.01].
	Freq        RepoFreq
	MaxRepoFrac float64
	// Workers parse files in parallel [GOMAXPROCS].
	Workers int
}

func (o *MineOptions) defaults() {
	def := func(p *int, v int) {
		if *p <= 0 {
			*p = v
		}
	}
	def(&o.CloneMinTokens, 50)
	def(&o.SimHashDist, 3)
	def(&o.TextMinChars, 60)
	def(&o.MinSupport, 3)
	def(&o.MaxPatternLen, 3)
	def(&o.MaxSeqWords, 48)
	def(&o.MaxCooccur, 2000)
	def(&o.Workers, runtime.GOMAXPROCS(0))
	if o.MinSupportFrac <= 0 {
		o.MinSupportFrac = 0.005
	}
	if o.MaxRepoFrac <= 0 {
		o.MaxRepoFrac = 0.01
	}
}

// Mine identifies the repetitive patterns of a repository snapshot
// (benchchecker §4.1, "Pattern Identification"): clones, then text
// duplications, then word co-occurrences. Files in languages other than
// Java and Python contribute text duplications and co-occurrences only.
// It fails only when ctx is done.
func Mine(ctx context.Context, files []File, opts MineOptions) ([]Pattern, error) {
	opts.defaults()
	clones, err := mineClones(ctx, files, opts)
	if err != nil {
		return nil, err
	}
	pats := append(clones, mineText(files, opts)...)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("repoprobe.Mine: %w", err)
	}
	co := mineCooccur(ctx, files, opts)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("repoprobe.Mine: %w", err)
	}
	return append(pats, co...), nil
}

// MineCooccur is Mine's word co-occurrence step alone (Algorithm 2).
// With Freq nil every word of four letters or more is a pattern item,
// not only the distinctive ones: the "without distinctiveness" ablation
// (benchchecker Table 5) mines so, since Algorithm 2's restriction to
// distinctive words is the distinctiveness criterion applied to the
// co-occurrence targets before Select sees them. It fails only when ctx
// is done.
func MineCooccur(ctx context.Context, files []File, opts MineOptions) ([]Pattern, error) {
	opts.defaults()
	co := mineCooccur(ctx, files, opts)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("repoprobe.MineCooccur: %w", err)
	}
	return co, nil
}

// block is a function declaration with its rename-blind token sequence.
type block struct {
	file, start, end int
	blind            []string
}

// mineClones groups function declarations whose rename-blind token
// sequences are clones (textsim.CloneGroups: NiCad-style blind renaming
// and literal abstraction; the paper runs NiCad 6.2).
func mineClones(ctx context.Context, files []File, opts MineOptions) ([]Pattern, error) {
	per := make([][]block, len(files))
	// fileBlocks cannot fail: the pool stops only for ctx, tested after
	// it (as a stop after the last file counts too).
	_ = step.EachIndex(ctx, opts.Workers, len(files), func(_ context.Context, i int) error {
		per[i] = fileBlocks(i, files[i], opts.CloneMinTokens)
		return nil
	})
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("repoprobe.Mine: clones: %w", err)
	}
	var blocks []block
	for _, bs := range per {
		blocks = append(blocks, bs...)
	}
	seqs := make([][]string, len(blocks))
	for i, b := range blocks {
		seqs[i] = b.blind
	}
	var out []Pattern
	for _, g := range textsim.CloneGroups(seqs, textsim.CloneOptions{MinTokens: opts.CloneMinTokens, Similarity: opts.CloneSimilarity}) {
		p := Pattern{Kind: KindClone}
		for _, i := range g {
			p.Snippets = append(p.Snippets, Snippet{File: blocks[i].file, Start: blocks[i].start, End: blocks[i].end})
		}
		out = append(out, p)
	}
	return out, nil
}

// fileBlocks parses one file and returns its function declarations with
// bodies as rename-blind token sequences: identifiers become ID, literals
// LIT (except true/false/null/None/True/False), comments are dropped.
func fileBlocks(fi int, f File, minTokens int) []block {
	lang, err := code.DetectLang(f.Path)
	if err != nil {
		return nil
	}
	cf, err := code.Parse(lang, f.Path, f.Content)
	if err != nil {
		return nil
	}
	defer cf.Close()
	toks := cf.Tokens()
	var out []block
	for _, fn := range cf.Functions() {
		if !fn.HasBody() {
			continue
		}
		lo, _ := slices.BinarySearchFunc(toks, fn.StartByte, func(t code.Token, b int) int { return t.StartByte - b })
		var blind []string
		for _, t := range toks[lo:] {
			if t.StartByte >= fn.EndByte {
				break
			}
			if t.Kind != code.Comment {
				blind = append(blind, blindToken(t))
			}
		}
		if len(blind) >= minTokens {
			out = append(out, block{file: fi, start: fn.StartByte, end: fn.EndByte, blind: blind})
		}
	}
	return out
}

// blindToken is a token's rename-blind text: ID for an identifier, LIT
// for a literal other than the boolean and null constants, else the text.
func blindToken(t code.Token) string {
	switch t.Kind {
	case code.Identifier:
		return "ID"
	case code.Literal:
		switch t.Text {
		case "true", "false", "null", "None", "True", "False":
			return t.Text
		}
		return "LIT"
	}
	return t.Text
}

// lineKind classifies a source line for text-duplication blocks.
func lineKind(line string) int {
	s := strings.TrimSpace(line)
	switch {
	case s == "":
		return 0
	case strings.HasPrefix(s, "//"), strings.HasPrefix(s, "/*"), strings.HasPrefix(s, "*"), strings.HasPrefix(s, "#"):
		return 1 // comment (licence headers are the first comment block)
	case strings.HasPrefix(s, "import "), strings.HasPrefix(s, "package "),
		strings.HasPrefix(s, "from ") && strings.Contains(s, " import "):
		return 2 // import block
	}
	return 0
}

// mineText clusters comment blocks, licence headers and import blocks with
// SimHash (benchchecker Algorithm 1, textsim.ClusterSimHash). A block is
// a maximal run of consecutive lines of one kind; blocks shorter than
// TextMinChars are ignored. Clusters of two or more blocks are patterns.
func mineText(files []File, opts MineOptions) []Pattern {
	var texts []string
	var snips []Snippet
	for fi, f := range files {
		texts, snips = textBlocks(texts, snips, fi, string(f.Content), opts.TextMinChars)
	}
	var out []Pattern
	for _, c := range textsim.ClusterSimHash(texts, opts.SimHashDist) {
		if len(c) < 2 {
			continue
		}
		p := Pattern{Kind: KindText}
		for _, i := range c {
			p.Snippets = append(p.Snippets, snips[i])
		}
		out = append(out, p)
	}
	return out
}

// textBlocks appends file fi's blocks (maximal runs of comment or import
// lines) of at least minChars bytes: their texts and snippets.
func textBlocks(texts []string, snips []Snippet, fi int, src string, minChars int) ([]string, []Snippet) {
	start, kind := -1, 0
	off := 0
	emit := func(end int) {
		if start >= 0 && end-start >= minChars {
			texts = append(texts, src[start:end])
			snips = append(snips, Snippet{File: fi, Start: start, End: end})
		}
		start, kind = -1, 0
	}
	for off < len(src) {
		nl := strings.IndexByte(src[off:], '\n')
		end := len(src)
		if nl >= 0 {
			end = off + nl + 1
		}
		k := lineKind(src[off:end])
		if k != kind {
			emit(off)
			if k != 0 {
				start, kind = off, k
			}
		}
		off = end
	}
	emit(len(src))
	return texts, snips
}

// distinctive reports whether word w passes the distinctiveness filter.
func distinctive(freq RepoFreq, w string, maxFrac float64) bool {
	if freq == nil || freq.Repos() == 0 {
		return true
	}
	return float64(freq.RepoFreq(w)) <= maxFrac*float64(freq.Repos())
}

// mineCooccur mines word co-occurrence patterns (benchchecker Algorithm
// 2): each file becomes the sequence of its distinctive words (first
// occurrences, in order, words of four letters or more occurring in at
// least minSup files), PrefixSpan finds the sequences of 2..MaxPatternLen
// words supported by minSup files, and patterns absorbed by a longer one
// with the same support are merged (MergeClosed).
func mineCooccur(ctx context.Context, files []File, opts MineOptions) []Pattern {
	minSup := max(opts.MinSupport, int(math.Ceil(opts.MinSupportFrac*float64(len(files)))))
	seqs, df := wordSequences(files)
	keep := map[string]bool{}
	for w, n := range df {
		if n >= minSup && distinctive(opts.Freq, w, opts.MaxRepoFrac) {
			keep[w] = true
		}
	}
	db := make([][][]string, len(files))
	for i, s := range seqs {
		for _, w := range s {
			if keep[w] {
				db[i] = append(db[i], []string{w})
				if len(db[i]) == opts.MaxSeqWords {
					break
				}
			}
		}
	}
	raw := PrefixSpan(ctx, db, minSup, opts.MaxPatternLen, 20*opts.MaxCooccur)
	multi := strongestMulti(MergeClosed(raw), opts.MaxCooccur)
	out := make([]Pattern, 0, len(multi))
	for _, p := range multi {
		pat := Pattern{Kind: KindCooccur, Words: p.Words()}
		for _, si := range p.Seqs {
			pat.Snippets = append(pat.Snippets, Snippet{File: si, Start: 0, End: len(files[si].Content)})
		}
		out = append(out, pat)
	}
	return out
}

// wordSequences turns each file into the sequence of its words of four
// letters or more, first occurrences in order, and counts the files
// holding each word.
func wordSequences(files []File) (seqs [][]string, df map[string]int) {
	seqs = make([][]string, len(files))
	df = map[string]int{}
	for i, f := range files {
		seen := map[string]bool{}
		for _, t := range lexTokens(string(f.Content)) {
			if t.word && len(t.text) >= 4 && !seen[t.text] {
				seen[t.text] = true
				seqs[i] = append(seqs[i], t.text)
			}
		}
		for w := range seen {
			df[w]++
		}
	}
	return seqs, df
}

// strongestMulti keeps the patterns of two words or more, the n best
// supported (ties in mining order).
func strongestMulti(merged []SeqPattern, n int) []SeqPattern {
	var multi []SeqPattern
	for _, p := range merged {
		if p.Len() >= 2 {
			multi = append(multi, p)
		}
	}
	slices.SortStableFunc(multi, func(a, b SeqPattern) int { return b.Support - a.Support })
	if len(multi) > n {
		multi = multi[:n]
	}
	return multi
}

// langOf guesses a repository's language from its files' extensions
// (the majority of .java vs .py files), "" when neither occurs.
func langOf(files []File) string {
	j, p := 0, 0
	for _, f := range files {
		switch path.Ext(f.Path) {
		case ".java":
			j++
		case ".py", ".pyi":
			p++
		}
	}
	switch {
	case j == 0 && p == 0:
		return ""
	case j >= p:
		return "java"
	}
	return "python"
}
