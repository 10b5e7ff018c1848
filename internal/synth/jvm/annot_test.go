package jvm

import (
	"strings"
	"testing"
)

func TestBlankAnnotations(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"override", "@Override\npublic int f() { return 1; }", "         \npublic int f() { return 1; }"},
		{"with arguments", "@SuppressWarnings(value = {\"a\",\n \"b\"}) int f() { return 1; }", "                               \n       int f() { return 1; }"},
		{"constructor", "@Deprecated Foo(int x) { this.x = x; }", "            Foo(int x) { this.x = x; }"},
		// Must not touch: annotations inside the body, on parameters, or a
		// method without any; text that does not parse.
		{"body annotations kept", "int f() { @SuppressWarnings(\"x\") int y = 1; Runnable r = new Runnable() { @Override public void run() {} }; return y; }", ""},
		{"parameter annotation kept", "int f(@Deprecated int a) { return a; }", ""},
		{"no annotation", "public static int f() { return 1; }", ""},
		{"syntax error", "@Override int f( { return 1; }", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := tt.want
			if want == "" {
				want = tt.in
			}
			got := blankAnnotations(tt.in)
			if got != want {
				t.Errorf("blankAnnotations(%q)\n got %q\nwant %q", tt.in, got, want)
			}
			if len(got) != len(tt.in) || strings.Count(got, "\n") != strings.Count(tt.in, "\n") {
				t.Errorf("lines or length changed: %q", got)
			}
		})
	}
}

func TestSuperCall(t *testing.T) {
	tests := []struct {
		text string
		col  int // 1-based, where javac puts the caret
		want bool
	}{
		{"    super.addNotify();", 10, true},    // caret at the dot
		{"    super.addNotify();", 11, true},    // caret at the name
		{"    x = super . size(s);", 15, true},  // spaced select
		{"    mysuper.addNotify();", 12, false}, // another identifier
		{"    this.addNotify();", 9, false},     // not super
		{"    addNotify();", 5, false},          // unqualified
		{"    super.addNotify();", 100, false},  // column past the line
		{"super.f()", 6, true},                  // at line start
		{"    a.super_.f();", 13, false},        // identifier ending in super_
		{"    Outer.super.f();", 16, true},      // qualified super
	}
	for _, tt := range tests {
		if got := superCall(tt.text, tt.col); got != tt.want {
			t.Errorf("superCall(%q, %d) = %v, want %v", tt.text, tt.col, got, tt.want)
		}
	}
}
