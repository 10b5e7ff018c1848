package ngram

import (
	"math"
	"strings"
	"testing"
)

// candidatesRef is the straightforward candidate computation the tables
// replace: prob for every child of the base context, then a full sort.
func (m *Model) candidatesRef(s *state) ([]cand, float64) {
	top := 0
	for j := 1; j <= len(s.ctx); j++ {
		h := s.ctx[j-1]
		if h == invalid || m.lv[j-1].den[h] == 0 {
			break
		}
		top = j
	}
	if top == 0 {
		return append([]cand(nil), m.uniTop...), m.uniTopRest
	}
	base := top
	for j := top - 1; j >= 1; j-- {
		h := s.ctx[j-1]
		if m.lv[j-1].first[h+1]-m.lv[j-1].first[h] > maxCandidates {
			break
		}
		base = j
	}
	h := s.ctx[base-1]
	var cands []cand
	sum := 0.0
	for _, w := range m.lv[base].word[m.lv[base-1].first[h]:m.lv[base-1].first[h+1]] {
		if w == eosID || w >= firstWordID {
			p := m.prob(s, w)
			cands = append(cands, cand{id: w, p: p, lw: math.Log(p)})
			sum += p
		}
	}
	sortCands(cands)
	return cands, math.Max(0, 1-sum)
}

// TestCandidatesMatchReference: at every position of real code, the
// table-based candidates are bit-identical to prob's and in the same
// order, with the same rest mass — on a first visit and from the memo.
func TestCandidatesMatchReference(t *testing.T) {
	compareCandidates(t, train(t, Corpus{Paths: []string{writeFiles(t, javaCorpus)}}, 5), javaCorpus, 200)
}

// TestCandidatesMatchReferenceJDK does the same on a 1 MB java.base model
// (wide contexts, widening, deep levels) over code it did not see.
func TestCandidatesMatchReferenceJDK(t *testing.T) {
	zp := jdkSrcZip(t)
	m := train(t, Corpus{Paths: []string{zp}, Include: []string{"java.base/java/util/**.java"}, MaxBytes: 1 << 20}, 6)
	texts := map[string]string{"bench": strings.Repeat(benchPrompt+"            return true;\n", 3), "unseen": javaCorpus["src/a/Stack.java"]}
	compareCandidates(t, m, texts, 100)
}

func compareCandidates(t *testing.T, m *Model, texts map[string]string, minSteps int) {
	steps := 0
	for pass := range 2 {
		for _, src := range texts {
			s := m.newState(false)
			var buf []cand
			for _, tk := range Tokenize(src) {
				got, rest := m.candidates(&s, buf)
				want, wrest := m.candidatesRef(&s)
				if len(got) != len(want) || rest != wrest {
					t.Fatalf("pass %d before %q: %d candidates rest %v, want %d rest %v", pass, tk.Text, len(got), rest, len(want), wrest)
				}
				for i := range got {
					if got[i].id != want[i].id || got[i].p != want[i].p || math.Abs(got[i].lw-math.Log(got[i].p)) > 1e-9 {
						t.Fatalf("pass %d before %q: candidate %d = %+v, want %+v", pass, tk.Text, i, got[i], want[i])
					}
				}
				buf = got
				m.push(&s, m.id(tk.Text))
				steps++
			}
		}
	}
	if steps < minSteps {
		t.Errorf("only %d steps compared", steps)
	}
}
