package openai_test

import (
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/llm/llmtest"
	"github.com/benchforge/benchforge/internal/ngram/ngramtest"
)

// TestContractNgramServer runs the contract against benchforge's own n-gram
// LM server (internal/ngram) on a real loopback listener: the reference
// model the audit uses when no paid model is wanted.
func TestContractNgramServer(t *testing.T) {
	spec := ngramtest.Serve(t, ngramtest.Train(t, 4), "tiny-java")

	// The n-gram server has no /embeddings and no JSON mode.
	caps := llmtest.Caps{Chat: true, Generate: true, Score: true, Skip: []string{"Embed"}}
	t.Run("bare", func(t *testing.T) {
		llmtest.Run(t, caps, func(t *testing.T) llm.Model {
			m, err := llm.Open(spec, llm.Options{Timeout: 5 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			return m
		})
	})
	t.Run("session", func(t *testing.T) {
		llmtest.Run(t, caps, func(t *testing.T) llm.Model {
			s := newSession(t, llm.SessionOptions{CacheDir: t.TempDir()})
			m, err := s.Open(spec)
			if err != nil {
				t.Fatal(err)
			}
			return m
		})
	})
}
