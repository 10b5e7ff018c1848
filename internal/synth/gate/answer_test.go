package gate

import (
	"strings"
	"testing"
)

const buggyM = `public int first(int[] a) {
    return a[0];
}`
const fixedM = `public int first(int[] a) {
    if (a.length == 0) {
        return -1;
    }
    return a[0];
}`

func fence(info, body string) string { return "```" + info + "\n" + body + "\n```\n" }

func TestParseAnswer(t *testing.T) {
	tests := []struct {
		name, answer string
		cause        string // "" means accepted
		buggy        string
	}{
		{"two blocks", "Here:\n" + fence("java", buggyM) + "and the fix\n" + fence("java", fixedM), "", buggyM},
		{"untagged and tilde fences", fence("", buggyM) + "~~~~java\n" + fixedM + "\n~~~~\n", "", buggyM},
		{"prose only", "I cannot produce that pair.", CauseBlockCount, ""},
		{"one block", fence("java", buggyM), CauseBlockCount, ""},
		{"three blocks", fence("java", buggyM) + fence("java", fixedM) + fence("java", fixedM), CauseBlockCount, ""},
		{"truncated", fence("java", buggyM) + "```java\npublic int first(int[] a) {\n    if (a.len", CauseTruncated, ""},
		{"python block", fence("python", "def f(): pass") + fence("java", fixedM), CauseNotJava, ""},
		{"class instead of method", fence("java", "class A {\n  int x;\n"+buggyM+"\n}") + fence("java", fixedM), CauseTypeDecl, ""},
		{"interface", fence("java", "interface I { void f(); }") + fence("java", fixedM), CauseTypeDecl, ""},
		{"wrapper and imports removed", fence("java", "import java.util.*;\n\npublic class Wrapper {\n    "+strings.ReplaceAll(buggyM, "\n", "\n    ")+"\n}") + fence("java", fixedM), "", buggyM},
		{"empty block", fence("java", "") + fence("java", fixedM), CauseMethodCount, ""},
		{"inline backticks are not fences", "use ```x``` here\n" + fence("java", buggyM) + fence("java", fixedM), "", buggyM},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, _, rej := ParseAnswer(tt.answer)
			if tt.cause == "" {
				if rej != nil {
					t.Fatalf("rejected: %v", rej)
				}
				if b != tt.buggy {
					t.Fatalf("buggy = %q, want %q", b, tt.buggy)
				}
				return
			}
			if rej == nil || rej.Cause != tt.cause {
				t.Fatalf("got %v, want cause %s", rej, tt.cause)
			}
		})
	}
}

func FuzzParseAnswer(f *testing.F) {
	f.Add("```java\n" + buggyM + "\n```\n```java\n" + fixedM + "\n```\n")
	f.Add("```java\nclass A { void f() {} }\n```\n```\nvoid f() {\n```")
	f.Add("~~~\n~~~\n```")
	f.Add("```java\nimport a.b;\npackage p;\nclass X { X() {} }\n```\n```java\nvoid g() { new Object() { void h() {} }; }\n```")
	f.Fuzz(func(t *testing.T, s string) {
		b, fx, rej := ParseAnswer(s)
		if rej == nil {
			// Accepted answers must give methods the gates can measure.
			for _, m := range []string{b, fx} {
				if _, r := parseMethod(m); r != nil && r.Cause == "" {
					t.Fatalf("empty cause for %q", m)
				}
			}
		} else if rej.Cause == "" {
			t.Fatalf("rejection without cause: %+v", rej)
		}
	})
}
