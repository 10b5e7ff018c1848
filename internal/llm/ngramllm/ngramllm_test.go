package ngramllm_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/llm/llmtest"
	_ "github.com/benchforge/benchforge/internal/llm/ngramllm"
	"github.com/benchforge/benchforge/internal/ngram/ngramtest"
)

func trainTo(t *testing.T) string { return ngramtest.File(t, 4) }

// TestContract runs the one Model contract against the in-process provider,
// bare and behind a Session (cache, retries, manifest).
func TestContract(t *testing.T) {
	spec := "ngram:" + trainTo(t)
	caps := llmtest.Caps{Generate: true, Score: true, Chat: true}
	t.Run("bare", func(t *testing.T) {
		llmtest.Run(t, caps, func(t *testing.T) llm.Model {
			m, err := llm.Open(spec, llm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return m
		})
	})
	t.Run("session", func(t *testing.T) {
		llmtest.Run(t, caps, func(t *testing.T) llm.Model {
			s, err := llm.NewSession(llm.SessionOptions{CacheDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			m, err := s.Open(spec)
			if err != nil {
				t.Fatal(err)
			}
			return m
		})
	})
}

func TestMemorisedVersusUnseen(t *testing.T) {
	m, err := llm.Open("ngram:"+trainTo(t), llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	seen, err := m.Score(ctx, llm.ScoreRequest{Prompt: "  public int sum(int[] xs) { int s = 0; for (int i = 0; i < xs.length; i++) {", Continuation: " s += xs[i]; } return s; }"})
	if err != nil {
		t.Fatal(err)
	}
	unseen, err := m.Score(ctx, llm.ScoreRequest{Prompt: "  public int sum(int[] xs) { int s = 0; for (int i = 0; i < xs.length; i++) {", Continuation: " total ^= mask[i >> 2]; } yield t; }"})
	if err != nil {
		t.Fatal(err)
	}
	if s, u := seen.ContinuationLogprob(), unseen.ContinuationLogprob(); s <= u+5 {
		t.Errorf("seen continuation logprob %.2f not clearly above unseen %.2f", s, u)
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := llm.Open("ngram:/no/such.bfng", llm.Options{}); !errors.Is(err, errs.ErrNotFound) {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.bfng")
	os.WriteFile(bad, []byte("not a model"), 0o644)
	if _, err := llm.Open("ngram:"+bad, llm.Options{}); !errors.Is(err, errs.ErrInput) {
		t.Errorf("corrupt file: %v", err)
	}
	if _, err := llm.Open("ngram:x.bfng@http://127.0.0.1:1/v1", llm.Options{}); !errors.Is(err, errs.ErrUsage) {
		t.Errorf("ngram with URL: %v", err)
	}
}
