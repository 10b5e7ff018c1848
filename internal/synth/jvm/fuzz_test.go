package jvm

import (
	"strings"
	"testing"
)

func FuzzParseSignature(f *testing.F) {
	for _, s := range []string{"int len(String s) {}", "@A(x = \"(\") public static <T> T[] f(final List<? super T> a, int... b) throws E {",
		"/* c */ void f(", "int f(int a[][]) {", "<<>> f() {", "@", "\"unterminated"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sig, err := ParseSignature(s)
		if err != nil {
			return
		}
		if !isIdent(sig.Name) || sig.Return == "" {
			t.Fatalf("accepted %q with name %q return %q", s, sig.Name, sig.Return)
		}
		for _, p := range sig.Params {
			candidates(p.Type, sig.TypeVars) // must not panic
		}
	})
}

func FuzzDiagnostics(f *testing.F) {
	for _, s := range []string{
		"B3.java:12:16: compiler.err.cant.resolve.location.args: kindname.method, helper, , int, (compiler.misc.location: kindname.class, bfv.p3.B3, null)",
		"B1.java:3:9: compiler.err.operator.cant.be.applied.1: <, java.lang.Object, int",
		"F2.java:5:21: compiler.err.prob.found.req: (compiler.misc.incompatible.type.in.conditional: (compiler.misc.inconvertible.types: java.lang.Object, java.lang.String))",
		"S1.java:2:3: compiler.err.cant.apply.symbol: kindname.constructor, Foo, compiler.misc.no.args, int, kindname.class, bfv.p1.Foo, (compiler.misc.arg.length.mismatch)",
	} {
		f.Add(s, "    return helper(x) + count.size();")
	}
	f.Fuzz(func(t *testing.T, diag, line string) {
		var s stubSet
		harness := map[string]bool{"B3": true, "F3": true}
		for _, d := range parseDiagnostics(diag) {
			_ = s.fix(d, line, harness) // must not panic
		}
		var b strings.Builder
		renderMembers(&b, s.harness)
		s.renderClasses(&b)
		_ = s.describe()
	})
}
