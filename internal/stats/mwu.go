package stats

import (
	"fmt"
	"math"

	"github.com/benchforge/benchforge/internal/errs"
	"gonum.org/v1/gonum/stat/distuv"
)

// MWUMethod selects how [MannWhitney] computes its p-value.
type MWUMethod int

const (
	// MWUAuto uses MWUExact when n ≤ 50, m ≤ 50 and there are no ties,
	// and MWUNormal otherwise (R's wilcox.test uses the same rule with
	// n, m < 50).
	MWUAuto MWUMethod = iota
	// MWUExact enumerates the permutation distribution of U by dynamic
	// programming. With ties it is exact conditional on the tie pattern
	// (mid-ranks). Refused when the work exceeds MaxExactMWUWork.
	MWUExact
	// MWUNormal uses the normal approximation with continuity correction
	// and tie-corrected variance.
	MWUNormal
)

// String returns "auto", "exact" or "normal".
func (m MWUMethod) String() string {
	switch m {
	case MWUAuto:
		return "auto"
	case MWUExact:
		return "exact"
	case MWUNormal:
		return "normal"
	}
	return fmt.Sprintf("MWUMethod(%d)", int(m))
}

// MarshalText encodes the method as its String form.
func (m MWUMethod) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// MaxExactMWUWork bounds k·N·(2·k·N) for an exact Mann–Whitney p-value
// (k = the smaller sample size, N = n+m): the dynamic programme's cost.
// n = m = 50 needs 10⁸.
const MaxExactMWUWork = 200_000_000

// MWUResult is the outcome of a Mann–Whitney U (Wilcoxon rank-sum) test.
type MWUResult struct {
	// U = #{x_i > y_j} + ½·#{x_i = y_j}: the statistic R reports as W.
	U float64 `json:"u"`
	// Z is the continuity-corrected normal deviate for the chosen
	// alternative (reported whichever method gave P; 0 when every pooled
	// value is equal).
	Z float64 `json:"z"`
	P float64 `json:"p"`
	// RankBiserial = 2U/(n·m) − 1, in [−1, 1]; equals Cliff's δ.
	RankBiserial float64     `json:"rank_biserial"`
	N            int         `json:"n"`
	M            int         `json:"m"`
	Alternative  Alternative `json:"alternative"`
	// Method is MWUExact or MWUNormal: the method actually used.
	Method MWUMethod `json:"method"`
	Ties   bool      `json:"ties"`
}

// MannWhitney runs the Mann–Whitney U test of x against y. Greater means
// x is stochastically larger than y (U large), Less the opposite.
//
// U is computed from a sort-and-merge in O((n+m) log(n+m)) (no O(nm)
// pair loop), with tied pairs counting ½, i.e. from mid-ranks:
// U = R_x − n(n+1)/2.
//
// Normal approximation (Hollander & Wolfe 1999, §4.1): μ = nm/2,
// σ² = nm/12 · [(N+1) − Σ(t³−t)/(N(N−1))] with t the size of each tie
// block and N = n+m; z = (U − μ − c)/σ with continuity correction c = ½
// (Greater), −½ (Less) or ½·sign(U−μ) (two-sided), as R's wilcox.test.
// p = 1−Φ(z), Φ(z) or 2·min(Φ(z), 1−Φ(z)), capped at 1. If σ = 0 (all
// values equal) U can take only its observed value, so p = 1.
//
// Exact p-value: the distribution of 2U over all C(N, n) equally likely
// assignments of the (doubled, integer) mid-ranks to x is built by a
// subset-sum DP; one-sided p = P(U ≥ u) or P(U ≤ u); two-sided p =
// min(1, 2·min(P(U ≤ u), P(U ≥ u))) — R's doubling rule, which with ties
// (an asymmetric null) is the doubled smaller tail.
//
// Errors: empty samples or NaN, unknown alternative/method (ErrInput);
// MWUExact beyond MaxExactMWUWork (ErrUnsupported).
func MannWhitney(x, y []float64, alt Alternative, method MWUMethod) (MWUResult, error) {
	if err := checkMWU(x, y, alt, method); err != nil {
		return MWUResult{}, err
	}
	n, m := len(x), len(y)
	N := n + m
	exact := method == MWUExact || (method == MWUAuto && n <= 50 && m <= 50)
	rs := rankSum(sortedCopy(x), sortedCopy(y), exact)
	if method == MWUAuto && rs.ties {
		exact = false
	}
	nf, mf, Nf := float64(n), float64(m), float64(N)
	r := MWUResult{
		U: float64(rs.u2) / 2, N: n, M: m, Alternative: alt, Ties: rs.ties,
		RankBiserial: float64(rs.u2)/(nf*mf) - 1,
	}
	mu := nf * mf / 2
	sigma := math.Sqrt(nf * mf / 12 * ((Nf + 1) - rs.tieTerm/(Nf*(Nf-1))))
	if sigma > 0 && !math.IsNaN(sigma) {
		r.Z = continuityZ(r.U-mu, sigma, alt)
	}
	if exact {
		r.Method = MWUExact
		r.P = mwuExactP(n, m, rs.blocks, rs.u2, alt)
		return r, nil
	}
	r.Method = MWUNormal
	r.P = normalP(r.Z, sigma, alt)
	return r, nil
}

// checkMWU rejects MannWhitney's bad inputs and an exact test beyond
// MaxExactMWUWork.
func checkMWU(x, y []float64, alt Alternative, method MWUMethod) error {
	const op = "stats.MannWhitney"
	if err := checkSample(op, "x", x, false); err != nil {
		return err
	}
	if err := checkSample(op, "y", y, false); err != nil {
		return err
	}
	if err := checkAlt(op, alt); err != nil {
		return err
	}
	if method < MWUAuto || method > MWUNormal {
		return inputErr(op, "unknown method %d: use MWUAuto, MWUExact or MWUNormal", int(method))
	}
	n, m := len(x), len(y)
	N := n + m
	k := min(n, m)
	work := float64(k) * float64(N) * float64(2*k*N)
	if method == MWUExact && work > MaxExactMWUWork {
		return fmt.Errorf("%s: exact p-value for n = %d, m = %d needs %.3g steps (limit %d): use MWUAuto or MWUNormal: %w",
			op, n, m, work, MaxExactMWUWork, errs.ErrUnsupported)
	}
	return nil
}

// mwuRanks is what one merge of the sorted samples gives MannWhitney.
type mwuRanks struct {
	u2      int64   // 2U
	tieTerm float64 // Σ(t³ − t)
	ties    bool
	blocks  []int32 // pooled block sizes, kept only for the exact DP
}

// rankSum computes 2U of sorted xs against sorted ys and the tie
// correction, keeping the tie-block sizes when keepBlocks is set.
func rankSum(xs, ys []float64, keepBlocks bool) mwuRanks {
	var r mwuRanks
	var below int64 // y values below the current block
	mergeBlocks(xs, ys, func(cx, cy int) {
		r.u2 += int64(cx) * (2*below + int64(cy))
		below += int64(cy)
		if t := cx + cy; t > 1 {
			r.ties = true
			tf := float64(t)
			r.tieTerm += tf*tf*tf - tf
		}
		if keepBlocks {
			r.blocks = append(r.blocks, int32(cx+cy))
		}
	})
	return r
}

// continuityZ is the normal approximation's z of U − μ = d with the
// continuity correction toward the alternative (toward 0 when two-sided).
func continuityZ(d, sigma float64, alt Alternative) float64 {
	var c float64
	switch alt {
	case Greater:
		c = 0.5
	case Less:
		c = -0.5
	default:
		if d > 0 {
			c = 0.5
		} else if d < 0 {
			c = -0.5
		}
	}
	return (d - c) / sigma
}

// normalP is the normal approximation's p-value of z; 1 when U cannot vary
// (sigma not positive).
func normalP(z, sigma float64, alt Alternative) float64 {
	switch {
	case !(sigma > 0):
		return 1
	case alt == Greater:
		return distuv.UnitNormal.Survival(z)
	case alt == Less:
		return distuv.UnitNormal.CDF(z)
	}
	return min(1, 2*min(distuv.UnitNormal.CDF(z), distuv.UnitNormal.Survival(z)))
}

// mwuExactP returns the exact permutation p-value of 2U = u2obs for x of
// size n against y of size m, the pooled sample having the given tie-block
// sizes (in ascending value order).
func mwuExactP(n, m int, blocks []int32, u2obs int64, alt Alternative) float64 {
	k := min(n, m)
	sums := rankSumCounts(doubledMidRanks(blocks, n+m), k)
	// 2U for the subset's sample = doubled rank sum − k(k+1); when the
	// subset sample is y, 2U_x = 2nm − 2U_y.
	var total, le, ge float64
	base := k * (k + 1)
	for v, c := range sums {
		if c == 0 {
			continue
		}
		uk := int64(v - base)
		ux := uk
		if k != n {
			ux = 2*int64(n)*int64(m) - uk
		}
		total += c
		if ux <= u2obs {
			le += c
		}
		if ux >= u2obs {
			ge += c
		}
	}
	pl, pg := le/total, ge/total
	switch alt {
	case Less:
		return clamp01(pl)
	case Greater:
		return clamp01(pg)
	}
	return clamp01(min(1, 2*min(pl, pg)))
}

// doubledMidRanks returns the doubled mid-rank of every one of the N
// pooled positions: a block of size t that starts after s positions has
// mid-rank s + (t+1)/2, doubled 2s+t+1.
func doubledMidRanks(blocks []int32, N int) []int {
	w := make([]int, 0, N)
	s := 0
	for _, t := range blocks {
		for range t {
			w = append(w, 2*s+int(t)+1)
		}
		s += int(t)
	}
	return w
}

// rankSumCounts counts the k-subsets of the positions with weights w by
// their weight sum: the result's v-th entry is the number of subsets
// summing to v.
func rankSumCounts(w []int, k int) []float64 {
	N := len(w)
	maxSum := 0
	for i := N - k; i < N; i++ {
		maxSum += w[i]
	}
	// DP over the smaller sample: cnt[j][v] = number of j-subsets of the
	// positions seen so far whose doubled rank sum is v.
	cnt := make([][]float64, k+1)
	for j := range cnt {
		cnt[j] = make([]float64, maxSum+1)
	}
	cnt[0][0] = 1
	seen := 0 // sum of the weights processed so far: no subset sum exceeds it
	for idx, wi := range w {
		// A j-subset is useful only if the N−idx−1 remaining positions
		// can still complete it to size k.
		jmin := max(1, k-(N-idx-1))
		top := min(seen, maxSum-wi)
		for j := min(idx+1, k); j >= jmin; j-- {
			src, dst := cnt[j-1], cnt[j]
			for v := top; v >= 0; v-- {
				if src[v] != 0 {
					dst[v+wi] += src[v]
				}
			}
		}
		seen += wi
	}
	return cnt[k]
}
