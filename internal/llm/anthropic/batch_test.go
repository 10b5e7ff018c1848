package anthropic_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/llm/llmtest"
)

func session(t *testing.T, dir string) *llm.Session {
	t.Helper()
	s, err := llm.NewSession(llm.SessionOptions{CacheDir: dir, Provider: llm.Options{Timeout: 5 * time.Second},
		Retry: llm.RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func user(text string) []llm.Message { return []llm.Message{{Role: "user", Content: text}} }

// TestChatBatchResume: submit a Message Batch, "kill" the run while it is
// in progress, collect it from a new Session, then the normal Chat path is
// served from the cache with zero POST /v1/messages; the errored and the
// expired request are reported, left uncached, and retried by a normal call.
func TestChatBatchResume(t *testing.T) {
	f, spec := fakeServer(t, nil)
	f.BatchOutcome = func(_ string, params []byte) string {
		if bytes.Contains(params, []byte("expire me")) {
			return "expired"
		}
		return ""
	}
	dir := t.TempDir()
	ctx := context.Background()
	reqs := []llm.ChatRequest{
		{Messages: user("judge pair 0"), MaxTokens: 50, JSON: true},
		{Messages: user("judge pair 1"), MaxTokens: 50, JSON: true},
		{Messages: user("judge pair 2"), MaxTokens: 50, N: 2},
		{Messages: user("judge pair 3"), MaxTokens: 50, Temperature: 1.5}, // out of range: errored
		{Messages: user("expire me"), MaxTokens: 50},
	}

	id := submitThenStop(t, ctx, dir, spec, reqs)
	m2, s2 := collectInNewSession(t, ctx, f, dir, spec, id)

	msgs := f.Path("/v1/messages")
	checkBatchAnswersCached(t, ctx, f, m2, reqs, msgs)
	if man := s2.Manifest(); man.Calls != 2 || man.PromptTokens == 0 {
		t.Errorf("manifest calls=%d prompt tokens=%d; want the 2 batch results accounted", man.Calls, man.PromptTokens)
	}

	// The failures were not cached: a normal call goes to the API, where
	// the errored one fails the same way and the expired one succeeds.
	if _, err := m2.Chat(ctx, reqs[3]); !isErr(err, errs.ErrInput, "invalid_request_error") {
		t.Errorf("errored request retried normally: err = %v, want the 400 invalid_request_error", err)
	}
	if resp, err := m2.Chat(ctx, reqs[4]); err != nil || resp.CacheHits != 0 {
		t.Errorf("expired request retried normally = %+v, %v; want a fresh answer", resp, err)
	}
	if got := f.Path("/v1/messages") - msgs; got != 2 {
		t.Errorf("retrying the 2 failures made %d POST /v1/messages, want 2", got)
	}
	// Only the still-unanswered request is resubmitted.
	checkResubmit(t, ctx, s2, m2, reqs, id)

}

// checkResubmit: submitting reqs again makes a new batch of the one
// still unanswered.
func checkResubmit(t *testing.T, ctx context.Context, s *llm.Session, m llm.Model, reqs []llm.ChatRequest, old string) {
	t.Helper()
	id2, n, err := s.SubmitChatBatch(ctx, m, reqs)
	if id2 == "" || id2 == old || n != 1 || err != nil {
		t.Errorf("resubmit = %q, %d, %v; want a new batch of 1", id2, n, err)
	}
}

// submitThenStop answers reqs[0] normally, submits reqs as a batch of the
// other four, polls it once while in progress and closes the session, as
// a killed run would; it returns the batch id.
func submitThenStop(t *testing.T, ctx context.Context, dir, spec string, reqs []llm.ChatRequest) string {
	t.Helper()
	s1 := session(t, dir)
	m1, err := s1.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m1.Chat(ctx, reqs[0]); err != nil { // already answered: not resubmitted
		t.Fatal(err)
	}
	id, n, err := s1.SubmitChatBatch(ctx, m1, reqs)
	if err != nil || id == "" || n != 4 {
		t.Fatalf("SubmitChatBatch = %q, %d, %v; want a batch of 4", id, n, err)
	}
	st, err := s1.CollectBatch(ctx, m1, id)
	if err != nil || !slices.Equal([]any{st.Done, st.Status, st.Total}, []any{false, "in_progress", 5}) {
		t.Fatalf("first poll = %+v, %v; want in_progress with 5 batch requests (N=2 counts twice)", st, err)
	}
	s1.Close()
	return id
}

// collectInNewSession finds batch id pending in a new session on dir and
// collects it: 2 completed, 2 failed, the results fetched once.
func collectInNewSession(t *testing.T, ctx context.Context, f *llmtest.Anthropic, dir, spec, id string) (llm.Model, *llm.Session) {
	t.Helper()
	s2 := session(t, dir)
	m2, err := s2.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	pending, err := s2.PendingBatches(ctx, m2)
	if err != nil || !slices.Equal(pending, []string{id}) {
		t.Fatalf("PendingBatches = %v, %v; want [%s]", pending, err, id)
	}
	st, err := s2.CollectBatch(ctx, m2, id)
	if err != nil || !slices.Equal([]any{st.Done, st.Status, st.Completed, st.Failed}, []any{true, "ended", 2, 2}) {
		t.Fatalf("CollectBatch = %+v, %v; want ended with 2 completed, 2 failed", st, err)
	}
	if pending, _ := s2.PendingBatches(ctx, m2); len(pending) != 0 {
		t.Errorf("after collection PendingBatches = %v, want none", pending)
	}
	if got := f.Path("/results"); got != 1 {
		t.Errorf("results_url fetched %d times, want 1", got)
	}
	return m2, s2
}

// checkBatchAnswersCached checks that the first three requests are
// answered from the cache, the JSON one with JSON, without a POST
// /v1/messages after the msgs made so far.
func checkBatchAnswersCached(t *testing.T, ctx context.Context, f *llmtest.Anthropic, m llm.Model, reqs []llm.ChatRequest, msgs int) {
	t.Helper()
	for i, req := range reqs[:3] {
		resp, err := m.Chat(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if !allCached(resp, max(req.N, 1)) {
			t.Errorf("request %d: %+v, want all answers from the cache", i, resp)
		}
	}
	if resp, err := m.Chat(ctx, reqs[1]); err != nil || !json.Valid([]byte(resp.Choices[0].Text)) {
		t.Errorf("JSON request answered %+v, %v from the batch; want a JSON object", resp, err)
	}
	if got := f.Path("/v1/messages") - msgs; got != 0 {
		t.Errorf("after collecting the batch, Chat made %d POST /v1/messages, want 0", got)
	}
}

// allCached reports whether resp has n choices, the first with text, all
// from the cache.
func allCached(resp *llm.ChatResponse, n int) bool {
	return len(resp.Choices) == n && resp.Choices[0].Text != "" && resp.CacheHits == len(resp.Choices)
}

// TestChatBatchResultsErrors: the provider's results name every failed
// request by custom_id with the API's error type and a matching sentinel.
func TestChatBatchResultsErrors(t *testing.T) {
	f, spec := fakeServer(t, nil)
	f.BatchOutcome = outcomeByPrefix
	b := batcher(t, spec)
	ctx := context.Background()
	items := []llm.BatchChat{
		{CustomID: "ok", Req: llm.ChatRequest{Messages: user("fine"), N: 3}},
		{CustomID: "bad", Req: llm.ChatRequest{Messages: user("too hot"), Temperature: 2}},
		{CustomID: "exp", Req: llm.ChatRequest{Messages: user("slow")}},
		{CustomID: "can", Req: llm.ChatRequest{Messages: user("stop")}},
	}
	id, err := b.SubmitChatBatch(ctx, items)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.ChatBatchResults(ctx, id); !isErr(err, errs.ErrUnavailable, "poll it again") {
		t.Errorf("results of an in-progress batch: err = %v, want ErrUnavailable saying to poll again", err)
	}
	if st, err := b.PollBatch(ctx, id); err != nil || !slices.Equal([]any{st.Done, st.Total, st.Completed, st.Failed}, []any{true, 6, 3, 3}) {
		t.Fatalf("PollBatch = %+v, %v; want ended, 6 requests, 3 succeeded, 3 failed", st, err)
	}
	res, err := b.ChatBatchResults(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 4 {
		t.Fatalf("results for %d ids, want 4: %+v", len(res), res)
	}
	checkOKResult(t, res["ok"])
	tests := []struct {
		id       string
		sentinel error
		want     []string
	}{
		{"bad", errs.ErrInput, []string{"custom_id bad__0of1", "errored: invalid_request_error", "temperature", "request id req_msg_"}},
		{"exp", errs.ErrUnavailable, []string{"custom_id exp__0of1", "expired"}},
		{"can", errs.ErrUnavailable, []string{"custom_id can__0of1", "canceled"}},
	}
	for _, tc := range tests {
		checkFailedResult(t, res[tc.id], tc.id, tc.sentinel, append(tc.want, id, "anthropic:claude-sonnet-4-5"))
	}
}

// outcomeByPrefix expires the requests of ids exp__… and cancels those
// of can__…; the fake answers the rest.
func outcomeByPrefix(id string, _ []byte) string {
	switch {
	case strings.HasPrefix(id, "exp__"):
		return "expired"
	case strings.HasPrefix(id, "can__"):
		return "canceled"
	}
	return ""
}

func checkOKResult(t *testing.T, ok llm.BatchChatResult) {
	t.Helper()
	if ok.Err != nil || len(ok.Resp.Choices) != 3 || ok.Resp.RequestID == "" || ok.Resp.Model != "claude-sonnet-4-5" ||
		ok.Resp.Usage.CompletionTokens != 27 {
		t.Errorf("ok = %+v (err %v); want 3 choices, a message id, the model and 3×9 output tokens", ok.Resp, ok.Err)
	}
}

// checkFailedResult: r has no answer and an error wrapping sentinel that
// mentions each of want.
func checkFailedResult(t *testing.T, r llm.BatchChatResult, id string, sentinel error, want []string) {
	t.Helper()
	if r.Resp != nil || !errors.Is(r.Err, sentinel) {
		t.Errorf("%s: %+v, want no answer and an error wrapping %v", id, r, sentinel)
		return
	}
	for _, w := range want {
		if !strings.Contains(r.Err.Error(), w) {
			t.Errorf("%s: error %q does not mention %q", id, r.Err, w)
		}
	}
}

func batcher(t *testing.T, spec string) llm.Batcher {
	t.Helper()
	m, err := llm.Open(spec, llm.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	b, ok := m.(llm.Batcher)
	if !ok {
		t.Fatalf("%T is not an llm.Batcher", m)
	}
	return b
}

// TestSubmitChatBatchRequestShape checks the POST body against the
// documented {requests: [{custom_id, params}]} shape.
func TestSubmitChatBatchRequestShape(t *testing.T) {
	var body []byte
	_, spec := fakeServer(t, func(w http.ResponseWriter, r *http.Request, n int64) bool {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages/batches") {
			body, _ = io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		return false
	})
	b := batcher(t, spec)
	_, err := b.SubmitChatBatch(context.Background(), []llm.BatchChat{{CustomID: "a1",
		Req: llm.ChatRequest{System: "be terse", Messages: user("hi"), N: 2, Temperature: 0.3, TopP: 0.9, Stop: []string{"END"}}}})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Requests []struct {
			CustomID string         `json:"custom_id"`
			Params   map[string]any `json:"params"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(body, &got); err != nil || len(got.Requests) != 2 {
		t.Fatalf("body %s: %v; want 2 requests", body, err)
	}
	for i, r := range got.Requests {
		if want := []string{"a1__0of2", "a1__1of2"}[i]; r.CustomID != want {
			t.Errorf("request %d custom_id %q, want %q", i, r.CustomID, want)
		}
		if !paramsShaped(r.Params) {
			t.Errorf("request %d params %v; want model, max_tokens, temperature, top_p, system, messages, stop_sequences", i, r.Params)
		}
	}
}

// paramsShaped reports whether p has the model, max_tokens, temperature
// and top_p sent, and a system, messages and stop_sequences.
func paramsShaped(p map[string]any) bool {
	return p["model"] == "claude-sonnet-4-5" && p["max_tokens"] == float64(1024) && p["temperature"] == 0.3 && p["top_p"] == 0.9 &&
		p["system"] != nil && p["messages"] != nil && p["stop_sequences"] != nil
}

func TestSubmitChatBatchUsageErrors(t *testing.T) {
	f, spec := fakeServer(t, nil)
	b := batcher(t, spec)
	ok := llm.ChatRequest{Messages: user("hi")}
	tests := []struct {
		name  string
		items []llm.BatchChat
		want  string
	}{
		{"empty", nil, "no requests"},
		{"id too long", []llm.BatchChat{{CustomID: strings.Repeat("x", 60), Req: ok}}, "does not match"},
		{"id with a dot", []llm.BatchChat{{CustomID: "a.b", Req: ok}}, "does not match"},
		{"duplicate id", []llm.BatchChat{{CustomID: "a", Req: ok}, {CustomID: "a", Req: ok}}, "appears twice"},
		{"bad role", []llm.BatchChat{{CustomID: "a", Req: llm.ChatRequest{Messages: []llm.Message{{Role: "tool", Content: "x"}}}}}, "role"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := b.SubmitChatBatch(context.Background(), tc.items)
			if !isErr(err, errs.ErrUsage, tc.want) {
				t.Errorf("err = %v, want ErrUsage mentioning %q", err, tc.want)
			}
		})
	}
	if f.Requests() != 0 {
		t.Errorf("invalid batches made %d HTTP requests, want 0", f.Requests())
	}
}

// TestResultsURLOtherOrigin: the key is never sent to a results_url on
// another host.
func TestResultsURLOtherOrigin(t *testing.T) {
	f, spec := fakeServer(t, nil)
	f.ResultsBase = "http://192.0.2.1:9"
	b := batcher(t, spec)
	ctx := context.Background()
	id, err := b.SubmitChatBatch(ctx, []llm.BatchChat{{CustomID: "a", Req: llm.ChatRequest{Messages: user("hi")}}})
	if err != nil {
		t.Fatal(err)
	}
	b.PollBatch(ctx, id)
	b.PollBatch(ctx, id)
	_, err = b.ChatBatchResults(ctx, id)
	if !isErr(err, errs.ErrUnavailable, "192.0.2.1:9", "not sent") {
		t.Errorf("err = %v, want ErrUnavailable refusing the foreign results_url", err)
	}
}

// TestBatchServerAnswers: batch and results shapes the fake never sends.
func TestBatchServerAnswers(t *testing.T) {
	batchJSON := func(status, url, archived string) string {
		return `{"id":"msgbatch_1","type":"message_batch","processing_status":"` + status + `",` +
			`"request_counts":{"processing":0,"succeeded":1,"errored":0,"canceled":0,"expired":0},` +
			`"created_at":"2024-08-20T18:37:24Z","expires_at":"2024-08-21T18:37:24Z","ended_at":null,` +
			`"archived_at":` + archived + `,"cancel_initiated_at":null,"results_url":` + url + `}`
	}
	msg := `{"id":"msg_9","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}`
	tests := []struct {
		name     string
		batch    string // null results_url is filled in with the server's
		results  string
		wantPoll string // error substring from PollBatch, "" for none
		wantDone bool
		wantRes  string // error substring from ChatBatchResults or its "a" result
	}{
		{name: "canceling", batch: batchJSON("canceling", "null", "null")},
		{name: "unknown status", batch: batchJSON("paused", "null", "null"), wantPoll: `unknown processing_status "paused"`},
		{name: "ended without results_url", batch: batchJSON("ended", "null", "null"), wantPoll: "has no results_url"},
		{name: "archived", batch: batchJSON("ended", "RESULTS", `"2024-09-20T00:00:00Z"`), wantPoll: "archived"},
		{name: "garbage line", batch: batchJSON("ended", "RESULTS", "null"), wantDone: true,
			results: "not json\n", wantRes: "line 1: not a batch result"},
		{name: "foreign custom_id", batch: batchJSON("ended", "RESULTS", "null"), wantDone: true,
			results: `{"custom_id":"mine","result":{"type":"succeeded","message":` + msg + `}}`, wantRes: "was not made by benchforge"},
		{name: "missing sample", batch: batchJSON("ended", "RESULTS", "null"), wantDone: true,
			results: `{"custom_id":"a__1of2","result":{"type":"succeeded","message":` + msg + `}}`, wantRes: "custom_id a__0of2: no result line"},
		{name: "no text", batch: batchJSON("ended", "RESULTS", "null"), wantDone: true,
			results: `{"custom_id":"a__0of1","result":{"type":"succeeded","message":{"id":"msg_1","content":[],"stop_reason":"max_tokens"}}}`,
			wantRes: "no text content"},
		{name: "unknown result type", batch: batchJSON("ended", "RESULTS", "null"), wantDone: true,
			results: `{"custom_id":"a__0of1","result":{"type":"vanished"}}`, wantRes: `unknown result type "vanished"`},
		{name: "ok", batch: batchJSON("ended", "RESULTS", "null"), wantDone: true,
			results: "\n" + `{"custom_id":"a__0of1","result":{"type":"succeeded","message":` + msg + `}}` + "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, spec := fakeServer(t, cannedBatch(tc.batch, tc.results))
			b := batcher(t, spec)
			ctx := context.Background()
			st, err := b.PollBatch(ctx, "msgbatch_1")
			if tc.wantPoll != "" {
				if !isErr(err, errs.ErrUnavailable, tc.wantPoll) {
					t.Fatalf("PollBatch err = %v, want ErrUnavailable mentioning %q", err, tc.wantPoll)
				}
				return
			}
			if err != nil || st.Done != tc.wantDone {
				t.Fatalf("PollBatch = %+v, %v; want done=%v", st, err, tc.wantDone)
			}
			if st.Done {
				checkBatchResultA(t, b, tc.wantRes)
			}
		})
	}
}

// cannedBatch answers every request with batch (its RESULTS replaced by
// the server's results URL), and the results URL with results.
func cannedBatch(batch, results string) llmtest.Hook {
	return func(w http.ResponseWriter, r *http.Request, n int64) bool {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/results") {
			w.Write([]byte(results))
		} else {
			w.Write([]byte(strings.Replace(batch, "RESULTS", `"http://`+r.Host+`/v1/messages/batches/msgbatch_1/results"`, 1)))
		}
		return true
	}
}

// checkBatchResultA collects msgbatch_1: with wantRes "", request a must
// be answered "hi"; otherwise the error (of the call or of a) must
// mention wantRes.
func checkBatchResultA(t *testing.T, b llm.Batcher, wantRes string) {
	t.Helper()
	res, err := b.ChatBatchResults(context.Background(), "msgbatch_1")
	if err == nil && res["a"].Err != nil {
		err = res["a"].Err
	}
	if wantRes == "" {
		if err != nil || res["a"].Resp == nil || res["a"].Resp.Choices[0].Text != "hi" {
			t.Errorf("ChatBatchResults = %+v, %v; want answer hi for a", res, err)
		}
		return
	}
	if !mentions(err, wantRes) {
		t.Errorf("ChatBatchResults err = %v, want one mentioning %q", err, wantRes)
	}
}
