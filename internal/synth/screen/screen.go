// Package screen owns generator selection by distributional alignment
// (rxsynth §4.2, Table 4): candidate generators are run under identical
// prompts, exemplars and per-quartile budgets on the seeds of one exception
// type, and ranked by how closely their gated pairs match the real seeds'
// structure.
//
// Procedure. The seeds of the type whose buggy method parses as one method
// are kept; the upper tail is excluded with the fidelity reference-set rule
// (LLOC above Q3 + 1.5·IQR within the type; §3.4, as seeds.ReferenceSet),
// because §4.2 screened on the seeds "inside the quartile range used for
// screening, excluding the upper-tail seeds". The rest, ordered by
// (LLOC, tokens, bug_id), are cut into four equal-count complexity
// quartiles (76 seeds → 19 each in the paper). For each generator and
// quartile, the generator is asked for PerQuartile candidates of the type
// with only that quartile's seeds as exemplars (so size targets stay in
// the quartile), the candidates are gated (internal/synth/gate; novelty
// against every seed of the type), and, while fewer than PerQuartile pass and
// rounds remain, asked for the shortfall again. The first PerQuartile
// accepted pairs are compared with the quartile's seeds.
//
// Score. For each of six structural metrics (Metrics), Cliff's δ of the
// accepted buggy methods against the quartile's seed buggy methods; the
// quartile score is the mean |δ|, the generator's score the mean of its four
// quartile scores, and generators are ranked by it (lower is better). The
// paper names "six structural metrics" without listing them; of the seven of
// §6.1 we drop PLOC, the one that measures layout rather than code
// (line-breaking and blank-line habits of a model, not the program). A
// quartile where no candidate passed the gates scores 1, the largest |δ|:
// a generator that yields nothing usable is as misaligned as possible.
//
// Every generator/quartile works in its own directory under Options.Dir
// (candidates, attempts, model calls, gate outputs), so an interrupted or
// budget-stopped screening resumes without new model calls.
package screen

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/metrics"
	"github.com/benchforge/benchforge/internal/stats"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/gate"
	"github.com/benchforge/benchforge/internal/synth/generate"
)

// Metrics are the six structural metrics of the screening score.
var Metrics = []string{"lloc", "cyclomatic", "max_nesting", "identifiers", "params", "tokens"}

// NumQuartiles is the number of complexity quartiles.
const NumQuartiles = 4

// Contender is one generator to screen. New builds a fresh generator that
// works in dir (a generator that is an io.Closer is closed after use).
type Contender struct {
	Name string
	New  func(dir string) (generate.Generator, error)
}

// Options configure Run.
type Options struct {
	Type        string
	PerQuartile int    // pairs compared per quartile (§4.2: 19)
	Dir         string // working directory
	Gate        gate.Options
	// Rounds bounds the generate-and-gate rounds per quartile; 0 means 3.
	Rounds int
	// Progress, when set, is called after each generator/quartile.
	Progress func(generator string, quartile, accepted int)
}

// Quartile is one complexity quartile of the screening seeds.
type Quartile struct {
	Q       int      `json:"q"` // 1..4
	SeedIDs []string `json:"seed_ids"`
	LLOCMin int      `json:"lloc_min"`
	LLOCMax int      `json:"lloc_max"`
}

// Exclusion is a seed of the type left out of screening.
type Exclusion struct {
	BugID  string `json:"bug_id"`
	Reason string `json:"reason"`
}

// Cell is one generator on one quartile.
type Cell struct {
	Q          int                `json:"q"`
	Candidates int                `json:"candidates"`
	Accepted   int                `json:"accepted"`
	Compared   int                `json:"compared"`
	Deltas     map[string]float64 `json:"deltas,omitempty"` // signed Cliff's δ per metric, generated vs seeds
	Score      float64            `json:"score"`            // mean |δ|; 1 when Compared is 0
	Rejections []gate.CauseCount  `json:"rejections,omitempty"`
}

// Row is one generator's Table 4 row.
type Row struct {
	Generator string  `json:"generator"`
	ID        string  `json:"generator_id"`
	Cells     []Cell  `json:"quartiles"`
	Mean      float64 `json:"mean"`
	Rank      int     `json:"rank"`
}

// Report is the screening result.
type Report struct {
	Type        string      `json:"type"`
	PerQuartile int         `json:"per_quartile"`
	Metrics     []string    `json:"metrics"`
	Quartiles   []Quartile  `json:"quartile_seeds"`
	Excluded    []Exclusion `json:"excluded_seeds"`
	Rows        []Row       `json:"rows"` // by rank
}

type measured struct {
	seed corpus.Seed
	m    metrics.Metrics
}

// Quartiles selects the screening seeds of typ and cuts them into
// complexity quartiles (see the package doc); it returns the quartiles'
// seeds with their measurements and the exclusions.
func Quartiles(seeds []corpus.Seed, typ string) ([]Quartile, [][]corpus.Seed, []Exclusion, error) {
	ms, excl := measureSeeds(seeds, typ)
	if len(ms) > 0 {
		var tail []Exclusion
		var err error
		if ms, tail, err = dropUpperTail(ms); err != nil {
			return nil, nil, nil, err
		}
		excl = append(excl, tail...)
	}
	if len(ms) < NumQuartiles {
		return nil, nil, excl, fmt.Errorf("screen: %w: %d usable %s seeds, need at least %d for quartiles", errs.ErrInput, len(ms), typ, NumQuartiles)
	}
	sort.Slice(ms, func(a, b int) bool { return simpler(ms[a], ms[b]) })
	qs, groups := cutQuartiles(ms)
	return qs, groups, excl, nil
}

// measureSeeds measures the buggy methods of the seeds of typ; a method
// that does not parse is excluded.
func measureSeeds(seeds []corpus.Seed, typ string) ([]measured, []Exclusion) {
	var ms []measured
	var excl []Exclusion
	for _, s := range seeds {
		if s.Exception != typ {
			continue
		}
		m, err := metrics.OfMethodSource([]byte(s.BuggyMethod))
		if err != nil {
			excl = append(excl, Exclusion{s.BugID, "buggy method does not parse as one method: " + err.Error()})
			continue
		}
		ms = append(ms, measured{s, m.Metrics})
	}
	return ms, excl
}

// dropUpperTail excludes the seeds whose LLOC lies above the upper fence
// Q3 + 1.5·IQR.
func dropUpperTail(ms []measured) ([]measured, []Exclusion, error) {
	xs := make([]float64, len(ms))
	for i, m := range ms {
		xs[i] = float64(m.m.LLOC)
	}
	q, err := stats.Quantiles(xs, 0.25, 0.75)
	if err != nil {
		return nil, nil, fmt.Errorf("screen: %w", err)
	}
	fence := q[1] + 1.5*(q[1]-q[0])
	var excl []Exclusion
	kept := ms[:0]
	for _, m := range ms {
		if float64(m.m.LLOC) > fence {
			excl = append(excl, Exclusion{m.seed.BugID, fmt.Sprintf("upper tail: LLOC %d > Q3 + 1.5·IQR = %.1f", m.m.LLOC, fence)})
			continue
		}
		kept = append(kept, m)
	}
	return kept, excl, nil
}

// simpler orders seeds by LLOC, then tokens, then bug id.
func simpler(x, y measured) bool {
	if x.m.LLOC != y.m.LLOC {
		return x.m.LLOC < y.m.LLOC
	}
	if x.m.Tokens != y.m.Tokens {
		return x.m.Tokens < y.m.Tokens
	}
	return x.seed.BugID < y.seed.BugID
}

// cutQuartiles cuts the sorted seeds into NumQuartiles equal parts.
func cutQuartiles(ms []measured) ([]Quartile, [][]corpus.Seed) {
	qs := make([]Quartile, NumQuartiles)
	groups := make([][]corpus.Seed, NumQuartiles)
	n := len(ms)
	for q := range qs {
		part := ms[q*n/NumQuartiles : (q+1)*n/NumQuartiles]
		qs[q] = Quartile{Q: q + 1, LLOCMin: part[0].m.LLOC, LLOCMax: part[len(part)-1].m.LLOC}
		for _, m := range part {
			qs[q].SeedIDs = append(qs[q].SeedIDs, m.seed.BugID)
			groups[q] = append(groups[q], m.seed)
		}
	}
	return qs, groups
}

// Run screens the contenders (see the package doc).
func Run(ctx context.Context, cs []Contender, seeds []corpus.Seed, opts Options) (*Report, error) {
	if err := checkOptions(cs, opts); err != nil {
		return nil, err
	}
	if opts.Rounds <= 0 {
		opts.Rounds = 3
	}
	qs, groups, excl, err := Quartiles(seeds, opts.Type)
	if err != nil {
		return nil, err
	}
	var typeSeeds []corpus.Seed
	for _, s := range seeds {
		if s.Exception == opts.Type {
			typeSeeds = append(typeSeeds, s)
		}
	}
	seedMetrics := quartileMetrics(groups)
	rep := &Report{Type: opts.Type, PerQuartile: opts.PerQuartile, Metrics: Metrics, Quartiles: qs, Excluded: excl}
	seen := map[string]bool{}
	for _, c := range cs {
		slug := Slug(c.Name)
		if seen[slug] {
			return nil, fmt.Errorf("screen: %w: generator %q is listed twice", errs.ErrUsage, c.Name)
		}
		seen[slug] = true
		row, err := screenRow(ctx, c, filepath.Join(opts.Dir, slug), groups, typeSeeds, seedMetrics, opts)
		if err != nil {
			return rep, err
		}
		rep.Rows = append(rep.Rows, row)
	}
	sort.SliceStable(rep.Rows, func(a, b int) bool { return rep.Rows[a].Mean < rep.Rows[b].Mean })
	for i := range rep.Rows {
		rep.Rows[i].Rank = i + 1
	}
	return rep, nil
}

// quartileMetrics measures each quartile's seeds (all parsed in
// Quartiles).
func quartileMetrics(groups [][]corpus.Seed) [][]metrics.Metrics {
	out := make([][]metrics.Metrics, NumQuartiles)
	for q, g := range groups {
		for _, s := range g {
			m, _ := metrics.OfMethodSource([]byte(s.BuggyMethod))
			out[q] = append(out[q], m.Metrics)
		}
	}
	return out
}

// checkOptions refuses an unknown type, no contender, no per-quartile
// count or no directory.
func checkOptions(cs []Contender, opts Options) error {
	if !corpus.ValidType(opts.Type) {
		return fmt.Errorf("screen: %w: type %q is not one of %s", errs.ErrUsage, opts.Type, strings.Join(corpus.Types, ", "))
	}
	if opts.PerQuartile <= 0 || len(cs) == 0 || opts.Dir == "" {
		return fmt.Errorf("screen: %w: need at least one generator, a per-quartile count > 0 and a directory", errs.ErrUsage)
	}
	return nil
}

// screenRow runs contender c on every quartile (in dir/q1, dir/q2, …).
func screenRow(ctx context.Context, c Contender, dir string, groups [][]corpus.Seed, typeSeeds []corpus.Seed, seedMetrics [][]metrics.Metrics, opts Options) (Row, error) {
	row := Row{Generator: c.Name}
	for q := range groups {
		qdir := filepath.Join(dir, fmt.Sprintf("q%d", q+1))
		cell, id, err := runCell(ctx, c, qdir, groups[q], typeSeeds, seedMetrics[q], opts)
		if err != nil {
			return row, fmt.Errorf("screen: generator %s, quartile %d: %w", c.Name, q+1, err)
		}
		cell.Q, row.ID = q+1, id
		row.Cells = append(row.Cells, cell)
		row.Mean += cell.Score / NumQuartiles
		if opts.Progress != nil {
			opts.Progress(c.Name, q+1, cell.Accepted)
		}
	}
	return row, nil
}

// runCell generates, gates and scores one generator on one quartile:
// up to opts.Rounds rounds, each raising the quota by the shortfall of
// gated pairs, until PerQuartile pairs pass or the generator is exhausted.
func runCell(ctx context.Context, c Contender, dir string, exemplars, typeSeeds []corpus.Seed, ref []metrics.Metrics, opts Options) (Cell, string, error) {
	var cell Cell
	var res *gate.Result
	var id string
	quota := opts.PerQuartile
	for round := 0; round < opts.Rounds; round++ {
		var have int
		var err error
		if id, have, err = generateCell(ctx, c, dir, exemplars, quota, opts.Type); err != nil {
			return cell, id, err
		}
		var n int
		if res, n, err = gateCell(ctx, dir, typeSeeds, opts.Gate); err != nil {
			return cell, id, err
		}
		cell.Candidates, cell.Accepted = n, len(res.Accepted)
		short := opts.PerQuartile - cell.Accepted
		if short <= 0 || have < quota {
			break // enough, or the generator is exhausted
		}
		quota += short
	}
	cell.Rejections = res.Causes
	return cell, id, scoreCell(&cell, res.Accepted, ref, opts.PerQuartile)
}

// generateCell runs a fresh generator of c in dir up to quota candidates
// of typ; it returns the generator's id ("" when it could not be built)
// and the candidates it reached.
func generateCell(ctx context.Context, c Contender, dir string, exemplars []corpus.Seed, quota int, typ string) (string, int, error) {
	g, err := c.New(dir)
	if err != nil {
		return "", 0, err
	}
	id := g.ID()
	st, err := generate.Run(ctx, g, generate.RunOptions{Dir: dir, PerType: map[string]int{typ: quota}, Seeds: exemplars})
	if cl, ok := g.(io.Closer); ok {
		cl.Close()
	}
	if err != nil {
		return id, 0, err
	}
	return id, st.Have[typ], nil
}

// gateCell gates every candidate in dir and writes the gate's outputs
// there; it returns the result and the number of candidates.
func gateCell(ctx context.Context, dir string, typeSeeds []corpus.Seed, opts gate.Options) (*gate.Result, int, error) {
	cands, err := gate.ReadCandidates(filepath.Join(dir, generate.CandidatesFile))
	if err != nil {
		return nil, 0, err
	}
	res, err := gate.Run(ctx, cands, typeSeeds, opts)
	if err != nil {
		return nil, 0, err
	}
	if err := gate.WriteOutputs(dir, res); err != nil {
		return nil, 0, err
	}
	return res, len(cands), nil
}

// scoreCell measures up to n accepted pairs and sets the cell's Cliff's
// δ per metric against the seeds' ref and its score, their mean |δ| (1
// when no pair could be measured).
func scoreCell(cell *Cell, accepted []corpus.Pair, ref []metrics.Metrics, n int) error {
	var gen []metrics.Metrics
	for _, p := range accepted {
		if len(gen) == n {
			break
		}
		if m, err := metrics.OfMethodSource([]byte(p.BuggyMethod)); err == nil {
			gen = append(gen, m.Metrics)
		}
	}
	cell.Compared = len(gen)
	cell.Score = 1
	if len(gen) == 0 {
		return nil
	}
	cell.Deltas = map[string]float64{}
	sum := 0.0
	for _, name := range Metrics {
		d, err := stats.CliffsDelta(column(gen, name), column(ref, name))
		if err != nil {
			return err
		}
		cell.Deltas[name] = d.Delta
		sum += math.Abs(d.Delta)
	}
	cell.Score = sum / float64(len(Metrics))
	return nil
}

// column extracts one named metric.
func column(ms []metrics.Metrics, name string) []float64 {
	i := -1
	for k, n := range metrics.MetricNames {
		if n == name {
			i = k
		}
	}
	out := make([]float64, len(ms))
	for k, m := range ms {
		out[k] = float64(m.Values()[i])
	}
	return out
}

var unsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Slug turns a generator name into a directory name.
func Slug(name string) string {
	s := strings.Trim(unsafe.ReplaceAllString(name, "_"), "_.")
	if s == "" {
		s = "generator"
	}
	return s
}
