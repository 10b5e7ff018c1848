package pipeline

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/benchforge/benchforge/internal/audit/refindex"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
	_ "github.com/benchforge/benchforge/internal/llm/ngramllm"
)

func TestBuildReference(t *testing.T) {
	corpus := t.TempDir()
	writeFiles(t, corpus, map[string]string{
		"alpha/A.java": "class A { int size() { return items.length; } }\n",
		"beta/B.java":  "class B { void clear() { items = new Object[0]; } }\n",
		"gamma/c.py":   "def size(xs):\n    return len(xs)\n",
	})
	dir := t.TempDir()
	src := []refindex.Source{{Path: corpus, Kind: refindex.KindDir}}
	var said []string
	rf, err := BuildReference(context.Background(), dir, src, func(s string) { said = append(said, s) })
	if err != nil {
		t.Fatal(err)
	}
	if !rf.Built || len(said) != 2 {
		t.Fatalf("first build: built=%v, progress %q", rf.Built, said)
	}
	idx, err := refindex.Load(rf.Index)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal([]int{idx.Repos(), idx.RepoFreq("items"), idx.RepoFreq("size")}, []int{3, 2, 2}) {
		t.Errorf("index: repos %d, items %d, size %d", idx.Repos(), idx.RepoFreq("items"), idx.RepoFreq("size"))
	}
	m, err := llm.Open("ngram:"+rf.Model, llm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Score(context.Background(), llm.ScoreRequest{Prompt: "class A {", Continuation: " int size()"}); err != nil {
		t.Fatal(err)
	}
	again, err := BuildReference(context.Background(), dir, src, nil)
	if err != nil || again.Built || again.Model != rf.Model {
		t.Fatalf("second call must reuse the files: %+v, %v", again, err)
	}
	if _, err := BuildReference(context.Background(), dir, nil, nil); !errors.Is(err, errs.ErrNotFound) {
		t.Errorf("no sources: %v", err)
	}
}
