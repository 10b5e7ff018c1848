package patchcheck

import "strings"

// membership is the python-membership rule: a disjunction of equalities
// on one operand ("x == a or x == b") is the membership test
// "x in [ a , b ]", a conjunction of inequalities ("x != a and x != b")
// is "x not in [ a , b ]", and a membership test in a tuple or set
// literal reads as one in a list (sympy's Add._eval_is_zero: the fix's
// `len(nz) == 0 or len(nz) == len(self.args)` became
// `len(nz) in [0, len(self.args)]`; Sourcery's and pylint's
// consider-using-in). A chain is rewritten only where the line's
// grammar leaves no doubt what it spans: delimited by a bracket, a
// comma, `=`, `if`/`elif`/`while`/`return`/`assert`, `:` or the line's
// ends — never by a boolean operator that binds tighter (`not`, and
// `and` around an `or` chain), which would make it span less than it
// seems. A line with a string literal holding a space is left alone: its
// tokens are not the grammar's.
func membership(t string) string {
	if !strings.Contains(t, " or ") && !strings.Contains(t, " and ") && !strings.Contains(t, " in ") {
		return t
	}
	toks := strings.Split(t, " ")
	if !plainTokens(toks) {
		return t
	}
	for n := 0; n < 8; n++ { // a line holds few chains; bound the rewrites
		out, ok := rewriteChain(toks)
		if !ok {
			break
		}
		toks = out
	}
	return strings.Join(listMembership(toks), " ")
}

// plainTokens reports whether every token holding a quote is one whole
// literal: a prefix, an opening quote and the same quote last.
func plainTokens(toks []string) bool {
	for _, tok := range toks {
		i := strings.IndexAny(tok, `"'`)
		if i < 0 {
			continue
		}
		q := tok[i]
		if len(tok)-i < 2 || tok[len(tok)-1] != q || strings.Count(tok[i:], string(q)) != 2 {
			return false
		}
	}
	return true
}

// depths is the bracket depth of each token: an opening bracket is at
// its outer depth, its contents one deeper, its closing bracket outer.
func depths(toks []string) []int {
	d := make([]int, len(toks))
	level := 0
	for i, tok := range toks {
		switch tok {
		case ")", "]", "}":
			level--
		}
		d[i] = level
		switch tok {
		case "(", "[", "{":
			level++
		}
	}
	return d
}

// chainEnds are the tokens that end a boolean chain on either side (at
// the chain's depth; an enclosing bracket ends it too).
var chainEnds = map[string]bool{"if": true, "elif": true, "while": true, "return": true, "assert": true,
	"=": true, ",": true, ":": true, "else": true, "for": true, "lambda": true}

// comparisonToks are the comparison operators a chain's term may hold
// only as its one == or !=.
var comparisonToks = map[string]bool{"==": true, "!=": true, "<": true, ">": true, "<=": true, ">=": true,
	"in": true, "is": true, "not": true}

// rewriteChain rewrites the first chain of toks it can: an `or` chain
// of == on one operand, or an `and` chain of != on one.
func rewriteChain(toks []string) ([]string, bool) {
	d := depths(toks)
	for i, tok := range toks {
		if tok != "or" && tok != "and" {
			continue
		}
		cmp, in := "==", "in"
		if tok == "and" {
			cmp, in = "!=", "not in"
		}
		s, e, ok := chainSpan(toks, d, i, tok)
		if !ok {
			continue
		}
		operand, vals, ok := chainTerms(toks[s:e], d[s:e], d[i], tok, cmp)
		if !ok {
			continue
		}
		repl := operand + " " + in + " [ " + strings.Join(vals, " , ") + " ]"
		out := append(append(append([]string{}, toks[:s]...), strings.Split(repl, " ")...), toks[e:]...)
		return out, true
	}
	return nil, false
}

// chainSpan is the span [s, e) of the chain around connective i, ok
// when it is delimited by chain ends (or the line's ends).
func chainSpan(toks []string, d []int, i int, conn string) (s, e int, ok bool) {
	tighter := map[string]bool{"not": true}
	if conn == "or" {
		tighter["and"] = true
	}
	s = i
	for s > 0 && !(d[s-1] < d[i] || d[s-1] == d[i] && chainEnds[toks[s-1]]) {
		if d[s-1] == d[i] && tighter[toks[s-1]] && !(toks[s-1] == "not" && s < len(toks) && toks[s] == "in") {
			return 0, 0, false
		}
		s--
	}
	e = i + 1
	for e < len(toks) && !(d[e] < d[i] || d[e] == d[i] && chainEnds[toks[e]]) {
		if d[e] == d[i] && tighter[toks[e]] && !(toks[e] == "not" && e+1 < len(toks) && toks[e+1] == "in") {
			return 0, 0, false
		}
		e++
	}
	return s, e, true
}

// chainTerms splits a chain at its connectives; every term must be
// "operand cmp value" with the one comparison at the chain's depth and
// the same operand throughout.
func chainTerms(toks []string, d []int, depth int, conn, cmp string) (string, []string, bool) {
	operand, vals, start := "", []string(nil), 0
	for j := 0; j <= len(toks); j++ {
		if j < len(toks) && !(d[j] == depth && toks[j] == conn) {
			continue
		}
		k := -1
		for m := start; m < j; m++ {
			if d[m] != depth || !comparisonToks[toks[m]] && toks[m] != "and" && toks[m] != "or" {
				continue
			}
			if toks[m] != cmp || k >= 0 {
				return "", nil, false
			}
			k = m
		}
		if k <= start || k+1 >= j {
			return "", nil, false
		}
		x := strings.Join(toks[start:k], " ")
		if operand != "" && x != operand {
			return "", nil, false
		}
		operand, vals, start = x, append(vals, strings.Join(toks[k+1:j], " ")), j+1
	}
	return operand, vals, len(vals) >= 2
}

// listMembership turns "in ( a , b )" and "in { a , b }" into
// "in [ a , b ]": a tuple's or a set's members tested as a list's are
// (a set literal only, never a dict's "k : v").
func listMembership(toks []string) []string {
	d := depths(toks)
	for i := 0; i+1 < len(toks); i++ {
		open := toks[i+1]
		if toks[i] != "in" || open != "(" && open != "{" {
			continue
		}
		closeTok := map[string]string{"(": ")", "{": "}"}[open]
		end, comma := -1, false
		for j := i + 2; j < len(toks); j++ {
			if d[j] == d[i+1] && toks[j] == closeTok {
				end = j
				break
			}
			if d[j] == d[i+1]+1 && toks[j] == "," {
				comma = true
			}
			if d[j] == d[i+1]+1 && (toks[j] == ":" || toks[j] == "for") {
				end = -2 // a dict or a comprehension
				break
			}
		}
		if end < 0 || !comma {
			continue
		}
		toks[i+1], toks[end] = "[", "]"
	}
	return toks
}
