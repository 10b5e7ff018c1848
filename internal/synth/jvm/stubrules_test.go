package jvm

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStubRules enforces every stub rule's examples: each MustFix
// diagnostic is fixed by that rule and leaves exactly the stubs listed;
// each MustNotFix one, with a key of the rule, is not fixed by it and
// leaves the stubs listed (or unchanged).
func TestStubRules(t *testing.T) {
	harness := map[string]bool{"B1": true, "F1": true}
	names := map[string]bool{}
	for _, r := range stubRules {
		if names[r.Name] {
			t.Errorf("two rules named %s", r.Name)
		}
		names[r.Name] = true
		if len(r.MustFix) == 0 || len(r.MustNotFix) == 0 {
			t.Errorf("%s: needs must-fix and must-not-fix examples", r.Name)
		}
		for i, ex := range r.MustFix {
			checkRuleExample(t, r, "MustFix", i, ex, true, harness)
		}
		for i, ex := range r.MustNotFix {
			checkRuleExample(t, r, "MustNotFix", i, ex, false, harness)
		}
	}
}

// checkRuleExample checks example i of rule r's kind list: one
// diagnostic with a key of the rule, fixed by the rule when mustFix (else
// not), leaving the stubs the example wants.
func checkRuleExample(t *testing.T, r stubRule, kind string, i int, ex stubExample, mustFix bool, harness map[string]bool) {
	t.Helper()
	where := r.Name + " " + kind + "[" + string(rune('0'+i)) + "]"
	ds := parseDiagnostics(ex.Diag)
	if len(ds) != 1 {
		t.Errorf("%s: %q is not one javac diagnostic", where, ex.Diag)
		return
	}
	if !slices.Contains(r.Keys, ds[0].Key) {
		t.Errorf("%s: key %s is not one the rule reads", where, ds[0].Key)
		return
	}
	s := stubsFrom(t, ex.Stubs)
	by, err := s.applyRule(ds[0], ex.Line, harness)
	want := ex.Want
	if mustFix {
		if err != nil || by != r.Name {
			t.Errorf("%s: decided by %q with %v, want fixed by the rule", where, by, err)
		}
	} else {
		if err == nil && by == r.Name {
			t.Errorf("%s: fixed by the rule, must not be", where)
		}
		if want == nil {
			want = ex.Stubs
		}
	}
	if d := cmp.Diff(want, stubLines(s)); d != "" {
		t.Errorf("%s: stubs after (-want +got):\n%s", where, d)
	}
}

// stubLines is describe with " [inst]" on instance members: the form of
// stubExample's Stubs and Want.
func stubLines(s *stubSet) []string {
	var out []string
	mark := func(m *stubMember, prefix string) string {
		l := m.decl(prefix)
		if m.inst && prefix != "super." {
			l += " [inst]"
		}
		return l
	}
	for _, m := range s.harness {
		out = append(out, mark(m, ""))
	}
	for _, m := range s.super {
		out = append(out, mark(m, "super."))
	}
	for _, c := range s.classes {
		if c.throwable {
			out = append(out, "class "+c.name+" extends RuntimeException")
		} else {
			out = append(out, "class "+c.name)
		}
		for _, k := range c.ctors {
			out = append(out, c.name+"("+strings.Join(k, ", ")+")")
		}
		for _, m := range c.members {
			out = append(out, mark(m, c.name+"."))
		}
	}
	return out
}

// stubsFrom builds the stubs stubLines prints as lines.
func stubsFrom(t *testing.T, lines []string) *stubSet {
	t.Helper()
	s := &stubSet{}
	for _, l := range lines {
		if c, ok := strings.CutPrefix(l, "class "); ok {
			name, ext, _ := strings.Cut(c, " extends ")
			s.addClass(name).throwable = ext == "RuntimeException"
			continue
		}
		l, inst := strings.CutSuffix(l, " [inst]")
		head, params, method := strings.Cut(l, "(")
		var ps []string
		if method {
			if p := strings.TrimSuffix(params, ")"); p != "" {
				ps = strings.Split(p, ", ")
			}
		}
		sp := strings.LastIndexByte(head, ' ')
		if sp < 0 { // Name(params): a constructor
			c := s.class(head)
			if c == nil {
				t.Fatalf("constructor %q before its class", l)
			}
			c.ctors = append(c.ctors, ps)
			continue
		}
		typ, qual := head[:sp], head[sp+1:]
		m := &stubMember{typ: typ, params: ps, method: method, inst: inst}
		switch owner, name, ok := strings.Cut(qual, "."); {
		case !ok:
			m.name = qual
			s.harness = append(s.harness, m)
		case owner == "super":
			m.name, m.inst = name, true
			s.super = append(s.super, m)
		default:
			m.name = name
			c := s.class(owner)
			if c == nil {
				t.Fatalf("member %q before its class", l)
			}
			c.members = append(c.members, m)
		}
	}
	return s
}
