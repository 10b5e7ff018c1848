package demo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchforge/benchforge/internal/audit/patchcheck"
	"github.com/benchforge/benchforge/internal/audit/pipeline"
	"github.com/benchforge/benchforge/internal/audit/repoprobe"
	"github.com/benchforge/benchforge/internal/audit/rescore"
	"github.com/benchforge/benchforge/internal/audit/testbed"
	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/llm/ngramllm"
	"github.com/benchforge/benchforge/internal/ngram"
	"github.com/benchforge/benchforge/internal/output"
)

// The two models the demo's leaderboard re-scores: the testbed's target
// (trained on the seen half of the testbed) and a model trained the same
// way on the other half.
const (
	ModelTarget    = "testbed-target"
	ModelOtherHalf = "testbed-other-half"
)

// promptLines is how much of the file before a method is given as context
// when scoring it: an order-6 model reads only its last five tokens, so a
// few lines reproduce the whole-file score at a cost independent of the
// file's size.
const promptLines = 12

// Rescore is the demo's leaderboard re-scoring (benchchecker §6).
type Rescore struct {
	Samples int `json:"samples"`
	// Candidates counts the generator's bugs before the spacing rule of
	// makeBugs and the sample bound.
	Candidates int             `json:"candidates"`
	Repos      []RescoreRepo   `json:"repos"`
	Models     []RescoreModel  `json:"models"`
	Stage2     map[string]int  `json:"stage2_verdicts"` // patchcheck verdict → samples
	Operators  map[string]int  `json:"operators"`
	Cutoff     string          `json:"cutoff"`
	Result     *rescore.Result `json:"result"`
}

// RescoreRepo is one benchmark repository: its samples, which models were
// trained on it and each model's Stage I verdict.
type RescoreRepo struct {
	Name      string                           `json:"name"`
	Samples   int                              `json:"samples"`
	TrainedBy []string                         `json:"trained_by"`
	Stage1    map[string]repoprobe.RepoVerdict `json:"stage1"`
}

// RescoreModel is one model of the leaderboard with its resolution rate on
// the samples of repositories it was trained on and of the others.
type RescoreModel struct {
	Name       string   `json:"name"`
	TrainedOn  []string `json:"trained_on"` // testbed repositories
	Stage1     string   `json:"stage1"`     // how its Stage I verdicts were made
	Members    Count    `json:"members"`
	NonMembers Count    `json:"non_members"`
	// Stage1TPR and Stage1FPR score its Stage I verdicts on the benchmark
	// repositories against the known membership.
	Stage1TPR float64 `json:"stage1_tpr"`
	Stage1FPR float64 `json:"stage1_fpr"`
}

// Count is resolved out of total.
type Count struct {
	Resolved int `json:"resolved"`
	Total    int `json:"total"`
}

// Rate is Resolved/Total, 0 for an empty count.
func (c Count) Rate() float64 {
	if c.Total == 0 {
		return 0
	}
	return float64(c.Resolved) / float64(c.Total)
}

// RescoreRun is one model's attempt at one sample: its mean per-token loss (nats)
// on the fixed and on the buggy method; resolved when the fixed one is
// lower.
type RescoreRun struct {
	SampleID  string  `json:"sample_id"`
	Model     string  `json:"model"`
	Member    bool    `json:"member"`
	LossFixed float64 `json:"loss_fixed"`
	LossBuggy float64 `json:"loss_buggy"`
	Resolved  bool    `json:"resolved"`
}

// rescoreModel is one model of the demo's leaderboard.
type rescoreModel struct {
	name string
	m    *ngram.Model
	how  string // how its Stage I verdicts are made
	// member reports whether the model was trained on a repository.
	member func(testbed.QuickRepo) bool
}

// rescoreModels are the leaderboard's models: the testbed's target and a
// model trained the same way on the other half.
func rescoreModels(target, other *ngram.Model) []rescoreModel {
	return []rescoreModel{
		{ModelTarget, target, "the testbed's own Stage I run: probed over HTTP, P0 calibrated on its negative controls (which are judged at the default P0)",
			func(t testbed.QuickRepo) bool { return t.Seen }},
		{ModelOtherHalf, other, "Stage I with the testbed's selected queries and probe settings, in process; P0 is the per-language default (its non-members are the target's members, none held out to calibrate on)",
			func(t testbed.QuickRepo) bool { return !t.Seen && t.Reuse == "" }},
	}
}

// rescoreStep is the working state of the re-scoring step.
type rescoreStep struct {
	tb     *testbed.QuickResult
	art    *testbed.QuickArtifacts
	repos  []testbed.QuickRepo // the testbed's Java repositories, reuse copies excluded
	bugs   []bug
	checks []Stage2Sample // the bugs' Stage II verdicts, in bug order
	models []rescoreModel
	// stage1 is each model's Stage I verdict per repository; rows the
	// same in model then repository order.
	stage1 map[string]map[string]repoprobe.RepoVerdict
	rows   []repoprobe.RepoVerdict
	res    *Rescore
}

func (r *runner) auditRescore() (string, error) {
	tb := r.res.Audit.Testbed
	if tb == nil || tb.Artifacts == nil {
		return "needs the models of the audit/testbed step, which did not run", nil
	}
	// The models are only needed here; drop them so the later steps do
	// not carry them.
	defer func() { tb.Artifacts = nil }()
	x := &rescoreStep{tb: tb, art: tb.Artifacts, repos: javaRepos(tb)}
	if len(x.repos) == 0 {
		return "the testbed has no Java repository to make bugs in (the mutation generator is Java-only)", nil
	}
	dir := r.path("audit", "rescore")
	if err := resetDir(dir); err != nil {
		return "", err
	}
	files := x.javaFiles()
	r.progress(0, 0, "injecting bugs with the mutation generator")
	bugs, ncand, err := makeBugs(r.ctx, r.opts.Seed+3, files)
	if err != nil {
		return "", err
	}
	if len(bugs) == 0 {
		return "the mutation generator found no bug site in the testbed's Java files", nil
	}
	x.bugs = bugs
	if err := r.rescoreStage2(x, dir, files); err != nil {
		return "", err
	}
	r.progress(0, 0, "training the other-half model and running its Stage I")
	other, err := trainOtherHalf(r.ctx, tb, x.art)
	if err != nil {
		return "", err
	}
	x.res = &Rescore{Samples: len(bugs), Candidates: ncand, Stage2: map[string]int{}, Operators: map[string]int{},
		Cutoff: stage2Cut.Format(time.DateOnly)}
	x.models = rescoreModels(x.art.Target, other)
	if err := x.runStage1(r.ctx, ngramllm.New(ModelOtherHalf, other, fingerprint(tb, x.art))); err != nil {
		return "", err
	}
	r.progress(0, 0, "scoring the fixed and buggy methods with both models")
	rs, err := x.write(r.ctx, dir)
	if err != nil {
		return "", err
	}
	x.res.Result = rs
	r.res.Audit.Rescore = x.res
	return "", nil
}

// javaRepos are the testbed's repositories the bugs are made in: reuse
// repositories are copies of others, and the mutation generator is
// Java-only.
func javaRepos(tb *testbed.QuickResult) []testbed.QuickRepo {
	var out []testbed.QuickRepo
	for _, tr := range tb.Repos {
		if tr.Reuse == "" && tr.Lang == "java" {
			out = append(out, tr)
		}
	}
	return out
}

// resetDir empties dir, creating it if needed.
func resetDir(dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("demo: reset %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("demo: create %s: %w", dir, err)
	}
	return nil
}

// javaFiles are the Java files of the step's repositories, by
// repository/path.
func (x *rescoreStep) javaFiles() map[string][]byte {
	files := map[string][]byte{}
	for _, tr := range x.repos {
		for _, f := range x.art.Files[tr.Name] {
			if strings.HasSuffix(f.Path, ".java") {
				files[tr.Name+"/"+f.Path] = f.Content
			}
		}
	}
	return files
}

// rescoreStage2 commits the bugs into the benchmark's git histories under
// dir and decides their Stage II verdicts there.
func (r *runner) rescoreStage2(x *rescoreStep, dir string, files map[string][]byte) error {
	reposDir := filepath.Join(dir, "repos")
	r.progress(0, 0, "building the benchmark's git histories")
	if err := commitBugs(r.ctx, reposDir, x.bugs, files); err != nil {
		return err
	}
	r.progress(0, 0, fmt.Sprintf("Stage II on %d samples", len(x.bugs)))
	x.checks = make([]Stage2Sample, len(x.bugs))
	for i, b := range x.bugs {
		x.checks[i] = Stage2Sample{Sample: b.sample, RepoDir: filepath.Join(reposDir, b.repo), Branch: "main"}
	}
	return checkStage2(r.ctx, filepath.Join(dir, "stage2_verdicts.jsonl"), x.checks)
}

// runStage1 gives every model its Stage I verdict on each repository and
// its Stage I TPR and FPR against the known membership. The target's
// verdicts are the testbed's; the other half's are probed now, through
// otherLLM, with the same queries and settings.
func (x *rescoreStep) runStage1(ctx context.Context, otherLLM llm.Model) error {
	x.stage1 = map[string]map[string]repoprobe.RepoVerdict{}
	for _, md := range x.models {
		x.stage1[md.name] = map[string]repoprobe.RepoVerdict{}
		rm := RescoreModel{Name: md.name, Stage1: md.how}
		for _, tr := range x.tb.Repos {
			if md.member(tr) {
				rm.TrainedOn = append(rm.TrainedOn, tr.Name)
			}
		}
		var pos, neg, tp, fp int
		for _, tr := range x.repos {
			v, err := x.repoVerdict(ctx, md, tr, otherLLM)
			if err != nil {
				return err
			}
			x.stage1[md.name][tr.Name] = v
			x.rows = append(x.rows, v)
			if md.member(tr) {
				pos, tp = pos+1, tp+b2i(v.Present)
			} else {
				neg, fp = neg+1, fp+b2i(v.Present)
			}
		}
		rm.Stage1TPR, rm.Stage1FPR = ratio(tp, pos), ratio(fp, neg)
		x.res.Models = append(x.res.Models, rm)
	}
	return nil
}

// repoVerdict is model md's Stage I verdict on repository tr.
func (x *rescoreStep) repoVerdict(ctx context.Context, md rescoreModel, tr testbed.QuickRepo, otherLLM llm.Model) (repoprobe.RepoVerdict, error) {
	v := tr.Verdicts[testbed.ConfigFull]
	if md.name == ModelOtherHalf {
		o := x.art.Probe
		o.Lang = tr.Lang
		var err error
		if v, err = repoprobe.Probe(ctx, otherLLM, tr.Name, x.art.Queries[tr.Name], o); err != nil {
			return v, err
		}
	}
	v.Model = md.name
	return v, nil
}

// rescoreRecords are the records the step writes, in the formats `audit
// rescore` reads.
type rescoreRecords struct {
	samples  []bench.Sample
	stage2   []patchcheck.Verdict
	runs     []RescoreRun
	verdicts []rescore.Verdict
	subs     []rescore.Submission
}

// count tallies the bugs' Stage II verdicts and operators, and returns the
// samples and their verdicts with each repository's sample count.
func (x *rescoreStep) count(rec *rescoreRecords) map[string]int {
	perRepo := map[string]int{}
	for i, b := range x.bugs {
		rec.samples = append(rec.samples, b.sample)
		rec.stage2 = append(rec.stage2, x.checks[i].Verdict)
		x.res.Stage2[x.checks[i].Verdict.Verdict]++
		x.res.Operators[b.m.Operator]++
		perRepo[b.repo]++
	}
	return perRepo
}

// score runs each model on every bug: its runs, its leaderboard
// submission (the bugs it resolves), its member and non-member counts,
// and its combined verdicts (pipeline.Combine, as `audit run` makes them).
func (x *rescoreStep) score(rec *rescoreRecords) {
	trByName := map[string]testbed.QuickRepo{}
	for _, tr := range x.repos {
		trByName[tr.Name] = tr
	}
	alpha := x.art.Probe.Alpha
	for k, md := range x.models {
		sub := rescore.Submission{Submission: md.name, Name: "prefers the fixed method (lower per-token loss)", Models: []string{md.name}, Resolved: []string{}}
		for i, b := range x.bugs {
			run := score(md.m, b)
			run.Model, run.Member = md.name, md.member(trByName[b.repo])
			rec.runs = append(rec.runs, run)
			x.res.Models[k].add(run)
			if run.Resolved {
				sub.Resolved = append(sub.Resolved, b.sample.ID)
			}
			rv := x.stage1[md.name][b.repo]
			rec.verdicts = append(rec.verdicts, pipeline.Combine(b.sample.ID, md.name, b.repo, x.res.Cutoff, alpha,
				&pipeline.RepoRecord{RepoVerdict: rv}, &x.checks[i].Verdict, nil))
		}
		rec.subs = append(rec.subs, sub)
	}
}

// add counts run among the model's member or non-member samples.
func (m *RescoreModel) add(run RescoreRun) {
	c := &m.NonMembers
	if run.Member {
		c = &m.Members
	}
	c.Total++
	if run.Resolved {
		c.Resolved++
	}
}

// repoRows are the benchmark's repositories with their sample counts,
// the models trained on each and each model's Stage I verdict.
func (x *rescoreStep) repoRows(perRepo map[string]int) []RescoreRepo {
	var out []RescoreRepo
	for _, tr := range x.repos {
		rr := RescoreRepo{Name: tr.Name, Samples: perRepo[tr.Name], Stage1: map[string]repoprobe.RepoVerdict{}}
		for _, md := range x.models {
			if md.member(tr) {
				rr.TrainedBy = append(rr.TrainedBy, md.name)
			}
			rr.Stage1[md.name] = x.stage1[md.name][tr.Name]
		}
		out = append(out, rr)
	}
	return out
}

// write scores the bugs, writes the records to dir and re-scores the
// leaderboard from the written files.
func (x *rescoreStep) write(ctx context.Context, dir string) (*rescore.Result, error) {
	var rec rescoreRecords
	perRepo := x.count(&rec)
	x.score(&rec)
	x.res.Repos = x.repoRows(perRepo)
	// The records go to disk in the formats `benchforge audit rescore`
	// reads, and the re-scoring reads them back, so what the page shows is
	// what the command would print for these files.
	paths := map[string]string{}
	for name, write := range map[string]func(string) error{
		"benchmark.jsonl":       func(p string) error { return jsonl.Rewrite(p, rec.samples) },
		"runs.jsonl":            func(p string) error { return jsonl.Rewrite(p, rec.runs) },
		"stage1_verdicts.jsonl": func(p string) error { return jsonl.Rewrite(p, x.rows) },
		"stage2_verdicts.jsonl": func(p string) error { return jsonl.Rewrite(p, rec.stage2) },
		"verdicts.jsonl":        func(p string) error { return jsonl.Rewrite(p, rec.verdicts) },
		"leaderboard.jsonl":     func(p string) error { return jsonl.Rewrite(p, rec.subs) },
	} {
		paths[name] = filepath.Join(dir, name)
		if err := write(paths[name]); err != nil {
			return nil, err
		}
	}
	rs, err := rescoreFiles(ctx, paths["benchmark.jsonl"], paths["verdicts.jsonl"], paths["leaderboard.jsonl"])
	if err != nil {
		return nil, err
	}
	if err := output.WriteJSON(filepath.Join(dir, "rescore.json"), rs); err != nil {
		return nil, err
	}
	if err := output.WriteFile(filepath.Join(dir, "rescore.md"), []byte(rs.Markdown())); err != nil {
		return nil, err
	}
	return rs, nil
}

// rescoreFiles runs the re-scoring on the files with the function of
// `benchforge audit rescore --benchmark B --verdicts V --leaderboard L`
// (pipeline.Rescore); the demo's benchmark is strict JSONL.
func rescoreFiles(ctx context.Context, benchmark, verdicts, leaderboard string) (*rescore.Result, error) {
	res, _, err := pipeline.Rescore(ctx, pipeline.RescoreFiles{
		Benchmark: benchmark, Format: bench.FormatJSONL, Strict: true, Verdicts: verdicts, Leaderboard: leaderboard,
	}, rescore.Options{})
	return res, err
}

// trainOtherHalf trains a model like the testbed's target, with its order,
// on the repositories the target was not trained on (controls included,
// reuse copies excluded).
func trainOtherHalf(ctx context.Context, tb *testbed.QuickResult, art *testbed.QuickArtifacts) (*ngram.Model, error) {
	work, err := os.MkdirTemp("", "benchforge-demo-otherhalf-")
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	defer os.RemoveAll(work)
	for _, tr := range tb.Repos {
		if tr.Seen || tr.Reuse != "" {
			continue
		}
		for _, f := range art.Files[tr.Name] {
			p := filepath.Join(work, tr.Name, filepath.FromSlash(f.Path))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return nil, fmt.Errorf("demo: %w", err)
			}
			if err := os.WriteFile(p, f.Content, 0o644); err != nil {
				return nil, fmt.Errorf("demo: %w", err)
			}
		}
	}
	m, err := ngram.Train(ctx, ngram.Corpus{Paths: []string{work}, Include: []string{"*.java", "*.py"}}, ngram.Options{Order: art.Order})
	if err != nil {
		return nil, fmt.Errorf("demo: train %s: %w", ModelOtherHalf, err)
	}
	return m, nil
}

// fingerprint identifies the other-half model by its training data.
func fingerprint(tb *testbed.QuickResult, art *testbed.QuickArtifacts) string {
	h := sha256.New()
	for _, tr := range tb.Repos {
		if tr.Seen || tr.Reuse != "" {
			continue
		}
		for _, f := range art.Files[tr.Name] {
			fmt.Fprintf(h, "%s/%s\x00%d\x00", tr.Name, f.Path, len(f.Content))
			h.Write(f.Content)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// score runs model m on one sample: the mean per-token loss of the fixed
// and of the buggy method, each after the same lines of the file before
// it. The mean, not the sum, so a fix that adds a guard is not penalised
// for its extra tokens.
func score(m *ngram.Model, b bug) RescoreRun {
	lines := strings.SplitAfter(string(b.m.Fixed), "\n")
	s, e := b.m.Start, b.m.End
	prompt := strings.Join(lines[max(0, s-1-promptLines):s-1], "")
	fixed, buggy := strings.Join(lines[s-1:e], ""), buggyMethod(b.m)
	loss := func(text string) float64 { return -ngram.Summarize(m.Score(prompt, text)).MeanLogProb }
	run := RescoreRun{SampleID: b.sample.ID, LossFixed: loss(fixed), LossBuggy: loss(buggy)}
	run.Resolved = run.LossFixed < run.LossBuggy
	return run
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
