package demo

import (
	"fmt"
	"sort"
	"strings"

	"github.com/benchforge/benchforge/internal/audit/repoprobe"
	"github.com/benchforge/benchforge/internal/audit/rescore"
	"github.com/benchforge/benchforge/internal/report"
)

// rescoreCommand reproduces the step's re-scoring from its files (paths
// relative to the output folder).
const rescoreCommand = "benchforge audit rescore --benchmark audit/rescore/benchmark.jsonl --verdicts audit/rescore/verdicts.jsonl --leaderboard audit/rescore/leaderboard.jsonl"

// rescoreIntro says what the re-scoring section is built from.
func rescoreIntro(x *Rescore) string {
	return fmt.Sprintf("benchchecker §6 re-scores leaderboard submissions on the samples not judged contaminated. "+
		"Benchmark: %d bugs the offline mutation generator injected into real methods of the testbed's Java repositories "+
		"(the shipped method is the fix, the gold patch its diff from the mutated one). "+
		"Difficulty follows the demo's own labelling rule, not annotators' estimates: %s. "+
		"Submissions: each n-gram model runs on every sample and resolves it when it gives the fixed method a lower mean per-token loss than the buggy one. "+
		"Verdicts per sample and model: contaminated when that model's Stage I finds the sample's repository present and Stage II finds the fix present in the %s snapshot.",
		x.Samples, DifficultyRule, x.Cutoff)
}

func rescoreBlocks(s *report.Section, x *Rescore) error {
	stage2 := make([]string, 0, len(x.Stage2))
	for v, n := range x.Stage2 {
		stage2 = append(stage2, fmt.Sprintf("%s %d", v, n))
	}
	sort.Strings(stage2)
	ops := make([]string, 0, len(x.Operators))
	for op, n := range x.Operators {
		ops = append(ops, fmt.Sprintf("%s %d", op, n))
	}
	sort.Strings(ops)
	s.Add(&report.Paragraph{Text: rescoreIntro(x)}, &report.KeyValues{Items: []report.KV{
		{Key: "samples", Value: fmt.Sprintf("%d (of %d generated bugs; methods of one file at least %d lines apart)", x.Samples, x.Candidates, bugGap)},
		{Key: "operators", Value: strings.Join(ops, ", ")},
		{Key: "Stage II (patchcheck)", Value: strings.Join(stage2, ", ") + " — the models were trained on the fixed files, so every fix is in the snapshot"},
		{Key: "cutoff", Value: x.Cutoff},
	}})

	models := &report.Table{Caption: "Models: training repositories, Stage I on the benchmark repositories, samples resolved by membership",
		Header: []string{"model", "trained on", "Stage I TPR", "Stage I FPR", "resolved: own repos", "resolved: others"}}
	var how []string
	for _, m := range x.Models {
		models.AddRow(m.Name, strings.Join(m.TrainedOn, ", "), m.Stage1TPR, m.Stage1FPR, countStr(m.Members), countStr(m.NonMembers))
		how = append(how, m.Name+": "+m.Stage1+".")
	}
	models.Note = "Stage I verdicts — " + strings.Join(how, " ")
	repos := &report.Table{Caption: "Benchmark repositories: samples and each model's Stage I verdict",
		Header: []string{"repository", "samples", "trained by"}}
	for _, m := range x.Models {
		repos.Header = append(repos.Header, m.Name)
	}
	for _, r := range x.Repos {
		row := []any{r.Name, r.Samples, strings.Join(r.TrainedBy, ", ")}
		for _, m := range x.Models {
			row = append(row, stage1Str(r.Stage1[m.Name]))
		}
		repos.AddRow(row...)
	}
	s.Add(models, repos)
	if x.Result == nil {
		return nil
	}
	for _, t := range x.Result.Tables() {
		s.Add(t)
	}
	if err := addDropPlot(s, x); err != nil {
		return err
	}
	s.Add(&report.Paragraph{Text: "Records in audit/rescore/: benchmark.jsonl, runs.jsonl (both losses per sample and model), stage1_verdicts.jsonl, stage2_verdicts.jsonl, verdicts.jsonl, leaderboard.jsonl, rescore.json and the git repositories under repos/. The same tables from the files: " + rescoreCommand})
	return nil
}

// addDropPlot adds the per-difficulty drop plot of the re-scoring.
func addDropPlot(s *report.Section, x *Rescore) error {
	plot, err := x.Result.DropPlot()
	if err != nil {
		return fmt.Errorf("demo: re-scoring plot: %w", err)
	}
	if plot != nil {
		plot.Caption = "Relative drop of each model's resolution rate when only its clean samples count, overall and per difficulty (the demo's labelling rule); n/a: no clean sample in the bucket."
		s.Add(plot)
	}
	return nil
}

// rescoreHeadline is the overview's one line per submission.
func rescoreHeadline(res *rescore.Result) string {
	var parts []string
	for _, s := range res.Submissions {
		parts = append(parts, s.Submission+" "+rescore.FormatCell(s.Overall))
	}
	return strings.Join(parts, " · ")
}

func countStr(c Count) string {
	return fmt.Sprintf("%d/%d (%.0f%%)", c.Resolved, c.Total, 100*c.Rate())
}

func stage1Str(v repoprobe.RepoVerdict) string {
	if v.Verdict == "" {
		return "-"
	}
	return fmt.Sprintf("%s (p = %.2g, %d/%d hits)", v.Verdict, v.PValue, v.Hits, v.Queries)
}
