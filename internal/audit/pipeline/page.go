package pipeline

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/benchforge/benchforge/internal/audit/baselines"
	"github.com/benchforge/benchforge/internal/audit/patchcheck"
	"github.com/benchforge/benchforge/internal/audit/repoprobe"
	"github.com/benchforge/benchforge/internal/audit/rescore"
	"github.com/benchforge/benchforge/internal/audit/testbed"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/report"
)

// BuildPage builds the audit report from an audit's message stream
// (Replay's): the summary (the audit_run summary), per-repository p-values
// (repo_verdict records), the verdict table (verdict records, with the
// patch_verdict records as their evidence), baselines, ROC curves
// (stage_eval records) and the sections of the rescore and testbed
// records. Messages of other kinds are not shown.
func BuildPage(msgs []output.Message) (*report.Page, error) {
	a := &audit{}
	for _, m := range msgs {
		switch {
		case m.Record != nil:
			a.add(*m.Record)
		case m.Summary != nil && m.Summary.Kind == KindRun:
			a.manifest, _ = valueOf[Manifest](m.Summary.Value)
		}
	}
	p := &report.Page{Title: "benchforge contamination audit", Subtitle: "benchchecker: contaminated = repository present ∧ patch present at the cutoff"}
	if err := a.runSections(p); err != nil {
		return nil, err
	}
	if err := a.otherSections(p); err != nil {
		return nil, err
	}
	return p, nil
}

// add keeps a record of a kind the report shows.
func (a *audit) add(r output.Record) {
	switch r.Kind {
	case KindRepoVerdict:
		appendValue(&a.repos, r.Value)
	case KindPatchVerdict:
		appendValue(&a.patches, r.Value)
	case KindVerdict:
		appendValue(&a.verdicts, r.Value)
	case KindStageEval:
		if ev, ok := valueOf[StageEval](r.Value); ok {
			a.evals = append(a.evals, ev)
		}
	case KindRescore:
		a.rs, _ = valueOf[rescore.Result](r.Value)
	case KindTestbed:
		a.tb, _ = valueOf[testbed.QuickResult](r.Value)
	}
}

// valueOf returns v when it is a T or a non-nil *T.
func valueOf[T any](v any) (*T, bool) {
	switch x := v.(type) {
	case T:
		return &x, true
	case *T:
		return x, x != nil
	}
	return nil, false
}

// appendValue appends v to list when it is a T or a non-nil *T.
func appendValue[T any](list *[]T, v any) {
	if x, ok := valueOf[T](v); ok {
		*list = append(*list, *x)
	}
}

// runSections are the sections of the audit run itself: its summary,
// Stage I and the per-sample verdicts.
func (a *audit) runSections(p *report.Page) error {
	if a.manifest != nil {
		p.Generated = a.manifest.Started.Add(time.Duration(a.manifest.WallSeconds * float64(time.Second)))
		summary(p, a.manifest, a.verdicts)
	}
	if len(a.repos) > 0 {
		if err := repoSection(p, a.repos); err != nil {
			return err
		}
	}
	if len(a.verdicts) > 0 {
		verdictSection(p, a.verdicts, patchesBySample(a.patches))
	}
	return nil
}

// otherSections are the sections of the other commands' outputs kept in
// the directory: evaluations, rescoring and the testbed.
func (a *audit) otherSections(p *report.Page) error {
	if len(a.evals) > 0 {
		if err := evalSection(p, a.evals); err != nil {
			return err
		}
	}
	if a.rs != nil {
		rp, err := a.rs.Page("")
		if err != nil {
			return err
		}
		p.Sections = append(p.Sections, rp.Sections...)
	}
	if a.tb != nil {
		testbedSection(p, a.tb)
	}
	return nil
}

// patchesBySample is the Stage II verdicts by sample, for the evidence of
// each row; a later verdict of a sample replaces an earlier one.
func patchesBySample(vs []patchcheck.Verdict) map[string]patchcheck.Verdict {
	out := map[string]patchcheck.Verdict{}
	for _, v := range vs {
		out[v.SampleID] = v
	}
	return out
}

func summary(p *report.Page, m *Manifest, vs []rescore.Verdict) {
	sec := p.AddSection("summary", "Summary")
	status := "complete"
	if !m.Complete {
		status = "incomplete (rerun to resume)"
	}
	c := m.Counts
	kv := &report.KeyValues{Items: []report.KV{
		{Key: "benchmark", Value: m.Benchmark},
		{Key: "target model", Value: m.Model},
		{Key: "reference model", Value: or(m.Reference, "none")},
		{Key: "training cutoff", Value: m.Cutoff},
		{Key: "α", Value: report.Cell(m.Alpha)},
		{Key: "status", Value: status},
		{Key: "samples", Value: fmt.Sprint(c.Samples)},
		{Key: "contaminated", Value: fmt.Sprintf("%d (%s)", c.Contaminated, pct(c.Contaminated, c.Samples))},
		{Key: "clean", Value: fmt.Sprintf("%d, of which %d flagged (a stage could not tell)", c.Clean, c.Flagged)},
		{Key: "repositories", Value: fmt.Sprintf("%d: %d present, %d absent, %d insufficient, %d without a local clone", c.Repos, c.RepoPresent, c.RepoAbsent, c.RepoInsufficient, c.RepoNoClone)},
		{Key: "patches", Value: fmt.Sprintf("%d present, %d absent, %d unknown, %d not applicable", c.PatchPresent, c.PatchAbsent, c.PatchUnknown, c.PatchNA)},
		{Key: "target probe calls", Value: fmt.Sprintf("%d (%d saved by sequential stopping)", m.TargetCalls, m.CallsSaved)},
		{Key: "clean.jsonl", Value: fmt.Sprintf("%d kept, %d dropped (%s format)", m.Clean.Kept, m.Clean.Dropped, m.Clean.Format)},
		{Key: "wall time", Value: fmt.Sprintf("%.1f s", m.WallSeconds)},
	}}
	if m.LLM != nil {
		kv.Items = append(kv.Items, report.KV{Key: "model calls", Value: fmt.Sprintf("%d provider calls, %d cache hits, %d+%d tokens, $%.4f",
			m.LLM.Calls, m.LLM.CacheHits, m.LLM.PromptTokens, m.LLM.CompletionTokens, m.LLM.CostUSD)})
	}
	sec.Add(kv)
	for _, n := range m.Notes {
		sec.Add(&report.Paragraph{Text: "Note: " + n})
	}
	if len(m.Problems) > 0 {
		sec.Add(&report.Paragraph{Text: fmt.Sprintf("%d benchmark records were skipped as invalid; see manifest.json.", len(m.Problems))})
	}
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func pct(a, b int) string {
	if b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}

func repoSection(p *report.Page, repos []RepoRecord) error {
	sec := p.AddSection("repositories", "Stage I: repository presence")
	sort.Slice(repos, func(i, j int) bool {
		if repos[i].Model != repos[j].Model {
			return repos[i].Model < repos[j].Model
		}
		return repos[i].Repo < repos[j].Repo
	})
	var cats []string
	var vals [][]float64
	alpha := math.NaN()
	t := &report.Table{Caption: "One row per repository and model (repos.jsonl).",
		Header: []string{"repository", "model", "verdict", "p-value", "p-value kind", "queries", "probed", "stopped early", "hits", "weighted hits", "P0", "calls", "calls saved", "files", "loss", "min-k%", "reason"}}
	for _, r := range repos {
		label := r.Repo
		if len(repos) > 1 && r.Model != repos[0].Model {
			label += " · " + r.Model
		}
		cats = append(cats, label)
		vals = append(vals, []float64{math.Max(r.PValue, 1e-300)})
		if r.Alpha > 0 {
			alpha = r.Alpha
		}
		loss, mink := "", ""
		if r.Baselines != nil {
			loss, mink = report.Cell(r.Baselines.Loss), report.Cell(r.Baselines.MinK)
		}
		kind, early := or(r.PValueKind, "-"), "no"
		if r.StoppedEarly {
			early = "yes"
		}
		t.AddRow(r.Repo, r.Model, r.Verdict, fmt.Sprintf("%.3g", r.PValue), kind, r.Queries, r.Probed, early, r.Hits, r.WeightedHits, r.P0, r.Calls, r.CallsSaved, r.Files, loss, mink, r.Reason)
	}
	svg, err := report.Strip("Repository presence p-values", "p-value (log scale)", cats, vals, alpha, true)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	sec.Add(&report.Plot{Caption: "Per-repository p-values of the presence test (left of the α line: present). Insufficient repositories and those without a local clone sit at p = 1. " +
		"Sequential runs report the always-valid p-value (valid whenever probing stopped); --fixed-n runs report Eq. 5 over every query.", SVG: svg}, t)
	return nil
}

// sampleVerdict is contaminated, clean or unjudged (neither stage said
// absent and not both present: the audit could not tell).
func sampleVerdict(v rescore.Verdict, ev Evidence) string {
	switch {
	case v.Contaminated:
		return "contaminated"
	case ev.RepoVerdict == repoprobe.Absent || ev.PatchVerdict == patchcheck.Absent:
		return "clean"
	}
	return "unjudged"
}

// evidenceText is a sample's evidence, for its expandable row: both
// stages' verdicts and reasons, each patch block with its matched lines,
// and the test run when there was one.
func evidenceText(ev Evidence, pv *patchcheck.Verdict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Stage I  %s: %s (p = %.3g, %d queries, weighted hits %.2f)\n  %s\n", ev.Repo, ev.RepoVerdict, ev.PValue, ev.Queries, ev.WeightedHits, ev.RepoReason)
	fmt.Fprintf(&b, "Stage II %s (score %.3f, threshold %.2f, method %s)\n  %s\n", ev.PatchVerdict, ev.PatchScore, ev.PatchThreshold, or(ev.PatchMethod, "-"), ev.PatchReason)
	if ev.SnapshotCommit != "" {
		fmt.Fprintf(&b, "snapshot commit %s\n", ev.SnapshotCommit)
	}
	if pv != nil {
		for i, bl := range pv.Blocks {
			fmt.Fprintf(&b, "\nblock %d: %s %s in %s (%s, localised %s), similarity %.3f, passed %v\n", i+1, bl.Kind, bl.Function, or(bl.SnapshotFile, bl.File), or(bl.FileVia, "-"), bl.Localized, bl.Similarity, bl.Passed)
			for _, ml := range bl.MatchedLines {
				at := "no match"
				if ml.Line > 0 {
					at = fmt.Sprintf("line %d: %s", ml.Line, ml.Snapshot)
				}
				fmt.Fprintf(&b, "  %-7s %s\n          → %s\n", ml.Role, ml.Patch, at)
			}
		}
		if pv.Tests != nil {
			fmt.Fprintf(&b, "\ntests: passed %v; %s", pv.Tests.Passed, pv.Tests.Detail)
			if pv.Tests.Error != "" {
				fmt.Fprintf(&b, "; %s", pv.Tests.Error)
			}
			b.WriteString("\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// verdictSection is the per-sample verdicts: counts per repository, one
// row per sample with its evidence, the logit baselines and why patch
// verdicts are unknown.
func verdictSection(p *report.Page, vs []rescore.Verdict, patches map[string]patchcheck.Verdict) {
	sec := p.AddSection("verdicts", "Per-sample verdicts")
	sec.Add(repoCountTable(vs), sampleTable(vs, patches))
	if bt := baselineTable(vs); len(bt.Rows) > 0 {
		sec.Add(bt)
	}
	if rt := unknownTable(vs); rt != nil {
		sec.Add(rt)
	}
}

// sampleTable is one row per sample, expandable to its evidence.
func sampleTable(vs []rescore.Verdict, patches map[string]patchcheck.Verdict) *report.Table {
	t := &report.Table{Caption: "verdicts.jsonl: contaminated = repository present ∧ patch present; unjudged = neither stage could say absent (no clone, insufficient, patch unknown). Click a header to sort; expand a row for its evidence.",
		Header: []string{"sample", "verdict", "score", "reason", "repository", "repo verdict", "p-value", "patch verdict", "patch score", "method", "flags", "model"}, Details: []string{}}
	for _, v := range vs {
		ev, _ := DecodeEvidence(v) // a malformed evidence object leaves the columns empty
		var pv *patchcheck.Verdict
		if x, ok := patches[v.SampleID]; ok {
			pv = &x
		}
		t.AddRow(v.SampleID, sampleVerdict(v, ev), v.Score, sampleReason(ev), ev.Repo, ev.RepoVerdict, fmt.Sprintf("%.3g", ev.PValue), ev.PatchVerdict, ev.PatchScore, ev.PatchMethod,
			strings.Join(ev.Flags, " "), v.Model)
		t.Details = append(t.Details, evidenceText(ev, pv))
	}
	return t
}

// sampleReason is the reason of the stage that decided: the patch's when
// the repository is present (or gave no reason), else the repository's.
func sampleReason(ev Evidence) string {
	if ev.RepoVerdict != repoprobe.Present && ev.RepoReason != "" {
		return ev.RepoReason
	}
	return ev.PatchReason
}

// repoCount counts a repository's samples by verdict.
type repoCount struct{ samples, contaminated, clean, unjudged int }

func (c *repoCount) add(verdict string) {
	c.samples++
	switch verdict {
	case "contaminated":
		c.contaminated++
	case "clean":
		c.clean++
	default:
		c.unjudged++
	}
}

// share is the contaminated share of the judged samples, n/a when none is.
func (c *repoCount) share() string {
	if j := c.contaminated + c.clean; j > 0 {
		return fmt.Sprintf("%.3f", float64(c.contaminated)/float64(j))
	}
	return "n/a"
}

// repoCountTable counts each repository's samples by verdict, in name
// order.
func repoCountTable(vs []rescore.Verdict) *report.Table {
	byRepo := map[string]*repoCount{}
	for _, v := range vs {
		ev, _ := DecodeEvidence(v)
		rc := byRepo[ev.Repo]
		if rc == nil {
			rc = &repoCount{}
			byRepo[ev.Repo] = rc
		}
		rc.add(sampleVerdict(v, ev))
	}
	rt := &report.Table{Caption: "Per repository: the contaminated share is over judged samples; a repository whose samples are all unjudged shows n/a.",
		Header: []string{"repository", "samples", "contaminated", "clean", "unjudged", "contaminated share (judged)"}}
	for _, r := range slices.Sorted(maps.Keys(byRepo)) {
		c := byRepo[r]
		rt.AddRow(r, c.samples, c.contaminated, c.clean, c.unjudged, c.share())
	}
	return rt
}

// baselineTable is the logit baseline scores of the samples that have
// them, an empty cell for a method without a score.
func baselineTable(vs []rescore.Verdict) *report.Table {
	bt := &report.Table{Caption: "Logit baselines per sample (membership-oriented: higher = more likely seen).",
		Header: append([]string{"sample", "contaminated"}, baselines.Methods...)}
	for _, v := range vs {
		ev, _ := DecodeEvidence(v)
		if len(ev.Baselines) == 0 {
			continue
		}
		row := []any{v.SampleID, v.Contaminated}
		for _, m := range baselines.Methods {
			if x, ok := ev.Baselines[m]; ok {
				row = append(row, x)
			} else {
				row = append(row, "")
			}
		}
		bt.AddRow(row...)
	}
	return bt
}

// unknownTable counts the reasons of the unknown patch verdicts, in
// reason order; nil when there are none.
func unknownTable(vs []rescore.Verdict) *report.Table {
	reasons := map[string]int{}
	for _, v := range vs {
		ev, _ := DecodeEvidence(v)
		if ev.PatchVerdict == patchcheck.Unknown && ev.PatchReason != "" {
			reasons[ev.PatchReason]++
		}
	}
	if len(reasons) == 0 {
		return nil
	}
	rt := &report.Table{Caption: "Why patch verdicts are unknown.", Header: []string{"reason", "samples"}}
	for _, r := range slices.Sorted(maps.Keys(reasons)) {
		rt.AddRow(r, reasons[r])
	}
	return rt
}

func evalSection(p *report.Page, evals []*StageEval) error {
	sec := p.AddSection("evaluation", "Evaluation against labels")
	for _, ev := range evals {
		t := &report.Table{Caption: fmt.Sprintf("Stage %s (%s): AUC over each method's score; TPR/FPR of BenchChecker's verdict, of baselines at the Youden-optimal threshold.", ev.Stage, or(ev.Model, "all models")),
			Header: []string{"method", "n", "positives", "negatives", "AUC", "TPR", "FPR", "decision"}}
		var curves []report.Series
		for _, me := range ev.Methods {
			auc := "n/a"
			if me.AUC != nil {
				auc = fmt.Sprintf("%.3f", *me.AUC)
			}
			t.AddRow(me.Method, me.N, me.Positives, me.Negatives, auc, fmt.Sprintf("%.3f", me.TPR), fmt.Sprintf("%.3f", me.FPR), me.Decision)
			if len(me.ROC) > 0 {
				s := report.Series{Label: fmt.Sprintf("%s (AUC %s)", me.Method, auc)}
				for _, pt := range me.ROC {
					s.X, s.Y = append(s.X, pt.FPR), append(s.Y, pt.TPR)
				}
				curves = append(curves, s)
			}
		}
		sec.Add(t)
		if len(curves) > 0 {
			svg, err := report.ROC(fmt.Sprintf("ROC, stage %s", ev.Stage), curves)
			if err != nil {
				return fmt.Errorf("report: %w", err)
			}
			sec.Add(&report.Plot{Caption: fmt.Sprintf("ROC curves of stage %s against the labels.", ev.Stage), SVG: svg})
		}
	}
	return nil
}

func testbedSection(p *report.Page, tb *testbed.QuickResult) {
	sec := p.AddSection("testbed", "Known-membership testbed (benchchecker §5.2)")
	t := &report.Table{Caption: "Stage I on repositories of known membership, with the Table 5 ablations.",
		Header: []string{"configuration", "AUC", "TPR", "FPR", "P0", "calls", "repositories"}}
	for _, c := range tb.Summary {
		auc := "n/a"
		if c.AUC != nil {
			auc = fmt.Sprintf("%.3f", *c.AUC)
		}
		t.AddRow(c.Config, auc, fmt.Sprintf("%.3f", c.TPR), fmt.Sprintf("%.3f", c.FPR), c.P0, c.Calls, c.Repos)
	}
	sec.Add(t)
	for _, n := range tb.Notes {
		sec.Add(&report.Paragraph{Text: "Note: " + n})
	}
}
