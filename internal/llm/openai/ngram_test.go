package openai_test

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/llm/llmtest"
	"github.com/benchforge/benchforge/internal/ngram"
)

var tinyJava = map[string]string{
	"A.java": "public class A {\n  private int size;\n  public int size() { return size; }\n  public void add(int x) { for (int i = 0; i < x; i++) { size++; } }\n}\n",
	"B.java": "public class B {\n  public int sum(int[] xs) { int s = 0; for (int i = 0; i < xs.length; i++) { s += xs[i]; } return s; }\n}\n",
	"C.java": "class C {\n  int n;\n  boolean isEmpty() { return n == 0; }\n  void clear() { n = 0; }\n}\n",
}

// TestContractNgramServer runs the contract against benchforge's own n-gram
// LM server (internal/ngram) on a real loopback listener: the reference
// model the audit uses when no paid model is wanted.
func TestContractNgramServer(t *testing.T) {
	dir := t.TempDir()
	for name, src := range tinyJava {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	model, err := ngram.Train(context.Background(), ngram.Corpus{Paths: []string{dir}}, ngram.Options{Order: 4})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: ngram.NewServer(model, "tiny-java"), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	spec := "openai:tiny-java@http://" + ln.Addr().String() + "/v1"

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
