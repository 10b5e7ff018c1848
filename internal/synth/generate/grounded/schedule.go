package grounded

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// MaxPairs bounds C(N,2) for one type's pair queue (a shuffled permutation of
// that many uint32 is kept per cycle: 16 MB), i.e. about 2,900 seeds of a
// type — an order of magnitude above any real seed pool (rxsynth §3.3: 170).
const MaxPairs = 1 << 22

// PairQueue is the k=2 exemplar schedule of rxsynth §4.3: all C(N,2)
// distinct pairs of a type's N seeds, shuffled, and exhausted before the
// queue is reshuffled and cycled, so every pair is shown once before any
// pair is shown twice. Draw m is a pure function of (N, seed, key, m).
type PairQueue struct {
	n     int
	seed  uint64
	key   uint64
	cycle int
	perm  []uint32
}

// NewPairQueue returns the queue over n ≥ 2 seeds; key separates the
// streams of different types under one seed.
func NewPairQueue(n int, seed uint64, key string) (*PairQueue, error) {
	if n < 2 {
		return nil, fmt.Errorf("grounded.NewPairQueue: %d seeds: a pair queue needs at least 2: %w", n, errs.ErrUsage)
	}
	if p := n * (n - 1) / 2; p > MaxPairs {
		return nil, fmt.Errorf("grounded.NewPairQueue: %d seeds give %d pairs, more than %d: %w", n, p, MaxPairs, errs.ErrUnsupported)
	}
	return &PairQueue{n: n, seed: seed, key: fnv(key), cycle: -1}, nil
}

// Len is the number of distinct pairs, C(N,2).
func (q *PairQueue) Len() int { return q.n * (q.n - 1) / 2 }

// Pair returns the seed indices (i < j) of draw m ≥ 0.
func (q *PairQueue) Pair(m int) (i, j int) {
	p := q.Len()
	c, pos := m/p, m%p
	if c != q.cycle {
		q.perm = make([]uint32, p)
		for k := range q.perm {
			q.perm[k] = uint32(k)
		}
		r := rand.New(rand.NewPCG(q.seed, q.key^uint64(c)*0x9e3779b97f4a7c15))
		r.Shuffle(p, func(a, b int) { q.perm[a], q.perm[b] = q.perm[b], q.perm[a] })
		q.cycle = c
	}
	return unrank(q.n, int(q.perm[pos]))
}

// unrank maps k in [0, C(n,2)) to the k-th pair (i < j) in row-major order.
func unrank(n, k int) (int, int) {
	for i := 0; i < n-1; i++ {
		row := n - 1 - i
		if k < row {
			return i, i + 1 + k
		}
		k -= row
	}
	return n - 2, n - 1 // unreachable for k in range
}

// Rotation is the k=1 schedule of rxsynth §4.3 (also used for every prompt
// of a type too small for pair enumeration): LOC-stratified rotation. The
// seeds are split by size into up to Bands equal-count bands; draw m takes
// band m mod bands and, within it, the least recently used seed among those
// not used in the last Window draws (ties broken by a seeded random rank).
// If every seed of the band was used that recently, the least recently used
// seed of any band that was not is taken. Window is capped at N−1, so some
// seed always qualifies and no seed repeats within Window+1 draws.
type Rotation struct {
	bands  [][]int
	window int
	rank   []int
	last   []int // draw index of each seed's last use; -1: never
	draws  []int
}

// NewRotation returns the rotation over seeds of the given sizes (LLOC);
// bands ≤ 0 means 3 and window < 0 means 0.
func NewRotation(sizes []int, bands, window int, seed uint64, key string) (*Rotation, error) {
	n := len(sizes)
	if n == 0 {
		return nil, fmt.Errorf("grounded.NewRotation: no seeds: %w", errs.ErrUsage)
	}
	if bands <= 0 {
		bands = 3
	}
	bands = min(bands, n)
	window = max(0, min(window, n-1))
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return sizes[order[a]] < sizes[order[b]] })
	r := &Rotation{window: window, rank: make([]int, n), last: make([]int, n)}
	for b := 0; b < bands; b++ {
		r.bands = append(r.bands, append([]int(nil), order[b*n/bands:(b+1)*n/bands]...))
	}
	rng := rand.New(rand.NewPCG(seed, fnv(key)))
	for i, v := range rng.Perm(n) {
		r.rank[i] = v
		r.last[i] = -1
	}
	return r, nil
}

// Bands returns the seed indices of each size band, smallest first.
func (r *Rotation) Bands() [][]int { return r.bands }

// Draw returns the seed index of draw m ≥ 0.
func (r *Rotation) Draw(m int) int {
	for len(r.draws) <= m {
		k := len(r.draws)
		pick := r.lru(r.bands[k%len(r.bands)], k)
		if pick < 0 {
			for _, b := range r.bands {
				if p := r.lru(b, k); p >= 0 && (pick < 0 || r.older(p, pick)) {
					pick = p
				}
			}
		}
		r.last[pick] = k
		r.draws = append(r.draws, pick)
	}
	return r.draws[m]
}

// lru returns the least recently used seed of band usable at draw k, or -1.
func (r *Rotation) lru(band []int, k int) int {
	pick := -1
	for _, s := range band {
		if r.last[s] >= 0 && k-r.last[s] <= r.window {
			continue
		}
		if pick < 0 || r.older(s, pick) {
			pick = s
		}
	}
	return pick
}

func (r *Rotation) older(a, b int) bool {
	if r.last[a] != r.last[b] {
		return r.last[a] < r.last[b]
	}
	return r.rank[a] < r.rank[b]
}

// Size is a prompt's size target (rxsynth §4.3): an approximate logical-line
// count with a tolerance band. Between holds the two exemplar sizes when they
// differ (the prompt then asks to aim between them), else zeros.
type Size struct {
	Target  int    `json:"target"`
	Lo      int    `json:"lo"`
	Hi      int    `json:"hi"`
	Between [2]int `json:"between"`
}

// SizeFor derives the target from the exemplars' LLOCs: one exemplar gives
// its own size, two their rounded mean (so the target sits between them).
// The target is raised to minTarget (the gate's smallest method); the band
// is the integers within ±tol of it, [⌈T(1−tol)⌉, ⌊T(1+tol)⌋] — exactly what
// the size_target gate accepts. Sizes ≤ 0 (unmeasured exemplars) are
// ignored; with none left the zero Size (no target) is returned.
func SizeFor(llocs []int, tol float64, minTarget int) Size {
	var xs []int
	for _, l := range llocs {
		if l > 0 {
			xs = append(xs, l)
		}
	}
	if len(xs) == 0 {
		return Size{}
	}
	sum := 0
	for _, x := range xs {
		sum += x
	}
	t := max(int(math.Round(float64(sum)/float64(len(xs)))), minTarget, 1)
	s := Size{Target: t, Lo: int(math.Ceil(float64(t)*(1-tol) - 1e-9)), Hi: int(math.Floor(float64(t)*(1+tol) + 1e-9))}
	if len(xs) == 2 && xs[0] != xs[1] {
		s.Between = [2]int{min(xs[0], xs[1]), max(xs[0], xs[1])}
	}
	return s
}

// Targets returns per-type candidate targets that follow seed prevalence
// (rxsynth §4.4): type t with n_t of the N seeds gets round(total·n_t/N),
// raised to floor and lowered to cap (cap ≤ 0: no cap). Types without seeds
// get no target (a seed-grounded prompt needs an exemplar).
func Targets(seeds []corpus.Seed, total, floor, cap int) map[string]int {
	counts := map[string]int{}
	n := 0
	for _, s := range seeds {
		if corpus.ValidType(s.Exception) {
			counts[s.Exception]++
			n++
		}
	}
	out := map[string]int{}
	for t, c := range counts {
		v := int(math.Round(float64(total) * float64(c) / float64(n)))
		v = max(v, floor)
		if cap > 0 {
			v = min(v, cap)
		}
		out[t] = v
	}
	return out
}

// fnv is 64-bit FNV-1a, to turn a stream key into a PCG seed word.
func fnv(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
