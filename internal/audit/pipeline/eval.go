package pipeline

import (
	"fmt"
	"math"
	"sort"

	"github.com/benchforge/benchforge/internal/audit/baselines"
	"github.com/benchforge/benchforge/internal/audit/repoprobe"
	"github.com/benchforge/benchforge/internal/audit/rescore"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/stats"
)

// Stages evaluated by Evaluate*.
const (
	StageRepo     = "repo"
	StageCombined = "combined"
)

// MethodBenchChecker names BenchChecker's own row in an evaluation.
const MethodBenchChecker = "benchchecker"

// MethodEval is one detector's row in an evaluation table (benchchecker
// Tables 2 and 3): AUC over its continuous score, and TPR / FPR of its
// decision. BenchChecker's decision is its verdict; a baseline has none,
// so its TPR / FPR are taken at the Youden-optimal threshold on the same
// labels (Decision "youden": optimistic, as a tuned threshold would be).
type MethodEval struct {
	Method    string           `json:"method"`
	N         int              `json:"n"`
	Positives int              `json:"positives"`
	Negatives int              `json:"negatives"`
	AUC       *float64         `json:"auc"` // nil when one class is empty
	TPR       float64          `json:"tpr"`
	FPR       float64          `json:"fpr"`
	Decision  string           `json:"decision"` // verdict | youden
	Threshold float64          `json:"threshold"`
	ROC       []stats.ROCPoint `json:"roc,omitempty"`
}

// StageEval is an evaluation of one stage against labels; eval-<stage>.json
// in an audit directory holds one and report.html draws its ROC curves.
type StageEval struct {
	Stage   string         `json:"stage"`
	Model   string         `json:"model,omitempty"`
	Methods []MethodEval   `json:"methods"`
	Skipped map[string]int `json:"skipped"` // unlabelled, insufficient
	Missing []string       `json:"missing,omitempty"`
}

type scored struct {
	id       string
	label    bool
	score    float64
	decision bool
	base     map[string]float64
}

// EvaluateRepos scores Stage I records against repository labels (name →
// in the training set), benchchecker Table 3: BenchChecker's score is
// −log10 p (an insufficient repository counts as p = 1 and as absent, and
// is counted in Skipped["insufficient"] too), its decision the present
// verdict; repository-level baselines are evaluated on the repositories
// that have them. With records of several models, model picks one (it is
// required then).
func EvaluateRepos(recs []RepoRecord, labels map[string]bool, model string) (*StageEval, error) {
	recs, model, err := oneModel(recs, func(r RepoRecord) string { return r.Model }, model)
	if err != nil {
		return nil, err
	}
	ev := &StageEval{Stage: StageRepo, Model: model, Skipped: map[string]int{}}
	var items []scored
	seen := map[string]bool{}
	for _, r := range recs {
		seen[r.Repo] = true
		l, ok := labels[r.Repo]
		if !ok {
			ev.Skipped["unlabelled"]++
			continue
		}
		if unprobed(r) {
			ev.Skipped[r.Verdict]++
		}
		items = append(items, repoItem(r, l))
	}
	ev.Missing = missing(labels, seen)
	return ev, ev.fill(items)
}

// unprobed reports whether Stage I could not probe the repository
// (insufficient, no clone).
func unprobed(r RepoRecord) bool {
	return r.Verdict == repoprobe.Insufficient || r.Verdict == repoprobe.NoClone
}

// repoItem is a repository's score −log10 p (p = 1 when it was not probed
// or has no p-value) and decision, with its baselines.
func repoItem(r RepoRecord, label bool) scored {
	p := r.PValue
	if unprobed(r) || p <= 0 && r.Queries == 0 {
		p = 1
	}
	it := scored{id: r.Repo, label: label, score: -math.Log10(math.Max(p, 1e-300)), decision: r.Present}
	if r.Baselines != nil {
		it.base = r.Baselines.Membership()
	}
	return it
}

// EvaluateCombined scores combined verdicts against sample labels (id →
// contaminated), benchchecker Table 2: BenchChecker's score is the
// combined score, its decision the contaminated verdict; the per-sample
// baselines come from the verdicts' evidence.
func EvaluateCombined(vs []rescore.Verdict, labels map[string]bool, model string) (*StageEval, error) {
	vs, model, err := oneModel(vs, func(v rescore.Verdict) string { return v.Model }, model)
	if err != nil {
		return nil, err
	}
	ev := &StageEval{Stage: StageCombined, Model: model, Skipped: map[string]int{}}
	var items []scored
	seen := map[string]bool{}
	for _, v := range vs {
		seen[v.SampleID] = true
		l, ok := labels[v.SampleID]
		if !ok {
			ev.Skipped["unlabelled"]++
			continue
		}
		it := scored{id: v.SampleID, label: l, score: v.Score, decision: v.Contaminated}
		if e, err := DecodeEvidence(v); err == nil {
			it.base = e.Baselines
			if len(e.Flags) > 0 {
				ev.Skipped["flagged"]++ // kept, counted for the reader
			}
		}
		items = append(items, it)
	}
	ev.Missing = missing(labels, seen)
	return ev, ev.fill(items)
}

func oneModel[T any](recs []T, model func(T) string, want string) ([]T, string, error) {
	models := map[string]bool{}
	for _, r := range recs {
		models[model(r)] = true
	}
	if want == "" {
		if len(models) > 1 {
			var names []string
			for m := range models {
				names = append(names, m)
			}
			sort.Strings(names)
			return nil, "", fmt.Errorf("evaluate: records of %d models (%v); pick one with --model: %w", len(names), names, errs.ErrUsage)
		}
		for m := range models {
			want = m
		}
		return recs, want, nil
	}
	var out []T
	for _, r := range recs {
		if model(r) == want {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, "", fmt.Errorf("evaluate: no record of model %q: %w", want, errs.ErrNotFound)
	}
	return out, want, nil
}

func missing(labels, seen map[string]bool) []string {
	var out []string
	for id := range labels {
		if !seen[id] {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// fill computes BenchChecker's row and one row per baseline present.
func (ev *StageEval) fill(items []scored) error {
	if len(items) == 0 {
		return fmt.Errorf("evaluate %s: no labelled record: %w", ev.Stage, errs.ErrInput)
	}
	ev.Methods = append(ev.Methods, ev.benchChecker(items))
	for _, name := range baselines.Methods {
		if me, ok := baselineEval(name, items); ok {
			ev.Methods = append(ev.Methods, me)
		}
	}
	return nil
}

// benchChecker evaluates BenchChecker's score and its verdict.
func (ev *StageEval) benchChecker(items []scored) MethodEval {
	var scores []float64
	var labels, dec []bool
	for _, it := range items {
		scores = append(scores, it.score)
		labels = append(labels, it.label)
		dec = append(dec, it.decision)
	}
	bc := method(MethodBenchChecker, scores, labels)
	bc.Decision = "verdict"
	bc.TPR, bc.FPR = rates(labels, dec)
	if ev.Stage == StageCombined {
		bc.Threshold = 0.5 // combined score ≥ ½ ⇔ contaminated
	}
	return bc
}

// baselineEval evaluates one baseline on the items with a finite score
// of it, deciding at the Youden-optimal threshold; ok is false when no
// item has one.
func baselineEval(name string, items []scored) (me MethodEval, ok bool) {
	var s []float64
	var l []bool
	for _, it := range items {
		if v, ok := it.base[name]; ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			s = append(s, v)
			l = append(l, it.label)
		}
	}
	if len(s) == 0 {
		return MethodEval{}, false
	}
	me = method(name, s, l)
	me.Decision = "youden"
	if y, err := stats.Youden(s, l); err == nil {
		me.TPR, me.FPR = y.TPR, y.FPR
		if !math.IsInf(y.Threshold, 0) {
			me.Threshold = y.Threshold
		} else {
			me.Decision = "youden: no threshold beats chance"
		}
	}
	return me, true
}

func method(name string, scores []float64, labels []bool) MethodEval {
	me := MethodEval{Method: name, N: len(scores)}
	for _, l := range labels {
		if l {
			me.Positives++
		} else {
			me.Negatives++
		}
	}
	if a, err := stats.AUC(scores, labels); err == nil {
		me.AUC = &a
	}
	if roc, err := stats.ROC(scores, labels); err == nil {
		me.ROC = roc
	}
	return me
}

func rates(labels, dec []bool) (tpr, fpr float64) {
	var tp, fp, pos, neg int
	for i, l := range labels {
		if l {
			pos++
			if dec[i] {
				tp++
			}
		} else {
			neg++
			if dec[i] {
				fp++
			}
		}
	}
	if pos > 0 {
		tpr = float64(tp) / float64(pos)
	}
	if neg > 0 {
		fpr = float64(fp) / float64(neg)
	}
	return tpr, fpr
}
