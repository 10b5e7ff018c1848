// Package ngramtest owns the tiny real n-gram language model that tests of
// model plumbing run against: trained on three small Java classes, saved to
// a temporary file or served on a loopback port, so a test exercises the
// real provider, server and cache code without a paid model.
package ngramtest

import (
	"context"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/ngram"
)

// Java is the training corpus: file name → source.
var Java = map[string]string{
	"A.java": "public class A {\n  private int size;\n  public int size() { return size; }\n  public void add(int x) { for (int i = 0; i < x; i++) { size++; } }\n}\n",
	"B.java": "public class B {\n  public int sum(int[] xs) { int s = 0; for (int i = 0; i < xs.length; i++) { s += xs[i]; } return s; }\n}\n",
	"C.java": "class C {\n  int n;\n  boolean isEmpty() { return n == 0; }\n  void clear() { n = 0; }\n}\n",
}

// Train trains an order-n model on Java.
func Train(t testing.TB, order int) *ngram.Model {
	t.Helper()
	dir := t.TempDir()
	for name, src := range Java {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := ngram.Train(context.Background(), ngram.Corpus{Paths: []string{dir}}, ngram.Options{Order: order})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// File trains an order-n model and saves it; the path is what an
// "ngram:FILE" spec names.
func File(t testing.TB, order int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tiny.bfng")
	if err := Train(t, order).Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// Serve serves m as name behind benchforge's OpenAI-compatible n-gram
// server on a loopback port until the test ends, and returns the spec
// that opens it ("openai:NAME@http://ADDR/v1").
func Serve(t testing.TB, m *ngram.Model, name string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: ngram.NewServer(m, name), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "openai:" + name + "@http://" + ln.Addr().String() + "/v1"
}
