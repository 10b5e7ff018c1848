package grounded

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/benchforge/benchforge/internal/metrics"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// testSeeds are five NPE seeds (enough for the pair queue) and two CCE seeds
// (rotation only), of a few sizes.
func testSeeds() []corpus.Seed {
	npe := func(id, name string, extra int) corpus.Seed {
		var body strings.Builder
		for i := 0; i < extra; i++ {
			fmt.Fprintf(&body, "    count += key.length() * %d;\n", i+2)
		}
		buggy := fmt.Sprintf("public int %s(java.util.Map<String, String> table, String key) {\n    int count = 0;\n%s    String value = table.get(key);\n    return count + value.length();\n}\n", name, body.String())
		fixed := fmt.Sprintf("public int %s(java.util.Map<String, String> table, String key) {\n    int count = 0;\n%s    String value = table.get(key);\n    if (value == null) {\n        return count;\n    }\n    return count + value.length();\n}\n", name, body.String())
		return corpus.Seed{BugID: id, SourceBug: strings.Split(id, "#")[0], Benchmark: "test", Project: "P", Exception: corpus.NullPointer,
			BuggyMethod: buggy, FixedMethod: fixed}
	}
	cce := func(id string, extra int) corpus.Seed {
		var body strings.Builder
		for i := 0; i < extra; i++ {
			fmt.Fprintf(&body, "    total += %d;\n", i+1)
		}
		buggy := fmt.Sprintf("public long sizeOf(Object item) {\n    long total = 0;\n%s    return total + ((java.util.List<?>) item).size();\n}\n", body.String())
		fixed := fmt.Sprintf("public long sizeOf(Object item) {\n    long total = 0;\n%s    if (!(item instanceof java.util.List)) {\n        return total;\n    }\n    return total + ((java.util.List<?>) item).size();\n}\n", body.String())
		return corpus.Seed{BugID: id, SourceBug: strings.Split(id, "#")[0], Benchmark: "test", Project: "Q", Exception: corpus.ClassCast,
			BuggyMethod: buggy, FixedMethod: fixed}
	}
	return []corpus.Seed{
		npe("Lang-1#1", "width", 1), npe("Lang-2#1", "lengthOf", 3), npe("Lang-3#1", "measure", 5),
		npe("Lang-4#1", "span", 7), npe("Lang-5#1", "extent", 9),
		cce("Coll-1#1", 2), cce("Coll-2#1", 6),
	}
}

var targetRE = regexp.MustCompile(`about (\d+) logical lines`)

// scripted is an OpenAI-compatible chat-completions endpoint (the documented
// response shape: id, object "chat.completion", created, model,
// choices[{index, message{role, content}, finish_reason}], usage) whose
// answers are two fenced Java blocks: a method of the prompt's size target
// whose structure depends on the request number, and its null-guarded fix.
type scripted struct {
	hits       atomic.Int64
	completion int // completion_tokens reported per answer
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	n := s.hits.Add(1)
	var req struct {
		Messages []struct{ Role, Content string } `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	target := 6
	for _, m := range req.Messages {
		if g := targetRE.FindStringSubmatch(m.Content); g != nil {
			target, _ = strconv.Atoi(g[1])
		}
	}
	buggy, fixed := scriptedPair(int(n), target)
	answer := "```java\n" + buggy + "```\n\n```java\n" + fixed + "```\n"
	completion := s.completion
	if completion == 0 {
		completion = len(answer) / 4
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("x-request-id", fmt.Sprintf("req_%d", n))
	json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": 1700000000, "model": "scripted-1",
		"choices": []map[string]any{{"index": 0, "message": map[string]any{"role": "assistant", "content": answer}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 100, "completion_tokens": completion, "total_tokens": 100 + completion},
	})
}

// scriptedPair builds a method of about target statements from
// one-statement shapes picked by the digits of n (base 8), so answers differ
// in structure (not rename-blind clones, not near-duplicates); the buggy
// method dereferences a map lookup that the fixed one null-checks, with the
// same statement count.
func scriptedPair(n, target int) (string, string) {
	shapes := []string{
		"        acc += limits[%d] * %d;\n",
		"        acc = Math.max(acc, limits.length - %d) + %d;\n",
		"        acc ^= label.hashCode() >>> %d + %d;\n",
		"        acc -= label.indexOf(%d) / (%d + 1);\n",
		"        System.out.println(label.substring(0, Math.min(%d, label.length())) + %d);\n",
		"        acc = (acc << 1) | (limits.length > %d ? 1 : %d);\n",
		"        acc += registry.size() %% (%d + 2) - %d;\n",
		"        limits[acc & %d] = limits.length - %d;\n",
	}
	var body strings.Builder
	seq := n
	for k := 0; ; k++ {
		fmt.Fprintf(&body, shapes[seq%8], k%3, k+n)
		seq = seq/8 + 5*k + 3
		m, err := metrics.OfMethodSource([]byte("int f(String label, int[] limits) {\n" + body.String() + "        return 0;\n}\n"))
		if err != nil || m.Metrics.LLOC+2 >= target || k > 60 {
			break
		}
	}
	head := fmt.Sprintf("public int score%d(java.util.Map<String, String> registry, String label, int[] limits) {\n        int acc = %d;\n", n, n)
	tail := "        String entry = registry.get(label);\n        return entry.length() + acc;\n}\n"
	guard := "        String entry = registry.get(label);\n        return entry == null ? acc : entry.length() + acc;\n}\n"
	return head + body.String() + tail, head + body.String() + guard
}

func TestScriptedPairsAreDistinct(t *testing.T) {
	seen := map[string]bool{}
	for n := 1; n < 30; n++ {
		b, f := scriptedPair(n, 8)
		if seen[b] || b == f {
			t.Fatalf("answer %d repeats or has no fix", n)
		}
		seen[b] = true
		m, err := metrics.OfMethodSource([]byte(b))
		testcheck.Must(t, err)
		if m.Metrics.LLOC < 8 || m.Metrics.LLOC > 9 {
			t.Errorf("answer %d: LLOC %d for target 8", n, m.Metrics.LLOC)
		}
	}
}

func newScripted(t *testing.T, completion int) (*scripted, string) {
	s := &scripted{completion: completion}
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	return s, "openai:scripted@" + srv.URL + "/v1"
}
