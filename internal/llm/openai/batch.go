package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	sdk "github.com/openai/openai-go/v3"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
)

// batchLine is one line of a Batch API input file.
type batchLine struct {
	CustomID string                      `json:"custom_id"`
	Method   string                      `json:"method"`
	URL      string                      `json:"url"`
	Body     sdk.ChatCompletionNewParams `json:"body"`
}

// SubmitChatBatch uploads the requests as a JSONL file (purpose "batch") and
// creates a /v1/chat/completions batch with a 24 h completion window.
func (m *Model) SubmitChatBatch(ctx context.Context, reqs []llm.BatchChat) (string, error) {
	buf, err := m.batchInput(reqs)
	if err != nil {
		return "", err
	}
	var c capture
	f, err := m.files.New(ctx, sdk.FileNewParams{
		File:    sdk.File(buf, "benchforge-batch.jsonl", "application/jsonl"),
		Purpose: sdk.FilePurposeBatch,
	}, m.call("batch", &c)...)
	if err != nil {
		return "", m.classify("batch", &c, err)
	}
	if f.ID == "" {
		return "", m.empty("batch", &c, "uploaded file has no id")
	}
	c = capture{}
	b, err := m.batches.New(ctx, sdk.BatchNewParams{
		InputFileID:      f.ID,
		Endpoint:         sdk.BatchNewParamsEndpointV1ChatCompletions,
		CompletionWindow: sdk.BatchNewParamsCompletionWindow24h,
	}, m.call("batch", &c)...)
	if err != nil {
		return "", m.classify("batch", &c, err)
	}
	if b.ID == "" {
		return "", m.empty("batch", &c, "created batch has no id")
	}
	return b.ID, nil
}

// batchInput is the batch input file: one /v1/chat/completions request
// per line.
func (m *Model) batchInput(reqs []llm.BatchChat) (*bytes.Buffer, error) {
	var buf bytes.Buffer
	for _, r := range reqs {
		p, err := m.chatParams(r.Req)
		if err != nil {
			return nil, fmt.Errorf("%s batch: request %s: %w: %w", m.id, r.CustomID, err, errs.ErrUsage)
		}
		line, err := json.Marshal(batchLine{CustomID: r.CustomID, Method: http.MethodPost, URL: "/v1/chat/completions", Body: p})
		if err != nil {
			return nil, fmt.Errorf("%s batch: request %s: %w", m.id, r.CustomID, err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return &buf, nil
}

// PollBatch reads the batch's status. A failed, expired or cancelled batch
// is an error wrapping errs.ErrUnavailable.
func (m *Model) PollBatch(ctx context.Context, id string) (llm.BatchState, error) {
	var c capture
	b, err := m.batches.Get(ctx, id, m.call("batch", &c)...)
	if err != nil {
		return llm.BatchState{}, m.classify("batch", &c, err)
	}
	st := llm.BatchState{ID: b.ID, Status: string(b.Status), Total: int(b.RequestCounts.Total),
		Completed: int(b.RequestCounts.Completed), Failed: int(b.RequestCounts.Failed)}
	switch b.Status {
	case sdk.BatchStatusCompleted:
		st.Done = b.OutputFileID != "" || b.ErrorFileID != ""
		if !st.Done {
			return st, m.empty("batch", &c, "completed batch has no output or error file")
		}
	case sdk.BatchStatusFailed, sdk.BatchStatusExpired, sdk.BatchStatusCancelled:
		return st, fmt.Errorf("%s batch %s ended %s: resubmit the requests or make normal calls: %w", m.id, id, b.Status, errs.ErrUnavailable)
	}
	return st, nil
}

// outputLine is one line of a Batch API output or error file.
type outputLine struct {
	CustomID string `json:"custom_id"`
	Response *struct {
		StatusCode int             `json:"status_code"`
		RequestID  string          `json:"request_id"`
		Body       json.RawMessage `json:"body"`
	} `json:"response"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// ChatBatchResults downloads the output (and error) files of a completed
// batch and decodes every line.
func (m *Model) ChatBatchResults(ctx context.Context, id string) (map[string]llm.BatchChatResult, error) {
	var c capture
	b, err := m.batches.Get(ctx, id, m.call("batch", &c)...)
	if err != nil {
		return nil, m.classify("batch", &c, err)
	}
	out := map[string]llm.BatchChatResult{}
	for _, fid := range []string{b.OutputFileID, b.ErrorFileID} {
		if fid == "" {
			continue
		}
		if err := m.readResultFile(ctx, id, fid, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// readResultFile downloads file fid of batch id and decodes each of its
// lines into out, by custom id.
func (m *Model) readResultFile(ctx context.Context, id, fid string, out map[string]llm.BatchChatResult) error {
	var c capture
	res, err := m.files.Content(ctx, fid, m.call("batch", &c)...)
	if err != nil {
		return m.classify("batch", &c, err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return fmt.Errorf("%s batch %s: read file %s: %w: %w", m.id, id, fid, errs.ErrUnavailable, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for ln := 1; sc.Scan(); ln++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var l outputLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil || l.CustomID == "" {
			return &llm.ResponseError{Provider: m.id, Op: "batch", Status: 200, Body: llm.Snippet(sc.Bytes()),
				Reason: fmt.Sprintf("batch %s file %s line %d is not a batch result", id, fid, ln), Err: err}
		}
		out[l.CustomID] = m.batchResult(l)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s batch %s: file %s: %w: %w", m.id, id, fid, errs.ErrUnavailable, err)
	}
	return nil
}

func (m *Model) batchResult(l outputLine) llm.BatchChatResult {
	if l.Error != nil {
		return llm.BatchChatResult{Err: &llm.ResponseError{Provider: m.id, Op: "batch", Reason: l.Error.Code + ": " + l.Error.Message}}
	}
	if l.Response == nil {
		return llm.BatchChatResult{Err: &llm.ResponseError{Provider: m.id, Op: "batch", Reason: "result has neither response nor error"}}
	}
	c := capture{status: l.Response.StatusCode, header: http.Header{"X-Request-Id": {l.Response.RequestID}}, body: l.Response.Body}
	if l.Response.StatusCode != http.StatusOK {
		return llm.BatchChatResult{Err: m.empty("chat", &c, "batch request failed")}
	}
	var res sdk.ChatCompletion
	if err := json.Unmarshal(l.Response.Body, &res); err != nil {
		return llm.BatchChatResult{Err: m.empty("chat", &c, "malformed chat completion: "+err.Error())}
	}
	resp, err := m.chatResponse(&res, len(res.Choices), &c)
	if len(res.Choices) == 0 {
		err = m.empty("chat", &c, "no choices")
	}
	return llm.BatchChatResult{Resp: resp, Err: err}
}

var _ llm.Batcher = (*Model)(nil)
