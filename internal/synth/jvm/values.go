package jvm

import (
	"slices"
	"strings"
)

// concreteJDK gives JDK types that have no public no-argument constructor
// (abstract, or needing an argument) ordinary values through a concrete
// JDK class: the most ordinary first, then null and boundary values. Only
// JDK classes are used, so nothing of the code under test runs to build
// them. A receiver constructor takes the first (realclass.go); a type of
// the same simple name that is not the JDK's (a stub, a project class)
// still gets the default instance, appended after these, and the compile
// loop drops what does not compile. TestConcreteJDK holds the examples.
var concreteJDK = map[string][]string{
	"Reader":       {`new java.io.StringReader("abc")`, "null", `new java.io.StringReader("")`},
	"InputStream":  {"new java.io.ByteArrayInputStream(new byte[] {1, 2, 3})", "null", "new java.io.ByteArrayInputStream(new byte[0])"},
	"Writer":       {"new java.io.StringWriter()", "null"},
	"OutputStream": {"new java.io.ByteArrayOutputStream()", "null"},
	"Appendable":   {"new StringBuilder()", "null"},
	"File":         {`new java.io.File("benchforge-absent")`, "null", `new java.io.File("")`},
	"Charset":      {"java.nio.charset.StandardCharsets.UTF_8", "null", "java.nio.charset.StandardCharsets.US_ASCII"},
	"TimeZone":     {`java.util.TimeZone.getTimeZone("UTC")`, "null"},
	"Pattern":      {`java.util.regex.Pattern.compile("a")`, "null", `java.util.regex.Pattern.compile("")`},
	"Random":       {"new java.util.Random(1)", "null"},
	"Type":         {"String.class", "null", "int.class"},
	// A parse position at the start, past a three-character text's end
	// ("abc", the ordinary string) and before its start: commons-math's
	// CompositeFormat parsers, Format.parseObject (issue 16: ten grounded
	// pairs had only null, since ParsePosition has no no-argument
	// constructor).
	"ParsePosition": {"new java.text.ParsePosition(0)", "null", "new java.text.ParsePosition(3)", "new java.text.ParsePosition(1)", "new java.text.ParsePosition(-1)"},
}

// candidates returns Java expressions to try for a parameter of type s,
// the most ordinary value first (so that varying one parameter at a time
// from the all-ordinary vector isolates it), then null and boundary
// values. vars maps the method's type variables to their bounds. Every
// expression has the parameter's runtime type once boxed, so reflection
// can pass it.
func candidates(s string, vars map[string]string) []string {
	return candidatesOf(resolveVar(parseType(s), vars), vars, 0)
}

func candidatesOf(t jtype, vars map[string]string, depth int) []string {
	if t.dims > 0 {
		return arrayCandidates(t, vars, depth)
	}
	b := simple(t.base)
	if vs, ok := valueCandidates(b); ok {
		return vs // no recursion: a primitive is never null however deep
	}
	if depth > 2 {
		return []string{"null"}
	}
	if gen, ok := containerCandidates[b]; ok {
		return gen(func(i int) []string { return candidatesOf(typeArg(t, i, vars), vars, depth+1) })
	}
	if vs, ok := concreteJDK[b]; ok {
		return append(slices.Clone(vs), "new "+t.erasure()+"()", t.erasure()+".values()[0]")
	}
	// Unknown or stub type: a default instance, the first enum constant,
	// null. Expressions that do not compile are dropped by the compile
	// loop (an interface has no constructor, a class no values()).
	e := t.erasure()
	return []string{"new " + e + "()", "null", e + ".values()[0]"}
}

// arrayCandidates are the candidates of an array type: one ordinary
// element, null, the empty array, three elements when the element type
// has boundary values, and a null element where one fits.
func arrayCandidates(t jtype, vars map[string]string, depth int) []string {
	e := resolveVar(t.elem(), vars)
	ev := candidatesOf(e, vars, depth+1)
	ne := e.base + "[]" + strings.Repeat("[]", e.dims)
	out := []string{"new " + ne + "{" + ev[0] + "}", "null", "new " + e.base + "[0]" + strings.Repeat("[]", e.dims)}
	if len(ev) >= 3 {
		out = append(out, "new "+ne+"{"+ev[0]+", "+ev[len(ev)-1]+", "+ev[2]+"}")
	}
	if !primitives[e.base] || e.dims > 0 {
		out = append(out, "new "+ne+"{null}")
	}
	return out
}

// typeArg is t's generic argument i, Object when t is raw.
func typeArg(t jtype, i int, vars map[string]string) jtype {
	if i < len(t.args) {
		return resolveVar(parseType(t.args[i]), vars)
	}
	return jtype{base: "Object"}
}

// primitiveCandidates are the values of each primitive type, the most
// ordinary first; its box gets null second (valueCandidates).
var primitiveCandidates = map[string][]string{
	"int":     {"1", "0", "-1", "2", "10", "Integer.MIN_VALUE", "Integer.MAX_VALUE"},
	"long":    {"1L", "0L", "-1L", "2L", "Long.MIN_VALUE", "Long.MAX_VALUE"},
	"short":   {"(short) 1", "(short) 0", "(short) -1", "Short.MIN_VALUE", "Short.MAX_VALUE"},
	"byte":    {"(byte) 1", "(byte) 0", "(byte) -1", "Byte.MIN_VALUE", "Byte.MAX_VALUE"},
	"char":    {"'a'", "'0'", "' '", "'-'", "'\\0'", "'Z'"},
	"float":   {"1.5f", "0f", "-1f", "Float.NaN", "Float.POSITIVE_INFINITY", "Float.MAX_VALUE"},
	"double":  {"1.5", "0.0", "-1.0", "Double.NaN", "Double.POSITIVE_INFINITY", "Double.MAX_VALUE", "1e300"},
	"boolean": {"true", "false"},
}

// jdkValueCandidates are the candidates of the JDK value types, null
// second.
var jdkValueCandidates = map[string][]string{
	// "0x" and "1e" last: number texts cut after their prefix (a parser
	// reading past the end).
	"String":        {`"abc"`, "null", `""`, `" "`, `"a"`, `"-"`, `"1.5"`, `"0x1"`, `"12"`, `"a,b"`, `"x".repeat(100000)`, `"0x"`, `"1e"`},
	"CharSequence":  {`"abc"`, "null", `""`, `" "`, `"a"`, `"-"`, `"1.5"`, `"0x1"`, `"12"`, `"a,b"`, `"x".repeat(100000)`, `"0x"`, `"1e"`},
	"Object":        {`"abc"`, "null", "Integer.valueOf(1)", "new Object()", `new String[]{"a"}`, "new java.util.ArrayList<Object>()", "Double.valueOf(1.5)"},
	"Serializable":  {`"abc"`, "null", "Integer.valueOf(1)", "new Object()", `new String[]{"a"}`, "new java.util.ArrayList<Object>()", "Double.valueOf(1.5)"},
	"Number":        {"Integer.valueOf(1)", "null", "Double.valueOf(1.5)", "Long.valueOf(-1)", "Double.valueOf(Double.NaN)"},
	"Comparable":    {`"abc"`, "null", "Integer.valueOf(1)", `""`},
	"StringBuilder": {`new StringBuilder("abc")`, "null", "new StringBuilder()"},
	"StringBuffer":  {`new StringBuffer("abc")`, "null", "new StringBuffer()"},
	"BigDecimal":    {`new java.math.BigDecimal("1.5")`, "null", "java.math.BigDecimal.ZERO", `new java.math.BigDecimal("-1")`},
	"BigInteger":    {"java.math.BigInteger.ONE", "null", "java.math.BigInteger.ZERO", "java.math.BigInteger.valueOf(-1)"},
	"Class":         {"String.class", "null", "Object.class", "int.class"},
	"Locale":        {"java.util.Locale.ROOT", "null", "java.util.Locale.US"},
	"Date":          {"new java.util.Date(0)", "null"},
}

// valueCandidates are the candidates of a primitive, its box or a JDK
// value type named b (simple name), each call a fresh slice.
func valueCandidates(b string) ([]string, bool) {
	if p, ok := boxes[b]; ok {
		return withNull(b, primitiveCandidates[p]), true
	}
	if vs, ok := primitiveCandidates[b]; ok {
		return slices.Clone(vs), true
	}
	vs, ok := jdkValueCandidates[b]
	return slices.Clone(vs), ok
}

// typeArgCandidates gives the candidates of a container's type argument i.
type typeArgCandidates func(i int) []string

// containerCandidates build the candidates of the JDK's generic
// containers (simple name) from those of their type arguments.
var containerCandidates = byName([]containerRule{
	{[]string{"List", "Collection", "Iterable", "ArrayList", "AbstractList", "AbstractCollection"}, seqCandidates("new java.util.ArrayList<>", false)},
	{[]string{"LinkedList", "Deque", "Queue"}, seqCandidates("new java.util.LinkedList<>", false)},
	{[]string{"Set", "HashSet", "LinkedHashSet"}, seqCandidates("new java.util.LinkedHashSet<>", false)},
	{[]string{"SortedSet", "NavigableSet", "TreeSet"}, seqCandidates("new java.util.TreeSet<>", true)},
	{[]string{"Map", "HashMap", "LinkedHashMap"}, mapCandidates("new java.util.LinkedHashMap<>")},
	{[]string{"SortedMap", "TreeMap", "NavigableMap"}, mapCandidates("new java.util.TreeMap<>")},
	{[]string{"Iterator", "ListIterator"}, wrapperCandidates("java.util.Arrays.asList(%s).iterator()", "java.util.Collections.emptyIterator()")},
	{[]string{"Optional"}, wrapperCandidates("java.util.Optional.of(%s)", "java.util.Optional.empty()")},
})

// containerRule is one row of containerCandidates: the type names that
// share a generator.
type containerRule struct {
	names []string
	gen   func(typeArgCandidates) []string
}

func byName(rules []containerRule) map[string]func(typeArgCandidates) []string {
	m := map[string]func(typeArgCandidates) []string{}
	for _, r := range rules {
		for _, n := range r.names {
			m[n] = r.gen
		}
	}
	return m
}

// seqCandidates are a collection built by mk (a constructor taking a
// collection): one ordinary element, null, empty, two elements and,
// unless the collection is sorted (where null cannot be compared), a
// null element alone and after an ordinary one.
func seqCandidates(mk string, sorted bool) func(typeArgCandidates) []string {
	return func(arg typeArgCandidates) []string {
		ev := arg(0)
		v0, v1 := ev[0], thirdOrLast(ev)
		out := []string{mk + "(java.util.Arrays.asList(" + v0 + "))", "null", mk + "()",
			mk + "(java.util.Arrays.asList(" + v0 + ", " + v1 + "))"}
		if !sorted {
			out = append(out, mk+"(java.util.Arrays.asList((Object) null))", mk+"(java.util.Arrays.asList("+v0+", null))")
		}
		return out
	}
}

// mapCandidates are a map built by mk and filled by the harness's bfMap:
// one ordinary entry, null, empty, a null value and two entries.
func mapCandidates(mk string) func(typeArgCandidates) []string {
	return func(arg typeArgCandidates) []string {
		kv, vv := arg(0), arg(1)
		k1 := thirdOrLast(kv)
		return []string{"bfMap(" + mk + "(), " + kv[0] + ", " + vv[0] + ")", "null", mk + "()",
			"bfMap(" + mk + "(), " + kv[0] + ", null)", "bfMap(" + mk + "(), " + kv[0] + ", " + vv[0] + ", " + k1 + ", " + vv[len(vv)-1] + ")"}
	}
}

// wrapperCandidates are a one-element wrapper (format of, around the
// ordinary element), null and the empty wrapper.
func wrapperCandidates(of, empty string) func(typeArgCandidates) []string {
	return func(arg typeArgCandidates) []string {
		return []string{strings.Replace(of, "%s", arg(0)[0], 1), "null", empty}
	}
}

// thirdOrLast is a second element value distinct from the ordinary one:
// the third candidate (the first after null), or the last.
func thirdOrLast(ev []string) string {
	if len(ev) > 2 {
		return ev[2]
	}
	return ev[len(ev)-1]
}

// withNull adds null, second, for a boxed type.
func withNull(b string, vals []string) []string {
	if primitives[b] {
		return vals
	}
	return append([]string{vals[0], "null"}, vals[1:]...)
}

// vectors enumerates argument index vectors over sizes in order of
// increasing total index (all-ordinary first, then every single-parameter
// variation, then pairs, …), lexicographic within a level, up to limit.
func vectors(sizes []int, limit int) [][]int {
	if limit <= 0 || slices.ContainsFunc(sizes, func(n int) bool { return n <= 0 }) {
		return nil
	}
	if len(sizes) == 0 {
		return [][]int{{}}
	}
	g := &vectorGen{sizes: sizes, limit: limit, cur: make([]int, len(sizes)), capAfter: make([]int, len(sizes)+1)}
	for i := len(sizes) - 1; i >= 0; i-- {
		g.capAfter[i] = g.capAfter[i+1] + sizes[i] - 1
	}
	for s := 0; s <= g.capAfter[0]; s++ {
		if !g.level(0, s) {
			break
		}
	}
	return g.out
}

// vectorGen is vectors' enumeration state.
type vectorGen struct {
	sizes    []int
	limit    int
	cur      []int
	capAfter []int // Σ (sizes[j]-1) for j ≥ i
	out      [][]int
}

// level fills cur[i:] with every split of left, lexicographic, and
// reports whether the limit still allows more.
func (g *vectorGen) level(i, left int) bool {
	if left > g.capAfter[i] {
		return true
	}
	if i == len(g.sizes)-1 {
		if left <= g.sizes[i]-1 {
			g.cur[i] = left
			g.out = append(g.out, append([]int(nil), g.cur...))
			return len(g.out) < g.limit
		}
		return true
	}
	for v := 0; v <= min(left, g.sizes[i]-1); v++ {
		g.cur[i] = v
		if !g.level(i+1, left-v) {
			return false
		}
	}
	return true
}
