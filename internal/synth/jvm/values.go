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
	if depth > 2 {
		return []string{"null"}
	}
	elem := func(i int) jtype {
		if i < len(t.args) {
			return resolveVar(parseType(t.args[i]), vars)
		}
		return jtype{base: "Object"}
	}
	seq := func(mk string, sorted bool) []string {
		ev := candidatesOf(elem(0), vars, depth+1)
		v0, v1 := ev[0], ev[len(ev)-1]
		if len(ev) > 2 {
			v1 = ev[2]
		}
		out := []string{mk + "(java.util.Arrays.asList(" + v0 + "))", "null", mk + "()",
			mk + "(java.util.Arrays.asList(" + v0 + ", " + v1 + "))"}
		if !sorted {
			out = append(out, mk+"(java.util.Arrays.asList((Object) null))", mk+"(java.util.Arrays.asList("+v0+", null))")
		}
		return out
	}
	switch b := simple(t.base); b {
	case "int", "Integer":
		return withNull(b, []string{"1", "0", "-1", "2", "10", "Integer.MIN_VALUE", "Integer.MAX_VALUE"})
	case "long", "Long":
		return withNull(b, []string{"1L", "0L", "-1L", "2L", "Long.MIN_VALUE", "Long.MAX_VALUE"})
	case "short", "Short":
		return withNull(b, []string{"(short) 1", "(short) 0", "(short) -1", "Short.MIN_VALUE", "Short.MAX_VALUE"})
	case "byte", "Byte":
		return withNull(b, []string{"(byte) 1", "(byte) 0", "(byte) -1", "Byte.MIN_VALUE", "Byte.MAX_VALUE"})
	case "char", "Character":
		return withNull(b, []string{"'a'", "'0'", "' '", "'-'", "'\\0'", "'Z'"})
	case "float", "Float":
		return withNull(b, []string{"1.5f", "0f", "-1f", "Float.NaN", "Float.POSITIVE_INFINITY", "Float.MAX_VALUE"})
	case "double", "Double":
		return withNull(b, []string{"1.5", "0.0", "-1.0", "Double.NaN", "Double.POSITIVE_INFINITY", "Double.MAX_VALUE", "1e300"})
	case "boolean", "Boolean":
		return withNull(b, []string{"true", "false"})
	case "String", "CharSequence":
		return []string{`"abc"`, "null", `""`, `" "`, `"a"`, `"-"`, `"1.5"`, `"0x1"`, `"12"`, `"a,b"`, `"x".repeat(100000)`}
	case "Object", "Serializable":
		return []string{`"abc"`, "null", "Integer.valueOf(1)", "new Object()", `new String[]{"a"}`, "new java.util.ArrayList<Object>()", "Double.valueOf(1.5)"}
	case "Number":
		return []string{"Integer.valueOf(1)", "null", "Double.valueOf(1.5)", "Long.valueOf(-1)", "Double.valueOf(Double.NaN)"}
	case "Comparable":
		return []string{`"abc"`, "null", "Integer.valueOf(1)", `""`}
	case "List", "Collection", "Iterable", "ArrayList", "AbstractList", "AbstractCollection":
		return seq("new java.util.ArrayList<>", false)
	case "LinkedList", "Deque", "Queue":
		return seq("new java.util.LinkedList<>", false)
	case "Set", "HashSet", "LinkedHashSet":
		return seq("new java.util.LinkedHashSet<>", false)
	case "SortedSet", "NavigableSet", "TreeSet":
		return seq("new java.util.TreeSet<>", true)
	case "Map", "HashMap", "LinkedHashMap", "SortedMap", "TreeMap", "NavigableMap":
		mk := "new java.util.LinkedHashMap<>"
		if strings.Contains(b, "Sorted") || strings.Contains(b, "Tree") || strings.Contains(b, "Navigable") {
			mk = "new java.util.TreeMap<>"
		}
		kv := candidatesOf(elem(0), vars, depth+1)
		vv := candidatesOf(elem(1), vars, depth+1)
		k1 := kv[len(kv)-1]
		if len(kv) > 2 {
			k1 = kv[2]
		}
		return []string{"bfMap(" + mk + "(), " + kv[0] + ", " + vv[0] + ")", "null", mk + "()",
			"bfMap(" + mk + "(), " + kv[0] + ", null)", "bfMap(" + mk + "(), " + kv[0] + ", " + vv[0] + ", " + k1 + ", " + vv[len(vv)-1] + ")"}
	case "Iterator", "ListIterator":
		ev := candidatesOf(elem(0), vars, depth+1)
		return []string{"java.util.Arrays.asList(" + ev[0] + ").iterator()", "null", "java.util.Collections.emptyIterator()"}
	case "Optional":
		ev := candidatesOf(elem(0), vars, depth+1)
		return []string{"java.util.Optional.of(" + ev[0] + ")", "null", "java.util.Optional.empty()"}
	case "StringBuilder", "StringBuffer":
		return []string{"new " + b + `("abc")`, "null", "new " + b + "()"}
	case "BigDecimal":
		return []string{`new java.math.BigDecimal("1.5")`, "null", "java.math.BigDecimal.ZERO", `new java.math.BigDecimal("-1")`}
	case "BigInteger":
		return []string{"java.math.BigInteger.ONE", "null", "java.math.BigInteger.ZERO", "java.math.BigInteger.valueOf(-1)"}
	case "Class":
		return []string{"String.class", "null", "Object.class", "int.class"}
	case "Locale":
		return []string{"java.util.Locale.ROOT", "null", "java.util.Locale.US"}
	case "Date":
		return []string{"new java.util.Date(0)", "null"}
	}
	if vs, ok := concreteJDK[simple(t.base)]; ok {
		return append(slices.Clone(vs), "new "+t.erasure()+"()", t.erasure()+".values()[0]")
	}
	// Unknown or stub type: a default instance, the first enum constant,
	// null. Expressions that do not compile are dropped by the compile
	// loop (an interface has no constructor, a class no values()).
	e := t.erasure()
	return []string{"new " + e + "()", "null", e + ".values()[0]"}
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
	if limit <= 0 {
		return nil
	}
	if len(sizes) == 0 {
		return [][]int{{}}
	}
	maxSum := 0
	for _, n := range sizes {
		if n <= 0 {
			return nil
		}
		maxSum += n - 1
	}
	var out [][]int
	cur := make([]int, len(sizes))
	capAfter := make([]int, len(sizes)+1) // Σ (sizes[j]-1) for j ≥ i
	for i := len(sizes) - 1; i >= 0; i-- {
		capAfter[i] = capAfter[i+1] + sizes[i] - 1
	}
	var rec func(i, left int) bool
	rec = func(i, left int) bool {
		if left > capAfter[i] {
			return true
		}
		if i == len(sizes)-1 {
			if left <= sizes[i]-1 {
				cur[i] = left
				out = append(out, append([]int(nil), cur...))
				return len(out) < limit
			}
			return true
		}
		for v := 0; v <= min(left, sizes[i]-1); v++ {
			cur[i] = v
			if !rec(i+1, left-v) {
				return false
			}
		}
		return true
	}
	for s := 0; s <= maxSum; s++ {
		if !rec(0, s) {
			break
		}
	}
	return out
}
