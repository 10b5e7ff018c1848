package mutation

// Grounded selection (issue 16, item 3). Mutating methods in corpus order
// gives pairs far smaller than the seeds they stand for (Cliff's δ about
// −0.5 on size against the reference set, where rxsynth Table 10 reports
// |δ| ≤ 0.09), because most real methods are short. Grounding instead
// builds a pool of every pair the operators can make in the whole corpus,
// measures each buggy member's seven structural metrics (internal/metrics,
// as the fidelity report measures them), and lets each reference seed of a
// type draw its nearest pairs of that type in turn, without replacement:
// matched sampling, with every seed its own stratum of size, complexity and
// nesting, so the corpus follows the reference distribution per type. A
// seed only draws pairs whose both members lie within the gate's size band
// around the seed's LLOC (the §4.3 size target, recorded on the candidate
// so the gate checks it), and pairs whose operator inverts the seed's own
// repair pattern (ClassifyFix) are preferred, and so are hosts of the
// seed's own visibility: the pool holds methods of any visibility (the
// command line's grounded default), as the seeds are real methods of any
// visibility. Each candidate names the seed
// it was grounded on (example_bug_ids[0], which the gate copies to the
// pair's source) beside repository, commit, path, method and operator.

import (
	"context"
	"fmt"
	"hash/fnv"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/metrics"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/generate"
)

// GroundedID is the generator id of grounded runs.
const GroundedID = "mutation-grounded/v4"

// Grounding configures grounded selection.
type Grounding struct {
	// Reference are the seeds whose distribution the corpus follows: the
	// fidelity reference set (fidelity.ReferenceSeeds).
	Reference []corpus.Seed
	// MinLLOC, MaxLLOC and SizeTolerance are the gate's size bounds and
	// size-target band (gate.Options); a pair outside them for its seed is
	// never drawn, since the gate would reject it. Zero: 3, 150, 0.4.
	MinLLOC, MaxLLOC int
	SizeTolerance    float64
	// PatternPenalty is added to the distance of a pair whose operator does
	// not invert its seed's repair pattern, when the seed's pattern has an
	// operator of its type; in units of squared standard deviations of the
	// log metrics. Zero: DefaultPatternPenalty; negative: no preference.
	PatternPenalty float64
	// VisibilityPenalty is added to the distance of a pair whose host
	// method is public when its seed's method is not, or the other way
	// round, in the same units. Zero: DefaultVisibilityPenalty; negative:
	// no preference.
	VisibilityPenalty float64
}

// DefaultPatternPenalty trades one squared standard deviation of a
// log-metric for the seed's own repair pattern: a pattern-matching pair is
// taken unless a pair of another pattern is clearly closer in shape.
const DefaultPatternPenalty = 0.5

// DefaultVisibilityPenalty trades half a squared standard deviation of a
// log-metric for the seed's own visibility. The seeds are real methods of
// any visibility (50 of the 139 Defects4J seeds are private, protected or
// package-private: parsers' and builders' helpers, where many of the
// large NumberFormatException and StringIndexOutOfBounds bugs are), so a
// grounded pool holds hosts of any visibility, and each seed prefers a
// host of its own kind: the corpus follows the seeds' public share per
// type as it follows their size.
const DefaultVisibilityPenalty = 0.5

// refSeed is one reference seed as matching sees it.
type refSeed struct {
	id      string
	lloc    int
	feat    [7]float64
	pattern string
	public  bool
}

// poolPair is one pair the operators can make, with its measurements.
type poolPair struct {
	cand      generate.Candidate
	att       generate.Attempt
	host      uint64 // hash of the fixed method: one pair per host method
	feat      [7]float64
	llocBuggy int
	llocFixed int
	fix       string // the pattern its operator inverts
	public    bool   // the host method is public
}

// plan is the grounded selection: rounds[k] is what chunk k emits (one
// pair for each seed still drawing), failed the pool-build attempts that
// gave no pair (logged with chunk 0).
type plan struct {
	rounds [][]poolPair
	failed []generate.Attempt
}

// features are the seven metrics on a log scale: sizes and counts are
// right-skewed, and a distance on logs treats 5 vs 10 statements like 20
// vs 40, which is what matching a distribution's shape needs.
func features(m metrics.Metrics) [7]float64 {
	var f [7]float64
	for i, v := range m.Values() {
		f[i] = math.Log1p(float64(v))
	}
	return f
}

// generateGrounded emits round req.Chunk of the plan, building the plan on
// the first call from that call's Want (the full quotas: Run replays from
// chunk 0 with nothing counted yet, also on resume).
func (g *Generator) generateGrounded(ctx context.Context, req generate.Request) ([]generate.Candidate, error) {
	if g.plan == nil {
		p, err := g.buildPlan(ctx, req.Want)
		if err != nil {
			return nil, err
		}
		g.plan = p
	}
	if req.Chunk < 0 || req.Chunk >= len(g.plan.rounds) {
		return nil, fmt.Errorf("grounded mutation round %d of %d: %w", req.Chunk, len(g.plan.rounds), generate.ErrExhausted)
	}
	if req.Chunk == 0 {
		for _, a := range g.plan.failed {
			req.Report(a)
		}
	}
	var out []generate.Candidate
	for _, pp := range g.plan.rounds[req.Chunk] {
		if req.Want[pp.cand.ErrorType] <= 0 {
			continue
		}
		req.Report(pp.att)
		out = append(out, pp.cand)
	}
	return out, nil
}

// buildPlan scans the whole corpus into a pool and matches it to the
// reference seeds, type by type in corpus.Types order.
func (g *Generator) buildPlan(ctx context.Context, quota map[string]int) (*plan, error) {
	gr := g.opts.Ground.withDefaults()
	refs, all := referenceSeeds(gr.Reference)
	if len(all) == 0 {
		return nil, fmt.Errorf("grounded mutation: no reference seed could be measured")
	}
	scale := spread(all)
	want := positive(quota)
	p := &plan{}
	pool, err := g.buildPool(ctx, want, p)
	if err != nil {
		return nil, err
	}
	used := map[uint64]bool{}
	for _, t := range corpus.Types {
		rs := refs[t]
		if want[t] <= 0 {
			continue
		}
		if len(rs) == 0 {
			rs = all // a type without reference seeds follows the pooled set
		}
		p.matchCalibrated(t, want[t], rs, pool[t], scale, gr, used)
	}
	return p, nil
}

// withDefaults returns gr with its zero bounds and penalty filled in.
func (gr Grounding) withDefaults() Grounding {
	if gr.MinLLOC <= 0 {
		gr.MinLLOC = 3
	}
	if gr.MaxLLOC <= 0 {
		gr.MaxLLOC = 150
	}
	if gr.SizeTolerance <= 0 {
		gr.SizeTolerance = 0.4
	}
	if gr.PatternPenalty == 0 {
		gr.PatternPenalty = DefaultPatternPenalty
	}
	if gr.VisibilityPenalty == 0 {
		gr.VisibilityPenalty = DefaultVisibilityPenalty
	}
	return gr
}

// referenceSeeds measures the reference seeds, by type and all together.
// Seeds that do not measure or have an unknown type are left out, as
// fidelity leaves them out of the reference set too.
func referenceSeeds(seeds []corpus.Seed) (map[string][]refSeed, []refSeed) {
	refs := map[string][]refSeed{}
	var all []refSeed
	for _, s := range seeds {
		m, err := metrics.OfMethodSource([]byte(s.BuggyMethod))
		if err != nil || !corpus.ValidType(s.Exception) {
			continue
		}
		r := refSeed{id: s.BugID, lloc: m.Metrics.LLOC, feat: features(m.Metrics), pattern: ClassifyFix(s.BuggyMethod, s.FixedMethod),
			public: publicMethod(s.BuggyMethod)}
		refs[s.Exception] = append(refs[s.Exception], r)
		all = append(all, r)
	}
	return refs, all
}

// calibrationRounds bounds how often matchCalibrated re-aims the targets,
// and calibrationTol is the largest mean log-metric gap it accepts (1 %)
// before that.
const (
	calibrationRounds = 25
	calibrationTol    = 0.01
)

// matchCalibrated matches type t, correcting nearest-neighbour bias: real
// code has many more small methods than large ones, so a seed's nearest
// pairs lie on the dense (smaller) side of it more often than not, and the
// drawn corpus comes out smaller than the seeds on every size metric. Each
// trial match on a scratch copy measures the mean log-metric gap between
// the drawn pairs and the seeds, and the next aims that much further,
// until every gap is within calibrationTol; the real draw uses the offset
// of the trial with the smallest largest gap. (Four fixed rounds, v1,
// left IllegalArgumentException's PLOC gap at 0.25: each round closes
// only a part of it once the large seeds' bands run dry.)
func (p *plan) matchCalibrated(t string, n int, rs []refSeed, pool []*poolPair, scale [7]float64, gr Grounding, used map[uint64]bool) {
	var offset, refMean, best [7]float64
	for _, r := range rs {
		for j := range refMean {
			refMean[j] += r.feat[j] / float64(len(rs))
		}
	}
	bestGap := math.Inf(1)
	for range calibrationRounds {
		gap, ok := trialGap(t, n, rs, pool, scale, offset, gr, used, refMean)
		if !ok {
			break
		}
		worst := 0.0
		for j := range gap {
			worst = max(worst, math.Abs(gap[j]))
		}
		if worst < bestGap {
			best, bestGap = offset, worst
		}
		if worst < calibrationTol {
			break
		}
		for j := range offset {
			offset[j] += gap[j]
		}
	}
	p.match(t, n, rs, pool, scale, best, gr, used)
}

// trialGap matches type t on a scratch copy of used with offset and
// returns the mean log-metric gap between the seeds and the drawn pairs;
// ok is false when nothing was drawn.
func trialGap(t string, n int, rs []refSeed, pool []*poolPair, scale, offset [7]float64, gr Grounding, used map[uint64]bool, refMean [7]float64) (gap [7]float64, ok bool) {
	trial := &plan{}
	trial.match(t, n, rs, pool, scale, offset, gr, maps.Clone(used))
	var mean [7]float64
	k := 0
	for _, round := range trial.rounds {
		for _, pp := range round {
			for j := range mean {
				mean[j] += pp.feat[j]
			}
			k++
		}
	}
	if k == 0 {
		return gap, false
	}
	for j := range gap {
		gap[j] = refMean[j] - mean[j]/float64(k)
	}
	return gap, true
}

// spread returns each log-metric's standard deviation over the reference
// seeds (floored, so a constant metric does not divide by zero).
func spread(rs []refSeed) [7]float64 {
	var mean, sd [7]float64
	for _, r := range rs {
		for j := range mean {
			mean[j] += r.feat[j] / float64(len(rs))
		}
	}
	for _, r := range rs {
		for j := range sd {
			d := r.feat[j] - mean[j]
			sd[j] += d * d / float64(len(rs))
		}
	}
	for j := range sd {
		sd[j] = max(math.Sqrt(sd[j]), 0.1)
	}
	return sd
}

// match draws up to n pairs of type t. Every seed has an equal share
// (n / len(rs), the remainder to the first seeds), so each seed weighs in
// the corpus as it weighs in the reference set; round after round, each
// seed with share left takes its nearest unused pair whose both members
// are within the size band of its target. A seed whose band is empty
// stops drawing (nearest): its hole is left rather than filled with
// another shape, which would skew the distribution.
func (p *plan) match(t string, n int, rs []refSeed, pool []*poolPair, scale, offset [7]float64, gr Grounding, used map[uint64]bool) {
	share := make([]int, len(rs))
	for i := range share {
		share[i] = n / len(rs)
		if i < n%len(rs) {
			share[i]++
		}
	}
	d := &draw{pool: pool, scale: scale, offset: offset, gr: gr, used: used, hasFix: map[string]bool{}}
	// A seed's pattern counts only when some pair of this type inverts it.
	for _, pp := range pool {
		d.hasFix[pp.fix] = true
	}
	for round := 0; ; round++ {
		progress := false
		for i, r := range rs {
			if share[i] <= round {
				continue
			}
			if pp, ok := d.take(r); ok {
				p.add(round, pp)
				progress = true
			}
		}
		if !progress {
			return
		}
	}
}

// draw is one type's matching in progress: its pool, the metric scale
// and aim offset, and the host methods already used (by any type).
type draw struct {
	pool          []*poolPair
	scale, offset [7]float64
	gr            Grounding
	used          map[uint64]bool
	hasFix        map[string]bool // the patterns some pair of the pool inverts
}

// take draws seed r's nearest unused pair, marks its host used and
// grounds the candidate on r; ok is false when no admitted pair is left.
func (d *draw) take(r refSeed) (pp poolPair, ok bool) {
	// The size target is the seed's LLOC, clamped to what the gate
	// admits at all (a 2-statement seed targets 3 by default).
	target := min(max(r.lloc, d.gr.MinLLOC), d.gr.MaxLLOC)
	best := d.nearest(r, target)
	if best < 0 {
		return poolPair{}, false
	}
	pp = *d.pool[best]
	d.used[pp.host] = true
	pp.cand.ExampleBugIDs = []string{r.id}
	pp.cand.SizeTarget = target
	return pp, true
}

// nearest returns the index of the unused admitted pair closest to seed
// r whose both members lie in the size band around target, or -1. A seed
// whose band is empty draws nothing more: filling its share with the
// nearest pair outside the band (as v1 did) put 9-statement pairs in the
// place of 60-statement seeds (15 % of the draws on seven Defects4J
// projects), pulling the corpus below the reference set on every size
// metric. The shortfall shows as fewer pairs of the type, which a larger
// corpus (more projects) makes up.
func (d *draw) nearest(r refSeed, target int) int {
	lo, hi := float64(target)*(1-d.gr.SizeTolerance), float64(target)*(1+d.gr.SizeTolerance)
	best, bestD := -1, math.Inf(1)
	for k, pp := range d.pool {
		if d.used[pp.host] || !admitted(pp, d.gr) || !inBand(pp.llocBuggy, lo, hi, d.gr) || !inBand(pp.llocFixed, lo, hi, d.gr) {
			continue
		}
		if dist := d.distance(pp, r); dist < bestD {
			best, bestD = k, dist
		}
	}
	return best
}

// distance is pp's squared distance, in standard deviations of the log
// metrics, from where seed r aims (its features plus the offset), plus
// the pattern penalty when pp inverts another pattern than r's and r's
// has a pair.
func (d *draw) distance(pp *poolPair, r refSeed) float64 {
	dist := 0.0
	for j := range d.scale {
		x := (pp.feat[j] - r.feat[j] - d.offset[j]) / d.scale[j]
		dist += x * x
	}
	if d.gr.PatternPenalty > 0 && d.hasFix[r.pattern] && pp.fix != r.pattern {
		dist += d.gr.PatternPenalty
	}
	if d.gr.VisibilityPenalty > 0 && pp.public != r.public {
		dist += d.gr.VisibilityPenalty
	}
	return dist
}

// add appends pp to round k.
func (p *plan) add(k int, pp poolPair) {
	for len(p.rounds) <= k {
		p.rounds = append(p.rounds, nil)
	}
	p.rounds[k] = append(p.rounds[k], pp)
}

// admitted reports whether the gate's size bounds admit both members.
func admitted(pp *poolPair, gr Grounding) bool {
	return pp.llocBuggy >= gr.MinLLOC && pp.llocBuggy <= gr.MaxLLOC && pp.llocFixed >= gr.MinLLOC && pp.llocFixed <= gr.MaxLLOC
}

func inBand(lloc int, lo, hi float64, gr Grounding) bool {
	return lloc >= gr.MinLLOC && lloc <= gr.MaxLLOC && float64(lloc) >= lo && float64(lloc) <= hi
}

// buildPool scans every corpus file (chunk by chunk, so only one chunk's
// sources are held at once) and makes, for every host method, one pair per
// wanted type and operator with sites in it. Failed attempts go to p.failed.
func (g *Generator) buildPool(ctx context.Context, want map[string]int, p *plan) (map[string][]*poolPair, error) {
	pool := map[string][]*poolPair{}
	hosts := map[uint64]bool{}
	for lo := 0; lo < len(g.order); lo += g.opts.ChunkFiles {
		results := g.scan(ctx, g.order[lo:min(lo+g.opts.ChunkFiles, len(g.order))], want)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("grounded mutation: %w", err)
		}
		for _, fs := range results {
			if fs.err != nil {
				p.failed = append(p.failed, sourceError(GroundedID, fs))
				continue
			}
			for _, ms := range fs.methods {
				fh := fnv.New64a()
				fh.Write([]byte(dedent(string(fs.src[ms.start:ms.fn.EndByte]))))
				host := fh.Sum64()
				if hosts[host] {
					continue // the same method text elsewhere in the corpus
				}
				hosts[host] = true
				g.poolMethod(fs, ms, host, want, pool, p)
			}
		}
	}
	return pool, nil
}

// poolMethod adds the pairs of one host method to the pool.
func (g *Generator) poolMethod(fs fileSites, ms methodSites, host uint64, want map[string]int, pool map[string][]*poolPair, p *plan) {
	type key struct{ typ, op string }
	var keys []key
	for _, s := range ms.sites {
		k := key{s.Type, s.Operator}
		if want[s.Type] > 0 && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		var att generate.Attempt
		got := false
		c, ok := g.mutate(fs, ms, k.typ, k.op, func(a generate.Attempt) {
			if a.Outcome == generate.OutcomeCandidate {
				att, got = a, true
				return
			}
			p.failed = append(p.failed, a)
		})
		if !ok || !got {
			continue
		}
		if pp, ok := groundedPair(fs, ms, c, att, host); ok {
			pool[k.typ] = append(pool[k.typ], pp)
		}
	}
}

// groundedPair measures candidate c and re-identifies it and its attempt
// as the grounded generator's; ok is false when a member does not
// measure (checkBuggy parsed it; a fixed member that does not parse alone
// cannot be measured either).
func groundedPair(fs fileSites, ms methodSites, c generate.Candidate, att generate.Attempt, host uint64) (*poolPair, bool) {
	// Measured as the gate will emit them: a mutation pair keeps its
	// host's comments but for the site's (comments.go), as the seeds it is
	// matched with keep theirs.
	mb, errB := metrics.OfMethodSource([]byte(c.BuggyMethod))
	mf, errF := metrics.OfMethodSource([]byte(c.FixedMethod))
	if errB != nil || errF != nil {
		return nil, false
	}
	c.Generator, att.Generator = GroundedID, GroundedID
	c.ID = generate.HashID("mut-", GroundedID, c.Operator, fs.name, c.Source.Method, c.BuggyMethod)
	att.ID = generate.HashID("att-", GroundedID, fs.name, c.Source.Method, c.Operator, strconv.Itoa(c.Source.SiteLine))
	att.CandidateID = c.ID
	op := OperatorByName(c.Operator)
	return &poolPair{cand: c, att: att, host: host, feat: features(mb.Metrics),
		llocBuggy: mb.Metrics.LLOC, llocFixed: mf.Metrics.LLOC, fix: op.Fix, public: publicSignature(ms.fn.Signature)}, true
}

// publicMethod reports whether the one method in src is declared public
// (false when it does not parse as one method).
func publicMethod(src string) bool {
	f, err := code.ParseJavaMethod([]byte(src))
	if err != nil {
		return false
	}
	for _, fn := range f.Functions() {
		if fn.Class == "" {
			return publicSignature(fn.Signature)
		}
	}
	return false
}

// publicSignature reports whether a method signature declares it public.
func publicSignature(sig string) bool {
	return strings.HasPrefix(sig, "public ") || strings.Contains(sig, " public ")
}
