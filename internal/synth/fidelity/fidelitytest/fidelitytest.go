// Package fidelitytest builds deterministic seed pools and synthetic
// corpora of small, valid Java methods for the tests and benchmarks of
// internal/synth/fidelity and internal/synth/evaluate. Each method is a
// run of filler statements around one defect site per exception type
// (a dereference without a null check, an unguarded index, an unchecked
// parse, ...); the fixed method adds the guard. Nothing here is used
// outside tests.
package fidelitytest

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// site is a defect site: a parameter list and the buggy and fixed tails.
type site struct {
	params       string
	buggy, fixed string
}

var sites = map[string][]site{
	corpus.NullPointer: {
		{"String s, int n", "return s.trim().length() + n;", "if (s == null) {\n        return n;\n    }\n    return s.trim().length() + n;"},
		{"Map<String, String> m, String k", "return m.get(k).length();", "String v = m.get(k);\n    if (v == null) {\n        return 0;\n    }\n    return v.length();"},
		{"String s", "return s.length();", "if (s == null) {\n        throw new IllegalArgumentException(\"s\");\n    }\n    return s.length();"},
	},
	corpus.IllegalArgument: {
		{"int n", "if (n <= 0) {\n        throw new IllegalArgumentException(\"n\");\n    }\n    return n * 2;", "if (n < 0) {\n        throw new IllegalArgumentException(\"n\");\n    }\n    return n * 2;"},
	},
	corpus.ArrayIndexOOB: {
		{"int[] a, int i", "return a[i + 1];", "if (i + 1 >= a.length) {\n        return -1;\n    }\n    return a[i + 1];"},
		{"int[] a", "int last = a[a.length];\n    return last;", "int last = a[a.length - 1];\n    return last;"},
	},
	corpus.NumberFormat: {
		{"String s", "return Integer.parseInt(s);", "try {\n        return Integer.parseInt(s.trim());\n    } catch (NumberFormatException e) {\n        return 0;\n    }"},
	},
	corpus.ClassCast: {
		{"Object o", "String t = (String) o;\n    return t.length();", "if (!(o instanceof String)) {\n        return 0;\n    }\n    String t = (String) o;\n    return t.length();"},
	},
	corpus.StringIndexOOB: {
		{"String s, int n", "return s.substring(0, n).length();", "return s.substring(0, Math.min(n, s.length())).length();"},
	},
	corpus.IllegalState: {
		{"boolean open, int count", "if (!open) {\n        throw new IllegalStateException(\"closed\");\n    }\n    return count;", "return open ? count : 0;"},
	},
}

var names = []string{"value", "total", "index", "buffer", "offset", "limit", "width", "scale", "count", "delta"}

// filler returns k filler statements using identifiers drawn by r; with
// probability incidental a statement carries an incidental construct (a
// cast, an array access, a null check, try/catch, division, modulo,
// instanceof, equals).
func filler(r *rand.Rand, k int, incidental float64) string {
	var b strings.Builder
	for i := range k {
		v := names[r.IntN(len(names))]
		if r.Float64() < incidental {
			incidentalStatement(&b, r, i, v)
		} else {
			plainStatement(&b, r, i, v)
		}
	}
	return b.String()
}

// incidentalStatement writes filler statement i, on identifier v, with
// an incidental construct.
func incidentalStatement(b *strings.Builder, r *rand.Rand, i int, v string) {
	switch r.IntN(6) {
	case 0:
		fmt.Fprintf(b, "    Object o%d = (Object) \"%s\";\n    if (o%d != null && o%d.equals(\"x\")) {\n        log(\"eq\");\n    }\n", i, v, i, i)
	case 1:
		fmt.Fprintf(b, "    int[] arr%d = new int[%d];\n    arr%d[0] = %d / %d %% 7;\n", i, r.IntN(5)+2, i, r.IntN(90)+10, r.IntN(5)+1)
	case 2:
		fmt.Fprintf(b, "    try {\n        log(\"%s\");\n    } catch (RuntimeException e%d) {\n        log(\"failed\");\n    }\n", v, i)
	case 3:
		fmt.Fprintf(b, "    Object w%d = \"%s\";\n    if (w%d instanceof String) {\n        log((String) w%d);\n    }\n", i, v, i, i)
	case 4:
		fmt.Fprintf(b, "    String n%d = null;\n    if (n%d == null) {\n        n%d = \"%s\";\n    }\n", i, i, i, v)
	default:
		fmt.Fprintf(b, "    int m%d = %d %% %d;\n", i, r.IntN(100), r.IntN(9)+1)
	}
}

// plainStatement writes filler statement i, on identifier v, without one.
func plainStatement(b *strings.Builder, r *rand.Rand, i int, v string) {
	switch r.IntN(5) {
	case 0:
		fmt.Fprintf(b, "    int %s%d = %d;\n", v, i, r.IntN(100))
	case 1:
		fmt.Fprintf(b, "    int %s%d = %d * %d + %d;\n", v, i, r.IntN(9)+1, r.IntN(9)+1, r.IntN(50))
	case 2:
		fmt.Fprintf(b, "    for (int j%d = 0; j%d < %d; j%d++) {\n        log(\"%s\" + j%d);\n    }\n", i, i, r.IntN(9)+1, i, v, i)
	case 3:
		fmt.Fprintf(b, "    if (%d > %d) {\n        log(\"%s\");\n    }\n", r.IntN(20), r.IntN(20), v)
	default:
		fmt.Fprintf(b, "    log(\"%s %d\");\n", v, r.IntN(1000))
	}
}

func method(name string, s site, fill string, fixed bool) string {
	tail := s.buggy
	if fixed {
		tail = s.fixed
	}
	return fmt.Sprintf("int %s(%s) {\n%s    %s\n}\n", name, s.params, fill, tail)
}

// Seeds returns n seeds cycling over the seven types with NullPointer twice
// as often; filler lengths are mostly 2–12 statements with an occasional
// long method (30–45), so the per-type upper-tail rule has work to do.
// Every fifth source bug contributes two pairs.
func Seeds(n int, seed uint64) []corpus.Seed {
	r := rand.New(rand.NewPCG(seed, 1))
	order := append([]string{corpus.NullPointer}, corpus.Types...)
	var out []corpus.Seed
	bug := 0
	for len(out) < n {
		typ := order[bug%len(order)]
		per := 1
		if bug%5 == 4 {
			per = 2
		}
		src := fmt.Sprintf("Proj-%d", bug+1)
		for k := 0; k < per && len(out) < n; k++ {
			k0 := 2 + r.IntN(11)
			if r.IntN(12) == 0 {
				k0 = 30 + r.IntN(16)
			}
			s := sites[typ][r.IntN(len(sites[typ]))]
			fr := rand.New(rand.NewPCG(seed, uint64(len(out))+100))
			fill := filler(fr, k0, 0.3)
			name := fmt.Sprintf("%s%d", names[r.IntN(len(names))], len(out))
			out = append(out, corpus.Seed{
				BugID: fmt.Sprintf("%s#%d", src, k), SourceBug: src, Benchmark: "testbench", Project: "Proj",
				Exception: typ, BuggyMethod: method(name, s, fill, false), FixedMethod: method(name, s, fill, true),
				File: fmt.Sprintf("src/P%d.java", bug), MethodSignature: name,
			})
		}
		bug++
	}
	return out
}

// Pairs returns n synthetic pairs grown from seeds: each names one or two
// same-type exemplars in example_bug_ids and has a filler length near
// 0.9× the first exemplar's (capped at 25 statements, to mimic §6.6's
// compression) and fewer incidental constructs (§6.3), with fresh filler text and method names.
func Pairs(seeds []corpus.Seed, n int, seed uint64) []corpus.Pair {
	r := rand.New(rand.NewPCG(seed, 2))
	byType := map[string][]int{}
	for i, s := range seeds {
		byType[s.Exception] = append(byType[s.Exception], i)
	}
	var types []string
	for _, t := range corpus.Types {
		if len(byType[t]) > 0 {
			types = append(types, t)
		}
	}
	out := make([]corpus.Pair, 0, n)
	for i := range n {
		typ := types[i%len(types)]
		cand := byType[typ]
		ex := seeds[cand[r.IntN(len(cand))]]
		ids := []string{ex.BugID}
		if r.IntN(3) == 0 && len(cand) > 1 {
			other := seeds[cand[r.IntN(len(cand))]]
			if other.BugID != ex.BugID {
				ids = append(ids, other.BugID)
			}
		}
		k := strings.Count(ex.BuggyMethod, "\n") - 3
		k = min(max(1, int(0.9*float64(k)/2.2))+r.IntN(3)-1, 25)
		s := sites[typ][r.IntN(len(sites[typ]))]
		fr := rand.New(rand.NewPCG(seed, uint64(i)+1_000_000))
		fill := filler(fr, max(k, 0), 0.1)
		name := fmt.Sprintf("gen%s%d", names[r.IntN(len(names))], i)
		out = append(out, corpus.Pair{
			PairID: fmt.Sprintf("syn-%05d", i), ErrorType: typ, ExampleBugIDs: ids, Generator: "fidelitytest",
			BuggyMethod: method(name, s, fill, false), FixedMethod: method(name, s, fill, true),
		})
	}
	return out
}
