package jvm

import "strings"

// jtype is a parsed Java type as written: base name, generic arguments
// and array dimensions ("Map<String,List<Integer>>[]" → Map, [String,
// List<Integer>], 1).
type jtype struct {
	base string
	args []string
	dims int
}

func parseType(s string) jtype {
	s = strings.TrimSpace(s)
	var t jtype
	for strings.HasSuffix(s, "[]") {
		t.dims++
		s = strings.TrimSpace(s[:len(s)-2])
	}
	if i := strings.IndexByte(s, '<'); i >= 0 && strings.HasSuffix(s, ">") {
		t.args = splitTypeArgs(s[i+1 : len(s)-1])
		s = s[:i]
	}
	t.base = strings.TrimSpace(s)
	return t
}

// splitTypeArgs splits "String, List<Integer>" at top-level commas.
func splitTypeArgs(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			depth++
		case '>':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	if r := strings.TrimSpace(s[start:]); r != "" || len(out) > 0 {
		out = append(out, r)
	}
	return out
}

// simple drops a package qualifier: "java.util.List" → "List".
func simple(base string) string {
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		return base[i+1:]
	}
	return base
}

// erasure renders t without generic arguments, for "new T[n]" and casts.
func (t jtype) erasure() string { return t.base + strings.Repeat("[]", t.dims) }

// elem returns the array element type (one dimension fewer).
func (t jtype) elem() jtype { e := t; e.dims--; return e }

func (t jtype) String() string {
	s := t.base
	if len(t.args) > 0 {
		s += "<" + strings.Join(t.args, ",") + ">"
	}
	return s + strings.Repeat("[]", t.dims)
}

var primitives = map[string]bool{"int": true, "long": true, "short": true, "byte": true, "char": true,
	"float": true, "double": true, "boolean": true}

var boxes = map[string]string{"Integer": "int", "Long": "long", "Short": "short", "Byte": "byte",
	"Character": "char", "Float": "float", "Double": "double", "Boolean": "boolean"}

// resolveVar maps a method type variable to its bound.
func resolveVar(t jtype, vars map[string]string) jtype {
	if b, ok := vars[t.base]; ok && len(t.args) == 0 {
		return jtype{base: b, dims: t.dims}
	}
	if t.base == "?" || strings.HasPrefix(t.base, "? ") {
		if i := strings.Index(t.base, "extends "); i >= 0 {
			return parseType(t.base[i+len("extends "):])
		}
		return jtype{base: "Object", dims: t.dims}
	}
	return t
}

// defaultValue is a non-exceptional value of type s for stub fields and
// stub method results (rxsynth §5.4: a stub never returns null to
// manufacture the failure).
func defaultValue(s string) string {
	t := parseType(s)
	if t.dims > 0 {
		return "new " + t.base + "[0]" + strings.Repeat("[]", t.dims-1)
	}
	if v, ok := defaultValues[simple(t.base)]; ok {
		return v
	}
	return "new " + t.erasure() + "()"
}

// defaultValues are defaultValue's values by simple type name; any other
// type gets a default instance.
var defaultValues = map[string]string{
	"void": "",
	"int":  "0", "Integer": "0",
	"long": "0L", "Long": "0L",
	"short": "(short) 0", "Short": "(short) 0",
	"byte": "(byte) 0", "Byte": "(byte) 0",
	"char": "'a'", "Character": "'a'",
	"float": "0f", "Float": "0f",
	"double": "0.0", "Double": "0.0",
	"boolean": "false", "Boolean": "false",
	"String": `""`, "CharSequence": `""`,
	"Object": "new Object()",
	"List":   "new java.util.ArrayList<>()", "Collection": "new java.util.ArrayList<>()", "Iterable": "new java.util.ArrayList<>()",
	"ArrayList": "new java.util.ArrayList<>()", "AbstractList": "new java.util.ArrayList<>()",
	"Set": "new java.util.HashSet<>()", "HashSet": "new java.util.HashSet<>()",
	"Map": "new java.util.HashMap<>()", "HashMap": "new java.util.HashMap<>()",
	"Iterator":      "java.util.Collections.emptyIterator()",
	"Optional":      "java.util.Optional.empty()",
	"StringBuilder": "new StringBuilder()",
	"BigDecimal":    "java.math.BigDecimal.ZERO",
	"BigInteger":    "java.math.BigInteger.ZERO",
	"Number":        "Integer.valueOf(0)",
}
