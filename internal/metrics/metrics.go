// Package metrics owns the per-method measurements of rxsynth §6: the seven
// structural metrics of §6.1 and the thirteen lexical constructs of §6.3,
// computed identically for Java and (by the closest analogue) Python
// methods on the syntax trees of internal/code.
//
// Structural metrics (§6.1), over one function's declaration (Java:
// annotations and modifiers included; Python: decorators included; nested
// lambdas, local and anonymous classes, and nested functions count towards
// the enclosing function):
//
//   - PLOC: non-blank lines of the declaration text (comment lines count).
//   - LLOC: statement nodes. Java: local variable declarations (not a for
//     loop's init), expression, if, for, enhanced for, while, do, return,
//     throw, break, continue, yield, try, try-with-resources, synchronized,
//     labeled, assert and explicit constructor invocation statements; blocks
//     are not statements. This departs from javalang, which the paper used
//     and which counts blocks and catch clauses as statements but local
//     variable declarations as declarations. Python: every child of a block
//     except comments and docstrings (a def or class inside counts as one).
//   - Cyclomatic: extended cyclomatic complexity, 1 + decision points. Java:
//     if, for, enhanced for, while, do, each "case" label (not "default"),
//     catch, ?:, && and ||. Python: if, elif, for, while, except, each
//     case clause except a bare "case _", conditional expression, each
//     and / or, and each for / if clause of a comprehension.
//   - MaxNesting: deepest nesting of control structures, 0 for straight-line
//     code. Java: if, for, enhanced for, while, do, switch, try (with
//     resources), synchronized; an else-if does not nest deeper. Python:
//     if, for, while, try, with, match (elif/else/except clauses do not
//     nest).
//   - Identifiers: identifier token occurrences (Java type names included).
//   - Params: formal parameters (Java varargs count one, receiver
//     parameters none; Python counts self/cls, *args and **kwargs, not the
//     bare * and / markers).
//   - Tokens: lexical tokens excluding comments (code.Token).
//
// Lexical constructs (§6.3: "null literals, equality and inequality checks,
// instanceof, casts, array accesses, try and catch, explicit throw, return
// null, equals calls, division, and modulo" — thirteen with equality and
// inequality, try and catch counted separately):
//
//	construct        Java                          Python
//	null_literals    null                          None
//	equality         ==                            ==, is
//	inequality       !=                            !=, is not
//	instanceof       instanceof                    isinstance(...) calls
//	casts            (T) e                         typing.cast / cast(...) calls;
//	                                               int(x) etc. are conversions, not counted
//	array_accesses   a[i]                          subscripts a[i], slices included
//	try              try, try-with-resources       try
//	catch            catch clauses                 except / except* clauses
//	throw            throw                         raise
//	return_null      return null; (parenthesised)  return None (a bare return is not)
//	equals_calls     .equals(...) invocations      == (value equality, Java's equals);
//	                                               so a Python == counts in two rows
//	division         /, /=                         /, //, /=, //=
//	modulo           %, %=                         %, %= except string formatting
//	                                               ("..." % x)
//
// Measured speed (BenchmarkJDKParseMetrics: parse + all metrics and
// constructs of every method over the first ~21 MB of java.base sources in
// the JDK 17 src.zip, one goroutine): 5.2 MB/s wall on a lightly loaded
// 2-core VM; under a load average of ~14 on the same 2 cores, 1.1–1.5 MB/s
// wall but 3.7 MB per CPU-second (user+sys). Since internal/code walks the
// tree in C (four cgo calls per parse rather than ~7 per node) and lets
// tree-sitter allocate with libc: 11 MB per CPU-second against 5.0 for the
// old code in the same session (load average 7–11; CPU time of 3 minus 1
// iterations, /usr/bin/time). About 60% of the CPU time is now
// tree-sitter's own parsing.
package metrics

import (
	"fmt"
	"strings"

	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/errs"
)

// Metrics are the seven structural metrics of rxsynth §6.1.
type Metrics struct {
	PLOC        int `json:"ploc"`
	LLOC        int `json:"lloc"`
	Cyclomatic  int `json:"cyclomatic"`
	MaxNesting  int `json:"max_nesting"`
	Identifiers int `json:"identifiers"`
	Params      int `json:"params"`
	Tokens      int `json:"tokens"`
}

// MetricNames are the metric names in the fixed order of Values.
var MetricNames = []string{"ploc", "lloc", "cyclomatic", "max_nesting", "identifiers", "params", "tokens"}

// Values returns the metrics in MetricNames order.
func (m Metrics) Values() []int {
	return []int{m.PLOC, m.LLOC, m.Cyclomatic, m.MaxNesting, m.Identifiers, m.Params, m.Tokens}
}

// Constructs are the thirteen lexical constructs of rxsynth §6.3.
type Constructs struct {
	NullLiterals     int `json:"null_literals"`
	EqualityChecks   int `json:"equality"`
	InequalityChecks int `json:"inequality"`
	InstanceOf       int `json:"instanceof"`
	Casts            int `json:"casts"`
	ArrayAccesses    int `json:"array_accesses"`
	Try              int `json:"try"`
	Catch            int `json:"catch"`
	Throw            int `json:"throw"`
	ReturnNull       int `json:"return_null"`
	EqualsCalls      int `json:"equals_calls"`
	Division         int `json:"division"`
	Modulo           int `json:"modulo"`
}

// ConstructNames are the construct names in the fixed order of Values.
var ConstructNames = []string{"null_literals", "equality", "inequality", "instanceof", "casts",
	"array_accesses", "try", "catch", "throw", "return_null", "equals_calls", "division", "modulo"}

// Values returns the constructs in ConstructNames order.
func (c Constructs) Values() []int {
	return []int{c.NullLiterals, c.EqualityChecks, c.InequalityChecks, c.InstanceOf, c.Casts,
		c.ArrayAccesses, c.Try, c.Catch, c.Throw, c.ReturnNull, c.EqualsCalls, c.Division, c.Modulo}
}

// Method is one function with its measurements.
type Method struct {
	File       string        `json:"file"`
	Function   code.Function `json:"function"`
	Metrics    Metrics       `json:"metrics"`
	Constructs Constructs    `json:"constructs"`
}

// OfFile measures every function of f (code.File.Functions order).
func OfFile(f *code.File) []Method {
	fns := f.Functions()
	if len(fns) == 0 {
		return nil
	}
	toks := f.Tokens()
	out := make([]Method, 0, len(fns))
	for _, fn := range fns {
		out = append(out, measure(f, fn, toks))
	}
	return out
}

// OfFunction measures one function of f given the file's tokens
// (f.Tokens()), for callers that already hold both and measure only some
// functions.
func OfFunction(f *code.File, fn code.Function, toks []code.Token) Method {
	return measure(f, fn, toks)
}

// OfMethodSource measures a lone Java method given as text (a generated or
// extracted buggy/fixed method), parsed in a dummy class like rxsynth §4.4.
// It fails with an error wrapping errs.ErrInput when the text has syntax
// errors or does not hold exactly one method or constructor.
func OfMethodSource(src []byte) (Method, error) {
	f, err := code.ParseJavaMethod(src)
	if err != nil {
		return Method{}, fmt.Errorf("metrics of method: %w", err)
	}
	defer f.Close()
	if se := f.SyntaxErrors(); len(se) > 0 {
		return Method{}, fmt.Errorf("metrics of method: %d syntax error(s), first at line %d col %d: %s: %w",
			len(se), se[0].Line, se[0].Col, se[0].Msg, errs.ErrInput)
	}
	var top []code.Function
	for _, fn := range f.Functions() {
		if fn.Class == "" {
			top = append(top, fn)
		}
	}
	if len(top) != 1 {
		names := make([]string, len(top))
		for i, fn := range top {
			names[i] = fn.Name
		}
		return Method{}, fmt.Errorf("metrics of method: found %d top-level methods %v, want exactly one: %w",
			len(top), names, errs.ErrInput)
	}
	return measure(f, top[0], f.Tokens()), nil
}

func measure(f *code.File, fn code.Function, toks []code.Token) Method {
	m := Method{File: f.Path, Function: fn}
	m.Metrics.PLOC = nonBlankLines(f.Src[fn.StartByte:fn.EndByte])
	m.Metrics.Params = len(fn.Params)
	m.Metrics.Tokens, m.Metrics.Identifiers = countTokens(toks, fn)
	root := fn.Node
	nodes := f.Nodes()
	if p := nodes[root].Parent(); p >= 0 && nodes[p].Kind() == "decorated_definition" {
		root = p
	}
	switch f.Lang {
	case code.LangJava:
		javaTree(f, root, &m)
	case code.LangPython:
		pythonTree(f, root, &m)
	}
	return m
}

// countTokens counts the tokens of fn's declaration, comments left out,
// and the identifiers among them.
func countTokens(toks []code.Token, fn code.Function) (tokens, identifiers int) {
	// Binary search the first token, then scan.
	lo, hi := 0, len(toks)
	for lo < hi {
		mid := (lo + hi) / 2
		if toks[mid].StartByte < fn.StartByte {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	for _, t := range toks[lo:] {
		if t.StartByte >= fn.EndByte {
			break
		}
		switch t.Kind {
		case code.Comment:
			continue
		case code.Identifier:
			identifiers++
		}
		tokens++
	}
	return tokens, identifiers
}

func nonBlankLines(b []byte) int {
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) != "" {
			n++
		}
	}
	return n
}

// operator returns the text of node i's child in field "operator", or "".
func operator(f *code.File, i int) string {
	if c := f.ChildByField(i, "operator"); c >= 0 {
		return f.Nodes()[c].Kind()
	}
	return ""
}

// nester tracks the nesting depth of control structures during a
// pre-order scan of a subtree.
type nester struct {
	ends []int // End indices of the open nesting nodes
	max  int
}

// at pops the structures that closed before node i.
func (n *nester) at(i int) {
	for len(n.ends) > 0 && n.ends[len(n.ends)-1] <= i {
		n.ends = n.ends[:len(n.ends)-1]
	}
}

func (n *nester) open(end int) {
	n.ends = append(n.ends, end)
	n.max = max(n.max, len(n.ends))
}

// kindRule is what one node kind counts toward; each language keeps its
// rules in one map so its walk looks a node up once.
type kindRule struct {
	statement bool // Java: a statement LLOC counts
	branch    bool // adds one to cyclomatic complexity
	nesting   bool // a control structure MaxNesting counts
	// tally, when set, is the construct counter the kind adds one to.
	tally func(*Constructs) *int
	// count, when set, counts node i's constructs and returns the
	// cyclomatic complexity it adds beyond branch.
	count func(f *code.File, i int, c *Constructs) int
}

// apply counts node i's constructs in c and returns the cyclomatic
// complexity it adds.
func (r kindRule) apply(f *code.File, i int, c *Constructs) int {
	cyc := 0
	if r.branch {
		cyc++
	}
	if r.tally != nil {
		*r.tally(c)++
	}
	if r.count != nil {
		cyc += r.count(f, i, c)
	}
	return cyc
}

// The construct counters the kind tables share.
var (
	nullLiterals  = func(c *Constructs) *int { return &c.NullLiterals }
	instanceOfs   = func(c *Constructs) *int { return &c.InstanceOf }
	casts         = func(c *Constructs) *int { return &c.Casts }
	arrayAccesses = func(c *Constructs) *int { return &c.ArrayAccesses }
	tries         = func(c *Constructs) *int { return &c.Try }
	catches       = func(c *Constructs) *int { return &c.Catch }
	throws        = func(c *Constructs) *int { return &c.Throw }
)
