package anthropic

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
)

// Message Batches (POST /v1/messages/batches, GET
// /v1/messages/batches/{id}, GET results_url) implement llm.Batcher.
//
// The Messages API has no n parameter, so a request with N > 1 becomes N
// batch requests whose custom_ids are the caller's id with the suffix
// "__<i>of<N>" (every request gets the suffix, N = 1 included, so a result
// line is always decodable); ChatBatchResults joins them back into one
// answer per caller id. A caller id plus suffix must fit the documented
// custom_id pattern ^[a-zA-Z0-9_-]{1,64}$.

// MaxBatchRequests is the documented limit on requests in one Message Batch.
const MaxBatchRequests = 100_000

var customIDRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

var subIDRE = regexp.MustCompile(`^(.+)__([0-9]+)of([0-9]+)$`)

func subID(id string, i, n int) string { return fmt.Sprintf("%s__%dof%d", id, i, n) }

// parseSubID splits a custom_id made by subID; ok is false for any other.
func parseSubID(s string) (id string, i, n int, ok bool) {
	m := subIDRE.FindStringSubmatch(s)
	if m == nil {
		return "", 0, 0, false
	}
	i, err1 := strconv.Atoi(m[2])
	n, err2 := strconv.Atoi(m[3])
	if err1 != nil || err2 != nil || n < 1 || n > MaxBatchRequests || i >= n {
		return "", 0, 0, false
	}
	return m[1], i, n, true
}

// batchParams maps a ChatRequest to the params of one batch request, with
// the sampling fields Chat sets on the JSON body.
func (m *Model) batchParams(req llm.ChatRequest) (sdk.MessageBatchNewParamsRequestParams, error) {
	p, err := m.Params(req)
	if err != nil {
		return sdk.MessageBatchNewParamsRequestParams{}, err
	}
	bp := sdk.MessageBatchNewParamsRequestParams{Model: p.Model, MaxTokens: p.MaxTokens, Messages: p.Messages,
		System: p.System, OutputConfig: p.OutputConfig, StopSequences: p.StopSequences}
	extra := map[string]any{"temperature": req.Temperature}
	if req.TopP > 0 {
		extra["top_p"] = req.TopP
	}
	bp.SetExtraFields(extra)
	return bp, nil
}

// SubmitChatBatch creates one Message Batch holding every request (N
// batch requests for a ChatRequest with N > 1).
func (m *Model) SubmitChatBatch(ctx context.Context, reqs []llm.BatchChat) (string, error) {
	var params sdk.MessageBatchNewParams
	seen := map[string]bool{}
	for _, r := range reqs {
		if seen[r.CustomID] {
			return "", fmt.Errorf("%s batch: custom id %q appears twice; ids must be unique within a batch: %w", m.id, r.CustomID, errs.ErrUsage)
		}
		seen[r.CustomID] = true
		p, err := m.batchParams(r.Req)
		if err != nil {
			return "", fmt.Errorf("%s batch: request %s: %w: %w", m.id, r.CustomID, err, errs.ErrUsage)
		}
		n := max(r.Req.N, 1)
		if len(params.Requests)+n > MaxBatchRequests {
			return "", fmt.Errorf("%s batch: more than %d requests (counting N samples each); split the batch: %w", m.id, MaxBatchRequests, errs.ErrUsage)
		}
		for i := range n {
			sid := subID(r.CustomID, i, n)
			if !customIDRE.MatchString(sid) {
				return "", fmt.Errorf("%s batch: custom id %q (sent as %q) does not match %s; use a shorter id of letters, digits, _ and -: %w",
					m.id, r.CustomID, sid, customIDRE, errs.ErrUsage)
			}
			params.Requests = append(params.Requests, sdk.MessageBatchNewParamsRequest{CustomID: sid, Params: p})
		}
	}
	if len(params.Requests) == 0 {
		return "", fmt.Errorf("%s batch: no requests: %w", m.id, errs.ErrUsage)
	}
	var c capture
	b, err := m.msgs.Batches.New(ctx, params, option.WithMiddleware(c.middleware(m.id, "batch")))
	if err != nil {
		return "", m.classify("batch", &c, err)
	}
	if b.ID == "" {
		return "", m.malformed(&c, "created message batch has no id")
	}
	return b.ID, nil
}

func (m *Model) malformed(c *capture, reason string) error {
	return &llm.ResponseError{Provider: m.id, Op: "batch", RequestID: requestID(c.header, ""), Status: c.status,
		Body: llm.Snippet(c.body), Reason: reason}
}

// get retrieves a batch; an archived batch (results no longer available)
// is an error wrapping errs.ErrUnavailable.
func (m *Model) get(ctx context.Context, id string) (*sdk.MessageBatch, *capture, error) {
	c := &capture{}
	b, err := m.msgs.Batches.Get(ctx, id, sdk.MessageBatchGetParams{}, option.WithMiddleware(c.middleware(m.id, "batch")))
	if err != nil {
		return nil, c, fmt.Errorf("get message batch %s: %w", id, m.classify("batch", c, err))
	}
	if b.ID == "" || b.ProcessingStatus == "" {
		return nil, c, m.malformed(c, "message batch "+id+" has no id or processing_status")
	}
	if !b.ArchivedAt.IsZero() {
		return b, c, fmt.Errorf("%s batch %s was archived at %s and its results are gone; resubmit the requests or make normal calls: %w",
			m.id, id, b.ArchivedAt.Format("2006-01-02T15:04:05Z07:00"), errs.ErrUnavailable)
	}
	return b, c, nil
}

// PollBatch reads the batch's processing_status. Done means "ended" with a
// results_url; the counts are of batch requests (N per ChatRequest):
// Completed is succeeded, Failed is errored + canceled + expired.
func (m *Model) PollBatch(ctx context.Context, id string) (llm.BatchState, error) {
	b, c, err := m.get(ctx, id)
	if err != nil {
		return llm.BatchState{ID: id}, err
	}
	rc := b.RequestCounts
	st := llm.BatchState{ID: b.ID, Status: string(b.ProcessingStatus),
		Total:     int(rc.Processing + rc.Succeeded + rc.Errored + rc.Canceled + rc.Expired),
		Completed: int(rc.Succeeded), Failed: int(rc.Errored + rc.Canceled + rc.Expired)}
	switch b.ProcessingStatus {
	case sdk.MessageBatchProcessingStatusInProgress, sdk.MessageBatchProcessingStatusCanceling:
	case sdk.MessageBatchProcessingStatusEnded:
		if b.ResultsURL == "" {
			return st, m.malformed(c, "ended message batch "+id+" has no results_url")
		}
		st.Done = true
	default:
		return st, m.malformed(c, fmt.Sprintf("message batch %s has unknown processing_status %q", id, b.ProcessingStatus))
	}
	return st, nil
}

// sameOrigin reports whether u has the scheme and host of base.
func sameOrigin(u, base string) bool {
	a, err1 := url.Parse(u)
	b, err2 := url.Parse(base)
	return err1 == nil && err2 == nil && a.Scheme == b.Scheme && strings.EqualFold(a.Host, b.Host)
}

// ChatBatchResults downloads an ended batch's results from its results_url
// (the documented way; the path is not to be assumed) and joins the
// per-sample results into one answer per caller id. A request that errored,
// was canceled or expired, or has a sample missing from the file, gets an
// error naming its custom_id. The API key is sent only to a results_url on
// the configured base URL's origin.
func (m *Model) ChatBatchResults(ctx context.Context, id string) (map[string]llm.BatchChatResult, error) {
	b, _, err := m.get(ctx, id)
	if err != nil {
		return nil, err
	}
	if b.ProcessingStatus != sdk.MessageBatchProcessingStatusEnded || b.ResultsURL == "" {
		return nil, fmt.Errorf("%s batch %s is %s, not ended with a results_url; poll it again later: %w",
			m.id, id, b.ProcessingStatus, errs.ErrUnavailable)
	}
	if !sameOrigin(b.ResultsURL, m.base) {
		return nil, fmt.Errorf("%s batch %s: results_url %s is not on %s, so the API key is not sent there; fetch the results yourself or use that host as the spec's base URL: %w",
			m.id, id, b.ResultsURL, m.base, errs.ErrUnavailable)
	}
	c := &capture{stream: true}
	var res *http.Response
	client := sdk.Client{Options: m.opts}
	err = client.Get(ctx, b.ResultsURL, nil, &res, option.WithHeader("Accept", "application/x-jsonl"),
		option.WithMiddleware(c.middleware(m.id, "batch")))
	if err != nil {
		return nil, m.classify("batch", c, err)
	}
	defer res.Body.Close()
	g := newGather(m.id, id)
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for ln := 1; sc.Scan(); ln++ {
		if err := g.line(sc.Bytes(), ln); err != nil {
			return nil, &llm.ResponseError{Provider: m.id, Op: "batch", Status: c.status, RequestID: requestID(c.header, ""),
				Body: llm.Snippet(sc.Bytes()), Reason: fmt.Sprintf("batch %s results line %d: %v", id, ln, err)}
		}
	}
	if err := sc.Err(); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, fmt.Errorf("%s batch %s: read results %s: %w: %w", m.id, id, b.ResultsURL, errs.ErrUnavailable, err)
	}
	return g.results(), nil
}

var _ llm.Batcher = (*Model)(nil)

// resultErr is the error for a batch request that did not succeed.
func resultErr(r sdk.MessageBatchResultUnion) error {
	switch r.Type {
	case "errored":
		e := r.Error
		sentinel := errs.ErrUnavailable
		switch e.Error.Type {
		case "invalid_request_error":
			sentinel = errs.ErrInput
		case "authentication_error", "permission_error", "billing_error":
			sentinel = errs.ErrUsage
		case "not_found_error":
			sentinel = errs.ErrNotFound
		}
		rid := ""
		if e.RequestID != "" {
			rid = " (request id " + e.RequestID + ")"
		}
		return fmt.Errorf("errored: %s: %s%s: %w", e.Error.Type, e.Error.Message, rid, sentinel)
	case "canceled":
		return fmt.Errorf("canceled before it was processed; resubmit it or make a normal call: %w", errs.ErrUnavailable)
	case "expired":
		return fmt.Errorf("expired (the batch reached its 24 h limit first); resubmit it or make a normal call: %w", errs.ErrUnavailable)
	}
	return fmt.Errorf("unknown result type %q: %w", r.Type, errs.ErrUnavailable)
}

// gather collects the per-sample results of a batch by caller id.
type gather struct {
	model, batch string
	byID         map[string]*sampled
	order        []string
	slots        int // samples allocated, bounded by MaxBatchRequests
}

type sampled struct {
	choices []llm.ChatChoice
	metas   []*llm.Meta
	errs    []error
}

func newGather(model, batch string) *gather {
	return &gather{model: model, batch: batch, byID: map[string]*sampled{}}
}

// line decodes one results line; an error means the line is not a result
// of a request this package submitted.
func (g *gather) line(b []byte, ln int) error {
	if len(strings.TrimSpace(string(b))) == 0 {
		return nil
	}
	var r sdk.MessageBatchIndividualResponse
	if !json.Valid(b) {
		return errors.New("not a batch result: invalid JSON")
	}
	if err := r.UnmarshalJSON(b); err != nil {
		return fmt.Errorf("not a batch result: %w", err)
	}
	id, i, n, ok := parseSubID(r.CustomID)
	if !ok {
		return fmt.Errorf("custom_id %q was not made by benchforge (want <id>__<i>of<N>)", r.CustomID)
	}
	s := g.byID[id]
	if s == nil {
		if g.slots += n; g.slots > MaxBatchRequests {
			return fmt.Errorf("custom_id %q: the ids so far claim more than %d samples, more than a batch holds", r.CustomID, MaxBatchRequests)
		}
		s = &sampled{choices: make([]llm.ChatChoice, n), metas: make([]*llm.Meta, n), errs: make([]error, n)}
		g.byID[id] = s
		g.order = append(g.order, id)
	}
	if len(s.choices) != n {
		return fmt.Errorf("custom_id %q says %d samples, an earlier line of id %s said %d", r.CustomID, n, id, len(s.choices))
	}
	if s.metas[i] != nil || s.errs[i] != nil {
		return fmt.Errorf("custom_id %q appears twice", r.CustomID)
	}
	if r.Result.Type != "succeeded" {
		s.errs[i] = resultErr(r.Result)
		return nil
	}
	msg := r.Result.Message
	ch, err := Choice(&msg)
	if err != nil {
		s.errs[i] = fmt.Errorf("succeeded with an unusable message %s: %v: %w", msg.ID, err, errs.ErrUnavailable)
		return nil
	}
	s.choices[i] = ch
	s.metas[i] = &llm.Meta{RequestID: msg.ID, Model: string(msg.Model),
		Usage: llm.Usage{PromptTokens: msg.Usage.InputTokens, CompletionTokens: msg.Usage.OutputTokens}}
	return nil
}

// results joins the samples of every caller id: an answer when all N
// succeeded, otherwise one error naming each failed or missing sample.
func (g *gather) results() map[string]llm.BatchChatResult {
	out := make(map[string]llm.BatchChatResult, len(g.byID))
	for _, id := range g.order {
		s := g.byID[id]
		n := len(s.choices)
		var failed []error
		resp := &llm.ChatResponse{}
		for i := range n {
			sid := subID(id, i, n)
			switch {
			case s.errs[i] != nil:
				failed = append(failed, fmt.Errorf("custom_id %s: %w", sid, s.errs[i]))
			case s.metas[i] == nil:
				failed = append(failed, fmt.Errorf("custom_id %s: no result line; resubmit it or make a normal call: %w", sid, errs.ErrUnavailable))
			default:
				resp.Choices = append(resp.Choices, s.choices[i])
				resp.Usage = resp.Usage.Add(s.metas[i].Usage)
				if resp.RequestID == "" {
					resp.RequestID, resp.Model = s.metas[i].RequestID, s.metas[i].Model
				}
			}
		}
		if len(failed) > 0 {
			out[id] = llm.BatchChatResult{Err: fmt.Errorf("%s batch %s: request %s: %w", g.model, g.batch, id, joined(failed))}
			continue
		}
		out[id] = llm.BatchChatResult{Resp: resp}
	}
	return out
}

// joined is errors.Join on one line: it matches every error it holds.
type joined []error

func (j joined) Error() string {
	parts := make([]string, len(j))
	for i, e := range j {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

func (j joined) Unwrap() []error { return j }
