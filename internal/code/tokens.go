package code

// TokenKind classifies a lexical token.
type TokenKind int

// Token kinds. Java boolean and null literals are Literal (JLS §3.10);
// Python True/False/None are Literal too.
const (
	Identifier TokenKind = iota
	Keyword
	Literal
	Operator
	Separator
	Comment
)

var tokenKindNames = [...]string{"Identifier", "Keyword", "Literal", "Operator", "Separator", "Comment"}

func (k TokenKind) String() string {
	if k >= 0 && int(k) < len(tokenKindNames) {
		return tokenKindNames[k]
	}
	return "TokenKind(?)"
}

// MarshalText makes token kinds readable in JSON.
func (k TokenKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Token is one lexical token. Line and Col are 1-based (Col in bytes).
type Token struct {
	Kind               TokenKind
	Text               string
	StartByte, EndByte int
	Line, Col          int
	// Node is the index in File.Nodes of the node the token was read from.
	Node int
}

// atomicKinds are named nodes read as one token although tree-sitter gives
// them children (string pieces, escapes, interpolations).
var atomicKinds = map[Lang]map[string]TokenKind{
	LangJava: {
		"string_literal": Literal, "character_literal": Literal, "text_block": Literal,
	},
	LangPython: {
		"string": Literal,
	},
}

// leafKinds classifies named leaves; anonymous leaves are classified by
// their text (keyword if it starts with a letter, else separator/operator).
var leafKinds = map[Lang]map[string]TokenKind{
	LangJava: {
		"identifier": Identifier, "type_identifier": Identifier,
		"decimal_integer_literal": Literal, "hex_integer_literal": Literal,
		"octal_integer_literal": Literal, "binary_integer_literal": Literal,
		"decimal_floating_point_literal": Literal, "hex_floating_point_literal": Literal,
		"true": Literal, "false": Literal, "null_literal": Literal,
		"line_comment": Comment, "block_comment": Comment,
		"this": Keyword, "super": Keyword, "void_type": Keyword, "boolean_type": Keyword,
		"asterisk": Operator, "underscore_pattern": Identifier,
	},
	LangPython: {
		"identifier": Identifier, "integer": Literal, "float": Literal,
		"true": Literal, "false": Literal, "none": Literal, "ellipsis": Literal,
		"comment": Comment, "keyword_separator": Operator, "positional_separator": Operator,
		"wildcard_import": Operator,
	},
}

// separators per language (JLS §3.11; Python's delimiters that do not
// compute anything).
var separators = map[Lang]map[string]bool{
	LangJava: {"(": true, ")": true, "{": true, "}": true, "[": true, "]": true,
		";": true, ",": true, ".": true, "...": true, "@": true, "::": true},
	LangPython: {"(": true, ")": true, "{": true, "}": true, "[": true, "]": true,
		";": true, ",": true, ".": true, ":": true},
}

// Tokens returns the file's lexical tokens in source order, comments
// included as Comment tokens. Zero-width (MISSING) nodes are skipped.
func (f *File) Tokens() []Token {
	out := make([]Token, 0, f.leaves())
	f.eachToken(func(t Token) { out = append(out, t) })
	return out
}

// leaves is at least the token count: a token is a leaf or holds some.
func (f *File) leaves() int {
	n := 0
	for i := range f.nodes {
		if f.nodes[i].End() == i+1 {
			n++
		}
	}
	return n
}

// eachToken calls fn for each token of the file in source order.
// Classes come from the grammar's per-kind-id tables (built from
// atomicKinds, leafKinds and separators); an anonymous token whose text is
// its kind ("(", "if", …) shares the kind's string instead of allocating.
func (f *File) eachToken(fn func(Token)) {
	g := f.g
	if g == nil || len(f.ids) != len(f.nodes) { // not from Parse: no tree
		return
	}
	leaves, seps := leafKinds[f.Lang], separators[f.Lang]
	src := string(f.Src) // one copy: token texts are its substrings
	for i := 0; i < len(f.nodes); i++ {
		n := &f.nodes[i]
		id := int(f.ids[i])
		var k TokenKind
		switch {
		case id < len(g.atomic) && g.atomic[id] >= 0:
			k = TokenKind(g.atomic[id])
		case n.End() != i+1: // inner node: descend
			continue
		case id < len(g.leaf):
			k = g.leaf[id]
		default: // ERROR (id 0xFFFF) has no table entry
			k = classifyLeaf(n.Kind(), n.Named(), n.Error(), leaves, seps)
		}
		if n.EndByte() > n.StartByte() && n.Kind() != "line_continuation" {
			text := n.Kind()
			if b := src[n.StartByte():n.EndByte()]; n.Named() || b != text {
				text = b
			}
			fn(Token{Kind: k, Text: text,
				StartByte: n.StartByte(), EndByte: n.EndByte(), Line: n.StartLine(), Col: n.StartCol(), Node: i})
		}
		i = n.End() - 1
	}
}

func classifyLeaf(kind string, named, isErr bool, leaves map[string]TokenKind, seps map[string]bool) TokenKind {
	if named {
		if k, ok := leaves[kind]; ok {
			return k
		}
		if isErr { // an ERROR leaf: classify by its first byte below
			return Operator
		}
		// Other named leaves (Python escape_sequence outside strings,
		// line_continuation, Java shebangs …) read best as identifiers.
		return Identifier
	}
	if seps[kind] {
		return Separator
	}
	if kind == "" {
		return Operator
	}
	if c := kind[0]; c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
		return Keyword
	}
	return Operator
}

// Lex parses src as lang and returns its tokens; input Parse rejects
// yields no tokens.
func Lex(lang Lang, src []byte) []Token {
	f, err := Parse(lang, "", src)
	if err != nil {
		return nil
	}
	defer f.Close()
	return f.Tokens()
}
