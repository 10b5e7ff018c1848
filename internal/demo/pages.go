package demo

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/benchforge/benchforge/internal/audit/repoprobe"
	"github.com/benchforge/benchforge/internal/audit/testbed"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/report"
	"github.com/benchforge/benchforge/internal/stats"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/fidelity"
	"github.com/benchforge/benchforge/internal/synth/jvm"
)

// Page file names inside Out.
const (
	PageOverview   = "report.html"
	PageAudit      = "audit.html"
	PageSynth      = "synth.html"
	PageFidelity   = "fidelity.html"
	PageEvaluation = "evaluation.html"
)

// nav is the navigation bar every page carries.
func nav(res *Result) []report.Link {
	l := []report.Link{{Text: "Overview", Href: PageOverview}, {Text: "Audit", Href: PageAudit}, {Text: "Synth", Href: PageSynth}}
	if res.Synth != nil && res.Synth.Fidelity != nil {
		l = append(l, report.Link{Text: "Fidelity", Href: PageFidelity})
	}
	if res.Synth != nil && res.Synth.Evaluation != nil {
		l = append(l, report.Link{Text: "Evaluation", Href: PageEvaluation})
	}
	return l
}

func (r *runner) report() (string, error) {
	// The pages are rendered from summary.json, the record every earlier
	// step wrote, as RenderDir does for a rerender.
	if err := output.WriteJSON(r.path("summary.json"), r.res); err != nil {
		return "", err
	}
	pages, err := RenderDir(r.opts.Out)
	if err != nil {
		return "", err
	}
	r.res.Report, r.res.Pages = r.path(PageOverview), pages
	return "", output.WriteJSON(r.path("summary.json"), r.res)
}

// RenderDir re-renders every page from DIR/summary.json and returns the
// paths written.
func RenderDir(dir string) ([]string, error) {
	p := filepath.Join(dir, "summary.json")
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("demo: render: %w: %w (run `benchforge demo --out %s` first)", errs.ErrNotFound, err, dir)
	}
	res := new(Result)
	if err := json.Unmarshal(b, res); err != nil {
		return nil, fmt.Errorf("demo: render: %s: %w: %w", p, errs.ErrInput, err)
	}
	pages, err := Pages(res)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, name := range []string{PageOverview, PageAudit, PageSynth, PageFidelity, PageEvaluation} {
		pg, ok := pages[name]
		if !ok {
			continue
		}
		var buf bytes.Buffer
		if err := report.Render(&buf, pg); err != nil {
			return nil, fmt.Errorf("demo: render %s: %w", name, err)
		}
		path := filepath.Join(dir, name)
		if err := output.WriteFile(path, buf.Bytes()); err != nil {
			return nil, err
		}
		out = append(out, path)
	}
	return out, nil
}

// Pages builds every page of the demo report from a Result.
func Pages(res *Result) (map[string]*report.Page, error) {
	gen := res.Started.Add(time.Duration(res.Seconds * float64(time.Second)))
	pages := map[string]*report.Page{}
	ov, err := overviewPage(res)
	if err != nil {
		return nil, err
	}
	pages[PageOverview] = ov
	if pages[PageAudit], err = auditPage(res); err != nil {
		return nil, err
	}
	if pages[PageSynth], err = synthPage(res); err != nil {
		return nil, err
	}
	if s := res.Synth; s != nil && s.Fidelity != nil {
		if pages[PageFidelity], err = s.Fidelity.Page(); err != nil {
			return nil, err
		}
	}
	if s := res.Synth; s != nil && s.Evaluation != nil {
		if pages[PageEvaluation], err = s.Evaluation.Page(); err != nil {
			return nil, err
		}
	}
	for _, p := range pages {
		p.Nav, p.Generated = nav(res), gen
	}
	return pages, nil
}

func f3(x float64) string { return fmt.Sprintf("%.3f", x) }

func overviewPage(res *Result) (*report.Page, error) {
	p := &report.Page{Title: "benchforge demo", Subtitle: "Both jobs, offline, on the code this machine already has"}
	kv := []report.KV{{Key: "wall time", Value: fmt.Sprintf("%.0f s", res.Seconds)}, {Key: "mode", Value: map[bool]string{true: "quick", false: "full"}[res.Quick]}}
	if a := res.Audit; a != nil {
		kv = append(kv, auditHeadlines(a)...)
	}
	if s := res.Synth; s != nil {
		kv = append(kv, synthHeadlines(s)...)
	}
	p.AddSection("summary", "Summary").Add(&report.KeyValues{Items: kv},
		&report.Paragraph{Text: "Audit: a built-in n-gram model plays the target LLM; it was trained on a known half of the repositories, so Stage I's verdicts can be scored. Stage II checks whether a gold patch persists at a training cutoff in git histories built from real JDK methods. Synth: real-style seed pairs condition an offline mutation generator; the pairs are gated, run on the JVM, compared with the seeds and used to train detectors tested on the seeds."})
	steps := &report.Table{Caption: "Steps", Header: []string{"step", "seconds", "note"}}
	for _, s := range res.Steps {
		steps.AddRow(s.Name, s.Seconds, s.Skipped)
	}
	if a := res.Audit; a != nil && a.Rescore != nil && a.Rescore.Result != nil {
		// report.html carries the re-scoring headline table and plot so the
		// one file shows the per-difficulty drops; the audit page has the
		// rest.
		x := a.Rescore
		sec := p.AddSection("rescore", "Re-scoring on clean samples (§6)").Add(&report.Paragraph{Text: rescoreIntro(x) + " Details: " + PageAudit + "#rescore."})
		sec.Add(x.Result.Tables()[0])
		if err := addDropPlot(sec, x); err != nil {
			return nil, err
		}
	}
	p.AddSection("steps", "Steps").Add(steps)
	p.AddSection("outputs", "Outputs").Add(outputsTable(res))
	if len(res.Notes) > 0 {
		p.AddSection("notes", "Notes").Add(&report.Paragraph{Text: strings.Join(res.Notes, " · ")})
	}
	return p, nil
}

// auditHeadlines are the audit's figures in the overview's summary.
func auditHeadlines(a *Audit) []report.KV {
	var kv []report.KV
	if tb := a.Testbed; tb != nil && len(tb.Summary) > 0 {
		s := tb.Summary[0]
		kv = append(kv, report.KV{Key: "Stage I (repository presence)", Value: fmt.Sprintf("AUC %s · TPR %s · FPR %s over %d repositories", aucStr(s.AUC), f3(s.TPR), f3(s.FPR), s.Repos)})
	}
	if e := a.Stage2Eval; e != nil {
		kv = append(kv, report.KV{Key: "Stage II (patch presence)", Value: fmt.Sprintf("AUC %s · TPR %s · FPR %s over %d samples", f3(e.AUC), f3(e.TPR), f3(e.FPR), e.N)})
	}
	if x := a.Rescore; x != nil && x.Result != nil {
		kv = append(kv, report.KV{Key: "re-scoring (all → clean samples)", Value: rescoreHeadline(x.Result)})
	}
	return kv
}

// synthHeadlines are the synth job's figures in the overview's summary.
func synthHeadlines(s *Synth) []report.KV {
	kv := []report.KV{{Key: "seeds", Value: fmt.Sprintf("%d real pairs (%d excluded by F3/F4)", len(s.Seeds), len(s.Excluded))}}
	if s.Gate != nil {
		kv = append(kv, report.KV{Key: "synthetic pairs", Value: fmt.Sprintf("%d accepted of %d candidates", s.Accepted, s.Gate.Total)})
	}
	if v := s.Verify; v != nil {
		c := v.Table.Pooled.C
		kv = append(kv, report.KV{Key: "JVM-confirmed (criterion c)", Value: fmt.Sprintf("%d/%d (%.1f%%)", c.K, c.N, 100*c.Rate)})
	}
	return kv
}

// outputsTable lists the outputs the run left: pages from the navigation
// (not from the disk, so a re-render gives the same page), records that
// exist in the output folder.
func outputsTable(res *Result) *report.Table {
	files := &report.Table{Caption: "Outputs (paths relative to the output folder)", Header: []string{"file", "holds"}}
	pages := map[string]bool{"summary.json": true}
	for _, l := range nav(res) {
		pages[l.Href] = true
	}
	for _, f := range outputFiles {
		if strings.HasSuffix(f[0], ".html") || f[0] == "summary.json" {
			if pages[f[0]] {
				files.AddRow(f[0], f[1])
			}
			continue
		}
		if _, err := os.Stat(filepath.Join(res.Out, f[0])); err == nil {
			files.AddRow(f[0], f[1])
		}
	}
	return files
}

// outputFiles lists the files a demo writes, with what each holds.
var outputFiles = [][2]string{
	{"report.html", "this overview; links the job pages"},
	{"audit.html", "audit job: index, Stage I testbed, Stage II, re-scoring"},
	{"synth.html", "synth job: seeds, generation, gates, JVM, fidelity and evaluation headlines"},
	{"fidelity.html", "full fidelity report (rxsynth §6)"},
	{"evaluation.html", "full leakage-controlled evaluation report (rxsynth §7)"},
	{"summary.json", "every figure above, as JSON (pages are rendered from it)"},
	{"audit/ref.idx", "reference index (word → repositories), loadable by `benchforge audit` --index"},
	{"audit/testbed.json", "Stage I testbed result: repositories, labels, verdicts per configuration"},
	{"audit/stage1_verdicts.jsonl", "one RepoVerdict per repository and configuration"},
	{"audit/histories", "the Stage II git repositories (inspect with git log --all --graph)"},
	{"audit/stage2_samples.jsonl", "Stage II samples (bench.Sample)"},
	{"audit/stage2_labels.jsonl", "known labels of the Stage II samples"},
	{"audit/stage2_verdicts.jsonl", "one PatchVerdict per sample with its matched lines"},
	{"audit/stage2_eval.json", "Stage II AUC/TPR/FPR and ROC"},
	{"audit/rescore/benchmark.jsonl", "re-scoring benchmark: mutation bugs in the testbed's Java repositories, with difficulty (bench.Sample)"},
	{"audit/rescore/runs.jsonl", "each model's loss on the fixed and buggy method of every sample, and whether it resolved it"},
	{"audit/rescore/stage1_verdicts.jsonl", "each model's Stage I verdict on the benchmark repositories"},
	{"audit/rescore/stage2_verdicts.jsonl", "Stage II verdict per benchmark sample"},
	{"audit/rescore/verdicts.jsonl", "combined verdict per sample and model (rescore.Verdict)"},
	{"audit/rescore/leaderboard.jsonl", "the models' resolved samples as leaderboard submissions"},
	{"audit/rescore/rescore.json", "re-scored leaderboard (also rescore.md), as `benchforge audit rescore` computes it"},
	{"audit/rescore/repos", "the benchmark's git repositories (import with the bugs, then the fix)"},
	{"synth/seeds.jsonl", "real seed pairs (corpus.Seed)"},
	{"synth/candidates.jsonl", "generated candidates (append-only)"},
	{"synth/attempts.jsonl", "every generation attempt (append-only)"},
	{"synth/pairs.jsonl", "pairs accepted by the gates (corpus.Pair)"},
	{"synth/rejections.jsonl", "rejected candidates with their cause"},
	{"synth/executions.jsonl", "JVM verification record per pair"},
	{"synth/fidelity.json", "fidelity statistics"},
	{"synth/evaluation.json", "evaluation statistics"},
	{"synth/folds.jsonl", "fold assignment of the source bugs"},
	{"synth/predictions.jsonl", "every out-of-fold prediction"},
}

func aucStr(a *float64) string {
	if a == nil {
		return "n/a"
	}
	return f3(*a)
}

func auditPage(res *Result) (*report.Page, error) {
	p := &report.Page{Title: "Audit", Subtitle: "Contamination audit on known membership (benchchecker §3–§5)"}
	a := res.Audit
	if a == nil {
		a = &Audit{}
	}
	idx := p.AddSection("index", "Reference index")
	if s := a.Index; s != nil {
		idx.Add(&report.KeyValues{Items: []report.KV{
			{Key: "repositories", Value: fmt.Sprint(s.Repos)}, {Key: "distinct words", Value: fmt.Sprint(s.Words)},
			{Key: "file", Value: fmt.Sprintf("%s (%d bytes)", filepath.Base(s.Path), s.Bytes)},
			{Key: "sources", Value: strings.Join(s.Sources, ", ")},
		}})
		t := &report.Table{Caption: "Distinctiveness: repositories containing a word", Header: []string{"word", "repositories", "fraction"}}
		for _, l := range s.Lookups {
			t.AddRow(l.Word, l.Repos, l.Frac)
		}
		idx.Add(t)
	} else {
		idx.Add(&report.Paragraph{Text: "Not built: " + skipNote(res, "audit/index")})
	}
	s1 := p.AddSection("stage1", "Stage I: repository presence (testbed)")
	if tb := a.Testbed; tb != nil {
		if err := stage1Blocks(s1, a); err != nil {
			return nil, err
		}
	} else {
		s1.Add(&report.Paragraph{Text: "Not run: " + skipNote(res, "audit/testbed")})
	}
	s2 := p.AddSection("stage2", "Stage II: patch presence at the cutoff")
	if len(a.Stage2) > 0 && a.Stage2Eval != nil {
		if err := stage2Blocks(s2, a); err != nil {
			return nil, err
		}
	} else {
		s2.Add(&report.Paragraph{Text: "Not run: " + skipNote(res, "audit/stage2")})
	}
	rs := p.AddSection("rescore", "Re-scoring on clean samples (§6)")
	if a.Rescore != nil {
		if err := rescoreBlocks(rs, a.Rescore); err != nil {
			return nil, err
		}
	} else {
		rs.Add(&report.Paragraph{Text: "Not run: " + skipNote(res, "audit/rescore")})
	}
	return p, nil
}

func stage1Blocks(s *report.Section, a *Audit) error {
	tb := a.Testbed
	sum := &report.Table{Caption: "Configurations (benchchecker Table 5 ablations)", Header: []string{"configuration", "AUC", "TPR", "FPR", "P0", "calls", "repositories"}}
	for _, c := range tb.Summary {
		sum.AddRow(c.Config, aucStr(c.AUC), c.TPR, c.FPR, c.P0, c.Calls, c.Repos)
	}
	repos := &report.Table{Caption: "Repositories (full method)", Header: []string{"repository", "lang", "label", "files", "queries", "hits", "weighted hits", "p-value", "verdict", "calls"}}
	cats := []string{"seen", "unseen", "unseen+reuse", "control"}
	vals := make([][]float64, len(cats))
	for _, r := range tb.Repos {
		label := r.Label()
		v := r.Verdicts[testbed.ConfigFull]
		repos.AddRow(r.Name, r.Lang, label, r.Files, v.Queries, v.Hits, v.WeightedHits, v.PValue, v.Verdict, v.Calls)
		for i, c := range cats {
			if c == label && v.Verdict != repoprobe.Insufficient {
				vals[i] = append(vals[i], -math.Log10(math.Max(v.PValue, 1e-300)))
			}
		}
	}
	s.Add(&report.Paragraph{Text: fmt.Sprintf("Target %s, references %s. Sequential stopping used %.0f%% of the fixed-n calls. %s",
		tb.Target, strings.Join(tb.References, ", "), 100*tb.CallsSaved, strings.Join(tb.Notes, " "))}, sum, repos)
	strip, err := report.Strip("Stage I p-values by membership", "−log10 p-value", cats, vals, -math.Log10(0.05), false)
	if err != nil {
		return fmt.Errorf("demo: p-value strip: %w", err)
	}
	s.Add(&report.Plot{Caption: "Per-repository p-values of the full method (right = stronger evidence of presence); the line is α = 0.05", SVG: strip})
	if len(a.StageIROC) > 0 {
		svg, err := report.ROC("Stage I ROC (score −log10 p)", []report.Series{rocSeries("benchchecker", a.StageIROC)})
		if err != nil {
			return fmt.Errorf("demo: Stage I ROC: %w", err)
		}
		s.Add(&report.Plot{Caption: "ROC of the full method over the labelled repositories (controls excluded)", SVG: svg})
	}
	return nil
}

func stage2Blocks(s *report.Section, a *Audit) error {
	e := a.Stage2Eval
	s.Add(&report.KeyValues{Items: []report.KV{
		{Key: "samples", Value: fmt.Sprint(e.N)}, {Key: "AUC", Value: f3(e.AUC)},
		{Key: "TPR", Value: f3(e.TPR)}, {Key: "FPR", Value: f3(e.FPR)}, {Key: "threshold", Value: f3(e.Threshold)},
		{Key: "cutoff", Value: stage2Cut.Format(time.DateOnly)},
	}}, &report.Paragraph{Text: "Each history: the buggy method imported (" + dateImport.Format(time.DateOnly) + "), the fix (" + dateFix.Format(time.DateOnly) +
		"), then one branch per variant changed on " + dateChange.Format(time.DateOnly) + ". The persists branch reverts the fix only after the cutoff, on " +
		dateLate.Format(time.DateOnly) + ", which the cutoff snapshot must not see. Labels: persists and refactored are present; reverted is absent."})
	t := &report.Table{Caption: "Verdicts", Header: []string{"sample", "type", "operator", "variant", "label", "verdict", "method", "score", "snapshot", "reason"}}
	for _, x := range a.Stage2 {
		v := x.Verdict
		snap := v.SnapshotCommit
		if len(snap) > 10 {
			snap = snap[:10]
		}
		t.AddRow(x.Sample.ID, strings.TrimSuffix(x.Type, "Exception"), x.Operator, x.Variant, map[bool]string{true: "present", false: "absent"}[x.Label],
			v.Verdict, v.Method, v.Score, snap, v.Reason)
	}
	s.Add(t)
	if len(e.ROC) > 0 {
		svg, err := report.ROC("Stage II ROC (score: patch similarity)", []report.Series{rocSeries("patchcheck", e.ROC)})
		if err != nil {
			return fmt.Errorf("demo: Stage II ROC: %w", err)
		}
		s.Add(&report.Plot{Caption: "ROC of the Stage II score against the known labels", SVG: svg})
	}
	return nil
}

func rocSeries(label string, pts []stats.ROCPoint) report.Series {
	s := report.Series{Label: label}
	for _, p := range pts {
		s.X, s.Y = append(s.X, p.FPR), append(s.Y, p.TPR)
	}
	return s
}

func synthPage(res *Result) (*report.Page, error) {
	p := &report.Page{Title: "Synth", Subtitle: "Seeds → generation → gates → JVM → fidelity → evaluation (rxsynth §3–§7)"}
	s := res.Synth
	if s == nil {
		s = &Synth{}
	}
	seedsSection(p, s)
	generateSection(p, s)
	ver := p.AddSection("verify", "JVM verification (§5.4)")
	if v := s.Verify; v != nil {
		t := &report.Table{Caption: "Confirmation by type (Tables 8/9 shape): (a) buggy raises the type, (b) and fixed returns, (c) at the patched site",
			Header: []string{"type", "n", "compiled", "(a)", "(b)", "(c)", "(c) Wilson 95% CI"}}
		for _, row := range append(append([]jvm.Row{}, v.Table.Rows...), v.Table.Pooled) {
			t.AddRow(row.Type, row.N, rate(row.Compiled), rate(row.A), rate(row.B), rate(row.C), ciStr(row.C))
		}
		ver.Add(&report.KeyValues{Items: []report.KV{{Key: "JDK", Value: v.JDK}, {Key: "pairs run", Value: fmt.Sprint(v.Verified)}}}, t)
	} else {
		ver.Add(&report.Paragraph{Text: "Not run: " + skipNote(res, "synth/verify")})
	}
	fid := p.AddSection("fidelity", "Fidelity (§6)")
	if f := s.Fidelity; f != nil {
		fid.Add(&report.Paragraph{Text: "Full tables: " + PageFidelity + "."}, f.Table10("buggy", false), f.RepairTable())
		for _, e := range f.TokenECDF {
			svg, err := fidelity.ECDFPlot(e)
			if err != nil {
				return nil, err
			}
			fid.Add(&report.Plot{Caption: "Buggy-method token counts, " + e.Type, SVG: svg})
		}
	}
	ev := p.AddSection("evaluation", "Leakage-controlled evaluation (§7)")
	if e := s.Evaluation; e != nil {
		ev.Add(&report.Paragraph{Text: "Full tables: " + PageEvaluation + ". With 14 seeds the intervals are wide: this shows the protocol, not a result."}, e.IsolatedTable(), e.PairTable())
	}
	return p, nil
}

// seedsSection is the synth page's seeds, with their fix pattern, and the
// excluded bugs.
func seedsSection(p *report.Page, s *Synth) {
	seeds := &report.Table{Caption: "Seeds (F3: only method bodies change; F4: IAE/ISE fixes remove an unintended throw)", Header: []string{"bug", "project", "exception", "method", "buggy lines", "fix pattern"}}
	pattern := map[string]string{}
	for _, pc := range s.Patterns {
		for _, id := range pc.BugIDs {
			pattern[id] = pc.Pattern
		}
	}
	for _, sd := range s.Seeds {
		seeds.AddRow(sd.BugID, sd.Project, strings.TrimSuffix(sd.Exception, "Exception"), sd.MethodSignature, sd.BuggySpan.End-sd.BuggySpan.Start+1, pattern[sd.BugID])
	}
	sec := p.AddSection("seeds", "Seeds").Add(seeds)
	if len(s.Excluded) > 0 {
		ex := &report.Table{Caption: "Excluded", Header: []string{"bug", "filter", "reason"}}
		for _, e := range s.Excluded {
			ex.AddRow(e.Bug, e.Filter, e.Reason)
		}
		sec.Add(ex)
	}
}

// generateSection is the synth page's generation and gate figures (empty
// when generation did not run).
func generateSection(p *report.Page, s *Synth) {
	gen := p.AddSection("generate", "Generation and gates")
	if s.Gate == nil || s.Generate == nil {
		return
	}
	gen.Add(&report.KeyValues{Items: []report.KV{
		{Key: "generator", Value: s.Generator}, {Key: "candidates", Value: fmt.Sprint(s.Gate.Total)},
		{Key: "accepted", Value: fmt.Sprint(s.Accepted)}, {Key: "chunks", Value: fmt.Sprint(s.Generate.Chunks)},
	}})
	t := &report.Table{Caption: "Per type", Header: []string{"type", "candidates", "accepted"}}
	for _, ty := range corpus.Types {
		t.AddRow(ty, s.Generate.Have[ty], s.Gate.ByType[ty])
	}
	c := &report.Table{Caption: "Rejections by cause (§4.4)", Header: []string{"cause", "rejected"}}
	for _, cc := range s.Gate.Causes {
		c.AddRow(cc.Cause, cc.Count)
	}
	gen.Add(t, c)
}

// skipNote says why a step left no result.
func skipNote(res *Result, step string) string {
	for _, s := range res.Steps {
		if s.Name == step && s.Skipped != "" {
			return s.Skipped + "."
		}
	}
	return "the step did not finish."
}

func rate(r jvm.Rate) string {
	if r.N == 0 {
		return "-"
	}
	return fmt.Sprintf("%d/%d", r.K, r.N)
}

func ciStr(r jvm.Rate) string {
	if r.CI == nil {
		return "-"
	}
	return fmt.Sprintf("[%.1f, %.1f]%%", 100*r.CI.Lo, 100*r.CI.Hi)
}
