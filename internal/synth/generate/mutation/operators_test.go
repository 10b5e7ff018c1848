package mutation

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// opCase is a must-apply (want set) or must-not-apply (want empty) example
// of one operator, in the style of gitleaks' rule tests.
type opCase struct {
	op, name, src string
	want          []string // every buggy method the operator must produce, in site order
	typ           string   // exception type of the sites
}

var opCases = []opCase{
	// ---- remove_null_guard ----
	{op: "remove_null_guard", name: "if return", typ: corpus.NullPointer,
		src:  "int len(String s) {\n    if (s == null) return 0;\n    return s.length();\n}",
		want: []string{"int len(String s) {\n    return s.length();\n}"}},
	{op: "remove_null_guard", name: "or chain throw", typ: corpus.NullPointer,
		src:  "void f(Object a, Object b) {\n    if (a == null || b == null) {\n        throw new NullPointerException();\n    }\n    a.hashCode();\n}",
		want: []string{"void f(Object a, Object b) {\n    a.hashCode();\n}"}},
	{op: "remove_null_guard", name: "conjunct", typ: corpus.NullPointer,
		src:  "boolean f(String s) {\n    return s != null && s.isEmpty();\n}",
		want: []string{"boolean f(String s) {\n    return s.isEmpty();\n}"}},
	{op: "remove_null_guard", name: "disjunct", typ: corpus.NullPointer,
		src:  "boolean f(String s) {\n    return s == null || s.isEmpty();\n}",
		want: []string{"boolean f(String s) {\n    return s.isEmpty();\n}"}},
	{op: "remove_null_guard", name: "ternary", typ: corpus.NullPointer,
		src:  "int f(int[] a) {\n    return a == null ? 0 : a[0];\n}",
		want: []string{"int f(int[] a) {\n    return a[0];\n}"}},
	{op: "remove_null_guard", name: "field guard", typ: corpus.NullPointer,
		src:  "void f() {\n    if (this.cache == null) return;\n    this.cache.clear();\n}",
		want: []string{"void f() {\n    this.cache.clear();\n}"}},
	{op: "remove_null_guard", name: "no later dereference",
		src: "int f(String s) {\n    if (s == null) return 0;\n    return 1;\n}"},
	{op: "remove_null_guard", name: "dereference past the protected statement",
		src: "int f(int[] a, int i) {\n    if (a == null) return 0;\n    if (i < 0) {\n        i = 0;\n    }\n    return a[i];\n}"},
	{op: "remove_null_guard", name: "the only break out of an endless loop",
		src: "Object f(Node b) {\n    while (true) {\n        if (b == null) {\n            break;\n        }\n        b = b.next;\n    }\n    return null;\n}"},
	{op: "remove_null_guard", name: "break out of a loop with a condition", typ: corpus.NullPointer,
		src:  "int f(Node b, int n) {\n    while (n > 0) {\n        if (b == null) {\n            break;\n        }\n        b = b.next;\n        n--;\n    }\n    return n;\n}",
		want: []string{"int f(Node b, int n) {\n    while (n > 0) {\n        b = b.next;\n        n--;\n    }\n    return n;\n}"}},
	{op: "remove_null_guard", name: "guard with else",
		src: "int f(String s) {\n    if (s == null) return 0; else log();\n    return s.length();\n}"},
	{op: "remove_null_guard", name: "guard does not exit",
		src: "int f(String s) {\n    if (s == null) s = \"\";\n    return s.length();\n}"},
	{op: "remove_null_guard", name: "non-null test",
		src: "int f(String s) {\n    if (s.isEmpty()) return 0;\n    return s.length();\n}"},
	{op: "remove_null_guard", name: "guard in an anonymous class the call does not run",
		src: "Runnable f(final String s) {\n    return new Runnable() {\n        public void run() {\n            if (s == null) return;\n            s.trim();\n        }\n    };\n}"},
	{op: "remove_null_guard", name: "conjunct not dereferencing",
		src: "boolean f(String s, String t) {\n    return s != null && t.isEmpty();\n}"},

	// ---- remove_bounds_check ----
	{op: "remove_bounds_check", name: "array guard", typ: corpus.ArrayIndexOOB,
		src:  "int f(int[] a, int i) {\n    if (i < 0 || i >= a.length) {\n        return -1;\n    }\n    return a[i];\n}",
		want: []string{"int f(int[] a, int i) {\n    return a[i];\n}"}},
	{op: "remove_bounds_check", name: "string guard", typ: corpus.StringIndexOOB,
		src:  "char f(String s) {\n    if (s.length() == 0) return ' ';\n    return s.charAt(0);\n}",
		want: []string{"char f(String s) {\n    return s.charAt(0);\n}"}},
	{op: "remove_bounds_check", name: "conjunct", typ: corpus.ArrayIndexOOB,
		src:  "boolean f(int[] a, int i) {\n    return i < a.length && a[i] > 0;\n}",
		want: []string{"boolean f(int[] a, int i) {\n    return a[i] > 0;\n}"}},
	{op: "remove_bounds_check", name: "isEmpty helper", typ: corpus.StringIndexOOB,
		src:  "String f(String str) {\n    if (str == null || StringUtils.isEmpty(str)) {\n        return str;\n    }\n    return str.substring(1);\n}",
		want: []string{"String f(String str) {\n    return str.substring(1);\n}"}},
	{op: "remove_bounds_check", name: "isEmpty on an array", typ: corpus.ArrayIndexOOB,
		src:  "int f(int[] a) {\n    if (ArrayUtils.isEmpty(a)) return 0;\n    return a[0];\n}",
		want: []string{"int f(int[] a) {\n    return a[0];\n}"}},
	{op: "remove_bounds_check", name: "access after a loop over the length", typ: corpus.ArrayIndexOOB,
		src:  "int f(int[] a) {\n    if (a.length == 0) return 0;\n    int s = 0;\n    for (int i = 0; i < a.length; i++) s += a[i];\n    return s + a[0];\n}",
		want: []string{"int f(int[] a) {\n    int s = 0;\n    for (int i = 0; i < a.length; i++) s += a[i];\n    return s + a[0];\n}"}},
	{op: "remove_bounds_check", name: "isEmpty before a loop over the length",
		src: "int f(char[] cs) {\n    if (ArrayUtils.isEmpty(cs)) return -1;\n    for (int i = 0; i < cs.length; i++) {\n        if (cs[i] == 'a') return i;\n    }\n    return -1;\n}"},
	{op: "remove_bounds_check", name: "string loop bounded through a local",
		src: "int f(CharSequence cs) {\n    if (StringUtils.isEmpty(cs)) return -1;\n    final int csLen = cs.length();\n    for (int i = 0; i < csLen; i++) {\n        if (Character.isDigit(cs.charAt(i))) return i;\n    }\n    return -1;\n}"},
	{op: "remove_bounds_check", name: "list isEmpty is out of scope",
		src: "Object f(java.util.List<Object> l) {\n    if (l.isEmpty()) return null;\n    return l.get(0);\n}"},
	{op: "remove_bounds_check", name: "no access after",
		src: "int f(int[] a, int i) {\n    if (i >= a.length) return -1;\n    return i;\n}"},
	{op: "remove_bounds_check", name: "condition is not a comparison",
		src: "int f(int[] a, int i) {\n    if (check(a.length)) return -1;\n    return a[i];\n}"},
	{op: "remove_bounds_check", name: "list size is out of scope",
		src: "Object f(java.util.List<Object> l, int i) {\n    if (i >= l.size()) return null;\n    return l.get(i);\n}"},

	// ---- loosen_comparison ----
	{op: "loosen_comparison", name: "for loop", typ: corpus.ArrayIndexOOB,
		src:  "int f(int[] a) {\n    int s = 0;\n    for (int i = 0; i < a.length; i++) {\n        s += a[i];\n    }\n    return s;\n}",
		want: []string{"int f(int[] a) {\n    int s = 0;\n    for (int i = 0; i <= a.length; i++) {\n        s += a[i];\n    }\n    return s;\n}"}},
	{op: "loosen_comparison", name: "reversed string guard", typ: corpus.StringIndexOOB,
		src:  "char f(String s, int i) {\n    if (s.length() > i) return s.charAt(i);\n    return ' ';\n}",
		want: []string{"char f(String s, int i) {\n    if (s.length() >= i) return s.charAt(i);\n    return ' ';\n}"}},
	{op: "loosen_comparison", name: "exit guard", typ: corpus.ArrayIndexOOB,
		src:  "int f(int[] a, int i) {\n    if (i >= a.length) return 0;\n    return a[i];\n}",
		want: []string{"int f(int[] a, int i) {\n    if (i > a.length) return 0;\n    return a[i];\n}"}},
	{op: "loosen_comparison", name: "index is another variable",
		src: "int f(int[] a, int j) {\n    for (int i = 0; i < a.length; i++) j += a[j];\n    return j;\n}"},
	{op: "loosen_comparison", name: "substring tolerates length",
		src: "String f(String s, int i) {\n    if (i < s.length()) return s.substring(i);\n    return s;\n}"},

	// ---- index_off_by_one ----
	{op: "index_off_by_one", name: "last element", typ: corpus.ArrayIndexOOB,
		src:  "int last(int[] a) {\n    return a[a.length - 1];\n}",
		want: []string{"int last(int[] a) {\n    return a[a.length];\n}"}},
	{op: "index_off_by_one", name: "last char via variable", typ: corpus.StringIndexOOB,
		src:  "char last(String s) {\n    int i = s.length() - 1;\n    return s.charAt(i);\n}",
		want: []string{"char last(String s) {\n    int i = s.length();\n    return s.charAt(i);\n}"}},
	{op: "index_off_by_one", name: "length passed on",
		src: "int f(int[] a) {\n    return count(a, a.length - 1);\n}"},
	{op: "index_off_by_one", name: "minus two",
		src: "int f(int[] a) {\n    return a[a.length - 2];\n}"},

	// ---- remove_index_guard ----
	{op: "remove_index_guard", name: "indexOf result", typ: corpus.StringIndexOOB,
		src:  "String f(String s) {\n    int i = s.indexOf('.');\n    if (i < 0) {\n        return s;\n    }\n    return s.substring(i);\n}",
		want: []string{"String f(String s) {\n    int i = s.indexOf('.');\n    return s.substring(i);\n}"}},
	{op: "remove_index_guard", name: "minus one chain", typ: corpus.ArrayIndexOOB,
		src:  "int f(int[] a, int i, int j) {\n    if (i == -1 || j < 0) return 0;\n    return a[j];\n}",
		want: []string{"int f(int[] a, int i, int j) {\n    return a[j];\n}"}},
	{op: "remove_index_guard", name: "conjunct", typ: corpus.StringIndexOOB,
		src:  "boolean f(String s, int i) {\n    return i >= 0 && s.charAt(i) == 'x';\n}",
		want: []string{"boolean f(String s, int i) {\n    return s.charAt(i) == 'x';\n}"}},
	{op: "remove_index_guard", name: "mirrored test in a disjunct", typ: corpus.StringIndexOOB,
		src:  "boolean f(String s, int i) {\n    return i < 0 || s.substring(0, i).isEmpty();\n}",
		want: []string{"boolean f(String s, int i) {\n    return s.substring(0, i).isEmpty();\n}"}},
	{op: "remove_index_guard", name: "not-found constant", typ: corpus.StringIndexOOB,
		src:  "String f(String s, String sep) {\n    final int pos = s.indexOf(sep);\n    if (pos == INDEX_NOT_FOUND) {\n        return s;\n    }\n    return s.substring(0, pos);\n}",
		want: []string{"String f(String s, String sep) {\n    final int pos = s.indexOf(sep);\n    return s.substring(0, pos);\n}"}},
	{op: "remove_index_guard", name: "shifted index tolerates -1",
		src: "String f(String s) {\n    int i = s.indexOf('.');\n    if (i < 0) return s;\n    return s.substring(i + 1);\n}"},
	{op: "remove_index_guard", name: "access past the protected statement",
		src: "String f(String s) {\n    int i = s.indexOf('.');\n    if (i < 0) return s;\n    log(s);\n    return s.substring(i);\n}"},
	{op: "remove_index_guard", name: "not a negative test",
		src: "String f(String s, int i) {\n    if (i < 2) return s;\n    return s.substring(i);\n}"},
	{op: "remove_index_guard", name: "list index is out of scope",
		src: "Object f(java.util.List<Object> l, int i) {\n    if (i < 0) return null;\n    return l.get(i);\n}"},

	// ---- remove_nfe_catch ----
	{op: "remove_nfe_catch", name: "lone catch unwraps", typ: corpus.NumberFormat,
		src:  "int f(String s) {\n    try {\n        return Integer.parseInt(s);\n    } catch (NumberFormatException e) {\n        return -1;\n    }\n}",
		want: []string{"int f(String s) {\n    return Integer.parseInt(s);\n}"}},
	{op: "remove_nfe_catch", name: "one of two catches", typ: corpus.NumberFormat,
		src:  "long f(String s) {\n    try {\n        return Long.parseLong(s);\n    } catch (NumberFormatException e) {\n        return 0;\n    } catch (RuntimeException e) {\n        return 1;\n    }\n}",
		want: []string{"long f(String s) {\n    try {\n        return Long.parseLong(s);\n    } catch (RuntimeException e) {\n        return 1;\n    }\n}"}},
	{op: "remove_nfe_catch", name: "union catch", typ: corpus.NumberFormat,
		src:  "double f(String s) {\n    try {\n        return Double.parseDouble(s);\n    } catch (NumberFormatException | NullPointerException e) {\n        return 0;\n    }\n}",
		want: []string{"double f(String s) {\n    try {\n        return Double.parseDouble(s);\n    } catch (NullPointerException e) {\n        return 0;\n    }\n}"}},
	{op: "remove_nfe_catch", name: "colliding declaration keeps a block", typ: corpus.NumberFormat,
		src:  "int f(String s) {\n    int v = 0;\n    try {\n        int w = Integer.parseInt(s);\n        v = w;\n    } catch (NumberFormatException e) {\n    }\n    int w = 2;\n    return v + w;\n}",
		want: []string{"int f(String s) {\n    int v = 0;\n    {\n        int w = Integer.parseInt(s);\n        v = w;\n    }\n    int w = 2;\n    return v + w;\n}"}},
	{op: "remove_nfe_catch", name: "no number parsing",
		src: "int f(String s) {\n    try {\n        return s.length();\n    } catch (NumberFormatException e) {\n        return -1;\n    }\n}"},
	{op: "remove_nfe_catch", name: "String.valueOf does not parse",
		src: "String f(int i) {\n    try {\n        return String.valueOf(i);\n    } catch (NumberFormatException e) {\n        return null;\n    }\n}"},
	{op: "remove_nfe_catch", name: "other exception",
		src: "int f(String s) {\n    try {\n        return Integer.parseInt(s);\n    } catch (IllegalArgumentException e) {\n        return -1;\n    }\n}"},

	// ---- remove_parse_guard ----
	{op: "remove_parse_guard", name: "empty text returns", typ: corpus.NumberFormat,
		src:  "int f(String s) {\n    if (s.isEmpty()) {\n        return 0;\n    }\n    return Integer.parseInt(s);\n}",
		want: []string{"int f(String s) {\n    return Integer.parseInt(s);\n}"}},
	{op: "remove_parse_guard", name: "digit check conjunct", typ: corpus.NumberFormat,
		src:  "boolean f(String v) {\n    return isDigits(v) && Long.valueOf(v) > 0;\n}",
		want: []string{"boolean f(String v) {\n    return Long.valueOf(v) > 0;\n}"}},
	{op: "remove_parse_guard", name: "guard on another variable",
		src: "int f(String s, String t) {\n    if (t.isEmpty()) return 0;\n    return Integer.parseInt(s);\n}"},
	{op: "remove_parse_guard", name: "guard that parses is a try-parse",
		src: "int f(String s) {\n    if (Integer.parseInt(s) < 0) return 0;\n    return Integer.parseInt(s);\n}"},
	{op: "remove_parse_guard", name: "boxing a primitive is not parsing",
		src: "void fire(String name, byte oldValue, byte newValue) {\n    if (support == null || oldValue == newValue) {\n        return;\n    }\n    fire(name, Byte.valueOf(oldValue), Byte.valueOf(newValue));\n}"},
	{op: "remove_parse_guard", name: "a literal is not parsed",
		src:  "Object f(String s) {\n    if (s.isEmpty()) return null;\n    return new java.math.BigDecimal(1.5).add(new java.math.BigDecimal(s));\n}",
		want: []string{"Object f(String s) {\n    return new java.math.BigDecimal(1.5).add(new java.math.BigDecimal(s));\n}"}, typ: corpus.NumberFormat},
	{op: "remove_parse_guard", name: "String.valueOf is not a parser",
		src: "String f(String s) {\n    if (s.isEmpty()) return \"\";\n    return String.valueOf(s);\n}"},

	// ---- remove_match_check ----
	{op: "remove_match_check", name: "unwrap matches", typ: corpus.IllegalState,
		src:  "String f(java.util.regex.Matcher m) {\n    String v = null;\n    if (m.matches()) {\n        v = m.group(1);\n    }\n    return v;\n}",
		want: []string{"String f(java.util.regex.Matcher m) {\n    String v = null;\n    m.matches();\n    v = m.group(1);\n    return v;\n}"}},
	{op: "remove_match_check", name: "unwrapped return would leave code unreachable",
		src: "String f(java.util.regex.Matcher m) {\n    if (m.matches()) {\n        return m.group(1);\n    }\n    return null;\n}"},
	{op: "remove_match_check", name: "negated find exit", typ: corpus.IllegalState,
		src:  "int f(java.util.regex.Matcher m) {\n    if (!m.find()) {\n        return -1;\n    }\n    return m.start();\n}",
		want: []string{"int f(java.util.regex.Matcher m) {\n    m.find();\n    return m.start();\n}"}},
	{op: "remove_match_check", name: "conjunct", typ: corpus.IllegalState,
		src:  "boolean f(java.util.regex.Matcher m) {\n    return m.lookingAt() && m.end() > 2;\n}",
		want: []string{"boolean f(java.util.regex.Matcher m) {\n    return m.end() > 2;\n}"}},
	{op: "remove_match_check", name: "other matcher read",
		src: "String f(java.util.regex.Matcher m, java.util.regex.Matcher n) {\n    if (m.matches()) {\n        return n.group(1);\n    }\n    return null;\n}"},
	{op: "remove_match_check", name: "String.matches takes an argument",
		src: "int f(String s) {\n    if (s.matches(\"a+\")) {\n        return s.length();\n    }\n    return 0;\n}"},

	// ---- remove_instanceof_guard ----
	{op: "remove_instanceof_guard", name: "equals conjunct", typ: corpus.ClassCast,
		src:  "public boolean equals(Object o) {\n    return o instanceof Point && ((Point) o).x == x;\n}",
		want: []string{"public boolean equals(Object o) {\n    return ((Point) o).x == x;\n}"}},
	{op: "remove_instanceof_guard", name: "negated early exit", typ: corpus.ClassCast,
		src:  "public boolean equals(Object o) {\n    if (!(o instanceof Point)) {\n        return false;\n    }\n    Point p = (Point) o;\n    return p.x == x;\n}",
		want: []string{"public boolean equals(Object o) {\n    Point p = (Point) o;\n    return p.x == x;\n}"}},
	{op: "remove_instanceof_guard", name: "if unwrap", typ: corpus.ClassCast,
		src:  "void f(Object o) {\n    if (o instanceof java.util.List<?>) {\n        java.util.List<?> l = (java.util.List<?>) o;\n        l.clear();\n    }\n}",
		want: []string{"void f(Object o) {\n    java.util.List<?> l = (java.util.List<?>) o;\n    l.clear();\n}"}},
	{op: "remove_instanceof_guard", name: "ternary", typ: corpus.ClassCast,
		src:  "String f(Object o) {\n    return o instanceof String ? (String) o : null;\n}",
		want: []string{"String f(Object o) {\n    return (String) o;\n}"}},
	{op: "remove_instanceof_guard", name: "unwrapped return would leave code unreachable",
		src: "int f(Object o) {\n    if (o instanceof String) {\n        return ((String) o).length();\n    }\n    return 0;\n}"},
	{op: "remove_instanceof_guard", name: "unwrapped block ending in a return would leave code unreachable",
		src: "void f(Object o) {\n    if (o instanceof String) {\n        use((String) o);\n        return;\n    }\n    other(o);\n}"},
	{op: "remove_instanceof_guard", name: "unwrap as the last statement", typ: corpus.ClassCast,
		src:  "void f(Object o, java.util.List<String> l) {\n    l.clear();\n    if (o instanceof String) {\n        l.add((String) o);\n        return;\n    }\n}",
		want: []string{"void f(Object o, java.util.List<String> l) {\n    l.clear();\n    l.add((String) o);\n    return;\n}"}},
	{op: "remove_instanceof_guard", name: "pattern variable has no cast",
		src: "int f(Object o) {\n    if (o instanceof String s) {\n        return s.length();\n    }\n    return 0;\n}"},
	{op: "remove_instanceof_guard", name: "cast to another type",
		src: "int f(Object o) {\n    if (o instanceof String) {\n        return ((Integer) o).intValue();\n    }\n    return 0;\n}"},

	// ---- throw_on_lenient_argument ----
	{op: "throw_on_lenient_argument", name: "clamp", typ: corpus.IllegalArgument,
		src:  "void setSize(int n) {\n    if (n < 0) n = 0;\n    size = n;\n}",
		want: []string{"void setSize(int n) {\n    if (n < 0) throw new IllegalArgumentException(\"illegal n: \" + n);\n    size = n;\n}"}},
	{op: "throw_on_lenient_argument", name: "early return in block", typ: corpus.IllegalArgument,
		src:  "String pad(String s, int w) {\n    if (s.length() >= w) {\n        return s;\n    }\n    return s + \" \".repeat(w - s.length());\n}",
		want: []string{"String pad(String s, int w) {\n    if (s.length() >= w) {\n        throw new IllegalArgumentException(\"illegal s: \" + s);\n    }\n    return s + \" \".repeat(w - s.length());\n}"}},
	{op: "throw_on_lenient_argument", name: "already throws",
		src: "void f(int n) {\n    if (n < 0) throw new IllegalArgumentException();\n    size = n;\n}"},
	{op: "throw_on_lenient_argument", name: "branch does work",
		src: "void f(int n) {\n    if (n < 0) {\n        log(n);\n        n = 0;\n    }\n    size = n;\n}"},
	{op: "throw_on_lenient_argument", name: "condition on a field",
		src: "int f(int n) {\n    if (closed) return 0;\n    return n;\n}"},
	{op: "throw_on_lenient_argument", name: "condition has a side effect",
		src: "int f(int n) {\n    if (n++ > 3) return 0;\n    return n;\n}"},

	// ---- throw_on_lenient_state ----
	{op: "throw_on_lenient_state", name: "idempotent close", typ: corpus.IllegalState,
		src:  "public void close() {\n    if (closed) {\n        return;\n    }\n    closed = true;\n    release();\n}",
		want: []string{"public void close() {\n    if (closed) {\n        throw new IllegalStateException(\"illegal state: closed\");\n    }\n    closed = true;\n    release();\n}"}},
	{op: "throw_on_lenient_state", name: "this field", typ: corpus.IllegalState,
		src:  "Object peek() {\n    if (this.size == 0) return null;\n    return items[size - 1];\n}",
		want: []string{"Object peek() {\n    if (this.size == 0) throw new IllegalStateException(\"illegal state: this.size == 0\");\n    return items[size - 1];\n}"}},
	{op: "throw_on_lenient_state", name: "lazy initialisation", typ: corpus.IllegalState,
		src:  "java.util.Map<String, Integer> index() {\n    if (index == null) {\n        index = new java.util.HashMap<>();\n    }\n    return index;\n}",
		want: []string{"java.util.Map<String, Integer> index() {\n    if (index == null) {\n        throw new IllegalStateException(\"illegal state: index == null\");\n    }\n    return index;\n}"}},
	{op: "throw_on_lenient_state", name: "initialises a field it does not test",
		src: "int f() {\n    if (count == 0) {\n        other = 1;\n    }\n    return count;\n}"},
	{op: "throw_on_lenient_state", name: "initialises a local",
		src: "int f() {\n    int n = 0;\n    if (count == 0) {\n        n = 1;\n    }\n    return n;\n}"},
	{op: "throw_on_lenient_state", name: "static method",
		src: "static void f() {\n    if (ready) return;\n    init();\n}"},
	{op: "throw_on_lenient_state", name: "condition reads a parameter",
		src: "void f(int n) {\n    if (closed || n == 0) return;\n    g(n);\n}"},
	{op: "throw_on_lenient_state", name: "condition reads a local",
		src: "void f() {\n    boolean done = check();\n    if (done) return;\n    g();\n}"},
}

// sitesOf parses a lone method and returns what op finds in it.
func sitesOf(t *testing.T, op *Operator, src string) (*code.File, []Site) {
	t.Helper()
	f, err := code.ParseJavaMethod([]byte(src))
	testcheck.Must(t, err)
	if se := f.SyntaxErrors(); len(se) > 0 {
		t.Fatalf("example does not parse: %v", se)
	}
	var fn *code.Function
	for _, x := range f.Functions() {
		if x.Class == "" {
			fn = &x
			break
		}
	}
	if fn == nil {
		t.Fatal("no method")
	}
	return f, op.find(newMethod(f, *fn))
}

// applySite checks a site op found in tc's method (its type tc's, one
// of op's) and returns the buggy method its edits make, which must pass
// checkBuggy.
func (tc opCase) applySite(t *testing.T, op *Operator, f *code.File, s Site) string {
	t.Helper()
	if s.Type != tc.typ {
		t.Errorf("site type %s, want %s", s.Type, tc.typ)
	}
	if !slices.Contains(op.Types, s.Type) {
		t.Errorf("site type %s not in operator types %v", s.Type, op.Types)
	}
	b, ok := apply(f.Src, s.Edits)
	if !ok {
		t.Fatal("edits overlap")
	}
	buggy := string(b)
	if d := checkBuggy(tc.src, buggy); d != "" {
		t.Errorf("buggy method rejected (%s):\n%s", d, buggy)
	}
	return buggy
}

// count adds tc to its operator's must-apply and must-not-apply counts c.
func (tc opCase) count(c [2]int) [2]int {
	if len(tc.want) > 0 {
		c[0]++
	} else {
		c[1]++
	}
	return c
}

func TestOperators(t *testing.T) {
	covered := map[string][2]int{}
	for _, tc := range opCases {
		t.Run(tc.op+"/"+tc.name, func(t *testing.T) {
			op := OperatorByName(tc.op)
			if op == nil {
				t.Fatalf("no operator %s", tc.op)
			}
			f, sites := sitesOf(t, op, tc.src)
			var got []string
			for _, s := range sites {
				got = append(got, tc.applySite(t, op, f, s))
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("buggy methods (-want +got):\n%s", d)
			}
		})
		covered[tc.op] = tc.count(covered[tc.op])
	}
	for _, op := range Operators {
		if c := covered[op.Name]; c[0] == 0 || c[1] == 0 {
			t.Errorf("operator %s needs must-apply and must-not-apply examples (have %d, %d)", op.Name, c[0], c[1])
		}
	}
}
