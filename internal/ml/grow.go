package ml

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// criterion selects what a tree's two per-row statistics (s1, s2) mean.
type criterion int

const (
	// gini: s1 = sample weight w, s2 = w·y. A node's score S = Σ_k w_k²/w
	// equals w·(1 − Gini), so a split's gain S_L + S_R − S_P is the weighted
	// Gini decrease (CART). Leaves hold s2/s1 = P(y = 1).
	gini criterion = iota
	// newton: s1 = gradient g, s2 = hessian h. S = G²/(H+λ), a split's gain
	// is ½(S_L + S_R − S_P) and a leaf holds −G/(H+λ) (XGBoost eqs. 5–7).
	newton
)

// node is one tree node; feature < 0 marks a leaf.
type node struct {
	feature     int32
	bin         int32 // split bin: left iff code ≤ bin
	left, right int32
	threshold   float64 // left iff x ≤ threshold
	value       float64
}

type tree struct{ nodes []node }

func (t *tree) predict(row []float64) float64 {
	k := int32(0)
	for {
		nd := &t.nodes[k]
		if nd.feature < 0 {
			return nd.value
		}
		if row[nd.feature] <= nd.threshold {
			k = nd.left
		} else {
			k = nd.right
		}
	}
}

// predictBinned routes training row i by its bin codes.
func (t *tree) predictBinned(b *binned, i int) float64 {
	k := int32(0)
	for {
		nd := &t.nodes[k]
		if nd.feature < 0 {
			return nd.value
		}
		if int32(b.codes[nd.feature][i]) <= nd.bin {
			k = nd.left
		} else {
			k = nd.right
		}
	}
}

type growParams struct {
	crit            criterion
	maxDepth        int // 0 = unlimited
	minSamplesSplit int
	minSamplesLeaf  int
	maxFeatures     int // 0 or ≥ d = all features, in order
	lambda          float64
	minChildWeight  float64
}

// grower holds the scratch space for growing trees over one binned matrix;
// one grower per goroutine.
type grower struct {
	b      *binned
	d      int
	p      growParams
	s1, s2 []float64
	feats  []int
	cnt    [maxBinsLimit]int32
	h1, h2 [maxBinsLimit]float64
	keys   []uint32
}

// sortedMaxRows bounds the node positions a sort key can hold (24 bits).
const sortedMaxRows = 1 << 24

func newGrower(b *binned, d int, p growParams) *grower {
	g := &grower{b: b, d: d, p: p, feats: make([]int, d)}
	for f := range g.feats {
		g.feats[f] = f
	}
	return g
}

type split struct {
	ok      bool
	feature int
	bin     int
	gain    float64
}

func (g *grower) score(a, b float64) float64 {
	if g.p.crit == gini {
		return (b*b + (a-b)*(a-b)) / a
	}
	return a * a / (b + g.p.lambda)
}

func (g *grower) valid(cntL, cntR int32, aL, bL, aR, bR float64) bool {
	if int(cntL) < g.p.minSamplesLeaf || int(cntR) < g.p.minSamplesLeaf {
		return false
	}
	if g.p.crit == gini {
		return aL > 0 && aR > 0
	}
	return bL >= g.p.minChildWeight && bR >= g.p.minChildWeight
}

func (g *grower) leafValue(a, b float64) float64 {
	if g.p.crit == gini {
		return b / a
	}
	return -a / (b + g.p.lambda)
}

// grow builds a tree over rows (permuted in place) with per-row statistics
// s1, s2, adding each split's gain to imp[feature]. rng may be nil when
// every feature is visited at every node.
func (g *grower) grow(rows []int32, s1, s2 []float64, rng *rand.Rand, imp []float64) tree {
	g.s1, g.s2 = s1, s2
	// The feature order a tree samples from must depend only on its own
	// generator, not on the trees this grower grew before.
	for f := range g.feats {
		g.feats[f] = f
	}
	if cap(g.keys) < len(rows) {
		g.keys = make([]uint32, len(rows))
	}
	type job struct {
		lo, hi int
		depth  int
		at     int32 // index of this node in t.nodes
	}
	t := tree{nodes: []node{{feature: -1}}}
	stack := []job{{0, len(rows), 0, 0}}
	for len(stack) > 0 {
		j := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		rs := rows[j.lo:j.hi]
		var a, b float64
		for _, r := range rs {
			a += s1[r]
			b += s2[r]
		}
		t.nodes[j.at].value = g.leafValue(a, b)
		n := len(rs)
		if n < g.p.minSamplesSplit || n < 2*g.p.minSamplesLeaf ||
			(g.p.maxDepth > 0 && j.depth >= g.p.maxDepth) ||
			(g.p.crit == gini && (b <= 0 || b >= a)) {
			continue
		}
		best := g.bestSplit(rs, a, b, rng)
		if !best.ok || (g.p.crit == newton && !(best.gain > 0)) {
			continue
		}
		codes := g.b.codes[best.feature]
		// In-place partition: left rows (code ≤ bin) first.
		k := 0
		for i, r := range rs {
			if int(codes[r]) <= best.bin {
				rs[k], rs[i] = rs[i], rs[k]
				k++
			}
		}
		if imp != nil {
			imp[best.feature] += max(best.gain, 0)
		}
		l := int32(len(t.nodes))
		t.nodes = append(t.nodes, node{feature: -1}, node{feature: -1})
		nd := &t.nodes[j.at]
		nd.feature, nd.bin = int32(best.feature), int32(best.bin)
		nd.threshold = g.b.edges[best.feature][best.bin]
		nd.left, nd.right = l, l+1
		// Push right first so the left subtree is grown first.
		stack = append(stack, job{j.lo + k, j.hi, j.depth + 1, l + 1}, job{j.lo, j.lo + k, j.depth + 1, l})
	}
	return t
}

// bestSplit searches the node's features (all, or MaxFeatures non-constant
// ones drawn without replacement) for the highest-gain valid split.
func (g *grower) bestSplit(rs []int32, a, b float64, rng *rand.Rand) split {
	parent := g.score(a, b)
	var best split
	mtry := g.p.maxFeatures
	if mtry <= 0 || mtry > g.d || rng == nil {
		mtry = g.d
	}
	visited := 0
	for k := 0; k < g.d && visited < mtry; k++ {
		f := k
		if mtry < g.d {
			r := k + rng.IntN(g.d-k)
			g.feats[k], g.feats[r] = g.feats[r], g.feats[k]
			f = g.feats[k]
		}
		var constant bool
		if n := len(rs); n < sortedMaxRows && n*bits.Len(uint(n)) < len(g.b.edges[f])+1 {
			constant = g.scanSorted(rs, f, a, b, parent, &best)
		} else {
			constant = g.scanHist(rs, f, a, b, parent, &best)
		}
		if !constant {
			visited++
		}
	}
	if g.p.crit == newton {
		best.gain /= 2
	}
	return best
}

func (g *grower) consider(best *split, f, bin int, gain float64) {
	if !best.ok || gain > best.gain {
		*best = split{ok: true, feature: f, bin: bin, gain: gain}
	}
}

// scanHist evaluates every bin boundary of feature f from a histogram of
// the node's rows; it reports whether f is constant on the node.
func (g *grower) scanHist(rs []int32, f int, a, b, parent float64, best *split) bool {
	// cnt, h1 and h2 are all zero between calls; only [lo, hi] is cleared
	// afterwards, so a node pays for its own rows and occupied range.
	nb := len(g.b.edges[f]) + 1
	codes := g.b.codes[f]
	lo, hi := nb, -1
	for _, r := range rs {
		c := int(codes[r])
		g.cnt[c]++
		g.h1[c] += g.s1[r]
		g.h2[c] += g.s2[r]
		lo, hi = min(lo, c), max(hi, c)
	}
	defer func() {
		clear(g.cnt[lo : hi+1])
		clear(g.h1[lo : hi+1])
		clear(g.h2[lo : hi+1])
	}()
	if lo == hi {
		return true
	}
	total := int32(len(rs))
	var cntL int32
	var aL, bL float64
	for c := lo; c < hi; c++ {
		if g.cnt[c] == 0 {
			continue
		}
		cntL += g.cnt[c]
		aL += g.h1[c]
		bL += g.h2[c]
		aR, bR := a-aL, b-bL
		if !g.valid(cntL, total-cntL, aL, bL, aR, bR) {
			continue
		}
		g.consider(best, f, c, g.score(aL, bL)+g.score(aR, bR)-parent)
	}
	return false
}

// scanSorted is scanHist for small nodes: it sorts the rows by bin code
// (packed with the row's node position into one uint32 key) instead of
// sweeping mostly empty bins.
func (g *grower) scanSorted(rs []int32, f int, a, b, parent float64, best *split) bool {
	codes := g.b.codes[f]
	keys := g.keys[:len(rs)]
	for k, r := range rs {
		keys[k] = uint32(codes[r])<<24 | uint32(k)
	}
	slices.Sort(keys)
	if keys[0]>>24 == keys[len(keys)-1]>>24 {
		return true
	}
	total := int32(len(keys))
	var aL, bL float64
	for i := 0; i < len(keys)-1; i++ {
		r := rs[keys[i]&(sortedMaxRows-1)]
		aL += g.s1[r]
		bL += g.s2[r]
		c := keys[i] >> 24
		if c == keys[i+1]>>24 {
			continue
		}
		aR, bR := a-aL, b-bL
		if !g.valid(int32(i+1), total-int32(i+1), aL, bL, aR, bR) {
			continue
		}
		g.consider(best, f, int(c), g.score(aL, bL)+g.score(aR, bR)-parent)
	}
	return false
}

// normalise scales v to sum to 1 (all zeros stay zeros).
func normalise(v []float64) []float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	if s > 0 && !math.IsInf(s, 0) {
		for i := range v {
			v[i] /= s
		}
	}
	return v
}
