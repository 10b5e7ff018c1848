package code

import (
	"bytes"
	"sort"
	"strings"
)

// javaLineNodes are the Java statement and declaration kinds that Normalize
// puts on lines of their own.
var javaLineNodes = newKindSet(map[string]bool{
	"local_variable_declaration": true, "expression_statement": true, "if_statement": true,
	"for_statement": true, "enhanced_for_statement": true, "while_statement": true,
	"do_statement": true, "return_statement": true, "throw_statement": true,
	"break_statement": true, "continue_statement": true, "yield_statement": true,
	"try_statement": true, "try_with_resources_statement": true,
	"synchronized_statement": true, "labeled_statement": true, "assert_statement": true,
	"explicit_constructor_invocation": true, "switch_label": true, "switch_rule": true,
	"method_declaration": true, "constructor_declaration": true,
	"compact_constructor_declaration": true, "field_declaration": true,
	"class_declaration": true, "interface_declaration": true, "enum_declaration": true,
	"record_declaration": true, "annotation_type_declaration": true,
	"annotation_type_element_declaration": true, "constant_declaration": true,
	"import_declaration": true, "package_declaration": true, "module_declaration": true,
	"static_initializer": true,
})

// javaBraceBodies are the Java nodes whose "{" ends a line and whose "}"
// starts one.
var javaBraceBodies = newKindSet(map[string]bool{
	"block": true, "class_body": true, "interface_body": true, "enum_body": true,
	"annotation_type_body": true, "constructor_body": true, "switch_block": true,
	"module_body": true,
})

// pythonClauses are the Python clauses that start a line although they are
// not direct children of a block.
var pythonClauses = newKindSet(map[string]bool{
	"elif_clause": true, "else_clause": true, "except_clause": true,
	"except_group_clause": true, "finally_clause": true, "case_clause": true,
})

// pythonBuiltins are kept verbatim by RenameBlind, like Java keywords.
var pythonBuiltins = map[string]bool{
	"self": true, "cls": true, "int": true, "float": true, "str": true, "bool": true,
	"bytes": true, "list": true, "dict": true, "set": true, "tuple": true, "object": true,
	"len": true, "range": true, "print": true, "isinstance": true, "issubclass": true,
	"type": true, "super": true, "enumerate": true, "zip": true, "map": true,
	"filter": true, "sorted": true, "min": true, "max": true, "sum": true, "any": true,
	"all": true, "abs": true, "iter": true, "next": true, "open": true, "repr": true,
	"hasattr": true, "getattr": true, "setattr": true, "Exception": true,
	"ValueError": true, "TypeError": true, "KeyError": true, "IndexError": true,
}

// blindKept are literals RenameBlind keeps: they are reserved words whose
// choice matters for the bugs benchforge studies (null checks).
var blindKept = map[string]bool{
	"true": true, "false": true, "null": true, "True": true, "False": true, "None": true,
}

// Normalize returns src as normalised logical lines: comments and Python
// docstrings removed, tokens joined by single spaces, one statement per
// line. Lines break:
//
//   - Java: before and after every statement or declaration listed in
//     javaLineNodes (the header of a compound statement such as
//     "if ( c )" is its own line when its body is a single statement:
//     `if (c) x();` gives "if ( c )" and "x ( ) ;"), except a for loop's
//     init declaration; after the "{" and before the "}" of blocks and
//     class, interface, enum, switch and constructor bodies. So "{" ends the
//     line of its statement ("if ( c ) {") and "}" starts a line that the
//     following else / catch / finally / while / ")" joins ("} else {",
//     "} else if ( d ) {": an else-if is not cut from its else).
//   - Python: each line is indented by four spaces per enclosing block (the
//     indentation is the block structure; trim it to compare statements
//     out of context). Lines break before and after every statement of a
//     module or block and
//     every decorator, before elif / else / except / finally / case
//     clauses; ";" between simple statements is dropped, and the body of a
//     one-line compound statement moves to its own line.
//
// Literal tokens (including multi-line strings) are kept verbatim. The
// result depends only on the token sequence and the syntax tree, so
// re-formatting and comment changes do not change it. Input Parse rejects
// yields nil.
func Normalize(lang Lang, src []byte) []string {
	return normLines(lang, src, func(t Token) string { return t.Text })
}

// RenameBlind is Normalize with identifiers replaced by "ID" and literals
// by "LIT" (NiCad-style blind renaming and literal abstraction, rxsynth
// §4.4). Keywords, operators, the literals true/false/null/None/True/False,
// and common Python builtins (pythonBuiltins, which play the role of Java's
// keyword types) are kept.
func RenameBlind(lang Lang, src []byte) []string {
	return normLines(lang, src, func(t Token) string {
		switch t.Kind {
		case Identifier:
			if lang == LangPython && pythonBuiltins[t.Text] {
				return t.Text
			}
			return "ID"
		case Literal:
			if blindKept[t.Text] {
				return t.Text
			}
			return "LIT"
		}
		return t.Text
	})
}

func normLines(lang Lang, src []byte, text func(Token) string) []string {
	f, err := Parse(lang, "", src)
	if err != nil {
		return nil
	}
	defer f.Close()
	return f.NormalizedLines(text)
}

// NormalizedLines is Normalize over an already parsed file, with each
// token rendered by text (nil: the token's own text).
func (f *File) NormalizedLines(text func(Token) string) []string {
	if text == nil {
		text = func(t Token) string { return t.Text }
	}
	var lines []string
	var cur strings.Builder
	for _, toks := range f.LineTokens() {
		cur.Reset()
		for _, t := range toks {
			if cur.Len() > 0 {
				cur.WriteByte(' ')
			} else {
				f.indent(&cur, t)
			}
			cur.WriteString(text(t))
		}
		// A line that renders empty joins the next one, which then
		// renders as it would alone.
		if cur.Len() > 0 {
			lines = append(lines, cur.String())
		}
	}
	return lines
}

// LineTokens is the tokens of each logical line NormalizedLines renders
// (comments, docstrings and Python semicolons left out), in order.
func (f *File) LineTokens() [][]Token {
	cuts := f.lineCuts()
	skip := f.docstrings()
	var (
		all     = make([]Token, 0, f.leaves()) // every line's tokens, in one array
		starts  []int                          // where each line starts in all
		prevEnd = -1
		ci      int
	)
	f.eachToken(func(t Token) {
		if t.Kind == Comment || inRanges(skip, t.StartByte) || f.Lang == LangPython && t.Text == ";" {
			return
		}
		// A cut at X starts a new line at the first token at or after X.
		for ci < len(cuts) && cuts[ci] < prevEnd {
			ci++
		}
		if ci < len(cuts) && cuts[ci] <= t.StartByte || len(all) == 0 {
			if len(starts) == 0 || starts[len(starts)-1] < len(all) {
				starts = append(starts, len(all))
			}
			for ci < len(cuts) && cuts[ci] <= t.StartByte {
				ci++
			}
		}
		all = append(all, t)
		prevEnd = t.EndByte
	})
	lines := make([][]Token, len(starts))
	for i, s := range starts {
		e := len(all)
		if i+1 < len(starts) {
			e = starts[i+1]
		}
		lines[i] = all[s:e:e] // capped: a caller's append cannot overwrite the next line
	}
	return lines
}

// indent writes a Python line's indentation, four spaces per enclosing
// block, before its first token t.
func (f *File) indent(cur *strings.Builder, t Token) {
	if f.Lang != LangPython {
		return
	}
	for p := f.nodes[t.Node].Parent(); p >= 0; p = f.nodes[p].Parent() {
		if f.nodes[p].Kind() == "block" {
			cur.WriteString("    ")
		}
	}
}

// lineCuts returns the sorted byte offsets at which Normalize starts a new
// line.
func (f *File) lineCuts() []int {
	var cuts []int
	cut := func(i int) { cuts = append(cuts, f.nodes[i].StartByte(), f.nodes[i].EndByte()) }
	for i := range f.nodes {
		n := &f.nodes[i]
		switch f.Lang {
		case LangJava:
			switch {
			case n.Kind() == "local_variable_declaration" && n.Field() == "init":
			case n.Kind() == "if_statement" && n.Field() == "alternative":
				// "else if" stays on one line.
				cuts = append(cuts, n.EndByte())
			case n.Kind() == "switch_label":
				cuts = append(cuts, n.StartByte())
			case javaLineNodes.has(*n):
				cut(i)
			case javaBraceBodies.has(*n) && n.End() > i+1:
				if first := i + 1; f.nodes[first].Kind() == "{" {
					cuts = append(cuts, f.nodes[first].EndByte())
				}
				last := i + 1
				for c := range f.Children(i) {
					last = c
				}
				if f.nodes[last].Kind() == "}" {
					cuts = append(cuts, f.nodes[last].StartByte())
				}
			}
		case LangPython:
			if !n.Named() || n.Kind() == "comment" || n.Parent() < 0 {
				continue
			}
			switch pk := f.nodes[n.Parent()].Kind(); {
			case pk == "module", pk == "block", pk == "decorated_definition":
				cut(i)
			case pythonClauses.has(*n):
				cuts = append(cuts, n.StartByte())
			}
		}
	}
	sort.Ints(cuts)
	return cuts
}

// docstrings returns the byte ranges of Python docstrings: a string-only
// expression statement that is the first statement of a module, class body
// or function body.
func (f *File) docstrings() [][2]int {
	if f.Lang != LangPython {
		return nil
	}
	var out [][2]int
	for i := range f.nodes {
		n := &f.nodes[i]
		if n.Kind() != "module" && n.Kind() != "block" {
			continue
		}
		if n.Kind() == "block" {
			if p := n.Parent(); p < 0 || f.nodes[p].Kind() != "function_definition" && f.nodes[p].Kind() != "class_definition" {
				continue
			}
		}
		for c := range f.Children(i) {
			if f.nodes[c].Kind() == "comment" {
				continue
			}
			if f.isDocstring(c) {
				out = append(out, [2]int{f.nodes[c].StartByte(), f.nodes[c].EndByte()})
			}
			break
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a][0] < out[b][0] })
	return out
}

func (f *File) isDocstring(i int) bool {
	if f.nodes[i].Kind() != "expression_statement" {
		return false
	}
	n := 0
	for c := range f.Children(i) {
		if k := f.nodes[c].Kind(); k != "string" && k != "concatenated_string" {
			return false
		}
		n++
	}
	return n == 1
}

func inRanges(rs [][2]int, off int) bool {
	j := sort.Search(len(rs), func(k int) bool { return rs[k][1] > off })
	return j < len(rs) && rs[j][0] <= off
}

// StripComments returns src without comments and (Python) docstrings. A
// removed span becomes its newlines, or one space if it had none, so line
// numbers are kept; lines it touched lose trailing blanks, and a Python
// body left empty by removing its docstring gets "pass". Input Parse
// rejects is returned unchanged.
func StripComments(lang Lang, src []byte) []byte {
	f, err := Parse(lang, "", src)
	if err != nil {
		return src
	}
	defer f.Close()
	var spans [][2]int
	for _, t := range f.Tokens() {
		if t.Kind == Comment {
			spans = append(spans, [2]int{t.StartByte, t.EndByte})
		}
	}
	docs := f.docstrings()
	spans = append(spans, docs...)
	sort.Slice(spans, func(a, b int) bool { return spans[a][0] < spans[b][0] })
	lone := map[int]bool{}
	for _, d := range docs {
		lone[d[0]] = f.loneDocstring(d[0])
	}
	var out []byte
	touched := map[int]bool{} // output line numbers (0-based) to trim
	line := 0
	pos := 0
	for _, s := range spans {
		if s[0] < pos {
			continue
		}
		line += bytes.Count(src[pos:s[0]], []byte{'\n'})
		out = append(out, src[pos:s[0]]...)
		touched[line] = true
		removed := src[s[0]:s[1]]
		nl := bytes.Count(removed, []byte{'\n'})
		switch {
		case lone[s[0]]:
			out = append(out, "pass"...)
		case nl == 0:
			out = append(out, ' ')
		}
		out = append(out, bytes.Repeat([]byte{'\n'}, nl)...)
		line += nl
		touched[line] = true
		pos = s[1]
	}
	out = append(out, src[pos:]...)
	lines := bytes.SplitAfter(out, []byte{'\n'})
	for l := range touched {
		if l < len(lines) {
			body := bytes.TrimRight(lines[l], "\r\n")
			eol := lines[l][len(body):]
			lines[l] = append(bytes.TrimRight(body, " \t"), eol...)
		}
	}
	return bytes.Join(lines, nil)
}

// loneDocstring reports whether the docstring starting at off is the only
// statement of a function or class body.
func (f *File) loneDocstring(off int) bool {
	for i := range f.nodes {
		n := &f.nodes[i]
		if n.StartByte() != off || n.Kind() != "expression_statement" {
			continue
		}
		if n.Parent() < 0 || f.nodes[n.Parent()].Kind() != "block" {
			return false
		}
		count := 0
		for c := range f.Children(n.Parent()) {
			if f.nodes[c].Kind() != "comment" {
				count++
			}
		}
		return count == 1
	}
	return false
}
