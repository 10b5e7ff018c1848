package fidelity

import (
	"context"
	"fmt"
	"hash/fnv"
	"runtime"
	"slices"

	"github.com/benchforge/benchforge/internal/stats"
	"github.com/benchforge/benchforge/internal/step"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/textsim"
)

// GramN is the token n-gram length of the §6.5 sequence similarity.
const GramN = 5

// TopClosest is how many of the closest synthetic–seed matches are listed.
const TopClosest = 10

// Distance is the distance-from-seeds analysis of §6.5. Similarities are
// to the nearest same-type method (buggy or fixed) of a reference-set
// seed; Exact counts synthetic methods whose non-comment token sequence
// equals that of any same-type seed method in the whole pool; PoolCloser
// counts methods for which a seed outside the reference set is strictly
// closer, under either representation, than every reference seed (the
// §6.5 "nearest neighbour differs" count).
type Distance struct {
	Compared   int           `json:"compared"`
	Rows       []DistanceRow `json:"rows"`
	MaxSet     Match         `json:"max_token_set"`
	MaxGram    Match         `json:"max_5gram"`
	Exact      int           `json:"exact"`
	ExactList  []Match       `json:"exact_list"`
	PoolCloser int           `json:"pool_closer"`
	Closest    []Match       `json:"closest"`
}

// DistanceRow summarises nearest-seed similarities for one type (or
// pooled) and side.
type DistanceRow struct {
	Type       string  `json:"type"`
	Side       string  `json:"side"`
	N          int     `json:"n"`
	SetMedian  float64 `json:"token_set_median"`
	SetMax     float64 `json:"token_set_max"`
	GramMedian float64 `json:"gram_median"`
	GramMax    float64 `json:"gram_max"`
}

// Match is a synthetic method and its nearest seed method.
type Match struct {
	PairID   string  `json:"pair_id"`
	Side     string  `json:"side"`
	SeedID   string  `json:"seed_bug_id"`
	SeedSide string  `json:"seed_side"`
	TokenSet float64 `json:"token_set"`
	Gram     float64 `json:"gram"`
}

// fingerprint is a method's precomputed sets: hashed token vocabulary,
// hashed 5-gram shingles and a hash of the whole token sequence.
type fingerprint struct {
	set, gram []uint64
	seq       uint64
	toks      []string
}

func fingerprintOf(toks []string) fingerprint {
	h := fnv.New64a()
	for _, t := range toks {
		h.Write([]byte(t))
		h.Write([]byte{0})
	}
	return fingerprint{set: textsim.Shingles(toks, 1), gram: textsim.Shingles(toks, GramN), seq: h.Sum64(), toks: toks}
}

type seedMethod struct {
	id, side string
	inRef    bool
	fp       fingerprint
}

type nearest struct {
	refSet, refGram   float64
	refSetI, refGramI int
	poolSet, poolGram float64
	exact             int // index of an identical seed method, or −1
}

// distJob is one synthetic method to place against the seeds of its type.
type distJob struct {
	side string
	m    method
}

// distKey is one row of the distance table: a type (or Pooled) and a side.
type distKey struct{ typ, side string }

func distances(ctx context.Context, syn population, seeds []corpus.Seed, seedM [][2]*Measured, inRef []bool, workers int) (Distance, error) {
	byType := seedsByType(seeds, seedM, inRef)
	var jobs []distJob
	for _, side := range []string{"buggy", "fixed"} {
		for _, m := range syn.side(side) {
			if len(byType[m.typ]) > 0 {
				jobs = append(jobs, distJob{side, m})
			}
		}
	}
	res := make([]nearest, len(jobs))
	fps := make([]fingerprint, len(jobs))
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// The pool's only error is ctx's: nearestSeed cannot fail.
	if err := step.EachIndex(ctx, workers, len(jobs), func(_ context.Context, i int) error {
		fps[i] = fingerprintOf(jobs[i].m.m.Tokens)
		res[i] = nearestSeed(fps[i], byType[jobs[i].m.typ])
		return nil
	}); err != nil {
		return Distance{}, err
	}
	t := distTally{d: Distance{Compared: len(jobs), ExactList: []Match{}}, sets: map[distKey][]float64{}, grams: map[distKey][]float64{}}
	for i, j := range jobs {
		t.add(j, res[i], fps[i], byType[j.m.typ])
	}
	return t.finish()
}

// seedsByType fingerprints the measured seed methods by exception type.
func seedsByType(seeds []corpus.Seed, seedM [][2]*Measured, inRef []bool) map[string][]seedMethod {
	byType := map[string][]seedMethod{}
	for i, s := range seeds {
		for k, side := range []string{"buggy", "fixed"} {
			if m := seedM[i][k]; m != nil {
				byType[s.Exception] = append(byType[s.Exception], seedMethod{s.BugID, side, inRef[i], fingerprintOf(m.Tokens)})
			}
		}
	}
	return byType
}

// distTally accumulates the nearest seeds of the synthetic methods, in
// job order, into a Distance.
type distTally struct {
	d           Distance
	sets, grams map[distKey][]float64
	all         []Match
}

// add records job j, whose nearest seeds among sm are r.
func (t *distTally) add(j distJob, r nearest, fp fingerprint, sm []seedMethod) {
	d := &t.d
	if r.exact >= 0 {
		d.Exact++
		e := sm[r.exact]
		d.ExactList = append(d.ExactList, Match{j.m.id, j.side, e.id, e.side, 1, 1})
	}
	if r.refGramI < 0 { // no reference seed of this type: only the pool
		return
	}
	for _, k := range []distKey{{j.m.typ, j.side}, {Pooled, j.side}} {
		t.sets[k] = append(t.sets[k], r.refSet)
		t.grams[k] = append(t.grams[k], r.refGram)
	}
	g := sm[r.refGramI]
	m := Match{PairID: j.m.id, Side: j.side, SeedID: g.id, SeedSide: g.side, TokenSet: textsim.JaccardSorted(fp.set, g.fp.set), Gram: r.refGram}
	t.all = append(t.all, m)
	if r.refGram > d.MaxGram.Gram || d.MaxGram.PairID == "" {
		d.MaxGram = m
	}
	if r.refSet > d.MaxSet.TokenSet || d.MaxSet.PairID == "" {
		s := sm[r.refSetI]
		d.MaxSet = Match{PairID: j.m.id, Side: j.side, SeedID: s.id, SeedSide: s.side, TokenSet: r.refSet,
			Gram: textsim.JaccardSorted(fp.gram, s.fp.gram)}
	}
	if r.poolSet > r.refSet || r.poolGram > r.refGram {
		d.PoolCloser++
	}
}

// finish adds the per-type rows and the closest matches.
func (t *distTally) finish() (Distance, error) {
	d := t.d
	for _, typ := range scopes() {
		for _, side := range []string{"buggy", "fixed"} {
			k := distKey{typ, side}
			if len(t.sets[k]) == 0 {
				continue
			}
			row := DistanceRow{Type: typ, Side: side, N: len(t.sets[k]), SetMax: slices.Max(t.sets[k]), GramMax: slices.Max(t.grams[k])}
			var err error
			if row.SetMedian, err = stats.Median(t.sets[k]); err != nil {
				return d, fmt.Errorf("median: %w", err)
			}
			if row.GramMedian, err = stats.Median(t.grams[k]); err != nil {
				return d, fmt.Errorf("median: %w", err)
			}
			d.Rows = append(d.Rows, row)
		}
	}
	all := t.all
	slices.SortStableFunc(all, func(a, b Match) int {
		switch {
		case a.Gram > b.Gram:
			return -1
		case a.Gram < b.Gram:
			return 1
		}
		return 0
	})
	d.Closest = all[:min(TopClosest, len(all))]
	return d, nil
}

// nearestSeed scans the same-type seed methods. Jaccard is bounded by the
// size ratio min/max of the two sets, so a seed whose bound cannot beat the
// best similarity found so far is skipped without a merge (the pool's best
// is never below the reference set's, which is a subset).
func nearestSeed(fp fingerprint, sm []seedMethod) nearest {
	r := nearest{refSetI: -1, refGramI: -1, exact: -1}
	for i := range sm {
		s := &sm[i]
		if r.exact < 0 && s.fp.seq == fp.seq && slices.Equal(s.fp.toks, fp.toks) {
			r.exact = i
		}
		r.compareSet(i, s, fp)
		r.compareGram(i, s, fp)
	}
	return r
}

// worth reports whether seed s, whose set has m elements against the
// method's n, may beat best: every reference seed does until one was
// compared (found), any other seed when its size bound exceeds best.
func worth(s *seedMethod, n, m int, best float64, found bool) bool {
	if s.inRef && !found {
		return true
	}
	return bound(n, m) > best
}

// compareSet updates the token-set similarities with seed i.
func (r *nearest) compareSet(i int, s *seedMethod, fp fingerprint) {
	best := r.poolSet
	if s.inRef {
		best = r.refSet
	}
	if !worth(s, len(fp.set), len(s.fp.set), best, r.refSetI >= 0) {
		return
	}
	j := textsim.JaccardSorted(fp.set, s.fp.set)
	r.poolSet = max(r.poolSet, j)
	if s.inRef && (r.refSetI < 0 || j > r.refSet) {
		r.refSet, r.refSetI = j, i
	}
}

// compareGram updates the token-gram similarities with seed i.
func (r *nearest) compareGram(i int, s *seedMethod, fp fingerprint) {
	best := r.poolGram
	if s.inRef {
		best = r.refGram
	}
	if !worth(s, len(fp.gram), len(s.fp.gram), best, r.refGramI >= 0) {
		return
	}
	j := textsim.JaccardSorted(fp.gram, s.fp.gram)
	r.poolGram = max(r.poolGram, j)
	if s.inRef && (r.refGramI < 0 || j > r.refGram) {
		r.refGram, r.refGramI = j, i
	}
}

// bound is the largest Jaccard two sets of sizes a and b can have.
func bound(a, b int) float64 {
	if a == 0 && b == 0 {
		return 1
	}
	return float64(min(a, b)) / float64(max(a, b))
}

// ExactListHas reports whether a pair is among the exact reproductions.
func (d Distance) ExactListHas(pairID string) bool {
	for _, m := range d.ExactList {
		if m.PairID == pairID {
			return true
		}
	}
	return false
}
