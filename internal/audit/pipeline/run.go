package pipeline

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/benchforge/benchforge/internal/audit/baselines"
	"github.com/benchforge/benchforge/internal/audit/patchcheck"
	"github.com/benchforge/benchforge/internal/audit/repoprobe"
	"github.com/benchforge/benchforge/internal/audit/rescore"
	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/runkey"
	"github.com/benchforge/benchforge/internal/step"
)

// Options configure Run. Zero fields take the defaults in brackets.
type Options struct {
	// Benchmark is the benchmark file or Defects4J directory, read with
	// bench.Load in Format; Strict makes an invalid record fatal.
	Benchmark string
	Format    bench.Format
	Strict    bool
	// Source finds each sample's clone (internal/audit/repos).
	Source patchcheck.RepoSource
	// Target is the audited model; Reference scores context-independence
	// (Algorithm 3) and the Ref baseline (nil: the context-independence
	// filter is off and Ref is not computed); Index is the reference index
	// for distinctiveness (nil: off).
	Target    llm.Model
	Reference llm.Model
	Index     repoprobe.RepoFreq
	// IndexID names the reference index in the records' settings (its
	// path); "" with a non-nil Index is "on".
	IndexID string
	Cutoff  time.Time
	// Recheck says which finished records a rerun redoes: by default (and
	// "unknown") the ones whose cause may be gone — unknown patch verdicts
	// and repositories without a clone or snapshot; "all" redoes every one.
	// Records made with other settings are never reused (runkey).
	Recheck runkey.Recheck
	// Stage I parameters (repoprobe): Alpha [0.05], P0 [DefaultP0 per
	// language], MaxRepoFrac [0.01], MinEntropy [2 nats], MaxQueries
	// [300], MinQueries [10], Samples k [10], MaxTokens [8], Temperature
	// [1.0, §5.5], Seed; FixedN turns sequential stopping off (every
	// selected query is probed, so p-values are exact rather than bounds).
	Alpha, P0, MaxRepoFrac, MinEntropy float64
	MaxQueries, MinQueries             int
	Samples, MaxTokens                 int
	Temperature                        float64
	Seed                               int64
	FixedN                             bool
	// MaxFiles bounds the source files Stage I reads from a snapshot,
	// evenly spaced in path order [4000].
	MaxFiles int
	// Patch configures Stage II; Workers checks samples in parallel [2].
	Patch   patchcheck.Options
	Workers int
	// PatchNames name Patch's embedder and test options in the records'
	// settings (zero when off).
	PatchNames PatchNames
	// Baselines computes the logit baselines when the target can score;
	// BaselineSnippets snippets per repository [16]; BaselineK is Min-K%'s k.
	Baselines        bool
	BaselineSnippets int
	BaselineK        float64
	// OutDir receives every output file (created if needed).
	OutDir string
	// LLMManifest snapshots the model layer's accounting for manifest.json
	// (llm.Session.Manifest); nil leaves it out.
	LLMManifest func() llm.Manifest
	// Output receives the run's messages as they happen: progress per
	// step, a warning per skipped benchmark record and per repository
	// without a clone, a KindRepoVerdict record per repository and a
	// KindVerdict record per sample (the lines of repos.jsonl and
	// verdicts.jsonl); nil is silent. The caller emits the summary
	// (KindRun). report.html is rendered from the directory's replay of the
	// same stream (WriteReport), not from these live messages: the file
	// also holds resumed records and other commands' outputs.
	Output output.Handler
}

func (o *Options) defaults() {
	if o.Alpha <= 0 || o.Alpha >= 1 {
		o.Alpha = 0.05
	}
	if o.MaxFiles <= 0 {
		o.MaxFiles = 4000
	}
	if o.BaselineSnippets <= 0 {
		o.BaselineSnippets = 16
	}
	if o.Temperature == 0 {
		o.Temperature = 1
	}
	if o.Workers <= 0 {
		o.Workers = 2
	}
}

// Counts summarise a run's verdicts.
type Counts struct {
	Samples          int `json:"samples"`
	Repos            int `json:"repos"`
	Contaminated     int `json:"contaminated"`
	Clean            int `json:"clean"`
	RepoPresent      int `json:"repo_present"`
	RepoAbsent       int `json:"repo_absent"`
	RepoInsufficient int `json:"repo_insufficient"`
	RepoNoClone      int `json:"repo_no_clone"`
	PatchPresent     int `json:"patch_present"`
	PatchAbsent      int `json:"patch_absent"`
	PatchUnknown     int `json:"patch_unknown"`
	PatchNA          int `json:"patch_not_applicable"`
	Flagged          int `json:"flagged"` // not contaminated, but a stage could not tell
}

// Manifest is manifest.json: what the run did, with what, and what it cost.
type Manifest struct {
	Benchmark   string          `json:"benchmark"`
	Format      string          `json:"format"`
	Model       string          `json:"model"`
	Reference   string          `json:"reference,omitempty"`
	Cutoff      string          `json:"cutoff"`
	Alpha       float64         `json:"alpha"`
	Sequential  bool            `json:"sequential"`
	Started     time.Time       `json:"started"`
	WallSeconds float64         `json:"wall_seconds"`
	Complete    bool            `json:"complete"`
	Counts      Counts          `json:"counts"`
	Resumed     map[string]int  `json:"resumed"` // records replayed from the directory, per file
	Written     map[string]int  `json:"written"` // records computed by this run, per file
	TargetCalls int             `json:"target_calls"`
	CallsSaved  int             `json:"calls_saved"`
	Clean       CleanStats      `json:"clean"`
	Problems    []bench.Problem `json:"problems,omitempty"`
	// Settings are what decided this run's records, per file (runkey);
	// records of other settings in the same file are kept, not used.
	Settings  map[string]runkey.Settings `json:"settings,omitempty"`
	Rechecked map[string]int             `json:"rechecked,omitempty"` // finished records redone (--recheck, or unknown)
	Notes     []string                   `json:"notes,omitempty"`
	LLM       *llm.Manifest              `json:"llm,omitempty"`
}

// Result is what Run returns; everything in it is also in OutDir.
type Result struct {
	Manifest Manifest
	Repos    []RepoRecord
	Verdicts []rescore.Verdict
}

type runner struct {
	opts    Options
	model   string
	cutoff  string
	probes  *repoprobe.ProbeLog
	scorer  *baselines.Scorer
	mu      sync.Mutex
	noScr   error
	started time.Time
	out     output.Handler
}

// progress reports a step; total > 0 counts the step's items.
func (r *runner) progress(step string, done, total int, msg string) {
	_ = r.out.Progress(output.Progress{Step: step, Done: done, Total: total, Message: msg})
}

// emit sends a record. A failing handler (stdout closed) does not stop the
// audit: every record is in OutDir whatever the terminal does.
func (r *runner) emit(kind string, v any) {
	_ = r.out.Record(output.Record{Kind: kind, Value: v})
}

// noScore records that the target cannot score, so no further Score call
// is attempted.
func (r *runner) noScore(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.noScr == nil {
		r.noScr = err
	}
	r.scorer = nil
}

// Run audits the benchmark (see the package doc). An error from the target
// or reference model (endpoint down after the llm layer's retries, budget
// reached, cancelled) stops the run: records finished so far stay in OutDir,
// manifest.json says the run is incomplete, and the returned error says to
// rerun the same command to resume. An empty benchmark is an error wrapping
// errs.ErrInput.
func Run(ctx context.Context, opts Options) (*Result, error) {
	opts.defaults()
	if opts.Target == nil || opts.Source == nil || opts.OutDir == "" || opts.Cutoff.IsZero() {
		return nil, fmt.Errorf("pipeline.Run: target model, repository source, cutoff and output directory are required: %w", errs.ErrUsage)
	}
	r := &runner{opts: opts, model: opts.Target.ID(), cutoff: opts.Cutoff.UTC().Format(time.RFC3339), started: time.Now(),
		out: output.Or(opts.Output)}
	samples, problems, err := r.load(ctx)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("pipeline.Run: output directory: %w", err)
	}
	m := r.newManifest(problems)
	if opts.Baselines {
		r.scorer = &baselines.Scorer{Target: opts.Target, Reference: opts.Reference, K: opts.BaselineK}
	}
	res := &Result{}
	stopErr := r.run(ctx, samples, &m, res)
	r.finish(&m, stopErr)
	res.Manifest = m
	if err := output.WriteJSON(filepath.Join(opts.OutDir, FileManifest), m); err != nil && stopErr == nil {
		stopErr = err
	}
	if stopErr != nil {
		return res, fmt.Errorf("pipeline.Run: %w (finished records are kept in %s; rerun the same command to resume)", stopErr, opts.OutDir)
	}
	if err := WriteReport(opts.OutDir, filepath.Join(opts.OutDir, FileReport)); err != nil {
		return res, fmt.Errorf("pipeline.Run: %w", err)
	}
	return res, nil
}

// load reads the benchmark, warning of each record skipped; a benchmark
// without a valid sample is an error wrapping errs.ErrInput.
func (r *runner) load(ctx context.Context) ([]bench.Sample, []bench.Problem, error) {
	o := r.opts
	samples, problems, err := bench.Load(ctx, o.Benchmark, o.Format, bench.LoadOptions{Strict: o.Strict})
	if err != nil {
		return nil, nil, fmt.Errorf("pipeline.Run: %w", err)
	}
	for _, p := range problems {
		_ = r.out.Warning(output.Warning{Message: "skipped " + p.String()})
	}
	if len(samples) == 0 {
		return nil, nil, errs.Hint(nil, errs.ErrInput, fmt.Sprintf("pipeline.Run(%s): the benchmark has no valid sample (%d records skipped); check the file and {format}",
			o.Benchmark, len(problems)))
	}
	return samples, problems, nil
}

// newManifest starts the run's manifest, noting the filters that are off.
func (r *runner) newManifest(problems []bench.Problem) Manifest {
	o := r.opts
	m := Manifest{Benchmark: o.Benchmark, Format: string(o.Format), Model: r.model, Cutoff: r.cutoff, Alpha: o.Alpha,
		Sequential: !o.FixedN, Started: r.started, Problems: problems, Resumed: map[string]int{}, Written: map[string]int{},
		Rechecked: map[string]int{}, Settings: map[string]runkey.Settings{}}
	if o.Reference != nil {
		m.Reference = o.Reference.ID()
	} else {
		m.Notes = append(m.Notes, "no reference model: the context-independence filter is off and Ref is not computed")
	}
	if o.Index == nil {
		m.Notes = append(m.Notes, "no reference index: the distinctiveness filter is off")
	}
	return m
}

// finish completes the manifest once the run has stopped, stopErr nil
// when it went to its end.
func (r *runner) finish(m *Manifest, stopErr error) {
	m.WallSeconds = time.Since(r.started).Seconds()
	m.Complete = stopErr == nil
	if r.noScr != nil {
		m.Notes = append(m.Notes, fmt.Sprintf("logit baselines skipped: %v", r.noScr))
	}
	if r.opts.LLMManifest != nil {
		lm := r.opts.LLMManifest()
		m.LLM = &lm
	}
}

func (r *runner) run(ctx context.Context, samples []bench.Sample, m *Manifest, res *Result) error {
	// Stage II first: it needs no model, so an unavailable endpoint later
	// still leaves every patch verdict on disk.
	patches, err := r.stage2(ctx, samples, m)
	if err != nil {
		return err
	}
	// Stage I, once per repository.
	order, byRepo, err := r.stage1All(ctx, samples, m)
	if err != nil {
		return err
	}
	r.keepRepos(order, byRepo, m, res)
	bls, err := r.sampleBaselines(ctx, samples, m)
	if err != nil {
		return err
	}
	m.Counts = Counts{Samples: len(samples), Repos: len(order)}
	r.countRepos(&m.Counts, order, byRepo)
	contaminated := r.combineAll(samples, byRepo, patches, bls, &m.Counts, res)
	return r.writeVerdicts(samples, contaminated, m, res)
}

// keepRepos puts the repositories' records, in name order, into the
// result and the stream.
func (r *runner) keepRepos(order []string, byRepo map[string]*RepoRecord, m *Manifest, res *Result) {
	for _, name := range order {
		rec := byRepo[name]
		res.Repos = append(res.Repos, *rec)
		m.CallsSaved += rec.CallsSaved
		r.emit(KindRepoVerdict, rec)
	}
}

// countRepos counts the repositories' Stage I verdicts, warning of each
// repository without a clone.
func (r *runner) countRepos(c *Counts, order []string, byRepo map[string]*RepoRecord) {
	for _, name := range order {
		rec := byRepo[name]
		c.addRepo(rec)
		if rec.Verdict == repoprobe.NoClone {
			_ = r.out.Warning(output.Warning{Message: rec.Reason + " (its samples are unjudged; a rerun retries them)"})
		}
	}
}

// combineAll combines each sample's stages into its verdict, kept in the
// result and the stream, and counts them; it returns which samples are
// contaminated.
func (r *runner) combineAll(samples []bench.Sample, byRepo map[string]*RepoRecord, patches map[string]*patchcheck.Verdict,
	bls map[string]BaselineRecord, c *Counts, res *Result) map[string]bool {
	contaminated := map[string]bool{}
	for _, s := range samples {
		pv := patches[s.ID]
		v := Combine(s.ID, r.model, s.Repo, r.cutoff, r.opts.Alpha, byRepo[s.Repo], pv, baselineScores(bls, s.ID))
		res.Verdicts = append(res.Verdicts, v)
		r.emit(KindVerdict, v)
		contaminated[s.ID] = v.Contaminated
		c.addSample(v.Contaminated, byRepo[s.Repo], pv)
	}
	return contaminated
}

// baselineScores is the sample's baseline scores, nil when it has none.
func baselineScores(bls map[string]BaselineRecord, id string) *baselines.Scores {
	if b, ok := bls[id]; ok {
		return &b.Scores
	}
	return nil
}

// writeVerdicts writes verdicts.jsonl and the clean subset, noting in
// the manifest what the subset holds.
func (r *runner) writeVerdicts(samples []bench.Sample, contaminated map[string]bool, m *Manifest, res *Result) error {
	dir := r.opts.OutDir
	if err := jsonl.Rewrite(filepath.Join(dir, FileVerdicts), res.Verdicts); err != nil {
		return err
	}
	cs, err := WriteClean(r.opts.Benchmark, samples, contaminated, filepath.Join(dir, FileClean))
	if err != nil {
		return err
	}
	m.Clean = cs
	if cs.Note != "" {
		m.Notes = append(m.Notes, cs.Note)
	}
	return nil
}

// addRepo counts a repository's Stage I verdict.
func (c *Counts) addRepo(rec *RepoRecord) {
	switch {
	case rec.Verdict == repoprobe.Insufficient:
		c.RepoInsufficient++
	case rec.Verdict == repoprobe.NoClone:
		c.RepoNoClone++
	case rec.Present:
		c.RepoPresent++
	default:
		c.RepoAbsent++
	}
}

// addSample counts a sample's combined verdict and its patch verdict pv
// (nil: none); rec is its repository's record.
func (c *Counts) addSample(contaminated bool, rec *RepoRecord, pv *patchcheck.Verdict) {
	if contaminated {
		c.Contaminated++
	} else {
		c.Clean++
		if undecided(rec, pv) {
			c.Flagged++
		}
	}
	switch {
	case pv == nil || pv.Verdict == patchcheck.Unknown:
		c.PatchUnknown++
	case pv.Verdict == patchcheck.NotApplicable:
		c.PatchNA++
	case pv.Present:
		c.PatchPresent++
	default:
		c.PatchAbsent++
	}
}

// undecided reports whether a stage could not tell: the repository is
// insufficient or has no clone, or the patch is unchecked, unknown or not
// applicable.
func undecided(rec *RepoRecord, pv *patchcheck.Verdict) bool {
	return rec.Verdict == repoprobe.Insufficient || rec.Verdict == repoprobe.NoClone || pv == nil ||
		pv.Verdict == patchcheck.Unknown || pv.Verdict == patchcheck.NotApplicable
}

// count adds n to file's count in c, leaving a file with none out of the
// manifest.
func count(c map[string]int, file string, n int) {
	if n > 0 {
		c[file] += n
	}
}

// tally puts a step's counts into the manifest under file.
func tally[T any](m *Manifest, file string, res *step.Result[T]) {
	count(m.Resumed, file, res.Resumed)
	count(m.Rechecked, file, res.Rechecked)
	count(m.Written, file, res.Written)
}

// stage2 decides every sample's patch verdict not yet in patch.jsonl
// under this run's settings (Patch, as `audit patch` does) and returns the
// verdicts of this run's samples by sample id.
func (r *runner) stage2(ctx context.Context, samples []bench.Sample, m *Manifest) (map[string]*patchcheck.Verdict, error) {
	o := r.opts
	res, err := Patch(ctx, PatchOptions{
		Path: filepath.Join(o.OutDir, FilePatch), Samples: samples, Cutoffs: []time.Time{o.Cutoff}, Source: o.Source,
		Check: o.Patch, Names: o.PatchNames, Workers: o.Workers, Recheck: o.Recheck,
		Start: func(n int) error {
			r.progress("stage II", 0, 0, fmt.Sprintf("%d samples", n))
			return nil
		},
	})
	if res != nil && len(res.Settings) > 0 {
		m.Settings[FilePatch] = res.Settings[0]
		count(m.Resumed, FilePatch, res.Resumed)
		count(m.Rechecked, FilePatch, res.Rechecked)
		count(m.Written, FilePatch, res.Written)
	}
	if err != nil {
		return nil, err
	}
	patches := map[string]*patchcheck.Verdict{}
	for _, v := range res.Verdicts {
		patches[v.SampleID] = &v
	}
	if n := otherSettings(FilePatch, res.Settings[0], res.Other); n != "" {
		m.Notes = append(m.Notes, n)
	}
	return patches, nil
}

// stage1All probes each repository of the run once, in name order,
// resuming from repos.jsonl, and returns the names and their records.
func (r *runner) stage1All(ctx context.Context, samples []bench.Sample, m *Manifest) ([]string, map[string]*RepoRecord, error) {
	rs := r.repoSettings()
	m.Settings[FileRepos] = rs
	order, first := repoOrder(samples)
	at := map[string]int{}
	for i, name := range order {
		at[name] = i
	}
	var err error
	if r.probes, err = repoprobe.OpenProbeLog(filepath.Join(r.opts.OutDir, FileProbes)); err != nil {
		return nil, nil, err
	}
	defer r.probes.Close()
	all := r.opts.Recheck == runkey.RecheckAll
	fresh := map[string]*RepoRecord{} // probed now, cached or not
	other := map[string]runkey.Settings{}
	spec := step.Spec[string, RepoRecord]{
		Path: filepath.Join(r.opts.OutDir, FileRepos), Key: func(v RepoRecord) string { return v.Key }, Items: order,
		ID: func(name string) string { return RepoKey(name, rs) }, Retry: func(RepoRecord) bool { return all },
		// Records of this run's repositories under other settings are
		// kept and named in a note, even when the run then stops.
		Check: func(rec RepoRecord) error {
			if _, ok := at[rec.Repo]; ok && rec.Key != RepoKey(rec.Repo, rs) {
				other[rec.Key] = rec.Settings
			}
			return nil
		},
	}
	res, err := step.Run(ctx, spec, func(ctx context.Context, name string, emit step.Emit[RepoRecord]) error {
		r.progress("stage I", at[name]+1, len(order), fmt.Sprintf("repository %d/%d %s", at[name]+1, len(order), name))
		rec, cacheable, err := r.stage1(ctx, first[name])
		if err != nil {
			return fmt.Errorf("stage I on %s: %w", name, err)
		}
		rec.Key, rec.Settings = RepoKey(name, rs), rs
		m.TargetCalls += rec.Calls
		fresh[name] = &rec
		if cacheable {
			return emit(rec)
		}
		return nil
	})
	if n := otherSettings(FileRepos, rs, slices.Collect(maps.Values(other))); n != "" {
		m.Notes = append(m.Notes, n)
	}
	if res != nil {
		tally(m, FileRepos, res)
	}
	if err != nil {
		return nil, nil, err
	}
	return order, repoRecords(order, rs, res.Records, fresh), nil
}

// repoOrder is the run's repositories by name, each with the first of
// its samples (the one Stage I probes it with).
func repoOrder(samples []bench.Sample) ([]string, map[string]bench.Sample) {
	var order []string
	first := map[string]bench.Sample{}
	for _, s := range samples {
		if _, ok := first[s.Repo]; !ok {
			first[s.Repo] = s
			order = append(order, s.Repo)
		}
	}
	sort.Strings(order)
	return order, first
}

// repoRecords is each repository's record: probed now, or resumed from
// the log.
func repoRecords(order []string, rs runkey.Settings, recs []RepoRecord, fresh map[string]*RepoRecord) map[string]*RepoRecord {
	logged := map[string]*RepoRecord{}
	for _, rec := range recs {
		logged[rec.Key] = &rec
	}
	byRepo := map[string]*RepoRecord{}
	for _, name := range order {
		if rec, ok := fresh[name]; ok {
			byRepo[name] = rec
		} else {
			byRepo[name] = logged[RepoKey(name, rs)]
		}
	}
	return byRepo
}

// sampleBaselines scores each sample's gold patch text under the target
// (and reference), resuming from baselines.jsonl.
func (r *runner) sampleBaselines(ctx context.Context, samples []bench.Sample, m *Manifest) (map[string]BaselineRecord, error) {
	out := map[string]BaselineRecord{}
	path := filepath.Join(r.opts.OutDir, FileBaselines)
	bs := r.baselineSettings()
	if !r.opts.Baselines {
		// Off: the scores of an earlier run with these settings still
		// show in the verdicts.
		if recs, err := jsonl.ReadFile[BaselineRecord](path); err == nil {
			baselinesUnder(out, jsonl.Latest(recs, func(b BaselineRecord) string { return b.Key }), bs)
		}
		return out, nil
	}
	m.Settings[FileBaselines] = bs
	all := r.opts.Recheck == runkey.RecheckAll
	fresh := map[string]BaselineRecord{}
	spec := step.Spec[bench.Sample, BaselineRecord]{
		Path: path, Key: func(b BaselineRecord) string { return b.Key }, Items: samples,
		ID: func(s bench.Sample) string { return bs.ID(s.ID) }, Retry: func(BaselineRecord) bool { return all },
		Sync: jsonl.SyncBatch,
	}
	res, err := step.Run(ctx, spec, func(ctx context.Context, s bench.Sample, emit step.Emit[BaselineRecord]) error {
		b, ok, err := r.baseline(ctx, s, bs)
		if !ok || err != nil {
			return err
		}
		fresh[s.ID] = b
		return emit(b)
	})
	if res != nil {
		tally(m, FileBaselines, res)
	}
	if err != nil {
		return out, err
	}
	if !all {
		baselinesUnder(out, res.Records, bs)
	}
	maps.Copy(out, fresh)
	return out, nil
}

// baselinesUnder puts the records made under settings bs into out by
// sample.
func baselinesUnder(out map[string]BaselineRecord, recs []BaselineRecord, bs runkey.Settings) {
	for _, b := range recs {
		if b.Key == bs.ID(b.SampleID) {
			out[b.SampleID] = b
		}
	}
}

// baseline scores sample s's gold patch; ok is false when there is
// nothing to record (no patch text, a target that cannot score, an
// answer that gives no score).
func (r *runner) baseline(ctx context.Context, s bench.Sample, bs runkey.Settings) (BaselineRecord, bool, error) {
	text := baselines.PatchText(s.Patch)
	if r.scorer == nil || text == "" {
		return BaselineRecord{}, false, nil
	}
	sc, err := r.scorer.Score(ctx, text)
	switch {
	case err == nil:
	case errors.Is(err, errs.ErrUnsupported):
		r.noScore(err)
		return BaselineRecord{}, false, nil
	case errors.Is(err, errs.ErrInput) && ctx.Err() == nil && !isResponseError(err):
		return BaselineRecord{}, false, nil
	default:
		return BaselineRecord{}, false, fmt.Errorf("baselines of sample %s: %w", s.ID, err)
	}
	ref := ""
	if r.opts.Reference != nil {
		ref = r.opts.Reference.ID()
	}
	return BaselineRecord{Key: bs.ID(s.ID), Settings: bs, SampleID: s.ID, Repo: s.Repo, Model: r.model, Reference: ref, Scores: sc}, true, nil
}

func isResponseError(err error) bool {
	var re *llm.ResponseError
	return errors.As(err, &re)
}
