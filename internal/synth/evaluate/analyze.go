package evaluate

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/stats"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// AnalyzeOptions configures Analyze.
type AnalyzeOptions struct {
	Bootstrap int     // pair-cluster bootstrap resamples [10,000]
	Conf      float64 // interval level [0.95]
}

// Config records how a Run was configured.
type Config struct {
	Folds      int      `json:"folds"`
	RunSeeds   []uint64 `json:"run_seeds"`
	Stratified bool     `json:"stratified"`
	Models     []string `json:"models"`
	Trees      int      `json:"trees"`
	Bootstrap  int      `json:"bootstrap"`
	Conf       float64  `json:"conf"`
	// Zero-shot probes: model ids and the prompts they were asked.
	Probes          []string `json:"probes,omitempty"`
	ProbePrompt     string   `json:"probe_prompt,omitempty"`
	ProbePromptHash string   `json:"probe_prompt_hash,omitempty"`
}

// DataSummary counts the inputs and lists what could not be measured.
type DataSummary struct {
	Pairs         int      `json:"pairs"`
	MeasuredPairs int      `json:"measured_pairs"`
	Seeds         int      `json:"seeds"`
	MeasuredSeeds int      `json:"measured_seeds"`
	Skipped       []string `json:"skipped"`
}

// Report is the evaluation's statistics, computed by Analyze from
// predictions and seed infos alone; every table is rendered from it.
type Report struct {
	Config    Config      `json:"config"`
	Data      DataSummary `json:"data"`
	FoldStats []FoldStat  `json:"fold_stats"`
	Results   []ResultRow `json:"results"`
	PerType   []TypeRow   `json:"per_type"`
	// ResidualPairs is the size of the §7.4.5 no-growth stratum.
	ResidualPairs int `json:"residual_pairs"`
	RealPairs     int `json:"real_pairs"`
	// SmallSampleWarnings (SmallSamples) name the groups evaluated on
	// fewer than MinGroupPairs pairs: shown, but unreliable.
	SmallSampleWarnings []string `json:"small_sample_warnings,omitempty"`
	// Probes are the zero-shot probe rows (Tables 13 and 18), from the
	// probe answers alone (see ProbeAnalysis).
	Probes []ProbeRow `json:"probes,omitempty"`
}

// Key identifies a model configuration.
type Key struct {
	Task      string `json:"task"`
	Model     string `json:"model"`
	Features  string `json:"features"`
	Training  string `json:"training"`
	TrainSize int    `json:"train_size,omitempty"`
}

func keyOf(p Prediction) Key { return Key{p.Task, p.Model, p.Features, p.Training, p.TrainSize} }

// RunMetric is one run seed's out-of-fold result. Value is ROC-AUC over
// the real methods (isolated) or the 2AFC accuracy over both orderings of
// every real pair (pair). The threshold rates (isolated, P ≥ 0.5 called
// defective) and the position-conditional accuracies (pair) are there for
// the zero-shot tables (13, 18).
type RunMetric struct {
	RunSeed uint64          `json:"run_seed"`
	N       int             `json:"n"` // real pairs scored
	Value   float64         `json:"value"`
	CI      *stats.Interval `json:"ci,omitempty"` // pair-cluster bootstrap
	// Pair task.
	Residual      *float64 `json:"residual,omitempty"`
	ResidualN     int      `json:"residual_n,omitempty"`
	AccBuggyFirst float64  `json:"acc_buggy_first,omitempty"`
	AccFixedFirst float64  `json:"acc_fixed_first,omitempty"`
	// Isolated task, at threshold 0.5.
	Accuracy    float64 `json:"accuracy,omitempty"`
	Specificity float64 `json:"specificity,omitempty"`
	Recall      float64 `json:"recall,omitempty"`
	Precision   float64 `json:"precision,omitempty"`
	F1          float64 `json:"f1,omitempty"`
}

// ResultRow summarises one configuration over its run seeds: mean, sample
// sd and Student t interval of the per-seed values, clipped to [0, 1] (sd
// and interval need two or more seeds), Cohen's h of the mean pair accuracy against chance,
// and the mean residual-stratum accuracy.
type ResultRow struct {
	Key
	Metric       string          `json:"metric"` // roc_auc | accuracy
	Runs         []RunMetric     `json:"runs"`
	Mean         float64         `json:"mean"`
	SD           *float64        `json:"sd,omitempty"`
	CI           *stats.Interval `json:"ci,omitempty"`
	CohensH      *float64        `json:"cohens_h,omitempty"`
	ResidualMean *float64        `json:"residual_mean,omitempty"`
}

// TypeRow is an exploratory per-type result (Tables 12, 16 shape),
// pooled over run seeds; pair rows carry a pair-cluster bootstrap
// interval. No type-wise test is made (§7.4.3).
type TypeRow struct {
	Key
	Type  string          `json:"type"`
	Pairs int             `json:"pairs"`
	Value float64         `json:"value"`
	CI    *stats.Interval `json:"ci,omitempty"`
}

// Analyze computes the report from predictions. seeds must describe every
// bug_id the predictions name.
func Analyze(ctx context.Context, preds []Prediction, seeds []SeedInfo, opt AnalyzeOptions) (*Report, error) {
	if opt.Bootstrap == 0 {
		opt.Bootstrap = 10000
	}
	if opt.Conf == 0 {
		opt.Conf = 0.95
	}
	info := map[string]SeedInfo{}
	rep := &Report{RealPairs: len(seeds)}
	for _, s := range seeds {
		info[s.BugID] = s
		if !s.Grows() {
			rep.ResidualPairs++
		}
	}
	groups, keys, err := groupPredictions(preds, info)
	if err != nil {
		return nil, err
	}
	bopt := stats.BootstrapOptions{B: opt.Bootstrap, Conf: opt.Conf}
	for _, k := range keys {
		row, err := resultRow(ctx, k, groups[k], info, bopt)
		if err != nil {
			return nil, err
		}
		rep.Results = append(rep.Results, row)
		if k.TrainSize == 0 && k.Training != Leaky {
			trs, err := perType(ctx, k, groups[k], info, bopt)
			if err != nil {
				return nil, fmt.Errorf("analyze per type %s/%s: %w", k.Task, k.Model, err)
			}
			rep.PerType = append(rep.PerType, trs...)
		}
	}
	return rep, nil
}

// groupPredictions groups the predictions by configuration and run seed;
// the configurations come sorted (compareKeys).
func groupPredictions(preds []Prediction, info map[string]SeedInfo) (map[Key]map[uint64][]Prediction, []Key, error) {
	groups := map[Key]map[uint64][]Prediction{}
	var keys []Key
	for i, p := range preds {
		if _, ok := info[p.BugID]; !ok {
			return nil, nil, fmt.Errorf("analyze: prediction %d: %w: bug_id %q is not among the seeds", i+1, errs.ErrInput, p.BugID)
		}
		k := keyOf(p)
		if groups[k] == nil {
			groups[k] = map[uint64][]Prediction{}
			keys = append(keys, k)
		}
		groups[k][p.RunSeed] = append(groups[k][p.RunSeed], p)
	}
	slices.SortFunc(keys, compareKeys)
	return groups, keys, nil
}

// sortedRunSeeds are byRun's run seeds in order.
func sortedRunSeeds(byRun map[uint64][]Prediction) []uint64 {
	var runSeeds []uint64
	for rs := range byRun {
		runSeeds = append(runSeeds, rs)
	}
	slices.Sort(runSeeds)
	return runSeeds
}

// resultRow is configuration k's row: its metric per run seed (ROC-AUC
// for the isolated task, accuracy for the pair task) and their summary.
func resultRow(ctx context.Context, k Key, byRun map[uint64][]Prediction, info map[string]SeedInfo, bopt stats.BootstrapOptions) (ResultRow, error) {
	row := ResultRow{Key: k, Metric: "roc_auc", Runs: []RunMetric{}}
	if k.Task == PairTask {
		row.Metric = "accuracy"
	}
	var vals, resid []float64
	for _, rs := range sortedRunSeeds(byRun) {
		ps := byRun[rs]
		var m RunMetric
		var err error
		if k.Task == PairTask {
			bopt.Seed = rs
			m, err = pairMetric(ctx, ps, info, bopt)
		} else {
			m, err = isoMetric(ps)
		}
		if err != nil {
			return row, fmt.Errorf("analyze %s/%s/%s/%s run seed %d: %w", k.Task, k.Model, k.Features, k.Training, rs, err)
		}
		m.RunSeed = rs
		row.Runs = append(row.Runs, m)
		vals = append(vals, m.Value)
		if m.Residual != nil {
			resid = append(resid, *m.Residual)
		}
	}
	if err := row.summarize(vals, resid, bopt.Conf); err != nil {
		return row, err
	}
	return row, nil
}

// summarize sets the row's mean of the per-seed values vals, its sd and
// interval, Cohen's h for the pair task, and the mean residual accuracy.
func (row *ResultRow) summarize(vals, resid []float64, conf float64) error {
	row.Mean, _ = stats.Mean(vals)
	if len(vals) >= 2 {
		mi, err := stats.MeanCI(vals, conf)
		if err != nil {
			return fmt.Errorf("analyze: %w", err)
		}
		// ROC-AUC and accuracy live in [0, 1]; with few run seeds the
		// t quantile is large (12.7 for two), so the interval is
		// clipped to that range rather than shown past it.
		sd, ci := mi.SD, mi.CI
		ci.Lo, ci.Hi = max(ci.Lo, 0), min(ci.Hi, 1)
		row.SD, row.CI = &sd, &ci
	}
	if row.Task == PairTask {
		h, err := stats.CohensH(row.Mean, 0.5)
		if err != nil {
			return fmt.Errorf("analyze: %w", err)
		}
		row.CohensH = &h
	}
	if len(resid) > 0 {
		m, _ := stats.Mean(resid)
		row.ResidualMean = &m
	}
	return nil
}

func compareKeys(a, b Key) int {
	rank := func(t string) int {
		return slices.Index([]string{LeaveSeedsOut, NoTraining, RealCV, Leaky, SweepControlled, SweepLeaky}, t)
	}
	return cmp.Or(cmp.Compare(a.Task, b.Task), cmp.Compare(rank(a.Training), rank(b.Training)), cmp.Compare(a.Training, b.Training),
		cmp.Compare(a.TrainSize, b.TrainSize), cmp.Compare(a.Model, b.Model), cmp.Compare(a.Features, b.Features))
}

func isoMetric(ps []Prediction) (RunMetric, error) {
	scores := make([]float64, len(ps))
	labels := make([]bool, len(ps))
	var c confusion
	pairs := map[string]bool{}
	for i, p := range ps {
		scores[i], labels[i] = p.Score, p.Label == 1
		pairs[p.BugID] = true
		c.add(p.Score >= 0.5, p.Label == 1)
	}
	auc, err := stats.AUC(scores, labels)
	if err != nil {
		return RunMetric{}, err
	}
	m := RunMetric{N: len(pairs), Value: auc, Accuracy: (c.tp + c.tn) / float64(len(ps))}
	m.Specificity, m.Recall, m.Precision = share(c.tn, c.fp), share(c.tp, c.fn), share(c.tp, c.fp)
	if m.Precision+m.Recall > 0 {
		m.F1 = 2 * m.Precision * m.Recall / (m.Precision + m.Recall)
	}
	return m, nil
}

// confusion counts the isolated task's outcomes at one threshold.
type confusion struct{ tp, fp, tn, fn float64 }

func (c *confusion) add(predicted, actual bool) {
	switch {
	case predicted && actual:
		c.tp++
	case predicted:
		c.fp++
	case actual:
		c.fn++
	default:
		c.tn++
	}
}

// share is a/(a+b), 0 when both are 0.
func share(a, b float64) float64 {
	if a+b > 0 {
		return a / (a + b)
	}
	return 0
}

type scored struct {
	bug string
	v   float64
}

func meanScored(xs []scored) float64 {
	s := 0.0
	for _, x := range xs {
		s += x.v
	}
	return s / float64(len(xs))
}

// pairAccuracy is the accuracy over orderings with the pair-cluster
// bootstrap interval (both orderings of a pair resampled together).
func pairAccuracy(ctx context.Context, xs []scored, bopt stats.BootstrapOptions) (float64, *stats.Interval, error) {
	acc := meanScored(xs)
	clusters := map[string]bool{}
	for _, x := range xs {
		clusters[x.bug] = true
	}
	if len(clusters) < 2 {
		return acc, nil, nil
	}
	b, err := stats.ClusterBootstrap(ctx, xs, func(x scored) string { return x.bug }, meanScored, bopt)
	if err != nil {
		return 0, nil, err
	}
	return acc, &b.CI, nil
}

func pairMetric(ctx context.Context, ps []Prediction, info map[string]SeedInfo, bopt stats.BootstrapOptions) (RunMetric, error) {
	var all, resid []scored
	var a, b []float64
	pairs := map[string]bool{}
	rpairs := map[string]bool{}
	for _, p := range ps {
		c := correct(p)
		all = append(all, scored{p.BugID, c})
		pairs[p.BugID] = true
		if !info[p.BugID].Grows() {
			resid = append(resid, scored{p.BugID, c})
			rpairs[p.BugID] = true
		}
		if p.Order == BuggyFirst {
			a = append(a, c)
		} else {
			b = append(b, c)
		}
	}
	acc, ci, err := pairAccuracy(ctx, all, bopt)
	if err != nil {
		return RunMetric{}, err
	}
	m := RunMetric{N: len(pairs), Value: acc, CI: ci, ResidualN: len(rpairs)}
	if len(resid) > 0 {
		r := meanScored(resid)
		m.Residual = &r
	}
	if len(a) > 0 {
		m.AccBuggyFirst, _ = stats.Mean(a)
	}
	if len(b) > 0 {
		m.AccFixedFirst, _ = stats.Mean(b)
	}
	return m, nil
}

func perType(ctx context.Context, k Key, byRun map[uint64][]Prediction, info map[string]SeedInfo, bopt stats.BootstrapOptions) ([]TypeRow, error) {
	runSeeds := sortedRunSeeds(byRun)
	bopt.Seed = 0
	var out []TypeRow
	for _, typ := range corpus.Types {
		var ps []Prediction
		for _, rs := range runSeeds {
			for _, p := range byRun[rs] {
				if info[p.BugID].Exception == typ {
					ps = append(ps, p)
				}
			}
		}
		if len(ps) == 0 {
			continue
		}
		row := TypeRow{Key: k, Type: typ}
		if k.Task == PairTask {
			var err error
			if row.Pairs, row.Value, row.CI, err = pooledAccuracy(ctx, ps, bopt); err != nil {
				return nil, err
			}
		} else {
			m, err := isoMetric(ps)
			if err != nil {
				continue // one class only: no AUC for this type
			}
			row.Pairs, row.Value = m.N, m.Value
		}
		out = append(out, row)
	}
	return out, nil
}

// pooledAccuracy is the pair accuracy of predictions pooled over run
// seeds, with the pairs it covers and its pair-cluster interval.
func pooledAccuracy(ctx context.Context, ps []Prediction, bopt stats.BootstrapOptions) (int, float64, *stats.Interval, error) {
	xs := make([]scored, len(ps))
	pairs := map[string]bool{}
	for i, p := range ps {
		xs[i] = scored{p.BugID, correct(p)}
		pairs[p.BugID] = true
	}
	acc, ci, err := pairAccuracy(ctx, xs, bopt)
	if err != nil {
		return 0, 0, nil, err
	}
	return len(pairs), acc, ci, nil
}
