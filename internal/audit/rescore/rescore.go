// Package rescore owns leaderboard re-scoring on the clean subset of a
// benchmark (benchchecker §6, Tables 6–9): given per-sample contamination
// verdicts and per-submission resolved ids, it reports each submission's
// resolution rate on all samples and on the clean (not contaminated)
// samples, the relative drop, by difficulty bucket and by submission year.
//
// Definitions (as in the paper's tables, "394/500 → 130/174 ↓5.2%"):
//
//   - all rate = resolved / samples, over every benchmark sample;
//   - clean rate = resolved clean / clean samples, where a sample is clean
//     when its verdict says not contaminated (Verdict.contaminated false,
//     or PatchVerdict.present false for a Stage II file) and the verdict
//     could tell;
//   - unjudged samples are their own bucket: no verdict, a Stage II
//     verdict unknown or not_applicable, or a combined verdict with neither
//     stage saying absent (Verdicts.Unjudged). Options.Unjudged decides
//     them: exclude (the default) leaves them out of both sides, so all and
//     clean rates are over judged samples only; clean counts them clean (an
//     optimistic clean set); contaminated counts them contaminated (a
//     conservative clean set). Every rendered rate names the policy;
//   - relative drop = (all rate − clean rate) / all rate: positive is a
//     drop, negative a rise; 0 when the all rate is 0; undefined (null)
//     when the bucket has no clean sample.
//
// By-year rows average, over the submissions dated in a year, the all and
// clean rates and the relative drop (an unweighted mean of submissions).
//
// Verdicts from a combined file are per model. With one model (or a Stage
// II file, which is model-independent) they apply to every submission;
// with several, Options.Model picks one, else each submission uses the
// model named in its models list (exact, then case-insensitive substring
// match), and submissions without one are reported in Result.Skipped.
package rescore

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/errs"
)

// Unjudged-sample policies (Options.Unjudged).
const (
	UnjudgedExclude      = "exclude"
	UnjudgedClean        = "clean"
	UnjudgedContaminated = "contaminated"
)

// ParseUnjudged reads an --unjudged value ("" is exclude).
func ParseUnjudged(v string) (string, error) {
	switch v {
	case "":
		return UnjudgedExclude, nil
	case UnjudgedExclude, UnjudgedClean, UnjudgedContaminated:
		return v, nil
	}
	return "", fmt.Errorf("--unjudged %q: want exclude, clean or contaminated: %w", v, errs.ErrUsage)
}

// Options tune Rescore.
type Options struct {
	// Model selects the verdicts of one model for every submission.
	Model string
	// Unjudged is the policy for samples whose verdict could not tell
	// (see the package doc) [exclude].
	Unjudged string
}

// Rate is resolved out of total.
type Rate struct {
	Resolved int     `json:"resolved"`
	Total    int     `json:"total"`
	Rate     float64 `json:"rate"`
}

func rate(r, n int) Rate {
	x := Rate{Resolved: r, Total: n}
	if n > 0 {
		x.Rate = float64(r) / float64(n)
	}
	return x
}

// Cell is one bucket of one submission: all vs clean.
type Cell struct {
	Bucket string `json:"bucket"`
	All    Rate   `json:"all"`
	Clean  Rate   `json:"clean"`
	// Drop is the relative drop (positive = lower on clean samples); nil
	// when the bucket has no clean sample.
	Drop *float64 `json:"relative_drop"`
	// Unjudged counts the bucket's unjudged samples, decided by the
	// result's policy (left out of All and Clean under exclude).
	Unjudged int `json:"unjudged"`
}

func cell(bucket string, all, clean Rate, unjudged int) Cell {
	c := Cell{Bucket: bucket, All: all, Clean: clean, Unjudged: unjudged}
	if clean.Total > 0 {
		d := 0.0
		if all.Rate > 0 {
			d = (all.Rate - clean.Rate) / all.Rate
		}
		c.Drop = &d
	}
	return c
}

// SubmissionResult is one leaderboard row.
type SubmissionResult struct {
	Submission string `json:"submission"`
	Name       string `json:"name,omitempty"`
	Date       string `json:"date,omitempty"` // YYYY-MM-DD, "" when unknown
	Year       int    `json:"year,omitempty"`
	// Model is the verdict model used ("" for a model-independent file).
	Model        string `json:"verdict_model"`
	Overall      Cell   `json:"overall"`
	ByDifficulty []Cell `json:"by_difficulty,omitempty"`
	// Unknown counts resolved ids that are not benchmark samples.
	Unknown int `json:"unknown_ids,omitempty"`
}

// YearResult aggregates the submissions of one year.
type YearResult struct {
	Year        int     `json:"year"`
	Submissions int     `json:"submissions"`
	AllRate     float64 `json:"mean_all_rate"`
	CleanRate   float64 `json:"mean_clean_rate"`
	Drop        float64 `json:"mean_relative_drop"`
	// ByDifficulty holds the mean relative drop per bucket (nil when no
	// submission had a clean sample there), in Result.Difficulties order.
	ByDifficulty []*float64 `json:"mean_drop_by_difficulty,omitempty"`
}

// Skip is a submission that could not be rescored.
type Skip struct {
	Submission string `json:"submission"`
	Reason     string `json:"reason"`
}

// BucketCount is the size of one difficulty bucket.
type BucketCount struct {
	Bucket   string `json:"bucket"`
	All      int    `json:"all"`
	Clean    int    `json:"clean"`
	Unjudged int    `json:"unjudged"`
}

// Result is a rescored leaderboard.
type Result struct {
	VerdictKind string `json:"verdict_kind"`
	// Samples is the benchmark size; Contaminated + Clean + Unjudged ==
	// Samples for a single verdict model, as judged, before the policy
	// (for several, see each submission's Cell).
	Samples      int `json:"samples"`
	Contaminated int `json:"contaminated"`
	Clean        int `json:"clean"`
	Unjudged     int `json:"unjudged"`
	// UnjudgedPolicy is how unjudged samples were counted: exclude, clean
	// or contaminated.
	UnjudgedPolicy string        `json:"unjudged_policy"`
	Difficulties   []string      `json:"difficulties,omitempty"`
	Buckets        []BucketCount `json:"buckets,omitempty"`
	// Submissions are sorted by all-sample resolution rate, highest first.
	Submissions []SubmissionResult `json:"submissions"`
	// ByYear is in year order; submissions without a date are left out.
	ByYear  []YearResult `json:"by_year,omitempty"`
	Skipped []Skip       `json:"skipped,omitempty"`
}

// difficultyOrder ranks known difficulty labels (SWE-bench Verified,
// Multi-SWE-bench); others sort after them by name.
var difficultyOrder = []string{"<15 min fix", "15 min - 1 hour", "1-4 hours", ">4 hours", "easy", "medium", "hard"}

func sortDifficulties(ds []string) {
	rank := func(d string) int {
		if i := slices.Index(difficultyOrder, strings.ToLower(d)); i >= 0 {
			return i
		}
		return len(difficultyOrder)
	}
	sort.SliceStable(ds, func(i, j int) bool {
		ri, rj := rank(ds[i]), rank(ds[j])
		if ri != rj {
			return ri < rj
		}
		return ds[i] < ds[j]
	})
}

// Rescore rescores subs against the verdicts. samples is the benchmark
// (its ids are the universe; difficulty gives the buckets); with no
// samples the universe is the verdict file's sample ids and there are no
// buckets.
func Rescore(samples []bench.Sample, v *Verdicts, subs []Submission, opts Options) (*Result, error) {
	if v == nil || len(v.By) == 0 {
		return nil, fmt.Errorf("rescore.Rescore: %w: no verdicts", errs.ErrInput)
	}
	if opts.Model != "" && v.By[opts.Model] == nil {
		return nil, fmt.Errorf("rescore.Rescore: %w: no verdicts for model %q (the file has %s)", errs.ErrNotFound, opts.Model, quoteList(v.Models))
	}
	policy, err := ParseUnjudged(opts.Unjudged)
	if err != nil {
		return nil, err
	}
	ids, diff := universe(samples, v)
	if len(ids) == 0 {
		return nil, fmt.Errorf("rescore.Rescore: %w: the benchmark has no samples", errs.ErrInput)
	}
	res := &Result{VerdictKind: v.Kind, Samples: len(ids), UnjudgedPolicy: policy, Difficulties: difficulties(ids, diff)}
	// The summary counts use the single model (or the chosen one).
	summaryModel := opts.Model
	if summaryModel == "" && len(v.Models) == 1 {
		summaryModel = v.Models[0]
	}
	if _, ok := v.By[summaryModel]; ok {
		res.count(v, summaryModel, ids, diff)
	}
	res.scoreAll(v, subs, opts.Model, policy, ids, diff)
	res.ByYear = byYear(res.Submissions, len(res.Difficulties))
	return res, nil
}

// difficulties is the distinct difficulties of the samples, in
// sortDifficulties order; nil when none has one.
func difficulties(ids []string, diff map[string]string) []string {
	var out []string
	seen := map[string]bool{}
	for _, id := range ids {
		if d := diff[id]; d != "" && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	sortDifficulties(out)
	return out
}

// count puts the model's verdicts, counted overall and per difficulty,
// in res.
func (res *Result) count(v *Verdicts, model string, ids []string, diff map[string]string) {
	counts := map[string]*BucketCount{}
	for _, d := range res.Difficulties {
		counts[d] = &BucketCount{Bucket: d}
	}
	for _, id := range ids {
		st := stateOf(v, model, id)
		switch st {
		case unjudged:
			res.Unjudged++
		case contaminated:
			res.Contaminated++
		default:
			res.Clean++
		}
		if bc := counts[diff[id]]; bc != nil {
			bc.add(st)
		}
	}
	for _, d := range res.Difficulties {
		res.Buckets = append(res.Buckets, *counts[d])
	}
}

// add counts a sample of the bucket in state st.
func (bc *BucketCount) add(st state) {
	bc.All++
	switch st {
	case clean:
		bc.Clean++
	case unjudged:
		bc.Unjudged++
	}
}

// scoreAll scores each submission against the verdicts of its model
// (forced: that one), best overall rate first; a submission without a
// model that has verdicts is skipped, saying why.
func (res *Result) scoreAll(v *Verdicts, subs []Submission, forced, policy string, ids []string, diff map[string]string) {
	idSet := make(map[string]bool, len(ids))
	for _, id := range ids {
		idSet[id] = true
	}
	for _, s := range subs {
		model, ok := pickModel(v, s, forced)
		if !ok {
			res.Skipped = append(res.Skipped, Skip{Submission: s.Submission,
				Reason: fmt.Sprintf("no verdicts for its models %s (verdict models: %s); choose one with --model", quoteList(s.Models), quoteList(v.Models))})
			continue
		}
		states := make(map[string]state, len(ids))
		for _, id := range ids {
			states[id] = stateOf(v, model, id)
		}
		res.Submissions = append(res.Submissions, score(s, model, states, policy, ids, idSet, diff, res.Difficulties))
	}
	sort.SliceStable(res.Submissions, func(i, j int) bool {
		a, b := res.Submissions[i].Overall.All, res.Submissions[j].Overall.All
		if a.Rate != b.Rate {
			return a.Rate > b.Rate
		}
		return res.Submissions[i].Submission < res.Submissions[j].Submission
	})
}

// universe returns the sample ids in benchmark order (or sorted verdict
// ids) and their difficulties.
func universe(samples []bench.Sample, v *Verdicts) ([]string, map[string]string) {
	diff := map[string]string{}
	var ids []string
	if len(samples) > 0 {
		for _, s := range samples {
			if _, dup := diff[s.ID]; dup {
				continue
			}
			diff[s.ID] = s.Difficulty
			ids = append(ids, s.ID)
		}
		return ids, diff
	}
	for _, m := range v.By {
		for id := range m {
			if _, ok := diff[id]; !ok {
				diff[id] = ""
				ids = append(ids, id)
			}
		}
	}
	sort.Strings(ids)
	return ids, diff
}

func pickModel(v *Verdicts, s Submission, forced string) (string, bool) {
	if forced != "" {
		return forced, true
	}
	if len(v.Models) == 1 {
		return v.Models[0], true
	}
	for _, m := range s.Models {
		if v.By[m] != nil {
			return m, true
		}
	}
	return similarModel(v.Models, s.Models)
}

// similarModel is the first verdict model whose name contains, or is
// contained in, one of the submission's model names (case-insensitive).
func similarModel(verdictModels, subModels []string) (string, bool) {
	for _, m := range subModels {
		lm := strings.ToLower(m)
		for _, vm := range verdictModels {
			lv := strings.ToLower(vm)
			if lv != "" && (strings.Contains(lm, lv) || strings.Contains(lv, lm)) {
				return vm, true
			}
		}
	}
	return "", false
}

// state is a sample's verdict as rescoring sees it.
type state int

const (
	clean state = iota
	contaminated
	unjudged
)

func stateOf(v *Verdicts, model, id string) state {
	c, ok := v.By[model][id]
	switch {
	case !ok || v.Unjudged[model][id]:
		return unjudged
	case c:
		return contaminated
	}
	return clean
}

func score(s Submission, model string, states map[string]state, policy string, ids []string, idSet map[string]bool, diff map[string]string, buckets []string) SubmissionResult {
	r := SubmissionResult{Submission: s.Submission, Name: s.Name, Model: model}
	if t, ok := s.Time(); ok {
		r.Date, r.Year = t.Format("2006-01-02"), t.Year()
	}
	resolved := make(map[string]bool, len(s.Resolved))
	for _, id := range s.Resolved {
		if idSet[id] {
			resolved[id] = true
		} else {
			r.Unknown++ // every listing of an id outside the benchmark
		}
	}
	tot := acc{}
	per := map[string]*acc{}
	for _, b := range buckets {
		per[b] = &acc{}
	}
	for _, id := range ids {
		tot.add(states[id], resolved[id], policy)
		if a := per[diff[id]]; a != nil {
			a.add(states[id], resolved[id], policy)
		}
	}
	r.Overall = tot.cell("overall")
	for _, b := range buckets {
		r.ByDifficulty = append(r.ByDifficulty, per[b].cell(b))
	}
	return r
}

// acc counts a group's samples and resolved samples, all and clean.
type acc struct{ all, allRes, clean, cleanRes, unjudged int }

// add counts a sample in state st under the unjudged policy: excluded, or
// counted in all and, with policy clean, as clean.
func (a *acc) add(st state, resolved bool, policy string) {
	if st == unjudged {
		a.unjudged++
		if policy == UnjudgedExclude {
			return
		}
	}
	a.all++
	if resolved {
		a.allRes++
	}
	if st == clean || st == unjudged && policy == UnjudgedClean {
		a.clean++
		if resolved {
			a.cleanRes++
		}
	}
}

func (a *acc) cell(bucket string) Cell {
	return cell(bucket, rate(a.allRes, a.all), rate(a.cleanRes, a.clean), a.unjudged)
}

func byYear(subs []SubmissionResult, nb int) []YearResult {
	years := map[int][]SubmissionResult{}
	for _, s := range subs {
		if s.Year != 0 {
			years[s.Year] = append(years[s.Year], s)
		}
	}
	var out []YearResult
	for y, ss := range years {
		out = append(out, yearResult(y, ss, nb))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Year < out[j].Year })
	return out
}

// yearResult averages the rates and drops of one year's submissions over
// the overall cell and each of the nb difficulty buckets.
func yearResult(y int, ss []SubmissionResult, nb int) YearResult {
	yr := YearResult{Year: y, Submissions: len(ss)}
	nd := 0
	for _, s := range ss {
		yr.AllRate += s.Overall.All.Rate
		yr.CleanRate += s.Overall.Clean.Rate
		if s.Overall.Drop != nil {
			yr.Drop += *s.Overall.Drop
			nd++
		}
	}
	yr.AllRate /= float64(len(ss))
	yr.CleanRate /= float64(len(ss))
	if nd > 0 {
		yr.Drop /= float64(nd)
	}
	for b := 0; b < nb; b++ {
		yr.ByDifficulty = append(yr.ByDifficulty, meanDrop(ss, b))
	}
	return yr
}

// meanDrop is the mean drop of bucket b over the submissions that have
// one, nil when none has.
func meanDrop(ss []SubmissionResult, b int) *float64 {
	sum, n := 0.0, 0
	for _, s := range ss {
		if d := s.ByDifficulty[b].Drop; d != nil {
			sum += *d
			n++
		}
	}
	if n == 0 {
		return nil
	}
	m := sum / float64(n)
	return &m
}

func quoteList(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}
