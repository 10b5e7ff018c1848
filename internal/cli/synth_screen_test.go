package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

var screenTargetRE = regexp.MustCompile(`about (\d+) logical lines`)

// scriptedChat is an OpenAI-compatible /chat/completions endpoint in the
// documented response shape whose answers are two fenced Java blocks: a
// method of about scale × the prompt's size target statements (six without
// one), structured by the request number, and its null-checked fix.
type scriptedChat struct {
	scale float64
	hits  atomic.Int64
}

func (s *scriptedChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	n := int(s.hits.Add(1))
	var req struct {
		Messages []struct{ Content string } `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	target := 6
	for _, m := range req.Messages {
		if g := screenTargetRE.FindStringSubmatch(m.Content); g != nil {
			target, _ = strconv.Atoi(g[1])
		}
	}
	target = max(3, int(float64(target)*s.scale+0.5))
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
	for k := 0; k+3 < target || k == 0; k++ { // acc, e and return make 3 statements
		fmt.Fprintf(&body, shapes[seq%8], k%3, k+n)
		seq = seq/8 + 5*k + 3
	}
	head := fmt.Sprintf("public int score%d(java.util.Map<String, String> registry, String label, int[] limits) {\n    int acc = %d;\n", n, n)
	buggy := head + body.String() + "    String e = registry.get(label);\n    return e.length() + acc;\n}\n"
	fixed := head + body.String() + "    String e = registry.get(label);\n    return e == null ? acc : e.length() + acc;\n}\n"
	answer := "```java\n" + buggy + "```\n\n```java\n" + fixed + "```\n"
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"id": fmt.Sprint("chatcmpl-", n), "object": "chat.completion", "created": 1700000000, "model": "scripted",
		"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": answer}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 50, "completion_tokens": 80, "total_tokens": 130}})
}

func newScriptedChat(t *testing.T, scale float64) (*scriptedChat, string) {
	s := &scriptedChat{scale: scale}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, srv.URL + "/v1"
}

// writeNPESeeds writes n NPE seeds of growing size and one CCE seed.
func writeNPESeeds(t *testing.T, n int) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for i := 0; i < n; i++ {
		var body strings.Builder
		for k := 0; k < i; k++ {
			fmt.Fprintf(&body, "    n += key.charAt(%d) * %d;\n", k%5, k+3)
		}
		buggy := fmt.Sprintf("public int look%d(java.util.Map<String, String> m, String key) {\n    int n = 0;\n%s    String v = m.get(key);\n    return n + v.length();\n}\n", i, body.String())
		fixed := strings.Replace(buggy, "return n + v.length();", "return v == null ? n : n + v.length();", 1)
		enc.Encode(corpus.Seed{BugID: fmt.Sprintf("Lang-%d#1", i+1), SourceBug: fmt.Sprintf("Lang-%d", i+1), Benchmark: "defects4j", Project: "Lang",
			Exception: corpus.NullPointer, BuggyMethod: buggy, FixedMethod: fixed})
	}
	enc.Encode(corpus.Seed{BugID: "Coll-1#1", SourceBug: "Coll-1", Benchmark: "defects4j", Project: "Coll", Exception: corpus.ClassCast,
		BuggyMethod: "public int size(Object o) {\n    int k = 1;\n    k += 2;\n    return k + ((java.util.List<?>) o).size();\n}\n",
		FixedMethod: "public int size(Object o) {\n    int k = 1;\n    k += 2;\n    return o instanceof java.util.List ? k + ((java.util.List<?>) o).size() : k;\n}\n"})
	path := filepath.Join(t.TempDir(), "seeds.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSynthScreen(t *testing.T) {
	seeds := writeNPESeeds(t, 12)
	good, goodURL := newScriptedChat(t, 1)
	short, shortURL := newScriptedChat(t, 0.3)
	gens := "openai:short@" + shortURL + ",openai:good@" + goodURL
	out := t.TempDir()
	args := []string{"benchforge", "synth", "screen", "--generators", gens, "--seeds", seeds, "--type", "NullPointerException",
		"--per-quartile", "2", "--size-tolerance", "10", "--no-cache", "--out", out,
		// One call at a time: the scripted answers depend on the order the
		// server sees the calls, and the goldens hold the scores.
		"--workers", "1"}
	var stdout, stderr bytes.Buffer
	if code := Run(context.Background(), args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	text := stdout.String()
	lines := strings.Split(text, "\n")
	var goodLine, shortLine string
	for _, l := range lines {
		if strings.HasPrefix(l, "openai:good") {
			goodLine = l
		}
		if strings.HasPrefix(l, "openai:short") {
			shortLine = l
		}
	}
	if !strings.Contains(text, "NullPointerException screening: 12 seeds in 4 quartiles") || !strings.Contains(goodLine, " 1 ") || !strings.Contains(shortLine, " 2 ") {
		t.Errorf("output:\n%s", text)
	}
	// The servers' random ports are in the generator names.
	scrubs := []golden.Scrub{golden.Path(goodURL, "$GOOD"), golden.Path(shortURL, "$SHORT"), golden.Path(out, "$OUT"), golden.Durations}
	golden.CheckString(t, filepath.Join("testdata", "synth_screen.golden"), text, scrubs...)
	if _, err := os.Stat(filepath.Join(out, "manifest.json")); err != nil {
		t.Error(err)
	}
	hits := good.hits.Load() + short.hits.Load()
	if hits < 16 {
		t.Errorf("%d model calls for 2 generators × 4 quartiles × 2 pairs", hits)
	}
	stdout.Reset()
	if code := Run(context.Background(), append(args, "--json"), &stdout, &stderr); code != 0 {
		t.Fatalf("rerun exit %d: %s", code, stderr.String())
	}
	golden.CheckString(t, filepath.Join("testdata", "synth_screen_json.golden"), stdout.String(), scrubs...)
	var got screenJSON
	if err := output.DecodeSummary(bytes.NewReader(stdout.Bytes()), "synth_screen", &got); err != nil {
		t.Fatalf("%v\n%s", err, stdout.String())
	}
	if len(got.Report.Rows) != 2 || got.Report.Rows[0].Generator != "openai:good@"+goodURL || got.Manifest.Calls != 0 || good.hits.Load()+short.hits.Load() != hits {
		t.Errorf("rerun: rows %+v, %d calls, %d new hits", got.Report.Rows, got.Manifest.Calls, good.hits.Load()+short.hits.Load()-hits)
	}
}

func TestSynthScreenErrors(t *testing.T) {
	seeds := writeNPESeeds(t, 3)
	for _, tt := range []struct {
		args []string
		code int
	}{
		{[]string{"--seeds", seeds}, exitUsage},
		{[]string{"--generators", "openai:x@http://127.0.0.1:1/v1"}, exitUsage},
		{[]string{"--generators", "openai:x@http://127.0.0.1:1/v1", "--seeds", seeds, "--type", "Oops"}, exitUsage},
		{[]string{"--generators", "openai:x@http://127.0.0.1:1/v1", "--seeds", seeds, "--per-quartile", "0"}, exitUsage},
		{[]string{"--generators", "openai:x@http://127.0.0.1:1/v1", "--seeds", seeds, "--no-cache"}, exitInput}, // 3 seeds: no quartiles
	} {
		var stdout, stderr bytes.Buffer
		if code := Run(context.Background(), append([]string{"benchforge", "synth", "screen"}, tt.args...), &stdout, &stderr); code != tt.code {
			t.Errorf("%v: exit %d, want %d (%s)", tt.args, code, tt.code, stderr.String())
		}
	}
}
