package testverify

import (
	"regexp"
	"strings"
)

// unittestName matches unittest's "method (module.Class)" spelling, as
// SWE-bench lists Django tests and unittest -v prints them.
var unittestName = regexp.MustCompile(`^(\S+) \(([\w.]+)\)$`)

// TestKey reduces a test name, however spelled, to its components:
//
//	"pkg/test_x.py::TestC::test_m[a.b]" → [pkg test_x TestC test_m[a.b]]
//	"pkg.test_x.TestC.test_m"            → [pkg test_x TestC test_m]
//	"test_m (pkg.test_x.TestC)"          → [pkg test_x TestC test_m]
//	"test_m (pkg.test_x.TestC.test_m)"   → [pkg test_x TestC test_m]  (Python ≥ 3.11)
//	"org.Foo::testBar", "org.Foo#testBar" → [org Foo testBar]
//
// Dots inside brackets or parentheses (pytest parameters) do not split,
// and a trailing "()" (JUnit 5 display names) is dropped.
func TestKey(name string) []string {
	name = strings.TrimSpace(name)
	if m := unittestName.FindStringSubmatch(name); m != nil {
		cls := splitDots(m[2])
		if len(cls) > 0 && cls[len(cls)-1] == m[1] {
			cls = cls[:len(cls)-1]
		}
		return append(cls, m[1])
	}
	var out []string
	for i, s := range strings.Split(strings.ReplaceAll(name, "#", "::"), "::") {
		switch {
		case s == "":
		case i == 0 && (strings.Contains(s, "/") || strings.HasSuffix(s, ".py")):
			out = append(out, pathKey(s)...)
		default:
			out = append(out, splitDots(s)...)
		}
	}
	if n := len(out); n > 0 {
		out[n-1] = strings.TrimSuffix(out[n-1], "()")
	}
	return out
}

// pathKey is the components of a test file's path, without ".py".
func pathKey(s string) []string {
	var out []string
	for _, p := range strings.Split(strings.TrimSuffix(s, ".py"), "/") {
		if p != "" && p != "." {
			out = append(out, p)
		}
	}
	return out
}

// splitDots splits on dots outside brackets and parentheses.
func splitDots(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[', '(':
			depth++
		case ']', ')':
			if depth > 0 {
				depth--
			}
		case '.':
			if depth == 0 {
				if i > start {
					out = append(out, s[start:i])
				}
				start = i + 1
			}
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// keyMatch reports whether a reported test (key got) is the requested test
// (key want): equal, or one a suffix of the other with at least two
// components in the shorter (tools differ on package prefixes), where a
// reported last component "m[params]" also matches a requested "m" (all
// parametrisations of m).
func keyMatch(want, got []string) bool {
	if len(want) == 0 || len(got) == 0 {
		return false
	}
	n := min(len(want), len(got))
	if n < 2 && len(want) != len(got) {
		return false
	}
	for i := 1; i <= n; i++ {
		if !componentMatch(want[len(want)-i], got[len(got)-i], i == 1) {
			return false
		}
	}
	return true
}

// componentMatch reports whether a reported key component g is the
// requested w: equal or, for the last component, g a parametrisation
// "w[params]" of a requested w without parameters.
func componentMatch(w, g string, last bool) bool {
	if w == g {
		return true
	}
	if !last || strings.Contains(w, "[") {
		return false
	}
	b, _, ok := strings.Cut(g, "[")
	return ok && b == w
}
