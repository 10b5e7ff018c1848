package testbed

import (
	"fmt"
	"math"
	"slices"

	"github.com/benchforge/benchforge/internal/audit/baselines"
	"github.com/benchforge/benchforge/internal/audit/repoprobe"
	"github.com/benchforge/benchforge/internal/ngram"
	"github.com/benchforge/benchforge/internal/stats"
)

// Result is a testbed run: per seed and capacity the per-repository
// outcomes and summaries, and the tables pooled over seeds.
type Result struct {
	Manifest    string          `json:"manifest"`
	Alpha       float64         `json:"alpha"`
	Seeds       []uint64        `json:"seeds"`
	Capacities  []Capacity      `json:"capacities"`
	Composition []Composition   `json:"composition"` // per seed
	Runs        []*CapacityRun  `json:"runs"`
	Table       []Row           `json:"table"`       // per capacity and configuration, over seeds
	Baselines   []BaselineRow   `json:"baselines"`   // per capacity and method, over seeds
	Calibration []Calibration   `json:"calibration"` // per capacity and configuration
	Sequential  []SequentialRow `json:"sequential"`  // per capacity
	Checks      []Check         `json:"checks"`      // the targets, measured
	WallSeconds float64         `json:"wall_seconds"`
}

// Composition is what one seed's testbed holds.
type Composition struct {
	Seed            uint64      `json:"seed"`
	Repos           []RepoEntry `json:"repos"`
	Members         int         `json:"members"`
	NonMembers      int         `json:"nonmembers"` // controls included
	Controls        int         `json:"controls"`
	Background      int         `json:"background_repos"`
	BackgroundDocs  int         `json:"background_docs"`
	BackgroundBytes int64       `json:"background_bytes"`
	// CrawlDocs and CrawlBytes are the earlier snapshots the target
	// reads (Manifest.Snapshots; 0 without).
	CrawlDocs  int   `json:"crawl_docs,omitempty"`
	CrawlBytes int64 `json:"crawl_bytes,omitempty"`
	index      [][]repoprobe.File
}

// RepoEntry is one repository of a composition.
type RepoEntry struct {
	Repo    string `json:"repo"`
	Commit  string `json:"commit"`
	Role    string `json:"role"`
	Files   int    `json:"files"`
	Control bool   `json:"control,omitempty"`
	Note    string `json:"note,omitempty"`
}

func (c *Composition) add(e Entry, files int, control bool, note string) {
	c.Repos = append(c.Repos, RepoEntry{Repo: e.Repo, Commit: e.Commit, Role: e.Role, Files: files, Control: control, Note: note})
	if note != "" {
		return
	}
	switch e.Role {
	case RoleMember:
		c.Members++
	case RoleNonMember:
		c.NonMembers++
		if control {
			c.Controls++
		}
	case RoleBackground:
		c.Background++
	}
}

// CapacityRun is one target (seed × capacity).
type CapacityRun struct {
	Seed         uint64            `json:"seed"`
	Capacity     Capacity          `json:"capacity"`
	Target       ngram.Stats       `json:"target"`
	TrainSeconds float64           `json:"train_seconds"` // target plus the seed's two references
	ProbeSeconds float64           `json:"probe_seconds"`
	Repos        []RepoResult      `json:"repos"`
	Summary      []ConfigSummary   `json:"summary"`
	Baselines    []BaselineSummary `json:"baselines"`
}

// RepoResult is one repository's outcome under one target.
type RepoResult struct {
	Name      string                           `json:"name"`
	Repo      string                           `json:"repo"`
	Role      string                           `json:"role"`
	Control   bool                             `json:"control,omitempty"`
	Fold      int                              `json:"fold"`
	Files     int                              `json:"files"`
	Select    map[string]repoprobe.SelectStats `json:"select"`
	Verdicts  map[string]repoprobe.RepoVerdict `json:"verdicts"`
	Baselines *baselines.Scores                `json:"baselines"`
	// RefCrossfit is Ref against the repository's cross-fitted reference
	// (never trained on it); Baselines.Ref is against the small one.
	RefCrossfit *float64 `json:"ref_crossfit,omitempty"`
}

// MethodRefCrossfit is the Ref baseline against the cross-fitted
// reference, an oracle reported beside the realistic baselines.
const MethodRefCrossfit = "ref-crossfit"

// baselineMethods are the logit baselines the testbed reports:
// baselines.Methods and the oracle Ref.
var baselineMethods = append(slices.Clone(baselines.Methods), MethodRefCrossfit)

// membership is a repository's score under a baseline, higher meaning
// more likely a member.
func (r RepoResult) membership(method string) (float64, bool) {
	if method == MethodRefCrossfit {
		if r.RefCrossfit == nil {
			return 0, false
		}
		return -*r.RefCrossfit, true
	}
	if r.Baselines == nil {
		return 0, false
	}
	v, ok := r.Baselines.Membership()[method]
	return v, ok
}

// ConfigSummary scores one configuration of one target: AUC of −log10 p
// (insufficient counts as p = 1; the sequential configuration ranks by
// log10 of its e-value at stopping instead), TPR/FPR of the verdict at α.
type ConfigSummary struct {
	Config string   `json:"config"`
	AUC    *float64 `json:"auc"`
	TPR    float64  `json:"tpr"`
	FPR    float64  `json:"fpr"`
	P0     float64  `json:"p0"`
	// OwnP0 is P0 recalibrated on the controls under this configuration;
	// TPROwnP0 and FPROwnP0 are the fixed-n verdicts at it (zero for the
	// sequential configuration, whose p-value is not Eq. 5).
	OwnP0    float64            `json:"own_p0"`
	TPROwnP0 float64            `json:"tpr_own_p0"`
	FPROwnP0 float64            `json:"fpr_own_p0"`
	Calls    int                `json:"calls"`
	Repos    int                `json:"repos"`
	ROC      []stats.ROCPoint   `json:"roc"`
	p        map[string]float64 // p-value by repository, non-members only
}

// BaselineSummary scores one logit baseline of one target. TPR and FPR
// are at the Youden-optimal threshold chosen on the scored repositories
// themselves, which favours the baseline.
type BaselineSummary struct {
	Method string           `json:"method"`
	AUC    *float64         `json:"auc"`
	TPR    float64          `json:"tpr"`
	FPR    float64          `json:"fpr"`
	ROC    []stats.ROCPoint `json:"roc"`
}

func (cr *CapacityRun) summarize(rest []int, p0, own map[string]float64, alpha float64) {
	for _, c := range ecoConfigs {
		cr.Summary = append(cr.Summary, cr.configSummary(c, rest, p0[c], own[c], alpha))
	}
	for _, m := range baselineMethods {
		cr.Baselines = append(cr.Baselines, cr.baselineSummary(m, rest))
	}
}

// configSummary scores configuration c over the repositories rest.
func (cr *CapacityRun) configSummary(c string, rest []int, p0, own, alpha float64) ConfigSummary {
	s := ConfigSummary{Config: c, P0: p0, OwnP0: own, Repos: len(rest), p: map[string]float64{}}
	var scores []float64
	var labels []bool
	pos, neg, tp, fp, tpOwn, fpOwn := 0, 0, 0, 0, 0, 0
	for _, i := range rest {
		r := cr.Repos[i]
		v := r.Verdicts[c]
		s.Calls += v.Calls
		member := r.Role == RoleMember
		scores = append(scores, evidence(c, v))
		labels = append(labels, member)
		atOwn := c != ConfigSequential && s.OwnP0 > 0 && v.Verdict != repoprobe.Insufficient &&
			repoprobe.PValue(v.WeightedHits, v.Queries, s.OwnP0) <= alpha
		if member {
			pos, tp, tpOwn = pos+1, tp+b2i(v.Present), tpOwn+b2i(atOwn)
		} else {
			neg, fp, fpOwn = neg+1, fp+b2i(v.Present), fpOwn+b2i(atOwn)
			s.p[r.Name] = v.PValue
		}
	}
	s.AUC, s.ROC = auc(scores, labels)
	s.TPR, s.FPR = ratio(tp, pos), ratio(fp, neg)
	s.TPROwnP0, s.FPROwnP0 = ratio(tpOwn, pos), ratio(fpOwn, neg)
	return s
}

// evidence is a verdict's score for the ROC: −log10 p, or for the
// sequential design the log10 of its e-value where it stopped
// (RepoVerdict.EValue), since its always-valid p-value ties at 1 for most
// repositories that are not present.
func evidence(c string, v repoprobe.RepoVerdict) float64 {
	if c == ConfigSequential && v.Verdict != repoprobe.Insufficient {
		return math.Log10(max(v.EValue, 1e-300))
	}
	return -math.Log10(max(v.PValue, 1e-300))
}

// baselineSummary scores baseline m over the repositories rest.
func (cr *CapacityRun) baselineSummary(m string, rest []int) BaselineSummary {
	var scores []float64
	var labels []bool
	for _, i := range rest {
		if v, ok := cr.Repos[i].membership(m); ok {
			scores = append(scores, v)
			labels = append(labels, cr.Repos[i].Role == RoleMember)
		}
	}
	b := BaselineSummary{Method: m}
	b.AUC, b.ROC = auc(scores, labels)
	if y, err := stats.Youden(scores, labels); err == nil {
		b.TPR, b.FPR = y.TPR, y.FPR
	}
	return b
}

func auc(scores []float64, labels []bool) (*float64, []stats.ROCPoint) {
	a, err := stats.AUC(scores, labels)
	if err != nil {
		return nil, nil
	}
	roc, _ := stats.ROC(scores, labels)
	return &a, roc
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func ratio(k, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(k) / float64(n)
}

// Row is one configuration of one capacity pooled over seeds: AUC per
// seed (mean, min, max), TPR and FPR pooled over every seed's
// repositories, calls summed.
type Row struct {
	Capacity string  `json:"capacity"`
	Config   string  `json:"config"`
	AUCMean  float64 `json:"auc_mean"`
	AUCMin   float64 `json:"auc_min"`
	AUCMax   float64 `json:"auc_max"`
	TPR      float64 `json:"tpr"`
	FPR      float64 `json:"fpr"`
	Calls    int     `json:"calls"`
	Seeds    int     `json:"seeds"`
	// P0 is the mean over seeds of the P0 used (the full method's); the
	// OwnP0 fields are at P0 recalibrated per configuration (mean over
	// seeds; every seed scores the same repositories).
	P0       float64 `json:"p0_mean"`
	OwnP0    float64 `json:"own_p0_mean"`
	TPROwnP0 float64 `json:"tpr_own_p0"`
	FPROwnP0 float64 `json:"fpr_own_p0"`
	// HitsMembers and HitsNonMembers are the shares of probed queries hit
	// (pooled over seeds, controls excluded): what an ablation does to the
	// members' hit rate and to the null's, beside P0 (benchchecker §5.4
	// explains Table 5 by exactly these rates).
	HitsMembers    float64 `json:"hit_rate_members"`
	HitsNonMembers float64 `json:"hit_rate_nonmembers"`
}

// BaselineRow is one baseline of one capacity over seeds.
type BaselineRow struct {
	Capacity string  `json:"capacity"`
	Method   string  `json:"method"`
	AUCMean  float64 `json:"auc_mean"`
	AUCMin   float64 `json:"auc_min"`
	AUCMax   float64 `json:"auc_max"`
	TPR      float64 `json:"tpr"` // mean over seeds, at each seed's Youden threshold
	FPR      float64 `json:"fpr"`
}

// Calibration is the share of non-members (controls excluded, pooled
// over seeds) with p ≤ Level, with its 95% Clopper–Pearson interval. A
// well calibrated test has Share ≤ Level; Flag says when it is not
// ("above α": the share exceeds it; "significantly above α": the whole
// interval does).
type Calibration struct {
	Capacity   string         `json:"capacity"`
	Config     string         `json:"config"`
	Level      float64        `json:"level"`
	NonMembers int            `json:"nonmembers"`
	Rejected   int            `json:"rejected"`
	Share      float64        `json:"share"`
	CI         stats.Interval `json:"ci95"`
	Flag       string         `json:"flag,omitempty"`
}

// SequentialRow compares sequential stopping with fixed-n probing.
type SequentialRow struct {
	Capacity      string  `json:"capacity"`
	FixedCalls    int     `json:"fixed_calls"`
	SeqCalls      int     `json:"sequential_calls"`
	Fraction      float64 `json:"fraction"`
	FixedAUC      float64 `json:"fixed_auc_mean"`
	SeqAUC        float64 `json:"sequential_auc_mean"`
	SameVerdicts  int     `json:"same_verdicts"`
	TotalVerdicts int     `json:"verdicts"`
}

// Check is one target of the issue with the figure measured.
type Check struct {
	Name     string `json:"name"`
	Target   string `json:"target"`
	Measured string `json:"measured"`
	Pass     bool   `json:"pass"`
}

func (r *Result) runsOf(c Capacity) []*CapacityRun {
	var out []*CapacityRun
	for _, cr := range r.Runs {
		if cr.Capacity == c {
			out = append(out, cr)
		}
	}
	return out
}

// finish pools the runs into the tables and checks.
func (r *Result) finish(opts Options) {
	for _, c := range r.Capacities {
		runs := r.runsOf(c)
		for k, cfg := range ecoConfigs {
			r.Table = append(r.Table, pooledRow(c.Name, cfg, runs, k))
			if cfg != ConfigSequential {
				for _, lvl := range []float64{0.05, 0.01} {
					r.Calibration = append(r.Calibration, calibration(c.Name, cfg, lvl, runs, k))
				}
			}
		}
		for k, m := range baselineMethods {
			r.Baselines = append(r.Baselines, baselineRow(c.Name, m, runs, k))
		}
		r.Sequential = append(r.Sequential, sequentialRow(c.Name, runs))
	}
	r.Checks = checks(r)
}

func pooledRow(capacity, cfg string, runs []*CapacityRun, k int) Row {
	row := Row{Capacity: capacity, Config: cfg, AUCMin: math.Inf(1), AUCMax: math.Inf(-1)}
	pos, neg, tp, fp := 0, 0, 0, 0
	var hits, probed [2]int // non-members, members
	for _, cr := range runs {
		s := cr.Summary[k]
		if s.AUC != nil {
			row.AUCMean += *s.AUC
			row.AUCMin, row.AUCMax = math.Min(row.AUCMin, *s.AUC), math.Max(row.AUCMax, *s.AUC)
			row.Seeds++
		}
		row.Calls += s.Calls
		row.P0 += s.P0 / float64(len(runs))
		row.OwnP0 += s.OwnP0 / float64(len(runs))
		row.TPROwnP0 += s.TPROwnP0 / float64(len(runs))
		row.FPROwnP0 += s.FPROwnP0 / float64(len(runs))
		for _, rr := range cr.Repos {
			if rr.Control {
				continue
			}
			v := rr.Verdicts[cfg]
			present, m := v.Present, b2i(rr.Role == RoleMember)
			hits[m], probed[m] = hits[m]+v.Hits, probed[m]+v.Probed
			if rr.Role == RoleMember {
				pos, tp = pos+1, tp+b2i(present)
			} else {
				neg, fp = neg+1, fp+b2i(present)
			}
		}
	}
	if row.Seeds > 0 {
		row.AUCMean /= float64(row.Seeds)
	}
	row.TPR, row.FPR = ratio(tp, pos), ratio(fp, neg)
	row.HitsMembers, row.HitsNonMembers = ratio(hits[1], probed[1]), ratio(hits[0], probed[0])
	return row
}

func baselineRow(capacity, method string, runs []*CapacityRun, k int) BaselineRow {
	row := BaselineRow{Capacity: capacity, Method: method, AUCMin: math.Inf(1), AUCMax: math.Inf(-1)}
	n := 0
	for _, cr := range runs {
		b := cr.Baselines[k]
		if b.AUC == nil {
			continue
		}
		n++
		row.AUCMean += *b.AUC
		row.AUCMin, row.AUCMax = math.Min(row.AUCMin, *b.AUC), math.Max(row.AUCMax, *b.AUC)
		row.TPR += b.TPR
		row.FPR += b.FPR
	}
	if n > 0 {
		row.AUCMean, row.TPR, row.FPR = row.AUCMean/float64(n), row.TPR/float64(n), row.FPR/float64(n)
	}
	return row
}

func calibration(capacity, cfg string, level float64, runs []*CapacityRun, k int) Calibration {
	c := Calibration{Capacity: capacity, Config: cfg, Level: level}
	for _, cr := range runs {
		for _, p := range cr.Summary[k].p {
			c.NonMembers++
			if p <= level {
				c.Rejected++
			}
		}
	}
	c.Share = ratio(c.Rejected, c.NonMembers)
	if iv, err := stats.ClopperPearson(c.Rejected, c.NonMembers, 0.95); err == nil {
		c.CI = iv
	}
	switch {
	case c.CI.Lo > level:
		c.Flag = fmt.Sprintf("significantly above α = %g", level)
	case c.Share > level:
		c.Flag = fmt.Sprintf("above α = %g", level)
	}
	return c
}

func sequentialRow(capacity string, runs []*CapacityRun) SequentialRow {
	row := SequentialRow{Capacity: capacity}
	kFull, kSeq := slices.Index(Configs, ConfigFull), slices.Index(Configs, ConfigSequential)
	n := 0
	for _, cr := range runs {
		row.FixedCalls += cr.Summary[kFull].Calls
		row.SeqCalls += cr.Summary[kSeq].Calls
		if a, b := cr.Summary[kFull].AUC, cr.Summary[kSeq].AUC; a != nil && b != nil {
			row.FixedAUC += *a
			row.SeqAUC += *b
			n++
		}
		for _, rr := range cr.Repos {
			if rr.Control {
				continue
			}
			row.TotalVerdicts++
			if rr.Verdicts[ConfigFull].Verdict == rr.Verdicts[ConfigSequential].Verdict {
				row.SameVerdicts++
			}
		}
	}
	if n > 0 {
		row.FixedAUC, row.SeqAUC = row.FixedAUC/float64(n), row.SeqAUC/float64(n)
	}
	row.Fraction = ratio(row.SeqCalls, row.FixedCalls)
	return row
}
