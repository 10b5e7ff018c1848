package seeds

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/llm"
	_ "github.com/benchforge/benchforge/internal/llm/providers"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
)

func javaClass(members string) string {
	return "package p;\n\nimport java.util.List;\n\nclass A {\n" + members + "\n}\n"
}

func TestExtractMethodPairs(t *testing.T) {
	const m = "    int f(int x) {\n        return x;\n    }\n"
	const g = "    A() {\n        this.y = 1;\n    }\n    int y;\n"
	tests := []struct {
		name         string
		path         string
		buggy, fixed string
		keys         []string // changed methods, or
		reason       string   // the exclusion
	}{
		{"body", "A.java", javaClass(m), javaClass(strings.Replace(m, "return x;", "return x + 1;", 1)), []string{"A.f(int)"}, ""},
		{"constructor", "A.java", javaClass(g), javaClass(strings.Replace(g, "= 1", "= 2", 1)), []string{"A.A()"}, ""},
		{"anonymous class inside the method belongs to it", "A.java",
			javaClass("    Runnable r() {\n        return new Runnable() { public void run() { go(1); } };\n    }\n"),
			javaClass("    Runnable r() {\n        return new Runnable() { public void run() { go(2); } };\n    }\n"),
			[]string{"A.r()"}, ""},
		{"import change tolerated", "A.java", javaClass(m),
			strings.Replace(javaClass(strings.Replace(m, "return x;", "return -x;", 1)), "import java.util.List;", "import java.util.Map;", 1),
			[]string{"A.f(int)"}, ""},
		{"comment-only body change", "A.java", javaClass(m), javaClass(strings.Replace(m, "return x;", "return x; // ok", 1)), nil, "documentation-only change: A.f(int)"},
		{"javadoc-only change", "A.java", javaClass("    /** a */\n" + m), javaClass("    /** b */\n" + m), nil, "documentation-only"},
		{"field", "A.java", javaClass(m + "    int z;\n"), javaClass(m + "    int z = 3;\n"), nil, "change outside method bodies"},
		{"added method", "A.java", javaClass(m), javaClass(m + "    void h() {}\n"), nil, "fixed only: A.h()"},
		{"parameter type", "A.java", javaClass(m), javaClass(strings.Replace(m, "int x", "long x", 1)), nil, "buggy only: A.f(int); fixed only: A.f(long)"},
		{"modifier only", "A.java", javaClass(m), javaClass("    static" + strings.TrimPrefix(m, "   ")), nil, "signature-only change of A.f(int)"},
		{"signature and body", "A.java", javaClass(m), javaClass(strings.Replace(strings.Replace(m, "int f", "long f", 1), "return x;", "return 1;", 1)), nil, "signature change of A.f(int)"},
		{"non-Java", "a.txt", "a", "b", nil, "non-Java source change in a.txt"},
		{"unchanged", "A.java", javaClass(m), javaClass(m), nil, "documentation-only change: the source files"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pairs, ex := ExtractMethodPairs([]FilePair{{Path: tc.path, Buggy: []byte(tc.buggy), Fixed: []byte(tc.fixed)}})
			if tc.reason != "" {
				if ex == nil || !strings.Contains(ex.Reason, tc.reason) {
					t.Fatalf("got %v, %v; want exclusion containing %q", pairs, ex, tc.reason)
				}
				return
			}
			if ex != nil {
				t.Fatalf("unexpected exclusion: %s", ex.Reason)
			}
			var keys []string
			for _, p := range pairs {
				keys = append(keys, p.Key)
			}
			if !cmp.Equal(keys, tc.keys) {
				t.Errorf("keys = %v, want %v", keys, tc.keys)
			}
		})
	}
}

func TestMethodTextDedent(t *testing.T) {
	src := javaClass("    int f(int x) {\n        if (x > 0) {\n            return x;\n        }\n        return 0;\n    }\n")
	pairs, ex := ExtractMethodPairs([]FilePair{{Path: "A.java", Buggy: []byte(src), Fixed: []byte(strings.Replace(src, "return 0;", "return -1;", 1))}})
	if ex != nil {
		t.Fatal(ex)
	}
	want := "int f(int x) {\n    if (x > 0) {\n        return x;\n    }\n    return 0;\n}"
	if d := cmp.Diff(want, pairs[0].Buggy); d != "" {
		t.Errorf("buggy text (-want +got):\n%s", d)
	}
	if pairs[0].BuggySpan != [2]int{6, 11} {
		t.Errorf("span = %v", pairs[0].BuggySpan)
	}
}

func TestCheckF4(t *testing.T) {
	const plain = "void f(int a) {\n  use(a);\n}"
	const guarded = "void f(int a) {\n  if (a < 0) {\n    throw new IllegalArgumentException(\"neg\");\n  }\n  use(a);\n}"
	const guarded2 = "void f(int a) {\n  if (a < 0) {\n    throw new IllegalArgumentException(\"negative: \" + a);\n  }\n  use(a);\n}"
	const factory = "void f(int a) {\n  if (a < 0) {\n    throw MathRuntimeException.createIllegalArgumentException(\"neg\");\n  }\n  use(a);\n}"
	const sub = "void f(int a) {\n  if (a < 0) {\n    throw new NumberFormatException(\"neg\");\n  }\n  use(a);\n}"
	const ise = "void f(int a) {\n  if (a < 0) {\n    throw new IllegalStateException(\"neg\");\n  }\n  use(a);\n}"
	tests := []struct {
		name         string
		typ          Type
		buggy, fixed string
		here         bool
		keep         bool
		reason       string
	}{
		{"adds a missing throw", IAE, plain, guarded, false, false, "adds a missing throw"},
		{"adds a throw but the trace shows the method throwing", IAE, plain, guarded, true, true, "restructures an unintended throw"},
		{"removes the unintended throw", IAE, guarded, plain, false, true, "removes or changes"},
		{"changes a throw", IAE, guarded, guarded2, false, true, "removes or changes"},
		{"no throw touched", IAE, plain, strings.Replace(plain, "use(a)", "use(Math.abs(a))", 1), false, true, "adds no throw"},
		{"factory throw added", IAE, plain, factory, false, false, "adds a missing throw"},
		{"NumberFormatException is not an IAE throw here", IAE, plain, sub, false, true, "adds no throw"},
		{"ISE added", ISE, plain, ise, false, false, "adds a missing throw of IllegalStateException"},
		{"comment mentioning the type does not count", IAE, plain, strings.Replace(plain, "use(a);", "use(a); // IllegalArgumentException", 1), false, true, "adds no throw"},
		{"NPE is not filtered", NPE, plain, guarded, false, true, "only to IAE and ISE"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := CheckF4(tc.typ, tc.buggy, tc.fixed, tc.here)
			if d.Keep != tc.keep || !strings.Contains(d.Reason, tc.reason) {
				t.Errorf("got keep=%t %q; want keep=%t, reason containing %q", d.Keep, d.Reason, tc.keep, tc.reason)
			}
		})
	}
}

func TestThrownIn(t *testing.T) {
	fs := []Failure{{Exception: "java.lang.IllegalArgumentException", TopFrame: "org.x.LocaleUtils.toLocale(LocaleUtils.java:99)"},
		{Exception: "java.lang.NullPointerException", TopFrame: "org.x.Foo.<init>(Foo.java:10)"}}
	tests := []struct {
		t      Type
		file   string
		method string
		span   [2]int
		want   bool
	}{
		{IAE, "LocaleUtils.java", "toLocale", [2]int{90, 130}, true},
		{IAE, "LocaleUtils.java", "toLocale", [2]int{100, 130}, false},
		{IAE, "LocaleUtils.java", "other", [2]int{90, 130}, false},
		{IAE, "Other.java", "toLocale", [2]int{90, 130}, false},
		{ISE, "LocaleUtils.java", "toLocale", [2]int{90, 130}, false},
		{NPE, "Foo.java", "<init>", [2]int{5, 12}, true},
	}
	for _, tc := range tests {
		if got := ThrownIn(fs, tc.t, false, tc.file, tc.method, tc.span); got != tc.want {
			t.Errorf("ThrownIn(%s %s.%s %v) = %t, want %t", tc.t, tc.file, tc.method, tc.span, got, tc.want)
		}
	}
}

func seedWithLLOC(id, src, exc string, lloc int) corpus.Seed {
	var b strings.Builder
	b.WriteString("void m() {\n")
	for i := 0; i < lloc; i++ {
		fmt.Fprintf(&b, "  x(%d);\n", i)
	}
	b.WriteString("}")
	return corpus.Seed{BugID: id, SourceBug: src, Benchmark: "defects4j", Project: strings.Split(src, "-")[0], Exception: exc, BuggyMethod: b.String()}
}

func TestReferenceSetAndDistribution(t *testing.T) {
	// NPE LLOC 1..8 and 40: Q1 = 3, Q3 = 7, fence 13 → the 40 is out.
	var seeds []corpus.Seed
	for i := 1; i <= 8; i++ {
		seeds = append(seeds, seedWithLLOC(fmt.Sprintf("Lang-%d", i), fmt.Sprintf("Lang-%d", i), corpus.NullPointer, i))
	}
	seeds = append(seeds, seedWithLLOC("Math-1#1", "Math-1", corpus.NullPointer, 40))
	seeds = append(seeds, seedWithLLOC("Math-1#2", "Math-1", corpus.IllegalState, 90))
	ref, err := ReferenceSet(seeds)
	testcheck.Must(t, err)
	if out := notInReference(ref); !cmp.Equal(out, []string{"Math-1#1"}) {
		t.Errorf("excluded = %v, want [Math-1#1] (a lone ISE seed is its own type's fence)", out)
	}
	testcheck.Eq(t, "NPE fence", ref[0].Threshold, 13)
	checkDistribution(t, seeds, ref)
	unlisted, stale := CheckReference(seeds[:2], append(ref[1:2], ReferenceEntry{BugID: "Gone-1"}))
	if !cmp.Equal(unlisted, []string{"Lang-1"}) || !cmp.Equal(stale, []string{"Gone-1"}) {
		t.Errorf("CheckReference = %v, %v", unlisted, stale)
	}
	_, err = Distribute([]corpus.Seed{{BugID: "x", Exception: "Boom"}}, nil)
	testcheck.ErrIs(t, "bad exception", err, errs.ErrInput)
}

// notInReference lists the bug ids the reference set leaves out.
func notInReference(ref []ReferenceEntry) []string {
	var out []string
	for _, r := range ref {
		if !r.InReference {
			out = append(out, r.BugID)
		}
	}
	return out
}

// checkDistribution checks the NPE row and the totals of the
// distribution of TestReferenceSetAndDistribution's seeds.
func checkDistribution(t *testing.T, seeds []corpus.Seed, ref []ReferenceEntry) {
	t.Helper()
	d, err := Distribute(seeds, ref)
	testcheck.Must(t, err)
	// The wanted NPE row is the computed one with the checked fields set.
	npe := d.Types[0]
	want := npe
	want.Type, want.Pairs, want.Bugs, want.Projects, want.LLOCMedian, want.Reference, want.Excluded = NPE, 9, 9, 2, 5, 8, 1
	if diff := cmp.Diff(want, npe); diff != "" {
		t.Errorf("NPE row (-want +got):\n%s", diff)
	}
	testcheck.Eq(t, "total seeds", d.Total.Total, 10)
	testcheck.Eq(t, "total ISE seeds", d.Total.ByType[ISE], 1)
	testcheck.Eq(t, "ISE bugs", d.Types[6].Bugs, 1)
}

func TestParseValidation(t *testing.T) {
	tests := []struct {
		in      string
		want    Validation
		wantErr bool
	}{
		{`{"causes":true,"fix_addresses":true,"confidence":0.9,"reason":"r"}`, Validation{true, 0.9, "r"}, false},
		{"```json\n{\"causes\":true,\"fix_addresses\":false,\"confidence\":0.8,\"reason\":\"\"}\n```", Validation{false, 0.8, ""}, false},
		{`{"causes":true,"confidence":0.9}`, Validation{}, true},
		{`{"causes":true,"fix_addresses":true,"confidence":7}`, Validation{}, true},
		{`Sure! It is valid.`, Validation{}, true},
	}
	for _, tc := range tests {
		got, err := parseValidation(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("parseValidation(%q) = %+v, %v", tc.in, got, err)
		}
	}
}

// TestLLMValidatorF5 runs F5 against a loopback OpenAI-compatible server
// whose answer depends on the labelled exception.
func TestLLMValidatorF5(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		conf := 0.9
		if strings.Contains(req.Messages[len(req.Messages)-1].Content, "Labelled exception: IllegalStateException") {
			conf = 0.5
		}
		ans, _ := json.Marshal(map[string]any{"causes": true, "fix_addresses": true, "confidence": conf, "reason": "guard"})
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "created": 1, "model": "judge",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": string(ans)}}},
			"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
	}))
	defer srv.Close()
	m, err := llm.Open("openai:judge@"+srv.URL+"/v1", llm.Options{})
	testcheck.Must(t, err)
	d4j, repos := buildDemo(t)
	bugs, _, _ := LoadDefects4J(d4j, nil)
	finder := &RepoFinder{Dir: repos}
	defer finder.Close()
	logs, err := Extract(context.Background(), []BugInput{bugs[0]}, ExtractOptions{Repos: finder, Validator: LLMValidator{Model: m}}, &memSink{})
	testcheck.Must(t, err)
	testcheck.Eq(t, "NPE kept", logs[0].Kept, true)
	testcheck.Contains(t, "NPE reason", logs[0].Methods[0].Reason, "validator accepts (confidence 0.90)")
	in := bugs[0]
	in.Exception = ISE
	logs, err = Extract(context.Background(), []BugInput{in}, ExtractOptions{Repos: finder, Validator: LLMValidator{Model: m}}, &memSink{})
	testcheck.Must(t, err)
	testcheck.Eq(t, "ISE low confidence: kept", logs[0].Kept, false)
	testcheck.Eq(t, "ISE low confidence: stage", logs[0].Stage, StageF5)
	testcheck.Contains(t, "ISE low confidence: reason", logs[0].Reason, "confidence 0.50 < 0.70")
}

func FuzzExtractMethodPairs(f *testing.F) {
	f.Add(javaClass("int f(){return 1;}"), javaClass("int f(){return 2;}"))
	f.Add(javaClass("A(){}\nint x;"), javaClass("A(){ x = 1; }\nint x;"))
	f.Add("class {", "class { void m( }")
	f.Fuzz(func(t *testing.T, buggy, fixed string) {
		pairs, ex := ExtractMethodPairs([]FilePair{{Path: "A.java", Buggy: []byte(buggy), Fixed: []byte(fixed)}})
		if (ex == nil) == (len(pairs) == 0) {
			t.Fatalf("want exactly one of pairs (%d) and exclusion (%v)", len(pairs), ex)
		}
		for _, p := range pairs {
			CheckF4(IAE, p.Buggy, p.Fixed, false)
		}
	})
}

func FuzzParseValidation(f *testing.F) {
	f.Add(`{"causes":true,"fix_addresses":true,"confidence":0.9,"reason":"r"}`)
	f.Add("```json\n{}\n```")
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parseValidation(s)
		if err == nil && (v.Confidence < 0 || v.Confidence > 1) {
			t.Fatalf("confidence %v accepted", v.Confidence)
		}
	})
}
