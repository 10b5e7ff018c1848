package jvm

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/llm"
	_ "github.com/benchforge/benchforge/internal/llm/providers" // openai
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/judge/judgetest"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// scripted serves OpenAI chat completions answering each harness prompt
// with answers[<buggy method name>] and keeps the prompts it received.
type scripted struct {
	mu      sync.Mutex
	answers map[string]string
	prompts map[string]string
	srv     *judgetest.Server
}

func newScripted(t *testing.T, answers map[string]string) (*scripted, llm.Model) {
	t.Helper()
	s := &scripted{answers: answers, prompts: map[string]string{}}
	s.srv = &judgetest.Server{Script: func(r judgetest.Request) (string, int) {
		name := methodIn(r.User)
		s.mu.Lock()
		defer s.mu.Unlock()
		s.prompts[name] = r.System + "\n" + r.User
		a, ok := s.answers[name]
		if !ok {
			return "no script for " + name, 500
		}
		return a, 0
	}}
	hs := httptest.NewServer(s.srv)
	t.Cleanup(hs.Close)
	sess, err := llm.NewSession(llm.SessionOptions{CacheDir: t.TempDir()})
	testcheck.Must(t, err)
	t.Cleanup(func() { sess.Close() })
	m, err := sess.Open("openai:builder-test@" + hs.URL + "/v1")
	testcheck.Must(t, err)
	return s, m
}

// methodIn names the buggy method a harness prompt shows.
func methodIn(user string) string {
	_, rest, _ := strings.Cut(user, "Buggy method:\n```java\n")
	head, _, _ := strings.Cut(rest, "(")
	f := strings.Fields(head)
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

func (s *scripted) calls() int { return s.srv.Calls(judgetest.Other) }

func pairsByID(t *testing.T, ids ...string) []corpus.Pair {
	t.Helper()
	all := map[string]corpus.Pair{}
	for _, tp := range readPairs(t, "testdata/pairs.txt") {
		all[tp.pair.PairID] = tp.pair
	}
	out := make([]corpus.Pair, len(ids))
	for i, id := range ids {
		p, ok := all[id]
		if !ok {
			t.Fatalf("no pair %s in testdata/pairs.txt", id)
		}
		out[i] = p
	}
	return out
}

func readExecutions(t *testing.T, path string) map[string]Execution {
	t.Helper()
	recs, err := jsonl.ReadFile[Execution](path)
	testcheck.Must(t, err)
	out := map[string]Execution{}
	for _, e := range recs {
		if _, dup := out[e.PairID]; dup {
			t.Errorf("%s recorded twice", e.PairID)
		}
		out[e.PairID] = e
	}
	return out
}

// TestHarnessDiffAided runs scripted model answers through the verifier:
// a triggering input confirms (c), a non-triggering one does not, a
// vector that does not compile is dropped alone, prose is unparseable.
func TestHarnessDiffAided(t *testing.T) {
	opts := needJDK(t)
	srv, m := newScripted(t, map[string]string{
		"len":    `{"inputs": [{"args": ["null"], "why": "s is null"}]}`,
		"parse":  `{"inputs": [{"args": ["\"12\""], "why": "a number"}]}`,
		"last":   `{"inputs": [{"args": ["new int[]{\"x\"}"]}, {"args": ["new int[]{1, 2}"], "why": "index == length"}]}`,
		"name":   "Pass an Integer instead of a String and the cast fails.",
		"first3": "Sure:\n```json\n{\"inputs\": [{\"args\": [\"\\\"ab\\\"\", \"1\"]}, {\"args\": [\"s = null\"]}, [\"\\\"ab\\\"\"]]}\n```\n",
		"make":   `{"inputs": []}`,
	})
	b, err := NewBuilder(m, RegimeDiffAided, nil)
	testcheck.Must(t, err)
	pairs := pairsByID(t, "npe-valid", "nfe-valid", "aioobe-valid", "cce-valid", "sioobe-valid", "iae-valid")
	out := t.TempDir()
	s, err := RunModel(context.Background(), pairs, out, b, opts)
	testcheck.Must(t, err)
	if s.Path != filepath.Join(out, "harness-diff-aided.jsonl") || s.Verified != len(pairs) || srv.calls() != len(pairs) {
		t.Fatalf("summary %+v after %d calls", s, srv.calls())
	}
	got := readExecutions(t, s.Path)
	checkModelRecords(t, got, RegimeDiffAided, map[string]string{"npe-valid": "abc", "nfe-valid": "-", "aioobe-valid": "abc", "cce-valid": "-", "sioobe-valid": "abc", "iae-valid": "-"})
	checkDiffAidedInputs(t, got)
	checkDiffAidedSummary(t, srv, s)
}

// checkModelRecords checks each pair's criteria (want) and that its
// record carries the regime and the model's harness.
func checkModelRecords(t *testing.T, got map[string]Execution, regime string, want map[string]string) {
	t.Helper()
	for id, w := range want {
		e := got[id]
		if c := crit(e); c != w || e.Regime != regime || e.Harness == nil || !strings.HasPrefix(e.Harness.Model, "openai:builder-test@") ||
			e.Harness.PromptHash != HarnessPromptHash(regime) || e.Harness.Raw == "" {
			t.Errorf("%s: criteria %s (want %s), regime %q, harness %+v, reason %q", id, c, w, e.Regime, e.Harness, e.Reason)
		}
	}
}

// checkDiffAidedInputs checks what became of each scripted answer's
// inputs: run, dropped alone, unparseable or declined.
func checkDiffAidedInputs(t *testing.T, got map[string]Execution) {
	t.Helper()
	npe := got["npe-valid"] // len(null) alone
	testcheck.Eq(t, "npe-valid trigger", inputOf(npe.C), "len(null)")
	testcheck.Eq(t, "npe-valid vectors", npe.Candidates, 1)
	nfe := got["nfe-valid"] // the non-triggering input must run and not confirm
	testcheck.Eq(t, "nfe-valid inputs tried", nfe.InputsTried, 1)
	testcheck.Eq(t, "nfe-valid status", nfe.Status, StatusUnconfirmed)
	aioobe := got["aioobe-valid"] // the vector that does not compile dropped alone
	testcheck.Eq(t, "aioobe-valid compiled", aioobe.Compile.OK, true)
	testcheck.Eq(t, "aioobe-valid vectors", aioobe.Candidates, 1)
	testcheck.Contains(t, "aioobe-valid input 0 dropped", aioobe.Harness.Inputs[0].Dropped, "does not compile: compiler.err")
	testcheck.Eq(t, "aioobe-valid input 1 dropped", aioobe.Harness.Inputs[1].Dropped, "")
	testcheck.Eq(t, "aioobe-valid trigger", inputOf(aioobe.C), "last(new int[]{1, 2})")
	cce := got["cce-valid"]
	if cce.Harness.Unparseable == "" {
		t.Errorf("cce-valid: prose answer not recorded as unparseable")
	}
	testcheck.Eq(t, "cce-valid calls", cce.Calls, 0)
	testcheck.Prefix(t, "cce-valid reason", cce.Reason, ReasonUnparseable)
	sioobe := got["sioobe-valid"]
	testcheck.Eq(t, "sioobe-valid parsed", sioobe.Harness.Parsed, "fenced")
	testcheck.Contains(t, "sioobe-valid input 0 dropped", sioobe.Harness.Inputs[0].Dropped, "2 arguments for 1")
	testcheck.Contains(t, "sioobe-valid input 1 dropped", sioobe.Harness.Inputs[1].Dropped, "assigns")
	testcheck.Eq(t, "sioobe-valid trigger", inputOf(sioobe.C), `first3("ab")`)
	iae := got["iae-valid"]
	testcheck.Eq(t, "iae-valid reason", iae.Reason, ReasonDeclined)
	testcheck.Eq(t, "iae-valid calls", iae.Calls, 0)
}

// checkDiffAidedSummary checks the prompt and the run's model counts,
// table and confirmed pairs.
func checkDiffAidedSummary(t *testing.T, srv *scripted, s Summary) {
	t.Helper()
	if p := srv.prompts["len"]; !strings.Contains(p, "```diff\n--- buggy\n+++ fixed\n@@") || strings.Contains(p, "localised") || !strings.Contains(p, "1. String s") {
		t.Errorf("diff-aided prompt lacks the diff or parameters, or shows a judge's site:\n%s", p)
	}
	if mc := s.Model; mc == nil || [5]int{mc.Asked, mc.Unparseable, mc.Declined, mc.Proposed, mc.Dropped} != [5]int{6, 1, 1, 7, 3} {
		t.Errorf("model counts %+v, want asked 6, unparseable 1, declined 1, proposed 7, dropped 3", mc)
	}
	testcheck.Eq(t, "pooled n", s.Table.Pooled.N, 6)
	testcheck.Eq(t, "pooled (c)", s.Table.Pooled.C.K, 3)
	testcheck.Eq(t, "confirmed", s.Confirmed, 3)
	testcheck.Eq(t, "confirmed file", filepath.Base(s.ConfirmedPath), "confirmed-diff-aided.jsonl")
}

// TestHarnessJudgeFed shows the judge's site and trigger in the prompt;
// a pair without a usable judgement costs no call.
func TestHarnessJudgeFed(t *testing.T) {
	opts := needJDK(t)
	srv, m := newScripted(t, map[string]string{"len": `{"inputs": [{"args": ["null"]}]}`})
	recs := []corpus.JudgeRecord{
		{PairID: "npe-valid", ErrorType: corpus.NullPointer, Stage1: &corpus.Stage1Result{Stage1: corpus.Stage1{CanThrowT: true,
			ThrowingExpression: "s.length()", Line: 2, Trigger: "s == null (JUDGE-TRIGGER)", PatchSummary: "adds a null guard"}}},
		{PairID: "iae-valid", ErrorType: corpus.IllegalArgument, Stage1: &corpus.Stage1Result{Stage1: corpus.Stage1{CanThrowT: false}}},
	}
	b, err := NewBuilder(m, RegimeJudgeFed, recs)
	testcheck.Must(t, err)
	s, err := RunModel(context.Background(), pairsByID(t, "npe-valid", "iae-valid", "nfe-valid"), t.TempDir(), b, opts)
	testcheck.Must(t, err)
	if srv.calls() != 1 {
		t.Errorf("%d model calls, want 1 (only npe-valid has a judgement to show)", srv.calls())
	}
	checkJudgeFedPrompt(t, srv.prompts["len"])
	got := readExecutions(t, s.Path)
	if e := got["npe-valid"]; !e.Criteria.C || e.Regime != RegimeJudgeFed {
		t.Errorf("npe-valid: %+v", e)
	}
	checkNoJudgement(t, got, map[string]string{"iae-valid": "no patch-local risk", "nfe-valid": "not in the judgements file"})
	if s.Model.NoJudgement != 2 || s.Model.Asked != 1 {
		t.Errorf("model counts %+v", s.Model)
	}
}

// checkJudgeFedPrompt checks that a judge-fed prompt shows the judge's
// site, line, trigger and explanation, and no diff.
func checkJudgeFedPrompt(t *testing.T, p string) {
	t.Helper()
	for _, want := range []string{"throwing expression: s.length()", "line (the buggy method's first line is line 1): 2", "trigger: s == null (JUDGE-TRIGGER)", "explanation: adds a null guard"} {
		if !strings.Contains(p, want) {
			t.Errorf("judge-fed prompt lacks %q:\n%s", want, p)
		}
	}
	if strings.Contains(p, "```diff") {
		t.Errorf("judge-fed prompt shows the diff (Table 8: methods, site, trigger, explanation)")
	}
}

// checkNoJudgement checks that each pair of why (pair → reason text) was
// recorded as having no judgement to show, without a model call.
func checkNoJudgement(t *testing.T, got map[string]Execution, why map[string]string) {
	t.Helper()
	for id, why := range why {
		if e := got[id]; !strings.HasPrefix(e.Reason, ReasonNoJudgement) || !strings.Contains(e.Reason, why) || e.Harness.Raw != "" || e.Calls != 0 {
			t.Errorf("%s: reason %q, raw %q, %d calls", id, e.Reason, e.Harness.Raw, e.Calls)
		}
	}
}

// TestHarnessResumes kills a methods-only run after a few pairs: the
// rerun records each pair once and asks the model only for pairs it never
// answered (the cache serves the rest); a third run makes no call.
func TestHarnessResumes(t *testing.T) {
	opts := needJDK(t)
	opts.Batch = 3
	answers := map[string]string{}
	args := []string{`"null"`, `"-1"`, `"new int[0]", "0"`, `"\"x\""`, `"\"s\""`, `"\"\"", "1"`, `"new ArrayList<String>()"`}
	pairs := genPairs(7)
	for i := range pairs {
		answers[fmt.Sprintf("m%d", i)] = `{"inputs": [{"args": [` + args[i] + `]}]}`
	}
	srv, m := newScripted(t, answers)
	b, err := NewBuilder(m, RegimeMethodsOnly, nil)
	testcheck.Must(t, err)
	out := t.TempDir()
	ctx, first := cancelAt(opts, 4)
	s1, err := RunModel(ctx, pairs, out, b, first)
	if !errors.Is(err, context.Canceled) || s1.Verified < 4 || s1.Verified >= len(pairs) {
		t.Fatalf("first run: verified %d, err %v; want a cancelled partial run", s1.Verified, err)
	}
	s2, err := RunModel(context.Background(), pairs, out, b, opts)
	testcheck.Must(t, err)
	testcheck.Eq(t, "resume: skipped", s2.Skipped, s1.Verified)
	testcheck.Eq(t, "resume: verified", s2.Verified, len(pairs)-s1.Verified)
	testcheck.Eq(t, "model calls after the resume", srv.calls(), len(pairs))
	checkRecordsConfirmed(t, readExecutions(t, s2.Path), pairs)
	if p := srv.prompts["m0"]; strings.Contains(p, "```diff") || strings.Contains(p, "localised") {
		t.Errorf("methods-only prompt shows a diff or a site:\n%s", p)
	}
	s3, err := RunModel(context.Background(), pairs, out, b, opts)
	testcheck.Must(t, err)
	testcheck.Eq(t, "third run: verified", s3.Verified, 0)
	testcheck.Eq(t, "third run: skipped", s3.Skipped, len(pairs))
	testcheck.Eq(t, "model calls after the third run", srv.calls(), len(pairs))
}

// checkRecordsConfirmed checks that every pair's record is confirmed.
func checkRecordsConfirmed(t *testing.T, got map[string]Execution, pairs []corpus.Pair) {
	t.Helper()
	for _, p := range pairs {
		if e := got[p.PairID]; !e.Criteria.C {
			t.Errorf("%s: not confirmed: %s (inputs %+v) hazards %+v", p.PairID, e.Reason, e.Harness, e.Hazards)
		}
	}
}

func TestHarnessBuilderUsage(t *testing.T) {
	_, m := newScripted(t, nil)
	for _, tc := range []struct {
		regime string
		recs   []corpus.JudgeRecord
		want   string
	}{
		{"fuzz", nil, "not one of"},
		{RegimeJudgeFed, nil, "needs the judge's records"},
		{RegimeDiffAided, []corpus.JudgeRecord{}, "only in the judge-fed regime"},
	} {
		if _, err := NewBuilder(m, tc.regime, tc.recs); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewBuilder(%s, %v): err %v, want %q", tc.regime, tc.recs, err, tc.want)
		}
	}
}
