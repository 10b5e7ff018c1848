package demo

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/benchforge/benchforge/internal/audit/patchcheck"
	"github.com/benchforge/benchforge/internal/audit/refindex"
	"github.com/benchforge/benchforge/internal/audit/repoprobe"
	"github.com/benchforge/benchforge/internal/audit/testbed"
	"github.com/benchforge/benchforge/internal/jdk"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/stats"
)

// Audit holds the audit job's results.
type Audit struct {
	Index   *IndexSummary        `json:"index"`
	Testbed *testbed.QuickResult `json:"testbed"`
	// StageIROC is the full method's ROC over the testbed repositories
	// (score: −log10 p), negative controls excluded.
	StageIROC  []stats.ROCPoint       `json:"stage1_roc"`
	Stage2     []Stage2Sample         `json:"stage2"`
	Stage2Eval *patchcheck.Evaluation `json:"stage2_eval"`
	// Rescore is the leaderboard re-scoring on the testbed's repositories
	// (nil when it did not run).
	Rescore *Rescore `json:"rescore,omitempty"`
}

// IndexSummary describes the reference index that was built.
type IndexSummary struct {
	Path    string       `json:"path"`
	Sources []string     `json:"sources"`
	Repos   int          `json:"repos"`
	Words   int          `json:"words"`
	Bytes   int64        `json:"bytes"`
	Lookups []WordLookup `json:"lookups"`
}

// WordLookup is the repository frequency of one word.
type WordLookup struct {
	Word  string  `json:"word"`
	Repos int     `json:"repos"`
	Frac  float64 `json:"fraction"`
}

// lookupWords are shown with their repository frequency: words every
// codebase has against words of one library.
var lookupWords = []string{"return", "self", "String", "ArrayList", "asyncio", "ConcurrentHashMap", "getSKIBytesFromCert", "PaddingLayout", "tzinfo", "MidiFileFormat"}

func (r *runner) auditIndex() (string, error) {
	srcs, err := refindex.DefaultSources(r.ctx)
	if err != nil {
		return "", err
	}
	ix, err := refindex.Build(r.ctx, srcs, refindex.Options{Progress: func(p refindex.Progress) {
		if p.Files%500 == 0 {
			r.progress(int(p.Bytes>>20), int(p.Total>>20), "MiB read")
		}
	}})
	if err != nil {
		return "", err
	}
	p := r.path("audit", "ref.idx")
	if err := ix.Save(p); err != nil {
		return "", err
	}
	st, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("demo: %w", err)
	}
	s := &IndexSummary{Path: p, Repos: ix.Repos(), Words: ix.Words(), Bytes: st.Size()}
	for _, src := range srcs {
		s.Sources = append(s.Sources, src.Path)
	}
	for _, w := range lookupWords {
		n := ix.RepoFreq(w)
		s.Lookups = append(s.Lookups, WordLookup{Word: w, Repos: n, Frac: float64(n) / float64(max(ix.Repos(), 1))})
	}
	r.res.Audit.Index = s
	return "", nil
}

func (r *runner) auditTestbed() (string, error) {
	corpus := repoprobe.DefaultCorpus(r.ctx)
	if len(corpus) == 0 {
		return "no JDK src.zip or Python standard library found", nil
	}
	work, err := os.MkdirTemp("", "benchforge-demo-testbed-")
	if err != nil {
		return "", fmt.Errorf("demo: %w", err)
	}
	defer os.RemoveAll(work)
	res, err := testbed.Quick(r.ctx, r.testbedOptions(corpus, work))
	if err != nil {
		return "", err
	}
	r.res.Audit.Testbed = res
	if err := output.WriteJSON(r.path("audit", "testbed.json"), res); err != nil {
		return "", err
	}
	rows, scores, labels := testbedRows(res)
	if roc, err := stats.ROC(scores, labels); err == nil {
		r.res.Audit.StageIROC = roc
	}
	return "", jsonl.Rewrite(r.path("audit", "stage1_verdicts.jsonl"), rows)
}

// testbedOptions are the demo's testbed settings (smaller with Quick).
func (r *runner) testbedOptions(corpus []string, work string) testbed.QuickOptions {
	o := testbed.QuickOptions{Corpus: corpus, Seed: r.opts.Seed, WorkDir: work,
		MaxQueries: 40, Samples: 6, Progress: func(msg string) { r.progress(0, 0, msg) }}
	o.MaxRepos, o.MaxFiles = 5, 30
	if r.opts.Quick {
		o.MaxRepos, o.MaxFiles, o.MaxQueries, o.Samples, o.Controls, o.Reuse = 3, 20, 25, 5, 1, 1
	}
	o.CorpusOptions.MinFiles = 15
	return o
}

// testbedRow is one line of stage1_verdicts.jsonl.
type testbedRow struct {
	Config string `json:"config"`
	repoprobe.RepoVerdict
}

// testbedRows are the testbed's verdicts per repository and
// configuration, and the full method's ROC inputs (score −log10 p against
// membership; controls and insufficient verdicts left out).
func testbedRows(res *testbed.QuickResult) ([]testbedRow, []float64, []bool) {
	var rows []testbedRow
	var scores []float64
	var labels []bool
	for _, rp := range res.Repos {
		for _, c := range testbed.Configs {
			if v, ok := rp.Verdicts[c]; ok {
				rows = append(rows, testbedRow{c, v})
			}
		}
		if v, ok := rp.Verdicts[testbed.ConfigFull]; ok && !rp.Control && v.Verdict != repoprobe.Insufficient {
			scores = append(scores, -math.Log10(math.Max(v.PValue, 1e-300)))
			labels = append(labels, rp.Seen)
		}
	}
	return rows, scores, labels
}

func (r *runner) auditStage2() (string, error) {
	src, err := jdk.SrcZip()
	if err != nil {
		return "no JDK src.zip to take real methods from: " + err.Error(), nil
	}
	samples, n, err := r.stage2Histories(src)
	if err != nil {
		return "", err
	}
	r.progress(n, n, "checking patch presence")
	if err := checkStage2(r.ctx, r.path("audit", "stage2_verdicts.jsonl"), samples); err != nil {
		return "", err
	}
	sort.SliceStable(samples, func(i, j int) bool { return samples[i].Sample.ID < samples[j].Sample.ID })
	r.res.Audit.Stage2 = samples
	return "", r.writeStage2(samples)
}

// stage2Histories picks the real methods from src.zip and builds the
// history of each; it returns their samples and the number of methods.
func (r *runner) stage2Histories(src string) ([]Stage2Sample, int, error) {
	n := len(stage2Types)
	if r.opts.Quick {
		n = 2
	}
	r.progress(0, n, "picking real methods from src.zip")
	ms, err := pickMethods(r.ctx, src, r.opts.Seed+2, stage2Types, n)
	if err != nil {
		return nil, 0, err
	}
	var samples []Stage2Sample
	for i, m := range ms {
		r.progress(i, len(ms), "building the history of "+m.Name)
		ss, err := buildHistory(r.ctx, r.path("audit", "histories", m.Name), m)
		if err != nil {
			return nil, 0, err
		}
		samples = append(samples, ss...)
	}
	return samples, len(ms), nil
}

// writeStage2 evaluates the verdicts against the labels and writes the
// samples, labels, verdicts and evaluation.
func (r *runner) writeStage2(samples []Stage2Sample) error {
	verdicts := make([]patchcheck.Verdict, len(samples))
	labels := map[string]bool{}
	type labelRow struct {
		SampleID string `json:"sample_id"`
		Label    bool   `json:"label"`
		Variant  string `json:"variant"`
	}
	var lrows []labelRow
	var srows []any
	for i, s := range samples {
		verdicts[i] = s.Verdict
		labels[s.Sample.ID] = s.Label
		lrows = append(lrows, labelRow{s.Sample.ID, s.Label, s.Variant})
		srows = append(srows, s.Sample)
	}
	ev, err := patchcheck.Evaluate(verdicts, labels)
	if err != nil {
		return err
	}
	r.res.Audit.Stage2Eval = ev
	dir := r.path("audit")
	for name, write := range map[string]func(string) error{
		"stage2_samples.jsonl":  func(p string) error { return jsonl.Rewrite(p, srows) },
		"stage2_labels.jsonl":   func(p string) error { return jsonl.Rewrite(p, lrows) },
		"stage2_verdicts.jsonl": func(p string) error { return jsonl.Rewrite(p, verdicts) },
		"stage2_eval.json":      func(p string) error { return output.WriteJSON(p, ev) },
	} {
		if err := write(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}
