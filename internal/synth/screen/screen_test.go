package screen

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
	_ "github.com/benchforge/benchforge/internal/llm/providers"
	"github.com/benchforge/benchforge/internal/metrics"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/gate"
	"github.com/benchforge/benchforge/internal/synth/generate"
	"github.com/benchforge/benchforge/internal/synth/generate/grounded"
	"github.com/benchforge/benchforge/internal/synth/generate/llmgen"
)

// npeSeeds returns n NPE seeds of growing size (LLOC 3 + i) plus one huge
// upper-tail seed and one that does not parse.
func npeSeeds(n int) []corpus.Seed {
	var out []corpus.Seed
	mk := func(id string, extra int) corpus.Seed {
		var b strings.Builder
		for i := 0; i < extra; i++ {
			fmt.Fprintf(&b, "    n += key.charAt(%d) * %d;\n", i%5, i+3)
		}
		buggy := fmt.Sprintf("public int look%d(java.util.Map<String, String> m, String key) {\n    int n = 0;\n%s    String v = m.get(key);\n    return n + v.length();\n}\n", extra, b.String())
		fixed := strings.Replace(buggy, "return n + v.length();", "return v == null ? n : n + v.length();", 1)
		return corpus.Seed{BugID: id, SourceBug: id, Exception: corpus.NullPointer, BuggyMethod: buggy, FixedMethod: fixed}
	}
	for i := 0; i < n; i++ {
		out = append(out, mk(fmt.Sprintf("B-%02d", i), i))
	}
	out = append(out, mk("B-huge", 200))
	out = append(out, corpus.Seed{BugID: "B-broken", SourceBug: "B-broken", Exception: corpus.NullPointer, BuggyMethod: "int f( {", FixedMethod: "int f() { return 0; }"})
	out = append(out, corpus.Seed{BugID: "C-1", SourceBug: "C-1", Exception: corpus.ClassCast, BuggyMethod: "int g() { return 1; }", FixedMethod: "int g() { return 2; }"})
	return out
}

var targetRE = regexp.MustCompile(`about (\d+) logical lines`)

// server answers chat completions (OpenAI's documented shape) with a pair
// of about scale × the prompt's size target statements.
type server struct {
	scale float64
	hits  atomic.Int64
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(s.hits.Add(1))
	var req struct {
		Messages []struct{ Content string } `json:"messages"`
	}
	json.NewDecoder(r.Body).Decode(&req)
	target := 6
	for _, m := range req.Messages {
		if g := targetRE.FindStringSubmatch(m.Content); g != nil {
			target, _ = strconv.Atoi(g[1])
		}
	}
	target = max(3, int(math.Round(float64(target)*s.scale)))
	shapes := []string{
		"    acc += limits[%d] * %d;\n",
		"    acc = Math.max(acc, limits.length - %d) + %d;\n",
		"    acc ^= label.hashCode() >>> %d + %d;\n",
		"    acc -= label.indexOf(%d) / (%d + 1);\n",
		"    System.out.println(label.substring(0, Math.min(%d, label.length())) + %d);\n",
		"    acc = (acc << 1) | (limits.length > %d ? 1 : %d);\n",
		"    acc += registry.size() %% (%d + 2) - %d;\n",
		"    limits[acc & %d] = limits.length - %d;\n",
	}
	var body strings.Builder
	seq := n
	for k := 0; ; k++ {
		fmt.Fprintf(&body, shapes[seq%8], k%3, k+n)
		seq = seq/8 + 5*k + 3
		m, err := metrics.OfMethodSource([]byte("int f() {\n" + body.String() + "    return 0;\n}\n"))
		if err != nil || m.Metrics.LLOC+2 >= target || k > 80 {
			break
		}
	}
	head := fmt.Sprintf("public int score%d(java.util.Map<String, String> registry, String label, int[] limits) {\n    int acc = %d;\n", n, n)
	buggy := head + body.String() + "    String e = registry.get(label);\n    return e.length() + acc;\n}\n"
	fixed := head + body.String() + "    String e = registry.get(label);\n    return e == null ? acc : e.length() + acc;\n}\n"
	answer := "```java\n" + buggy + "```\n```java\n" + fixed + "```\n"
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"id": fmt.Sprint("c", n), "object": "chat.completion", "created": 1, "model": "s",
		"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": answer}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}})
}

func contender(t *testing.T, name string, scale float64) (Contender, *server) {
	s := &server{scale: scale}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	sess, err := llm.NewSession(llm.SessionOptions{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	m, err := sess.Open("openai:" + name + "@" + srv.URL + "/v1")
	if err != nil {
		t.Fatal(err)
	}
	return Contender{Name: name, New: func(dir string) (generate.Generator, error) {
		return grounded.New(m, grounded.Options{Seed: 1}, llmgen.Options{Dir: dir, Workers: 2, MaxTokens: 100})
	}}, s
}

func TestQuartiles(t *testing.T) {
	qs, groups, excl, err := Quartiles(npeSeeds(12), corpus.NullPointer)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 4 || len(excl) != 2 {
		t.Fatalf("%d quartiles, exclusions %v", len(qs), excl)
	}
	for q, g := range groups {
		if len(g) != 3 || len(qs[q].SeedIDs) != 3 {
			t.Errorf("quartile %d has %d seeds", q+1, len(g))
		}
		if q > 0 && qs[q].LLOCMin < qs[q-1].LLOCMax {
			t.Errorf("quartile %d starts at LLOC %d below quartile %d's max %d", q+1, qs[q].LLOCMin, q, qs[q-1].LLOCMax)
		}
	}
	reasons := excl[0].Reason + excl[1].Reason
	if !strings.Contains(reasons, "upper tail") || !strings.Contains(reasons, "does not parse") {
		t.Errorf("exclusions: %v", excl)
	}
	if _, _, _, err := Quartiles(npeSeeds(12), corpus.ClassCast); !errors.Is(err, errs.ErrInput) {
		t.Errorf("one CCE seed: %v", err)
	}
}

// TestRunRanksByAlignment: a generator whose methods follow the size
// targets ranks above one whose methods are a third of the size; every
// quartile is compared on PerQuartile pairs; a rerun makes no model call.
func TestRunRanksByAlignment(t *testing.T) {
	seeds := npeSeeds(16)
	short, ss := contender(t, "short", 0.3)
	good, gs := contender(t, "good", 1)
	gopts := gate.DefaultOptions()
	gopts.SizeTolerance = 10 // let the short answers through: they are to be measured, not dropped
	dir := t.TempDir()
	opts := Options{Type: corpus.NullPointer, PerQuartile: 3, Dir: dir, Gate: gopts}
	rep, err := Run(context.Background(), []Contender{short, good}, seeds, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 2 || rep.Rows[0].Generator != "good" || rep.Rows[0].Rank != 1 || rep.Rows[1].Rank != 2 {
		t.Fatalf("ranking: %+v", rep.Rows)
	}
	for _, r := range rep.Rows {
		sum := 0.0
		for _, c := range r.Cells {
			if c.Compared != 3 || len(c.Deltas) != len(Metrics) || c.Score < 0 || c.Score > 1 {
				t.Errorf("%s q%d: %+v", r.Generator, c.Q, c)
			}
			sum += c.Score
		}
		if math.Abs(sum/4-r.Mean) > 1e-12 {
			t.Errorf("%s: mean %g, quartile scores sum %g", r.Generator, r.Mean, sum)
		}
		t.Logf("%s (%s): mean %.3f %+v", r.Generator, r.ID, r.Mean, r.Cells)
	}
	if !(rep.Rows[1].Mean > rep.Rows[0].Mean+0.1) {
		t.Errorf("short generator's mean %.3f not clearly above good's %.3f", rep.Rows[1].Mean, rep.Rows[0].Mean)
	}
	hits := ss.hits.Load() + gs.hits.Load()
	rep2, err := Run(context.Background(), []Contender{short, good}, seeds, opts)
	if err != nil {
		t.Fatal(err)
	}
	if ss.hits.Load()+gs.hits.Load() != hits || rep2.Rows[0].Mean != rep.Rows[0].Mean {
		t.Errorf("rerun made %d new calls", ss.hits.Load()+gs.hits.Load()-hits)
	}
}

func TestRunErrors(t *testing.T) {
	c, _ := contender(t, "x", 1)
	for name, o := range map[string]Options{
		"bad type": {Type: "Oops", PerQuartile: 1, Dir: t.TempDir()},
		"no count": {Type: corpus.NullPointer, Dir: t.TempDir()},
		"no dir":   {Type: corpus.NullPointer, PerQuartile: 1},
	} {
		if _, err := Run(context.Background(), []Contender{c}, npeSeeds(8), o); !errors.Is(err, errs.ErrUsage) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := Run(context.Background(), []Contender{c, c}, npeSeeds(8), Options{Type: corpus.NullPointer, PerQuartile: 1, Dir: t.TempDir()}); !errors.Is(err, errs.ErrUsage) {
		t.Errorf("duplicate generator: %v", err)
	}
}
