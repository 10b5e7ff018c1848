package cli

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/output"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/judge/judgetest"
)

var validatePairs = []corpus.Pair{
	{PairID: "v-npe", ErrorType: corpus.NullPointer, Generator: "hand",
		BuggyMethod: "public int len(String s) {\n    return s.length();\n}",
		FixedMethod: "public int len(String s) {\n    if (s == null) {\n        return 0;\n    }\n    return s.length();\n}"},
	{PairID: "v-ise", ErrorType: corpus.IllegalState, Generator: "hand",
		BuggyMethod: "public void drop(java.util.Iterator<String> it) {\n    it.remove();\n}",
		FixedMethod: "public void drop(java.util.Iterator<String> it) {\n    if (it.hasNext()) {\n        it.next();\n        it.remove();\n    }\n}"},
	{PairID: "v-aioobe", ErrorType: corpus.ArrayIndexOOB, Generator: "hand",
		BuggyMethod: "public int at(int[] a, int i) {\n    return a[i];\n}",
		FixedMethod: "public int at(int[] a, int i) {\n    if (i < 0) {\n        return 0;\n    }\n    return a[i];\n}"},
	{PairID: "v-nfe", ErrorType: corpus.NumberFormat, Generator: "hand",
		BuggyMethod: "public int num(String s) {\n    return Integer.parseInt(s);\n}",
		FixedMethod: "public int num(String s) {\n    return Integer.parseInt(s.trim());\n}"},
}

// validateScript accepts len and drop, repairs at (the repaired method
// holds "bound"), rejects num at Stage 1; the model named "strict" also
// rejects drop at Stage 1.
func validateScript(r judgetest.Request) (string, int) {
	has := func(s string) bool { return strings.Contains(r.User, s) }
	switch r.Kind {
	case judgetest.Stage1:
		if has("num(") || has("drop(") && r.Model == "strict" {
			return `{"patch_summary":"no patch-local risk","can_throw_T":false,"confidence":0.9}`, 0
		}
		return `{"patch_summary":"adds a guard","can_throw_T":true,"throwing_expression":"x","line":2,"trigger":"t","confidence":0.9}`, 0
	case judgetest.Stage2:
		if has("at(") && !has("bound") {
			return `{"still_reaches_T":true,"reason":"i == a.length still fails","confidence":0.9}`, 0
		}
		return `{"still_reaches_T":false,"reason":"guarded","confidence":0.75}`, 0
	case judgetest.Repair:
		return "```java\npublic int at(int[] a, int i) {\n    boolean bound = i >= 0 && i < a.length;\n    return bound ? a[i] : 0;\n}\n```", 0
	}
	return "?", 0
}

func TestSynthValidateAndAgree(t *testing.T) {
	srv := &judgetest.Server{Script: validateScript}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	cand := writeCorpus(t, validatePairs)
	cache := t.TempDir()
	root := t.TempDir()
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := Run(context.Background(), append([]string{"benchforge", "synth"}, args...), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	validate := func(model, out string, extra ...string) (int, string, string) {
		args := []string{"validate", "--candidates", cand, "--judge", "openai:" + model + "@" + hs.URL + "/v1",
			"--out", filepath.Join(root, out), "--cache-dir", cache, "--workers", "2"}
		return run(append(args, extra...)...)
	}
	code, out, errOut := validate("lenient", "a", "--repair-with", "openai:fixer@"+hs.URL+"/v1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	t.Logf("validate:\n%s", out)
	// The loopback server's URL (a random port) and the temporary
	// directories vary; nothing else does (the judge answers are scripted).
	scrubs := []golden.Scrub{golden.Path(hs.URL, "$SERVER"), golden.Path(root, "$OUT"), golden.Path(cache, "$CACHE"), golden.Durations}
	golden.CheckString(t, filepath.Join("testdata", "synth_validate.golden"), out, scrubs...)
	for _, want := range []string{"4 pairs, 4 judged now", "NullPointerException", "ArrayIndexOutOfBoundsException", "Total", "stage1_reject",
		"ise_low_confidence 1", "core 3"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	core, err := os.ReadFile(filepath.Join(root, "a", "core.jsonl"))
	if err != nil || !strings.Contains(string(core), `"repaired":true`) || !strings.Contains(string(core), "bound") {
		t.Errorf("core.jsonl lacks the repaired pair: %v\n%s", err, core)
	}
	if _, err := os.Stat(filepath.Join(root, "a", "manifest.json")); err != nil {
		t.Error(err)
	}

	// Rerun: resumed, nothing judged; --json.
	code, out, errOut = validate("lenient", "a", "--repair-with", "openai:fixer@"+hs.URL+"/v1", "--json")
	if code != 0 {
		t.Fatalf("rerun exit %d: %s", code, errOut)
	}
	var sum struct {
		JudgedNow int `json:"judged_now"`
		Resumed   int `json:"resumed"`
		Core      int `json:"core"`
		Manifest  struct {
			Calls int `json:"calls"`
		} `json:"manifest"`
	}
	if err := output.DecodeSummary(strings.NewReader(out), "synth_validate", &sum); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if sum.JudgedNow != 0 || sum.Resumed != 4 || sum.Core != 3 || sum.Manifest.Calls != 0 {
		t.Errorf("rerun summary %+v", sum)
	}

	// A repeated run into another directory is served from the cache; a
	// stricter judge; the whole-method rubric.
	if code, _, errOut = validate("lenient", "a2", "--repair-with", "openai:fixer@"+hs.URL+"/v1"); code != 0 {
		t.Fatalf("repeat exit %d: %s", code, errOut)
	}
	// --json from one worker (its progress lines in order), answers from
	// the cache.
	code, out, errOut = validate("lenient", "g", "--repair-with", "openai:fixer@"+hs.URL+"/v1", "--json", "--workers", "1")
	if code != 0 {
		t.Fatalf("json exit %d: %s", code, errOut)
	}
	golden.CheckString(t, filepath.Join("testdata", "synth_validate_json.golden"), out, scrubs...)
	if code, _, errOut = validate("strict", "b"); code != 0 {
		t.Fatalf("strict exit %d: %s", code, errOut)
	}
	code, _, errOut = validate("lenient", "a", "--rubric", "whole-method")
	if code != 2 || !strings.Contains(errOut, `rubric: "patch-anchored" → "whole-method"`) {
		t.Errorf("whole-method into a patch-anchored directory: exit %d: %s", code, errOut)
	}
	// Any other setting that decides a judgement is refused by name, never
	// resumed under the new setting.
	code, _, errOut = validate("lenient", "a", "--repair-with", "openai:fixer@"+hs.URL+"/v1", "--max-tokens", "2048")
	if code != 2 || !strings.Contains(errOut, "max_tokens: 1024 → 2048") || !strings.Contains(errOut, "another --out") {
		t.Errorf("--max-tokens 2048 into a 1024 pass: exit %d: %s", code, errOut)
	}
	code, _, errOut = validate("lenient", "a")
	if code != 2 || !strings.Contains(errOut, "repair_with: ") {
		t.Errorf("no --repair-with into a pass with one: exit %d: %s", code, errOut)
	}
	// --recheck all judges every pair again; the old records stay.
	code, out, errOut = validate("lenient", "a", "--repair-with", "openai:fixer@"+hs.URL+"/v1", "--recheck", "all", "--json")
	if code != 0 || !strings.Contains(out, `"judged_now":4`) || !strings.Contains(out, `"rechecked":4`) {
		t.Errorf("--recheck all: exit %d: %s\n%s", code, errOut, out)
	}
	if lines, err := os.ReadFile(filepath.Join(root, "a", "judgements.jsonl")); err != nil || strings.Count(string(lines), "\n") != 8 {
		t.Errorf("judgements.jsonl after --recheck all: %d lines, %v; want 8 (old kept)", strings.Count(string(lines), "\n"), err)
	}

	j := func(d string) string { return filepath.Join(root, d, "judgements.jsonl") }
	code, out, errOut = run("agree", "--judgements", j("a"), j("b"), j("a2"))
	if code != 0 {
		t.Fatalf("agree exit %d: %s", code, errOut)
	}
	t.Logf("agree:\n%s", out)
	for _, want := range []string{"openai:lenient@", "run 1 (a/judgements.jsonl)", "repeated", "100.0%", "excl. IllegalStateException", "κ"} {
		if !strings.Contains(out, want) {
			t.Errorf("agree output lacks %q:\n%s", want, out)
		}
	}
	golden.CheckString(t, filepath.Join("testdata", "synth_agree.golden"), out, golden.Path(hs.URL, "$SERVER"), golden.Path(root, "$OUT"))
	code, out, _ = run("agree", "--json", "--judgements", j("a"), j("b"))
	golden.CheckString(t, filepath.Join("testdata", "synth_agree_json.golden"), out, golden.Path(hs.URL, "$SERVER"), golden.Path(root, "$OUT"))
	if code != 0 || !strings.Contains(out, `"pairs"`) {
		t.Errorf("agree --json: exit %d\n%s", code, out)
	}
	if code, _, _ = run("agree", "--judgements", j("a")); code != 2 {
		t.Errorf("agree with one file: exit %d, want 2 (usage)", code)
	}
}

func TestSynthValidateUsage(t *testing.T) {
	for _, args := range [][]string{
		{"validate"},
		{"validate", "--candidates", "x", "--judge", "openai:m@http://127.0.0.1:1/v1", "--out", "d", "--rubric", "whole-method", "--repair-with", "openai:r"},
		{"validate", "--candidates", "x", "--judge", "openai:m@http://127.0.0.1:1/v1", "--out", "d", "--ise-max-confidence", "2"},
	} {
		var stdout, stderr bytes.Buffer
		if code := Run(context.Background(), append([]string{"benchforge", "synth"}, args...), &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args, code, stderr.String())
		}
	}
}
