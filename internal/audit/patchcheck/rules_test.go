package patchcheck

import (
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/code"
)

// TestModernisationRules enforces every rule's examples: MustMatch pairs
// canonicalise to one text, MustNotMatch pairs stay apart.
func TestModernisationRules(t *testing.T) {
	for _, r := range modRules {
		if len(r.MustMatch) == 0 || len(r.MustNotMatch) == 0 {
			t.Errorf("%s: needs must-match and must-not-match examples", r.Name)
		}
		for _, p := range r.MustMatch {
			if a, b := modernise(r.Lang, p[0]), modernise(r.Lang, p[1]); a != b {
				t.Errorf("%s: %q and %q should match: %q ≠ %q", r.Name, p[0], p[1], a, b)
			}
		}
		for _, p := range r.MustNotMatch {
			if a, b := modernise(r.Lang, p[0]), modernise(r.Lang, p[1]); a == b {
				t.Errorf("%s: %q and %q must stay apart, both became %q", r.Name, p[0], p[1], a)
			}
		}
	}
}

// TestModernisationThroughNormaliser: the rules see the lines the real
// tree-sitter normaliser produces, so a modernised source line lands on
// its old form.
func TestModernisationThroughNormaliser(t *testing.T) {
	cases := []struct {
		lang     code.Lang
		path     string
		old, new string
	}{
		{code.LangJava, "A.java", "class A { void f() { m = new HashMap<String, Integer>(); } }", "class A { void f() { m = new HashMap<>(); } }"},
		{code.LangJava, "A.java", "class A { void f(int count) { this.count = count; } }", "class A { void f(final int count) { count = count; } }"},
		{code.LangPython, "a.py", "def f(v):\n    raise ValueError('bad value %s' % v)\n", "def f(v):\n    raise ValueError(f\"bad value {v}\")\n"},
		{code.LangPython, "a.py", "def f(v):\n    return 'x'.join(v)\n", "def f(v):\n    return \"x\".join(v)\n"},
		{code.LangPython, "a.py", "def f(v):\n    return f'<{v}>'\n", "def f(v):\n    return f\"<{v}>\"\n"},
		{code.LangPython, "a.py", "def f(v, n=1):\n    return v * n\n", "def f(v: \"Optional[int]\", n: int = 1) -> int:\n    return v * n\n"},
		{code.LangJava, "A.java", "class A { boolean f(String s) { return s == null || s.length() == 0; } }", "class A { boolean f(String s) { return StringUtils.isEmpty(s); } }"},
		{code.LangPython, "a.py", "def f(s, c):\n    raise ValueError(\"{} is bad, expected {} \"\n                     \"here\".format(s.name, g(c)))\n",
			"def f(s, c):\n    raise ValueError(f\"{s.name} is bad, expected\"\n                     f\" {g(c)} here\")\n"},
		{code.LangPython, "a.py", "def f(r):\n    return r.__dict__.copy()\n", "def f(r):\n    return dataclasses.asdict(r)\n"},
		{code.LangPython, "a.py", "def f(nz, a):\n    if len(nz) == 0 or len(nz) == len(a):\n        return 1\n", "def f(nz, a):\n    if len(nz) in (0, len(a)):\n        return 1\n"},
	}
	for _, c := range cases {
		a, b := newVersion(c.path, []byte(c.old), false), newVersion(c.path, []byte(c.new), false)
		if a.file == nil || b.file == nil {
			t.Fatalf("%s did not parse", c.path)
		}
		var la, lb []string
		for _, l := range a.lines {
			la = append(la, l.text)
		}
		for _, l := range b.lines {
			lb = append(lb, l.text)
		}
		if len(la) != len(lb) {
			t.Errorf("%q vs %q: %v vs %v", c.old, c.new, la, lb)
			continue
		}
		for i := range la {
			if la[i] != lb[i] {
				t.Errorf("%q vs %q: line %d %q ≠ %q", c.old, c.new, i, la[i], lb[i])
			}
		}
	}
}

// TestRulePrefilters: a rule's Needs text never hides a line the rule
// would change: on every example, the rule with and without the
// prefilter rewrites alike.
func TestRulePrefilters(t *testing.T) {
	for _, r := range modRules {
		for _, p := range append(append([][2]string{}, r.MustMatch...), r.MustNotMatch...) {
			for _, line := range p {
				var full string
				if r.Fn != nil {
					full = r.Fn(line)
				} else {
					full = r.Pattern.ReplaceAllString(line, r.Replace)
				}
				if full != line && !strings.Contains(line, r.Needs) {
					t.Errorf("%s: Needs %q hides %q, which the rule rewrites to %q", r.Name, r.Needs, line, full)
				}
			}
		}
	}
}

// FuzzMembership: the membership rule never panics, and its canonical
// form is a fixed point (a rewritten chain is not rewritten again).
func FuzzMembership(f *testing.F) {
	for _, r := range modRules {
		if r.Name != "python-membership" {
			continue
		}
		for _, p := range append(r.MustMatch, r.MustNotMatch...) {
			f.Add(p[0])
			f.Add(p[1])
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		once := membership(s)
		if twice := membership(once); twice != once {
			t.Errorf("membership(%q) = %q, but membership of that is %q", s, once, twice)
		}
	})
}

// TestInitCauseExamples enforces the java-init-cause rule's examples.
func TestInitCauseExamples(t *testing.T) {
	for _, e := range initCauseExamples.MustMatch {
		if got := initCauseStatement(e[0], e[1], e[2]); got != e[3] {
			t.Errorf("%q / %q / %q: %q, want %q", e[0], e[1], e[2], got, e[3])
		}
	}
	for _, e := range initCauseExamples.MustNotMatch {
		if got := initCauseStatement(e[0], e[1], e[2]); got != "" {
			t.Errorf("%q / %q / %q must say no statement, said %q", e[0], e[1], e[2], got)
		}
	}
}
