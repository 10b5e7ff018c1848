package jvm

import (
	"errors"
	"slices"
	"strings"
	"unicode"
)

// The stub repair rules as data: each stubRule handles some javac
// diagnostic keys and carries examples — real -XDrawDiagnostics lines
// (javac 17) on a source line, with the stubs before and after — that
// TestStubRules enforces, as the mutation operators and patchcheck's
// modRules are. A rule a diagnostic is not for returns errNext and the
// next rule with that key is tried; errNoStub is final.

// errNext is a rule's "not mine": fix goes on to the next rule.
var errNext = errors.New("not this rule")

type stubRule struct {
	Name string
	Keys []string // the diagnostic keys it reads
	// Fix changes s for d on source line text, or returns errNext or
	// errNoStub without changing the stubs' state.
	Fix func(s *stubSet, d diagnostic, text string, harness map[string]bool) error
	// MustFix are diagnostics this rule fixes; MustNotFix ones with its
	// keys that it must leave (to a later rule, or unfixed).
	MustFix, MustNotFix []stubExample
}

// stubExample is one enforced case, in the harness classes B1 and F1.
type stubExample struct {
	Stubs []string // before, as stubSet.describe prints them; " [inst]" marks an instance member
	Diag  string   // the javac diagnostic
	Line  string   // the source line it points into
	Want  []string // after (for MustNotFix, nil means unchanged)
}

// fix updates the stubs for one diagnostic on source line text. It
// returns errNoStub when the error is not about a missing or stubbed
// symbol (a real compile error of the method, or beyond these rules).
func (s *stubSet) fix(d diagnostic, text string, harness map[string]bool) error {
	_, err := s.applyRule(d, text, harness)
	return err
}

// applyRule is fix, also naming the rule that decided.
func (s *stubSet) applyRule(d diagnostic, text string, harness map[string]bool) (string, error) {
	for i := range stubRules {
		r := &stubRules[i]
		if !slices.Contains(r.Keys, d.Key) {
			continue
		}
		if err := r.Fix(s, d, text, harness); err != errNext {
			return r.Name, err
		}
	}
	return "", errNoStub
}

var cantResolve = []string{"compiler.err.cant.resolve.location", "compiler.err.cant.resolve.location.args",
	"compiler.err.cant.resolve", "compiler.err.cant.resolve.args"}

// stubRules are tried in order; the order matters only among rules
// sharing a key.
var stubRules = []stubRule{
	{
		Name: "missing-class", Keys: cantResolve, Fix: fixMissingClass,
		MustFix: []stubExample{{
			Diag: "B1.java:3:21: compiler.err.cant.resolve.location: kindname.class, Foo, , , (compiler.misc.location: kindname.class, p.B1, null)",
			Line: "  int a(String s) { Foo f = null; return 0; }",
			Want: []string{"class Foo"},
		}},
		MustNotFix: []stubExample{{
			// The harness class itself is never stubbed.
			Diag: "B1.java:3:21: compiler.err.cant.resolve.location: kindname.class, F1, , , (compiler.misc.location: kindname.class, p.B1, null)",
			Line: "  int a(String s) { F1 f = null; return 0; }",
		}, {
			// A member of a JDK type is not ours to add.
			Diag: "B1.java:3:21: compiler.err.cant.resolve.location: kindname.class, Entry, , , (compiler.misc.location: kindname.class, java.util.Map, null)",
			Line: "  int a(String s) { Map.Entry f = null; return 0; }",
		}},
	},
	{
		Name: "class-used-statically", Keys: cantResolve, Fix: fixStaticClassUse,
		MustFix: []stubExample{{
			Diag: "B1.java:4:28: compiler.err.cant.resolve.location: kindname.variable, Util, , , (compiler.misc.location: kindname.class, p.B1, null)",
			Line: "  int b(String s) { return Util.parse(s); }",
			Want: []string{"class Util"},
		}},
		MustNotFix: []stubExample{{
			// Capitalised but not followed by '.': a field (next rule).
			Diag: "B1.java:4:28: compiler.err.cant.resolve.location: kindname.variable, MAX, , , (compiler.misc.location: kindname.class, p.B1, null)",
			Line: "  int b(String s) { return MAX; }",
			Want: []string{"Object MAX"},
		}},
	},
	{
		Name: "missing-field", Keys: cantResolve, Fix: fixMissingField,
		MustFix: []stubExample{{
			Diag: "B1.java:5:25: compiler.err.cant.resolve.location: kindname.variable, count, , , (compiler.misc.location: kindname.class, p.B1, null)",
			Line: "  int c(int x) { return count + x; }",
			Want: []string{"Object count"},
		}, {
			// Negated: a boolean.
			Diag: "B1.java:6:25: compiler.err.cant.resolve.location: kindname.variable, done, , , (compiler.misc.location: kindname.class, p.B1, null)",
			Line: "  boolean d() { return !done; }",
			Want: []string{"boolean done"},
		}, {
			// ".length" without a call: an array.
			Diag: "B1.java:7:20: compiler.err.cant.resolve.location: kindname.variable, data, , , (compiler.misc.location: kindname.class, p.B1, null)",
			Line: "  int e() { return data.length; }",
			Want: []string{"int[] data"},
		}, {
			// Through an instance of a stub class: an instance field.
			Stubs: []string{"class Node"},
			Diag:  "B1.java:10:27: compiler.err.cant.resolve.location: kindname.variable, size, , , (compiler.misc.location.1: kindname.variable, n, p.Node)",
			Line:  "  int h(Node n) { return n.size; }",
			Want:  []string{"class Node", "Object Node.size [inst]"},
		}, {
			// Through an Object stub field: it becomes a stub class of its own.
			Stubs: []string{"Object cfg"},
			Diag:  "B1.java:3:27: compiler.err.cant.resolve.location: kindname.variable, size, , , (compiler.misc.location.1: kindname.variable, cfg, java.lang.Object)",
			Line:  "  int h() { return cfg.size; }",
			Want:  []string{"TCfg cfg", "class TCfg", "Object TCfg.size [inst]"},
		}},
		MustNotFix: []stubExample{{
			// A field of a JDK type's variable.
			Diag: "B1.java:10:27: compiler.err.cant.resolve.location: kindname.variable, size, , , (compiler.misc.location.1: kindname.variable, s, java.lang.String)",
			Line: "  int h(String s) { return s.size; }",
		}},
	},
	{
		Name: "missing-method", Keys: cantResolve, Fix: fixMissingMethod,
		MustFix: []stubExample{{
			Diag: "B1.java:3:25: compiler.err.cant.resolve.location.args: kindname.method, helper, , int, (compiler.misc.location: kindname.class, p2.B1, null)",
			Line: "  int f(int x) { return helper(x); }",
			Want: []string{"Object helper(int)"},
		}, {
			// "super.m(…)": a member of the base class.
			Diag: "B1.java:9:33: compiler.err.cant.resolve.args: kindname.method, size, , java.lang.String",
			Line: "  int g(String s) { return super.size(s); }",
			Want: []string{"Object super.size(java.lang.String)"},
		}, {
			// Another overload keeps the known result type.
			Stubs: []string{"boolean check(int)"},
			Diag:  "B1.java:3:25: compiler.err.cant.resolve.location.args: kindname.method, check, , java.lang.String, (compiler.misc.location: kindname.class, p.B1, null)",
			Line:  "  boolean f(String x) { return check(x); }",
			Want:  []string{"boolean check(int)", "boolean check(java.lang.String)"},
		}},
		MustNotFix: []stubExample{{
			// A method of a JDK type.
			Diag: "B1.java:3:30: compiler.err.cant.resolve.location.args: kindname.method, sizeOf, , , (compiler.misc.location.1: kindname.variable, s, java.lang.String)",
			Line: "  int f(String s) { return s.sizeOf(); }",
		}},
	},
	{
		Name: "instance-member-used-statically", Keys: []string{"compiler.err.non-static.cant.be.ref"}, Fix: fixNonStatic,
		MustFix: []stubExample{{
			Stubs: []string{"class Node", "Object Node.size [inst]"},
			Diag:  "B1.java:10:22: compiler.err.non-static.cant.be.ref: kindname.variable, size",
			Line:  "  Object k() { return Node.size; }",
			Want:  []string{"class Node", "Object Node.size"},
		}},
		MustNotFix: []stubExample{{
			// A real instance member of the method's own class.
			Diag: "B1.java:10:22: compiler.err.non-static.cant.be.ref: kindname.variable, count2",
			Line: "  static int k() { return count2; }",
		}},
	},
	{
		Name: "stub-overload", Keys: []string{"compiler.err.cant.apply.symbol"}, Fix: fixOverload,
		MustFix: []stubExample{{
			Stubs: []string{"class Node"},
			Diag:  "B1.java:5:23: compiler.err.cant.apply.symbol: kindname.constructor, Node, compiler.misc.no.args, int, kindname.class, p2.Node, (compiler.misc.arg.length.mismatch)",
			Line:  "  Object h() { return new Node(3); }",
			Want:  []string{"class Node", "Node(int)"},
		}, {
			Stubs: []string{"class Node", "int Node.count(int)"},
			Diag:  "B1.java:4:32: compiler.err.cant.apply.symbol: kindname.method, count, int, java.lang.String, kindname.class, p2.Node, (compiler.misc.no.conforming.assignment.exists: (compiler.misc.inconvertible.types: java.lang.String, int))",
			Line:  "  int g(String s) { return Node.count(s); }",
			Want:  []string{"class Node", "int Node.count(int)", "int Node.count(java.lang.String)"},
		}, {
			// A harness stub method called with other types in F1.
			Stubs: []string{"Object helper(String)"},
			Diag:  "B1.java:8:25: compiler.err.cant.apply.symbol: kindname.method, helper, java.lang.String, int, kindname.class, p.B1, (compiler.misc.no.conforming.assignment.exists: (compiler.misc.inconvertible.types: int, java.lang.String))",
			Line:  "  int f(int x) { return helper(x); }",
			Want:  []string{"Object helper(String)", "Object helper(int)"},
		}},
		MustNotFix: []stubExample{{
			// A real method of the harness class (none stubbed): wrong call.
			Diag: "B1.java:8:25: compiler.err.cant.apply.symbol: kindname.method, helper, java.lang.String, int, kindname.class, p.B1, (compiler.misc.no.conforming.assignment.exists: (compiler.misc.inconvertible.types: int, java.lang.String))",
			Line: "  int f(int x) { return helper(x); }",
		}},
	},
	{
		Name: "retype-jdk-argument", Keys: []string{"compiler.err.cant.apply.symbol"}, Fix: fixJDKArgument,
		MustFix: []stubExample{{
			Stubs: []string{"Object name"},
			Diag:  "B1.java:3:27: compiler.err.cant.apply.symbol: kindname.method, parseInt, java.lang.String, java.lang.Object, kindname.class, java.lang.Integer, (compiler.misc.no.conforming.assignment.exists: (compiler.misc.inconvertible.types: java.lang.Object, java.lang.String))",
			Line:  "  int f() { return Integer.parseInt(name); }",
			Want:  []string{"java.lang.String name"},
		}},
		MustNotFix: []stubExample{{
			// The argument is the method's own parameter, no stub.
			Diag: "B1.java:3:32: compiler.err.cant.apply.symbol: kindname.method, parseInt, java.lang.String, java.lang.Object, kindname.class, java.lang.Integer, (compiler.misc.no.conforming.assignment.exists: (compiler.misc.inconvertible.types: java.lang.Object, java.lang.String))",
			Line: "  int f(Object o) { return Integer.parseInt(o); }",
		}},
	},
	{
		Name: "stub-overload-among-candidates", Keys: []string{"compiler.err.cant.apply.symbols"}, Fix: fixOverloads,
		MustFix: []stubExample{{
			Stubs: []string{"class Node", "Node(String)"},
			Diag:  "B1.java:12:28: compiler.err.cant.apply.symbols: kindname.constructor, Node, int,{(compiler.misc.inapplicable.method: kindname.constructor, p.Node, p.Node(), (compiler.misc.arg.length.mismatch)),(compiler.misc.inapplicable.method: kindname.constructor, p.Node, p.Node(java.lang.String), (compiler.misc.no.conforming.assignment.exists: (compiler.misc.inconvertible.types: int, java.lang.String)))}",
			Line:  "  Object j(int k) { return new Node(k); }",
			Want:  []string{"class Node", "Node(String)", "Node(int)"},
		}},
		MustNotFix: []stubExample{{
			// Candidates of a JDK class.
			Stubs: []string{"Object obj"},
			Diag:  "B1.java:14:48: compiler.err.cant.apply.symbols: kindname.method, parseInt, java.lang.Object,{(compiler.misc.inapplicable.method: kindname.method, java.lang.Integer, parseInt(java.lang.String,int), (compiler.misc.arg.length.mismatch)),(compiler.misc.inapplicable.method: kindname.method, java.lang.Integer, parseInt(java.lang.String), (compiler.misc.no.conforming.assignment.exists: (compiler.misc.inconvertible.types: java.lang.Object, java.lang.String)))}",
			Line:  "  int l(String s) { return s.length() + Integer.parseInt(obj); }",
		}},
	},
	{
		Name: "super-stub-return", Keys: []string{"compiler.err.override.incompatible.ret"}, Fix: fixSuperReturn,
		MustFix: []stubExample{{
			Stubs: []string{"Object super.size(String)"},
			Diag:  "B1.java:6:7: compiler.err.override.incompatible.ret: (compiler.misc.cant.override: size(java.lang.String), p2.B1, size(java.lang.String), p2.P1), int, java.lang.Object",
			Line:  "  int size(String s) { return super.size(s); }",
			Want:  []string{"int super.size(String)"},
		}},
		MustNotFix: []stubExample{{
			// Overriding a JDK method with a wrong result type.
			Diag: "B1.java:6:7: compiler.err.override.incompatible.ret: (compiler.misc.cant.override: hashCode(), p2.B1, hashCode(), java.lang.Object), long, int",
			Line: "  public long hashCode() { return 1L; }",
		}},
	},
	{
		Name: "caught-stub-unchecked", Keys: []string{"compiler.err.except.never.thrown.in.try"}, Fix: fixCaughtStub,
		MustFix: []stubExample{{
			Stubs: []string{"class Bad"},
			Diag:  "B1.java:15:29: compiler.err.except.never.thrown.in.try: p.Bad",
			Line:  "  void m() { try { run(); } catch (Bad e) { } }",
			Want:  []string{"class Bad extends RuntimeException"},
		}},
		MustNotFix: []stubExample{{
			// A real checked exception never thrown: the method's error.
			Diag: "B1.java:15:29: compiler.err.except.never.thrown.in.try: java.io.IOException",
			Line: "  void m() { try { run(); } catch (IOException e) { } }",
		}},
	},
	{
		Name: "thrown-stub-unchecked", Keys: []string{"compiler.err.unreported.exception.need.to.catch.or.throw"}, Fix: fixThrownStub,
		MustFix: []stubExample{{
			Stubs: []string{"class Oops"},
			Diag:  "B1.java:3:14: compiler.err.unreported.exception.need.to.catch.or.throw: <any>",
			Line:  "  void n() { throw new Oops(); }",
			Want:  []string{"class Oops extends RuntimeException"},
		}},
		MustNotFix: []stubExample{{
			// A real checked exception thrown unreported.
			Diag: "B1.java:3:14: compiler.err.unreported.exception.need.to.catch.or.throw: java.io.IOException",
			Line: "  void n() { throw new IOException(); }",
		}},
	},
	{
		Name: "thrown-or-caught-throwable", Keys: []string{"compiler.err.prob.found.req"}, Fix: fixThrowableConversion,
		MustFix: []stubExample{{
			Stubs: []string{"class Bad"},
			Diag:  "B1.java:15:36: compiler.err.prob.found.req: (compiler.misc.inconvertible.types: p.Bad, java.lang.Throwable)",
			Line:  "  void m() { try { run(); } catch (Bad e) { } }",
			Want:  []string{"class Bad extends RuntimeException"},
		}},
		MustNotFix: []stubExample{{
			// An Object stub used as a String: retyped by the next rule.
			Stubs: []string{"Object obj"},
			Diag:  "B1.java:17:27: compiler.err.prob.found.req: (compiler.misc.inconvertible.types: java.lang.Object, java.lang.String)",
			Line:  "  String o() { String t = obj; return t; }",
			Want:  []string{"java.lang.String obj"},
		}},
	},
	{
		Name: "retype-to-required", Keys: []string{"compiler.err.prob.found.req"}, Fix: fixRequiredType,
		MustFix: []stubExample{{
			Stubs: []string{"Object obj"},
			Diag:  "B1.java:17:27: compiler.err.prob.found.req: (compiler.misc.inconvertible.types: java.lang.Object, java.lang.String)",
			Line:  "  String o() { String t = obj; return t; }",
			Want:  []string{"java.lang.String obj"},
		}, {
			// Nested in a conditional's reason, and a method's result.
			Stubs: []string{"Object label()"},
			Diag:  "B1.java:3:36: compiler.err.prob.found.req: (compiler.misc.incompatible.type.in.conditional: (compiler.misc.inconvertible.types: java.lang.Object, java.lang.String))",
			Line:  "  String o(boolean b) { return b ? label() : \"\"; }",
			Want:  []string{"java.lang.String label()"},
		}},
		MustNotFix: []stubExample{{
			// The method's own variable, no stub.
			Diag: "B1.java:3:37: compiler.err.prob.found.req: (compiler.misc.inconvertible.types: java.lang.Object, java.lang.String)",
			Line: "  String o(Object v) { String t = v; return t; }",
		}},
	},
	{
		Name: "binary-operand", Keys: []string{"compiler.err.operator.cant.be.applied.1"}, Fix: fixBinaryOperand,
		MustFix: []stubExample{{
			Stubs: []string{"Object obj"},
			Diag:  "B1.java:18:21: compiler.err.operator.cant.be.applied.1: <, java.lang.Object, int",
			Line:  "  int q() { if (obj < 3) return 1; return 0; }",
			Want:  []string{"int obj"},
		}, {
			// Both sides stubs: the left becomes an int.
			Stubs: []string{"Object lo", "Object hi"},
			Diag:  "B1.java:3:23: compiler.err.operator.cant.be.applied.1: -, java.lang.Object, java.lang.Object",
			Line:  "  int q() { return hi - lo; }",
			Want:  []string{"Object lo", "int hi"},
		}, {
			// && and || want booleans.
			Stubs: []string{"Object ok"},
			Diag:  "B1.java:3:35: compiler.err.operator.cant.be.applied.1: &&, boolean, java.lang.Object",
			Line:  "  boolean q(boolean a) { return a && ok; }",
			Want:  []string{"boolean ok"},
		}},
		MustNotFix: []stubExample{{
			// Operands of real types: the method's own type error.
			Diag: "B1.java:3:27: compiler.err.operator.cant.be.applied.1: -, java.lang.String, int",
			Line: "  int q(String s) { return s - 1; }",
		}},
	},
	{
		Name: "incomparable-operand", Keys: []string{"compiler.err.incomparable.types"}, Fix: fixIncomparable,
		MustFix: []stubExample{{
			Stubs: []string{"Object obj"},
			Diag:  "B1.java:3:28: compiler.err.incomparable.types: java.lang.Object, int",
			Line:  "  boolean r() { return obj == 3; }",
			Want:  []string{"int obj"},
		}, {
			Stubs: []string{"class Node", "Node head"},
			Diag:  "B1.java:3:29: compiler.err.incomparable.types: p2.Node, java.lang.String",
			Line:  "  boolean i() { return head != \"x\"; }",
			Want:  []string{"java.lang.String head", "class Node"},
		}},
		MustNotFix: []stubExample{{
			Diag: "B1.java:3:32: compiler.err.incomparable.types: java.lang.Integer, java.lang.String",
			Line: "  boolean i(Integer a) { return a == \"x\"; }",
		}},
	},
	{
		Name: "unary-operand", Keys: []string{"compiler.err.operator.cant.be.applied"}, Fix: fixUnaryOperand,
		MustFix: []stubExample{{
			Stubs: []string{"Object obj"},
			Diag:  "B1.java:20:20: compiler.err.operator.cant.be.applied: -, java.lang.Object",
			Line:  "  int s() { return -obj; }",
			Want:  []string{"int obj"},
		}, {
			Stubs: []string{"Object obj"},
			Diag:  "B1.java:21:24: compiler.err.operator.cant.be.applied: !, java.lang.Object",
			Line:  "  boolean t() { return !obj; }",
			Want:  []string{"boolean obj"},
		}, {
			// Postfix: the operand ends at the operator.
			Stubs: []string{"Object n"},
			Diag:  "B1.java:3:15: compiler.err.operator.cant.be.applied: ++, java.lang.Object",
			Line:  "  void s() { n++; }",
			Want:  []string{"int n"},
		}},
		MustNotFix: []stubExample{{
			Diag: "B1.java:20:20: compiler.err.operator.cant.be.applied: -, java.lang.String",
			Line: "  int s(String v) { return -v; }",
		}},
	},
}

// resolveSite reads a cannot-find-symbol diagnostic: the symbol's kind and
// name, its stub owner ("" for the harness class) and whether it is
// reached through an instance. It may retype an Object stub to a fresh
// stub class (see owner), idempotently, so each cantResolve rule calls it.
func (s *stubSet) resolveSite(d diagnostic, harness map[string]bool) (kind, name, own string, inst bool, err error) {
	a := d.Args
	if len(a) < 2 {
		return "", "", "", false, errNoStub
	}
	kind, name = strings.TrimPrefix(a[0], "kindname."), a[1]
	if !isIdent(name) || strings.Contains(name, ".") {
		return "", "", "", false, errNoStub
	}
	if len(a) >= 5 {
		loc, ok := parseLocation(a[4])
		if !ok {
			return "", "", "", false, errNoStub
		}
		if own, ok = s.owner(loc, harness); !ok {
			return "", "", "", false, errNoStub
		}
		inst = own != "" && loc.Kind == "variable"
	}
	return kind, name, own, inst, nil
}

func fixMissingClass(s *stubSet, d diagnostic, _ string, harness map[string]bool) error {
	kind, name, _, _, err := s.resolveSite(d, harness)
	switch {
	case err != nil:
		return err
	case kind != "class":
		return errNext
	case harness[name]:
		return errNoStub
	}
	s.addClass(name)
	return nil
}

// fixStaticClassUse: Util.parse(x), a class used statically, is reported
// as a missing variable.
func fixStaticClassUse(s *stubSet, d diagnostic, text string, harness map[string]bool) error {
	kind, name, _, _, err := s.resolveSite(d, harness)
	if err != nil {
		return err
	}
	i := d.Col - 1 + len(name)
	if kind != "variable" || !unicode.IsUpper(rune(name[0])) || i >= len(text) || text[i] != '.' {
		return errNext
	}
	s.addClass(name)
	return nil
}

// fixMissingField adds the field, an Object unless the line shows a
// boolean (!x) or an array (x.length).
func fixMissingField(s *stubSet, d diagnostic, text string, harness map[string]bool) error {
	kind, name, own, inst, err := s.resolveSite(d, harness)
	if err != nil {
		return err
	}
	if kind != "variable" {
		return errNext
	}
	ms := s.members(own)
	if findMember(*ms, name, false, nil) != nil {
		return nil // reported twice in one round
	}
	i := d.Col - 1 + len(name)
	typ := "Object"
	before := strings.TrimSpace(text[:max(0, min(d.Col-1, len(text)))])
	switch {
	case strings.HasSuffix(before, "!"):
		typ = "boolean"
	case strings.HasPrefix(text[min(i, len(text)):], ".length") && !strings.HasPrefix(text[min(i, len(text)):], ".length("):
		typ = "int[]"
	}
	*ms = append(*ms, &stubMember{name: name, typ: typ, inst: inst})
	return nil
}

// fixMissingMethod adds the method with javac's argument types and a
// result guessed from the line; "super.m(…)" goes to the base class.
func fixMissingMethod(s *stubSet, d diagnostic, text string, harness map[string]bool) error {
	kind, name, own, inst, err := s.resolveSite(d, harness)
	if err != nil {
		return err
	}
	if kind != "method" {
		return errNext
	}
	var params []string
	if len(d.Args) >= 4 {
		params = javaTypes(splitTypeList(d.Args[3]))
	}
	ms := s.members(own)
	if own == "" && superCall(text, d.Col) {
		ms, inst = &s.super, true
	}
	if findMember(*ms, name, true, params) != nil {
		return nil // reported twice in one round
	}
	typ := guessReturn(name, text, d.Col)
	if m := findMember(*ms, name, true, nil); m != nil {
		typ = m.typ // an overload: keep the known result type
	}
	*ms = append(*ms, &stubMember{name: name, typ: typ, params: params, method: true, inst: inst})
	return nil
}

// fixNonStatic: an instance stub member also used statically becomes
// static.
func fixNonStatic(s *stubSet, d diagnostic, _ string, _ map[string]bool) error {
	if len(d.Args) < 2 {
		return errNoStub
	}
	for _, c := range s.classes {
		for _, m := range c.members {
			if m.name == d.Args[1] && m.inst {
				m.inst = false
				return nil
			}
		}
	}
	return errNoStub
}

// fixOverload adds the overload of a stub class's constructor or method,
// or of a harness stub method, that takes the types javac found. Args:
// kindname.constructor|method, name, required, found, kindname.class,
// owner, reason.
func fixOverload(s *stubSet, d diagnostic, _ string, harness map[string]bool) error {
	a := d.Args
	if len(a) < 6 {
		return errNoStub
	}
	kind, name, found, ownerName := strings.TrimPrefix(a[0], "kindname."), a[1], a[3], simple(a[5])
	if err := s.overload(kind, name, ownerName, javaTypes(splitTypeList(found)), harness); err == nil || s.class(ownerName) != nil {
		return err
	}
	return errNext
}

// fixJDKArgument: a JDK method given one of our Object stubs retypes the
// stub to the parameter type the method requires.
func fixJDKArgument(s *stubSet, d diagnostic, text string, _ map[string]bool) error {
	a := d.Args
	if len(a) < 6 {
		return errNoStub
	}
	rs, fs := splitTypeList(a[2]), splitTypeList(a[3])
	if len(rs) != len(fs) {
		return errNoStub
	}
	if s.retypeObjectArgs(callArgs(text, d.Col-1), rs, fs) {
		return nil
	}
	return errNoStub
}

// retypeObjectArgs retypes each Object stub member passed as an argument
// found as Object where required is not, to the required type; it
// reports whether it changed one.
func (s *stubSet) retypeObjectArgs(args, required, found []string) bool {
	changed := false
	for i := range found {
		if !isObject(found[i]) || isObject(required[i]) || i >= len(args) {
			continue
		}
		if m := s.anyMember(exprName(args[i])); m != nil && isObject(m.typ) {
			m.typ = javaType(required[i])
			changed = true
		}
	}
	return changed
}

// fixOverloads is fixOverload once the stub has two overloads and neither
// fits. Args: kindname.constructor|method, name,
// found,{(compiler.misc.inapplicable.method: kindname.X, owner, sig, reason),…}.
func fixOverloads(s *stubSet, d diagnostic, _ string, harness map[string]bool) error {
	a := d.Args
	if len(a) != 3 {
		return errNoStub
	}
	found, cands, ok := strings.Cut(a[2], "{")
	if !ok {
		return errNoStub
	}
	kind, name := strings.TrimPrefix(a[0], "kindname."), a[1]
	_, cand, _ := strings.Cut(cands, ": ")
	p := splitDiagArgs(cand)
	if len(p) < 2 {
		return errNoStub
	}
	ownerName := simple(p[1])
	if s.class(ownerName) == nil && !harness[ownerName] {
		return errNoStub
	}
	return s.overload(kind, name, ownerName, javaTypes(splitTypeList(strings.TrimSuffix(found, ","))), harness)
}

// fixSuperReturn: the method overrides a "super." stub (super.size(s)
// inside size(String)), so the stub returns what the method returns.
// Args: (compiler.misc.cant.override: m(params), B, m(params), P), method
// type, stub type.
func fixSuperReturn(s *stubSet, d diagnostic, _ string, _ map[string]bool) error {
	a := d.Args
	if len(a) != 3 {
		return errNoStub
	}
	_, body, ok := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(a[0], "("), ")"), ": ")
	if !ok {
		return errNoStub
	}
	name, _, _ := strings.Cut(body, "(")
	for _, m := range s.super {
		if m.method && m.name == strings.TrimSpace(name) && m.typ != javaType(a[1]) {
			m.typ = javaType(a[1])
			return nil
		}
	}
	return errNoStub
}

// fixCaughtStub: "catch (X e)" of a stub class javac took as checked makes
// it unchecked (often already done this round for another diagnostic on
// the same class; the next javac run sees it).
func fixCaughtStub(s *stubSet, d diagnostic, _ string, _ map[string]bool) error {
	if len(d.Args) != 1 {
		return errNoStub
	}
	c := s.class(simple(d.Args[0]))
	if c == nil {
		return errNoStub
	}
	c.throwable = true
	return nil
}

// fixThrownStub: "throw new X(...)" of a stub class that is not yet
// Throwable (javac names the type <any>).
func fixThrownStub(s *stubSet, d diagnostic, text string, _ map[string]bool) error {
	i := d.Col - 1
	if i < 0 || i >= len(text) || !strings.HasPrefix(text[i:], "throw") {
		return errNoStub
	}
	rest := strings.TrimSpace(text[i+len("throw"):])
	if !strings.HasPrefix(rest, "new ") {
		return errNoStub
	}
	c := s.class(identStartingAfter(rest, len("new ")))
	if c == nil || c.throwable {
		return errNoStub
	}
	c.throwable = true
	return nil
}

// conversion unwraps "(compiler.misc.X: (compiler.misc.inconvertible.types:
// A, B))" to the found and required types.
func conversion(d diagnostic) (found, req string, err error) {
	if len(d.Args) < 1 {
		return "", "", errNoStub
	}
	arg := d.Args[0]
	for {
		_, body, ok := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(arg, "("), ")"), ": ")
		if !ok {
			return "", "", errNoStub
		}
		p := splitDiagArgs(body)
		if len(p) == 1 && strings.HasPrefix(p[0], "(compiler.misc.") {
			arg = p[0]
			continue
		}
		if len(p) != 2 {
			return "", "", errNoStub
		}
		return p[0], p[1], nil
	}
}

// fixThrowableConversion: a stub class thrown or caught ("catch
// (XException e)"), perhaps reported again by the other method this
// round, extends RuntimeException.
func fixThrowableConversion(s *stubSet, d diagnostic, _ string, _ map[string]bool) error {
	found, req, err := conversion(d)
	if err != nil {
		return err
	}
	if c := s.class(simple(found)); c != nil && throwableType[req] {
		c.throwable = true
		return nil
	}
	return errNext
}

// fixRequiredType retypes the stub at the caret to the type required.
func fixRequiredType(s *stubSet, d diagnostic, text string, _ map[string]bool) error {
	found, req, err := conversion(d)
	if err != nil {
		return err
	}
	return s.retype(identAt(text, d.Col), found, req)
}

// fixBinaryOperand retypes an Object or stub-class operand of a binary
// operator: to boolean for && and ||, else to the other side's type (int
// when that is a stub too).
func fixBinaryOperand(s *stubSet, d diagnostic, text string, _ map[string]bool) error {
	if len(d.Args) != 3 {
		return errNoStub
	}
	return s.retypeOperands(d.Args[0], d.Args[1], d.Args[2], text, d.Col)
}

// fixIncomparable is fixBinaryOperand for == and != on types that cannot
// be compared.
func fixIncomparable(s *stubSet, d diagnostic, text string, _ map[string]bool) error {
	if len(d.Args) != 2 {
		return errNoStub
	}
	op := "=="
	if i := d.Col - 1; i >= 0 && i+1 < len(text) && text[i:i+2] == "!=" {
		op = "!="
	}
	return s.retypeOperands(op, d.Args[0], d.Args[1], text, d.Col)
}

// retypeOperands retypes the left operand ending at the operator (col,
// 1-based), else the right one starting after it.
func (s *stubSet) retypeOperands(op, l, r, text string, col int) error {
	i := col - 1
	if i < 0 || i > len(text) {
		return errNoStub
	}
	if s.ours(l) {
		if err := s.retype(identEndingAt(text, i), l, s.operandType(op, r)); err == nil {
			return nil
		}
	}
	if s.ours(r) {
		j := min(i+len(op), len(text))
		return s.retype(identStartingAfter(text, j), r, s.operandType(op, l))
	}
	return errNoStub
}

// ours reports whether javac's type t is Object or one of the stub
// classes: a type the stubs chose and may change.
func (s *stubSet) ours(t string) bool { return isObject(t) || s.class(simple(t)) != nil }

// operandType is the type an operand of op takes next to an operand of
// type other: boolean for && and ||, int next to one of ours, else other's.
func (s *stubSet) operandType(op, other string) string {
	if op == "&&" || op == "||" {
		return "boolean"
	}
	if s.ours(other) {
		return "int"
	}
	return javaType(other)
}

// fixUnaryOperand retypes the Object or stub-class operand of a unary
// operator: boolean for !, else int; prefix first, then postfix.
func fixUnaryOperand(s *stubSet, d diagnostic, text string, _ map[string]bool) error {
	a := d.Args
	if len(a) != 2 || !s.ours(a[1]) {
		return errNoStub
	}
	want := "int"
	if a[0] == "!" {
		want = "boolean"
	}
	i := d.Col - 1
	if i < 0 || i > len(text) {
		return errNoStub
	}
	if err := s.retype(identStartingAfter(text, min(i+len(a[0]), len(text))), a[1], want); err == nil {
		return nil
	}
	return s.retype(identEndingAt(text, i), a[1], want)
}
