package patchcheck

import (
	"context"
	"strings"
)

// A fix that adds entries to a table — sympy's printers map function
// names to their spellings in a known_functions dict — changes one
// logical line, the whole literal. Years later the table has grown by
// dozens of entries, and the line's similarity to its descendant falls
// however faithfully the fix's entries were kept. Such a line is judged
// by its entries instead: the share of the entries the fix added (those
// of the fixed literal the buggy one lacks) that the snapshot's literal
// of the same name still holds.

// literalEntries splits normalised logical line t, an assignment of one
// container literal ("name = { e1 , e2 }", "xs = [ … ]", Java's
// "int [ ] xs = { … } ;"), into its target up to the opening bracket and
// its top-level entries; ok is false for any other line.
func literalEntries(t string) (target string, entries []string, ok bool) {
	eq := strings.Index(t, " = ")
	if eq < 0 {
		return "", nil, false
	}
	rest := strings.TrimSpace(t[eq+3:])
	if rest == "" || (rest[0] != '{' && rest[0] != '[') {
		return "", nil, false
	}
	open := len(t) - len(rest)
	body, ok := closedBody(t[open:])
	if !ok {
		return "", nil, false
	}
	for _, e := range splitTop(body) {
		if e = strings.TrimSpace(e); e != "" {
			entries = append(entries, e)
		}
	}
	return t[:open+1], entries, true
}

// closedBody is the text between s's opening bracket and the bracket that
// closes it, which must end s (but for a ";"); ok false otherwise.
func closedBody(s string) (body string, ok bool) {
	eachTop(s, func(i, depth int) bool {
		if depth != 1 || !strings.ContainsRune("}])", rune(s[i])) {
			return true
		}
		tail := strings.TrimSpace(s[i+1:])
		body, ok = s[1:i], tail == "" || tail == ";"
		return false
	})
	return body, ok
}

// splitTop splits s at the commas outside brackets and quotes.
func splitTop(s string) []string {
	var out []string
	from := 0
	eachTop(s, func(i, depth int) bool {
		if depth == 0 && s[i] == ',' {
			out = append(out, s[from:i])
			from = i + 1
		}
		return true
	})
	return append(out, s[from:])
}

// eachTop calls fn with each byte position of s outside string literals
// and the bracket depth before it, until fn returns false.
func eachTop(s string, fn func(i, depth int) bool) {
	depth, quote := 0, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
			continue
		case c == '"' || c == '\'':
			quote = c
			continue
		}
		if !fn(i, depth) {
			return
		}
		switch c {
		case '{', '[', '(':
			depth++
		case '}', ']', ')':
			depth--
		}
	}
}

// addedEntries are the entries of fixed literal line fix that buggy
// literal line bug, of the same target, lacks; ok false when the two are
// not such a pair or the fix added no entry.
func addedEntries(fix, bug string) (target string, added []string, ok bool) {
	ft, fe, ok1 := literalEntries(fix)
	bt, be, ok2 := literalEntries(bug)
	if !ok1 || !ok2 || ft != bt {
		return "", nil, false
	}
	had := map[string]bool{}
	for _, e := range be {
		had[e] = true
	}
	for _, e := range fe {
		if !had[e] {
			added = append(added, e)
		}
	}
	return ft, added, len(added) > 0
}

// entryMatch scores fixed literal line fix (buggy counterpart bug) by its
// added entries in the best snapshot literal of the same target in sc:
// each entry by its most similar entry there ("-v": (False, f) kept as
// "-v": (False, f, 2) scores as a line would), the literal by its weakest
// entry, as a block by its weakest line; ok false when the rule does not
// apply.
func (c *Checker) entryMatch(ctx context.Context, fix, bug string, sc scope) (ml MatchedLine, ok bool, err error) {
	target, added, ok := addedEntries(fix, bug)
	if !ok {
		return MatchedLine{}, false, nil
	}
	best, bestS := -1, -1.0
	for _, li := range sc.lines {
		t, es, ok := literalEntries(sc.snap.lines[li].text)
		if !ok || t != target {
			continue
		}
		s, err := c.weakestEntry(ctx, added, es)
		if err != nil {
			return MatchedLine{}, false, err
		}
		if s > bestS {
			best, bestS = li, s
		}
	}
	if best < 0 {
		return MatchedLine{}, false, nil
	}
	l := sc.snap.lines[best]
	return MatchedLine{Patch: fix, Role: "added", Snapshot: l.text, Line: l.start, Similarity: round(bestS), Via: "entries"}, true, nil
}

// weakestEntry is the lowest, over entries added, of the best similarity
// to an entry of es.
func (c *Checker) weakestEntry(ctx context.Context, added, es []string) (float64, error) {
	in := map[string]bool{}
	for _, e := range es {
		in[e] = true
	}
	worst := 1.0
	for _, a := range added {
		best := 0.0
		if in[a] {
			best = 1
		}
		for _, e := range es {
			if best == 1 {
				break
			}
			s, err := c.similarity(ctx, a, e)
			if err != nil {
				return 0, err
			}
			best = max(best, s)
		}
		worst = min(worst, best)
	}
	return worst, nil
}
