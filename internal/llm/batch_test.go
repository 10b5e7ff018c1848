package llm_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
)

// TestChatBatchResume: submit a batch, "kill" the run while it is in
// progress, collect it from a new Session, then the normal Chat path is
// served entirely from the cache.
func TestChatBatchResume(t *testing.T) {
	f, spec := server(t, "", nil)
	dir := t.TempDir()
	ctx := context.Background()
	reqs := []llm.ChatRequest{
		{Messages: []llm.Message{{Role: "user", Content: "judge pair 0"}}, MaxTokens: 50, JSON: true},
		{Messages: []llm.Message{{Role: "user", Content: "judge pair 1"}}, MaxTokens: 50, JSON: true},
		{Messages: []llm.Message{{Role: "user", Content: "judge pair 2"}}, MaxTokens: 50, N: 2},
	}

	id := submitThenStop(t, ctx, dir, spec, reqs)

	s2 := session(t, llm.SessionOptions{CacheDir: dir})
	m2, _ := s2.Open(spec)
	collectPending(t, ctx, s2, m2, id)
	chats := f.Path("/chat/completions")
	for i, req := range reqs {
		resp, err := m2.Chat(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if !allCached(resp, max(req.N, 1)) {
			t.Errorf("request %d: %+v, want all answers from the cache", i, resp)
		}
	}
	if got := f.Path("/chat/completions") - chats; got != 0 {
		t.Errorf("after collecting the batch, Chat made %d HTTP calls, want 0", got)
	}
	man := s2.Manifest()
	if man.Calls != 2 || man.PromptTokens == 0 {
		t.Errorf("manifest calls=%d prompt tokens=%d; want the 2 batch results accounted", man.Calls, man.PromptTokens)
	}
	// Everything cached: nothing to submit.
	if id, n, err := s2.SubmitChatBatch(ctx, m2, reqs); id != "" || n != 0 || err != nil {
		t.Errorf("resubmit = %q, %d, %v; want nothing", id, n, err)
	}
}

// submitThenStop answers reqs[0] normally, submits the other two as a
// batch, polls it once while in progress and closes the session, as a
// killed run would; it returns the batch id.
func submitThenStop(t *testing.T, ctx context.Context, dir, spec string, reqs []llm.ChatRequest) string {
	t.Helper()
	s1 := session(t, llm.SessionOptions{CacheDir: dir})
	m1, _ := s1.Open(spec)
	if _, err := m1.Chat(ctx, reqs[0]); err != nil { // already answered: not resubmitted
		t.Fatal(err)
	}
	id, n, err := s1.SubmitChatBatch(ctx, m1, reqs)
	if err != nil || id == "" || n != 2 {
		t.Fatalf("SubmitChatBatch = %q, %d, %v; want a batch of 2", id, n, err)
	}
	st, err := s1.CollectBatch(ctx, m1, id)
	if err != nil || !slices.Equal([]any{st.Done, st.Status}, []any{false, "in_progress"}) {
		t.Fatalf("first poll = %+v, %v; want in_progress", st, err)
	}
	s1.Close()
	return id
}

// collectPending checks that batch id is s's one pending batch and
// collects both its answers.
func collectPending(t *testing.T, ctx context.Context, s *llm.Session, m llm.Model, id string) {
	t.Helper()
	pending, err := s.PendingBatches(ctx, m)
	if err != nil || !slices.Equal(pending, []string{id}) {
		t.Fatalf("PendingBatches = %v, %v; want [%s]", pending, err, id)
	}
	st, err := s.CollectBatch(ctx, m, id)
	if err != nil || !slices.Equal([]any{st.Done, st.Completed, st.Failed}, []any{true, 2, 0}) {
		t.Fatalf("CollectBatch = %+v, %v; want done with 2 completed", st, err)
	}
	if pending, _ := s.PendingBatches(ctx, m); len(pending) != 0 {
		t.Errorf("after collection PendingBatches = %v, want none", pending)
	}
}

func TestBatchNeedsCache(t *testing.T) {
	_, spec := server(t, "", nil)
	s := session(t, llm.SessionOptions{NoCache: true})
	m, _ := s.Open(spec)
	if _, _, err := s.SubmitChatBatch(context.Background(), m, nil); !errors.Is(err, errs.ErrUsage) {
		t.Errorf("batch without cache: err = %v, want ErrUsage", err)
	}
}
