package mutation

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/metrics"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/generate"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// nullMethod is a public method with one removable null guard and body
// extra statements, so a corpus of them spans sizes.
func nullMethod(name string, extra int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "    public int %s(String s) {\n        if (s == null) {\n            return 0;\n        }\n        int n = s.length();\n", name)
	for i := range extra {
		fmt.Fprintf(&b, "        n = n + %d;\n", i+1)
	}
	b.WriteString("        return n;\n    }\n")
	return b.String()
}

// groundCorpus writes two "repositories" of NPE host methods of 2 to 40
// extra statements, so grounding has small and large hosts to choose from.
func groundCorpus(t *testing.T) []CorpusSpec {
	var specs []CorpusSpec
	for r, sizes := range [][]int{{0, 1, 2, 3, 4, 30, 35}, {1, 2, 3, 5, 6, 28, 40}} {
		dir := t.TempDir()
		var b strings.Builder
		b.WriteString("package p;\npublic class C {\n")
		for k, n := range sizes {
			b.WriteString(nullMethod(fmt.Sprintf("m%d", k), n))
		}
		b.WriteString("}\n")
		testcheck.Must(t, os.MkdirAll(filepath.Join(dir, "src/main/java/p"), 0o755))
		testcheck.Must(t, os.WriteFile(filepath.Join(dir, "src/main/java/p/C.java"), []byte(b.String()), 0o644))
		specs = append(specs, CorpusSpec{Path: dir, Repo: fmt.Sprintf("o/r%d", r), Commit: fmt.Sprintf("%040d", r)})
	}
	return specs
}

func lloc(t *testing.T, src string) int {
	t.Helper()
	m, err := metrics.OfMethodSource([]byte(src))
	testcheck.Must(t, err)
	return m.Metrics.LLOC
}

// TestGroundedFollowsSeeds: with one small and one large NPE seed, the
// grounded generator draws one small and one large host (the corpus is
// mostly small, so corpus order would give small ones), records the seed
// each pair was grounded on and its size target, and keeps every pair's
// repository and commit.
func TestGroundedFollowsSeeds(t *testing.T) {
	small := "int f(String s) {\n    if (s == null) {\n        return 0;\n    }\n    int n = s.length();\n    n = n + 1;\n    n = n + 2;\n    n = n + 3;\n    return n;\n}"
	large := "int g(String s) {\n    int n = s.length();\n" + strings.Repeat("    n = n * 2;\n", 33) + "    return n;\n}"
	largeFixed := strings.Replace(large, "{\n", "{\n    if (s == null) {\n        return 0;\n    }\n", 1)
	smallBuggy := "int f(String s) {\n    int n = s.length();\n    n = n + 1;\n    n = n + 2;\n    n = n + 3;\n    return n;\n}"
	seeds := []corpus.Seed{
		{BugID: "S-1", Exception: corpus.NullPointer, BuggyMethod: smallBuggy, FixedMethod: small},
		{BugID: "L-1", Exception: corpus.NullPointer, BuggyMethod: large, FixedMethod: largeFixed},
	}
	g, err := New(Options{Corpora: groundCorpus(t), Seed: 3, PublicOnly: true, Ground: &Grounding{Reference: seeds}})
	testcheck.Must(t, err)
	defer g.Close()
	if g.ID() != GroundedID {
		t.Errorf("ID %s, want %s", g.ID(), GroundedID)
	}
	st, err := generate.Run(context.Background(), g, generate.RunOptions{Dir: t.TempDir(), PerType: map[string]int{corpus.NullPointer: 4}})
	testcheck.Must(t, err)
	if st.Have[corpus.NullPointer] != 4 {
		t.Fatalf("have %v, want 4 NPE pairs", st.Have)
	}
	cands, err := readCandidates(t, g, 4)
	testcheck.Must(t, err)
	bySeed := map[string][]int{}
	for _, c := range cands {
		if len(c.ExampleBugIDs) != 1 || c.Source == nil || c.Source.Repo == "" || c.Source.Commit == "" || c.Operator != "remove_null_guard" {
			t.Fatalf("provenance missing: %+v", c)
		}
		l := lloc(t, c.BuggyMethod)
		bySeed[c.ExampleBugIDs[0]] = append(bySeed[c.ExampleBugIDs[0]], l)
		if c.SizeTarget == 0 {
			t.Errorf("%s: no size target", c.ID)
		}
	}
	sl, ll := lloc(t, smallBuggy), lloc(t, large)
	for _, l := range bySeed["S-1"] {
		if float64(l) > 1.4*float64(sl) {
			t.Errorf("pair of small seed (LLOC %d) has LLOC %d", sl, l)
		}
	}
	for _, l := range bySeed["L-1"] {
		if float64(l) < 0.6*float64(ll) {
			t.Errorf("pair of large seed (LLOC %d) has LLOC %d", ll, l)
		}
	}
	if len(bySeed["S-1"]) != 2 || len(bySeed["L-1"]) != 2 {
		t.Errorf("shares per seed %v, want 2 each", bySeed)
	}
}

// readCandidates replays the plan's rounds (the generator is
// deterministic), returning the first n candidates.
func readCandidates(t *testing.T, g *Generator, n int) ([]generate.Candidate, error) {
	t.Helper()
	var out []generate.Candidate
	for k := 0; len(out) < n; k++ {
		cs, err := g.Generate(context.Background(), generate.Request{Chunk: k, Want: map[string]int{corpus.NullPointer: n}})
		if err != nil {
			return out, err
		}
		out = append(out, cs...)
	}
	return out[:n], nil
}

// TestGroundedVisibility: hosts of any visibility enter a grounded pool
// unless PublicOnly, and each seed prefers a host of its own visibility:
// a private seed draws the private host, a public one the public host of
// the same shape. With PublicOnly the private seed takes a public host.
func TestGroundedVisibility(t *testing.T) {
	extra := strings.Repeat("        n = n * 2;\n", 5)
	body := "(String s) {\n        if (s == null) {\n            return 0;\n        }\n        int n = s.length();\n" + extra + "        return n;\n    }\n"
	dir := t.TempDir()
	src := "package p;\npublic class C {\n    public int pub" + body + "    private int hid" + body + "}\n"
	testcheck.Must(t, os.MkdirAll(filepath.Join(dir, "src/main/java/p"), 0o755))
	testcheck.Must(t, os.WriteFile(filepath.Join(dir, "src/main/java/p/C.java"), []byte(src), 0o644))
	spec := []CorpusSpec{{Path: dir, Repo: "o/r", Commit: strings.Repeat("0", 40)}}
	seedExtra := strings.Repeat("    n = n + 3;\n", 5)
	seedBody := "(String s) {\n    int n = s.length();\n" + seedExtra + "    return n;\n}"
	seedFixed := "(String s) {\n    if (s == null) {\n        return 0;\n    }\n    int n = s.length();\n" + seedExtra + "    return n;\n}"
	seeds := []corpus.Seed{
		{BugID: "Priv-1", Exception: corpus.NullPointer, BuggyMethod: "private int f" + seedBody, FixedMethod: "private int f" + seedFixed},
		{BugID: "Pub-1", Exception: corpus.NullPointer, BuggyMethod: "public int g" + seedBody, FixedMethod: "public int g" + seedFixed},
	}
	for _, c := range []struct {
		publicOnly bool
		want       map[string]string // seed → host method name
	}{
		{false, map[string]string{"Priv-1": "hid", "Pub-1": "pub"}},
		{true, map[string]string{"Priv-1": "pub"}}, // the only host left, drawn by the first seed
	} {
		g, err := New(Options{Corpora: spec, Seed: 1, PublicOnly: c.publicOnly, Ground: &Grounding{Reference: seeds}})
		testcheck.Must(t, err)
		cands, err := readCandidates(t, g, len(c.want))
		g.Close()
		testcheck.Must(t, err)
		got := map[string]string{}
		for _, cd := range cands {
			name := cd.Source.Method[strings.Index(cd.Source.Method, " int ")+5 : strings.Index(cd.Source.Method, "(")]
			got[cd.ExampleBugIDs[0]] = name
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("PublicOnly %v: hosts by seed %v, want %v", c.publicOnly, got, c.want)
		}
	}
}
