package judge

import (
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/synth/corpus"
)

func TestGateRepair(t *testing.T) {
	buggy := "public int f(int[] a, int i) {\n    return a[i];\n}"
	tests := []struct {
		name, answer, fail string // fail: substring of the failure, "" for a pass
	}{
		{"fenced", "```java\npublic int f(int[] a, int i) {\n    if (i >= a.length) return 0;\n    return a[i];\n}\n```", ""},
		{"unfenced", "public int f(int[] a, int i) { return i < a.length ? a[i] : 0; }", ""},
		{"class wrapper", "```java\nclass X {\n  public int f(int[] a, int i) { return i < a.length ? a[i] : 0; }\n}\n```", ""},
		{"other language only", "```python\ndef f(a, i): return a[i]\n```", "no ```java block"},
		{"signature changed", "```java\npublic long f(int[] a, int i) { return 0; }\n```", "signature changed"},
		{"syntax error", "```java\npublic int f(int[] a, int i) { return a[i] }\n```", "syntax error"},
		{"two methods", "```java\npublic int f(int[] a, int i) { return 0; }\npublic int g() { return 1; }\n```", "exactly one method"},
		{"identical", "```java\n" + buggy + "\n```", "identical"},
		{"empty", "", "no method"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, fail := gateRepair(buggy, tc.answer)
			if tc.fail == "" {
				if fail != "" || m == "" {
					t.Fatalf("gateRepair failed: %q", fail)
				}
				return
			}
			if !strings.Contains(fail, tc.fail) || m != "" {
				t.Errorf("gateRepair = %q, %q; want failure containing %q", m, fail, tc.fail)
			}
		})
	}
}

func TestReleaseFlags(t *testing.T) {
	const T = corpus.IllegalArgument
	tests := []struct {
		name, buggy, fixed string
		want               bool
	}{
		{"introduced", "void f(int n) { g(n); }", "void f(int n) { if (n < 0) throw new IllegalArgumentException(\"n\"); g(n); }", true},
		{"qualified", "void f(int n) { g(n); }", "void f(int n) { if (n < 0) { throw new java.lang.IllegalArgumentException(); } g(n); }", true},
		{"already there", "void f(int n) { if (n > 9) throw new IllegalArgumentException(); g(n); }", "void f(int n) { if (n > 9) throw new IllegalArgumentException(); if (n < 0) return; g(n); }", false},
		{"other type", "void f(int n) { g(n); }", "void f(int n) { if (n < 0) throw new IllegalStateException(); g(n); }", false},
		{"comment and string", "void f(int n) { g(n); }", "void f(int n) { // throw new IllegalArgumentException(\n String s = \"throw new IllegalArgumentException(\"; g(n); }", false},
		{"subclass name", "void f(int n) { g(n); }", "void f(int n) { throw new IllegalArgumentExceptionX(); }", false},
	}
	for _, tc := range tests {
		if got := FixIntroducesLabel(T, tc.buggy, tc.fixed); got != tc.want {
			t.Errorf("%s: FixIntroducesLabel = %v, want %v", tc.name, got, tc.want)
		}
	}
	if !ISELowConfidence(corpus.IllegalState, 1, DefaultISEMaxConfidence) || !ISELowConfidence(corpus.IllegalState, 0.2, DefaultISEMaxConfidence) {
		t.Error("§8.1: every ISE pair is flagged at the default threshold")
	}
	if ISELowConfidence(corpus.IllegalState, 0.9, 0.8) || ISELowConfidence(corpus.NullPointer, 0.1, 1) {
		t.Error("flagged above the threshold or outside ISE")
	}
}

func TestPromptsRender(t *testing.T) {
	d := promptData{Type: corpus.NullPointer, Buggy: "B()", Fixed: "F()", Site: "x.y()", Line: 3, Trigger: "x == null", Reason: "r"}
	for _, name := range []string{promptStage1, promptStage2, promptRepair, promptWhole} {
		sys, user, err := render(name, d)
		if err != nil || sys == "" || !strings.Contains(user, "B()") || !strings.Contains(user, corpus.NullPointer) {
			t.Errorf("%s: %q / %q / %v", name, sys, user, err)
		}
	}
	if PromptHash(RubricPatch) == PromptHash(RubricWhole) || len(PromptHash(RubricPatch)) != 64 {
		t.Error("prompt hashes must differ per rubric and be sha256 hex")
	}
}
