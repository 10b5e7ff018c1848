package seeds

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/benchforge/benchforge/internal/code"
)

// F4 (rxsynth §3.2): for IllegalArgumentException and IllegalStateException
// only fixes that remove or restructure an unintended throw are kept; a fix
// that adds a previously missing throw (treating absent validation as the
// bug) is dropped, because it would teach that defensive code is buggy.
//
// Definition. A throw of type T is a normalised throw statement
// (code.Normalize, so comments and layout do not count) that either creates
// an exception class resolving to T ("throw new IllegalArgumentException
// (...)", "throw new IllegalFieldValueException(...)" — resolved with the
// known hierarchy, by simple name against java.lang and the hierarchy's
// classes) or names T's class elsewhere in the statement (a factory such as
// "throw MathRuntimeException.createIllegalArgumentException(...)"). With
// B and F the multisets of such statements in the buggy and fixed method,
// the pair adds a missing throw — and is dropped — when F \ B is not empty
// (the fixed method has a throw of T the buggy one lacks), B \ F is empty
// (no throw of T was removed or changed), and the failure records do not
// show T thrown from the buggy method itself (thrownHere: a failing test's
// top stack frame of type T lies inside the buggy method's span). That last
// clause keeps fixes such as Defects4J Lang-5, which add a new validated
// branch so that an existing throw no longer fires on valid input: the
// trace proves the buggy method's own throw was the unintended one. Every
// other pair is kept: fixes that remove or rewrite a throw of T, and fixes
// that touch no throw of T at all (the unintended throw sits in a callee,
// and the fix changes how it is reached). Other types are never filtered.

// F4Decision is the outcome of F4 for one pair.
type F4Decision struct {
	Keep   bool
	Reason string
	Added  []string // throws of the type only in the fixed method
	Gone   []string // throws of the type only in the buggy method
}

// CheckF4 applies F4 to a buggy/fixed method pair labelled t; thrownHere
// says a failure of type t was thrown from inside the buggy method.
func CheckF4(t Type, buggy, fixed string, thrownHere bool) F4Decision {
	if t != IAE && t != ISE {
		return F4Decision{Keep: true, Reason: "F4 applies only to IAE and ISE"}
	}
	b := throwsOf(t, buggy)
	f := throwsOf(t, fixed)
	d := F4Decision{Added: minus(f, b), Gone: minus(b, f)}
	switch {
	case len(d.Added) > 0 && len(d.Gone) == 0 && thrownHere:
		d.Keep = true
		d.Reason = fmt.Sprintf("fix adds a throw of %s (%s), but the failing trace shows the buggy method itself throwing it: the fix restructures an unintended throw",
			t.SimpleName(), strings.Join(d.Added, " | "))
	case len(d.Added) > 0 && len(d.Gone) == 0:
		d.Reason = fmt.Sprintf("fix adds a missing throw of %s (%s) and removes or changes none: validation added, not an unintended throw removed",
			t.SimpleName(), strings.Join(d.Added, " | "))
	case len(d.Gone) > 0:
		d.Keep = true
		d.Reason = fmt.Sprintf("fix removes or changes a throw of %s (%s)", t.SimpleName(), strings.Join(d.Gone, " | "))
	default:
		d.Keep = true
		d.Reason = fmt.Sprintf("fix adds no throw of %s: it restructures how the unintended throw is reached", t.SimpleName())
	}
	return d
}

var newClassRE = regexp.MustCompile(`^throw new ([A-Za-z_$][\w$]*(?: \. [A-Za-z_$][\w$]*)*)`)

func throwsOf(t Type, method string) []string {
	src := "class C {\n" + method + "\n}\n"
	var out []string
	for _, l := range code.Normalize(code.LangJava, []byte(src)) {
		if !strings.HasPrefix(l, "throw ") {
			continue
		}
		if m := newClassRE.FindStringSubmatch(l); m != nil {
			if classIsType(strings.ReplaceAll(m[1], " ", ""), t) {
				out = append(out, l)
			}
			continue
		}
		if strings.Contains(l, t.SimpleName()) {
			out = append(out, l)
		}
	}
	return out
}

// classIsType reports whether a class name as written in source (simple or
// qualified) resolves to t.
func classIsType(name string, t Type) bool {
	simple := name[strings.LastIndex(name, ".")+1:]
	if simple == t.SimpleName() {
		return true
	}
	cands := []string{name}
	if !strings.Contains(name, ".") {
		cands = append(cands, "java.lang."+name)
		cands = append(cands, classesNamed(simple)...)
	}
	for _, c := range cands {
		if r := Resolve(c, "", false); r.Kind == KindTarget && r.Type == t {
			return true
		}
	}
	return false
}

// minus returns the elements of a not matched one-for-one in b.
func minus(a, b []string) []string {
	left := map[string]int{}
	for _, s := range b {
		left[s]++
	}
	var out []string
	for _, s := range a {
		if left[s] > 0 {
			left[s]--
			continue
		}
		out = append(out, s)
	}
	return out
}

// SimpleName is t's class name without package ("NullPointerException"),
// the long name corpus.Seed.Exception uses.
func (t Type) SimpleName() string {
	c := t.Class()
	return c[strings.LastIndex(c, ".")+1:]
}

// classesNamed lists the known classes with the given simple name.
func classesNamed(simple string) []string {
	var out []string
	for c := range parent {
		if c[strings.LastIndex(c, ".")+1:] == simple {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}

// ThrownIn reports whether a failure whose top-level exception resolves to
// t has its first stack frame inside the method name of the file whose
// base name is fileBase, at a line within span (the buggy file's lines).
func ThrownIn(failures []Failure, t Type, exact bool, fileBase, method string, span [2]int) bool {
	for _, f := range failures {
		if r := Resolve(f.Exception, f.TopFrame, exact); r.Kind != KindTarget || r.Type != t {
			continue
		}
		qual, file, line, ok := frameLocation(f.TopFrame)
		if !ok || file != fileBase || line < span[0] || line > span[1] {
			continue
		}
		if qual[strings.LastIndex(qual, ".")+1:] == method {
			return true
		}
	}
	return false
}

// frameLocation splits a stack frame "pkg.Class.method(File.java:99)"
// into the qualified method, the file and the line; ok is false for a
// frame without a file and line.
func frameLocation(frame string) (qual, file string, line int, ok bool) {
	open := strings.LastIndex(frame, "(")
	if open < 0 || !strings.HasSuffix(frame, ")") {
		return "", "", 0, false
	}
	file, lineText, ok := strings.Cut(frame[open+1:len(frame)-1], ":")
	if !ok {
		return "", "", 0, false
	}
	line, err := strconv.Atoi(lineText)
	if err != nil {
		return "", "", 0, false
	}
	return frame[:open], file, line, true
}
