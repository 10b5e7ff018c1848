package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
)

// antBatch is a Message Batch of the fake Anthropic server. It is
// "in_progress" when created and on the first poll, and "ended" from the
// second poll on; its results are computed when it is created.
type antBatch struct {
	id      string
	polls   int
	results []byte         // JSONL, one MessageBatchIndividualResponse a line
	counts  map[string]int // result type → count
	total   int
	url     string // results_url
}

// customIDRE is the documented custom_id pattern.
var customIDRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

func (b *antBatch) json() map[string]any {
	ended := b.polls > 1
	counts := map[string]any{"processing": b.total, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
	status, endedAt, url := "in_progress", any(nil), any(nil)
	if ended {
		counts["processing"] = 0
		for k, v := range b.counts {
			counts[k] = v
		}
		status, endedAt, url = "ended", "2024-08-20T18:40:00Z", b.url
	}
	return map[string]any{"id": b.id, "type": "message_batch", "processing_status": status,
		"request_counts": counts, "created_at": "2024-08-20T18:37:24.100435Z", "expires_at": "2024-08-21T18:37:24.100435Z",
		"ended_at": endedAt, "archived_at": nil, "cancel_initiated_at": nil, "results_url": url}
}

// batchAPI serves POST /v1/messages/batches, GET
// /v1/messages/batches/{id} and GET /v1/messages/batches/{id}/results in the
// shapes of Anthropic's Message Batches API. Every request of a batch is
// answered as POST /v1/messages would answer it: a 400 becomes an "errored"
// result carrying the error body.
func (f *Anthropic) batchAPI(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.batches == nil {
		f.batches = map[string]*antBatch{}
	}
	i := strings.Index(r.URL.Path, "/v1/messages/batches")
	prefix, rest := r.URL.Path[:i], r.URL.Path[i+len("/v1/messages/batches"):]
	switch {
	case r.Method == http.MethodPost && rest == "":
		f.createBatch(w, r, prefix)
	case r.Method == http.MethodGet && strings.HasSuffix(rest, "/results"):
		b, ok := f.batches[strings.TrimSuffix(strings.TrimPrefix(rest, "/"), "/results")]
		if !ok || b.polls < 2 {
			AnthropicError(w, 404, "not_found_error", "no results for "+rest)
			return
		}
		w.Header().Set("Content-Type", "application/binary")
		w.Write(b.results)
	case r.Method == http.MethodGet && strings.HasPrefix(rest, "/"):
		b, ok := f.batches[rest[1:]]
		if !ok {
			AnthropicError(w, 404, "not_found_error", "no such message batch "+rest[1:])
			return
		}
		b.polls++
		writeJSON(w, 200, b.json())
	default:
		AnthropicError(w, 404, "not_found_error", "unknown path "+r.URL.Path)
	}
}

// createBatch serves POST /v1/messages/batches under prefix, answering
// every request at once.
func (f *Anthropic) createBatch(w http.ResponseWriter, r *http.Request, prefix string) {
	var req struct {
		Requests []struct {
			CustomID string          `json:"custom_id"`
			Params   json.RawMessage `json:"params"`
		} `json:"requests"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Requests) == 0 {
		AnthropicError(w, 400, "invalid_request_error", fmt.Sprintf("requests: want a non-empty list (%v)", err))
		return
	}
	b := &antBatch{id: fmt.Sprintf("msgbatch_%03d", len(f.batches)+1), counts: map[string]int{}, total: len(req.Requests)}
	base := "http://" + r.Host
	if f.ResultsBase != "" {
		base = f.ResultsBase
	}
	b.url = base + prefix + "/v1/messages/batches/" + b.id + "/results"
	seen := map[string]bool{}
	var out bytes.Buffer
	for k, it := range req.Requests {
		if !customIDRE.MatchString(it.CustomID) || seen[it.CustomID] {
			AnthropicError(w, 400, "invalid_request_error",
				fmt.Sprintf("requests.%d.custom_id: %q must match %s and be unique", k, it.CustomID, customIDRE))
			return
		}
		seen[it.CustomID] = true
		res := f.batchResult(it.CustomID, it.Params, fmt.Sprintf("msg_%s_%d", b.id, k+1))
		b.counts[res["type"].(string)]++
		line, _ := json.Marshal(map[string]any{"custom_id": it.CustomID, "result": res})
		out.Write(append(line, '\n'))
	}
	b.results = out.Bytes()
	f.batches[b.id] = b
	writeJSON(w, 200, b.json())
}

// batchResult is the result object of one batch request: succeeded with
// a message, errored with an error body, or canceled / expired when
// BatchOutcome says so.
func (f *Anthropic) batchResult(customID string, params []byte, msgID string) map[string]any {
	if f.BatchOutcome != nil {
		if o := f.BatchOutcome(customID, params); o == "canceled" || o == "expired" {
			return map[string]any{"type": o}
		}
	}
	status, res := message(params, msgID)
	if status != 200 {
		res["request_id"] = "req_" + msgID
		return map[string]any{"type": "errored", "error": res}
	}
	return map[string]any{"type": "succeeded", "message": res}
}
