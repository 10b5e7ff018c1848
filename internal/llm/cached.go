package llm

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"github.com/benchforge/benchforge/internal/llm/cache"
)

// cachedModel is a provider Model behind a Session.
type cachedModel struct {
	s           *Session
	inner       Model
	id          string
	fingerprint string
	price       Price
	lim         *limiter
	st          *ModelStats
}

func (m *cachedModel) ID() string { return m.id }

// Unwrap returns the provider model.
func (m *cachedModel) Unwrap() Model { return m.inner }

// keyVersion changes when the key derivation or row layout changes.
const keyVersion = "benchforge-llm-cache-v1"

// Key derives the cache key of sample index i of a request: sha256 over the
// key version, the spec-normalised id (provider, model, base URL), the
// provider's content fingerprint, the operation, the canonical JSON of every
// request parameter (with N removed, since each sample is keyed on its own)
// and the sample index.
func Key(id, fingerprint, op string, req any, i int) (cache.Key, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return cache.Key{}, fmt.Errorf("llm.Key(%s %s): %w", id, op, err)
	}
	h := sha256.New()
	for _, part := range []string{keyVersion, id, fingerprint, op} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write([]byte(part))
	}
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(body)))
	h.Write(n[:])
	h.Write(body)
	binary.BigEndian.PutUint64(n[:], uint64(i))
	h.Write(n[:])
	var k cache.Key
	h.Sum(k[:0])
	return k, nil
}

// row is what the cache stores for one sample.
type row[S any] struct {
	Sample    S      `json:"sample"`
	RequestID string `json:"request_id,omitempty"`
	Model     string `json:"model,omitempty"`
}

// estTokens estimates the tokens of a text (about 4 bytes per token).
func estTokens(texts ...string) int64 {
	var n int
	for _, t := range texts {
		n += len(t)
	}
	return int64(n/4 + 1)
}

// run serves n samples of one request: cached samples from the cache, the
// missing ones with one provider call (call(ctx, k) must return k samples)
// under the budget, limits and retry policy; new samples go into the cache
// one row per sample index, so a killed run resumes where it stopped.
func run[S any](ctx context.Context, m *cachedModel, op string, keyReq, params any, n int,
	estIn, estOutPerSample int64, call func(ctx context.Context, k int) ([]S, Meta, error)) ([]S, Meta, error) {
	if err := ctx.Err(); err != nil {
		return nil, Meta{}, fmt.Errorf("%s %s: %w", m.id, op, err)
	}
	out := make([]S, n)
	keys, missing, meta, err := cachedSamples(ctx, m, op, keyReq, out)
	if err != nil {
		return nil, Meta{}, err
	}
	m.s.recordHits(m.st, meta.CacheHits)
	if len(missing) == 0 {
		return out, meta, nil
	}

	k := len(missing)
	est := m.price.Cost(Usage{estIn, estOutPerSample * int64(k)})
	if err := m.s.reserve(m.id, op, est); err != nil {
		return nil, Meta{}, err
	}
	var pj json.RawMessage
	if b, err := json.Marshal(params); err == nil {
		pj = b
	}
	got, cm, retries, err := attempt(ctx, m, op, k, float64(estIn+estOutPerSample*int64(k)), call)
	if err == nil && len(got) != k {
		err = &ResponseError{Provider: m.id, Op: op, RequestID: cm.RequestID, Status: 200,
			Reason: fmt.Sprintf("asked for %d samples, got %d", k, len(got))}
	}
	if err != nil {
		m.s.settle(est, 0)
		m.s.record(m.st, op, pj, Meta{}, 0, retries, true)
		return nil, Meta{}, err
	}
	cost := m.price.Cost(cm.Usage)
	m.s.settle(est, cost)
	m.s.record(m.st, op, pj, cm, cost, retries, false)

	for j, i := range missing {
		out[i] = got[j]
	}
	if m.s.cache != nil {
		cacheSamples(ctx, m, op, keys, missing, got, cm)
	}
	meta.Usage = meta.Usage.Add(cm.Usage)
	meta.RequestID, meta.Model = cm.RequestID, cm.Model
	return out, meta, nil
}

// cachedSamples fills out with the samples of keyReq found in the cache
// and returns every sample's key, the indexes still missing (absent or
// unreadable rows) and the cached samples' usage and hit count.
func cachedSamples[S any](ctx context.Context, m *cachedModel, op string, keyReq any, out []S) (keys []cache.Key, missing []int, meta Meta, err error) {
	keys = make([]cache.Key, len(out))
	missing = make([]int, 0, len(out))
	for i := range out {
		k, err := Key(m.id, m.fingerprint, op, keyReq, i)
		if err != nil {
			return nil, nil, Meta{}, err
		}
		keys[i] = k
		if m.s.cache == nil {
			missing = append(missing, i)
			continue
		}
		e, ok, err := m.s.cache.Get(ctx, k)
		if err != nil {
			return nil, nil, Meta{}, fmt.Errorf("%s %s: %w", m.id, op, err)
		}
		var r row[S]
		if ok && json.Unmarshal(e.Response, &r) == nil {
			out[i] = r.Sample
			meta.Usage = meta.Usage.Add(Usage{e.PromptTokens, e.CompletionTokens})
			meta.RequestID, meta.Model = r.RequestID, r.Model
			meta.CacheHits++
			continue
		}
		missing = append(missing, i) // absent or unreadable row: ask again
	}
	return keys, missing, meta, nil
}

// cacheSamples stores the samples got for the missing indexes, one row
// each, the call's usage cm.Usage split over them so sums over rows stay
// exact. A row that cannot be stored is noted, not an error.
func cacheSamples[S any](ctx context.Context, m *cachedModel, op string, keys []cache.Key, missing []int, got []S, cm Meta) {
	now := time.Now()
	k := int64(len(missing))
	for j, i := range missing {
		u := cm.Usage.share(k, j)
		b, err := json.Marshal(row[S]{Sample: got[j], RequestID: cm.RequestID, Model: cm.Model})
		if err == nil {
			err = m.s.cache.Put(context.WithoutCancel(ctx), keys[i], cache.Entry{Provider: m.id, Op: op, Response: b,
				PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, Created: now})
		}
		if err != nil {
			m.s.note(fmt.Sprintf("%s %s: answer not cached (it will be paid for again on rerun): %v", m.id, op, err))
		}
	}
}

// share is row j's part of u split over n rows: an even share, the first
// row also taking the remainders.
func (u Usage) share(n int64, j int) Usage {
	s := Usage{u.PromptTokens / n, u.CompletionTokens / n}
	if j == 0 {
		s.PromptTokens += u.PromptTokens % n
		s.CompletionTokens += u.CompletionTokens % n
	}
	return s
}

// attempt calls the provider under the limiter, with a per-attempt timeout,
// retrying transient failures per the session's RetryPolicy. It returns the
// number of retries made.
func attempt[S any](ctx context.Context, m *cachedModel, op string, k int, tokens float64,
	call func(ctx context.Context, k int) ([]S, Meta, error)) ([]S, Meta, int64, error) {
	pol := m.s.opts.Retry
	timeout := m.s.opts.Provider.AttemptTimeout()
	var retries int64
	for a := 0; ; a++ {
		release, err := m.lim.acquire(ctx, tokens)
		if err != nil {
			return nil, Meta{}, retries, fmt.Errorf("%s %s: waiting for rate limit: %w", m.id, op, err)
		}
		actx, cancel := context.WithTimeout(ctx, timeout)
		got, meta, err := call(actx, k)
		cancel()
		release()
		if err == nil {
			return got, meta, retries, nil
		}
		if ctx.Err() != nil {
			return nil, Meta{}, retries, fmt.Errorf("%s %s: %w", m.id, op, ctx.Err())
		}
		ok, retryAfter := transient(ctx, err)
		if !ok {
			return nil, Meta{}, retries, err
		}
		if a+1 >= pol.MaxAttempts {
			return nil, Meta{}, retries, errExhausted(m.id, op, a+1, err)
		}
		if retryAfter > pol.MaxDelay {
			return nil, Meta{}, retries, errExhausted(m.id, op, a+1,
				fmt.Errorf("provider asked to wait %s, longer than the %s retry ceiling: %w", retryAfter, pol.MaxDelay, err))
		}
		if err := sleep(ctx, pol.delay(a, retryAfter)); err != nil {
			return nil, Meta{}, retries, fmt.Errorf("%s %s: %w", m.id, op, err)
		}
		retries++
	}
}

// maxOut is the completion-token estimate used for budgets and TPM limits.
func maxOut(maxTokens int) int64 {
	if maxTokens > 0 {
		return int64(maxTokens)
	}
	return 1024
}

func (m *cachedModel) Generate(ctx context.Context, req GenerateRequest) (*GenerateResponse, error) {
	n := samples(req.N)
	keyReq := req
	keyReq.N = 0
	params := req
	params.Prompt = ""
	got, meta, err := run(ctx, m, "generate", keyReq, params, n, estTokens(req.Prompt), maxOut(req.MaxTokens),
		func(ctx context.Context, k int) ([]Sample, Meta, error) {
			r := req
			r.N = k
			resp, err := m.inner.Generate(ctx, r)
			if err != nil {
				return nil, Meta{}, err
			}
			return resp.Samples, resp.Meta, nil
		})
	if err != nil {
		return nil, err
	}
	return &GenerateResponse{Samples: got, Meta: meta}, nil
}

func (m *cachedModel) Chat(ctx context.Context, req ChatRequest) (*ChatResponse, error) {
	n := samples(req.N)
	keyReq := req
	keyReq.N = 0
	params := req
	params.System, params.Messages = "", nil
	texts := []string{req.System, string(req.Schema)}
	for _, msg := range req.Messages {
		texts = append(texts, msg.Content)
	}
	got, meta, err := run(ctx, m, "chat", keyReq, params, n, estTokens(texts...), maxOut(req.MaxTokens),
		func(ctx context.Context, k int) ([]ChatChoice, Meta, error) {
			r := req
			r.N = k
			resp, err := m.inner.Chat(ctx, r)
			if err != nil {
				return nil, Meta{}, err
			}
			return resp.Choices, resp.Meta, nil
		})
	if err != nil {
		return nil, err
	}
	return &ChatResponse{Choices: got, Meta: meta}, nil
}

// scored is the cached form of a ScoreResponse.
type scored struct {
	Tokens            []TokenLogprob `json:"tokens"`
	ContinuationStart int            `json:"continuation_start"`
}

func (m *cachedModel) Score(ctx context.Context, req ScoreRequest) (*ScoreResponse, error) {
	params := req
	params.Prompt, params.Continuation = "", ""
	got, meta, err := run(ctx, m, "score", req, params, 1, estTokens(req.Prompt, req.Continuation), 0,
		func(ctx context.Context, k int) ([]scored, Meta, error) {
			resp, err := m.inner.Score(ctx, req)
			if err != nil {
				return nil, Meta{}, err
			}
			return []scored{{resp.Tokens, resp.ContinuationStart}}, resp.Meta, nil
		})
	if err != nil {
		return nil, err
	}
	return &ScoreResponse{Tokens: got[0].Tokens, ContinuationStart: got[0].ContinuationStart, Meta: meta}, nil
}

func (m *cachedModel) Embed(ctx context.Context, req EmbedRequest) (*EmbedResponse, error) {
	params := req
	params.Inputs = nil
	got, meta, err := run(ctx, m, "embed", req, params, 1, estTokens(req.Inputs...), 0,
		func(ctx context.Context, k int) ([][][]float64, Meta, error) {
			resp, err := m.inner.Embed(ctx, req)
			if err != nil {
				return nil, Meta{}, err
			}
			return [][][]float64{resp.Vectors}, resp.Meta, nil
		})
	if err != nil {
		return nil, err
	}
	return &EmbedResponse{Vectors: got[0], Meta: meta}, nil
}
