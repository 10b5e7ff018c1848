package llmgen

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/llm/llmtest"
	_ "github.com/benchforge/benchforge/internal/llm/providers"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/generate"
)

// listPrompter serves a fixed set of types with prompts naming (type, n).
type listPrompter struct{ types map[string]bool }

func (p listPrompter) Name() string                { return "list/v1" }
func (p listPrompter) TemplateHash() string        { return "h" }
func (p listPrompter) Prepare([]corpus.Seed) error { return nil }
func (p listPrompter) Serves(t string) bool        { return p.types[t] }
func (p listPrompter) Prompt(t string, n int) (Prompt, error) {
	return Prompt{System: "s", User: fmt.Sprintf("%s #%d", t, n), Operator: "op"}, nil
}

func newGen(t *testing.T, spec string, batch int, types ...string) *Generator {
	t.Helper()
	s, err := llm.NewSession(llm.SessionOptions{NoCache: true, Retry: llm.RetryPolicy{MaxAttempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	m, err := s.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, ty := range types {
		served[ty] = true
	}
	g, err := New(listPrompter{served}, m, Options{Dir: t.TempDir(), Workers: 2, Batch: batch, MaxTokens: 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

// TestPlan: slots go round-robin over the wanted, served types in
// corpus.Types order, never past a type's want, with draw indices that
// continue across chunks and restart on a replay from chunk 0.
func TestPlan(t *testing.T) {
	g := newGen(t, "openai:x@http://127.0.0.1:1/v1", 5, corpus.NullPointer, corpus.ClassCast, corpus.IllegalState)
	show := func(ss []slot) []string {
		var out []string
		for _, s := range ss {
			out = append(out, fmt.Sprintf("%s/%d", s.typ[:4], s.n))
		}
		return out
	}
	want := map[string]int{corpus.NullPointer: 4, corpus.ClassCast: 1, corpus.NumberFormat: 3, corpus.IllegalState: 9}
	s0, err := g.plan(generate.Request{Chunk: 0, Want: want})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"Null/0", "Clas/0", "Ille/0", "Null/1", "Ille/1"}, show(s0)); d != "" {
		t.Errorf("chunk 0 (-want +got):\n%s", d)
	}
	want = map[string]int{corpus.NullPointer: 2, corpus.IllegalState: 7}
	s1, _ := g.plan(generate.Request{Chunk: 1, Want: want})
	if d := cmp.Diff([]string{"Null/2", "Ille/2", "Null/3", "Ille/3", "Ille/4"}, show(s1)); d != "" {
		t.Errorf("chunk 1 (-want +got):\n%s", d)
	}
	if _, err := g.plan(generate.Request{Chunk: 3, Want: want}); !errors.Is(err, errs.ErrUsage) {
		t.Errorf("chunk out of order: %v", err)
	}
	r1, _ := g.plan(generate.Request{Chunk: 1, Want: want}) // replay of chunk 1
	if d := cmp.Diff(show(s1), show(r1)); d != "" {
		t.Errorf("replayed chunk 1 differs:\n%s", d)
	}
	if _, err := g.plan(generate.Request{Chunk: 0, Want: map[string]int{corpus.NumberFormat: 2}}); !errors.Is(err, generate.ErrExhausted) {
		t.Errorf("no served type wanted: %v", err)
	}
}

// TestModelErrorStopsChunk: a provider error is logged as a model_error
// attempt and ends the chunk with the error; the calls that succeeded are
// recorded and are not made again.
func TestModelErrorStopsChunk(t *testing.T) {
	fake := &llmtest.OpenAI{Hook: func(w http.ResponseWriter, r *http.Request, n int64) bool {
		if n == 2 {
			llmtest.OpenAIError(w, http.StatusBadRequest, "invalid_request_error", "scripted failure")
			return true
		}
		return false
	}}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	g := newGen(t, "openai:x@"+srv.URL+"/v1", 3, corpus.NullPointer)
	g.opts.Workers = 1
	var atts []generate.Attempt
	req := generate.Request{Chunk: 0, Want: map[string]int{corpus.NullPointer: 3}, OnAttempt: func(a generate.Attempt) { atts = append(atts, a) }}
	out, err := g.Generate(context.Background(), req)
	if !errors.Is(err, errs.ErrInput) || len(out) != 2 {
		t.Fatalf("err %v, %d candidates; want ErrInput (HTTP 400) and the 2 others", err, len(out))
	}
	var outcomes []string
	for _, a := range atts {
		outcomes = append(outcomes, a.Outcome)
	}
	if d := cmp.Diff([]string{"candidate", OutcomeModelError, "candidate"}, outcomes); d != "" {
		t.Errorf("attempts (-want +got):\n%s", d)
	}
	calls, _ := jsonl.ReadFile[Call](filepath.Join(g.opts.Dir, CallsFile))
	if len(calls) != 2 {
		t.Errorf("%d calls recorded, want 2", len(calls))
	}
	out, err = g.Generate(context.Background(), req)
	if err != nil || len(out) != 3 || fake.Requests() != 4 {
		t.Errorf("retry: %v, %d candidates, %d requests in all (want 4: only the failed one again)", err, len(out), fake.Requests())
	}
}
