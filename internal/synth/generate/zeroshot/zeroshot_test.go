package zeroshot

import (
	"context"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/llm"
	"github.com/benchforge/benchforge/internal/llm/llmtest"
	_ "github.com/benchforge/benchforge/internal/llm/providers"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/generate"
	"github.com/benchforge/benchforge/internal/synth/generate/llmgen"
)

// TestScaffoldsCycle: every type has scaffolds; each block of a type's
// combination count draws uses every combination once; the schedule is a
// pure function of (seed, type, n).
func TestScaffoldsCycle(t *testing.T) {
	p, err := NewPrompter(Options{Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range corpus.Types {
		c := p.Combinations(typ)
		if c < 16 {
			t.Fatalf("%s: only %d scaffolds", typ, c)
		}
		var first []string
		for cycle := 0; cycle < 2; cycle++ {
			seen := map[string]bool{}
			for k := 0; k < c; k++ {
				s, err := p.Scaffold(typ, cycle*c+k)
				if err != nil {
					t.Fatal(err)
				}
				if seen[s.Label()] {
					t.Fatalf("%s cycle %d: %s reused after %d draws", typ, cycle, s.Label(), k)
				}
				seen[s.Label()] = true
				if cycle == 0 {
					first = append(first, s.Label())
				}
			}
		}
		q, _ := NewPrompter(Options{Seed: 4})
		if s, _ := q.Scaffold(typ, c-1); s.Label() != first[c-1] {
			t.Errorf("%s: a fresh prompter disagrees at draw %d", typ, c-1)
		}
	}
	if _, err := p.Scaffold("Nope", 0); !errors.Is(err, errs.ErrInput) {
		t.Errorf("unknown type: %v", err)
	}
}

func TestScaffoldsCheck(t *testing.T) {
	ctx := []Context{{ID: "c", Text: "c"}}
	for name, sc := range map[string]Scaffolds{
		"no contexts":  {Types: map[string][]Mechanism{corpus.NullPointer: {{ID: "m", Text: "m", Triggers: []string{"t"}}}}},
		"unknown type": {Contexts: ctx, Types: map[string][]Mechanism{"IOException": {{ID: "m", Text: "m", Triggers: []string{"t"}}}}},
		"no trigger":   {Contexts: ctx, Types: map[string][]Mechanism{corpus.NullPointer: {{ID: "m", Text: "m"}}}},
		"repeated id": {Contexts: ctx, Types: map[string][]Mechanism{corpus.NullPointer: {
			{ID: "m", Text: "m", Triggers: []string{"t"}}, {ID: "m", Text: "n", Triggers: []string{"t"}}}}},
	} {
		if _, err := NewPrompter(Options{Scaffolds: sc}); !errors.Is(err, errs.ErrInput) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestPromptContent(t *testing.T) {
	p, _ := NewPrompter(Options{Seed: 1})
	pr, err := p.Prompt(corpus.IllegalArgument, 3)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := p.Scaffold(corpus.IllegalArgument, 3)
	for _, want := range []string{"IllegalArgumentException", s.Mechanism.Text, s.Mechanism.Triggers[s.Trigger], s.Context.Text,
		"must not merely introduce a new throw", "identical signatures"} {
		if !strings.Contains(pr.User, want) {
			t.Errorf("prompt lacks %q:\n%s", want, pr.User)
		}
	}
	if pr.Operator != s.Label() || len(pr.ExampleBugIDs) != 0 || pr.SizeTarget != 0 || strings.Contains(pr.User, "logical lines") {
		t.Errorf("zero-shot prompt carries exemplars or a size target: %+v", pr)
	}
}

// TestGenerateAgainstFake: through a real Session and the in-memory
// OpenAI-compatible server, each prompt gives one candidate whose operator
// is its scaffold, with no exemplars, and a rerun makes no request.
func TestGenerateAgainstFake(t *testing.T) {
	fake := &llmtest.OpenAI{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	spec := "openai:fake@" + srv.URL + "/v1"
	dir := t.TempDir()
	run := func() *generate.Stats {
		s, err := llm.NewSession(llm.SessionOptions{NoCache: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		m, err := s.Open(spec)
		if err != nil {
			t.Fatal(err)
		}
		g, err := New(m, Options{Seed: 9}, llmgen.Options{Dir: dir, Workers: 2, MaxTokens: 50})
		if err != nil {
			t.Fatal(err)
		}
		defer g.Close()
		st, err := generate.Run(context.Background(), g, generate.RunOptions{Dir: dir, PerType: map[string]int{corpus.NumberFormat: 3, corpus.ClassCast: 2}})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	st := run()
	if st.New != 5 || fake.Requests() != 5 {
		t.Fatalf("%+v, %d requests", st, fake.Requests())
	}
	cands, err := jsonl.ReadFile[generate.Candidate](filepath.Join(dir, generate.CandidatesFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cands {
		if !strings.HasPrefix(c.Generator, Version+":") || !strings.Contains(c.Operator, "/t") || len(c.ExampleBugIDs) != 0 || c.SizeTarget != 0 || c.PromptHash == "" {
			t.Errorf("candidate %+v", c)
		}
	}
	if st := run(); st.Resumed != 5 || fake.Requests() != 5 {
		t.Errorf("rerun: %+v, %d requests in all", st, fake.Requests())
	}
}
