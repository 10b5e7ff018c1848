package patchcheck

import (
	"context"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/benchforge/benchforge/internal/textsim"
)

// scope is where one block's lines are searched in the snapshot.
type scope struct {
	snap  *version
	lines []int       // candidate snapshot line indices
	via   string      // "function" | "file"
	align map[int]int // fixed line index → aligned snapshot line index
	// avail counts, per text, the snapshot lines in scope not claimed by
	// the fixed version's unchanged lines of the same scope: a line the
	// fixed code already had outside the patch cannot be the patch's
	// counterpart (otherwise a reverted "if (r > hi)" would match the
	// untouched "if (r < lo)").
	avail map[string]int
}

func (sc scope) free(li int) bool {
	return sc.avail == nil || sc.avail[sc.snap.lines[li].text] > 0
}

// leafIndex is the index of each token node's logical line, -1 for a node
// on none (by node index).
type leafIndex []int32

// leafLines maps every token node of v to the index of its logical line.
func leafLines(v *version) leafIndex {
	n := 0
	for _, l := range v.lines {
		for _, k := range l.leaves {
			n = max(n, k+1)
		}
	}
	m := make(leafIndex, n)
	for i := range m {
		m[i] = -1
	}
	for i, l := range v.lines {
		for _, k := range l.leaves {
			m[k] = int32(i)
		}
	}
	return m
}

// line is node n's line index, false when n is on none.
func (m leafIndex) line(n int) (int, bool) {
	if n < 0 || n >= len(m) || m[n] < 0 {
		return -1, false
	}
	return int(m[n]), true
}

// alignLines turns a node mapping into a line alignment: each fixed line
// goes to the snapshot line holding most of its mapped tokens (ties: the
// earlier line).
func alignLines(fix *version, lines []int, nodeMap mapping, snapLeaf leafIndex) map[int]int {
	out := map[int]int{}
	for _, li := range lines {
		votes := map[int]int{}
		for _, n := range fix.lines[li].leaves {
			if p, ok := nodeMap.get(n); ok {
				if sl, ok := snapLeaf.line(p); ok {
					votes[sl]++
				}
			}
		}
		best, bestN := -1, 0
		for sl, n := range votes {
			if n > bestN || n == bestN && sl < best {
				best, bestN = sl, n
			}
		}
		if best >= 0 {
			out[li] = best
		}
	}
	return out
}

// similarity scores two logical lines: embedding cosine when an embedder is
// configured, else the token SequenceMatcher ratio.
func (c *Checker) similarity(ctx context.Context, a, b string) (float64, error) {
	if a == b {
		return 1, nil
	}
	if c.opts.Embedder != nil {
		vs, err := c.embed(ctx, []string{a, b})
		if err != nil {
			return 0, err
		}
		return math.Max(0, cosine(vs[0], vs[1])), nil
	}
	return similarities.get([2]string{a, b}, func(p [2]string) float64 { return tokenSimilarity(p[0], p[1]) }), nil
}

// similarities memoises tokenSimilarity: the states of a walk share most
// of their lines, so the same fix line meets the same candidate line in
// state after state (and sample after sample).
var similarities = newMemo[[2]string, float64]()

// tokenSimilarity is the mean of the token SequenceMatcher ratio and the
// ratio of the rename-blind token sequences (identifiers → ID, literals →
// LIT), so a renamed local costs half what another operator does.
//
// The rename-blind half counts only when the lines share at least one
// identifier or literal: "if ( numDecimals <= 7 )" and "if ( requestType
// )" have the same shape and nothing else in common, and a renamed local
// in a line of several names leaves the others shared.
func tokenSimilarity(a, b string) float64 {
	ta, tb := strings.Fields(a), strings.Fields(b)
	plain := textsim.Ratio(ta, tb)
	if !shareName(ta, tb) {
		return plain
	}
	return (plain + textsim.Ratio(blind(ta), blind(tb))) / 2
}

// shareName reports whether two token lists have an identifier or literal
// (not a keyword or punctuation) in common.
func shareName(a, b []string) bool {
	names := map[string]bool{}
	ba := blind(a)
	for i, t := range a {
		if ba[i] == "ID" || ba[i] == "LIT" {
			names[t] = true
		}
	}
	bb := blind(b)
	for i, t := range b {
		if (bb[i] == "ID" || bb[i] == "LIT") && names[t] {
			return true
		}
	}
	return false
}

// keywords are the Java and Python reserved words blind keeps.
var keywords = map[string]bool{}

func init() {
	for _, k := range strings.Fields(`abstract assert boolean break byte case catch char class const continue
		default do double else enum extends final finally float for goto if implements import instanceof
		int interface long native new package private protected public return short static strictfp super
		switch synchronized this throw throws transient try void volatile while var record yield
		true false null and as async await def del elif except from global in is lambda nonlocal not or
		pass raise with None True False self cls`) {
		keywords[k] = true
	}
}

// blind replaces each literal token by "LIT" and each identifier by "ID",
// keeping keywords and punctuation.
func blind(ts []string) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = blindToken(t)
	}
	return out
}

func blindToken(t string) string {
	switch c := t[0]; {
	case keywords[t]:
		return t
	case c == '"' || c == '\'' || c >= '0' && c <= '9' || strings.HasPrefix(t, "f\"") || strings.HasPrefix(t, "r\""):
		return "LIT"
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		return "ID"
	}
	return t
}

// embedCache memoises embeddings by text for the Checker's lifetime.
type embedCache struct {
	mu sync.Mutex
	m  map[string][]float64
}

func (c *Checker) embed(ctx context.Context, texts []string) ([][]float64, error) {
	c.emb.mu.Lock()
	var miss []string
	seen := map[string]bool{}
	for _, t := range texts {
		if _, ok := c.emb.m[t]; !ok && !seen[t] {
			miss = append(miss, t)
			seen[t] = true
		}
	}
	c.emb.mu.Unlock()
	if len(miss) > 0 {
		vs, err := c.opts.Embedder.Embed(ctx, miss)
		if err != nil {
			return nil, err
		}
		if len(vs) != len(miss) {
			return nil, errEmbedCount(len(miss), len(vs))
		}
		c.emb.mu.Lock()
		for i, t := range miss {
			c.emb.m[t] = vs[i]
		}
		c.emb.mu.Unlock()
	}
	c.emb.mu.Lock()
	defer c.emb.mu.Unlock()
	out := make([][]float64, len(texts))
	for i, t := range texts {
		out[i] = c.emb.m[t]
	}
	return out, nil
}

func cosine(a, b []float64) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// keepSmallest inserts d into ascending best and keeps the k smallest.
func keepSmallest(best []float64, d float64, k int) []float64 {
	i := sort.SearchFloat64s(best, d)
	if i >= k {
		return best
	}
	if len(best) < k {
		best = append(best, 0)
	}
	copy(best[i+1:], best[i:len(best)-1])
	best[i] = d
	return best
}

// nearest returns up to k of the scope's lines closest to text by
// normalised character edit distance (ties: earlier line).
func nearest(text string, sc scope, k int) []int {
	type cd struct {
		i int
		d float64
	}
	if k <= 0 {
		return []int{}
	}
	cs := make([]cd, 0, len(sc.lines))
	var best []float64 // the k smallest distances so far, ascending
	for _, li := range sc.lines {
		t := sc.snap.lines[li].text
		if sc.snap.lines[li].trivial || !sc.free(li) {
			continue
		}
		// The length difference is a lower bound of the distance: lines
		// far apart in length are no candidates, and a line whose bound
		// is no better than the k-th best so far cannot be among the k
		// (ties go to the earlier line).
		la, lb := len(text), len(t)
		if 10*abs(la-lb) > 7*max(la, lb) {
			continue
		}
		n := float64(max(la, lb, 1))
		if len(best) == k && float64(abs(la-lb))/n >= best[k-1] {
			continue
		}
		d := float64(textsim.Levenshtein(text, t)) / n
		cs = append(cs, cd{li, d})
		best = keepSmallest(best, d, k)
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	out := make([]int, 0, k)
	for i := 0; i < len(cs) && i < k; i++ {
		out = append(out, cs[i].i)
	}
	return out
}

// matchPresent scores one line that must be present: exact match first
// (the aligned line, then anywhere in scope), else the best of the aligned
// line and the K nearest lines by edit distance, re-ranked by similarity.
// buggy is the line the fix replaced ("" if none): a candidate at least as
// close to it as to text scores sim·(1−sim_buggy).
func (c *Checker) matchPresent(ctx context.Context, text, buggy, role string, sc scope, aligned int) (MatchedLine, int, error) {
	ml := MatchedLine{Patch: text, Role: role, Via: "none"}
	snap := sc.snap
	if role != "added" {
		sc.avail = nil
	}
	// The unchanged lines' claims count copies of a text; the alignment
	// says which copy descends from this line. An added line aligned
	// with its own text keeps that copy even when the count is spent:
	// the unchanged lines that claimed it left the function (Lang-5's
	// toLocale kept its branch's throws when the checks around it went
	// to parseLocale).
	if aligned >= 0 && !sc.free(aligned) && !(role == "added" && snap.lines[aligned].text == text) {
		aligned = -1
	}
	if li, via := exactLine(text, sc, aligned); li >= 0 {
		return c.hit(ml, snap, li, 1, via), li, nil
	}
	if c.opts.ExactOnly {
		return ml, -1, nil
	}
	cands := nearest(text, sc, c.opts.candidates())
	if aligned >= 0 {
		cands = append([]int{aligned}, cands...)
	}
	best, bestS, bestVia, bestRev := -1, -1.0, "", false
	for k, li := range cands {
		s, rev, err := c.candidateScore(ctx, text, buggy, snap.lines[li].text)
		if err != nil {
			return ml, -1, err
		}
		via := sc.via
		if k == 0 && aligned >= 0 {
			via = "ast"
		}
		if s > bestS {
			best, bestS, bestVia, bestRev = li, s, via, rev
		}
	}
	if best < 0 {
		return ml, -1, nil
	}
	ml.Reverted = bestRev
	return c.hit(ml, snap, best, bestS, bestVia), best, nil
}

// exactLine finds text verbatim: the aligned line (via "exact-ast"), else
// the first free scope line (via "exact-" + scope's via); -1 if neither.
func exactLine(text string, sc scope, aligned int) (int, string) {
	snap := sc.snap
	if aligned >= 0 && snap.lines[aligned].text == text {
		return aligned, "exact-ast"
	}
	for _, li := range sc.lines {
		if snap.lines[li].text == text && sc.free(li) {
			return li, "exact-" + sc.via
		}
	}
	return -1, ""
}

// candidateScore is the similarity of snapshot line t to text, discounted
// to s·(1−sim_buggy) when t is at least as close to buggy (the line the
// fix replaced); reverted reports t identical to buggy in that case.
func (c *Checker) candidateScore(ctx context.Context, text, buggy, t string) (s float64, reverted bool, err error) {
	s, err = c.similarity(ctx, text, t)
	if err != nil || buggy == "" {
		return s, false, err
	}
	sb, err := c.similarity(ctx, buggy, t)
	if err != nil {
		return s, false, err
	}
	if sb >= s {
		s *= 1 - sb
		reverted = sb == 1
	}
	return s, reverted, nil
}

func (c *Checker) hit(ml MatchedLine, snap *version, li int, s float64, via string) MatchedLine {
	ml.Snapshot, ml.Line, ml.Similarity, ml.Via = snap.lines[li].text, snap.lines[li].start, round(s), via
	return ml
}

// matchAbsent scores one line that must be absent from region: 1 minus its
// best similarity to a region line (exact only: 0 or 1).
func (c *Checker) matchAbsent(ctx context.Context, text string, snap *version, region []int) (MatchedLine, error) {
	ml := MatchedLine{Patch: text, Role: "deleted", Similarity: 1, Via: "absent"}
	worst := 0.0
	for _, li := range region {
		t := snap.lines[li].text
		var s float64
		switch {
		case t == text:
			s = 1
		case c.opts.ExactOnly || weakLine(text):
			// A weak line ("except ImportError :") resembles many lines
			// that are not it: only itself counts as still there.
			s = 0
		default:
			var err error
			if s, err = c.similarity(ctx, text, t); err != nil {
				return ml, err
			}
		}
		if s > worst {
			worst = s
			ml.Snapshot, ml.Line, ml.Via = t, snap.lines[li].start, "region"
		}
	}
	ml.Similarity = round(1 - worst)
	return ml, nil
}

func round(x float64) float64 { return math.Round(x*1e4) / 1e4 }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
