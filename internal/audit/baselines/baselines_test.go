package baselines

import (
	"context"
	"errors"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
	_ "github.com/benchforge/benchforge/internal/llm/providers"
	"github.com/benchforge/benchforge/internal/ngram"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestFormulas(t *testing.T) {
	lps := []float64{-1, -2, -3, -0.5, -4, -0.25, -1.25, -3, -2, -1} // sum −18
	tests := []struct {
		name     string
		k        float64
		wantMinK float64
	}{
		{"k=0.2 takes the 2 lowest", 0.2, (-4 + -3) / 2.0},
		{"k=0.25 floors to 2", 0.25, -3.5},
		{"k=0.05 takes at least one", 0.05, -4},
		{"k=0.5 takes 5", 0.5, (-4 - 3 - 3 - 2 - 2) / 5.0},
		{"k=1 is the mean", 1, -1.8},
		{"k=0 means default", 0, -3.5},
		{"k>1 means default", 1.5, -3.5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := MinK(lps, tc.k); !near(got, tc.wantMinK) {
				t.Errorf("MinK(k=%v) = %v, want %v", tc.k, got, tc.wantMinK)
			}
		})
	}
	if got := Loss(lps); !near(got, 1.8) {
		t.Errorf("Loss = %v, want 1.8", got)
	}
	// Go's compress/zlib at the default level; Python's zlib.compress gives
	// 13, 8 and 12 bytes (it ends the stream without Go's empty final block).
	for text, want := range map[string]int{"hello": 17, "": 11, strings.Repeat("a", 100): 15} {
		if got := ZlibLen(text); got != want {
			t.Errorf("ZlibLen(%q) = %d, want %d", text, got, want)
		}
	}
	sc, err := FromLogprobs("hello", lps, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	if !near(sc.Zlib, 1.8/17) || !near(sc.Loss, 1.8) || !near(sc.MinK, -3.5) || sc.Tokens != 10 || sc.Texts != 1 {
		t.Errorf("FromLogprobs = %+v, want loss 1.8, zlib 1.8/17, min_k −3.5, 10 tokens", sc)
	}
	m := sc.Membership()
	if !near(m[MethodLoss], -1.8) || !near(m[MethodMinK], -3.5) || !near(m[MethodZlib], -1.8/17) {
		t.Errorf("Membership = %v", m)
	}
	if _, ok := m[MethodRef]; ok {
		t.Errorf("Membership has ref without a reference: %v", m)
	}
	if !math.IsNaN(Loss(nil)) || !math.IsNaN(MinK(nil, 0.2)) {
		t.Error("empty input should give NaN")
	}
}

func TestFromLogprobsRejects(t *testing.T) {
	for name, lps := range map[string][]float64{
		"empty":    nil,
		"NaN":      {-1, math.NaN()},
		"-Inf":     {math.Inf(-1)},
		"positive": {0.5},
	} {
		if _, err := FromLogprobs("x", lps, 0.2); !errors.Is(err, errs.ErrInput) {
			t.Errorf("%s: err = %v, want ErrInput", name, err)
		}
	}
}

func TestMeanOf(t *testing.T) {
	r1, r2 := 0.5, 1.5
	d1, d2 := 1.0, -0.5
	got, err := MeanOf([]Scores{
		{Texts: 1, Tokens: 4, Loss: 1.5, Zlib: 0.1, MinK: -3, K: 0.2, RefLoss: &r1, Ref: &d1},
		{Texts: 1, Tokens: 6, Loss: 1.0, Zlib: 0.3, MinK: -2, K: 0.2, RefLoss: &r2, Ref: &d2},
	})
	if err != nil {
		t.Fatal(err)
	}
	if got.Texts != 2 || got.Tokens != 10 || !near(got.Loss, 1.25) || !near(got.Zlib, 0.2) || !near(got.MinK, -2.5) ||
		!near(*got.RefLoss, 1.0) || !near(*got.Ref, 0.25) {
		t.Errorf("MeanOf = %+v ref_loss %v ref %v", got, *got.RefLoss, *got.Ref)
	}
	// Ref only when every element has one.
	got, _ = MeanOf([]Scores{{Loss: 1, Ref: &d1, RefLoss: &r1}, {Loss: 3}})
	if got.Ref != nil || !near(got.Loss, 2) {
		t.Errorf("MeanOf without full ref = %+v", got)
	}
	if _, err := MeanOf(nil); !errors.Is(err, errs.ErrInput) {
		t.Errorf("MeanOf(nil) err = %v", err)
	}
}

func TestPatchTextAndSnippets(t *testing.T) {
	patch := `diff --git a/src/A.java b/src/A.java
--- a/src/A.java
+++ b/src/A.java
@@ -1,3 +1,5 @@
 class A {
-  int f() { return 1; }
+  int f() { return 2; }
+
+  int g() { return 3; }
 }
diff --git a/src/test/ATest.java b/src/test/ATest.java
--- a/src/test/ATest.java
+++ b/src/test/ATest.java
@@ -1 +1,2 @@
 class ATest {}
+// test line
diff --git a/README.md b/README.md
--- a/README.md
+++ b/README.md
@@ -1 +1,2 @@
 x
+doc line
`
	want := "  int f() { return 2; }\n  int g() { return 3; }\n"
	if got := PatchText(patch); got != want {
		t.Errorf("PatchText = %q, want %q", got, want)
	}
	if got := PatchText("not a diff"); got != "" {
		t.Errorf("PatchText(junk) = %q", got)
	}
	files := [][]byte{[]byte("a\nb\nc\nd\ne\n"), []byte("\n\n\n"), []byte("x\ny\n"), []byte("1\n2\n3\n")}
	got := Snippets(files, 4, 2)
	wantS := []string{"b\nc\n", "x\ny\n", "1\n2\n"}
	if strings.Join(got, "|") != strings.Join(wantS, "|") {
		t.Errorf("Snippets = %q, want %q", got, wantS)
	}
	// Step 2: files 0 and 2; their middle lines.
	if got := Snippets(files, 2, 1); len(got) != 2 || got[0] != "c\n" || got[1] != "y\n" {
		t.Errorf("Snippets(n=2, 1 line) = %q", got)
	}
}

// serveNgram trains an order-4 n-gram model on files and serves it on a
// loopback port; it returns an llm.Model talking to it over HTTP.
func serveNgram(t *testing.T, id string, files map[string]string) llm.Model {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m, err := ngram.Train(context.Background(), ngram.Corpus{Paths: []string{dir}}, ngram.Options{Order: 4})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: ngram.NewServer(m, id), ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	model, err := llm.Open("openai:"+id+"@http://"+ln.Addr().String()+"/v1", llm.Options{Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return model
}

// TestScoreNgramServer scores real text through the OpenAI-compatible
// provider against benchforge's n-gram server: text the target was trained
// on must have a lower Loss and Ref and a higher Min-K% than unseen text.
func TestScoreNgramServer(t *testing.T) {
	seen := "public class Counter {\n  private int hits;\n  public void recordHit(int weight) { hits += weight * 3; }\n  public int totalHits() { return hits; }\n}\n"
	unseen := "final class Ledger {\n  long balance;\n  void deposit(long cents) { balance = Math.addExact(balance, cents); }\n}\n"
	common := "class Util {\n  static int twice(int x) { return x + x; }\n}\n"
	target := serveNgram(t, "target", map[string]string{"Counter.java": seen, "Util.java": common})
	ref := serveNgram(t, "reference", map[string]string{"Util.java": common})
	s := Scorer{Target: target, Reference: ref}
	ctx := context.Background()
	a, err := s.Score(ctx, seen)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Score(ctx, unseen)
	if err != nil {
		t.Fatal(err)
	}
	if a.Tokens < 10 || b.Tokens < 10 {
		t.Fatalf("too few tokens scored: %d, %d", a.Tokens, b.Tokens)
	}
	if !(a.Loss < b.Loss) || !(a.MinK > b.MinK) || !(a.Zlib < b.Zlib) || !(*a.Ref < *b.Ref) {
		t.Errorf("seen text should look more like a member:\nseen   %+v ref %v\nunseen %+v ref %v", a, *a.Ref, b, *b.Ref)
	}
	// The values must be the formulas applied to the served log-probabilities.
	r, err := target.Score(ctx, llm.ScoreRequest{Prompt: seen})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := FromLogprobs(seen, Logprobs(r), DefaultK)
	if !near(a.Loss, want.Loss) || !near(a.MinK, want.MinK) || !near(a.Zlib, want.Zlib) {
		t.Errorf("Score = %+v, formulas on the served logprobs give %+v", a, want)
	}
	mean, err := s.Mean(ctx, []string{seen, "", unseen})
	if err != nil {
		t.Fatal(err)
	}
	if mean.Texts != 2 || !near(mean.Loss, (a.Loss+b.Loss)/2) {
		t.Errorf("Mean = %+v, want the mean of two texts (the empty one skipped)", mean)
	}
	if _, err := s.Score(ctx, ""); !errors.Is(err, errs.ErrInput) {
		t.Errorf("Score(\"\") err = %v", err)
	}
}
