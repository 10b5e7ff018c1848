package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/llm/llmtest"
	"github.com/benchforge/benchforge/internal/llm/openai"
)

// server starts a fake OpenAI endpoint that requires key (if non-empty).
func server(t *testing.T, key string, hook llmtest.Hook) (*llmtest.OpenAI, string) {
	t.Helper()
	f := &llmtest.OpenAI{Key: key, Hook: hook}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, "openai:gpt-4o-mini@" + srv.URL + "/v1"
}

func session(t *testing.T, o llm.SessionOptions) *llm.Session {
	t.Helper()
	if o.Retry.MaxAttempts == 0 {
		o.Retry = llm.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Millisecond}
	}
	o.Provider.Timeout = 5 * time.Second
	s, err := llm.NewSession(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func prompts(n int) []string {
	var ps []string
	for i := range n {
		ps = append(ps, fmt.Sprintf("public int f%d() {", i))
	}
	return ps
}

// TestCacheTwoRuns: a second Session on the same cache dir makes no HTTP call
// and returns the same answers.
func TestCacheTwoRuns(t *testing.T) {
	f, spec := server(t, "", nil)
	dir := t.TempDir()
	ctx := context.Background()
	do := func() (gen []llm.Sample, chat string, score, embed int) {
		return askAll(t, ctx, session(t, llm.SessionOptions{CacheDir: dir}), spec)
	}
	g1, c1, s1, e1 := do()
	first := f.Requests()
	if first != 4 {
		t.Fatalf("first run made %d requests, want 4", first)
	}
	g2, c2, s2, e2 := do()
	if got := f.Requests() - first; got != 0 {
		t.Errorf("second run made %d HTTP calls, want 0", got)
	}
	if !slices.Equal([]any{fmt.Sprint(g1), c1, s1, e1}, []any{fmt.Sprint(g2), c2, s2, e2}) {
		t.Errorf("cached answers differ: %v/%v %q/%q %d/%d %d/%d", g1, g2, c1, c2, s1, s2, e1, e2)
	}
	// More samples of the same request: only the missing ones are asked for.
	s := session(t, llm.SessionOptions{CacheDir: dir})
	m, _ := s.Open(spec)
	var gotN float64
	f.Hook = func(w http.ResponseWriter, r *http.Request, n int64) bool {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		gotN = body["n"].(float64)
		r.Body = httpBody(body)
		return false
	}
	g, err := m.Generate(ctx, llm.GenerateRequest{Prompt: "int x", MaxTokens: 4, Temperature: 1, N: 5, Logprobs: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal([]any{gotN, len(g.Samples), g.CacheHits, fmt.Sprint(g.Samples[:3])}, []any{2.0, 5, 3, fmt.Sprint(g1)}) {
		t.Errorf("N=5 after N=3: sent n=%v, got %d samples with %d cache hits; want n=2, 5 samples, 3 hits, same first 3", gotN, len(g.Samples), g.CacheHits)
	}
}

// askAll opens spec in s and makes one call of each kind: it returns the
// samples, the chat answer and the numbers of scored tokens and vectors.
func askAll(t *testing.T, ctx context.Context, s *llm.Session, spec string) (gen []llm.Sample, chat string, score, embed int) {
	t.Helper()
	m, err := s.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	g, err := m.Generate(ctx, llm.GenerateRequest{Prompt: "int x", MaxTokens: 4, Temperature: 1, N: 3, Logprobs: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := m.Chat(ctx, llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "hi"}}, JSON: true})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := m.Score(ctx, llm.ScoreRequest{Prompt: "a b", Continuation: " c d"})
	if err != nil {
		t.Fatal(err)
	}
	e, err := m.Embed(ctx, llm.EmbedRequest{Inputs: []string{"x", "y"}})
	if err != nil {
		t.Fatal(err)
	}
	return g.Samples, c.Choices[0].Text, len(sc.Tokens), len(e.Vectors)
}

// TestResumeAfterCancel: a run canceled part-way through N calls is rerun;
// only the calls that did not finish are made.
func TestResumeAfterCancel(t *testing.T) {
	const total = 20
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	done := 0
	f, spec := server(t, "", func(w http.ResponseWriter, r *http.Request, n int64) bool {
		if n > 8 { // the "kill" arrives while the 9th call is in flight
			cancel()
			<-r.Context().Done()
			return true
		}
		return false
	})
	dir := t.TempDir()
	s := session(t, llm.SessionOptions{CacheDir: dir})
	m, _ := s.Open(spec)
	ps := prompts(total)
	for _, p := range ps {
		if !generateUntilCanceled(t, ctx, m, p) {
			break
		}
		mu.Lock()
		done++
		mu.Unlock()
	}
	if done != 8 {
		t.Fatalf("first run finished %d calls, want 8", done)
	}
	before := f.Requests()
	f.Hook = nil
	s2 := session(t, llm.SessionOptions{CacheDir: dir})
	m2, _ := s2.Open(spec)
	for _, p := range ps {
		if _, err := m2.Generate(context.Background(), llm.GenerateRequest{Prompt: p, MaxTokens: 3}); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.Requests() - before; got != total-8 {
		t.Errorf("resumed run made %d calls, want %d", got, total-8)
	}
	man := s2.Manifest()
	if !slices.Equal([]int64{man.CacheHits, man.Calls}, []int64{8, total - 8}) {
		t.Errorf("manifest calls=%d hits=%d, want %d and 8", man.Calls, man.CacheHits, total-8)
	}
}

// generateUntilCanceled makes one call; it reports false when the call
// was canceled, and fails the test on any other error.
func generateUntilCanceled(t *testing.T, ctx context.Context, m llm.Model, p string) bool {
	t.Helper()
	_, err := m.Generate(ctx, llm.GenerateRequest{Prompt: p, MaxTokens: 3})
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("killed run: err = %v, want context.Canceled", err)
	}
	return err == nil
}

// TestBudget: the run stops with ErrBudget before overspending, and a rerun
// with a larger budget resumes, paying only for the calls not yet made.
func TestBudget(t *testing.T) {
	f, spec := server(t, "", nil)
	dir := t.TempDir()
	// $1 per 1k prompt tokens and per 1k completion tokens: each call
	// (~3 prompt tokens estimated + 100 max tokens) costs about $0.10.
	prices := map[string]llm.Price{spec: {InputPerMTok: 1000, OutputPerMTok: 1000}}
	ps := prompts(10)
	run := func(maxCost float64) (int, error) {
		s := session(t, llm.SessionOptions{CacheDir: dir, MaxCost: maxCost, Prices: prices})
		m, _ := s.Open(spec)
		n := 0
		for _, p := range ps {
			if _, err := m.Generate(context.Background(), llm.GenerateRequest{Prompt: p, MaxTokens: 100}); err != nil {
				return n, err
			}
			n++
		}
		if s.Spent() > maxCost {
			t.Errorf("spent $%.4f of $%.2f", s.Spent(), maxCost)
		}
		return n, nil
	}
	n, err := run(0.45)
	if !isErr(err, errs.ErrBudget, "of --max-cost $0.45; rerun to resume: cached calls are free") {
		t.Fatalf("err = %v, want ErrBudget with the resume hint", err)
	}
	if !slices.Contains([]int{3, 4}, n) || f.Requests() != int64(n) {
		t.Fatalf("budget run made %d calls (%d HTTP), want 3–4", n, f.Requests())
	}
	paid := f.Requests()
	if n, err = run(5); err != nil || n != 10 {
		t.Fatalf("resumed run: %d calls, %v", n, err)
	}
	if got := f.Requests() - paid; got != int64(10-int(paid)) {
		t.Errorf("resumed run made %d HTTP calls, want %d", got, 10-paid)
	}
}

// TestKeyNeverStored: the API key appears in neither the cache database (and
// its WAL) nor the manifest nor any error.
func TestKeyNeverStored(t *testing.T) {
	const key = "sk-proj-SECRET-KEY-do-not-store-1234567890"
	_, spec := server(t, key, nil)
	spec = strings.Replace(spec, "gpt-4o-mini", "gpt-4o", 1)
	keyFile := filepath.Join(t.TempDir(), "key")
	os.WriteFile(keyFile, []byte(key+"\n"), 0o600)
	t.Setenv(openai.KeyEnv, "")
	dir := t.TempDir()
	s := session(t, llm.SessionOptions{CacheDir: dir, Provider: llm.Options{KeyFile: keyFile},
		Prices: map[string]llm.Price{spec: {InputPerMTok: 2.5, OutputPerMTok: 10}}})
	m, err := s.Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := m.Chat(ctx, llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Generate(ctx, llm.GenerateRequest{Prompt: "x", MaxTokens: 2, N: 2}); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(t.TempDir(), "manifest.json")
	if err := s.WriteManifest(manifest); err != nil {
		t.Fatal(err)
	}
	// An output file, readable like any other the user writes (issue 14:
	// it was 0600). The umask can only take bits away from 0644.
	if st, err := os.Stat(manifest); err != nil || st.Mode().Perm()&0o044 != 0o044&^umask() {
		t.Errorf("manifest mode %v (%v), want 0644 less the umask", st.Mode().Perm(), err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	files = append(files, manifest)
	if len(files) < 2 {
		t.Fatalf("expected cache files in %s, found %v", dir, files)
	}
	for _, p := range files {
		checkNoKey(t, p, key)
	}
	checkKeyManifest(t, manifest)
}

// checkNoKey: the file at p holds neither key nor its "SECRET-KEY" part.
func checkNoKey(t *testing.T, p, key string) {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(key)) || bytes.Contains(b, []byte("SECRET-KEY")) {
		t.Errorf("%s contains the API key", p)
	}
}

// checkKeyManifest checks the manifest of TestKeyNeverStored's two calls:
// one model, one generate call among them, its two parameters, tokens,
// a cost and a wall time.
func checkKeyManifest(t *testing.T, path string) {
	t.Helper()
	b, _ := os.ReadFile(path)
	var man llm.Manifest
	if err := json.Unmarshal(b, &man); err != nil {
		t.Fatal(err)
	}
	if man.Calls != 2 || man.PromptTokens == 0 || len(man.Models) != 1 {
		t.Errorf("manifest = %s", b)
		return
	}
	if man.Models[0].Ops["generate"] != 1 || man.CostUSD <= 0 || len(man.Models[0].Params) != 2 || man.WallSeconds <= 0 {
		t.Errorf("manifest = %s", b)
	}
}

func TestUnknownPriceNote(t *testing.T) {
	t.Setenv(openai.KeyEnv, "sk-x")
	sp, _ := llm.ParseSpec("openai:mystery-model@https://example.invalid/v1")
	m, err := llm.OpenSpec(sp, llm.Options{}) // no request is made
	if err != nil {
		t.Fatal(err)
	}
	s := session(t, llm.SessionOptions{NoCache: true, MaxCost: 1})
	s.Wrap(sp, m)
	man := s.Manifest()
	if len(man.Models) != 1 || man.Models[0].PriceKnown || !strings.Contains(man.Models[0].Note, "no price known for openai:mystery-model") {
		t.Errorf("manifest models %+v: want an unknown-price note", man.Models[0])
	}
}

// httpBody re-encodes a decoded request body.
func httpBody(v any) io.ReadCloser {
	b, _ := json.Marshal(v)
	return io.NopCloser(bytes.NewReader(b))
}

func TestConcurrentCalls(t *testing.T) {
	f, spec := server(t, "", nil)
	s := session(t, llm.SessionOptions{CacheDir: t.TempDir(),
		Limits: map[string]llm.Limits{"openai": {Concurrency: 2, RPM: 6000}}})
	m, _ := s.Open(spec)
	var wg sync.WaitGroup
	errc := make(chan error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := m.Generate(context.Background(), llm.GenerateRequest{Prompt: fmt.Sprint("p", i%20), MaxTokens: 2})
			errc <- err
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		if err != nil {
			t.Fatal(err)
		}
	}
	man := s.Manifest()
	if man.Calls+man.CacheHits != 40 || f.Requests() != man.Calls || man.Calls < 20 {
		t.Errorf("calls=%d hits=%d http=%d; want calls+hits=40, calls>=20", man.Calls, man.CacheHits, f.Requests())
	}
}

func TestRateLimitSpacing(t *testing.T) {
	_, spec := server(t, "", nil)
	// 1200 RPM = 20/s with a burst of 20: 30 calls need at least ~0.5 s.
	s := session(t, llm.SessionOptions{NoCache: true, DefaultLimits: llm.Limits{RPM: 1200}})
	m, _ := s.Open(spec)
	start := time.Now()
	for i := range 30 {
		if _, err := m.Generate(context.Background(), llm.GenerateRequest{Prompt: fmt.Sprint(i), MaxTokens: 1}); err != nil {
			t.Fatal(err)
		}
	}
	if el := time.Since(start); el < 400*time.Millisecond {
		t.Errorf("30 calls at 1200 RPM (burst 20) took %v, want >= ~0.5s", el)
	}
}

// umask reads the process umask (setting it back at once).
func umask() os.FileMode {
	m := syscall.Umask(0)
	syscall.Umask(m)
	return os.FileMode(m)
}
