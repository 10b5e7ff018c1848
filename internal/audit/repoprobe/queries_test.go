package repoprobe

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/textsim"
)

func TestBuildQueriesFromClones(t *testing.T) {
	files := testRepo()
	pats, err := Mine(context.Background(), files, MineOptions{CloneMinTokens: 30, MinSupport: 2})
	if err != nil {
		t.Fatal(err)
	}
	var clones []Pattern
	for _, p := range pats {
		if p.Kind == KindClone {
			clones = append(clones, p)
		}
	}
	qs := BuildQueries(files, clones, QueryOptions{MaxTargetsPerTemplate: 100, MinQueryChars: 1, DedupRatio: 0.999})
	targets := map[string]bool{}
	for _, q := range qs {
		targets[q.Target] = true
		f := files[0]
		if q.Path != f.Path {
			t.Errorf("query cut from %s, want the first member %s", q.Path, f.Path)
		}
		// The prompt ends immediately before the target in the original.
		src := string(f.Content)
		if !strings.HasSuffix(src[:q.Offset], q.Prompt) || !strings.HasPrefix(src[q.Offset:], q.Target) {
			t.Errorf("query %q / %q does not cut the source at %d", q.Prompt, q.Target, q.Offset)
		}
	}
	// Must match: fixed words shared by both members.
	for _, w := range []string{"values", "total", "frobnicateWidget", "length"} {
		if !targets[w] {
			t.Errorf("fixed word %q is not a target; targets %v", w, targets)
		}
	}
	// Must not match: words in template holes (renamed per member).
	for _, w := range []string{"sumA", "sumB", "limitA", "limitB"} {
		if targets[w] {
			t.Errorf("instance-specific word %q became a target", w)
		}
	}
}

func TestBuildQueriesStructuralDedup(t *testing.T) {
	files := testRepo()
	pats, _ := Mine(context.Background(), files, MineOptions{CloneMinTokens: 30, MinSupport: 2})
	once := BuildQueries(files, pats, QueryOptions{})
	twice := BuildQueries(files, append(pats, pats...), QueryOptions{})
	if len(once) == 0 || len(once) != len(twice) {
		t.Errorf("repeated patterns changed the queries: %d vs %d", len(once), len(twice))
	}
}

func TestDedupQueries(t *testing.T) {
	base := "public static final int ALPHA_COUNT = computeSomething(alphaSource, betaSource, gammaSource); int y = "
	qs := []Query{
		{ID: "1", Prompt: base, Target: "zorbWidget"},
		{ID: "2", Prompt: "// x\n" + base, Target: "zorbWidget"}, // near-duplicate of 1
		{ID: "3", Prompt: "def completely_other(thing):\n    return thing.frobnicate(42) + ", Target: "quuxGadget"},
		{ID: "1", Prompt: base, Target: "zorbWidget"}, // exact repeat
	}
	got := dedupQueries(qs, QueryOptions{DedupRatio: 0.8, DedupTokens: 48})
	var ids []string
	for _, q := range got {
		ids = append(ids, q.ID)
	}
	if strings.Join(ids, ",") != "1,3" {
		t.Errorf("kept %v, want [1 3]", ids)
	}
}

func TestCooccurQueryPrompt(t *testing.T) {
	src := "a = zorbConfig.x\nfiller filler\nb = loadWidget(a)\n"
	files := []File{{Path: "f.py", Content: []byte(src)}}
	p := Pattern{Kind: KindCooccur, Words: []string{"zorbConfig", "loadWidget"}, Snippets: []Snippet{{File: 0, End: len(src)}}}
	qs := BuildQueries(files, []Pattern{p}, QueryOptions{MinQueryChars: 1})
	if len(qs) != 1 {
		t.Fatalf("want 1 query, got %+v", qs)
	}
	if q := qs[0]; q.Target != "loadWidget" || q.Prompt != "zorbConfig.x\nfiller filler\nb = " {
		t.Errorf("query %+v", q)
	}
}

func TestSingleQueries(t *testing.T) {
	files := testRepo()
	qs := SingleQueries(files, 5, 1, QueryOptions{})
	if len(qs) == 0 || len(qs) > 5 {
		t.Fatalf("got %d queries", len(qs))
	}
	for _, q := range qs {
		if q.Kind != KindSingle || q.Prompt == "" || !isWord(q.Target) {
			t.Errorf("bad single query %+v", q)
		}
	}
	// The ablation changes where targets come from, not how a prompt is
	// cut: it is the MaxQueryChars bytes before the target (fewer at the
	// file's start), as for a pattern query, never just the target's line.
	const maxChars = 120
	qs = SingleQueries(files, 40, 1, QueryOptions{MaxQueryChars: maxChars})
	multiLine := 0
	for _, q := range qs {
		var src []byte
		for _, f := range files {
			if f.Path == q.Path {
				src = f.Content
			}
		}
		if want := string(src[max(0, q.Offset-maxChars):q.Offset]); q.Prompt != want {
			t.Errorf("query at %s:%d: prompt %q, want the %d bytes before the target %q", q.Path, q.Offset, q.Prompt, maxChars, want)
		}
		if strings.Contains(q.Prompt, "\n") {
			multiLine++
		}
	}
	if multiLine < len(qs)/2 {
		t.Errorf("%d of %d prompts span more than the target's line", multiLine, len(qs))
	}
}

func FuzzBuildQueries(f *testing.F) {
	f.Add([]byte(licence+"class A {\n"+javaMethod("a", "b")+"}\n"), []byte(licence+"class B {\n"+javaMethod("c", "d")+"}\n"))
	f.Add([]byte("def f(x):\n    # hi there\n    return x\n"), []byte("\xff\x00 zorb"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		files := []File{{Path: "a.java", Content: a}, {Path: "b.java", Content: b}, {Path: "c.py", Content: a}}
		pats, err := Mine(context.Background(), files, MineOptions{CloneMinTokens: 5, MinSupport: 2, TextMinChars: 5, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range BuildQueries(files, pats, QueryOptions{MinQueryChars: 1}) {
			var src []byte
			for _, fl := range files {
				if fl.Path == q.Path {
					src = fl.Content
				}
			}
			if q.Offset > len(src) || !strings.HasPrefix(string(src[q.Offset:]), q.Target) {
				t.Fatalf("query %+v does not point at its target", q)
			}
		}
	})
}

// TestQuickRatioBoundsRatio checks the pre-filter of dedupQueries: it
// may only reject pairs whose SequenceMatcher ratio is below the bar,
// so it must never be below the ratio itself.
func TestQuickRatioBoundsRatio(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	vocab := strings.Fields("a b c d e f ( ) ; {")
	tails := make([][]string, 300)
	for i := range tails {
		tails[i] = make([]string, r.IntN(50))
		for k := range tails[i] {
			tails[i][k] = vocab[r.IntN(len(vocab))]
		}
	}
	bags := tokenBags(tails)
	for i := range tails {
		j := r.IntN(len(tails))
		if q, s := quickRatio(bags[i], bags[j]), textsim.Ratio(tails[i], tails[j]); q < s {
			t.Fatalf("quickRatio %v below Ratio %v for %q, %q", q, s, tails[i], tails[j])
		}
	}
}
