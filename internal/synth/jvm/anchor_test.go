package jvm

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// anchorCase is a must-apply (want set) or must-not-apply (want empty)
// example of one derivation rule: the method's header, one changed line
// of its fix, and every value the rule derives ("param=expr").
type anchorCase struct {
	rule, name, header, line string
	want                     []string
}

var anchorCases = []anchorCase{
	{rule: "null_test", name: "guard", header: "int f(String s)", line: "if (s == null) return 0;", want: []string{"s=null"}},
	{rule: "null_test", name: "reversed", header: "int f(Object o, int n)", line: "return null != o ? 1 : n;", want: []string{"o=null"}},
	{rule: "null_test", name: "primitive", header: "int f(int n)", line: "if (n == null) return 0;"},
	{rule: "null_test", name: "field", header: "int f(String cache)", line: "if (this.cache == null) return 0;"},
	{rule: "null_test", name: "local", header: "int f(String s)", line: "if (value != null) c.set(value);"},
	{rule: "null_test", name: "call result", header: "int f(Exception details)", line: "if (details.getCause() == null) {"},

	{rule: "self_test", name: "equals", header: "public boolean equals(Object obj)", line: "if (this == obj) {", want: []string{"obj=bfSelf"}},
	{rule: "self_test", name: "reversed", header: "int compare(Object a, Object other)", line: "if (other != this) return 1;", want: []string{"other=bfSelf"}},
	{rule: "self_test", name: "static", header: "static boolean same(Object obj)", line: "if (this == obj) {"},
	{rule: "self_test", name: "primitive", header: "boolean f(int n)", line: "if (n == this) {"},
	{rule: "self_test", name: "field", header: "boolean f(Object o)", line: "if (this.parent == this) {"},

	{rule: "element_null", name: "array element", header: "Class<?>[] f(Object[] array)", line: "classes[i] = array[i] == null ? null : array[i].getClass();",
		want: []string{`array=new Object[]{null}`, `array=new Object[]{"abc", null}`}},
	{rule: "element_null", name: "primitive elements", header: "int f(int[] a)", line: "if (a[i] == null) return 0;"},
	{rule: "element_null", name: "field array", header: "int f(int i)", line: "if (this.items[i] == null) return 0;"},

	{rule: "empty_test", name: "isEmpty", header: "char f(String s)", line: "if (s.isEmpty()) return ' ';", want: []string{`s=""`}},
	{rule: "empty_test", name: "array length", header: "int f(char[] chars)", line: "if (chars != null && chars.length == 0) {", want: []string{"chars=new char[0]"}},
	{rule: "empty_test", name: "list size", header: "int f(List<String> xs)", line: "if (xs.size() == 0) return -1;", want: []string{"xs=new java.util.ArrayList<>(java.util.Collections.nCopies(0, \"abc\"))"}},
	{rule: "empty_test", name: "nonzero", header: "int f(String s)", line: "if (s.length() == 1) return 0;"},
	{rule: "empty_test", name: "not a parameter", header: "int f(int i)", line: "if (buf.isEmpty()) return 0;"},

	{rule: "length_bound", name: "string", header: "Number f(String val)", line: "if (val.length() == 1 && !Character.isDigit(val.charAt(0))) {",
		want: []string{`val=""`, `val="a"`, `val="aa"`}},
	{rule: "length_bound", name: "array reversed", header: "double f(double[] a)", line: "if (2 < a.length) {",
		want: []string{"a=new double[1]", "a=new double[2]", "a=new double[3]"}},
	{rule: "length_bound", name: "named bound", header: "int f(String s)", line: "if (s.length() > MAX) return 0;"},
	{rule: "length_bound", name: "field", header: "int f(int i)", line: "if (this.buf.length > 8) return 0;"},

	{rule: "int_bound", name: "minutes", header: "DateTimeZone f(int hoursOffset, int minutesOffset)", line: "if (minutesOffset < -59 || minutesOffset > 59) {",
		want: []string{"minutesOffset=-60", "minutesOffset=-59", "minutesOffset=-58", "minutesOffset=58", "minutesOffset=59", "minutesOffset=60"}},
	{rule: "int_bound", name: "long reversed", header: "long f(long n)", line: "if (0 >= n) return 1;", want: []string{"n=-1L", "n=0L", "n=1L"}},
	{rule: "int_bound", name: "not numeric", header: "int f(String s)", line: "if (s == 3) return 0;"},
	{rule: "int_bound", name: "field", header: "int f(int size)", line: "if (this.size > 3) return 0;"},
	{rule: "int_bound", name: "local", header: "int f(int n)", line: "if (len == 1) return a[0];"},

	{rule: "length_relation", name: "lower", header: "String f(String str, int lower, int upper)", line: "if (lower > str.length()) {",
		want: []string{`lower=("abc").length() - 1`, `lower=("abc").length()`, `lower=("abc").length() + 1`}},
	{rule: "length_relation", name: "reversed long", header: "long f(int[] a, long i)", line: "if (a.length <= i) return 0;",
		want: []string{"i=(long) ((new int[]{1}).length - 1)", "i=(long) ((new int[]{1}).length)", "i=(long) ((new int[]{1}).length + 1)"}},
	{rule: "length_relation", name: "field relation", header: "int f(int i)", line: "if (i >= buffer.length) return 0;"},
	{rule: "length_relation", name: "not numeric", header: "int f(String s, String t)", line: "if (s == t.length()) return 0;"},

	{rule: "char_text", name: "compare", header: "boolean f(String str)", line: "if (!Character.isDigit(lastChar) && lastChar != '.') {",
		want: []string{`str="."`, `str="1."`, `str=".1"`}},
	{rule: "char_text", name: "char parameter", header: "boolean f(char c)", line: "return c == '_';", want: []string{"c='_'"}},
	{rule: "char_text", name: "no text parameter", header: "boolean f(int i)", line: "return buf[i] == '_';"},
	{rule: "char_text", name: "char not compared", header: "String f(String s)", line: "return s + '.';"},

	{rule: "char_run", name: "entity", header: "int f(CharSequence input, int index)", line: "if(input.charAt(index) == '&' && index < seqEnd - 2 && input.charAt(index + 1) == '#') {",
		want: []string{`input="&#"`}},
	{rule: "char_run", name: "one comparison", header: "int f(String s)", line: "if (s.charAt(0) == '&') {"},

	{rule: "string_text", name: "startsWith", header: "Number f(String str)", line: `if (str.startsWith("0x") || str.startsWith("-0X")) {`,
		want: []string{`str="0x"`, `str="0x1"`, `str="-0X"`, `str="-0X1"`}},
	{rule: "string_text", name: "literal receiver", header: "boolean f(String name)", line: `&& "cause".equals(name)) {`, want: []string{`name="cause"`, `name="cause1"`}},
	{rule: "string_text", name: "thrown message", header: "String f(String s)", line: `throw new IllegalArgumentException("must not be empty".equals(s) ? "a" : "b");`},
	{rule: "string_text", name: "no text parameter", header: "int f(int n)", line: `if (name.equals("x")) return n;`},

	{rule: "number_text", name: "widened parse", header: "void f(String val)", line: "currEntry.setGroupId(Long.parseLong(val));",
		want: []string{`val="2147483648"`, `val="-2147483649"`, `val="9223372036854775808"`, `val="1."`, `val=".1"`, `val="1e"`, `val="0x"`, `val="-0x1"`, `val="1L"`, `val="+1"`, `val="01"`, `val="1 "`}},
	{rule: "number_text", name: "no text parameter", header: "int f(int n)", line: "return Integer.parseInt(name) + n;"},
	{rule: "number_text", name: "no parse", header: "int f(String s)", line: "return s.length();"},

	{rule: "instanceof_test", name: "object", header: "void addValue(Object v)", line: "if (v instanceof Comparable<?>){",
		want: []string{"v=new Object()", "v=Integer.valueOf(1)", `v="abc"`}},
	{rule: "instanceof_test", name: "narrow type", header: "void f(Number n)", line: "if (n instanceof Integer) {"},
	{rule: "instanceof_test", name: "local", header: "void f(Object o)", line: "if (actual instanceof Class) {"},
	{rule: "instanceof_test", name: "project type", header: "boolean equals(Object obj)", line: "if (obj instanceof LeapYearPatternType) {",
		want: []string{"obj=new Object()", "obj=Integer.valueOf(1)", `obj="abc"`, "obj=new LeapYearPatternType(1)"}},
	{rule: "instanceof_test", name: "project type, narrow parameter", header: "boolean f(Pattern p)", line: "if (p instanceof LeapYearPatternType) {",
		want: []string{"p=new LeapYearPatternType(1)"}},

	{rule: "class_test", name: "identity", header: "JsonDeserializer<?> find(Class<?> rawType, String clsName)", line: "if (rawType == Timestamp.class) {",
		want: []string{"rawType=Timestamp.class"}},
	{rule: "class_test", name: "reversed equals", header: "boolean f(Class<?> c)", line: "return java.io.File.class.equals(c);", want: []string{"c=java.io.File.class"}},
	{rule: "class_test", name: "assignable", header: "boolean f(Class<?> c)", line: "if (Number.class.isAssignableFrom(c)) {", want: []string{"c=Number.class"}},
	{rule: "class_test", name: "not a Class", header: "boolean f(Object o)", line: "return o == String.class;"},
	{rule: "class_test", name: "local", header: "boolean f(Class<?> c)", line: "return raw == String.class;"},
	{rule: "class_test", name: "getClass", header: "boolean f(Class<?> c)", line: "return c.getClass() == String.class;"},

	{rule: "constant_equals", name: "own constant", header: "double parseDouble(String numStr)", line: "if (NASTY_SMALL_DOUBLE.equals(numStr)) {",
		want: []string{"numStr=Owner.NASTY_SMALL_DOUBLE"}},
	{rule: "constant_equals", name: "qualified, reversed", header: "boolean f(String name)", line: "return name.equals(Names.DEFAULT_NAME);",
		want: []string{"name=Names.DEFAULT_NAME"}},
	{rule: "constant_equals", name: "not a constant", header: "boolean f(String name)", line: "return name.equals(other);"},
	{rule: "constant_equals", name: "local", header: "boolean f(String name)", line: "return KEY.equals(value);"},
	{rule: "constant_equals", name: "primitive", header: "boolean f(int n)", line: "return MAX.equals(n);"},

	{rule: "constant_test", name: "enum", header: "String f(JsonToken t)", line: "if (t == JsonToken.VALUE_NULL) {", want: []string{"t=JsonToken.VALUE_NULL"}},
	{rule: "constant_test", name: "reversed", header: "boolean f(Object o)", line: "return Boolean.TRUE != o;", want: []string{"o=Boolean.TRUE"}},
	{rule: "constant_test", name: "primitive", header: "boolean f(int n)", line: "return n == Integer.MAX_VALUE;"},
	{rule: "constant_test", name: "local", header: "boolean f(JsonToken t)", line: "return cur == JsonToken.VALUE_NULL;"},
}

// TestAnchorRules runs every rule's examples, and checks that every rule
// has at least one must-apply and one must-not-apply example and that no
// example names an unknown rule.
func TestAnchorRules(t *testing.T) {
	byName := map[string]anchorRule{}
	for _, r := range anchorRules {
		byName[r.Name] = r
	}
	applies, skips := map[string]bool{}, map[string]bool{}
	for _, c := range anchorCases {
		r, ok := byName[c.rule]
		if !ok {
			t.Errorf("%s/%s: no such rule", c.rule, c.name)
			continue
		}
		if len(c.want) > 0 {
			applies[c.rule] = true
		} else {
			skips[c.rule] = true
		}
		a := testAnchorCtx(t, c.header)
		var got []string
		for _, v := range r.apply(a, codePart(c.line)) {
			got = append(got, a.params[v.Param].Name+"="+v.Expr)
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("%s/%s on %q: (-want +got)\n%s", c.rule, c.name, c.line, d)
		}
	}
	for _, r := range anchorRules {
		if !applies[r.Name] || !skips[r.Name] {
			t.Errorf("rule %s needs a must-apply and a must-not-apply example (have %v, %v)", r.Name, applies[r.Name], skips[r.Name])
		}
		if r.Doc == "" {
			t.Errorf("rule %s has no Doc", r.Name)
		}
	}
}

// testAnchorCtx is the rules' context for a method header, with the
// ordinary candidates the harness gives its parameters.
func testAnchorCtx(t *testing.T, header string) *anchorCtx {
	t.Helper()
	sig, err := ParseSignature(header + " {\n}\n")
	if err != nil {
		t.Fatalf("%s: %v", header, err)
	}
	a := &anchorCtx{params: sig.Params, vars: sig.TypeVars, owner: "Owner", instance: !sig.Static, build: func(typ string) string {
		if typ == "LeapYearPatternType" { // the one project type of the examples
			return "new LeapYearPatternType(1)"
		}
		return ""
	}}
	for _, p := range sig.Params {
		a.ords = append(a.ords, candidates(p.Type, sig.TypeVars)[0])
	}
	return a
}

// TestAnchorHarness checks the harness side: only changed lines are read
// (an unchanged null test derives nothing), derived values join the
// candidates, and the anchored vectors come first — each single-value
// vector, then two derived values together — ahead of the boundary
// search, without repeats.
func TestAnchorHarness(t *testing.T) {
	buggy := "static int f(String s, int n) {\n    if (s == null) return 0;\n    return s.charAt(n);\n}\n"
	fixed := "static int f(String s, int n) {\n    if (s == null) return 0;\n    if (n >= 3) return -1;\n    return s.charAt(n);\n}\n"
	h := newHarness(0, testCorpusPair(buggy, fixed))
	if h.failed != "" {
		t.Fatal(h.failed)
	}
	h.anchor()
	if d := cmp.Diff([]string{"int_bound"}, h.anchorRules); d != "" {
		t.Errorf("rules (-want +got)\n%s", d)
	}
	want := [][]string{{"", "2"}, {"", "3"}, {"", "4"}}
	if d := cmp.Diff(want, h.anchors); d != "" {
		t.Errorf("anchors (-want +got)\n%s", d)
	}
	h.argsClass(20)
	if h.nAnchored != 3 {
		t.Fatalf("nAnchored = %d, want 3", h.nAnchored)
	}
	var inputs []string
	for i := range 5 {
		inputs = append(inputs, h.input(i))
	}
	if d := cmp.Diff([]string{`f("abc", 2)`, `f("abc", 3)`, `f("abc", 4)`, `f("abc", 1)`, `f("abc", 0)`}, inputs); d != "" {
		t.Errorf("first inputs (-want +got)\n%s", d)
	}
	seen := map[string]bool{}
	for i := range h.vecs {
		if in := h.input(i); seen[in] {
			t.Errorf("input %s tried twice", in)
		} else {
			seen[in] = true
		}
	}
	if !slices.Contains(h.cands[1], "4") || strings.Count(strings.Join(h.cands[1], "|"), "|2|") != 1 {
		t.Errorf("int candidates %v: want 4 added and 2 once", h.cands[1])
	}
}

// TestAnchorPairs runs pairs whose trigger only a patch-anchored input
// reaches within a small budget through the real verifier; with the
// anchors off (the boundary search alone, which spends the budget on
// ordinary values) none of them is confirmed.
func TestAnchorPairs(t *testing.T) {
	opts := needJDK(t)
	opts.Budget = 8
	tps := readPairs(t, "testdata/anchored.txt")
	plain := opts
	plain.NoAnchors = true
	for id, e := range verifyAll(t, plain, tps) {
		if e.Criteria.C || e.Anchored != 0 {
			t.Errorf("%s without anchors: confirmed=%v anchored=%d; the pair does not need the anchors", id, e.Criteria.C, e.Anchored)
		}
	}
	got := verifyAll(t, opts, tps)
	for _, tp := range tps {
		e := got[tp.pair.PairID]
		checkPair(t, tp, e)
		if strings.Contains(tp.expect, "c") && (e.C == nil || !e.C.Anchored) {
			t.Errorf("%s: (c) not met by an anchored input: %+v (rules %v)", tp.pair.PairID, e.C, e.Anchors)
		}
	}
}

func testCorpusPair(buggy, fixed string) corpus.Pair {
	return corpus.Pair{PairID: "anchor-1", ErrorType: corpus.StringIndexOOB, Generator: "hand", BuggyMethod: buggy, FixedMethod: fixed}
}

// TestChangedLinesGuard: the unchanged if header above a changed branch
// is read with the changes (the branch runs under it); an unchanged whole
// if statement above a change (TestAnchorHarness's `if (s == null)
// return 0;`) and other unchanged lines are not.
func TestChangedLinesGuard(t *testing.T) {
	buggy := "int f(int n, String s) {\n    if (s == null) return 0;\n    if (n < -5) {\n        throw new IllegalArgumentException(\"n\");\n    }\n    return n;\n}\n"
	fixed := "int f(int n, String s) {\n    if (s == null) return 0;\n    if (n < -5) {\n        n = 0;\n    }\n    return n;\n}\n"
	want := []string{"    if (n < -5) {", "        throw new IllegalArgumentException(\"n\");", "        n = 0;"}
	if d := cmp.Diff(want, changedLines(buggy, fixed)); d != "" {
		t.Errorf("changed lines (-want +got)\n%s", d)
	}
}
