package jvm

import (
	"fmt"
	"testing"

	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// TestVerifySkipsUnbuiltReceiver: Gate's constructor throws for every
// positive n, so the default receiver (the added no-argument constructor,
// delegating with the ordinary 1) and new Gate(1) cannot be built; each
// is tried once, and the vectors pairing it with other arguments are
// skipped without a call, so the budget goes to the receiver that builds
// (Gate.open()). Before, each such vector took one call for the same
// arg_error.
func TestVerifySkipsUnbuiltReceiver(t *testing.T) {
	opts := needJDK(t)
	body := "    public int width(String s) {\n        if (s.length() > 3) {\n            %s\n        }\n        return s.length();\n    }\n"
	buggy := fmt.Sprintf(body, `throw new IllegalArgumentException("too long");`)
	fixed := fmt.Sprintf(body, "return 3;")
	src := "package org.g;\n\npublic class Gate {\n    public Gate(int n) {\n        if (n > 0) {\n            throw new IllegalStateException(\"closed\");\n        }\n    }\n\n" +
		"    public static Gate open() {\n        return new Gate(0);\n    }\n\n" + fixed + "}\n"
	commit := oneProject(t, &opts, "gate", map[string]string{"src/main/java/org/g/Gate.java": src})
	p := corpus.Pair{PairID: "gate-1", ErrorType: corpus.IllegalArgument, Generator: "hand", BuggyMethod: buggy, FixedMethod: fixed,
		Source: &corpus.Source{Repo: "demo/gate", Commit: commit, Path: "src/main/java/org/g/Gate.java", Span: corpus.Span{Start: 14, End: 19}}}
	e := verifyOne(t, p, opts)
	if e.Status != StatusConfirmed {
		t.Fatalf("status %s (%s), want confirmed", e.Status, e.Reason)
	}
	if e.Outcomes["arg_error"] != 2 || e.Skipped == 0 {
		t.Errorf("outcomes %v, %d skipped; want each unbuildable receiver tried once (2 arg_errors) and later vectors holding one skipped", e.Outcomes, e.Skipped)
	}
}
