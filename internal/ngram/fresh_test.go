package ngram

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDrawFreshMatchesPick checks drawFresh against pick on the listed
// step, at every step of real completions of the golden model (and of
// the benchmark's JDK model when there is a src.zip), at five
// temperatures, for random numbers drawn at random and for ones put on
// the boundaries between running sums (and next to them), where the
// bound must hold or give up: whenever drawFresh decides, its candidate
// (or its backoff draw, from a copy of the random source) is pick's,
// with the same probability bits, and a kept copy of the step (a
// revisit's) decides the same. Most random draws must be decided, or
// the fast path would be a dead one.
func TestDrawFreshMatchesPick(t *testing.T) {
	models := []*Model{goldenModel(t)}
	if p, _ := jdkZipSize(); p != "" && !testing.Short() {
		models = append(models, benchJDKModel(t))
	}
	prompts := []string{benchPrompt, "        for (int i = 0; i < ", "     * @param str the String to check\n     * @return "}
	var random, decided, edges, edgeDecided int
	for _, m := range models {
		for _, prompt := range prompts {
			for _, st := range freshStates(t, m, prompt) {
				for _, temp := range []float64{0.3, 0.8, 1, 1.5, 2} {
					r, d, e, ed := checkFresh(t, m, st, temp)
					random, decided, edges, edgeDecided = random+r, decided+d, edges+e, edgeDecided+ed
				}
			}
		}
	}
	t.Logf("random numbers: %d of %d decided; on or next to boundaries: %d of %d", decided, random, edgeDecided, edges)
	if random == 0 || float64(decided) < 0.99*float64(random) {
		t.Errorf("drawFresh decided %d of %d random draws; want at least 99%%", decided, random)
	}
	if edgeDecided == edges {
		t.Errorf("drawFresh decided all %d draws on boundaries: the bound never gave up", edges)
	}
}

// freshStates returns the states after each token of 40 sampled
// completions of prompt (fixed seeds) whose steps have a kept table.
func freshStates(t *testing.T, m *Model, prompt string) []state {
	var out []state
	for seed := range uint64(40) {
		comps, err := m.Sample(t.Context(), prompt, SampleOptions{MaxTokens: 12, Temperature: 0.9, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		s := m.newState(false)
		for _, tok := range m.tokenize(prompt + comps[0].Text) {
			m.push(&s, m.id(tok.Text))
			if top := m.top(&s); top > 0 && m.table(&s, m.base(&s, top)).kept {
				out = append(out, state{ctx: slices.Clone(s.ctx)})
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no step with a kept table after %q", prompt)
	}
	return out
}

// checkFresh compares drawFresh with pick at s and temperature temp and
// counts the draws tried and decided, random and on boundaries.
func checkFresh(t *testing.T, m *Model, s state, temp float64) (random, decided, edges, edgeDecided int) {
	top := m.top(&s)
	base := m.base(&s, top)
	tb := m.table(&s, base)
	cands, rest := m.fromTable(&s, tb, base, top, nil)
	opts := SampleOptions{Temperature: temp}
	invT := 1 / temp
	// The running sums as pick's walk meets them, and its total.
	var cum []float64
	total := 0.0
	for _, c := range cands {
		total += pickWeight(c, cands[0], invT)
		cum = append(cum, total)
	}
	all := total + restWeight(rest, cands[0], invT)
	rs := []float64{}
	src := rand.New(rand.NewPCG(uint64(len(cands)), math.Float64bits(temp)))
	for range 8 {
		rs = append(rs, src.Float64())
	}
	for _, b := range append(cum[:min(len(cum), 4)], total) {
		r := b / all
		rs = append(rs, r, math.Nextafter(r, 0), math.Nextafter(r, 1))
	}
	for k, r := range rs {
		if r >= 1 {
			continue
		}
		f := freshPool.Get().(*freshStep)
		m.prepare(f, &s, tb, base, top)
		c, backoff, ok := m.drawFresh(f, invT, r, &f.dw)
		// A kept copy, drawing with its draw computed anew or kept
		// from the first draw (keepStep), decides the same.
		for _, kept := range []*freshStep{f.keptCopy(nil), f.keptCopy(new(m.drawSetup(f, invT, nil)))} {
			kc, kb, kok := kept.decide(m.keptDraw(kept, invT), r)
			if kc != c || kb != backoff || kok != ok {
				t.Errorf("context %v, T=%v, r=%v: a kept step draws %v (backoff %v, decided %v), the prepared one %v (%v, %v)", s.ctx, temp, r, kc, kb, kok, c, backoff, ok)
			}
		}
		freshPool.Put(f)
		isEdge := k >= 8
		if isEdge {
			edges++
		} else {
			random++
		}
		if !ok {
			continue
		}
		if isEdge {
			edgeDecided++
		} else {
			decided++
		}
		wantW, wantP := m.pickWith(&s, cands, rest, opts, r, rand.New(rand.NewPCG(7, 7)), nil, tb.words)
		gotW, gotP := c.id, c.p
		if backoff {
			if w, ok := m.drawBackoff(&s, nil, rand.New(rand.NewPCG(7, 7)), tb.words); ok {
				gotW, gotP = w, m.prob(&s, w)
			}
		}
		if gotW != wantW || math.Float64bits(gotP) != math.Float64bits(wantP) {
			t.Errorf("context %v, T=%v, r=%v: drawFresh gives %d (p %v, backoff %v), pick %d (p %v)", s.ctx, temp, r, gotW, gotP, backoff, wantW, wantP)
		}
	}
	return random, decided, edges, edgeDecided
}

// TestSearchDiscountedMatchesWalk checks the binary search of kept
// running sums against the walk over the children, on every context node
// of levels 1 and 2 with enough children (of the golden model, and of
// the benchmark's when there is a JDK src.zip), for random
// points and for points on each running sum and next to it: whenever the
// search decides, its child is the walk's; random points are decided
// nearly always, points on the sums never.
func TestSearchDiscountedMatchesWalk(t *testing.T) {
	models := []*Model{goldenModel(t)}
	if p, _ := jdkZipSize(); p != "" && !testing.Short() {
		models = append(models, benchJDKModel(t))
	}
	src := rand.New(rand.NewPCG(19, 6))
	var random, decided, edges, edgeDecided, nodes int
	for _, m := range models {
		r, d, e, ed, n := checkSearch(t, m, src)
		random, decided, edges, edgeDecided, nodes = random+r, decided+d, edges+e, edgeDecided+ed, nodes+n
	}
	t.Logf("%d nodes; random points: %d of %d decided; on or next to sums: %d of %d", nodes, decided, random, edgeDecided, edges)
	if nodes == 0 || float64(decided) < 0.99*float64(random) || edgeDecided == edges {
		t.Errorf("search decided %d of %d random points and %d of %d on sums", decided, random, edgeDecided, edges)
	}
}

// checkSearch compares search and walk on m's nodes (see
// TestSearchDiscountedMatchesWalk) and counts the points tried and
// decided, random and on sums, and the nodes.
func checkSearch(t *testing.T, m *Model, src *rand.Rand) (random, decided, edges, edgeDecided, nodes int) {
	for j := 1; j <= min(2, m.order-1); j++ {
		l := &m.lv[j-1]
		for h := range uint32(len(l.den)) {
			lo, hi := l.first[h], l.first[h+1]
			if hi-lo < minCumChildren || l.den[h] == 0 {
				continue
			}
			nodes++
			mass := float64(l.den[h]) * (1 - float64(l.gamma[h]))
			cum := m.cumulative(j, h)
			us := []float64{}
			for range 20 {
				us = append(us, src.Float64()*mass)
			}
			for _, k := range []int{0, 1, len(cum) / 2, len(cum) - 2, len(cum) - 1} {
				us = append(us, cum[k], math.Nextafter(cum[k], 0), math.Nextafter(cum[k], math.Inf(1)))
			}
			for i, u := range us {
				w, ok := m.searchDiscounted(j, h, u, mass)
				if i < 20 {
					random++
				} else {
					edges++
				}
				if !ok {
					continue
				}
				if i < 20 {
					decided++
				} else {
					edgeDecided++
				}
				if want := walkDiscounted(lo, hi, &m.lv[j], u, &m.disc[j]); w != want {
					t.Errorf("level %d node %d, u=%v: search gives %d, walk %d", j, h, u, w, want)
				}
			}
		}
	}
	return random, decided, edges, edgeDecided, nodes
}
