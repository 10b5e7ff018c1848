package ml

import (
	"slices"
	"sort"
)

// binned is X quantised for split search: codes[f][i] is the bin of row i
// on feature f, and a row is in bin k of feature f iff
// edges[f][k−1] < x ≤ edges[f][k] (with edges[f][−1] = −∞ and
// edges[f][len] = +∞). Splitting "bin ≤ k" is therefore the same as the
// raw-value test "x ≤ edges[f][k]" used at prediction time.
type binned struct {
	codes [][]uint8
	edges [][]float64
}

// maxBinsLimit is the most bins a uint8 code can address.
const maxBinsLimit = 256

// binFeatures quantises the d columns of X into at most maxBins bins each
// (2 ≤ maxBins ≤ 256, validated by the caller). Rows are assumed finite.
func binFeatures(X [][]float64, d, maxBins int) binned {
	n := len(X)
	b := binned{codes: make([][]uint8, d), edges: make([][]float64, d)}
	col := make([]float64, n)
	for f := 0; f < d; f++ {
		for i, row := range X {
			col[i] = row[f]
		}
		sorted := slices.Clone(col)
		slices.Sort(sorted)
		edges := binEdges(sorted, maxBins)
		codes := make([]uint8, n)
		for i, v := range col {
			codes[i] = uint8(sort.SearchFloat64s(edges, v))
		}
		b.codes[f], b.edges[f] = codes, edges
	}
	return b
}

// binEdges returns at most maxBins−1 increasing thresholds for the sorted
// values v. With few distinct values every gap gets a threshold at its
// midpoint (CART's candidate set); otherwise thresholds follow the gaps
// just above evenly spaced quantiles of v.
func binEdges(v []float64, maxBins int) []float64 {
	distinct := slices.Compact(slices.Clone(v))
	if len(distinct) <= maxBins {
		edges := make([]float64, 0, len(distinct)-1)
		for k := 1; k < len(distinct); k++ {
			edges = append(edges, midpoint(distinct[k-1], distinct[k]))
		}
		return edges
	}
	n := len(v)
	edges := make([]float64, 0, maxBins-1)
	for k := 1; k < maxBins; k++ {
		a := v[k*n/maxBins]
		// The next distinct value above a.
		j := sort.Search(len(distinct), func(i int) bool { return distinct[i] > a })
		if j == len(distinct) {
			break
		}
		e := midpoint(a, distinct[j])
		if len(edges) == 0 || e > edges[len(edges)-1] {
			edges = append(edges, e)
		}
	}
	return edges
}

// midpoint returns a threshold t with a ≤ t < b for a < b, the midpoint
// when it is representable strictly below b.
func midpoint(a, b float64) float64 {
	m := a/2 + b/2
	if m >= b || m < a {
		return a
	}
	return m
}
