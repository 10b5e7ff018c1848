package testbed

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/benchforge/benchforge/internal/audit/repoprobe"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/ngram"
	"github.com/benchforge/benchforge/internal/stats"
	"github.com/benchforge/benchforge/internal/step"
)

// Testbed configurations: the method, its sequential variant, and the
// Stage I ablations of benchchecker Table 5.
const (
	ConfigFull         = "benchchecker"
	ConfigSequential   = "benchchecker-sequential"
	ConfigNoRepetitive = "w/o-repetitiveness"
	ConfigNoDistinct   = "w/o-distinctiveness"
	ConfigNoContext    = "w/o-context-independence"
)

// Configs lists the configurations in report order.
var Configs = []string{ConfigFull, ConfigSequential, ConfigNoRepetitive, ConfigNoDistinct, ConfigNoContext}

// QuickOptions configure the known-membership testbed. Zero fields take
// the defaults in brackets.
type QuickOptions struct {
	Corpus []string
	repoprobe.CorpusOptions
	SeenFraction float64 // share of repositories the target is trained on [0.5]
	Seed         uint64
	Reuse        int // unseen repositories that copy files of a seen one [2]
	ReuseFiles   int // files copied into each [5]
	// Controls unseen repositories are held out as negative controls to
	// calibrate P0 per configuration (CalibrateP0) and left out of the
	// metrics; -1 disables calibration (DefaultP0 per language) [2].
	Controls    int
	Order       int     // n-gram order of target and reference models [6]
	MaxQueries  int     // signature snippets per repository and configuration [150]
	Samples     int     // candidates per query [10]
	MaxTokens   int     // tokens per candidate [4]
	Temperature float64 // sampling temperature [1.0]
	Alpha       float64 // [0.05]
	MaxRepoFreq int     // distinctive: in at most this many testbed repositories [2]
	MinEntropy  float64 // [2.0 nats]
	// WorkDir holds the training folders, models' probe log and results;
	// "" uses a temporary directory removed at the end.
	WorkDir  string
	Progress func(msg string)
}

// QuickRepo is one repository's outcome across configurations.
type QuickRepo struct {
	Name       string                           `json:"name"`
	Lang       string                           `json:"lang"`
	Seen       bool                             `json:"seen"`
	Reuse      string                           `json:"reuse_of,omitempty"` // seen repository it copies files from
	Control    bool                             `json:"control,omitempty"`
	Fold       int                              `json:"fold"`
	Files      int                              `json:"files"`
	Patterns   map[repoprobe.PatternKind]int    `json:"patterns"`
	Candidates int                              `json:"candidates"`
	Select     map[string]repoprobe.SelectStats `json:"select"`
	Verdicts   map[string]repoprobe.RepoVerdict `json:"verdicts"`
}

// Label is r's known membership: seen, control, unseen+reuse (an unseen
// repository copying files from a seen one) or unseen.
func (r QuickRepo) Label() string {
	switch {
	case r.Seen:
		return "seen"
	case r.Control:
		return "control"
	case r.Reuse != "":
		return "unseen+reuse"
	}
	return "unseen"
}

// QuickConfig is one row of the testbed table.
type QuickConfig struct {
	Config string   `json:"config"`
	AUC    *float64 `json:"auc"` // nil when one class is empty
	TPR    float64  `json:"tpr"`
	FPR    float64  `json:"fpr"`
	P0     float64  `json:"p0,omitempty"` // calibrated; 0 = per-language default
	Calls  int      `json:"calls"`
	Repos  int      `json:"repos"`
}

// QuickResult is the testbed's report.
type QuickResult struct {
	Target      string        `json:"target"`
	References  []string      `json:"references"`
	Repos       []QuickRepo   `json:"repos"`
	Summary     []QuickConfig `json:"summary"`
	CallsSaved  float64       `json:"sequential_calls_fraction"` // sequential calls / fixed-n calls
	WallSeconds float64       `json:"wall_seconds"`
	Notes       []string      `json:"notes"`
	// Artifacts are the in-memory inputs of the run, for callers that go
	// on to use the same models and repositories (the demo re-scores a
	// benchmark built from them); they are not serialised.
	Artifacts *QuickArtifacts `json:"-"`
}

// QuickArtifacts are what a testbed run trained and selected, so a
// caller can score more with exactly the same model, files and queries
// instead of rebuilding them (and risking a different split).
type QuickArtifacts struct {
	Target *ngram.Model
	Order  int // n-gram order the models were trained with
	// Files are each repository's files by repository name (reuse
	// repositories included, with their vendored copies).
	Files map[string][]repoprobe.File
	// Queries are each repository's selected queries of the full method
	// (ConfigFull), by repository name.
	Queries map[string][]repoprobe.Query
	// Probe are the probing options every configuration used (Log, Lang
	// and P0 cleared: they are per repository and configuration).
	Probe repoprobe.ProbeOptions
}

func (o *QuickOptions) defaults() {
	def := func(p *int, v int) {
		if *p == 0 {
			*p = v
		}
	}
	def(&o.Reuse, 2)
	def(&o.ReuseFiles, 5)
	def(&o.Controls, 2)
	def(&o.Order, 6)
	def(&o.MaxQueries, 150)
	def(&o.Samples, 10)
	def(&o.MaxTokens, 4)
	def(&o.MaxRepoFreq, 2)
	if o.SeenFraction <= 0 || o.SeenFraction >= 1 {
		o.SeenFraction = 0.5
	}
	if o.Temperature <= 0 {
		o.Temperature = 1
	}
	if o.Alpha <= 0 {
		o.Alpha = 0.05
	}
	if o.MinEntropy <= 0 {
		o.MinEntropy = 2
	}
	if o.Progress == nil {
		o.Progress = func(string) {}
	}
}

// Testbed runs the known-membership experiment of benchchecker §5.2 on real
// code: it trains the built-in n-gram model on a seeded random share of the
// corpus repositories, serves it on a loopback port and probes it through
// the OpenAI-compatible llm provider (real HTTP), runs Stage I on every
// repository under each configuration, and scores the p-values against
// the known labels (AUC, and TPR/FPR of the verdict at Alpha).
//
// Unseen "reuse" repositories are an unseen repository plus a few files
// of a seen one, so code-reuse false positives show as in §5.3.
//
// Reference model: cross-fitted. Repositories are split into two folds;
// each fold's entropy is scored by an n-gram model trained on the other
// fold (seen and unseen alike), so no repository is scored by a reference
// that saw it, as §3.3 requires. Leave-one-out would retrain once per
// repository (R trainings instead of 2) for a reference corpus only ~2×
// larger; a single model trained on the unseen half would have seen every
// unseen repository it scores, biasing their entropy down.
//
// The reference index (distinctiveness) counts the corpus repositories
// (reuse copies excluded) containing each word.
func Quick(ctx context.Context, opts QuickOptions) (*QuickResult, error) {
	start := time.Now()
	opts.defaults()
	opts.CorpusOptions.Seed = opts.Seed
	base, err := repoprobe.LoadCorpus(opts.Corpus, opts.CorpusOptions)
	if err != nil {
		return nil, err
	}
	if len(base) < 4 {
		return nil, fmt.Errorf("testbed corpus %v: %d repositories with enough files, need at least 4 (add repositories or lower the minimum files per repository): %w", opts.Corpus, len(base), errs.ErrInput)
	}
	repos, err := arrangeQuick(base, opts)
	if err != nil {
		return nil, err
	}
	opts.Progress(fmt.Sprintf("%d repositories (%d seen)", len(repos), countSeen(repos)))
	q := &quickRun{opts: opts, repos: repos}
	defer q.close()
	if err := q.workDir(); err != nil {
		return nil, err
	}
	if err := q.trainModels(ctx); err != nil {
		return nil, err
	}
	res := &QuickResult{}
	if err := q.serveModels(res); err != nil {
		return nil, err
	}
	opts.Progress("mining patterns and selecting signature snippets")
	if err := q.selectQueries(ctx); err != nil {
		return nil, err
	}
	log, err := repoprobe.OpenProbeLog(filepath.Join(q.work, "probes.jsonl"))
	if err != nil {
		return nil, err
	}
	q.cleanup = append(q.cleanup, func() { log.Close() })
	q.po = repoprobe.ProbeOptions{Samples: opts.Samples, Temperature: opts.Temperature, MaxTokens: opts.MaxTokens,
		Seed: int64(opts.Seed), Alpha: opts.Alpha, Log: log}
	controls, rest := q.splitControls()
	p0, err := q.calibrate(ctx, controls)
	if err != nil {
		return nil, err
	}
	opts.Progress(fmt.Sprintf("probing %d repositories", len(rest)))
	// Sequential first, so its calls are real calls, not replays.
	if err := q.probe(ctx, rest, []string{ConfigSequential, ConfigFull, ConfigNoRepetitive, ConfigNoDistinct, ConfigNoContext}, p0); err != nil {
		return nil, err
	}
	q.collect(res, rest, p0, len(controls))
	res.WallSeconds = time.Since(start).Seconds()
	return res, nil
}

// quickRun is one Quick testbed run after its repositories are arranged.
type quickRun struct {
	opts    QuickOptions
	repos   []tbRepo
	work    string
	target  *ngram.Model
	refs    [2]*ngram.Model
	tm      llm.Model
	refLMs  [2]llm.Model
	sel     []map[string][]repoprobe.Query // per repository and configuration
	po      repoprobe.ProbeOptions
	cleanup []func() // run in reverse order by close
}

func (q *quickRun) close() {
	for i := len(q.cleanup) - 1; i >= 0; i-- {
		q.cleanup[i]()
	}
}

// workDir is QuickOptions.WorkDir or a temporary directory removed at
// the end.
func (q *quickRun) workDir() error {
	q.work = q.opts.WorkDir
	if q.work != "" {
		return nil
	}
	work, err := os.MkdirTemp("", "benchforge-testbed-")
	if err != nil {
		return fmt.Errorf("Testbed: temp dir: %w", err)
	}
	q.work = work
	q.cleanup = append(q.cleanup, func() { os.RemoveAll(work) })
	return nil
}

// trainModels trains the target on the seen repositories and the two
// cross-fitted references, each on the other fold.
func (q *quickRun) trainModels(ctx context.Context) error {
	var err error
	q.opts.Progress("training target model on the seen repositories")
	if q.target, err = q.train(ctx, "train-target", func(r tbRepo) bool { return r.Seen }); err != nil {
		return fmt.Errorf("Testbed: train target: %w", err)
	}
	for f := range 2 {
		q.opts.Progress(fmt.Sprintf("training reference model %d", f))
		if q.refs[f], err = q.train(ctx, fmt.Sprintf("train-ref%d", f), func(r tbRepo) bool { return r.Fold != f }); err != nil {
			return fmt.Errorf("Testbed: train reference %d: %w", f, err)
		}
	}
	return nil
}

// train writes the picked repositories (reuse copies excluded) under
// work/dir and trains a model on them.
func (q *quickRun) train(ctx context.Context, dir string, pick func(tbRepo) bool) (*ngram.Model, error) {
	for _, r := range q.repos {
		if r.reuse != "" || !pick(r) {
			continue
		}
		for _, f := range r.files {
			p := filepath.Join(q.work, dir, r.Name, filepath.FromSlash(f.Path))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(p, f.Content, 0o644); err != nil {
				return nil, err
			}
		}
	}
	return ngram.Train(ctx, ngram.Corpus{Paths: []string{filepath.Join(q.work, dir)}, Include: []string{"*.java", "*.py"}}, ngram.Options{Order: q.opts.Order})
}

// serveModels serves the target and the references on loopback.
func (q *quickRun) serveModels(res *QuickResult) error {
	tm, stopT, err := serve(q.target, "testbed-target")
	if err != nil {
		return err
	}
	q.cleanup = append(q.cleanup, stopT)
	q.tm = tm
	res.Target = tm.ID()
	for f := range 2 {
		m, stop, err := serve(q.refs[f], fmt.Sprintf("testbed-ref%d", f))
		if err != nil {
			return err
		}
		q.cleanup = append(q.cleanup, stop)
		q.refLMs[f] = m
		res.References = append(res.References, m.ID())
	}
	return nil
}

// selectQueries mines, builds and selects every repository's queries
// under each configuration; the reference index counts the corpus
// repositories, reuse copies excluded.
func (q *quickRun) selectQueries(ctx context.Context) error {
	opts := q.opts
	var ref [][]repoprobe.File
	for _, r := range q.repos {
		if r.reuse == "" {
			ref = append(ref, r.files)
		}
	}
	freq := repoprobe.NewMapFreq(ref)
	maxFrac := (float64(opts.MaxRepoFreq) + 0.5) / float64(freq.Repos())
	q.sel = make([]map[string][]repoprobe.Query, len(q.repos))
	return parallel(ctx, len(q.repos), func(i int) error {
		r := &q.repos[i]
		cs, pats, err := mineCandidates(ctx, r.files, freq, maxFrac, singlePool*opts.MaxQueries, opts.Seed)
		if err != nil {
			return err
		}
		r.Patterns = map[repoprobe.PatternKind]int{}
		for _, p := range pats {
			r.Patterns[p.Kind]++
		}
		r.Candidates = len(cs.full)
		so := repoprobe.SelectOptions{Freq: freq, MaxRepoFrac: maxFrac, Reference: q.refLMs[r.Fold], MinEntropy: opts.MinEntropy,
			MaxQueries: opts.MaxQueries, Seed: opts.Seed}
		qs, stats, err := selectConfigs(ctx, cs, so)
		if err != nil {
			return fmt.Errorf("testbed repository %s: %w", r.Name, err)
		}
		q.sel[i], r.Select = qs, stats
		return nil
	})
}

// splitControls resets the verdicts and splits the repositories into
// negative controls and the rest.
func (q *quickRun) splitControls() (controls, rest []int) {
	for i := range q.repos {
		q.repos[i].Verdicts = map[string]repoprobe.RepoVerdict{}
		if q.repos[i].Control {
			controls = append(controls, i)
		} else {
			rest = append(rest, i)
		}
	}
	return controls, rest
}

// probe runs Stage I on the repositories idx under each configuration.
func (q *quickRun) probe(ctx context.Context, idx []int, configs []string, p0 map[string]float64) error {
	return parallel(ctx, len(idx), func(k int) error {
		r := &q.repos[idx[k]]
		for _, c := range configs {
			o := q.po
			o.Lang, o.P0, o.Sequential = r.Lang, p0[c], c == ConfigSequential
			v, err := repoprobe.Probe(ctx, q.tm, r.Name, q.sel[idx[k]][c], o)
			if err != nil {
				return err
			}
			r.Verdicts[c] = v
		}
		return nil
	})
}

// calibrate probes the negative controls and derives P0 per
// configuration from their hit rates (none without controls: the
// per-language default).
func (q *quickRun) calibrate(ctx context.Context, controls []int) (map[string]float64, error) {
	p0 := map[string]float64{}
	if len(controls) == 0 {
		return p0, nil
	}
	q.opts.Progress(fmt.Sprintf("calibrating P0 on %d negative controls", len(controls)))
	cfgs := []string{ConfigFull, ConfigNoRepetitive, ConfigNoDistinct, ConfigNoContext}
	if err := q.probe(ctx, controls, cfgs, nil); err != nil {
		return nil, err
	}
	for _, c := range cfgs {
		var rates []float64
		for _, i := range controls {
			if v := q.repos[i].Verdicts[c]; v.Verdict != repoprobe.Insufficient {
				rates = append(rates, float64(v.Hits)/float64(v.Queries))
			}
		}
		if p, err := repoprobe.CalibrateP0(rates); err == nil {
			p0[c] = p
		}
	}
	p0[ConfigSequential] = p0[ConfigFull]
	return p0, nil
}

// collect fills the result: repositories, artifacts, per-configuration
// summaries and the calls sequential stopping saved.
func (q *quickRun) collect(res *QuickResult, rest []int, p0 map[string]float64, controls int) {
	art := &QuickArtifacts{Target: q.target, Order: q.opts.Order, Files: map[string][]repoprobe.File{}, Queries: map[string][]repoprobe.Query{}, Probe: q.po}
	art.Probe.Log = nil
	for i, r := range q.repos {
		res.Repos = append(res.Repos, r.QuickRepo)
		art.Files[r.Name], art.Queries[r.Name] = r.files, q.sel[i][ConfigFull]
	}
	res.Artifacts = art
	for _, c := range Configs {
		res.Summary = append(res.Summary, summarize(q.repos, rest, c, p0[c]))
	}
	if fixed := res.Summary[0].Calls; fixed > 0 {
		res.CallsSaved = float64(res.Summary[1].Calls) / float64(fixed)
	}
	if controls == 0 {
		res.Notes = append(res.Notes, "no negative controls: P0 is the per-language default (repoprobe.DefaultP0)")
	}
}

// tbRepo is a testbed repository with its files.
type tbRepo struct {
	QuickRepo
	files []repoprobe.File
	reuse string
}

// arrange labels the repositories: a seeded shuffle puts the first
// SeenFraction in the target's training set; reuse repositories join the
// unseen side; the first Controls plain unseen repositories become
// negative controls; folds alternate over the shuffled order.
func arrangeQuick(base []repoprobe.Repo, opts QuickOptions) ([]tbRepo, error) {
	r := rand.New(rand.NewPCG(opts.Seed, 0x7e57bed))
	order := r.Perm(len(base))
	nSeen := min(len(base)-1, max(1, int(math.Round(opts.SeenFraction*float64(len(base))))))
	var out []tbRepo
	var seen, unseen []int
	for k, i := range order {
		b := base[i]
		t := tbRepo{QuickRepo: QuickRepo{Name: b.Name, Lang: b.Lang, Seen: k < nSeen, Fold: k % 2, Files: len(b.Files)}, files: b.Files}
		if t.Seen {
			seen = append(seen, len(out))
		} else {
			unseen = append(unseen, len(out))
		}
		out = append(out, t)
	}
	nControls := 0
	if opts.Controls > 0 && len(unseen)-opts.Controls >= 2 {
		nControls = opts.Controls
		for _, i := range unseen[:nControls] {
			out[i].Control = true
		}
	}
	// Reuse repositories: an unseen, non-control repository's files plus
	// ReuseFiles files of a seen one.
	avail := unseen[nControls:]
	for k := 0; k < opts.Reuse && k < len(avail) && k < len(seen); k++ {
		u, s := out[avail[k]], out[seen[k]]
		files := append([]repoprobe.File(nil), u.files...)
		pick := r.Perm(len(s.files))
		for _, j := range pick[:min(opts.ReuseFiles, len(pick))] {
			f := s.files[j]
			files = append(files, repoprobe.File{Path: "vendored/" + s.Name + "/" + f.Path, Content: f.Content})
		}
		name := u.Name + "+reuse-" + s.Name
		out = append(out, tbRepo{QuickRepo: QuickRepo{Name: name, Lang: u.Lang, Reuse: s.Name, Fold: u.Fold, Files: len(files)},
			files: files, reuse: s.Name})
	}
	return out, nil
}

func countSeen(rs []tbRepo) int {
	n := 0
	for _, r := range rs {
		if r.Seen {
			n++
		}
	}
	return n
}

// summarize scores one configuration: AUC of −log10 p against the labels
// (insufficient counts as p = 1), TPR/FPR of the present verdict.
func summarize(repos []tbRepo, idx []int, config string, p0 float64) QuickConfig {
	s := QuickConfig{Config: config, P0: p0, Repos: len(idx)}
	var scores []float64
	var labels []bool
	pos, neg, tp, fp := 0, 0, 0, 0
	for _, i := range idx {
		v := repos[i].Verdicts[config]
		s.Calls += v.Calls
		scores = append(scores, -math.Log10(max(v.PValue, 1e-300)))
		labels = append(labels, repos[i].Seen)
		if repos[i].Seen {
			pos++
			if v.Present {
				tp++
			}
		} else {
			neg++
			if v.Present {
				fp++
			}
		}
	}
	if a, err := stats.AUC(scores, labels); err == nil {
		s.AUC = &a
	}
	if pos > 0 {
		s.TPR = float64(tp) / float64(pos)
	}
	if neg > 0 {
		s.FPR = float64(fp) / float64(neg)
	}
	return s
}

// parallel runs fn(0..n-1) on two workers, stopping at the first error
// (items in flight finish: fn uses the caller's ctx). A cancelled ctx
// is reported as the testbed's, not as the pool's own stop.
func parallel(ctx context.Context, n int, fn func(int) error) error {
	err := step.EachIndex(ctx, 2, n, func(_ context.Context, i int) error { return fn(i) })
	if ctx.Err() != nil && (err == nil || err == context.Cause(ctx)) {
		return fmt.Errorf("Testbed: %w", ctx.Err())
	}
	return err
}
