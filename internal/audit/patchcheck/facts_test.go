package patchcheck

import (
	"context"
	"slices"
	"sort"
	"testing"
	"time"
)

// TestFactExamples enforces every fact example: the fixed function's
// facts are exactly Facts, each MustMatch descendant scores at least the
// threshold and each MustNotMatch one below it.
func TestFactExamples(t *testing.T) {
	th := Options{}.threshold()
	for _, ex := range append(slices.Clone(factExamples), readExamples...) {
		if len(ex.MustMatch) == 0 || len(ex.MustNotMatch) == 0 {
			t.Errorf("%s: needs must-match and must-not-match examples", ex.Name)
		}
		fix, pb := exampleBlock(t, ex)
		want := blockFacts(fix, newVersion(ex.Path, []byte(ex.Buggy), false), pb)
		if got := union(want); !slices.Equal(got, ex.Facts) {
			t.Errorf("%s: facts %q, want %q", ex.Name, got, ex.Facts)
		}
		for _, d := range ex.MustMatch {
			if fs := descendantFacts(t, ex, fix, pb, want, d); fs.Score < th {
				t.Errorf("%s: rewrite scores %.2f < %.2f (missing %q):\n%s", ex.Name, fs.Score, th, fs.Missing, d)
			}
		}
		for _, d := range ex.MustNotMatch {
			if fs := descendantFacts(t, ex, fix, pb, want, d); fs.Score >= th {
				t.Errorf("%s: superseded logic scores %.2f ≥ %.2f:\n%s", ex.Name, fs.Score, th, d)
			}
		}
	}
}

// exampleBlock is the fixed version of ex and its one added block.
func exampleBlock(t *testing.T, ex factExample) (*version, *pblock) {
	t.Helper()
	bug, fix := newVersion(ex.Path, []byte(ex.Buggy), false), newVersion(ex.Path, []byte(ex.Fixed), false)
	if bug.file == nil || fix.file == nil {
		t.Fatalf("%s: did not parse", ex.Name)
	}
	var added []*pblock
	for _, pb := range blocksOf(ex.Path, bug, fix) {
		if pb.kind == "added" {
			added = append(added, pb)
		}
	}
	if len(added) != 1 {
		t.Fatalf("%s: %d added blocks, want 1", ex.Name, len(added))
	}
	return fix, added[0]
}

// descendantFacts scores want on the function of descendant file d that
// localises pb's.
func descendantFacts(t *testing.T, ex factExample, fix *version, pb *pblock, want []factSet, d string) *FactScore {
	t.Helper()
	dv := newVersion(ex.Path, []byte(d), false)
	sfi, _ := localize(fix, pb.fn, dv)
	if dv.file == nil || sfi < 0 {
		t.Fatalf("%s: descendant has no counterpart of %s:\n%s", ex.Name, fix.funcName(pb.fn), d)
	}
	return scoreFacts(want, dv, []int{dv.funcs[sfi].Node})
}

func union(sets []factSet) []string {
	all := map[string]bool{}
	for _, s := range sets {
		for k := range s {
			all[k] = true
		}
	}
	var out []string
	for k := range all {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestFactsHistory: a fix followed through a history whose last edit
// rewrites the patched function (the Java prefix and Python argument
// check examples). Where the rewrite keeps the fix's facts
// it is present, and only by them (absent with NoFacts); where other
// logic replaced one line's facts it is absent, though most of the
// block's facts survive (a share over the whole block would pass it).
func TestFactsHistory(t *testing.T) {
	java, py := factExamples[0], factExamples[3]
	const javaOther = "class N {\n  int radix(String s) {\n    for (String p : new String[] {\"0x\", \"0X\"}) {\n      if (s.startsWith(p)) {\n        return 16;\n      }\n    }\n" +
		"    return s.length() > 1 && s.charAt(0) == '0' ? 8 : 10;\n  }\n}\n"
	cases := []struct {
		ex                factExample
		name, later       string
		want, wantNoFacts string
		wantShare         float64 // the failing block's overall share at least this
	}{
		{java, "java rewrite keeps the facts", java.MustMatch[0], Present, Absent, 0},
		{java, "java other logic replaces a line's facts", javaOther, Absent, Absent, 0.7},
		{py, "python rewrite keeps the facts", py.MustMatch[0], Present, Absent, 0},
		{py, "python other logic", py.MustNotMatch[0], Absent, Absent, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hc := histCase{name: c.name, path: "src/" + c.ex.Path, buggy: c.ex.Buggy, fixed: c.ex.Fixed,
				later: []edit{{date: d(2016), write: map[string]string{"src/" + c.ex.Path: c.later}}}}
			r, s := hc.build(t)
			snaps := snapshotsAt(t, r, []time.Time{d(2020)})
			for _, o := range []Options{{}, {NoFacts: true}} {
				vs, err := New(o).CheckAll(context.Background(), s, r, snaps)
				if err != nil {
					t.Fatal(err)
				}
				want := c.want
				if o.NoFacts {
					want = c.wantNoFacts
				}
				if v := vs[0]; v.Verdict != want {
					t.Errorf("NoFacts=%v: %s (score %.2f), want %s\n%s", o.NoFacts, v.Verdict, v.Score, want, dump(v))
				}
				checkFactsUsed(t, vs[0], o, c.want, c.wantShare)
			}
		})
	}
}

// checkFactsUsed: with facts on, a present verdict was decided by them
// (its line score alone fails) and an absent one's weakest block has
// fact evidence with at least share overall; with NoFacts none is
// computed.
func checkFactsUsed(t *testing.T, v Verdict, o Options, want string, share float64) {
	t.Helper()
	for _, b := range v.Blocks {
		switch {
		case o.NoFacts && b.Facts != nil:
			t.Errorf("NoFacts: block %s has facts %+v", b.Function, b.Facts)
		case o.NoFacts:
		case want == Present && (b.Facts == nil || !b.Facts.Decided || b.LineSimilarity >= v.Threshold):
			t.Errorf("block %s: line %.2f, facts %+v: want a block the facts decided", b.Function, b.LineSimilarity, b.Facts)
		case want == Absent && share > 0 && (b.Facts == nil || b.Facts.Share < share):
			t.Errorf("block %s: facts %+v, want an overall share ≥ %.2f", b.Function, b.Facts, share)
		}
	}
}

// TestFactsNeedIdentity: in the one-jump ablation a patched function that
// was deleted is localised by context to its look-alike neighbour, which
// holds the fix's facts (self._print): facts judge only a descendant whose
// identity is known, so the sample stays absent (sympy-14531's
// _print_Normal).
func TestFactsNeedIdentity(t *testing.T) {
	const head = "class P:\n    def _print(self, x):\n        return repr(x)\n\n"
	const other = "    def _print_other(self, e):\n        out = 'Other: ' + self._print(e.mu)\n        return out + ' and ' + self._print(e.sigma)\n"
	hc := histCase{name: "deleted, look-alike kept", path: "src/p.py",
		buggy: head + "    def _print_normal(self, e):\n        return 'Normal(%s, %s)' % (str(e.mu), str(e.sigma))\n\n" + other,
		fixed: head + "    def _print_normal(self, e):\n        return 'Normal(%s, %s)' % (self._print(e.mu), self._print(e.sigma))\n\n" + other,
		later: []edit{{date: d(2016), write: map[string]string{"src/p.py": head + other}}}}
	r, s := hc.build(t)
	vs, err := New(Options{NoHistory: true}).CheckAll(context.Background(), s, r, snapshotsAt(t, r, []time.Time{d(2020)}))
	if err != nil {
		t.Fatal(err)
	}
	v := vs[0]
	if v.Verdict != Absent || len(v.Blocks) != 1 || v.Blocks[0].Localized != "function:context" || v.Blocks[0].Facts != nil {
		t.Errorf("%s (score %.2f), want absent with a block localised by context and no facts\n%s", v.Verdict, v.Score, dump(v))
	}
}
