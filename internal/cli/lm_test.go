package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/gitrepo/gittest"
)

// lmSyncBuffer is a bytes.Buffer safe for a writer and a concurrent reader.
type lmSyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *lmSyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *lmSyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func runLM(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := Run(ctx, append([]string{"benchforge"}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func lmCorpus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"a/Counter.java": "package a;\n\npublic class Counter {\n    private int count;\n\n    public void increment() {\n        count++;\n    }\n\n    public int get() {\n        return count;\n    }\n}\n",
		"b/Pair.java":    "package b;\n\npublic final class Pair<A, B> {\n    private final A first;\n\n    public A first() {\n        return first;\n    }\n}\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestLMTrainScoreSample(t *testing.T) {
	ctx := context.Background()
	dir := lmCorpus(t)
	model := filepath.Join(t.TempDir(), "m.bfng")
	code, out, errOut := runLM(t, ctx, "lm", "train", "--corpus", dir, "--order", "4", "--out", model, "--json")
	if code != 0 {
		t.Fatalf("train: exit %d, stderr %s", code, errOut)
	}
	var sum lmTrainSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Files != 2 || sum.Order != 4 || len(sum.NGrams) != 4 || sum.SizeBytes == 0 || sum.Tokens == 0 {
		t.Errorf("train summary %+v", sum)
	}
	code, out, _ = runLM(t, ctx, "lm", "train", "--corpus", dir, "--out", filepath.Join(t.TempDir(), "t.bfng"))
	if code != 0 || !regexp.MustCompile(`trained .*: order 6, 2 files, \d+ bytes, \d+ tokens, vocab \d+\nn-grams \d+ `).MatchString(out) {
		t.Errorf("train text summary (exit %d): %q", code, out)
	}

	target := filepath.Join(dir, "a", "Counter.java")
	code, out, errOut = runLM(t, ctx, "lm", "score", "--model", model, target, "--json")
	if code != 0 {
		t.Fatalf("score: exit %d, %s", code, errOut)
	}
	var score lmScoreOutput
	if err := json.Unmarshal([]byte(out), &score); err != nil {
		t.Fatal(err)
	}
	if score.Summary.Tokens == 0 || score.Summary.Tokens != len(score.Tokens) || score.Summary.Perplexity < 1 {
		t.Errorf("score summary %+v", score.Summary)
	}
	code, out, _ = runLM(t, ctx, "lm", "score", "--model", model, target)
	if code != 0 || !strings.Contains(out, "OFFSET") || !strings.Contains(out, "perplexity") {
		t.Errorf("score table (exit %d): %s", code, out)
	}

	code, out, errOut = runLM(t, ctx, "lm", "sample", "--model", model, "--prompt", "    public int get() {\n        return", "--n", "2", "--max-tokens", "2", "--temperature", "0", "--json")
	if code != 0 {
		t.Fatalf("sample: exit %d, %s", code, errOut)
	}
	var comps []struct {
		Text         string `json:"text"`
		FinishReason string `json:"finish_reason"`
	}
	if err := json.Unmarshal([]byte(out), &comps); err != nil {
		t.Fatal(err)
	}
	if len(comps) != 2 || comps[0].Text != " count;" || comps[1].Text != comps[0].Text {
		t.Errorf("greedy samples %+v, want two copies of \" count;\"", comps)
	}
}

func TestLMErrors(t *testing.T) {
	ctx := context.Background()
	bad := filepath.Join(t.TempDir(), "bad.bfng")
	os.WriteFile(bad, []byte("not a model"), 0o644)
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"lm", "train", "--out", "x.bfng"}, exitUsage},
		{[]string{"lm", "train", "--corpus", t.TempDir()}, exitUsage},
		{[]string{"lm", "train", "--corpus", t.TempDir(), "--out", filepath.Join(t.TempDir(), "m.bfng")}, exitInput},
		{[]string{"lm", "score", "--model", bad, "-"}, exitInput},
		{[]string{"lm", "score", "--model", filepath.Join(t.TempDir(), "none.bfng"), "-"}, exitNotFound},
		{[]string{"lm", "score", "--model", bad}, exitUsage},
		{[]string{"lm", "sample", "--prompt", "x"}, exitUsage},
		{[]string{"lm", "serve", "--model", bad}, exitInput},
		{[]string{"lm", "bogus"}, exitUsage},
	}
	for _, tt := range tests {
		if code, _, errOut := runLM(t, ctx, tt.args...); code != tt.code {
			t.Errorf("%v: exit %d (%s), want %d", tt.args, code, strings.TrimSpace(errOut), tt.code)
		}
	}
}

func TestLMServe(t *testing.T) {
	dir := lmCorpus(t)
	model := filepath.Join(t.TempDir(), "java.bfng")
	if code, _, errOut := runLM(t, context.Background(), "lm", "train", "--corpus", dir, "--out", model); code != 0 {
		t.Fatalf("train: %s", errOut)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr lmSyncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"benchforge", "lm", "serve", "--model", model, "--addr", "127.0.0.1:0"}, &stdout, &stderr)
	}()
	re := regexp.MustCompile(`http://(127\.0\.0\.1:\d+)/v1`)
	var addr string
	for deadline := time.Now().Add(10 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := re.FindStringSubmatch(stdout.String()); m != nil {
			addr = m[1]
		}
	}
	if addr == "" {
		t.Fatalf("serve printed no address; stdout %q stderr %q", stdout.String(), stderr.String())
	}
	resp, err := http.Post("http://"+addr+"/v1/completions", "application/json",
		strings.NewReader(`{"model":"java","prompt":"public","max_tokens":4,"temperature":0}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"text_completion"`) {
		t.Errorf("completion: %d %s", resp.StatusCode, body)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("serve exit %d after cancel, stderr %q", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop after the context was canceled")
	}
}

// TestLMTrainRepoRev: --repo DIR --rev REV trains on the repository as it
// was at REV (a bare clone too), so a cutoff model needs no 'git archive'.
func TestLMTrainRepoRev(t *testing.T) {
	b := gittest.New(t)
	b.Write("src/Old.java", "class Old { int zorblaxOld() { return 1; } }\n")
	first := b.Commit("old", gittest.Date(2019, 1, 1))
	b.Write("src/New.java", "class New { int quibbleNew() { return 2; } }\n")
	b.Commit("new", gittest.Date(2022, 1, 1))
	bare := b.CloneBare()
	other := gittest.New(t)
	other.Write("x.py", "def plimsoll():\n    return 3\n")
	other.Commit("x", gittest.Date(2019, 6, 1))
	train := func(args ...string) lmTrainSummary {
		t.Helper()
		out := filepath.Join(t.TempDir(), "m.bfng")
		code, stdout, stderr := runLM(t, context.Background(), append(append([]string{"lm", "train"}, args...), "--out", out, "--json")...)
		if code != 0 {
			t.Fatalf("lm train %v: exit %d: %s", args, code, stderr)
		}
		var s lmTrainSummary
		if err := json.Unmarshal([]byte(stdout), &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := train("--repo", bare, "--rev", first); s.Files != 1 {
		t.Errorf("--rev %s (the 2019 snapshot): %d files, want 1", first, s.Files)
	}
	if s := train("--repo", b.Dir()); s.Files != 2 {
		t.Errorf("--repo at HEAD: %d files, want 2", s.Files)
	}
	if s := train("--repo", bare, "--rev", first, "--repo", other.Dir(), "--rev", "HEAD"); s.Files != 2 {
		t.Errorf("two repositories: %d files, want 2", s.Files)
	}
	if code, _, stderr := runLM(t, context.Background(), "lm", "train", "--repo", bare, "--repo", other.Dir(), "--rev", "a", "--rev", "b", "--rev", "c", "--out", filepath.Join(t.TempDir(), "m")); code != exitUsage || !strings.Contains(stderr, "one --rev per --repo") {
		t.Errorf("3 --rev for 2 --repo: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runLM(t, context.Background(), "lm", "train", "--repo", bare, "--rev", "nosuchrev", "--out", filepath.Join(t.TempDir(), "m")); code == 0 || !strings.Contains(stderr, "--rev nosuchrev") {
		t.Errorf("unknown --rev: exit %d: %s", code, stderr)
	}
}
