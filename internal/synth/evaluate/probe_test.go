package evaluate

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/llm"
	_ "github.com/benchforge/benchforge/internal/llm/providers" // openai, ngram
	"github.com/benchforge/benchforge/internal/ngram/ngramtest"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
	"github.com/google/go-cmp/cmp"
)

// probeSeeds are six real pairs whose methods name their seed (mK), so a
// scripted server can tell which seed and which item a prompt is about.
// Seeds 4 and 5 do not grow (the §7.4.5 residual stratum).
func probeSeeds() ([]corpus.Seed, []SeedInfo) {
	var seeds []corpus.Seed
	var infos []SeedInfo
	for k := range 6 {
		id := fmt.Sprintf("P-%d#0", k)
		seeds = append(seeds, corpus.Seed{BugID: id, SourceBug: fmt.Sprintf("P-%d", k), Exception: corpus.NullPointer,
			BuggyMethod: fmt.Sprintf("int m%d(String s) { return s.length() + %d; }", k, k),
			FixedMethod: fmt.Sprintf("int m%d(String s) { if (s == null) return %d; return s.length() + %d; }", k, k, k)})
		fixed := 20
		if k >= 4 {
			fixed = 10
		}
		infos = append(infos, SeedInfo{BugID: id, SourceBug: fmt.Sprintf("P-%d", k), Exception: corpus.NullPointer, BuggyTokens: 12, FixedTokens: fixed})
	}
	return seeds, infos
}

// probeScript answers like a defective-biased, first-position-biased
// model, with a few unparseable answers. Hand-computed figures:
//
//	isolated: buggy 0–4 defective, 5 "No." → tp 5, fn 1; fixed 0,1 clean,
//	  2,3 defective, 4 and 5 unparseable → tn 2, fp 2. n 10 of 12, correct 7:
//	  accuracy 0.7, specificity 2/4, recall 5/6, precision 5/7, F1 50/65,
//	  called defective 7/10.
//	pair: buggy-first all A (6/6 right); fixed-first 0,1 B (right), 2–4 A
//	  (wrong), 5 unparseable. n 11 of 12, correct 8: A 6/6, B 2/5, balanced
//	  0.7, chose first 9/11; residual (seeds 4, 5): 2 of 3 parsed answers.
func probeScript(k int, item string) string {
	switch item {
	case "buggy":
		if k == 5 {
			return "No."
		}
		return `{"defective": true, "confidence": 0.9}`
	case "fixed":
		switch k {
		case 0, 1:
			return `{"defective": false, "confidence": 0.6}`
		case 2, 3:
			return "```json\n{\"defective\": true}\n```"
		case 4:
			return "I am not sure whether it can."
		}
		// Unparseable, but an answer: an empty one is a provider fault
		// (retried), never recorded as the model's judgement.
		return "Hmm."
	case BuggyFirst:
		if k == 5 {
			return "**A**."
		}
		return `{"defective": "A"}`
	}
	switch k { // fixed-first
	case 0, 1:
		return `{"defective": "B", "confidence": 0.8}`
	case 5:
		return "Method A is correct; method B is defective."
	}
	return "A"
}

var seedName = regexp.MustCompile(`int m(\d+)\(`)

// scriptServer is an OpenAI-compatible chat endpoint answering from
// probeScript, in the documented chat.completion shape. failAfter > 0
// makes request number failAfter+1 and later fail with a 400 (not retried).
func scriptServer(t *testing.T, seeds []corpus.Seed, failAfter int64) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := n.Add(1)
		if failAfter > 0 && i > failAfter {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error": {"message": "scripted failure", "type": "invalid_request_error"}}`)
			return
		}
		var body struct {
			Model    string `json:"model"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.Messages) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		content := body.Messages[len(body.Messages)-1].Content
		m := seedName.FindStringSubmatch(content)
		if m == nil {
			http.Error(w, "no seed in prompt", http.StatusBadRequest)
			return
		}
		k, _ := strconv.Atoi(m[1])
		s := seeds[k]
		item := "fixed"
		switch {
		case strings.Contains(content, "Method A:"):
			item = FixedFirst
			if strings.Index(content, s.BuggyMethod) < strings.Index(content, s.FixedMethod) {
				item = BuggyFirst
			}
		case strings.Contains(content, s.BuggyMethod):
			item = "buggy"
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": fmt.Sprintf("chatcmpl-%d", i), "object": "chat.completion", "created": 1700000000, "model": body.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "logprobs": nil,
				"message": map[string]any{"role": "assistant", "content": probeScript(k, item), "refusal": nil}}},
			"usage": map[string]any{"prompt_tokens": 50, "completion_tokens": 5, "total_tokens": 55},
		})
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func probeSession(t *testing.T, cacheDir string) *llm.Session {
	t.Helper()
	s, err := llm.NewSession(llm.SessionOptions{CacheDir: cacheDir, NoCache: cacheDir == "",
		Retry: llm.RetryPolicy{MaxAttempts: 1}})
	testcheck.Must(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// scriptedModel opens the scripted server through s as "openai:scripted":
// the server's port changes from test to test, the model's name does not.
func scriptedModel(t *testing.T, s *llm.Session, srv *httptest.Server) llm.Model {
	t.Helper()
	inner, err := llm.Open("openai:scripted@"+srv.URL+"/v1", llm.Options{})
	testcheck.Must(t, err)
	return s.Wrap(llm.Spec{Provider: "openai", Model: "scripted"}, renamed{inner, "openai:scripted"})
}

func openModel(t *testing.T, s *llm.Session, spec string) llm.Model {
	t.Helper()
	m, err := s.Open(spec)
	testcheck.Must(t, err)
	return m
}

// TestProbeScripted runs both probes against a scripted OpenAI-compatible
// server and checks every figure of the probe rows against the
// hand-computed values in probeScript, and that Analyze reports the same
// figures from the probe predictions.
func TestProbeScripted(t *testing.T) {
	seeds, infos := probeSeeds()
	srv, _ := scriptServer(t, seeds, 0)
	s := probeSession(t, t.TempDir())
	m := scriptedModel(t, s, srv)
	dir := t.TempDir()
	run, err := RunProbes(context.Background(), []llm.Model{m}, seeds, ProbeOptions{Log: filepath.Join(dir, ProbeLogFile), Workers: 3})
	testcheck.Must(t, err)
	if run.Asked != 24 || run.Resumed != 0 || len(run.Records) != 24 {
		t.Fatalf("asked %d, resumed %d, %d records; want 24, 0, 24", run.Asked, run.Resumed, len(run.Records))
	}
	for _, r := range run.Records {
		if r.Parsed() == (r.Unparseable != "") || r.PromptHash != ProbePromptHash || r.Model != m.ID() {
			t.Errorf("record %+v", r)
		}
	}
	rep, preds, err := AnalyzeWithProbes(context.Background(), LengthRule(infos), infos, run.Records, AnalyzeOptions{Bootstrap: 200})
	testcheck.Must(t, err)
	if len(rep.Probes) != 2 {
		t.Fatalf("%d probe rows", len(rep.Probes))
	}
	checkScriptedRows(t, rep.Probes[0], rep.Probes[1])
	checkScriptedAnalysis(t, rep, preds, m.ID())
	if rep.Config.ProbePromptHash != ProbePromptHash || rep.Config.Bootstrap != 200 || len(rep.Config.Probes) != 1 {
		t.Errorf("config %+v", rep.Config)
	}
	golden.CheckString(t, filepath.Join("testdata", "probe.md"), probeMarkdown(rep))
	if _, err := rep.Page(); err != nil {
		t.Errorf("page: %v", err)
	}
	checkProbeRoundTrip(t, rep)
}

// checkScriptedRows checks the probe rows of the scripted answers.
func checkScriptedRows(t *testing.T, iso, pair ProbeRow) {
	t.Helper()
	checkRowCounts(t, iso, ProbeRow{Task: Isolated, Asked: 12, Unparseable: 2, N: 10, Correct: 7})
	checkNear(t, "isolated accuracy", iso.Accuracy, 0.7)
	checkNear(t, "isolated specificity", iso.Specificity, 0.5)
	checkNear(t, "isolated recall", iso.Recall, 5.0/6)
	checkNear(t, "isolated precision", iso.Precision, 5.0/7)
	checkNear(t, "isolated F1", iso.F1, 50.0/65)
	checkNear(t, "isolated defective share", iso.DefectiveShare, 0.7)
	testcheck.Eq(t, "isolated note", iso.Note, "")
	if iso.CI == nil {
		t.Errorf("isolated row without a CI: %+v", iso)
	}
	checkRowCounts(t, pair, ProbeRow{Task: PairTask, Asked: 12, Unparseable: 1, N: 11, Correct: 8})
	testcheck.Eq(t, "pair residual n", pair.ResidualN, 3)
	checkNear(t, "pair accuracy", pair.Accuracy, 8.0/11)
	checkNear(t, "pair accuracy buggy first", pair.AccBuggyFirst, 1)
	checkNear(t, "pair accuracy fixed first", pair.AccFixedFirst, 0.4)
	checkNear(t, "pair balanced accuracy", pair.Balanced, 0.7)
	checkNear(t, "pair first share", pair.FirstShare, 9.0/11)
	checkNear(t, "pair residual", pair.Residual, 2.0/3)
	if pair.Specificity != nil {
		t.Errorf("pair row with a specificity: %+v", pair)
	}
}

// checkRowCounts checks a probe row's task and counts (asked,
// unparseable, n, correct) against want's.
func checkRowCounts(t *testing.T, got, want ProbeRow) {
	t.Helper()
	type counts struct {
		Task                           string
		Asked, Unparseable, N, Correct int
	}
	of := func(r ProbeRow) counts { return counts{r.Task, r.Asked, r.Unparseable, r.N, r.Correct} }
	if diff := cmp.Diff(of(want), of(got)); diff != "" {
		t.Errorf("%s row counts (-want +got):\n%s", want.Task, diff)
	}
}

// checkScriptedAnalysis checks the same answers through Analyze: the
// threshold rates and the position-conditional accuracies agree.
func checkScriptedAnalysis(t *testing.T, rep *Report, preds []Prediction, model string) {
	t.Helper()
	checkProbePredictions(t, preds, model)
	for _, row := range rep.Results {
		if row.Model != model {
			continue
		}
		r := row.Runs[0]
		switch row.Task {
		case Isolated:
			checkNear(t, "Analyze isolated accuracy", &r.Accuracy, 0.7)
			checkNear(t, "Analyze isolated specificity", &r.Specificity, 0.5)
			checkNear(t, "Analyze isolated recall", &r.Recall, 5.0/6)
			checkNear(t, "Analyze isolated F1", &r.F1, 50.0/65)
			checkNear(t, "Analyze isolated mean", &row.Mean, (0.5+5.0/6)/2) // binary scores: ROC-AUC is balanced accuracy
		case PairTask:
			checkNear(t, "Analyze pair value", &r.Value, 8.0/11)
			checkNear(t, "Analyze pair accuracy buggy first", &r.AccBuggyFirst, 1)
			checkNear(t, "Analyze pair accuracy fixed first", &r.AccFixedFirst, 0.4)
			checkNear(t, "Analyze pair residual", r.Residual, 2.0/3)
		}
	}
}

// checkProbePredictions checks that the model's predictions are the 21
// parsed answers, untrained and with the exception type.
func checkProbePredictions(t *testing.T, preds []Prediction, model string) {
	t.Helper()
	var nProbe int
	for _, p := range preds {
		if p.Model != model {
			continue
		}
		nProbe++
		if p.Training != NoTraining || p.Features != WithType {
			t.Errorf("probe prediction %+v", p)
		}
	}
	if nProbe != 21 {
		t.Errorf("%d probe predictions, want 21 (the parsed answers)", nProbe)
	}
}

// checkProbeRoundTrip checks that the probe tables survive a JSON round
// trip of the report.
func checkProbeRoundTrip(t *testing.T, rep *Report) {
	t.Helper()
	b, err := json.Marshal(rep)
	testcheck.Must(t, err)
	var back Report
	testcheck.Must(t, json.Unmarshal(b, &back))
	if got := probeMarkdown(&back); got != probeMarkdown(rep) {
		t.Errorf("probe tables after a JSON round trip differ:\n%s", got)
	}
}

func probeMarkdown(r *Report) string {
	var b strings.Builder
	for _, t := range r.ProbeTables() {
		b.WriteString(t.Markdown())
		b.WriteString("\n")
	}
	return b.String()
}

// TestProbeResume kills a pass after seven answers (the server starts
// failing), then reruns: the rerun asks only the 17 missing questions, a
// third pass asks nothing, and the log holds each answer once. No answer
// cache is used, so the log alone prevents the repeated calls.
func TestProbeResume(t *testing.T) {
	seeds, _ := probeSeeds()
	log := filepath.Join(t.TempDir(), ProbeLogFile)
	pass := func(failAfter int64) (*ProbeRun, int64, error) {
		srv, n := scriptServer(t, seeds, failAfter)
		m := scriptedModel(t, probeSession(t, ""), srv)
		run, err := RunProbes(context.Background(), []llm.Model{m}, seeds, ProbeOptions{Log: log, Workers: 1})
		return run, n.Load(), err
	}
	_, calls, err := pass(7)
	if err == nil || !strings.Contains(err.Error(), "rerun to resume") {
		t.Fatalf("failing pass: %v", err)
	}
	if recs, _ := jsonl.ReadFile[ProbeRecord](log); len(recs) != 7 || calls != 8 {
		t.Fatalf("after the failure: %d answers logged, %d calls; want 7, 8", len(recs), calls)
	}
	run, calls, err := pass(0)
	testcheck.Must(t, err)
	checkPass(t, "resumed pass", run, calls, passCounts{Calls: 17, Asked: 17, Resumed: 7, Records: 24})
	run, calls, err = pass(0)
	testcheck.Must(t, err)
	checkPass(t, "third pass", run, calls, passCounts{Calls: 0, Asked: 0, Resumed: 24, Records: 24})
	checkLoggedOnce(t, log, 24)
}

// passCounts are a probe pass's model calls and its run's counts.
type passCounts struct{ Calls, Asked, Resumed, Records int }

func checkPass(t *testing.T, what string, run *ProbeRun, calls int64, want passCounts) {
	t.Helper()
	got := passCounts{Calls: int(calls), Asked: run.Asked, Resumed: run.Resumed, Records: len(run.Records)}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", what, diff)
	}
}

// checkLoggedOnce checks that the probe log holds want answers, each once.
func checkLoggedOnce(t *testing.T, log string, want int) {
	t.Helper()
	recs, err := jsonl.ReadFile[ProbeRecord](log)
	testcheck.Must(t, err)
	keys := map[string]bool{}
	for _, r := range recs {
		if keys[ProbeKey(r)] {
			t.Errorf("answer %s logged twice", ProbeKey(r))
		}
		keys[ProbeKey(r)] = true
	}
	testcheck.Eq(t, "answers in the log", len(recs), want)
}

// renamed gives a provider model a fixed id (the scripted server's port
// changes between passes, the model does not).
type renamed struct {
	llm.Model
	id string
}

func (r renamed) ID() string { return r.id }

// TestProbeNgram runs the probes end to end against benchforge's own
// in-process n-gram LM ("ngram:FILE"): its answers are code-like text, so
// most or all are unparseable — recorded with their raw text, counted, and
// never turned into predictions. A second pass into a fresh log is served
// entirely from the session's answer cache.
func TestProbeNgram(t *testing.T) {
	path := ngramtest.File(t, 3)
	seeds, infos := probeSeeds()
	seeds, infos = seeds[:3], infos[:3]
	cache := t.TempDir()
	pass := func() (*ProbeRun, llm.Manifest) {
		s := probeSession(t, cache)
		m := openModel(t, s, "ngram:"+path)
		run, err := RunProbes(context.Background(), []llm.Model{m}, seeds, ProbeOptions{Log: filepath.Join(t.TempDir(), ProbeLogFile), MaxTokens: 24})
		testcheck.Must(t, err)
		return run, s.Manifest()
	}
	run, man := pass()
	if man.Calls != 12 || man.CacheHits != 0 || len(run.Records) != 12 {
		t.Fatalf("first pass: %d calls, %d hits, %d records", man.Calls, man.CacheHits, len(run.Records))
	}
	checkNgramRecords(t, run.Records, "ngram:"+path)
	checkNgramAnalysis(t, run.Records, infos)
	run2, man2 := pass()
	if man2.Calls != 0 || man2.CacheHits != 12 {
		t.Errorf("second pass: %d calls, %d cache hits; want 0 and 12", man2.Calls, man2.CacheHits)
	}
	for i := range run.Records {
		testcheck.Eq(t, fmt.Sprintf("cached answer %d", i), run2.Records[i].Raw, run.Records[i].Raw)
	}
}

// checkNgramRecords checks that each record names the model and is
// either parsed or marked unparseable.
func checkNgramRecords(t *testing.T, recs []ProbeRecord, model string) {
	t.Helper()
	for _, r := range recs {
		if r.Fingerprint == "" || r.Model != model {
			t.Errorf("record without the model's identity: %+v", r)
		}
		if !r.Parsed() && r.Unparseable == "" {
			t.Errorf("%s %s%s: neither parsed nor marked unparseable", r.BugID, r.Side, r.Order)
		}
		t.Logf("%s %s%s: read %q, raw %q", r.BugID, r.Side, r.Order, r.Read, clipText(r.Raw, 50))
	}
}

// checkNgramAnalysis checks that the n-gram answers are counted per row
// and that not all of them read as verdicts or predictions.
func checkNgramAnalysis(t *testing.T, recs []ProbeRecord, infos []SeedInfo) {
	t.Helper()
	preds, rows, err := ProbeAnalysis(context.Background(), recs, infos, AnalyzeOptions{Bootstrap: 50})
	testcheck.Must(t, err)
	parsed := 0
	for _, row := range rows {
		if row.Asked != 6 || row.N+row.Unparseable != row.Asked {
			t.Errorf("row %+v", row)
		}
		parsed += row.N
	}
	if parsed == 12 || (len(preds) > parsed) {
		t.Errorf("n-gram output read as %d verdicts, %d predictions", parsed, len(preds))
	}
}

func TestProbeErrors(t *testing.T) {
	seeds, infos := probeSeeds()
	srv, _ := scriptServer(t, seeds, 0)
	m := scriptedModel(t, probeSession(t, ""), srv)
	ctx, models := context.Background(), []llm.Model{m}
	log := filepath.Join(t.TempDir(), ProbeLogFile)
	_, err := RunProbes(ctx, models, seeds, ProbeOptions{})
	testcheck.ErrIs(t, "no log", err, errs.ErrUsage)
	dup := append(append([]corpus.Seed(nil), seeds...), seeds[0])
	_, err = RunProbes(ctx, models, dup, ProbeOptions{Log: log})
	testcheck.ErrIs(t, "duplicate seed", err, errs.ErrInput)
	_, err = RunProbes(ctx, models, seeds, ProbeOptions{Log: log, Tasks: []string{"triage"}})
	testcheck.ErrIs(t, "unknown task", err, errs.ErrUsage)
	// A log written under other prompts is refused, not mixed in.
	old := ProbeRecord{Model: m.ID(), Task: Isolated, BugID: seeds[0].BugID, Side: "buggy", Prompt: "probe-v0", PromptHash: "0ld", Raw: "yes"}
	testcheck.Must(t, jsonl.Rewrite(log, []ProbeRecord{old}))
	_, err = RunProbes(ctx, models, seeds, ProbeOptions{Log: log})
	testcheck.ErrIs(t, "stale prompts", err, errs.ErrUsage)
	testcheck.ErrSays(t, "stale prompts", err, "probe-v0")
	// Only the pair task; an answer naming an unknown seed is refused by
	// the analysis.
	run, err := RunProbes(ctx, models, seeds, ProbeOptions{Log: filepath.Join(t.TempDir(), ProbeLogFile), Tasks: []string{PairTask}})
	testcheck.Must(t, err)
	if len(run.Records) != 12 {
		t.Fatalf("pair only: %d records, want 12", len(run.Records))
	}
	_, rows, err := ProbeAnalysis(ctx, run.Records, infos, AnalyzeOptions{Bootstrap: 50})
	testcheck.Must(t, err)
	testcheck.Eq(t, "pair-only row task", onlyRow(t, "pair-only", rows).Task, PairTask)
	_, _, err = ProbeAnalysis(ctx, run.Records, infos[1:], AnalyzeOptions{})
	testcheck.ErrIs(t, "unknown seed", err, errs.ErrInput)
	checkOneClass(t, seeds, infos)
}

// checkOneClass analyses isolated answers of one class only: rows, but no
// ROC-AUC input.
func checkOneClass(t *testing.T, seeds []corpus.Seed, infos []SeedInfo) {
	t.Helper()
	yes := true
	one := []ProbeRecord{{Model: "m", Task: Isolated, BugID: seeds[0].BugID, Side: "buggy", Defective: &yes},
		{Model: "m", Task: Isolated, BugID: seeds[0].BugID, Side: "fixed", Unparseable: "empty answer"}}
	preds, rows, err := ProbeAnalysis(context.Background(), one, infos, AnalyzeOptions{Bootstrap: 50})
	testcheck.Must(t, err)
	testcheck.Eq(t, "one class: predictions", len(preds), 0)
	r := onlyRow(t, "one class", rows)
	if r.Note == "" || r.Specificity != nil {
		t.Errorf("one class: note %q, specificity %s; want a note and no specificity", r.Note, showFloat(r.Specificity))
	}
	testcheck.Eq(t, "one class: unparseable", r.Unparseable, 1)
	checkNear(t, "one class: recall", r.Recall, 1)
}

// onlyRow stops the test unless rows holds exactly one row, and returns it.
func onlyRow(t *testing.T, what string, rows []ProbeRow) ProbeRow {
	t.Helper()
	if len(rows) != 1 {
		t.Fatalf("%s: rows %+v, want one", what, rows)
	}
	return rows[0]
}
