package evaluate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
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
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// scriptedModel opens the scripted server through s as "openai:scripted":
// the server's port changes from test to test, the model's name does not.
func scriptedModel(t *testing.T, s *llm.Session, srv *httptest.Server) llm.Model {
	t.Helper()
	inner, err := llm.Open("openai:scripted@"+srv.URL+"/v1", llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s.Wrap(llm.Spec{Provider: "openai", Model: "scripted"}, renamed{inner, "openai:scripted"})
}

func openModel(t *testing.T, s *llm.Session, spec string) llm.Model {
	t.Helper()
	m, err := s.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func near(a *float64, b float64) bool { return a != nil && math.Abs(*a-b) < 1e-12 }

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
	if err != nil {
		t.Fatal(err)
	}
	if run.Asked != 24 || run.Resumed != 0 || len(run.Records) != 24 {
		t.Fatalf("asked %d, resumed %d, %d records; want 24, 0, 24", run.Asked, run.Resumed, len(run.Records))
	}
	for _, r := range run.Records {
		if r.Parsed() == (r.Unparseable != "") || r.PromptHash != ProbePromptHash || r.Model != m.ID() {
			t.Errorf("record %+v", r)
		}
	}
	rep, preds, err := AnalyzeWithProbes(context.Background(), LengthRule(infos), infos, run.Records, AnalyzeOptions{Bootstrap: 200})
	if err != nil {
		t.Fatal(err)
	}
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
	if iso.Task != Isolated || iso.Asked != 12 || iso.Unparseable != 2 || iso.N != 10 || iso.Correct != 7 ||
		!near(iso.Accuracy, 0.7) || !near(iso.Specificity, 0.5) || !near(iso.Recall, 5.0/6) || !near(iso.Precision, 5.0/7) ||
		!near(iso.F1, 50.0/65) || !near(iso.DefectiveShare, 0.7) || iso.Note != "" || iso.CI == nil {
		t.Errorf("isolated row %+v", iso)
	}
	if pair.Task != PairTask || pair.Asked != 12 || pair.Unparseable != 1 || pair.N != 11 || pair.Correct != 8 ||
		!near(pair.Accuracy, 8.0/11) || !near(pair.AccBuggyFirst, 1) || !near(pair.AccFixedFirst, 0.4) || !near(pair.Balanced, 0.7) ||
		!near(pair.FirstShare, 9.0/11) || !near(pair.Residual, 2.0/3) || pair.ResidualN != 3 || pair.Specificity != nil {
		t.Errorf("pair row %+v", pair)
	}
}

// checkScriptedAnalysis checks the same answers through Analyze: the
// threshold rates and the position-conditional accuracies agree.
func checkScriptedAnalysis(t *testing.T, rep *Report, preds []Prediction, model string) {
	t.Helper()
	var nProbe int
	for _, p := range preds {
		if p.Model == model {
			nProbe++
			if p.Training != NoTraining || p.Features != WithType {
				t.Errorf("probe prediction %+v", p)
			}
		}
	}
	if nProbe != 21 {
		t.Errorf("%d probe predictions, want 21 (the parsed answers)", nProbe)
	}
	for _, row := range rep.Results {
		if row.Model != model {
			continue
		}
		r := row.Runs[0]
		switch row.Task {
		case Isolated:
			if !near(&r.Accuracy, 0.7) || !near(&r.Specificity, 0.5) || !near(&r.Recall, 5.0/6) || !near(&r.F1, 50.0/65) ||
				!near(&row.Mean, (0.5+5.0/6)/2) { // binary scores: ROC-AUC is balanced accuracy
				t.Errorf("Analyze isolated %+v", r)
			}
		case PairTask:
			if !near(&r.Value, 8.0/11) || !near(&r.AccBuggyFirst, 1) || !near(&r.AccFixedFirst, 0.4) || !near(r.Residual, 2.0/3) {
				t.Errorf("Analyze pair %+v", r)
			}
		}
	}
}

// checkProbeRoundTrip checks that the probe tables survive a JSON round
// trip of the report.
func checkProbeRoundTrip(t *testing.T, rep *Report) {
	t.Helper()
	b, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	if calls != 17 || run.Asked != 17 || run.Resumed != 7 || len(run.Records) != 24 {
		t.Errorf("resumed pass: %d calls, asked %d, resumed %d, %d records; want 17, 17, 7, 24", calls, run.Asked, run.Resumed, len(run.Records))
	}
	run, calls, err = pass(0)
	if err != nil || calls != 0 || run.Asked != 0 || run.Resumed != 24 {
		t.Errorf("third pass: %v, %d calls, asked %d, resumed %d", err, calls, run.Asked, run.Resumed)
	}
	recs, err := jsonl.ReadFile[ProbeRecord](log)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, r := range recs {
		if keys[ProbeKey(r)] {
			t.Errorf("answer %s logged twice", ProbeKey(r))
		}
		keys[ProbeKey(r)] = true
	}
	if len(recs) != 24 {
		t.Errorf("%d answers in the log, want 24", len(recs))
	}
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
		if err != nil {
			t.Fatal(err)
		}
		return run, s.Manifest()
	}
	run, man := pass()
	if man.Calls != 12 || man.CacheHits != 0 || len(run.Records) != 12 {
		t.Fatalf("first pass: %d calls, %d hits, %d records", man.Calls, man.CacheHits, len(run.Records))
	}
	for _, r := range run.Records {
		if r.Fingerprint == "" || r.Model != "ngram:"+path {
			t.Errorf("record without the model's identity: %+v", r)
		}
		if !r.Parsed() && r.Unparseable == "" {
			t.Errorf("%s %s%s: neither parsed nor marked unparseable", r.BugID, r.Side, r.Order)
		}
		t.Logf("%s %s%s: read %q, raw %q", r.BugID, r.Side, r.Order, r.Read, clipText(r.Raw, 50))
	}
	preds, rows, err := ProbeAnalysis(context.Background(), run.Records, infos, AnalyzeOptions{Bootstrap: 50})
	if err != nil {
		t.Fatal(err)
	}
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
	run2, man2 := pass()
	if man2.Calls != 0 || man2.CacheHits != 12 {
		t.Errorf("second pass: %d calls, %d cache hits; want 0 and 12", man2.Calls, man2.CacheHits)
	}
	for i := range run.Records {
		if run.Records[i].Raw != run2.Records[i].Raw {
			t.Errorf("cached answer %d differs", i)
		}
	}
}

func TestProbeErrors(t *testing.T) {
	seeds, infos := probeSeeds()
	srv, _ := scriptServer(t, seeds, 0)
	m := scriptedModel(t, probeSession(t, ""), srv)
	log := filepath.Join(t.TempDir(), ProbeLogFile)
	if _, err := RunProbes(context.Background(), []llm.Model{m}, seeds, ProbeOptions{}); !errors.Is(err, errs.ErrUsage) {
		t.Errorf("no log: %v", err)
	}
	dup := append(append([]corpus.Seed(nil), seeds...), seeds[0])
	if _, err := RunProbes(context.Background(), []llm.Model{m}, dup, ProbeOptions{Log: log}); !errors.Is(err, errs.ErrInput) {
		t.Errorf("duplicate seed: %v", err)
	}
	if _, err := RunProbes(context.Background(), []llm.Model{m}, seeds, ProbeOptions{Log: log, Tasks: []string{"triage"}}); !errors.Is(err, errs.ErrUsage) {
		t.Errorf("unknown task: %v", err)
	}
	// A log written under other prompts is refused, not mixed in.
	old := ProbeRecord{Model: m.ID(), Task: Isolated, BugID: seeds[0].BugID, Side: "buggy", Prompt: "probe-v0", PromptHash: "0ld", Raw: "yes"}
	if err := jsonl.Rewrite(log, []ProbeRecord{old}); err != nil {
		t.Fatal(err)
	}
	if _, err := RunProbes(context.Background(), []llm.Model{m}, seeds, ProbeOptions{Log: log}); !errors.Is(err, errs.ErrUsage) || !strings.Contains(err.Error(), "probe-v0") {
		t.Errorf("stale prompts: %v", err)
	}
	// Only the pair task; an answer naming an unknown seed is refused by
	// the analysis.
	run, err := RunProbes(context.Background(), []llm.Model{m}, seeds, ProbeOptions{Log: filepath.Join(t.TempDir(), ProbeLogFile), Tasks: []string{PairTask}})
	if err != nil || len(run.Records) != 12 {
		t.Fatalf("pair only: %v, %d records", err, len(run.Records))
	}
	_, rows, err := ProbeAnalysis(context.Background(), run.Records, infos, AnalyzeOptions{Bootstrap: 50})
	if err != nil || len(rows) != 1 || rows[0].Task != PairTask {
		t.Errorf("pair-only rows %+v, %v", rows, err)
	}
	if _, _, err := ProbeAnalysis(context.Background(), run.Records, infos[1:], AnalyzeOptions{}); !errors.Is(err, errs.ErrInput) {
		t.Errorf("unknown seed: %v", err)
	}
	// Isolated answers of one class only: rows, but no ROC-AUC input.
	yes := true
	one := []ProbeRecord{{Model: "m", Task: Isolated, BugID: seeds[0].BugID, Side: "buggy", Defective: &yes},
		{Model: "m", Task: Isolated, BugID: seeds[0].BugID, Side: "fixed", Unparseable: "empty answer"}}
	preds, rows, err := ProbeAnalysis(context.Background(), one, infos, AnalyzeOptions{Bootstrap: 50})
	if err != nil || len(preds) != 0 || len(rows) != 1 || rows[0].Note == "" || rows[0].Unparseable != 1 || !near(rows[0].Recall, 1) || rows[0].Specificity != nil {
		t.Errorf("one class: %v, %d predictions, rows %+v", err, len(preds), rows)
	}
}
