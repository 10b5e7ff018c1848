package testbed

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/benchforge/benchforge/internal/report"
	"github.com/benchforge/benchforge/internal/stats"
)

// Tables are the result's tables in report order: the checks, the
// configurations, the baselines, sequential stopping, calibration and the
// composition of the first seed.
func (r *Result) Tables() []*report.Table {
	checks := &report.Table{Caption: "Targets of the testbed, measured (headline capacity: " + r.headline() + ")",
		Header: []string{"check", "target", "measured", "pass"}}
	for _, c := range r.Checks {
		checks.AddRow(c.Name, c.Target, c.Measured, passMark(c.Pass))
	}
	cfg := &report.Table{Caption: fmt.Sprintf("Stage I per capacity and configuration (benchchecker Table 5), %d seeds; AUC mean [min–max] over seeds, TPR/FPR at α = %g pooled over seeds, controls excluded; every configuration is tested at the full method's P0 (the method's one hyperparameter), the next three columns at P0 recalibrated on the controls under the configuration itself, the last two the share of probed queries hit among members and non-members; benchchecker-small-ref is the full method with context-independence scored by the small reference trained on the target's own text (not the cross-fitted one, which never read the repository), at its own P0", len(r.Seeds), r.Alpha),
		Header: []string{"capacity", "configuration", "AUC", "AUC range", "TPR", "FPR", "calls", "P0", "own P0", "TPR own P0", "FPR own P0", "hit rate members", "hit rate non-members"}}
	for _, x := range r.Table {
		if x.Config == ConfigSequential {
			cfg.AddRow(x.Capacity, x.Config, f3(x.AUCMean), f3(x.AUCMin)+"–"+f3(x.AUCMax), f3(x.TPR), f3(x.FPR), x.Calls, f3(x.P0), "", "", "", f3(x.HitsMembers), f3(x.HitsNonMembers))
			continue
		}
		cfg.AddRow(x.Capacity, x.Config, f3(x.AUCMean), f3(x.AUCMin)+"–"+f3(x.AUCMax), f3(x.TPR), f3(x.FPR), x.Calls, f3(x.P0), f3(x.OwnP0), f3(x.TPROwnP0), f3(x.FPROwnP0), f3(x.HitsMembers), f3(x.HitsNonMembers))
	}
	base := &report.Table{Caption: "Logit baselines (benchchecker Table 3) on the same repositories: mean over 16 snippets per repository; Ref against a smaller model (order 4, the headline cutoff, budget and cache) trained on the target's own text, ref-crossfit against a cross-fitted reference that never read the repository (an oracle, not compared in the checks); TPR/FPR at the Youden-optimal threshold chosen on the scored repositories (favours the baseline), mean over seeds",
		Header: []string{"capacity", "method", "AUC", "AUC range", "TPR", "FPR"}}
	for _, b := range r.Baselines {
		base.AddRow(b.Capacity, b.Method, f3(b.AUCMean), f3(b.AUCMin)+"–"+f3(b.AUCMax), f3(b.TPR), f3(b.FPR))
	}
	seq := &report.Table{Caption: "Fixed-n against sequential stopping (full method), summed over seeds",
		Header: []string{"capacity", "fixed-n calls", "sequential calls", "fraction", "AUC fixed", "AUC sequential", "equal verdicts"}}
	for _, s := range r.Sequential {
		seq.AddRow(s.Capacity, s.FixedCalls, s.SeqCalls, fmt.Sprintf("%.1f%%", 100*s.Fraction), f3(s.FixedAUC), f3(s.SeqAUC), fmt.Sprintf("%d/%d", s.SameVerdicts, s.TotalVerdicts))
	}
	cal := &report.Table{Caption: "Calibration over the non-members (controls excluded) pooled over seeds: share with p ≤ α, 95% Clopper–Pearson interval; flagged when above α",
		Header: []string{"capacity", "configuration", "α", "p ≤ α", "share", "95% CI", "flag"}}
	for _, c := range r.Calibration {
		cal.AddRow(c.Capacity, c.Config, c.Level, fmt.Sprintf("%d/%d", c.Rejected, c.NonMembers), f3(c.Share), f3(c.CI.Lo)+"–"+f3(c.CI.Hi), c.Flag)
	}
	return []*report.Table{checks, cfg, base, seq, cal, r.compositionTable()}
}

func (r *Result) compositionTable() *report.Table {
	t := &report.Table{Header: []string{"repository", "commit", "role", "files", "note"}}
	if len(r.Composition) == 0 {
		return t
	}
	c := r.Composition[0]
	t.Caption = fmt.Sprintf("Testbed composition (seed %d): %d members, %d non-members (%d controls), %d background repositories; background %d documents, %.1f MB",
		c.Seed, c.Members, c.NonMembers, c.Controls, c.Background, c.BackgroundDocs, float64(c.BackgroundBytes)/1e6)
	if c.CrawlDocs > 0 {
		t.Caption += fmt.Sprintf("; earlier snapshots of the members and background repositories %d documents, %.1f MB", c.CrawlDocs, float64(c.CrawlBytes)/1e6)
	}
	for _, e := range c.Repos {
		role := e.Role
		if e.Control {
			role += " (control)"
		}
		t.AddRow(e.Repo, e.Commit[:12], role, e.Files, e.Note)
	}
	return t
}

func (r *Result) headline() string {
	if len(r.Capacities) == 0 {
		return ""
	}
	return r.Capacities[0].Name
}

func passMark(ok bool) string {
	if ok {
		return "yes"
	}
	return "NO"
}

func f3(v float64) string { return fmt.Sprintf("%.3f", v) }

// Markdown renders the tables as GitHub-flavoured Markdown.
func (r *Result) Markdown() string {
	var b strings.Builder
	for _, t := range r.Tables() {
		fmt.Fprintf(&b, "%s\n", t.Markdown())
	}
	fmt.Fprintf(&b, "wall time %.0f s\n", r.WallSeconds)
	return b.String()
}

// WritePage renders the testbed report page: the tables and, per
// capacity, the ROC curves of the first seed for every configuration and
// baseline.
func (r *Result) WritePage(w io.Writer) error {
	p := &report.Page{Title: "Stage I testbed: " + r.Manifest, Generated: time.Now().UTC(),
		Subtitle: fmt.Sprintf("%d seeds × %d capacities; wall time %.0f s", len(r.Seeds), len(r.Capacities), r.WallSeconds)}
	tabs := r.Tables()
	ids := []string{"checks", "configurations", "baselines", "sequential", "calibration", "composition"}
	titles := []string{"Targets, measured", "Stage I configurations (Table 5) and ROC", "Logit baselines (Table 3)",
		"Fixed-n against sequential stopping", "Calibration over the non-members", "Testbed composition"}
	for i, t := range tabs {
		sec := p.AddSection(ids[i], titles[i])
		sec.Add(t)
		if ids[i] == "configurations" {
			if err := r.rocPlots(sec); err != nil {
				return err
			}
		}
	}
	if err := report.Render(w, p); err != nil {
		return fmt.Errorf("testbed: page: %w", err)
	}
	return nil
}

func (r *Result) rocPlots(sec *report.Section) error {
	for _, c := range r.Capacities {
		runs := r.runsOf(c)
		if len(runs) == 0 {
			continue
		}
		cr := runs[0]
		var curves []report.Series
		for _, s := range cr.Summary {
			if s.Config != ConfigSequential && len(s.ROC) > 0 {
				curves = append(curves, rocSeries(s.Config, s.AUC, s.ROC))
			}
		}
		for _, b := range cr.Baselines {
			if len(b.ROC) > 0 {
				curves = append(curves, rocSeries("baseline "+b.Method, b.AUC, b.ROC))
			}
		}
		svg, err := report.ROC(fmt.Sprintf("%s, seed %d", c.Name, cr.Seed), curves)
		if err != nil {
			return fmt.Errorf("testbed: ROC plot: %w", err)
		}
		sec.Add(&report.Plot{Caption: fmt.Sprintf("ROC of Stage I configurations and logit baselines, %s, seed %d (AUC in the legend).", c.Name, cr.Seed), SVG: svg})
	}
	return nil
}

func rocSeries(name string, auc *float64, roc []stats.ROCPoint) report.Series {
	s := report.Series{Label: name}
	if auc != nil {
		s.Label = fmt.Sprintf("%s (%.3f)", name, *auc)
	}
	for _, p := range roc {
		s.X = append(s.X, p.FPR)
		s.Y = append(s.Y, p.TPR)
	}
	return s
}
