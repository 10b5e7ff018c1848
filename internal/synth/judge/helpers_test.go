package judge

import (
	"math"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/llm"
	_ "github.com/benchforge/benchforge/internal/llm/providers"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/judge/judgetest"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// fixedNow stamps records in tests.
func fixedNow() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// testPairs are hand-written pairs, one per scripted outcome; the script
// below recognises each by its method name.
var testPairs = []corpus.Pair{
	{PairID: "p-accept", ErrorType: corpus.NullPointer, Generator: "hand",
		BuggyMethod: "public int acceptNpe(String s) {\n    return s.length();\n}",
		FixedMethod: "public int acceptNpe(String s) {\n    if (s == null) {\n        return 0;\n    }\n    return s.length();\n}"},
	{PairID: "p-repair-ok", ErrorType: corpus.ArrayIndexOOB, Generator: "hand",
		BuggyMethod: "public int repairOk(int[] a, int i) {\n    return a[i];\n}",
		FixedMethod: "public int repairOk(int[] a, int i) {\n    if (i < 0) {\n        return -1;\n    }\n    return a[i];\n}"},
	{PairID: "p-repair-rejected", ErrorType: corpus.NumberFormat, Generator: "hand",
		BuggyMethod: "public int repairRejected(String s) {\n    return Integer.parseInt(s);\n}",
		FixedMethod: "public int repairRejected(String s) {\n    String t = s.trim();\n    return Integer.parseInt(t);\n}"},
	{PairID: "p-repair-gate", ErrorType: corpus.ClassCast, Generator: "hand",
		BuggyMethod: "public String repairGate(Object o) {\n    return (String) o;\n}",
		FixedMethod: "public String repairGate(Object o) {\n    Object x = o;\n    return (String) x;\n}"},
	{PairID: "p-stage1-reject", ErrorType: corpus.StringIndexOOB, Generator: "hand",
		BuggyMethod: "public String stageOneReject(String s) {\n    System.out.println(s);\n    return s;\n}",
		FixedMethod: "public String stageOneReject(String s) {\n    System.err.println(s);\n    return s;\n}"},
	{PairID: "p-unparseable", ErrorType: corpus.IllegalArgument, Generator: "hand",
		BuggyMethod: "public void garbled(int n) {\n    check(n);\n}",
		FixedMethod: "public void garbled(int n) {\n    if (n > 0) {\n        check(n);\n    }\n}"},
	{PairID: "p-ise", ErrorType: corpus.IllegalState, Generator: "hand",
		BuggyMethod: "public int iseLabel(java.util.Iterator<Integer> it) {\n    it.remove();\n    return 0;\n}",
		FixedMethod: "public int iseLabel(java.util.Iterator<Integer> it) {\n    if (!it.hasNext()) {\n        throw new IllegalStateException(\"empty\");\n    }\n    it.next();\n    it.remove();\n    return 0;\n}"},
	{PairID: "p-invalid", ErrorType: "IOException", Generator: "hand", BuggyMethod: "void a() {}", FixedMethod: "void a() { }"},
}

const (
	s1Yes = `{"patch_summary":"adds a guard","can_throw_T":true,"throwing_expression":"%s","line":2,"trigger":"%s","confidence":0.9}`
	s2No  = `{"still_reaches_T":false,"reason":"the guard returns first","confidence":0.8}`
	s2Yes = `{"still_reaches_T":true,"reason":"the guard does not cover the trigger","confidence":0.85}`
)

// script answers the judge and repair prompts for testPairs.
func script(r judgetest.Request) (string, int) {
	u := r.User
	rejudge := strings.Contains(u, "repairedGuard")
	has := func(name string) bool { return strings.Contains(u, name+"(") }
	s1 := func(expr, trig string) string {
		return strings.Replace(strings.Replace(s1Yes, "%s", expr, 1), "%s", trig, 1)
	}
	switch r.Kind {
	case judgetest.Stage1:
		return scriptStage1(has, s1)
	case judgetest.Stage2:
		return scriptStage2(has, rejudge)
	case judgetest.Repair:
		return scriptRepair(has)
	case judgetest.Whole:
		return scriptWhole(has)
	}
	return "unexpected prompt", 0
}

// scriptStage1 answers the Stage 1 prompts; has says whether the prompt
// shows a method, s1 fills a positive Stage 1 answer.
func scriptStage1(has func(string) bool, s1 func(expr, trig string) string) (string, int) {
	switch {
	case has("stageOneReject"):
		return "```json\n{\"patch_summary\":\"only changes the output stream\",\"can_throw_T\":false,\"confidence\":0.95}\n```", 0
	case has("garbled"):
		return "I think the method might be fine, hard to say.", 0
	case has("acceptNpe"):
		return s1("s.length()", "s == null"), 0
	case has("repairOk"):
		return s1("a[i]", "i == a.length"), 0
	case has("repairRejected"):
		return s1("Integer.parseInt(s)", "s = \\\"x\\\""), 0
	case has("repairGate"):
		return s1("(String) o", "o = Integer.valueOf(1)"), 0
	case has("iseLabel"):
		return "Sure! " + s1("it.remove()", "fresh iterator, next() not called") + "\nHope this helps.", 0
	}
	return "unexpected prompt", 0
}

// scriptStage2 answers the Stage 2 prompts, rejudge those of a repaired
// pair.
func scriptStage2(has func(string) bool, rejudge bool) (string, int) {
	switch {
	case has("acceptNpe"), has("iseLabel"):
		return s2No, 0
	case rejudge && has("repairOk"):
		return "still_reaches_T: no\nreason: the new bound check covers i == a.length\nconfidence: 0.7", 0
	default:
		return s2Yes, 0
	}
}

// scriptRepair answers the repair prompts.
func scriptRepair(has func(string) bool) (string, int) {
	switch {
	case has("repairOk"):
		return "```java\npublic int repairOk(int[] a, int i) {\n    boolean repairedGuard = i < 0 || i >= a.length;\n    if (repairedGuard) {\n        return -1;\n    }\n    return a[i];\n}\n```", 0
	case has("repairRejected"):
		return "```java\npublic int repairRejected(String s) {\n    String repairedGuard = s.strip();\n    return Integer.parseInt(repairedGuard);\n}\n```", 0
	case has("repairGate"):
		return "```java\npublic Object repairGate(Object o) {\n    return o;\n}\n```", 0
	}
	return "unexpected prompt", 0
}

// scriptWhole answers the whole-method prompts.
func scriptWhole(has func(string) bool) (string, int) {
	switch {
	case has("acceptNpe"), has("repairOk"):
		return `{"buggy_can_throw_T":true,"fixed_can_throw_T":false,"reason":"guarded","confidence":0.9}`, 0
	case has("garbled"):
		return "maybe", 0
	default:
		return `{"buggy_can_throw_T":true,"fixed_can_throw_T":true,"reason":"another path remains","confidence":0.6}`, 0
	}
}

// scripted serves script on a loopback httptest server and returns its
// base URL (ending in /v1).
func scripted(t testing.TB, s func(judgetest.Request) (string, int)) (*judgetest.Server, string) {
	t.Helper()
	srv := &judgetest.Server{Script: s}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return srv, hs.URL + "/v1"
}

// newSession returns a session over a private cache (or none).
func newSession(t *testing.T, cacheDir string) *llm.Session {
	t.Helper()
	opts := llm.SessionOptions{CacheDir: cacheDir, NoCache: cacheDir == "", Retry: llm.RetryPolicy{MaxAttempts: 1}}
	s, err := llm.NewSession(opts)
	testcheck.Must(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func newSessionB(b *testing.B) *llm.Session {
	s, err := llm.NewSession(llm.SessionOptions{NoCache: true, Retry: llm.RetryPolicy{MaxAttempts: 1}})
	testcheck.Must(b, err)
	b.Cleanup(func() { s.Close() })
	return s
}

func open(t *testing.T, s *llm.Session, spec string) llm.Model {
	t.Helper()
	m, err := s.Open(spec)
	testcheck.Must(t, err)
	return m
}

// checkNear reports what when got is not within 1e-12 of want (or NaN).
func checkNear(t testing.TB, what string, got, want float64) {
	t.Helper()
	if !(math.Abs(got-want) <= 1e-12) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}
