package textsim

import (
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// Hole is how a template's variable part prints: benchchecker §4.1 calls
// these <text> labels.
const Hole = "<text>"

// holeToken stands for a hole inside a token sequence being matched; it
// cannot occur in real tokens.
const holeToken = "\x00<text>\x00"

// Piece is one part of a template: fixed tokens or a hole.
type Piece struct {
	Tokens []string `json:"tokens,omitempty"`
	Hole   bool     `json:"hole,omitempty"`
}

// Template is a structural pattern: fixed token runs interleaved with holes
// that stand for arbitrary content.
type Template []Piece

// String renders the template with tokens joined by sep and holes as <text>.
func (t Template) String(sep string) string {
	var parts []string
	for _, p := range t {
		if p.Hole {
			parts = append(parts, Hole)
		} else {
			parts = append(parts, strings.Join(p.Tokens, sep))
		}
	}
	return strings.Join(parts, sep)
}

// Fixed returns the number of fixed tokens in t.
func (t Template) Fixed() int {
	n := 0
	for _, p := range t {
		n += len(p.Tokens)
	}
	return n
}

func (t Template) tokens() []string {
	var out []string
	for _, p := range t {
		if p.Hole {
			out = append(out, holeToken)
		} else {
			out = append(out, p.Tokens...)
		}
	}
	return out
}

// Ratio is difflib's SequenceMatcher ratio 2·M/(|a|+|b|) over tokens, as
// Python's difflib.SequenceMatcher(None, a, b).ratio() computes it
// (including its autojunk heuristic for sequences of 200+ tokens).
func Ratio(a, b []string) float64 {
	if len(a)+len(b) == 0 {
		return 1
	}
	return difflib.NewMatcher(a, b).Ratio()
}

// Extract builds the template common to all members of a pattern group
// (benchchecker §4.1, "Template Extraction"): the first member is the
// initial template; each further member is aligned to it with a
// SequenceMatcher, matching runs stay fixed and everything else becomes a
// hole. Adjacent holes merge. A group of one is its own template.
func Extract(members [][]string) Template {
	if len(members) == 0 {
		return nil
	}
	t := Template{{Tokens: slices.Clone(members[0])}}
	for _, m := range members[1:] {
		t = merge(t.tokens(), m)
	}
	return t
}

func merge(a, b []string) Template {
	var t Template
	add := func(p Piece) {
		if p.Hole {
			if len(t) > 0 && t[len(t)-1].Hole {
				return
			}
			t = append(t, p)
			return
		}
		if len(p.Tokens) == 0 {
			return
		}
		// Fixed runs may contain holes carried from a; split on them.
		start := 0
		for i, tok := range p.Tokens {
			if tok == holeToken {
				if i > start {
					t = appendFixed(t, p.Tokens[start:i])
				}
				if len(t) == 0 || !t[len(t)-1].Hole {
					t = append(t, Piece{Hole: true})
				}
				start = i + 1
			}
		}
		if start < len(p.Tokens) {
			t = appendFixed(t, p.Tokens[start:])
		}
	}
	ai, bi := 0, 0
	for _, m := range difflib.NewMatcher(a, b).GetMatchingBlocks() {
		if m.A > ai || m.B > bi {
			add(Piece{Hole: true})
		}
		add(Piece{Tokens: a[m.A : m.A+m.Size]})
		ai, bi = m.A+m.Size, m.B+m.Size
	}
	return t
}

func appendFixed(t Template, toks []string) Template {
	if len(t) > 0 && !t[len(t)-1].Hole {
		t[len(t)-1].Tokens = append(t[len(t)-1].Tokens, toks...)
		return t
	}
	return append(t, Piece{Tokens: slices.Clone(toks)})
}

// Dedup keeps the sequences that are not near-duplicates of an earlier kept
// one: a sequence is dropped when its Ratio to any kept sequence reaches
// threshold (benchchecker §4.1, "Syntactic Query Deduplication"). It
// returns the indexes kept, in order.
func Dedup(seqs [][]string, threshold float64) []int {
	var kept []int
	for i, s := range seqs {
		dup := false
		for _, k := range kept {
			// Ratio is at most 2·min/(|a|+|b|); skip hopeless comparisons.
			la, lb := len(s), len(seqs[k])
			if la+lb > 0 && 2*float64(min(la, lb))/float64(la+lb) < threshold {
				continue
			}
			if Ratio(seqs[k], s) >= threshold {
				dup = true
				break
			}
		}
		if !dup {
			kept = append(kept, i)
		}
	}
	return kept
}
