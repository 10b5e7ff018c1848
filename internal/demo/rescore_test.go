package demo

import (
	"bytes"
	"context"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/audit/patchcheck"
	"github.com/benchforge/benchforge/internal/audit/rescore"
	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/jsonl"
)

func TestDifficultyRule(t *testing.T) {
	patch := func(minus, plus int) string {
		var b strings.Builder
		b.WriteString("--- a/A.java\n+++ b/A.java\n@@ -1,3 +1,3 @@\n ctx\n")
		for range minus {
			b.WriteString("-old\n")
		}
		for range plus {
			b.WriteString("+new\n")
		}
		b.WriteString(" ctx\n")
		return b.String()
	}
	for _, tc := range []struct {
		minus, plus int
		want        string
	}{
		{0, 1, DifficultyEasy}, {1, 1, DifficultyEasy}, {1, 2, DifficultyMedium},
		{0, 4, DifficultyMedium}, {2, 3, DifficultyHard}, {0, 9, DifficultyHard},
	} {
		got, n := difficulty(patch(tc.minus, tc.plus))
		if got != tc.want || n != tc.minus+tc.plus {
			t.Errorf("-%d +%d: %q (%d lines), want %q (%d lines; the ---/+++ headers are not changes)", tc.minus, tc.plus, got, n, tc.want, tc.minus+tc.plus)
		}
	}
}

func TestWithBugsAndBuggyMethod(t *testing.T) {
	fixed := []byte("class A {\n    int f(int[] a) {\n        return a.length > 0 ? a[0] : 0;\n    }\n\n\n\n\n    int g(String s) {\n        return s == null ? 0 : s.length();\n    }\n}\n")
	mk := func(start, end int, method string) bug {
		lines := strings.SplitAfter(string(fixed), "\n")
		buggy := strings.Join(lines[:start-1], "") + method + strings.Join(lines[end:], "")
		return bug{m: realMethod{Start: start, End: end, Fixed: fixed, Buggy: []byte(buggy)}}
	}
	f := "    int f(int[] a) {\n        return a[0];\n    }\n"
	g := "    int g(String s) {\n        return s.length();\n    }\n"
	bugs := []bug{mk(2, 4, f), mk(9, 11, g)}
	if got := buggyMethod(bugs[1].m); got != g {
		t.Errorf("buggyMethod = %q, want %q", got, g)
	}
	want := "class A {\n" + f + "\n\n\n\n" + g + "}\n"
	if got := string(withBugs(bugs, []int{0, 1})); got != want {
		t.Errorf("withBugs:\n%s\nwant:\n%s", got, want)
	}
}

// TestRescoreStep checks the re-scoring of the cheap demo run against what
// it must be by construction: a model trained on a repository resolves its
// samples more often, the verdicts are the conjunction of the two stages,
// the per-difficulty rows add up, the files reproduce the result, and the
// pages carry the tables and the plot.
func TestRescoreStep(t *testing.T) {
	dir, res := cheapDemo(t)
	x := res.Audit.Rescore
	if x == nil || x.Result == nil {
		t.Fatalf("no re-scoring result (steps: %+v)", res.Steps)
	}
	rs := filepath.Join(dir, "audit", "rescore")
	samples, err := jsonl.ReadFile[bench.Sample](filepath.Join(rs, "benchmark.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(samples) != x.Samples || x.Samples == 0 || x.Samples > maxRescoreSamples {
		t.Fatalf("%d samples in benchmark.jsonl, summary says %d (bound %d)", len(samples), x.Samples, maxRescoreSamples)
	}
	if x.Stage2[patchcheck.Present] != x.Samples {
		t.Errorf("Stage II verdicts %v: every fix is in the snapshot, want all %d present", x.Stage2, x.Samples)
	}
	checkRescoreMembership(t, x)
	checkRescoreVerdicts(t, rs, samples, x)
	checkRunsMatchLeaderboard(t, rs)
	// The files alone give the same result, as `audit rescore` would.
	again, err := rescoreFiles(context.Background(), filepath.Join(rs, "benchmark.jsonl"), filepath.Join(rs, "verdicts.jsonl"), filepath.Join(rs, "leaderboard.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(x.Result, again); d != "" {
		t.Errorf("re-scoring the written files differs (-summary +files):\n%s", d)
	}
	checkGoldPatchesApply(t, rs, samples)
	checkRescorePages(t, dir)
}

// checkRescoreMembership checks that each model ran every sample and that
// the target resolves its members' samples more often.
func checkRescoreMembership(t *testing.T, x *Rescore) {
	t.Helper()
	for _, m := range x.Models {
		if m.Members.Total+m.NonMembers.Total != x.Samples {
			t.Errorf("%s: %d member + %d other samples, want %d", m.Name, m.Members.Total, m.NonMembers.Total, x.Samples)
		}
		if m.Name != ModelTarget {
			continue
		}
		if m.Members.Total == 0 || m.NonMembers.Total == 0 {
			t.Fatalf("%s: %d member and %d other samples: the quick testbed no longer gives both", m.Name, m.Members.Total, m.NonMembers.Total)
		}
		if m.Members.Rate() <= m.NonMembers.Rate() {
			t.Errorf("%s resolves %s of its members' samples and %s of the others: memorisation should show", m.Name, countStr(m.Members), countStr(m.NonMembers))
		}
	}

}

// checkRescoreVerdicts checks the combined verdicts: contaminated = Stage I
// present for the model ∧ Stage II present, and the clean counts follow
// from them.
func checkRescoreVerdicts(t *testing.T, rs string, samples []bench.Sample, x *Rescore) {
	t.Helper()
	verdicts, err := jsonl.ReadFile[rescore.Verdict](filepath.Join(rs, "verdicts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	repoOf := map[string]string{}
	for _, s := range samples {
		repoOf[s.ID] = s.Repo
	}
	stage1 := map[string]map[string]bool{}
	for _, r := range x.Repos {
		for model, v := range r.Stage1 {
			if stage1[model] == nil {
				stage1[model] = map[string]bool{}
			}
			stage1[model][r.Name] = v.Present
		}
	}
	clean := map[string]int{}
	for _, v := range verdicts {
		if v.RepoPresent != stage1[v.Model][repoOf[v.SampleID]] || !v.PatchPresent || v.Contaminated != (v.RepoPresent && v.PatchPresent) {
			t.Errorf("%s/%s: repo %v patch %v contaminated %v; Stage I of %s says %v", v.SampleID, v.Model, v.RepoPresent, v.PatchPresent, v.Contaminated, repoOf[v.SampleID], stage1[v.Model][repoOf[v.SampleID]])
		}
		if !v.Contaminated {
			clean[v.Model]++
		}
	}
	if len(verdicts) != 2*x.Samples {
		t.Errorf("%d verdicts, want one per sample and model (%d)", len(verdicts), 2*x.Samples)
	}
	checkSubmissions(t, x, clean)
}

// checkSubmissions checks each submission's rows against the samples, the
// clean counts of the verdicts (clean, by model) and the models' resolved
// counts.
func checkSubmissions(t *testing.T, x *Rescore, clean map[string]int) {
	t.Helper()
	for _, s := range x.Result.Submissions {
		var all, cl, allRes, clRes int
		for _, c := range s.ByDifficulty {
			all, cl, allRes, clRes = all+c.All.Total, cl+c.Clean.Total, allRes+c.All.Resolved, clRes+c.Clean.Resolved
		}
		o := s.Overall
		if all != x.Samples || all != o.All.Total || cl != o.Clean.Total || allRes != o.All.Resolved || clRes != o.Clean.Resolved {
			t.Errorf("%s: difficulty rows sum to %d/%d all, %d/%d clean; overall %s over %d samples", s.Submission, allRes, all, clRes, cl, rescore.FormatCell(o), x.Samples)
		}
		if o.Clean.Total != clean[s.Model] {
			t.Errorf("%s: %d clean samples, the verdicts have %d", s.Submission, o.Clean.Total, clean[s.Model])
		}
		i := slices.IndexFunc(x.Models, func(m RescoreModel) bool { return m.Name == s.Model })
		if i < 0 || o.All.Resolved != x.Models[i].Members.Resolved+x.Models[i].NonMembers.Resolved {
			t.Errorf("%s: %d resolved overall, not the models' member + other counts", s.Submission, o.All.Resolved)
		}
	}
}

// checkRunsMatchLeaderboard checks that runs and leaderboard agree:
// resolved means the lower loss.
func checkRunsMatchLeaderboard(t *testing.T, rs string) {
	t.Helper()
	runs, err := jsonl.ReadFile[RescoreRun](filepath.Join(rs, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	subs, err := rescore.ReadLeaderboard(filepath.Join(rs, "leaderboard.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	resolved := map[string]bool{}
	for _, s := range subs {
		for _, id := range s.Resolved {
			resolved[s.Submission+"|"+id] = true
		}
	}
	for _, r := range runs {
		if r.Resolved != (r.LossFixed < r.LossBuggy) || r.Resolved != resolved[r.Model+"|"+r.SampleID] {
			t.Errorf("run %+v disagrees with its losses or the leaderboard", r)
		}
	}

}

// checkGoldPatchesApply checks that each gold patch applies, without fuzz,
// to its base commit.
func checkGoldPatchesApply(t *testing.T, rs string, samples []bench.Sample) {
	t.Helper()
	for _, s := range samples[:min(len(samples), 8)] {
		file := s.Meta["file"].(string)
		cmd := exec.Command("git", "show", s.BaseCommit+":"+file)
		cmd.Dir = filepath.Join(rs, "repos", s.Repo)
		base, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: git show %s:%s: %v", s.ID, s.BaseCommit, file, err)
		}
		fds, err := diff.ParseString(s.Patch)
		if err != nil || len(fds) != 1 {
			t.Fatalf("%s: patch: %v", s.ID, err)
		}
		if _, err := diff.Apply(base, fds[0], diff.ApplyOptions{Fuzz: -1}); err != nil {
			t.Errorf("%s: gold patch does not apply to the base commit: %v", s.ID, err)
		}
	}

}

// checkRescorePages checks the pages: the audit page's section has the
// tables and the plot; the overview has the plot too.
func checkRescorePages(t *testing.T, dir string) {
	t.Helper()
	section := regexp.MustCompile(`(?s)<section id="rescore".*?</section>`)
	for _, p := range []string{PageAudit, PageOverview} {
		page, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		sec := section.Find(page)
		if sec == nil {
			t.Errorf("%s: no rescore section", p)
			continue
		}
		if !bytes.Contains(sec, []byte("<svg")) {
			t.Errorf("%s: rescore section has no SVG plot", p)
		}
		for _, want := range []string{"Relative drop by difficulty", DifficultyEasy, ModelTarget, "demo's own labelling rule"} {
			if !bytes.Contains(sec, []byte(html.EscapeString(want))) {
				t.Errorf("%s: rescore section lacks %q", p, want)
			}
		}
	}
}
