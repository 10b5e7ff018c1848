package judge

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/judge/judgetest"
	"github.com/benchforge/benchforge/internal/testcheck"
)

func newJudge(t *testing.T, judge, repair string, sessDir string, rubric string) *Judge {
	t.Helper()
	s := newSession(t, sessDir)
	var rm = open(t, s, judge)
	j, err := New(rm, nil, Options{Rubric: rubric, Now: fixedNow})
	testcheck.Must(t, err)
	if repair != "" {
		if j, err = New(rm, open(t, s, repair), Options{Rubric: rubric, Now: fixedNow}); err != nil {
			t.Fatal(err)
		}
	}
	return j
}

// TestRunScripted drives every outcome through a real OpenAI-shaped server:
// accept, Stage 2 failure → repair → accept, repair → reject on re-judging,
// repair failing the gate, Stage 1 reject, unparseable, an invalid record;
// then checks the partitions, flags, table (golden) and call counts.
func TestRunScripted(t *testing.T) {
	srv, url := scripted(t, script)
	j := newJudge(t, "openai:judge-a@"+url, "openai:repairer@"+url, t.TempDir(), "")
	dir := t.TempDir()
	sum, err := Run(context.Background(), j, testPairs, dir, RunOptions{Workers: 2})
	testcheck.Must(t, err)
	checkVerdicts(t, dir)
	// Stage 1 once per valid pair plus once per gated repair; Stage 2 only
	// after a confirming Stage 1; exactly one repair per Stage 2 rejection.
	for kind, n := range map[string]int{judgetest.Stage1: 7 + 2, judgetest.Stage2: 5 + 2, judgetest.Repair: 3} {
		if c := srv.Calls(kind); c != n {
			t.Errorf("%s calls = %d, want %d", kind, c, n)
		}
	}
	checkCore(t, dir)
	checkExcluded(t, dir, sum)
	md, err := os.ReadFile(filepath.Join(dir, TableFile))
	testcheck.Must(t, err)
	md = []byte(strings.ReplaceAll(string(md), url, "URL"))
	golden.Check(t, "testdata/table7.golden.md", md)

	// A rerun finds everything judged: no model call, same outputs.
	before := srv.Calls(judgetest.Stage1)
	sum2, err := Run(context.Background(), j, testPairs, dir, RunOptions{})
	testcheck.Must(t, err)
	if sum2.Resumed != len(testPairs) || sum2.JudgedNow != 0 || srv.Calls(judgetest.Stage1) != before {
		t.Errorf("rerun judged again: %+v", sum2)
	}
}

// checkVerdicts checks each test pair's initial verdict, final verdict
// and category in dir's log, and every record's provenance.
func checkVerdicts(t *testing.T, dir string) {
	t.Helper()
	recs, err := jsonl.ReadFile[Record](filepath.Join(dir, JudgementsFile))
	testcheck.Must(t, err)
	got := map[string][3]string{}
	for _, r := range recs {
		got[r.PairID] = [3]string{r.Initial, r.Verdict, r.Category}
		if r.PromptHash != PromptHash(RubricPatch) || r.PromptVersion != PromptVersion || r.Model == "" {
			t.Errorf("%s: provenance missing: %+v", r.PairID, r)
		}
	}
	want := map[string][3]string{
		"p-accept":          {Accept, Accept, ""},
		"p-repair-ok":       {Reject, Accept, ""},
		"p-repair-rejected": {Reject, Reject, CatStage2AfterFix},
		"p-repair-gate":     {Reject, Reject, CatRepairGate},
		"p-stage1-reject":   {Reject, Reject, CatStage1Reject},
		"p-unparseable":     {Unparseable, Unparseable, CatUnparseable},
		"p-ise":             {Accept, Accept, ""},
		"p-invalid":         {Reject, Reject, CatInvalid},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("verdicts (-want +got):\n%s", d)
	}
}

// checkCore checks dir's core.jsonl: the three accepted pairs in input
// order, the accepting judgement, the repaired fixed method and the flags.
func checkCore(t *testing.T, dir string) {
	t.Helper()
	core, err := jsonl.ReadFile[corpus.Pair](filepath.Join(dir, CoreFile))
	testcheck.Must(t, err)
	if ids := pairIDs(core); !slices.Equal(ids, []string{"p-accept", "p-repair-ok", "p-ise"}) {
		t.Fatalf("core = %+v", core)
	}
	want := &corpus.Judgement{Site: "s.length()", SiteLine: 2, Trigger: "s == null", Confidence: 0.8, Verdict: Accept}
	if d := cmp.Diff(want, core[0].Judge, cmpopts.IgnoreFields(corpus.Judgement{}, "Model")); d != "" {
		t.Errorf("accepted judgement (-want +got):\n%s", d)
	}
	checkRepaired(t, core[1], testPairs[1])
	testcheck.Eq(t, "ISE pair flags", core[2].Flags, corpus.Flags{ISELowConfidence: true, FixIntroducesLabel: true})
	testcheck.Eq(t, "NPE pair flags", core[0].Flags, corpus.Flags{})
}

func pairIDs(ps []corpus.Pair) []string {
	var ids []string
	for _, p := range ps {
		ids = append(ids, p.PairID)
	}
	return ids
}

// checkRepaired checks that p is orig with a repaired fixed method,
// judged with confidence 0.7 after the repair.
func checkRepaired(t *testing.T, p, orig corpus.Pair) {
	t.Helper()
	if !strings.Contains(p.FixedMethod, "repairedGuard") || p.BuggyMethod != orig.BuggyMethod {
		t.Errorf("repaired pair = %+v", p)
	}
	if p.Judge == nil || !p.Judge.Repaired || p.Judge.Confidence != 0.7 {
		t.Errorf("repaired pair's judgement = %+v", p.Judge)
	}
}

// checkExcluded checks dir's excluded.jsonl (five records, each with a
// category and reason) and the summary's counts.
func checkExcluded(t *testing.T, dir string, sum *Summary) {
	t.Helper()
	ex, err := jsonl.ReadFile[Excluded](filepath.Join(dir, ExcludedFile))
	testcheck.Must(t, err)
	testcheck.Eq(t, "excluded records", len(ex), 5)
	testcheck.Eq(t, "summary counts", [3]int{sum.Core, sum.Excluded, sum.JudgedNow}, [3]int{3, 5, 8})
	for _, e := range ex {
		if e.Reason == "" || e.Category == "" {
			t.Errorf("excluded record without category or reason: %+v", e)
		}
	}
	testcheck.Eq(t, "flag counts (ISE low confidence, fix introduces label)", [2]int{sum.Flags.ISELowConfidence, sum.Flags.FixIntroducesLabel}, [2]int{1, 1})
}

// TestNoRepairModel: without --repair-with a Stage 2 failure is excluded
// as stage2_reject and no repair is asked for.
func TestNoRepairModel(t *testing.T) {
	srv, url := scripted(t, script)
	j := newJudge(t, "openai:judge-a@"+url, "", "", "")
	sum, err := Run(context.Background(), j, testPairs[:4], t.TempDir(), RunOptions{})
	testcheck.Must(t, err)
	if srv.Calls(judgetest.Repair) != 0 || sum.Core != 1 {
		t.Errorf("repairs %d, summary %+v", srv.Calls(judgetest.Repair), sum)
	}
	if len(sum.Categories) != 1 || sum.Categories[0] != (CategoryCount{CatStage2Reject, 3}) {
		t.Errorf("categories = %+v", sum.Categories)
	}
}

// TestWholeMethodRubric: the comparison rubric asks one question per pair
// and never repairs.
func TestWholeMethodRubric(t *testing.T) {
	srv, url := scripted(t, script)
	j := newJudge(t, "openai:judge-a@"+url, "", "", RubricWhole)
	sum, err := Run(context.Background(), j, testPairs, t.TempDir(), RunOptions{})
	testcheck.Must(t, err)
	if srv.Calls(judgetest.Whole) != 7 || srv.Calls(judgetest.Stage1) != 0 {
		t.Errorf("calls: whole %d, stage1 %d", srv.Calls(judgetest.Whole), srv.Calls(judgetest.Stage1))
	}
	want := []CategoryCount{{CatInvalid, 1}, {CatUnparseable, 1}, {CatWholeReject, 4}}
	if d := cmp.Diff(want, sum.Categories); d != "" || sum.Core != 2 {
		t.Errorf("core %d, categories (-want +got):\n%s", sum.Core, d)
	}
	if _, err := New(open(t, newSession(t, ""), "openai:x@"+url), open(t, newSession(t, ""), "openai:y@"+url), Options{Rubric: RubricWhole}); !errors.Is(err, errs.ErrUsage) {
		t.Errorf("whole-method with a repair model: %v, want ErrUsage", err)
	}
}

// TestResumeAfterCancel kills a pass mid-way (context cancelled from inside
// the model server) and resumes it: every pair is judged exactly once, and
// no finished pair is sent to the model again (no cache, so only the log
// can prevent it).
func TestResumeAfterCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stage1 atomic.Int32
	perPair := map[string]*atomic.Int32{}
	for _, p := range testPairs {
		perPair[p.PairID] = new(atomic.Int32)
	}
	srv, url := scripted(t, func(r judgetest.Request) (string, int) {
		if r.Kind == judgetest.Stage1 && !strings.Contains(r.User, "repairedGuard") {
			countShown(r.User, perPair)
			if stage1.Add(1) == 4 {
				cancel() // the 4th pair is in flight when the run is killed
			}
		}
		return script(r)
	})
	j := newJudge(t, "openai:judge-a@"+url, "openai:repairer@"+url, "", "")
	dir := t.TempDir()
	_, err := Run(ctx, j, testPairs, dir, RunOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: err = %v, want context.Canceled", err)
	}
	done, n := judgedPairs(t, dir)
	if n == 0 || n >= len(testPairs) {
		t.Fatalf("cancelled run kept %d records, want some but not all", n)
	}
	sum, err := Run(context.Background(), j, testPairs, dir, RunOptions{})
	testcheck.Must(t, err)
	if sum.Resumed != n || sum.Resumed+sum.JudgedNow != len(testPairs) {
		t.Errorf("resume: %+v after %d records", sum, n)
	}
	checkJudgedOnce(t, dir, done, perPair)
	_ = srv
}

// checkJudgedOnce checks that dir's log judges every test pair once, and
// that each pair done before the kill was sent to the judge once (sent
// counts the Stage 1 prompts per pair).
func checkJudgedOnce(t *testing.T, dir string, done map[string]int, sent map[string]*atomic.Int32) {
	t.Helper()
	seen, _ := judgedPairs(t, dir)
	for _, p := range testPairs {
		if seen[p.PairID] != 1 {
			t.Errorf("%s judged %d times", p.PairID, seen[p.PairID])
		}
		if done[p.PairID] > 0 && sent[p.PairID].Load() != 1 {
			t.Errorf("%s finished before the kill but was sent to the judge %d times", p.PairID, sent[p.PairID].Load())
		}
	}
}

// countShown counts a prompt for each test pair whose buggy method it
// shows.
func countShown(prompt string, perPair map[string]*atomic.Int32) {
	for _, p := range testPairs {
		if strings.Contains(prompt, p.BuggyMethod) {
			perPair[p.PairID].Add(1)
		}
	}
}

// judgedPairs counts the records per pair in dir's judgement log, and
// returns the number of records.
func judgedPairs(t *testing.T, dir string) (map[string]int, int) {
	t.Helper()
	recs, err := jsonl.ReadFile[Record](filepath.Join(dir, JudgementsFile))
	testcheck.Must(t, err)
	seen := map[string]int{}
	for _, r := range recs {
		seen[r.PairID]++
	}
	return seen, len(recs)
}

// TestOnePassPerDirectory: a log by another model is refused, not mixed.
func TestOnePassPerDirectory(t *testing.T) {
	_, url := scripted(t, script)
	dir := t.TempDir()
	if _, err := Run(context.Background(), newJudge(t, "openai:judge-a@"+url, "", "", ""), testPairs[:1], dir, RunOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), newJudge(t, "openai:judge-b@"+url, "", "", ""), testPairs[:2], dir, RunOptions{})
	if !errors.Is(err, errs.ErrUsage) || !strings.Contains(err.Error(), "judge-a") {
		t.Errorf("second judge into the same directory: %v, want ErrUsage naming judge-a", err)
	}
	dup := []corpus.Pair{testPairs[0], testPairs[0]}
	if _, err := Run(context.Background(), newJudge(t, "openai:judge-a@"+url, "", "", ""), dup, t.TempDir(), RunOptions{}); !errors.Is(err, errs.ErrInput) {
		t.Errorf("duplicate pair ids: %v, want ErrInput", err)
	}
}

// TestModelErrorStopsPass: a provider error is not a verdict: the pass
// stops with the error (its sentinel preserved) and records nothing.
func TestModelErrorStopsPass(t *testing.T) {
	_, url := scripted(t, func(r judgetest.Request) (string, int) { return "model is overloaded", 400 })
	dir := t.TempDir()
	_, err := Run(context.Background(), newJudge(t, "openai:judge-a@"+url, "", "", ""), testPairs[:2], dir, RunOptions{})
	if !errors.Is(err, errs.ErrInput) || !strings.Contains(err.Error(), "p-accept") {
		t.Fatalf("err = %v, want ErrInput naming the pair", err)
	}
	recs, _ := jsonl.ReadFile[Record](filepath.Join(dir, JudgementsFile))
	if len(recs) != 0 {
		t.Errorf("records after a model error: %+v", recs)
	}
}
