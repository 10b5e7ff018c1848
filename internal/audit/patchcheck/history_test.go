package patchcheck

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/gitrepo"
	"github.com/benchforge/benchforge/internal/gitrepo/gittest"
)

// edit is one commit after the fix: files written (path → content),
// removed, and renamed (old → new, content then written if given).
type edit struct {
	date   time.Time
	rename [2]string
	write  map[string]string
	remove []string
}

// histCase is one history rule of issue 13: a fix of path, then edits,
// and the verdict expected at each cutoff.
type histCase struct {
	name          string
	path          string
	buggy, fixed  string
	fixDate       time.Time // zero: 2015-01-01
	later         []edit
	cutoffs       []time.Time
	want          []string
	wantKinds     []string // step kinds the chain at the last cutoff holds
	wantIntervals int      // presence intervals of the sample; -1 unchecked
	patchOnly     bool     // a SWE-bench sample: base commit and patch, no fix commit
	wantReason    string   // substring of the last cutoff's reason
	wantCause     Cause    // the last cutoff's cause ("": any, but one)
}

const calcBuggy = `package p;

public class Calc {
    public int clamp(int v, int lo, int hi) {
        int r = v;
        if (r < lo) {
            r = lo;
        }
        return r;
    }

    public int twice(int x) {
        return x * 2;
    }
}
`

// withLimit replaces twice with a caller of clamp.
func withLimit(src string) string {
	return strings.Replace(src, "    public int twice(int x) {\n        return x * 2;\n    }\n",
		"    public int limit(int x, int low, int high) {\n        return clamp(x, low, high);\n    }\n", 1)
}

// clampBody is calcBuggy's clamp body.
const clampBody = "        int r = v;\n        if (r < lo) {\n            r = lo;\n        }\n        return r;\n"

// delBuggy has a line too many after the guard: its fix deletes it.
var delBuggy = strings.Replace(calcBuggy, "            r = lo;\n        }\n", "            r = lo;\n        }\n        r = lo + 1;\n", 1)

var calcFixed = strings.Replace(calcBuggy, "        return r;\n    }\n\n    public int twice", "        if (r > hi) {\n            r = hi;\n        }\n        return r;\n    }\n\n    public int twice", 1)

const pyBuggy = `import os


def clamp(v, lo, hi):
    r = v
    if r < lo:
        r = lo
    return r


def twice(x):
    return x * 2
`

var pyFixed = strings.Replace(pyBuggy, "        r = lo\n    return r", "        r = lo\n    if r > hi:\n        raise ValueError(\"value %s above the limit\" % r)\n    return r", 1)

// manyMethods is filler code that makes a file drift far from its old
// content (a one-jump rename search no longer pairs the two).
func manyMethods(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		name := string(rune('a'+i%26)) + strings.Repeat("x", i/26+1)
		b.WriteString("    public long " + name + "(long q) {\n        long s = q * " + name + "Base();\n        return s + " + strings.Repeat("1", i%5+1) + ";\n    }\n\n")
	}
	return b.String()
}

func d(y int) time.Time { return gittest.Date(y, 1, 1) }

func histCases() []histCase {
	drifted := strings.Replace(calcFixed, "    public int twice(int x) {\n        return x * 2;\n    }\n", manyMethods(40), 1)
	reverted := []edit{{date: d(2018), write: map[string]string{"src/p/Calc.java": calcBuggy}}}
	return []histCase{
		{name: "java file renamed, then heavily edited", path: "src/p/Calc.java", buggy: calcBuggy, fixed: calcFixed,
			later: []edit{{date: d(2016), rename: [2]string{"src/p/Calc.java", "src/p/core/Calculator.java"}},
				{date: d(2017), write: map[string]string{"src/p/core/Calculator.java": drifted}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantKinds: []string{"file-renamed"}, wantIntervals: 1},
		{name: "java file split", path: "src/p/Calc.java", buggy: calcBuggy, fixed: calcFixed,
			later: []edit{{date: d(2016), remove: []string{"src/p/Calc.java"}, write: map[string]string{
				"src/p/Clamp.java": "package p;\n\npublic class Clamp {\n" + between(calcFixed, "    public int clamp", "    public int twice") + "}\n",
				"src/p/Twice.java": "package p;\n\npublic class Twice {\n    public int twice(int x) {\n        return x * 2;\n    }\n}\n"}}},
			// git pairs Calc.java with one of the halves (a rename) or
			// none (a move): either way the chain reaches Clamp.java.
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantKinds: []string{"src/p/Clamp.java"}, wantIntervals: 1},
		{name: "java method moved while another file of the commit has one of its name", path: "src/p/Calc.java", buggy: calcBuggy, fixed: calcFixed,
			// As xarray's PandasIndexAdapter.dtype: the commit moves clamp
			// to Bounds.java and also changes Aaa.java, listed first, whose
			// own clamp is similar enough to pass alone; the closer body is
			// the descendant.
			later: []edit{{date: d(2016), write: map[string]string{
				"src/p/Calc.java":   strings.Replace(calcFixed, between(calcFixed, "    public int clamp", "    public int twice"), "", 1),
				"src/p/Bounds.java": "package p;\n\npublic class Bounds {\n" + between(calcFixed, "    public int clamp", "    public int twice") + "}\n",
				"src/p/Aaa.java":    "package p;\n\npublic class Aaa {\n    public int clamp(int v, int lo, int hi) {\n        return Math.max(lo, Math.min(v, hi));\n    }\n}\n"}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantKinds: []string{"src/p/Bounds.java"}, wantIntervals: 1},
		{name: "java method deleted while another file of the commit keeps its own copy", path: "src/p/Calc.java", buggy: calcBuggy, fixed: calcFixed,
			// As jackson-core's _parseNegNumber: Aaa.java has had a clamp
			// of its own since 2016; the 2017 commit deletes Calc's and
			// changes Aaa.java too. A function a file already had is no
			// move target: the fix is gone.
			later: []edit{{date: d(2016), write: map[string]string{"src/p/Aaa.java": aaaClamp("")}},
				{date: d(2017), write: map[string]string{
					"src/p/Calc.java": strings.Replace(calcFixed, between(calcFixed, "    public int clamp", "    public int twice"), "", 1),
					"src/p/Aaa.java":  aaaClamp("    public int zero() {\n        return 0;\n    }\n\n")}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Absent}, wantKinds: []string{"function-deleted"}, wantIntervals: 1},
		{name: "java class split: the body went to another file, the name stayed", path: "src/p/Calc.java", buggy: calcBuggy, fixed: calcFixed,
			// As xarray's PandasIndex.__init__ in 4bb9d9c: Calc.clamp keeps
			// its key with a new body, and its old body, fix included, is a
			// new Bounds.clamp.
			later: []edit{{date: d(2016), write: map[string]string{
				"src/p/Calc.java":   strings.Replace(calcFixed, between(calcFixed, "    public int clamp", "    public int twice"), "    public int clamp(int v, int lo, int hi) {\n        throw new UnsupportedOperationException(\"use Bounds instead\");\n    }\n\n", 1),
				"src/p/Bounds.java": "package p;\n\npublic class Bounds {\n" + between(calcFixed, "    public int clamp", "    public int twice") + "}\n"}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantKinds: []string{"moved-file src/p/Bounds.java"}, wantIntervals: 1},
		{name: "java lines extracted into a helper, then the stub deleted", path: "src/p/Calc.java", buggy: calcBuggy, fixed: calcFixed,
			// As jackson-core's _parseNegNumber(), which came to delegate
			// to _parsePossibleNumber and was then deleted: the fix lives
			// on in the helper.
			later: []edit{{date: d(2016), write: map[string]string{"src/p/Calc.java": withCap(calcFixed, true)}},
				{date: d(2017), write: map[string]string{"src/p/Calc.java": withCap(calcFixed, false)}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantKinds: []string{"its extracted lines live on in Calc.cap(int,int)"}, wantIntervals: 1},
		{name: "java file copied elsewhere, the old one kept as a shim", path: "src/p/Calc.java", buggy: calcBuggy, fixed: calcFixed,
			// As sympy's randtest.py, copied to sympy/testing/ with a shim
			// left: git reports a copy of the old file, which had clamp;
			// the copy is still a new file.
			later: []edit{{date: d(2016), write: map[string]string{
				"src/p/core/Calc.java": strings.Replace(calcFixed, "package p;", "package p.core;", 1),
				"src/p/Calc.java":      strings.Replace(calcFixed, between(calcFixed, "    public int clamp", "    public int twice"), "", 1)}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantKinds: []string{"moved-file src/p/core/Calc.java"}, wantIntervals: 1},
		{name: "java anonymous methods sharing a key: the fix's is followed", path: "src/p/Ad.java", buggy: adSrc(true, false), fixed: adSrc(true, true),
			// As Gson's TypeAdapters: two anonymous classes' read(int) have
			// one key and the fix is in the second; the first later moves
			// to a file of its own. Landing on the first, the walk went
			// with it.
			later: []edit{{date: d(2016), write: map[string]string{"src/p/Ad.java": adSrc(false, true),
				"src/p/Aread.java": "package p;\n\npublic class Aread {\n" + adRead + "}\n"}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantIntervals: 1},
		{name: "java method moved into the abstract class that only declared it", path: "src/p/Calc.java", buggy: calcBuggy, fixed: calcFixed,
			// As commons-math's ChiSquareTestImpl, merged into its interface
			// ChiSquareTest: the declaration there is no parallel
			// implementation, so the move is followed.
			later: []edit{{date: d(2016), write: map[string]string{"src/p/Bounds.java": "package p;\n\npublic abstract class Bounds {\n    public abstract int clamp(int v, int lo, int hi);\n}\n"}},
				{date: d(2017), write: map[string]string{
					"src/p/Calc.java":   strings.Replace(calcFixed, between(calcFixed, "    public int clamp", "    public int twice"), "", 1),
					"src/p/Bounds.java": "package p;\n\npublic class Bounds {\n" + between(calcFixed, "    public int clamp", "    public int twice") + "}\n"}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantKinds: []string{"moved-file src/p/Bounds.java"}, wantIntervals: 1},
		{name: "java method renamed", path: "src/p/Calc.java", buggy: calcBuggy, fixed: calcFixed,
			later:   []edit{{date: d(2016), write: map[string]string{"src/p/Calc.java": strings.Replace(calcFixed, "clamp(", "bound(", 1)}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantKinds: []string{"renamed"}, wantIntervals: 1},
		{name: "java method moved to another file", path: "src/p/Calc.java", buggy: calcBuggy, fixed: calcFixed,
			later: []edit{{date: d(2016), write: map[string]string{
				"src/p/Calc.java":   "package p;\n\npublic class Calc {\n    public int twice(int x) {\n        return x * 2;\n    }\n}\n",
				"src/p/Limits.java": "package p;\n\npublic class Limits {\n" + between(calcFixed, "    public int clamp", "    public int twice") + "}\n"}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantKinds: []string{"moved-file"}, wantIntervals: 1},
		{name: "java lines extracted into a helper", path: "src/p/Calc.java", buggy: calcBuggy, fixed: calcFixed,
			later: []edit{{date: d(2016), write: map[string]string{"src/p/Calc.java": strings.Replace(calcFixed,
				"        if (r > hi) {\n            r = hi;\n        }\n        return r;\n    }\n",
				"        return cap(r, hi);\n    }\n\n    private int cap(int r, int hi) {\n        if (r > hi) {\n            r = hi;\n        }\n        return r;\n    }\n", 1)}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantKinds: []string{"extracted"}, wantIntervals: 1},
		{name: "java method delegates to its overload", path: "src/p/Calc.java", buggy: withOverload(calcBuggy), fixed: withOverload(calcFixed),
			// The overload had the fix's lines already; the fixed method
			// comes to call it, so the lines left it for the overload.
			later: []edit{{date: d(2016), write: map[string]string{"src/p/Calc.java": strings.Replace(withOverload(calcFixed),
				between(calcFixed, "        int r = v;", "    public int twice"), "        return clamp(v, lo, hi, false);\n    }\n\n", 1)}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantKinds: []string{"extracted"}, wantIntervals: 1},
		{name: "java method leaves its lines to the overload it calls", path: "src/p/Calc.java", buggy: withOverload(calcBuggy),
			// As jackson-core's getValueAsString(): the fix adds the check
			// to a method that goes on to call its overload, which has it;
			// later the method keeps only the call.
			fixed: strings.Replace(withOverload(calcFixed), "        return r;\n    }\n\n    public int clamp(int v, int lo, int hi, boolean strict)",
				"        return clamp(r, lo, hi, false);\n    }\n\n    public int clamp(int v, int lo, int hi, boolean strict)", 1),
			later: []edit{{date: d(2016), write: map[string]string{"src/p/Calc.java": strings.Replace(withOverload(calcFixed),
				between(calcFixed, "        int r = v;", "    public int twice"), "        return clamp(v, lo, hi, false);\n    }\n\n", 1)}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantKinds: []string{"extracted"}, wantIntervals: 1},
		{name: "java method inlined into its caller", path: "src/p/Calc.java", buggy: calcBuggy, fixed: calcFixed,
			later: []edit{{date: d(2016), write: map[string]string{"src/p/Calc.java": "package p;\n\npublic class Calc {\n" +
				"    private int lo, hi;\n\n    public int twice(int x) {\n        int r = x * 2;\n        if (r < lo) {\n            r = lo;\n        }\n" +
				"        if (r > hi) {\n            r = hi;\n        }\n        return r;\n    }\n}\n"}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantKinds: []string{"inlined"}, wantIntervals: 1},
		{name: "java method inlined with the call's arguments for its parameters", path: "src/p/Calc.java",
			// As JxPath's compare(l, r) went into compute(left, right):
			// no line of clamp survives as it was.
			buggy: withLimit(calcBuggy), fixed: withLimit(calcFixed),
			later: []edit{{date: d(2016), write: map[string]string{"src/p/Calc.java": "package p;\n\npublic class Calc {\n" +
				"    public int limit(int x, int low, int high) {\n        int r = x;\n        if (r < low) {\n            r = low;\n        }\n" +
				"        if (r > high) {\n            r = high;\n        }\n        return r;\n    }\n}\n"}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantKinds: []string{"inlined"}, wantIntervals: 1},
		{name: "java file later saved as ISO-8859-1", path: "src/p/Calc.java", buggy: calcBuggy, fixed: calcFixed,
			// "J\xf6rg" is Latin-1, not UTF-8: read as UTF-8 the snapshot
			// would not parse and its raw lines would not match the fix's.
			// The method is renamed in the same commit, so following it
			// takes a parse of that version.
			later: []edit{{date: d(2016), write: map[string]string{"src/p/Calc.java": strings.Replace(strings.Replace(calcFixed,
				"public class Calc {\n", "/** @author J\xf6rg */\npublic class Calc {\n", 1), "clamp(", "bound(", 1)}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantKinds: []string{"renamed"}, wantIntervals: 1, wantReason: "tracked descendant"},
		{name: "java diamond and final modernisation", path: "src/p/Calc.java", buggy: calcBuggy,
			fixed:   strings.Replace(calcBuggy, "        int r = v;\n", "        int r = v;\n        java.util.List<Integer> seen = new java.util.ArrayList<Integer>();\n", 1),
			later:   []edit{{date: d(2016), write: map[string]string{"src/p/Calc.java": strings.Replace(calcBuggy, "        int r = v;\n", "        int r = v;\n        final java.util.List<Integer> seen = new java.util.ArrayList<>();\n", 1)}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantKinds: []string{"modified"}, wantIntervals: 1},
		{name: "java initCause idiom become a cause constructor", path: "src/p/Tar.java", buggy: tarSrc(tarBuggy), fixed: tarSrc(tarIdiom),
			// As Compress-12's getNextTarEntry once the project required
			// Java 6: the three lines of the idiom are one statement.
			later:   []edit{{date: d(2016), write: map[string]string{"src/p/Tar.java": tarSrc(tarCause)}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantKinds: []string{"modified"}, wantIntervals: 1},
		{name: "java initCause idiom whose cause was dropped", path: "src/p/Tar.java", buggy: tarSrc(tarBuggy), fixed: tarSrc(tarIdiom),
			// The catch now throws another exception without the cause:
			// the fix's conversion of the parse error is gone.
			later: []edit{{date: d(2016), write: map[string]string{"src/p/Tar.java": tarSrc(strings.Replace(tarCause,
				`throw new IOException("Error detected parsing the header", e);`, `return null;`, 1))}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Absent}, wantIntervals: 1},
		{name: "java fix line drifts in small steps", path: "src/p/Calc.java", buggy: calcBuggy, fixed: calcFixed,
			// Each step stays within the threshold (0.75, then 0.91);
			// one jump from the fix to 2017 sees 0.67.
			later: []edit{{date: d(2016), write: map[string]string{"src/p/Calc.java": strings.Replace(calcFixed, "if (r > hi) {", "if (r > hi && hi > lo) {", 1)}},
				{date: d(2017), write: map[string]string{"src/p/Calc.java": strings.Replace(calcFixed, "if (r > hi) {", "if (r > hi && hi > lo && strict) {", 1)}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantKinds: []string{"modified"}, wantIntervals: 1},
		{name: "java deletion with a drifted neighbour", path: "src/p/Calc.java", buggy: delBuggy, fixed: calcBuggy,
			// The fix deletes "r = lo + 1;"; later the guard before it is
			// rewritten, "r = lo;" and "return r;" still show the place.
			later:   []edit{{date: d(2016), write: map[string]string{"src/p/Calc.java": strings.Replace(calcBuggy, "if (r < lo) {", "if (lo > r && Limits.check(lo, hi)) {", 1)}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantIntervals: 1},
		{name: "java deletion whose context was rewritten", path: "src/p/Calc.java", buggy: delBuggy, fixed: calcBuggy,
			// As Compress-9's write(): no line around the deletion point
			// survives, but the walk followed the function and the
			// deleted line is nowhere in it.
			later:   []edit{{date: d(2016), write: map[string]string{"src/p/Calc.java": strings.Replace(calcBuggy, clampBody, "        return Math.max(v, this.min);\n", 1)}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantIntervals: 1},
		{name: "java deleted line back in rewritten context", path: "src/p/Calc.java", buggy: delBuggy, fixed: calcBuggy,
			later: []edit{{date: d(2016), write: map[string]string{"src/p/Calc.java": strings.Replace(calcBuggy, clampBody,
				"        int r = Math.max(v, lo);\n        r = lo + 1;\n        return Math.min(r, Integer.MAX_VALUE);\n", 1)}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Absent}, wantIntervals: 1, wantCause: CauseDeletedKept},
		{name: "java deleted line back", path: "src/p/Calc.java", buggy: delBuggy, fixed: calcBuggy,
			later:   []edit{{date: d(2016), write: map[string]string{"src/p/Calc.java": delBuggy}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Absent}, wantIntervals: 1, wantCause: CauseDeletedKept},
		{name: "java fix reverted years later", path: "src/p/Calc.java", buggy: calcBuggy, fixed: calcFixed, later: reverted,
			cutoffs: []time.Time{d(2017), d(2020)}, want: []string{Present, Absent}, wantIntervals: 1},
		{name: "java fix rewritten with other logic", path: "src/p/Calc.java", buggy: calcBuggy, fixed: calcFixed,
			later: []edit{{date: d(2016), write: map[string]string{"src/p/Calc.java": strings.Replace(calcFixed,
				"        if (r > hi) {\n            r = hi;\n        }\n", "        if (hi < lo) {\n            throw new IllegalStateException(\"empty range\");\n        }\n", 1)}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Absent}, wantIntervals: 1},
		{name: "java fix re-applied after a revert", path: "src/p/Calc.java", buggy: calcBuggy, fixed: calcFixed,
			later:   append(append([]edit{}, reverted...), edit{date: d(2019), write: map[string]string{"src/p/Calc.java": calcFixed}}),
			cutoffs: []time.Time{d(2018).AddDate(0, 6, 0), d(2020)}, want: []string{Absent, Present}, wantIntervals: 2},
		{name: "java fix merged after the cutoff", path: "src/p/Calc.java", buggy: calcBuggy, fixed: calcFixed, fixDate: d(2022),
			cutoffs: []time.Time{d(2020), d(2023)}, want: []string{Absent, Present}, wantIntervals: 1},
		{name: "java generic one-line block", path: "src/p/Loop.java",
			buggy:   "package p;\n\npublic class Loop {\n    public boolean has(int[] a, int k) {\n        boolean found = false;\n        for (int x : a) {\n            if (x == k) {\n                found = true;\n            }\n            if (x < 0) {\n                break;\n            }\n        }\n        return found;\n    }\n}\n",
			fixed:   "package p;\n\npublic class Loop {\n    public boolean has(int[] a, int k) {\n        boolean found = false;\n        for (int x : a) {\n            if (x == k) {\n                found = true;\n                break;\n            }\n            if (x < 0) {\n                break;\n            }\n        }\n        return found;\n    }\n}\n",
			later:   []edit{{date: d(2016), write: map[string]string{"src/p/Loop.java": "package p;\n\npublic class Loop {\n    public boolean has(int[] a, int k) {\n        boolean found = false;\n        for (int x : a) {\n            if (x == k) {\n                found = true;\n            }\n            if (x < 0) {\n                break;\n            }\n        }\n        return found;\n    }\n}\n"}}},
			cutoffs: []time.Time{d(2015).AddDate(0, 6, 0), d(2020)}, want: []string{Present, Absent}, wantIntervals: 1},
		{name: "java short line naming a field the fix adds", path: "src/p/Out.java", buggy: outBuggy, fixed: outFixed,
			// "dirty = false;" is short, but its field is the fix's own:
			// it is judged alone, not by its rewritten neighbours.
			later: []edit{{date: d(2016), write: map[string]string{"src/p/Out.java": strings.Replace(outFixed,
				"        flush();\n        closed = true;\n", "        if (!closed) {\n            sink.flush(buffer);\n            closed = count >= 0;\n        }\n", 1)}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantIntervals: 1},
		{name: "java enum constant bodies overriding one method", path: "src/p/Op.java", buggy: opEnum(opBuggyB, "int y = x"), fixed: opEnum(opFixedB, "int y = x"),
			later:   []edit{{date: d(2016), write: map[string]string{"src/p/Op.java": opEnum(strings.Replace(opFixedB, "- 8", "- 16", 1), "int v = x")}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantIntervals: 1},
		{name: "python table grown after the fix", path: "pkg/names.py", buggy: pyTable(0, false), fixed: pyTable(0, true),
			// The fix adds one entry; later commits add twenty: the line
			// is judged by the fix's entry, which is still there.
			later:   []edit{{date: d(2016), write: map[string]string{"pkg/names.py": pyTable(20, true)}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantIntervals: 1, patchOnly: true},
		{name: "python table entry extended after the fix", path: "pkg/opts.py", buggy: "OPTS = {\n    \"-a\": (True, _a),\n}\n",
			fixed: "OPTS = {\n    \"-a\": (True, _a),\n    \"-v\": (False, _verbose),\n}\n",
			// Every entry gains a field, as pylint's PREPROCESSABLE_OPTIONS
			// did: the fix's entry scores as a line would against its
			// descendant ("-v": (False, _verbose, 2)).
			later: []edit{{date: d(2016), write: map[string]string{"pkg/opts.py": "OPTS = {\n    \"-a\": (True, _a, 1),\n    \"-v\": (False, _verbose, 2),\n" +
				"    \"-q\": (False, _quiet, 0),\n    \"-o\": (True, _output, 3),\n    \"-x\": (False, _exit, 0),\n}\n"}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantIntervals: -1, patchOnly: true},
		{name: "python table entry removed after the fix", path: "pkg/names.py", buggy: pyTable(0, false), fixed: pyTable(0, true),
			// A module-level block has no function to follow: its lines
			// are followed by text, so the removal ends its interval.
			later:   []edit{{date: d(2016), write: map[string]string{"pkg/names.py": pyTable(1, false)}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Absent}, wantKinds: []string{"modified"}, wantIntervals: 1, patchOnly: true},
		{name: "python table entry removed, then restored", path: "pkg/names.py", buggy: pyTable(0, false), fixed: pyTable(0, true),
			// An edit elsewhere in the file (2016) is no state; the removal
			// (2017) and the restoration (2019) are: two intervals.
			later: []edit{{date: d(2016), write: map[string]string{"pkg/names.py": pyTable(1, true)}},
				{date: d(2017), write: map[string]string{"pkg/names.py": pyTable(1, false)}},
				{date: d(2019), write: map[string]string{"pkg/names.py": pyTable(2, true)}}},
			cutoffs: []time.Time{d(2018), d(2020)}, want: []string{Absent, Present}, wantKinds: []string{"modified"}, wantIntervals: 2, patchOnly: true},
		{name: "python module moved into a package", path: "pkg/limits.py", buggy: pyBuggy, fixed: pyFixed,
			later: []edit{{date: d(2016), rename: [2]string{"pkg/limits.py", "pkg/core/limits.py"}},
				{date: d(2017), write: map[string]string{"pkg/core/limits.py": pyFixed + "\n\ndef thrice(x):\n    return x * 3\n"}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantKinds: []string{"file-renamed"}, wantIntervals: 1, patchOnly: true},
		{name: "python f-string modernisation", path: "pkg/limits.py", buggy: pyBuggy, fixed: pyFixed,
			later:   []edit{{date: d(2016), write: map[string]string{"pkg/limits.py": strings.Replace(pyFixed, `raise ValueError("value %s above the limit" % r)`, `raise ValueError(f"value {r} above the limit")`, 1)}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantKinds: []string{"modified"}, wantIntervals: 1, patchOnly: true},
		{name: "python lines extracted into a helper", path: "pkg/limits.py", buggy: pyBuggy, fixed: pyFixed,
			later: []edit{{date: d(2016), write: map[string]string{"pkg/limits.py": strings.Replace(pyFixed,
				"    if r > hi:\n        raise ValueError(\"value %s above the limit\" % r)\n    return r\n",
				"    return _check_high(r, hi)\n\n\ndef _check_high(r, hi):\n    if r > hi:\n        raise ValueError(\"value %s above the limit\" % r)\n    return r\n", 1)}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantKinds: []string{"extracted"}, wantIntervals: 1, patchOnly: true},
		{name: "java unchanged lines gone, an added copy of theirs stays", path: "src/p/Loc.java", buggy: locBuggy, fixed: locFixed,
			// As Lang-5's toLocale: the fix's branch repeats the throw of
			// the checks around it; those checks later leave the function
			// (Lang-5: to parseLocale), so it holds fewer copies of that
			// line than the fixed function's unchanged lines claim. The
			// syntax-tree alignment, not the count, says which copy is
			// the fix's.
			later:   []edit{{date: d(2018), write: map[string]string{"src/p/Loc.java": locLater}}},
			cutoffs: []time.Time{d(2020)}, want: []string{Present}, wantIntervals: 1},
		{name: "python fix reverted", path: "pkg/limits.py", buggy: pyBuggy, fixed: pyFixed,
			later:   []edit{{date: d(2018), write: map[string]string{"pkg/limits.py": pyBuggy}}},
			cutoffs: []time.Time{d(2017), d(2020)}, want: []string{Present, Absent}, wantIntervals: 1, patchOnly: true, wantCause: CauseLinesMissing},
		{name: "python fix merged after the cutoff", path: "pkg/limits.py", buggy: pyBuggy, fixed: pyFixed, fixDate: d(2022),
			cutoffs: []time.Time{d(2020)}, want: []string{Absent}, wantIntervals: -1, patchOnly: true, wantReason: "fix not merged before the cutoff", wantCause: CauseNotMerged},
	}
}

const locBuggy = `package p;

public class Loc {
    public String parse(String s) {
        if (s.length() < 2) {
            throw new IllegalArgumentException("bad: " + s);
        }
        char c0 = s.charAt(0);
        char c1 = s.charAt(1);
        if (!Character.isLowerCase(c0)) {
            throw new IllegalArgumentException("bad: " + s);
        }
        if (!Character.isLowerCase(c1)) {
            throw new IllegalArgumentException("bad: " + s);
        }
        return s.substring(0, 2);
    }
}
`

var locBranch = `        if (c0 == '_') {
            if (s.length() < 3) {
                throw new IllegalArgumentException("bad: " + s);
            }
            return s.substring(1, 3);
        }
`

var locFixed = strings.Replace(locBuggy, "        char c1 = s.charAt(1);\n", locBranch+"        char c1 = s.charAt(1);\n", 1)

// locLater drops the lower-case checks around the fix's branch.
var locLater = strings.Replace(locFixed, locFixed[strings.Index(locFixed, "        char c1"):strings.Index(locFixed, "    }\n}\n")],
	"        return s.substring(0, 2).toLowerCase();\n", 1)

// between is the part of s from the line starting with from up to (not
// including) the line starting with to.
const outBuggy = `package p;

public class Out {
    private boolean closed;
    private int count;

    public void put(int b) {
        count++;
    }

    public void close() {
        flush();
        closed = true;
    }

    public void finish() {
        close();
    }
}
`

var outFixed = strings.NewReplacer("    private int count;\n", "    private int count;\n    private boolean dirty = false;\n",
	"        count++;\n", "        count++;\n        dirty = true;\n",
	"        closed = true;\n", "        closed = true;\n        dirty = false;\n").Replace(outBuggy)

// pyTable is a module with a name table of three entries, n more, and
// the fix's "max" entry when fixed.
func pyTable(n int, fixed bool) string {
	var b strings.Builder
	b.WriteString("known = {\n    \"exp\": \"Exp\",\n    \"log\": \"Log\",\n    \"sin\": \"Sin\",\n")
	if fixed {
		b.WriteString("    \"max\": \"Max\",\n")
	}
	for i := range n {
		fmt.Fprintf(&b, "    \"f%d\": \"F%d\",\n", i, i)
	}
	b.WriteString("}\n\n\ndef spell(name):\n    return known.get(name, name)\n")
	return b.String()
}

// withOverload adds to a Calc class an overload of clamp that has the
// upper bound already.
func withOverload(calc string) string {
	return strings.Replace(calc, "    public int twice", "    public int clamp(int v, int lo, int hi, boolean strict) {\n"+
		"        int r = v;\n        if (r < lo) {\n            r = lo;\n        }\n        if (r > hi) {\n            r = hi;\n        }\n"+
		"        return strict && r != v ? -1 : r;\n    }\n\n    public int twice", 1)
}

// withCap moves clamp's upper bound into a helper cap, and with stub
// false deletes clamp itself.
func withCap(calc string, stub bool) string {
	cap := "    private int cap(int r, int hi) {\n        if (r > hi) {\n            r = hi;\n        }\n        return r;\n    }\n"
	if !stub {
		return strings.Replace(calc, between(calc, "    public int clamp", "    public int twice"), cap+"\n", 1)
	}
	return strings.Replace(calc, "        if (r > hi) {\n            r = hi;\n        }\n        return r;\n    }\n",
		"        return cap(r, hi);\n    }\n\n"+cap, 1)
}

// adRead is the first anonymous read(int) of adSrc.
const adRead = "        public int read(int v) {\n            return Integer.reverse(v) ^ MASK_VALUE_ALPHA ^ Long.hashCode(SEED_BETA);\n        }\n"

// adSrc is a class with two anonymous objects defining read(int) (the
// first one only when first), the second clamped at zero when fixed.
func adSrc(first, fixed bool) string {
	var b strings.Builder
	b.WriteString("package p;\n\npublic class Ad {\n")
	if first {
		b.WriteString("    static final Object A = new Object() {\n" + adRead + "    };\n\n")
	}
	b.WriteString("    static final Object B = new Object() {\n        public int read(int v) {\n            int r = v;\n")
	if fixed {
		b.WriteString("            if (r < 0) {\n                r = 0;\n            }\n")
	}
	b.WriteString("            return r;\n        }\n    };\n}\n")
	return b.String()
}

// aaaClamp is a class Aaa with a clamp of its own (the fix's bound
// included) and extra members.
func aaaClamp(extra string) string {
	return "package p;\n\npublic class Aaa {\n" + extra + between(calcFixed, "    public int clamp", "    public int twice") + "}\n"
}

func between(s, from, to string) string {
	i, j := strings.Index(s, from), strings.Index(s, to)
	return s[i:j]
}

// build makes the case's repository: buggy (2014), fix, later edits.
func (hc histCase) build(t *testing.T) (*gitrepo.Repo, bench.Sample) {
	b := gittest.New(t)
	b.Write(hc.path, hc.buggy)
	b.Write("README.md", "calc\n")
	base := b.Commit("buggy", d(2014))
	fixDate := hc.fixDate
	if fixDate.IsZero() {
		fixDate = d(2015)
	}
	b.Write(hc.path, hc.fixed)
	fix := b.Commit("fix", fixDate)
	for i, e := range hc.later {
		if e.rename[0] != "" {
			b.Rename(e.rename[0], e.rename[1])
		}
		for _, p := range e.remove {
			b.Remove(p)
		}
		for p, c := range e.write {
			b.Write(p, c)
		}
		b.Commit("later "+string(rune('a'+i)), e.date)
	}
	b.Write("README.md", "calc, last\n")
	b.Commit("docs", d(2024))
	r, err := gitrepo.Open(context.Background(), b.Dir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	s := bench.Sample{ID: hc.name, Repo: "o/calc", BaseCommit: base, FixCommit: fix,
		Patch: diff.Unified("a/"+hc.path, "b/"+hc.path, []byte(hc.buggy), []byte(hc.fixed), 3).String()}
	if hc.patchOnly {
		s.FixCommit = ""
	}
	return r, s
}

// TestHistoryRules: one git history per rule of issue 13, Java and
// Python, each decided at its cutoffs in one pass, with the chain and the
// timeline checked.
func TestHistoryRules(t *testing.T) {
	for _, hc := range histCases() {
		t.Run(hc.name, func(t *testing.T) {
			r, s := hc.build(t)
			ctx := context.Background()
			snaps := snapshotsAt(t, r, hc.cutoffs)
			vs, err := New(Options{}).CheckAll(ctx, s, r, snaps)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range vs {
				if v.Verdict != hc.want[i] {
					t.Errorf("cutoff %s: %s (score %.2f, %s), want %s\n%s%s", hc.cutoffs[i].Format("2006-01-02"), v.Verdict, v.Score, v.Reason, hc.want[i], dump(v), chain(v))
				}
			}
			checkLastCutoff(t, hc, vs[len(vs)-1])
		})
	}
}

// snapshotsAt are r's snapshots at cutoffs.
func snapshotsAt(t *testing.T, r *gitrepo.Repo, cutoffs []time.Time) []gitrepo.Commit {
	t.Helper()
	var snaps []gitrepo.Commit
	for _, c := range cutoffs {
		sn, err := r.Snapshot(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		snaps = append(snaps, sn)
	}
	return snaps
}

// checkLastCutoff checks the verdict at hc's last cutoff: its cause and
// reason, and its history's chain steps and timeline.
func checkLastCutoff(t *testing.T, hc histCase, last Verdict) {
	t.Helper()
	if last.Cause == "" || hc.wantCause != "" && last.Cause != hc.wantCause {
		t.Errorf("cause %q, want %q", last.Cause, hc.wantCause)
	}
	if hc.wantReason != "" && !strings.Contains(last.Reason, hc.wantReason) {
		t.Errorf("reason %q, want %q", last.Reason, hc.wantReason)
	}
	if last.History == nil {
		t.Fatalf("no history chain in the verdict")
	}
	kinds := chain(last)
	for _, k := range hc.wantKinds {
		if !strings.Contains(kinds, k) {
			t.Errorf("chain %s lacks a %s step", kinds, k)
		}
	}
	if hc.wantIntervals >= 0 && len(last.History.Timeline) != hc.wantIntervals {
		t.Errorf("timeline %+v: want %d intervals", last.History.Timeline, hc.wantIntervals)
	}
}

func chain(v Verdict) string {
	if v.History == nil {
		return "(no history)"
	}
	var b strings.Builder
	b.WriteString("landed " + v.History.Landed + " via " + v.History.Via + "\n")
	for _, bh := range v.History.Blocks {
		for _, st := range bh.Chain {
			b.WriteString("  " + st.Date[:10] + " " + st.Kind + " " + st.Path + " " + st.Function + " " + st.Detail + "\n")
		}
	}
	return b.String()
}

// opEnum is a state-machine enum whose constants A and B override apply:
// the fix is in B's, and a later edit renames a local in both and changes
// the fix's bound, so the walk must tell the two apply(int) bodies apart
// (with one key for both it followed A's).
func opEnum(bBody, local string) string {
	return "package p;\n\nenum Op {\n    A {\n        int apply(int x) {\n            " + local + " * 3;\n            return y;\n        }\n    },\n" +
		"    B {\n        int apply(int x) {\n" + strings.ReplaceAll(bBody, "int y = x", local) + "        }\n    };\n\n    abstract int apply(int x);\n}\n"
}

const (
	opBuggyB = "            int y = x + 1;\n            return y;\n"
	opFixedB = "            int y = x + 1;\n            if (y > Integer.MAX_VALUE - 8) {\n                throw new ArithmeticException(\"overflow past the limit\");\n            }\n            return y;\n"
)

// tarSrc is a Tar.java whose next() reads an entry by body.
func tarSrc(body string) string {
	return "package p;\n\nimport java.io.IOException;\n\npublic class Tar {\n    private Entry cur;\n\n    public Entry next(byte[] header) throws IOException {\n        if (header == null) {\n            return null;\n        }\n" +
		body + "        cur.setOffset(0);\n        return cur;\n    }\n}\n"
}

const (
	tarBuggy = "        cur = new Entry(header);\n"
	tarIdiom = `        try {
            cur = new Entry(header);
        } catch (IllegalArgumentException e) {
            IOException ioe = new IOException("Error detected parsing the header");
            ioe.initCause(e);
            throw ioe;
        }
`
	tarCause = `        try {
            cur = new Entry(header);
        } catch (IllegalArgumentException e) {
            throw new IOException("Error detected parsing the header", e);
        }
`
)
