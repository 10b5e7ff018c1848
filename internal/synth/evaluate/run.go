package evaluate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/ml"
	"github.com/benchforge/benchforge/internal/step"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/fidelity"
)

// Model names.
const (
	ModelLR         = "lr"
	ModelRF         = "rf"
	ModelGB         = "gb"
	ModelLengthRule = "length-rule"
)

// DefaultSweep are the training-set sizes of the Figure 6 sweep; sizes at
// or above the corpus size are replaced by the whole corpus.
var DefaultSweep = []int{250, 500, 1000, 2000}

// Options configures Run. Zero values mean the defaults in brackets.
type Options struct {
	Folds        int      // source-bug folds [5]
	RunSeeds     []uint64 // run seeds: fold shuffles and model seeds [42, 7, 123]
	Unstratified bool     // one stratum instead of exception-stratified folds
	Models       []string // of lr, rf, gb [all three]
	Trees        int      // trees of rf and stages of gb [100]
	Bootstrap    int      // pair-cluster bootstrap resamples [10,000]
	Conf         float64  // interval level [0.95]
	Sweep        []int    // training sizes of the sweep [DefaultSweep]; see NoSweep
	NoSweep      bool     // skip the training-size sweep
	NoLeaky      bool     // skip the leaky diagnostic
	NoRealCV     bool     // skip the real-to-real Δ-feature LR baseline
	Workers      int      // concurrent fits [GOMAXPROCS]
	// Progress, when set, is called after each fit.
	Progress func(done, total int)
}

func (o *Options) defaults() {
	if o.Folds == 0 {
		o.Folds = 5
	}
	if o.RunSeeds == nil {
		o.RunSeeds = []uint64{42, 7, 123}
	}
	if o.Models == nil {
		o.Models = []string{ModelLR, ModelRF, ModelGB}
	}
	if o.Trees == 0 {
		o.Trees = 100
	}
	if o.Bootstrap == 0 {
		o.Bootstrap = 10000
	}
	if o.Conf == 0 {
		o.Conf = 0.95
	}
	if o.Sweep == nil {
		o.Sweep = DefaultSweep
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
}

// Result is everything Run produces; Report is computed from Predictions
// and Seeds alone (see Analyze).
type Result struct {
	Folds       []FoldAssignment `json:"-"`
	Predictions []Prediction     `json:"-"`
	Seeds       []SeedInfo       `json:"-"`
	Report      *Report          `json:"report"`
}

// data is the measured input.
type data struct {
	pairs   []corpus.Pair
	pm      [][2]fidelity.Measured // buggy, fixed
	prov    [][]string             // mapped source bugs per pair
	seeds   []corpus.Seed
	sm      [][2]fidelity.Measured
	info    []SeedInfo
	skipped []string
}

func newModel(name string, trees int, seed uint64) (ml.Classifier, bool, error) {
	switch name {
	case ModelLR:
		return &ml.LogisticRegression{}, true, nil
	case ModelRF:
		return &ml.RandomForest{NTrees: trees, Seed: seed, Workers: 1}, false, nil
	case ModelGB:
		return &ml.GradientBoosting{NEstimators: trees, Seed: seed}, false, nil
	}
	return nil, false, fmt.Errorf("evaluate: %w: unknown model %q (want %s, %s or %s)", errs.ErrUsage, name, ModelLR, ModelRF, ModelGB)
}

func prepare(ctx context.Context, pairs []corpus.Pair, seeds []corpus.Seed, workers int) (*data, error) {
	if len(pairs) == 0 || len(seeds) == 0 {
		return nil, fmt.Errorf("evaluate: %w: need pairs and seeds (got %d pairs, %d seeds)", errs.ErrInput, len(pairs), len(seeds))
	}
	if err := checkSeeds(seeds); err != nil {
		return nil, err
	}
	prov, err := pairProvenance(pairs, seeds)
	if err != nil {
		return nil, err
	}
	var srcs []string
	for _, p := range pairs {
		srcs = append(srcs, p.BuggyMethod, p.FixedMethod)
	}
	for _, s := range seeds {
		srcs = append(srcs, s.BuggyMethod, s.FixedMethod)
	}
	ms, fails, err := fidelity.MeasureAll(ctx, srcs, workers)
	if err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	d := &data{}
	d.keepPairs(pairs, prov, ms, fails)
	off := 2 * len(pairs)
	d.keepSeeds(seeds, ms[off:], fails[off:])
	if len(d.pairs) == 0 || len(d.seeds) == 0 {
		return nil, fmt.Errorf("evaluate: %w: no measurable pairs (%d) or seeds (%d); see the skipped list", errs.ErrInput, len(d.pairs), len(d.seeds))
	}
	return d, nil
}

// checkSeeds checks that every seed is valid and its bug_id unique.
func checkSeeds(seeds []corpus.Seed) error {
	seen := map[string]bool{}
	for i, s := range seeds {
		if err := s.Validate(); err != nil {
			return fmt.Errorf("evaluate: seed record %d: %w", i+1, err)
		}
		if seen[s.BugID] {
			return fmt.Errorf("evaluate: %w: seed bug_id %q appears twice", errs.ErrInput, s.BugID)
		}
		seen[s.BugID] = true
	}
	return nil
}

// pairProvenance validates every pair and maps its exemplars to source
// bugs through the seeds.
func pairProvenance(pairs []corpus.Pair, seeds []corpus.Seed) ([][]string, error) {
	table := NewProvenanceTable(seeds)
	var prov [][]string
	for i, p := range pairs {
		if err := p.Validate(); err != nil {
			return nil, fmt.Errorf("evaluate: pair record %d: %w", i+1, err)
		}
		sbs, err := table.SourceBugs(p)
		if err != nil {
			return nil, fmt.Errorf("evaluate: %w", err)
		}
		prov = append(prov, sbs)
	}
	return prov, nil
}

// keepPairs keeps the pairs whose two methods were measured (ms and fails
// hold buggy, fixed for each pair in turn); the others are skipped.
func (d *data) keepPairs(pairs []corpus.Pair, prov [][]string, ms []fidelity.Measured, fails []error) {
	for i, p := range pairs {
		if e := errors2(fails[2*i], fails[2*i+1]); e != nil {
			d.skipped = append(d.skipped, fmt.Sprintf("pair %s: %v", p.PairID, e))
			continue
		}
		d.pairs = append(d.pairs, p)
		d.pm = append(d.pm, [2]fidelity.Measured{ms[2*i], ms[2*i+1]})
		d.prov = append(d.prov, prov[i])
	}
}

// keepSeeds is keepPairs for the seeds, with their SeedInfo.
func (d *data) keepSeeds(seeds []corpus.Seed, ms []fidelity.Measured, fails []error) {
	for i, s := range seeds {
		if e := errors2(fails[2*i], fails[2*i+1]); e != nil {
			d.skipped = append(d.skipped, fmt.Sprintf("seed %s: %v", s.BugID, e))
			continue
		}
		b, f := ms[2*i], ms[2*i+1]
		d.seeds = append(d.seeds, s)
		d.sm = append(d.sm, [2]fidelity.Measured{b, f})
		d.info = append(d.info, SeedInfo{BugID: s.BugID, SourceBug: s.SourceBug, Exception: s.Exception,
			BuggyTokens: b.Metrics.Tokens, FixedTokens: f.Metrics.Tokens})
	}
}

func errors2(a, b error) error {
	if a != nil {
		return fmt.Errorf("buggy method: %w", a)
	}
	if b != nil {
		return fmt.Errorf("fixed method: %w", b)
	}
	return nil
}

// SeedInfos measures seeds for Analyze when predictions are imported
// without a Run.
func SeedInfos(ctx context.Context, seeds []corpus.Seed, workers int) ([]SeedInfo, []string, error) {
	var srcs []string
	for _, s := range seeds {
		srcs = append(srcs, s.BuggyMethod, s.FixedMethod)
	}
	ms, fails, err := fidelity.MeasureAll(ctx, srcs, workers)
	if err != nil {
		return nil, nil, fmt.Errorf("seed infos: %w", err)
	}
	var out []SeedInfo
	var skipped []string
	for i, s := range seeds {
		if e := errors2(fails[2*i], fails[2*i+1]); e != nil {
			skipped = append(skipped, fmt.Sprintf("seed %s: %v", s.BugID, e))
			continue
		}
		out = append(out, SeedInfo{BugID: s.BugID, SourceBug: s.SourceBug, Exception: s.Exception,
			BuggyTokens: ms[2*i].Metrics.Tokens, FixedTokens: ms[2*i+1].Metrics.Tokens})
	}
	return out, skipped, nil
}

// job is one model fit and its out-of-fold predictions.
type job struct {
	task, model, features, training string
	trainSize                       int
	runSeed                         uint64
	fold                            int
	train                           []int // pair indices (synthetic) or seed indices (real-cv)
	test                            []int // seed indices
	real                            bool  // train on real seeds (real-cv)
}

// FoldStat is the training data of one fold.
type FoldStat struct {
	RunSeed    uint64 `json:"run_seed"`
	Fold       int    `json:"fold"`
	SourceBugs int    `json:"source_bugs"`
	RealPairs  int    `json:"real_pairs"`
	TrainPairs int    `json:"train_pairs"`
	Dropped    int    `json:"dropped"`
}

// Run performs the leakage-controlled evaluation of rxsynth §7 and
// analyses it. See the package documentation for the protocol.
func Run(ctx context.Context, pairs []corpus.Pair, seeds []corpus.Seed, opt Options) (*Result, error) {
	opt.defaults()
	for _, m := range opt.Models {
		if _, _, err := newModel(m, 1, 0); err != nil {
			return nil, err
		}
	}
	d, err := prepare(ctx, pairs, seeds, opt.Workers)
	if err != nil {
		return nil, err
	}
	res := &Result{Seeds: d.info}
	p := newPlan(d, &opt)
	for si, rs := range opt.RunSeeds {
		folds, err := p.runSeed(si, rs)
		if err != nil {
			return nil, err
		}
		res.Folds = append(res.Folds, folds...)
	}
	if res.Predictions, err = runJobs(ctx, d, p.jobs, &opt); err != nil {
		return nil, err
	}
	res.Predictions = append(res.Predictions, LengthRule(d.info)...)
	rep, err := Analyze(ctx, res.Predictions, d.info, AnalyzeOptions{Bootstrap: opt.Bootstrap, Conf: opt.Conf})
	if err != nil {
		return nil, err
	}
	rep.Config = Config{Folds: opt.Folds, RunSeeds: opt.RunSeeds, Stratified: !opt.Unstratified, Models: opt.Models, Trees: opt.Trees,
		Bootstrap: opt.Bootstrap, Conf: opt.Conf}
	rep.Data = DataSummary{Pairs: len(pairs), MeasuredPairs: len(d.pairs), Seeds: len(seeds), MeasuredSeeds: len(d.seeds), Skipped: d.skipped}
	rep.FoldStats = p.stats
	res.Report = rep
	return res, nil
}

// plan lists Run's fits, run seed by run seed, with the training data of
// each fold.
type plan struct {
	d        *data
	opt      *Options
	seedIdx  map[string]int // seed bug_id → index
	all      []int          // every pair
	allSeeds []int          // every seed
	jobs     []job
	stats    []FoldStat
}

func newPlan(d *data, opt *Options) *plan {
	p := &plan{d: d, opt: opt, seedIdx: map[string]int{}, all: make([]int, len(d.pairs)), allSeeds: make([]int, len(d.seeds))}
	for i, s := range d.seeds {
		p.seedIdx[s.BugID] = i
	}
	for i := range p.all {
		p.all[i] = i
	}
	for i := range p.allSeeds {
		p.allSeeds[i] = i
	}
	return p
}

// runSeed plans the fits of run seed rs (the si-th): every fold's, then
// the leaky diagnostic; the sweeps run under the first seed only. It
// returns the seed's fold assignment.
func (p *plan) runSeed(si int, rs uint64) ([]FoldAssignment, error) {
	opt := p.opt
	folds, err := MakeFolds(p.d.seeds, opt.Folds, rs, !opt.Unstratified)
	if err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	for f := range opt.Folds {
		p.fold(si == 0, rs, f, folds)
	}
	if !opt.NoLeaky {
		p.jobs = append(p.jobs, job{Isolated, ModelRF, NoType, Leaky, 0, rs, -1, p.all, p.allSeeds, false})
	}
	if si == 0 && !opt.NoSweep && !opt.NoLeaky {
		r := rand.New(rand.NewPCG(rs, 999))
		for _, n := range sweepSizes(opt.Sweep, len(p.d.pairs)) {
			p.jobs = append(p.jobs, job{Isolated, ModelRF, NoType, SweepLeaky, n, rs, -1, subsample(r, p.all, n), p.allSeeds, false})
		}
	}
	return folds, nil
}

// fold plans the fits of fold f: its seeds are the test set and the
// pairs grounded in none of their source bugs the training set, for every
// task, model and feature set; then the real-to-real baseline and, with
// sweep, the training-size sweep.
func (p *plan) fold(sweep bool, rs uint64, f int, folds []FoldAssignment) {
	opt := p.opt
	held, test := p.heldOut(f, folds)
	keep, dropped := Exclude(p.d.prov, held)
	p.stats = append(p.stats, FoldStat{RunSeed: rs, Fold: f, SourceBugs: len(held), RealPairs: len(test), TrainPairs: len(keep), Dropped: dropped})
	if len(keep) == 0 {
		return
	}
	for _, task := range []string{Isolated, PairTask} {
		for _, m := range opt.Models {
			for _, feat := range []string{NoType, WithType} {
				p.jobs = append(p.jobs, job{task, m, feat, LeaveSeedsOut, 0, rs, f, keep, test, false})
			}
		}
	}
	if !opt.NoRealCV {
		var train []int
		for i, s := range p.d.seeds {
			if !held[s.SourceBug] {
				train = append(train, i)
			}
		}
		p.jobs = append(p.jobs, job{PairTask, ModelLR, NoType, RealCV, 0, rs, f, train, test, true})
	}
	if sweep && !opt.NoSweep {
		r := rand.New(rand.NewPCG(rs, uint64(1000+f)))
		for _, n := range sweepSizes(opt.Sweep, len(p.d.pairs)) {
			p.jobs = append(p.jobs, job{Isolated, ModelRF, NoType, SweepControlled, n, rs, f, subsample(r, keep, n), test, false})
		}
	}
}

// heldOut is fold f's source bugs and its seeds' indices, sorted.
func (p *plan) heldOut(f int, folds []FoldAssignment) (map[string]bool, []int) {
	held := map[string]bool{}
	var test []int
	for _, a := range folds {
		if a.Fold == f {
			held[a.SourceBug] = true
			for _, id := range a.BugIDs {
				test = append(test, p.seedIdx[id])
			}
		}
	}
	slices.Sort(test)
	return held, test
}

// runJobs fits every job, opt.Workers at a time, and returns their
// predictions in job order.
func runJobs(ctx context.Context, d *data, jobs []job, opt *Options) ([]Prediction, error) {
	out := make([][]Prediction, len(jobs))
	errc := make([]error, len(jobs))
	var mu sync.Mutex
	done := 0
	// Every job runs even when one fails (fn keeps its error), so the
	// error reported is the first in job order, the same on every run.
	err := step.EachIndex(ctx, opt.Workers, len(jobs), func(ctx context.Context, i int) error {
		out[i], errc[i] = fit(ctx, d, jobs[i], opt.Trees)
		if opt.Progress != nil {
			mu.Lock()
			done++
			opt.Progress(done, len(jobs))
			mu.Unlock()
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	var preds []Prediction
	for i, e := range errc {
		if e != nil {
			j := jobs[i]
			return nil, fmt.Errorf("evaluate: %s %s (%s, %s) run seed %d fold %d: %w", j.task, j.model, j.features, j.training, j.runSeed, j.fold, e)
		}
		preds = append(preds, out[i]...)
	}
	return preds, nil
}

func sweepSizes(sizes []int, n int) []int {
	var out []int
	for _, s := range sizes {
		if s > 0 && s < n {
			out = append(out, s)
		}
	}
	return append(out, n)
}

// subsample draws min(n, len(idx)) indices without replacement, sorted.
func subsample(r *rand.Rand, idx []int, n int) []int {
	if n >= len(idx) {
		return idx
	}
	p := r.Perm(len(idx))[:n]
	out := make([]int, n)
	for i, k := range p {
		out[i] = idx[k]
	}
	slices.Sort(out)
	return out
}

func fit(ctx context.Context, d *data, j job, trees int) ([]Prediction, error) {
	X, y := trainingRows(d, j)
	TX, preds := testRows(d, j)
	model, scale, err := newModel(j.model, trees, j.runSeed*1_000_003+uint64(j.fold+1))
	if err != nil {
		return nil, err
	}
	if scale {
		if X, TX, err = standardize(X, TX); err != nil {
			return nil, err
		}
	}
	if err := model.Fit(ctx, X, y); err != nil {
		return nil, err
	}
	p := model.PredictProba(TX)
	for i := range preds {
		if math.IsNaN(p[i]) {
			return nil, fmt.Errorf("model returned NaN for seed %s", preds[i].BugID)
		}
		preds[i].Score = p[i]
	}
	return preds, nil
}

// trainingRows are job j's training rows, two per pair or seed: the
// buggy method (label 1) and the fixed one, alone or ordered in a pair.
func trainingRows(d *data, j job) ([][]float64, []int) {
	withType := j.features == WithType
	var X [][]float64
	var y []int
	for _, i := range j.train {
		var m [2]fidelity.Measured
		var typ string
		if j.real {
			m, typ = d.sm[i], d.seeds[i].Exception
		} else {
			m, typ = d.pm[i], d.pairs[i].ErrorType
		}
		if j.task == Isolated {
			X = append(X, isoRow(m[0], typ, withType), isoRow(m[1], typ, withType))
		} else {
			X = append(X, pairRow(m[0], m[1], typ, withType), pairRow(m[1], m[0], typ, withType))
		}
		y = append(y, 1, 0)
	}
	return X, y
}

// testRows are job j's rows of the test seeds with the prediction each
// row will score.
func testRows(d *data, j job) ([][]float64, []Prediction) {
	withType := j.features == WithType
	var TX [][]float64
	var preds []Prediction
	for _, i := range j.test {
		s := d.seeds[i]
		add := func(row []float64, side, order string, label int) {
			TX = append(TX, row)
			preds = append(preds, Prediction{Task: j.task, Model: j.model, Features: j.features, Training: j.training, TrainSize: j.trainSize,
				RunSeed: j.runSeed, Fold: j.fold, BugID: s.BugID, Side: side, Order: order, Label: label})
		}
		m := d.sm[i]
		if j.task == Isolated {
			add(isoRow(m[0], s.Exception, withType), "buggy", "", 1)
			add(isoRow(m[1], s.Exception, withType), "fixed", "", 0)
		} else {
			add(pairRow(m[0], m[1], s.Exception, withType), "", BuggyFirst, 1)
			add(pairRow(m[1], m[0], s.Exception, withType), "", FixedFirst, 0)
		}
	}
	return TX, preds
}

// standardize scales the training and test rows by the training rows'
// standardizer.
func standardize(X, TX [][]float64) ([][]float64, [][]float64, error) {
	st, err := ml.FitStandardizer(X)
	if err != nil {
		return nil, nil, err
	}
	if X, err = st.Transform(X); err != nil {
		return nil, nil, err
	}
	if TX, err = st.Transform(TX); err != nil {
		return nil, nil, err
	}
	return X, TX, nil
}

// LengthRule is the parameter-free repair-length sign rule of §7.4.5: the
// longer method (in tokens) is the repair, so P(first is defective) is 1
// when the first is shorter, 0 when longer and ½ on a tie.
func LengthRule(seeds []SeedInfo) []Prediction {
	var out []Prediction
	for _, s := range seeds {
		score := 0.5
		switch {
		case s.BuggyTokens < s.FixedTokens:
			score = 1
		case s.BuggyTokens > s.FixedTokens:
			score = 0
		}
		base := Prediction{Task: PairTask, Model: ModelLengthRule, Features: "tokens", Training: NoTraining, BugID: s.BugID}
		a, b := base, base
		a.Order, a.Label, a.Score = BuggyFirst, 1, score
		b.Order, b.Label, b.Score = FixedFirst, 0, 1-score
		out = append(out, a, b)
	}
	return out
}
