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

func (r *runner) auditRescore() (string, error) {
	tb := r.res.Audit.Testbed
	if tb == nil || tb.Artifacts == nil {
		return "needs the models of the audit/testbed step, which did not run", nil
	}
	art := tb.Artifacts
	// The models are only needed here; drop them so the later steps do
	// not carry them.
	defer func() { tb.Artifacts = nil }()
	var javaRepos []testbed.QuickRepo
	for _, tr := range tb.Repos {
		// Reuse repositories are copies of others; the mutation generator
		// is Java-only.
		if tr.Reuse == "" && tr.Lang == "java" {
			javaRepos = append(javaRepos, tr)
		}
	}
	if len(javaRepos) == 0 {
		return "the testbed has no Java repository to make bugs in (the mutation generator is Java-only)", nil
	}
	dir := r.path("audit", "rescore")
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("demo: reset %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("demo: create %s: %w", dir, err)
	}
	files := map[string][]byte{} // repo/path → content
	for _, tr := range javaRepos {
		for _, f := range art.Files[tr.Name] {
			if strings.HasSuffix(f.Path, ".java") {
				files[tr.Name+"/"+f.Path] = f.Content
			}
		}
	}
	r.progress(0, 0, "injecting bugs with the mutation generator")
	bugs, ncand, err := makeBugs(r.ctx, r.opts.Seed+3, files)
	if err != nil {
		return "", err
	}
	if len(bugs) == 0 {
		return "the mutation generator found no bug site in the testbed's Java files", nil
	}
	reposDir := filepath.Join(dir, "repos")
	r.progress(0, 0, "building the benchmark's git histories")
	if err := commitBugs(r.ctx, reposDir, bugs, files); err != nil {
		return "", err
	}

	r.progress(0, 0, fmt.Sprintf("Stage II on %d samples", len(bugs)))
	checks := make([]Stage2Sample, len(bugs))
	for i, b := range bugs {
		checks[i] = Stage2Sample{Sample: b.sample, RepoDir: filepath.Join(reposDir, b.repo), Branch: "main"}
	}
	if err := checkStage2(r.ctx, filepath.Join(dir, "stage2_verdicts.jsonl"), checks); err != nil {
		return "", err
	}

	r.progress(0, 0, "training the other-half model and running its Stage I")
	other, err := trainOtherHalf(r.ctx, tb, art)
	if err != nil {
		return "", err
	}
	res := &Rescore{Samples: len(bugs), Candidates: ncand, Stage2: map[string]int{}, Operators: map[string]int{},
		Cutoff: stage2Cut.Format(time.DateOnly)}
	models := []rescoreModel{
		{ModelTarget, art.Target, "the testbed's own Stage I run: probed over HTTP, P0 calibrated on its negative controls (which are judged at the default P0)",
			func(t testbed.QuickRepo) bool { return t.Seen }},
		{ModelOtherHalf, other, "Stage I with the testbed's selected queries and probe settings, in process; P0 is the per-language default (its non-members are the target's members, none held out to calibrate on)",
			func(t testbed.QuickRepo) bool { return !t.Seen && t.Reuse == "" }},
	}
	otherLLM := ngramllm.New(ModelOtherHalf, other, fingerprint(tb, art))
	stage1 := map[string]map[string]repoprobe.RepoVerdict{} // model → repo → verdict
	var stage1Rows []repoprobe.RepoVerdict
	for _, md := range models {
		stage1[md.name] = map[string]repoprobe.RepoVerdict{}
		rm := RescoreModel{Name: md.name, Stage1: md.how}
		for _, tr := range tb.Repos {
			if md.member(tr) {
				rm.TrainedOn = append(rm.TrainedOn, tr.Name)
			}
		}
		var pos, neg, tp, fp int
		for _, tr := range javaRepos {
			// The target's verdict is the testbed's; the other half's is
			// probed now with the same queries and settings.
			v := tr.Verdicts[testbed.ConfigFull]
			if md.name == ModelOtherHalf {
				o := art.Probe
				o.Lang = tr.Lang
				if v, err = repoprobe.Probe(r.ctx, otherLLM, tr.Name, art.Queries[tr.Name], o); err != nil {
					return "", err
				}
			}
			v.Model = md.name
			stage1[md.name][tr.Name] = v
			stage1Rows = append(stage1Rows, v)
			if md.member(tr) {
				pos, tp = pos+1, tp+b2i(v.Present)
			} else {
				neg, fp = neg+1, fp+b2i(v.Present)
			}
		}
		rm.Stage1TPR, rm.Stage1FPR = ratio(tp, pos), ratio(fp, neg)
		res.Models = append(res.Models, rm)
	}

	r.progress(0, 0, "scoring the fixed and buggy methods with both models")
	trByName := map[string]testbed.QuickRepo{}
	for _, tr := range javaRepos {
		trByName[tr.Name] = tr
	}
	var (
		runs     []RescoreRun
		verdicts []rescore.Verdict
		samples  []bench.Sample
		stage2   []patchcheck.Verdict
		subs     []rescore.Submission
	)
	perRepo := map[string]int{}
	for i, b := range bugs {
		samples = append(samples, b.sample)
		stage2 = append(stage2, checks[i].Verdict)
		res.Stage2[checks[i].Verdict.Verdict]++
		res.Operators[b.m.Operator]++
		perRepo[b.repo]++
	}
	alpha := art.Probe.Alpha
	for k, md := range models {
		sub := rescore.Submission{Submission: md.name, Name: "prefers the fixed method (lower per-token loss)", Models: []string{md.name}, Resolved: []string{}}
		for i, b := range bugs {
			run := score(md.m, b)
			run.Model, run.Member = md.name, md.member(trByName[b.repo])
			runs = append(runs, run)
			c := &res.Models[k].NonMembers
			if run.Member {
				c = &res.Models[k].Members
			}
			c.Total++
			if run.Resolved {
				c.Resolved++
				sub.Resolved = append(sub.Resolved, b.sample.ID)
			}
			rv := stage1[md.name][b.repo]
			verdicts = append(verdicts, pipeline.Combine(b.sample.ID, md.name, b.repo, res.Cutoff, alpha,
				&pipeline.RepoRecord{RepoVerdict: rv}, &checks[i].Verdict, nil))
		}
		subs = append(subs, sub)
	}
	for _, tr := range javaRepos {
		rr := RescoreRepo{Name: tr.Name, Samples: perRepo[tr.Name], Stage1: map[string]repoprobe.RepoVerdict{}}
		for _, md := range models {
			if md.member(tr) {
				rr.TrainedBy = append(rr.TrainedBy, md.name)
			}
			rr.Stage1[md.name] = stage1[md.name][tr.Name]
		}
		res.Repos = append(res.Repos, rr)
	}

	// The records go to disk in the formats `benchforge audit rescore`
	// reads, and the re-scoring reads them back, so what the page shows is
	// what the command would print for these files.
	paths := map[string]string{}
	for name, write := range map[string]func(string) error{
		"benchmark.jsonl":       func(p string) error { return jsonl.Rewrite(p, samples) },
		"runs.jsonl":            func(p string) error { return jsonl.Rewrite(p, runs) },
		"stage1_verdicts.jsonl": func(p string) error { return jsonl.Rewrite(p, stage1Rows) },
		"stage2_verdicts.jsonl": func(p string) error { return jsonl.Rewrite(p, stage2) },
		"verdicts.jsonl":        func(p string) error { return jsonl.Rewrite(p, verdicts) },
		"leaderboard.jsonl":     func(p string) error { return jsonl.Rewrite(p, subs) },
	} {
		paths[name] = filepath.Join(dir, name)
		if err := write(paths[name]); err != nil {
			return "", err
		}
	}
	rs, err := rescoreFiles(r.ctx, paths["benchmark.jsonl"], paths["verdicts.jsonl"], paths["leaderboard.jsonl"])
	if err != nil {
		return "", err
	}
	res.Result = rs
	if err := output.WriteJSON(filepath.Join(dir, "rescore.json"), rs); err != nil {
		return "", err
	}
	if err := output.WriteFile(filepath.Join(dir, "rescore.md"), []byte(rs.Markdown())); err != nil {
		return "", err
	}
	r.res.Audit.Rescore = res
	return "", nil
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
