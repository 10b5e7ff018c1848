package llm

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm/cache"
)

// BatchChat is one chat request of a batch, named by CustomID.
type BatchChat struct {
	CustomID string      `json:"custom_id"`
	Req      ChatRequest `json:"req"`
}

// BatchState is a batch job's status as the provider reports it.
type BatchState struct {
	ID        string `json:"id"`
	Status    string `json:"status"` // provider's word: in_progress, completed, ended, ...
	Done      bool   `json:"done"`   // results can be collected
	Total     int    `json:"total"`
	Completed int    `json:"completed"`
	Failed    int    `json:"failed"`
	// Errors says why each failed request failed, by its custom id.
	Errors map[string]string `json:"errors,omitempty"`
}

// BatchChatResult is the outcome of one BatchChat.
type BatchChatResult struct {
	Resp *ChatResponse
	Err  error
}

// Batcher is implemented by provider models with an asynchronous batch API
// (OpenAI Batch). Results arrive hours later at a lower price; a Session
// writes them into the cache, so the normal Chat path then hits the cache.
type Batcher interface {
	SubmitChatBatch(ctx context.Context, reqs []BatchChat) (batchID string, err error)
	PollBatch(ctx context.Context, batchID string) (BatchState, error)
	ChatBatchResults(ctx context.Context, batchID string) (map[string]BatchChatResult, error)
}

// batchState is what the cache DB keeps for a submitted batch.
type batchState struct {
	Model string      `json:"model"`
	Items []BatchChat `json:"items"`
}

func (s *Session) batcher(m Model) (*cachedModel, Batcher, error) {
	cm, ok := m.(*cachedModel)
	if !ok {
		return nil, nil, fmt.Errorf("llm batch: %s was not opened by this Session: %w", m.ID(), errs.ErrUsage)
	}
	b, ok := cm.inner.(Batcher)
	if !ok {
		return nil, nil, Unsupported(cm.id, "run batch jobs", "the provider has no batch API in benchforge", "make normal calls")
	}
	if s.cache == nil {
		return nil, nil, fmt.Errorf("llm batch: %s: batches need the cache (results are delivered through it); drop --no-cache: %w", cm.id, errs.ErrUsage)
	}
	return cm, b, nil
}

// SubmitChatBatch submits, as one provider batch job, every request whose
// answers are not all in the cache yet, and records the job in the cache DB
// so CollectBatch can finish it from a later run. It returns "" when
// everything was cached.
func (s *Session) SubmitChatBatch(ctx context.Context, m Model, reqs []ChatRequest) (batchID string, submitted int, err error) {
	cm, b, err := s.batcher(m)
	if err != nil {
		return "", 0, err
	}
	items, err := s.uncachedItems(ctx, cm, reqs)
	if err != nil {
		return "", 0, err
	}
	if len(items) == 0 {
		return "", 0, nil
	}
	batchID, err = b.SubmitChatBatch(ctx, items)
	if err != nil {
		return "", 0, fmt.Errorf("submit batch to %s (%d requests): %w", cm.id, len(items), err)
	}
	state, err := json.Marshal(batchState{Model: cm.id, Items: items})
	if err == nil {
		err = s.cache.PutBatch(context.WithoutCancel(ctx), cache.Batch{ID: batchID, Provider: cm.id, State: state})
	}
	if err != nil {
		return batchID, len(items), fmt.Errorf("submit batch to %s: batch %s submitted but not recorded (note its id): %w", cm.id, batchID, err)
	}
	return batchID, len(items), nil
}

// uncachedItems returns the distinct requests of reqs with an answer
// missing from the cache, each named by its first sample's key.
func (s *Session) uncachedItems(ctx context.Context, cm *cachedModel, reqs []ChatRequest) ([]BatchChat, error) {
	var items []BatchChat
	seen := map[string]bool{}
	for _, req := range reqs {
		first, all, err := s.allCached(ctx, cm, req)
		if err != nil {
			return nil, err
		}
		id := hex.EncodeToString(first[:16])
		if all || seen[id] {
			continue
		}
		seen[id] = true
		items = append(items, BatchChat{CustomID: id, Req: req})
	}
	return items, nil
}

// allCached reports whether every sample of req is in the cache, and
// returns the first sample's key.
func (s *Session) allCached(ctx context.Context, cm *cachedModel, req ChatRequest) (first cache.Key, all bool, err error) {
	keyReq := req
	keyReq.N = 0
	all = true
	for i := range samples(req.N) {
		k, err := Key(cm.id, cm.fingerprint, "chat", keyReq, i)
		if err != nil {
			return first, false, err
		}
		if i == 0 {
			first = k
		}
		if _, ok, err := s.cache.Get(ctx, k); err != nil {
			return first, false, fmt.Errorf("submit batch to %s: %w", cm.id, err)
		} else if !ok {
			all = false
		}
	}
	return first, all, nil
}

// PendingBatches lists the ids of m's submitted batches not yet collected.
func (s *Session) PendingBatches(ctx context.Context, m Model) ([]string, error) {
	cm, _, err := s.batcher(m)
	if err != nil {
		return nil, err
	}
	bs, err := s.cache.Batches(ctx, cm.id)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, b := range bs {
		if !b.Done {
			ids = append(ids, b.ID)
		}
	}
	return ids, nil
}

// CollectBatch polls batch id once; when the provider reports it done it
// downloads the results, writes every answer into the cache under the key
// the normal Chat path uses, accounts for the usage, and marks the batch
// collected. Per-request failures are counted in the returned state and
// left uncached (a later normal call retries them).
func (s *Session) CollectBatch(ctx context.Context, m Model, id string) (BatchState, error) {
	cm, b, err := s.batcher(m)
	if err != nil {
		return BatchState{}, err
	}
	rec, err := s.cache.Batch(ctx, id)
	if err != nil {
		return BatchState{}, err
	}
	var state batchState
	if err := json.Unmarshal(rec.State, &state); err != nil || state.Model != cm.id {
		return BatchState{}, fmt.Errorf("collect batch %s: batch belongs to %q, not %s (or its record is damaged): %w", id, state.Model, cm.id, errs.ErrInput)
	}
	st, err := b.PollBatch(ctx, id)
	if err != nil || !st.Done {
		return st, err
	}
	results, err := b.ChatBatchResults(ctx, id)
	if err != nil {
		return st, err
	}
	st.Completed, st.Failed = 0, 0
	now := time.Now()
	for _, it := range state.Items {
		r, ok := results[it.CustomID]
		if reason := batchFailure(r, ok, it.Req.N); reason != "" {
			st.Failed++
			if st.Errors == nil {
				st.Errors = map[string]string{}
			}
			st.Errors[it.CustomID] = reason
			continue
		}
		st.Completed++
		if err := s.storeBatchAnswer(ctx, cm, id, it.Req, r.Resp, now); err != nil {
			return st, err
		}
	}
	rec.Done = true
	if err := s.cache.PutBatch(ctx, rec); err != nil {
		return st, fmt.Errorf("collect batch %s: %w", id, err)
	}
	return st, nil
}

// batchFailure says why a batch result (ok false: none) is no complete
// answer to a request for n samples, or returns "".
func batchFailure(r BatchChatResult, ok bool, n int) string {
	switch {
	case !ok:
		return "no result in the batch output"
	case r.Err != nil:
		return r.Err.Error()
	case r.Resp == nil || len(r.Resp.Choices) != samples(n):
		return "incomplete answer"
	}
	return ""
}

// storeBatchAnswer accounts for the answer resp to req in batch id and
// caches each of its choices under the key the normal Chat path uses, the
// usage split evenly (the first choice taking the remainder).
func (s *Session) storeBatchAnswer(ctx context.Context, cm *cachedModel, id string, req ChatRequest, resp *ChatResponse, now time.Time) error {
	cost := cm.price.Cost(resp.Usage)
	s.settle(0, cost)
	params := req
	params.System, params.Messages = "", nil
	pj, _ := json.Marshal(params)
	s.record(cm.st, "chat", pj, resp.Meta, cost, 0, false)
	keyReq := req
	keyReq.N = 0
	n := int64(len(resp.Choices))
	for i, ch := range resp.Choices {
		k, err := Key(cm.id, cm.fingerprint, "chat", keyReq, i)
		if err != nil {
			return err
		}
		u := resp.Usage.share(n, i)
		row, _ := json.Marshal(row[ChatChoice]{Sample: ch, RequestID: resp.RequestID, Model: resp.Model})
		if err := s.cache.Put(ctx, k, cache.Entry{Provider: cm.id, Op: "chat", Response: row,
			PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, Created: now}); err != nil {
			return fmt.Errorf("collect batch %s: %w", id, err)
		}
	}
	return nil
}
