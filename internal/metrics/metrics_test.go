package metrics

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// javaMethod is hand-counted below.
const javaMethod = `public static int parse(String s, Object o, int[] xs) {
    // comment line: counts for PLOC, not for tokens
    if (s == null || s.isEmpty()) {
        return -1;
    } else if (o instanceof String && !s.equals(o)) {
        for (int i = 0; i < xs.length; i++) {
            while (xs[i] != 0) {
                xs[i] = xs[i] / 2 % 7;
            }
        }
    }
    try {
        return ((Integer) o) > 0 ? 1 : 0;
    } catch (ClassCastException e) {
        throw new IllegalStateException(e);
    }
}`

func TestOfMethodSourceJava(t *testing.T) {
	m, err := OfMethodSource([]byte(javaMethod))
	testcheck.Must(t, err)
	want := Metrics{
		// 17 lines, none blank.
		PLOC: 17,
		// if(1) return(2) else-if(3) for(4) while(5) xs[i]=…;(6) try(7)
		// return(8) throw(9); the for init "int i = 0" is not a statement.
		LLOC: 9,
		// 1 + if + || + else-if + && + for + while + ?: + catch = 9.
		Cyclomatic: 9,
		// try(1); if(1) > for(2) > while(3); the else-if does not nest.
		MaxNesting: 3,
		// line1: parse String s Object o xs (6; int is a keyword)
		// line3: s s isEmpty (3)  line5: o String s equals o (5)
		// line6: i i xs length i (5)  line7: xs i (2)  line8: xs i xs i (4)
		// line12: Integer o (2)  line13: ClassCastException e (2)
		// line14: IllegalStateException e (2)  => 31
		Identifiers: 31,
		Params:      3,
		// line1: public static int parse ( String s , Object o , int [ ] xs ) { = 17
		// line3: if ( s == null || s . isEmpty ( ) ) { = 13
		// line4: return - 1 ; = 4; line5: } else if ( o instanceof String && ! s . equals ( o ) ) { = 17
		// line6: for ( int i = 0 ; i < xs . length ; i ++ ) { = 17
		// line7: while ( xs [ i ] != 0 ) { = 10; line8: xs [ i ] = xs [ i ] / 2 % 7 ; = 14
		// lines 9-11: } } } = 3; line12: try { = 2
		// line13: return ( ( Integer ) o ) > 0 ? 1 : 0 ; = 14
		// line14: } catch ( ClassCastException e ) { = 7
		// line15: throw new IllegalStateException ( e ) ; = 7; lines 16-17: } } = 2
		// => 17+13+4+17+17+10+14+3+2+14+7+7+2 = 127
		Tokens: 127,
	}
	if d := cmp.Diff(want, m.Metrics); d != "" {
		t.Errorf("metrics (-want +got):\n%s", d)
	}
	wantC := Constructs{
		NullLiterals: 1, EqualityChecks: 1, InequalityChecks: 1, InstanceOf: 1, Casts: 1,
		ArrayAccesses: 3, // xs[i] in the while condition and twice on line 8
		Try:           1, Catch: 1, Throw: 1, ReturnNull: 0, EqualsCalls: 1, Division: 1, Modulo: 1,
	}
	if d := cmp.Diff(wantC, m.Constructs); d != "" {
		t.Errorf("constructs (-want +got):\n%s", d)
	}
	if m.Function.Name != "parse" || m.Function.StartLine != 1 || m.Function.EndLine != 17 {
		t.Errorf("function = %+v", m.Function)
	}
}

func TestJavaSwitchAndReturnNull(t *testing.T) {
	src := `Object f(int k, String... rest) {
    switch (k) {
        case 1: case 2:
            return null;
        case 3:
            return (null);
        default:
            k /= 2; k %= 3;
    }
    synchronized (this) { if (k == 0) { return rest[0]; } }
    return k > 1 ? "a" : null;
}`
	m, err := OfMethodSource([]byte(src))
	testcheck.Must(t, err)
	// Cyclomatic: 1 + case 1 + case 2 + case 3 + if + ?: = 6 (default adds none).
	// Nesting: synchronized(1) > if(2); switch(1).
	// LLOC: switch is an expression node in tree-sitter, not counted;
	// return, return, k/=2, k%=3, synchronized, if, return, return = 8.
	// The wanted values are the measured ones with the checked fields set.
	want := m.Metrics
	want.Cyclomatic, want.MaxNesting, want.LLOC, want.Params = 6, 2, 8, 2
	if d := cmp.Diff(want, m.Metrics); d != "" {
		t.Errorf("metrics (-want +got):\n%s", d)
	}
	// return null twice (one parenthesised); the ternary's null is a null
	// literal but not "return null". 3 null literals, one ==.
	wantC := m.Constructs
	wantC.ReturnNull, wantC.NullLiterals, wantC.Division, wantC.Modulo, wantC.ArrayAccesses, wantC.EqualityChecks = 2, 3, 1, 1, 1, 1
	if d := cmp.Diff(wantC, m.Constructs); d != "" {
		t.Errorf("constructs (-want +got):\n%s", d)
	}
}

const pyFile = `class Stack:
    def pop(self, default=None, *args):
        """Pop the top item."""
        if self.items is None or not self.items:
            return None
        elif isinstance(default, int) and default != 0:
            raise ValueError("bad %s" % default)
        try:
            top = self.items[-1]  # last
            del self.items[-1]
        except (IndexError, KeyError):
            return default // 2 % 3
        return top if top == 0 else top / 1
`

func TestOfFilePython(t *testing.T) {
	f, err := code.Parse(code.LangPython, "stack.py", []byte(pyFile))
	testcheck.Must(t, err)
	ms := OfFile(f)
	if len(ms) != 1 {
		t.Fatalf("got %d methods, want 1", len(ms))
	}
	m := ms[0]
	want := Metrics{
		PLOC: 12, // lines 2-13
		// if(1) return(2) raise(3) try(4) top=(5) del(6) return(7) return(8);
		// the docstring is not a logical line.
		LLOC: 8,
		// 1 + if + or + elif + and + except + conditional expression = 7.
		Cyclomatic: 7,
		// if(1); try(1).
		MaxNesting: 1,
		// pop self default args (4); self items self items (4);
		// isinstance default int default (4); ValueError default (2);
		// top self items (3); self items (2); IndexError KeyError (2);
		// default (1); top top top (3) => 25
		Identifiers: 25,
		Params:      3,
		Tokens:      0, // filled below from the counted lines
	}
	// Tokens per line (comments and the docstring string is one literal):
	// 2: def pop ( self , default = None , * args ) : = 13
	// 3: """…""" = 1
	// 4: if self . items is None or not self . items : = 12
	// 5: return None = 2
	// 6: elif isinstance ( default , int ) and default != 0 : = 12
	// 7: raise ValueError ( "bad %s" % default ) = 7
	// 8: try : = 2
	// 9: top = self . items [ - 1 ] = 9
	// 10: del self . items [ - 1 ] = 8
	// 11: except ( IndexError , KeyError ) : = 7
	// 12: return default // 2 % 3 = 6
	// 13: return top if top == 0 else top / 1 = 10  => 89
	want.Tokens = 89
	if d := cmp.Diff(want, m.Metrics); d != "" {
		t.Errorf("metrics (-want +got):\n%s", d)
	}
	wantC := Constructs{
		NullLiterals: 3, // default=None, is None, return None
		// "is" (1) + "==" (1); "!=" (1)
		EqualityChecks: 2, InequalityChecks: 1,
		InstanceOf:    1,
		ArrayAccesses: 2,
		Try:           1, Catch: 1, Throw: 1, ReturnNull: 1,
		EqualsCalls: 1, // the one "=="
		Division:    2, // "//" and "/"
		Modulo:      1, // "bad %s" % default is formatting, not counted
	}
	if d := cmp.Diff(wantC, m.Constructs); d != "" {
		t.Errorf("constructs (-want +got):\n%s", d)
	}
}

func TestOfMethodSourceRejects(t *testing.T) {
	tests := []struct {
		src, msg string
	}{
		{"int f() { return 1 }", "syntax error"},
		{"int f() { return 1; } int g() { return 2; }", "found 2 top-level methods [f g]"},
		{"int x = 1;", "found 0 top-level methods"},
		{"int f() { return \xff; }", "not UTF-8"},
	}
	for _, tt := range tests {
		_, err := OfMethodSource([]byte(tt.src))
		if !errors.Is(err, errs.ErrInput) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("OfMethodSource(%q) err = %v; want ErrInput mentioning %q", tt.src, err, tt.msg)
		}
	}
}

func TestNamesMatchValues(t *testing.T) {
	if len(ConstructNames) != 13 || len(Constructs{}.Values()) != 13 {
		t.Errorf("want the 13 constructs of rxsynth §6.3, have %d names / %d values", len(ConstructNames), len(Constructs{}.Values()))
	}
	if len(MetricNames) != 7 || len(Metrics{}.Values()) != 7 {
		t.Errorf("want the 7 metrics of rxsynth §6.1")
	}
	checkInFieldOrder(t, "Constructs", Constructs{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}.Values(), ConstructNames)
	checkInFieldOrder(t, "Metrics", Metrics{1, 2, 3, 4, 5, 6, 7}.Values(), MetricNames)
}

// checkInFieldOrder checks that the values of a struct whose fields are
// 1, 2, … come in field order.
func checkInFieldOrder(t *testing.T, what string, vals []int, names []string) {
	t.Helper()
	for i, v := range vals {
		if v != i+1 {
			t.Errorf("%s.Values()[%d] = %d, want %d (%s)", what, i, v, i+1, names[i])
		}
	}
}
