package jvm

import (
	"slices"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// TestStateNames: the receiver_state rule applies when the changed lines
// read a field (bare or through this.), and not for parameters, locals,
// methods, types, constants or another object's members.
func TestStateNames(t *testing.T) {
	method := `public int size(String s, int[] a) {
    int n = 0;
    for (String e : list) { n++; }
    Object local = cache.get(s);
    if (local == null || key == null) {
        return n;
    }
    return this.count + s.length() + a.length + Other.MAX + other.size;
}`
	params := []Param{{Type: "String", Name: "s"}, {Type: "int[]", Name: "a"}}
	for _, c := range []struct {
		line string
		want []string
	}{
		{"    if (local == null || key == null) {", []string{"key"}},
		{"    return this.count + s.length() + a.length + Other.MAX + other.size;", []string{"count", "other"}},
		{"    if (s == null || n > a.length) return 0;", nil},
		{"    if (isEmpty() && Foo.BAR == s) {", nil},
		{`    throw new IllegalStateException("key " + s);`, nil},
		{`    if (s.equals("this key")) { // key`, nil},
	} {
		if got := stateNames(method, params, []string{c.line}); !slices.Equal(got, c.want) {
			t.Errorf("stateNames(%q) = %q, want %q", c.line, got, c.want)
		}
	}
}

// TestVerifyReceiverState: a guard on a field (the fix's `key == null`)
// makes the search try receivers whose constructor got a boundary value
// for one argument (receiver_state): new KV(null, "abc") has a null key,
// and hashCode raises NullPointerException at the patched line. Before,
// every receiver had the ordinary key "abc" and no input raised it.
func TestVerifyReceiverState(t *testing.T) {
	opts := needJDK(t)
	src := "package org.s;\n\npublic class KV {\n    private final String key;\n    private final String value;\n\n" +
		"    public KV(String key, String value) {\n        this.key = key;\n        this.value = value;\n    }\n\n" +
		"    public int hashCode() {\n        int h = key == null ? 0 : key.hashCode();\n        return 31 * h + value.length();\n    }\n}\n"
	commit := oneProject(t, &opts, "kv", map[string]string{"src/main/java/org/s/KV.java": src})
	p := corpus.Pair{PairID: "kv-1", ErrorType: corpus.NullPointer, Generator: "hand",
		BuggyMethod: "    public int hashCode() {\n        int h = key.hashCode();\n        return 31 * h + value.length();\n    }\n",
		FixedMethod: "    public int hashCode() {\n        int h = key == null ? 0 : key.hashCode();\n        return 31 * h + value.length();\n    }\n",
		Source:      &corpus.Source{Repo: "demo/kv", Commit: commit, Path: "src/main/java/org/s/KV.java", Span: corpus.Span{Start: 12, End: 15}}}
	e := verifyOne(t, p, opts)
	if want := `(new org.s.KV((java.lang.String) null, (java.lang.String) ("abc"))).hashCode()`; e.Status != StatusConfirmed || inputOf(e.C) != want || !e.C.Anchored {
		t.Errorf("status %s (%s), (c) %q; want confirmed on the anchored input %q", e.Status, e.Reason, inputOf(e.C), want)
	}
	if !slices.Contains(e.Anchors, "receiver_state") {
		t.Errorf("anchors %q, want receiver_state", e.Anchors)
	}
	opts.NoAnchors = true
	if e := verifyOne(t, p, opts); e.Status != StatusUnconfirmed {
		t.Errorf("without anchors: status %s, want unconfirmed (no receiver of the boundary search has a null key)", e.Status)
	}
}

// TestVerifySelfArgument: a fix whose guard is `this == obj` gets the
// receiver itself as obj (self_test), so x.equals(x) reaches the branch
// the mutation made throw; no other input is the same object.
func TestVerifySelfArgument(t *testing.T) {
	opts := needJDK(t)
	body := "    public boolean equals(Object obj) {\n        if (this == obj) {\n            %s\n        }\n        return obj instanceof Box && ((Box) obj).size == size;\n    }\n"
	buggy := strings.Replace(body, "%s", `throw new IllegalArgumentException("illegal obj: " + obj);`, 1)
	fixed := strings.Replace(body, "%s", "return true;", 1)
	src := "package org.b;\n\npublic class Box {\n    private final int size;\n\n    public Box(int size) {\n        this.size = size;\n    }\n\n" + fixed + "\n    public int hashCode() {\n        return size;\n    }\n}\n"
	commit := oneProject(t, &opts, "box", map[string]string{"src/main/java/org/b/Box.java": src})
	p := corpus.Pair{PairID: "self-1", ErrorType: corpus.IllegalArgument, Generator: "hand", BuggyMethod: buggy, FixedMethod: fixed,
		Source: &corpus.Source{Repo: "demo/box", Commit: commit, Path: "src/main/java/org/b/Box.java", Span: corpus.Span{Start: 10, End: 15}}}
	e := verifyOne(t, p, opts)
	if want := "bfWith(new org.b.Box(), x -> x.equals(x))"; e.Status != StatusConfirmed || inputOf(e.C) != want {
		t.Errorf("status %s (%s), (c) %q; want confirmed on %q", e.Status, e.Reason, inputOf(e.C), want)
	}
	opts.NoAnchors = true
	if e := verifyOne(t, p, opts); e.Status != StatusUnconfirmed {
		t.Errorf("without anchors: status %s, want unconfirmed (no other argument is the receiver)", e.Status)
	}
}
