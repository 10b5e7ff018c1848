package track

import (
	"strings"
	"testing"
)

// javaClass is a file of class C holding methods.
func javaClass(methods ...string) *fileVersion {
	return &fileVersion{path: "C.java", src: []byte("class C {\n" + strings.Join(methods, "\n") + "}\n")}
}

const (
	cmpMethod = `    private int compare(Object l, Object r) {
        double ld = Util.doubleValue(l);
        double rd = Util.doubleValue(r);
        return ld == rd ? 0 : ld < rd ? -1 : 1;
    }
`
	computeCalls = `    private boolean compute(Object left, Object right) {
        left = reduce(left);
        return evaluateCompare(compare(left, right));
    }
`
)

// TestRulesOfInline: a deleted method is inlined into the function that
// grew in the same commit and holds its body, as it stood or with the
// call's arguments for its parameters and its returned expression where
// the call was (must match); not into a function that merely grew, nor on
// lines any function has (must not match).
func TestRulesOfInline(t *testing.T) {
	prev := javaClass(computeCalls, cmpMethod)
	for _, tc := range []struct {
		name, now string
		want      bool
	}{
		{"arguments for parameters, returned expression in the caller's line", `    private boolean compute(Object left, Object right) {
        left = reduce(left);
        double ld = Util.doubleValue(left);
        if (Double.isNaN(ld)) {
            return false;
        }
        double rd = Util.doubleValue(right);
        return evaluateCompare(ld == rd ? 0 : ld < rd ? -1 : 1);
    }
`, true},
		{"statements as they were", `    private boolean compute(Object left, Object right) {
        Object l = reduce(left), r = right;
        double ld = Util.doubleValue(l);
        double rd = Util.doubleValue(r);
        return evaluateCompare(ld == rd ? 0 : ld < rd ? -1 : 1);
    }
`, true},
		{"the caller grew with other logic", `    private boolean compute(Object left, Object right) {
        left = reduce(left);
        right = reduce(right);
        return evaluateCompare(Util.compareNumbers(left, right));
    }
`, false},
		{"only one body line arrived", `    private boolean compute(Object left, Object right) {
        left = reduce(left);
        double ld = Util.doubleValue(left);
        return evaluateCompare(Double.compare(ld, Util.doubleValue(right)));
    }
`, false},
	} {
		got := inlinedInto(cmpMethod, "compare", javaClass(tc.now), prev) >= 0
		if got != tc.want {
			t.Errorf("%s: inlined = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestInlineParts: the pieces of the argument substitution.
func TestInlineParts(t *testing.T) {
	if got := strings.Join(paramNames(cmpMethod, "compare"), ","); got != "l,r" {
		t.Errorf("Java parameters = %q, want l,r", got)
	}
	if got := strings.Join(paramNames("def f(self, x: int = 1, *args, **kw) -> str:", "f"), ","); got != "self,x,args,kw" {
		t.Errorf("Python parameters = %q", got)
	}
	if got := strings.Join(splitArgs(`(a, g(b, c), "x,y", m[1, 2]) + 1`), "|"); got != `a|g(b, c)|"x,y"|m[1, 2]` {
		t.Errorf("arguments = %q", got)
	}
	if got := splitArgs("()"); len(got) != 0 {
		t.Errorf("no arguments = %q", got)
	}
	if got := splitArgs("(a, b"); got != nil {
		t.Errorf("unclosed list = %q, want nil", got)
	}
	to := []string{"self.x + y", "this.l = l.next", "sl = l"}
	got := substitute(to, []string{"self", "y", "l"}, []string{"z", "left"})
	if strings.Join(got, "|") != "self.x + z|this.l = left.next|sl = left" {
		t.Errorf("substituted = %q (a field after a dot and a longer name are kept)", got)
	}
	if got := callArgs(javaClass(computeCalls), "C.compute(Object,Object)", "compare"); strings.Join(got, ",") != "left,right" {
		t.Errorf("call arguments = %q", got)
	}
}
