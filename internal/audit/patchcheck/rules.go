package patchcheck

import (
	"regexp"
	"strings"

	"github.com/benchforge/benchforge/internal/code"
)

// A modernisation rule rewrites a normalised logical line (tokens joined
// by single spaces, as internal/code renders them) to a canonical form
// that is the same before and after a behaviour-neutral modernisation, so
// that such an edit between the fix and the cutoff does not lower a fix
// line's similarity (issue: one modernised line sank a whole sample).
// Each rule carries examples that TestModernisationRules enforces: every
// MustMatch pair canonicalises to one text, every MustNotMatch pair stays
// apart.
type modRule struct {
	Name    string
	Lang    code.Lang
	Pattern *regexp.Regexp
	Replace string
	// Needs is text every line the rule can change holds: lines without
	// it skip the rule (the regular expressions cost more than a search,
	// on every line of every version read).
	Needs string
	// Fn rewrites the line instead of Pattern and Replace, for a rule a
	// regular expression cannot say (an argument list to count).
	Fn           func(string) string
	MustMatch    [][2]string
	MustNotMatch [][2]string
}

// modRules are applied in order to every normalised line of the fixed,
// buggy and snapshot versions.
var modRules = []modRule{
	{
		Name: "java-diamond", Lang: code.LangJava,
		Needs: " > (",
		// new Foo < A , B > ( → new Foo < > (  (Java 7 diamond)
		Pattern: regexp.MustCompile(`\bnew ([A-Za-z_][\w.]*(?: \. [A-Za-z_]\w*)*) < [^()]*? > \(`),
		Replace: "new $1 < > (",
		MustMatch: [][2]string{
			{"lookupMap = new HashMap < String , CharSequence > ( ) ;", "lookupMap = new HashMap < > ( ) ;"},
			{"List < Integer > l = new ArrayList < Integer > ( n ) ;", "List < Integer > l = new ArrayList < > ( n ) ;"},
			{"m = new java . util . HashMap < K , List < V > > ( ) ;", "m = new java . util . HashMap < > ( ) ;"},
		},
		MustNotMatch: [][2]string{
			{"s = new HashSet < String > ( ) ;", "s = new TreeSet < > ( ) ;"},
			{"List < Integer > l = new ArrayList < > ( ) ;", "List < Long > l = new ArrayList < > ( ) ;"},
		},
	},
	{
		Name: "java-final", Lang: code.LangJava,
		Needs: "final ",
		// final on locals and parameters changes no behaviour.
		Pattern: regexp.MustCompile(`(^|[(,] |^for \( )final `),
		Replace: "$1",
		MustMatch: [][2]string{
			{"final int n = s . length ( ) ;", "int n = s . length ( ) ;"},
			{"for ( final String k : keys ) {", "for ( String k : keys ) {"},
			{"void f ( final int a , final String b )", "void f ( int a , String b )"},
		},
		MustNotMatch: [][2]string{
			{"finalize ( ) ;", "ize ( ) ;"},
			{"int n = finalCount ;", "int n = Count ;"},
		},
	},
	{
		Name: "java-this", Lang: code.LangJava,
		Needs: "this . ",
		// this.field → field (an added or dropped qualifier).
		Pattern: regexp.MustCompile(`(^| )this \. ([A-Za-z_]\w*)\b( [^(]|$)`),
		Replace: "$1$2$3",
		MustMatch: [][2]string{
			{"this . count = count + 1 ;", "count = count + 1 ;"},
			{"return this . buffer . length ( ) ;", "return buffer . length ( ) ;"},
		},
		MustNotMatch: [][2]string{
			{"this . reset ( ) ;", "reset2 ( ) ;"},
			{"other . count = 1 ;", "count = 1 ;"},
		},
	},
	{
		Name: "java-brace", Lang: code.LangJava,
		Needs: " {",
		// if ( c ) { ↔ if ( c ): a brace added to or dropped from a
		// one-statement body.
		Pattern: regexp.MustCompile(`^((?:\} )?(?:if|else if|while|for) \(.*\)) \{$`),
		Replace: "$1",
		MustMatch: [][2]string{
			{"if ( str == null ) {", "if ( str == null )"},
			{"} else if ( n > 0 ) {", "} else if ( n > 0 )"},
		},
		MustNotMatch: [][2]string{
			{"if ( str == null ) {", "if ( str != null )"},
		},
	},
	{
		Name: "java-length-empty", Lang: code.LangJava,
		Needs: "length ( )",
		// s.length() == 0 → s.isEmpty() (Java 6 String.isEmpty, Java 15
		// CharSequence.isEmpty: their definition), != 0 and > 0 → !isEmpty().
		Fn: lengthToIsEmpty,
		MustMatch: [][2]string{
			{"if ( str . length ( ) == 0 )", "if ( str . isEmpty ( ) )"},
			{"return buf . length ( ) > 0 ;", "return ! buf . isEmpty ( ) ;"},
			{"if ( this . name . length ( ) != 0 )", "if ( ! this . name . isEmpty ( ) )"},
		},
		MustNotMatch: [][2]string{
			{"if ( str . length ( ) == 1 )", "if ( str . isEmpty ( ) )"},
			{"if ( str . length ( ) > 0 )", "if ( str . isEmpty ( ) )"},
			{"if ( a . b ( ) . length ( ) == 0 )", "if ( b . isEmpty ( ) )"},
			{"if ( d . length ( ) == 0.5 )", "if ( d . isEmpty ( ) .5 )"},
		},
	},
	{
		Name: "java-null-or-empty", Lang: code.LangJava,
		Needs: "mpty",
		// x == null || x.length() == 0 ↔ StringUtils.isEmpty(x) (and
		// CollectionUtils', MapUtils', Guava's Strings.isNullOrEmpty; the
		// negated forms too): the library's null-or-empty helper replacing
		// the spelled-out check (PMD's InefficientEmptyStringCheck,
		// Sonar's "use isEmpty()"), which is its definition. Applied
		// after java-length-empty has turned length() == 0 into isEmpty().
		Fn: nullOrEmpty,
		MustMatch: [][2]string{
			{"if ( className == null || className . length ( ) == 0 )", "if ( StringUtils . isEmpty ( className ) )"},
			{"return list == null || list . isEmpty ( ) ;", "return CollectionUtils . isEmpty ( list ) ;"},
			{"if ( s != null && s . length ( ) > 0 )", "if ( StringUtils . isNotEmpty ( s ) )"},
			{"if ( name == null || name . isEmpty ( ) )", "if ( Strings . isNullOrEmpty ( name ) )"},
		},
		MustNotMatch: [][2]string{
			{"if ( a == null || b . length ( ) == 0 )", "if ( StringUtils . isEmpty ( a ) )"},
			{"if ( s == null || s . length ( ) == 0 )", "if ( StringUtils . isNotEmpty ( s ) )"},
			{"if ( s == null || s . length ( ) == 0 )", "if ( StringUtils . isBlank ( s ) )"},
			{"if ( s . length ( ) == 0 )", "if ( StringUtils . isEmpty ( s ) )"},
		},
	},
	{
		Name: "python-quotes", Lang: code.LangPython,
		Needs: "'",
		// 'text' → "text" (quote style; a literal holding either quote or a
		// backslash is left alone; f-, r-, b- and u-prefixed literals too).
		Pattern: regexp.MustCompile(`(^|[^\w'"])([rbuRBUfF]?|[rR][fFbB]|[fFbB][rR])'([^'"\\\n]*)'`),
		Replace: `$1$2"$3"`,
		MustMatch: [][2]string{
			{"name = 'default'", `name = "default"`},
			{"d [ 'key' ] = f ( 'a' , b )", `d [ "key" ] = f ( "a" , b )`},
			{"p = r'x+'", `p = r"x+"`},
			{"return f'clL_Zli{self.ident}E'", `return f"clL_Zli{self.ident}E"`},
			{"p = rb'x+'", `p = rb"x+"`},
		},
		MustNotMatch: [][2]string{
			{"name = 'default'", `name = "defaults"`},
			{"s = f'{x}'", `s = "{x}"`},
			{`s = "it's"`, `s = "it"s"`},
		},
	},
	{
		Name: "python-percent-format", Lang: code.LangPython,
		Needs: "%",
		// "… %s …" % x → f"… {x} …" (one plain argument).
		Pattern: regexp.MustCompile(`"([^"%{}]*)%[sdr]([^"%{}]*)" % ([A-Za-z_][\w.]*(?: \. [A-Za-z_]\w*)*)\b`),
		Replace: `f"$1{$3}$2"`,
		MustMatch: [][2]string{
			{`raise ValueError ( "bad value %s" % value )`, `raise ValueError ( f"bad value {value}" )`},
			{`msg = "got %r here" % self . name`, `msg = f"got {self . name} here"`},
		},
		MustNotMatch: [][2]string{
			{`raise ValueError ( "bad value %s" % value )`, `raise ValueError ( f"bad value {other}" )`},
		},
	},
	{
		Name: "python-format-call", Lang: code.LangPython,
		Needs: ". format (",
		// "… {} …" . format ( x ) → f"… {x} …" (one plain argument).
		Pattern: regexp.MustCompile(`"([^"{}]*)\{\}([^"{}]*)" \. format \( ([A-Za-z_]\w*(?: \. [A-Za-z_]\w*)*) \)`),
		Replace: `f"$1{$3}$2"`,
		MustMatch: [][2]string{
			{`raise TypeError ( "cannot use {}" . format ( obj ) )`, `raise TypeError ( f"cannot use {obj}" )`},
		},
		MustNotMatch: [][2]string{
			{`raise TypeError ( "cannot use {}" . format ( obj ) )`, `raise TypeError ( f"cannot use {obj2}" )`},
		},
	},
	{
		Name: "python-string-concat", Lang: code.LangPython,
		Needs: `" `,
		// "a" "b" → "ab", and f"a" f" {x}" → f"a {x}" (implicit
		// concatenation: a long message split over lines, or rejoined).
		Fn: joinAdjacentStrings,
		MustMatch: [][2]string{
			{`raise ValueError ( "expected {} " "as the first" )`, `raise ValueError ( "expected {} as the first" )`},
			{`msg = f"{a} is" f" {b}"`, `msg = f"{a} is {b}"`},
			{`msg = "the " f"{b}"`, `msg = f"the {b}"`},
		},
		MustNotMatch: [][2]string{
			{`xs = [ "a" , "b" ]`, `xs = [ "ab" ]`},
			{`msg = "{x} " f"{b}"`, `msg = f"{x} {b}"`},
		},
	},
	{
		Name: "python-format-args", Lang: code.LangPython,
		Needs: ". format (",
		// "… {} … {} …" . format ( a , f ( b ) ) → f"… {a} … {f(b)} …"
		// (positional placeholders only; the arguments written as an
		// f-string writes them).
		Fn: formatToFString,
		MustMatch: [][2]string{
			{`raise ValueError ( "{} is invalid - expected {}" . format ( self . __class__ . __name__ , as_str ( cols ) ) )`,
				`raise ValueError ( f"{self.__class__.__name__} is invalid - expected {as_str(cols)}" )`},
			{`s = "{}-{}" . format ( a [ 0 ] , b )`, `s = f"{a[0]}-{b}"`},
		},
		MustNotMatch: [][2]string{
			{`s = "{}-{}" . format ( a , b )`, `s = f"{b}-{a}"`},
			{`s = "{0}-{1}" . format ( a , b )`, `s = f"{a}-{b}"`},
			{`s = "{}" . format ( a , key = b )`, `s = f"{a}"`},
		},
	},
	{
		Name: "python-percent-tuple", Lang: code.LangPython,
		Needs: "% (",
		// "… %s … %s …" % ( a , b ) → f"… {a} … {b} …".
		Fn: percentToFString,
		MustMatch: [][2]string{
			{`base += ', qop="auth", nc=%s, cnonce="%s"' % ( ncvalue , cnonce )`, `base += f', qop="auth", nc={ncvalue}, cnonce="{cnonce}"'`},
			{`s . append ( "(%s) -> %s" % ( args , retann ) )`, `s . append ( f"({args}) -> {retann}" )`},
		},
		MustNotMatch: [][2]string{
			{`x = "%s-%s" % ( a , b )`, `x = f"{b}-{a}"`},
			{`x = "%s %%" % ( a , )`, `x = f"{a} %"`},
		},
	},
	{
		Name: "python-variable-annotation", Lang: code.LangPython,
		Needs: " : ",
		// x : T = v → x = v (PEP 526 annotations add no behaviour).
		Fn: dropVarAnnotation,
		MustMatch: [][2]string{
			{`exception_info : Union [ ExceptionChainRepr , ReprExceptionInfo ] = ExceptionChainRepr ( chain )`, `exception_info = ExceptionChainRepr ( chain )`},
			{`self . names : List [ str ] = [ ]`, `self . names = [ ]`},
		},
		MustNotMatch: [][2]string{
			{`x : int = 1`, `x = 2`},
			{`d [ a : b ] = c`, `d = c`},
		},
	},
	{
		Name: "python-def-annotations", Lang: code.LangPython,
		Needs: "def ",
		// def f ( a : int = 1 ) -> T : → def f ( a = 1 ) : (PEP 3107
		// annotations add no behaviour; type comments became them).
		Fn: dropDefAnnotations,
		MustMatch: [][2]string{
			{`def collect ( self ) -> Iterable [ Union [ nodes . Item , nodes . Collector ] ] :`, `def collect ( self ) :`},
			{`def f ( self , a : Dict [ str , int ] , b : str = "x" , * args : Any , ** kw ) -> None :`, `def f ( self , a , b = "x" , * args , ** kw ) :`},
			{`async def g ( x : int ) -> int :`, `async def g ( x ) :`},
		},
		MustNotMatch: [][2]string{
			{`def f ( a : int = 1 ) :`, `def f ( a = 2 ) :`},
			// a lambda default keeps its colon
			{`def f ( key = lambda v : v ) :`, `def f ( key = lambda v : - v ) :`},
			{`def f ( a , b ) :`, `def f ( a ) :`},
		},
	},
	{
		Name: "python-membership", Lang: code.LangPython,
		Needs: " ",
		// x == a or x == b → x in [ a , b ]; x != a and x != b → x not in
		// [ a , b ]; in ( a , b ) and in { a , b } → in [ a , b ]
		// (membership.go).
		Fn: membership,
		MustMatch: [][2]string{
			{"if len ( nz ) == 0 or len ( nz ) == len ( self . args ) :", "if len ( nz ) in [ 0 , len ( self . args ) ] :"},
			{`if mode != "a" and mode != "b" :`, `if mode not in ( "a" , "b" ) :`},
			{"return x == 1 or x == 2 or x == 3", "return x in { 1 , 2 , 3 }"},
			{"ok = c and ( k == a or k == b )", "ok = c and ( k in ( a , b ) )"},
			{"y = f ( x == 1 or x == 2 , z )", "y = f ( x in [ 1 , 2 ] , z )"},
		},
		MustNotMatch: [][2]string{
			{"if x == 1 or x == 2 :", "if x in [ 1 , 3 ] :"},
			{"if x == 1 or y == 2 :", "if x in [ 1 , 2 ] :"},
			// and binds tighter: (a and x == 1) or x == 2
			{"if a and x == 1 or x == 2 :", "if a and x in [ 1 , 2 ] :"},
			// not binds tighter: (not x == 1) or x == 2
			{"if not x == 1 or x == 2 :", "if not x in [ 1 , 2 ] :"},
			{"if x == 1 and x == 2 :", "if x in [ 1 , 2 ] :"},
			{"if x != 1 or x != 2 :", "if x not in [ 1 , 2 ] :"},
			{"if a == b == c or a == d :", "if a in [ b == c , d ] :"},
			{`if s == "a b" or s == "c" :`, `if s in [ "a b" , "c" ] :`},
			{"if x in ( a ) :", "if x in [ a ] :"},
		},
	},
	{
		Name: "python-asdict", Lang: code.LangPython,
		Needs: ". copy ( )",
		// x . __dict__ . copy ( ) and vars ( x ) . copy ( ) → dataclasses .
		// asdict ( x ): a class turned into a data class (pytest's reports,
		// attrs become dataclasses) gives its fields by asdict, as the
		// copied instance dict gave them. The dict uncopied is a live
		// view, not a snapshot, and stays apart.
		Pattern: regexp.MustCompile(`(^|[^\w.] ?)(?:([A-Za-z_]\w*(?: \. [A-Za-z_]\w*)*) \. __dict__|vars \( ([A-Za-z_]\w*(?: \. [A-Za-z_]\w*)*) \)) \. copy \( \)`),
		Replace: "${1}dataclasses . asdict ( $2$3 )",
		MustMatch: [][2]string{
			{"result = reprtraceback . __dict__ . copy ( )", "result = dataclasses . asdict ( reprtraceback )"},
			{"return vars ( self . crash ) . copy ( )", "return dataclasses . asdict ( self . crash )"},
		},
		MustNotMatch: [][2]string{
			{"result = reprtraceback . __dict__", "result = dataclasses . asdict ( reprtraceback )"},
			{"result = other . __dict__ . copy ( )", "result = dataclasses . asdict ( reprtraceback )"},
			{"result = x . __dict__ . copy ( )", "result = dataclasses . astuple ( x )"},
		},
	},
	{
		Name: "python-fstring-spacing", Lang: code.LangPython,
		Needs: "{ ",
		// f"… { x } …" and f"…{x}…" are the same f-string.
		Pattern: regexp.MustCompile(`\{ ([^{} ][^{}]*?) \}`),
		Replace: "{$1}",
		MustMatch: [][2]string{
			{`f"value { x }"`, `f"value {x}"`},
		},
		MustNotMatch: [][2]string{
			{`f"value { x }"`, `f"value {y}"`},
		},
	},
}

// emptyOperand is a plain or dotted name (this . x, a . b), the operand
// the emptiness rules rewrite: a call's result might differ between two
// calls, so "f ( ) == null || f ( ) . isEmpty ( )" is not isEmpty(f()).
const emptyOperand = `[A-Za-z_$][\w$]*(?: \. [A-Za-z_$][\w$]*)*`

var (
	lengthCmp    = regexp.MustCompile(`(^|[^.] )(` + emptyOperand + `) \. length \( \) (== 0|!= 0|> 0)( |$)`)
	nullOrEmptyA = regexp.MustCompile(`(^|[^.] )(` + emptyOperand + `) == null \|\| (` + emptyOperand + `) \. isEmpty \( \)`)
	notEmptyA    = regexp.MustCompile(`(^|[^.] )(` + emptyOperand + `) != null && ! (` + emptyOperand + `) \. isEmpty \( \)`)
	helperEmpty  = regexp.MustCompile(`\b(?:StringUtils \. isEmpty|CollectionUtils \. isEmpty|MapUtils \. isEmpty|Strings \. isNullOrEmpty) \( (` + emptyOperand + `) \)`)
	helperNot    = regexp.MustCompile(`\b(?:StringUtils \. isNotEmpty|CollectionUtils \. isNotEmpty|MapUtils \. isNotEmpty) \( (` + emptyOperand + `) \)`)
)

// lengthToIsEmpty rewrites "x . length ( ) == 0" as "x . isEmpty ( )" and
// the != 0 and > 0 comparisons as "! x . isEmpty ( )".
func lengthToIsEmpty(t string) string {
	return lengthCmp.ReplaceAllStringFunc(t, func(m string) string {
		sub := lengthCmp.FindStringSubmatch(m)
		if sub[3] == "== 0" {
			return sub[1] + sub[2] + " . isEmpty ( )" + sub[4]
		}
		return sub[1] + "! " + sub[2] + " . isEmpty ( )" + sub[4]
	})
}

// nullOrEmpty rewrites the spelled-out null-or-empty checks on one
// operand, and the library helpers that define them, to one canonical
// "isNullOrEmpty ( x )" (negated: "! isNullOrEmpty ( x )").
func nullOrEmpty(t string) string {
	same := func(re *regexp.Regexp, neg string) func(string) string {
		return func(m string) string {
			sub := re.FindStringSubmatch(m)
			if sub[2] != sub[3] {
				return m
			}
			return sub[1] + neg + "isNullOrEmpty ( " + sub[2] + " )"
		}
	}
	t = nullOrEmptyA.ReplaceAllStringFunc(t, same(nullOrEmptyA, ""))
	t = notEmptyA.ReplaceAllStringFunc(t, same(notEmptyA, "! "))
	t = helperEmpty.ReplaceAllString(t, "isNullOrEmpty ( $1 )")
	return helperNot.ReplaceAllString(t, "! isNullOrEmpty ( $1 )")
}

// modernise applies the rules of lang to a normalised line.
func modernise(lang code.Lang, t string) string {
	for i := range modRules {
		r := &modRules[i]
		switch {
		case r.Lang != lang || !strings.Contains(t, r.Needs):
		case r.Fn != nil:
			t = r.Fn(t)
		default:
			t = r.Pattern.ReplaceAllString(t, r.Replace)
		}
	}
	return t
}

// varAnnotation matches an annotated assignment's target and annotation:
// "name : T = " (the target a plain or dotted name).
var varAnnotation = regexp.MustCompile(`^([A-Za-z_]\w*(?: \. [A-Za-z_]\w*)*) : ([^=]+?) = `)

// dropVarAnnotation turns "x : T = v" into "x = v" (PEP 526 annotations
// change no behaviour); a keyword before the colon ("else : x = 1" cannot
// occur in a normalised line, but "lambda x : y = …" would be wrong) is
// left alone.
func dropVarAnnotation(t string) string {
	m := varAnnotation.FindStringSubmatchIndex(t)
	if m == nil || keywords[t[m[2]:m[3]]] {
		return t
	}
	return t[:m[3]] + " = " + t[m[1]:]
}

// dropDefAnnotations removes the parameter and return annotations of a
// normalised def line: within the parameter list, a ":" at the list's
// own depth and outside a default value starts an annotation, which runs
// to the next "," or "=" there; after the list, "-> T" up to the final
// ":" goes.
func dropDefAnnotations(t string) string {
	toks := strings.Split(t, " ")
	i := 0
	if i < len(toks) && toks[i] == "async" {
		i++
	}
	if i+2 >= len(toks) || toks[i] != "def" || toks[i+2] != "(" {
		return t
	}
	out := append([]string{}, toks[:i+3]...)
	depth, skip, inDefault := 1, false, false
	j := i + 3
	for ; j < len(toks) && depth > 0; j++ {
		switch tok := toks[j]; {
		case tok == "(" || tok == "[" || tok == "{":
			depth++
		case tok == ")" || tok == "]" || tok == "}":
			depth--
		case depth == 1 && (tok == "," || tok == "="):
			skip, inDefault = false, tok == "="
		case depth == 1 && tok == ":" && !inDefault:
			skip = true
		}
		if depth == 0 || !skip {
			out = append(out, toks[j])
		}
	}
	if j+1 < len(toks) && toks[j] == "->" && toks[len(toks)-1] == ":" {
		return strings.Join(append(out, ":"), " ")
	}
	return strings.Join(append(out, toks[j:]...), " ")
}

// percentTuple matches a %-format string and a parenthesised argument
// list of plain or dotted names.
var percentTuple = regexp.MustCompile(`(^|[^\w"'])(?:'([^'{}\\]*)'|"([^"{}\\]*)") % \( ((?:[A-Za-z_]\w*(?: \. [A-Za-z_]\w*)* , )*[A-Za-z_]\w*(?: \. [A-Za-z_]\w*)*)(?: ,)? \)`)

// percentToFString rewrites "… %s … %r …" % ( a , b ) as f"… {a} … {b} …"
// when the placeholders (%s, %d, %r; no %%) and the names pair up.
func percentToFString(t string) string {
	return percentTuple.ReplaceAllStringFunc(t, func(m string) string {
		sub := percentTuple.FindStringSubmatch(m)
		lead, q, body, args := sub[1], "'", sub[2], strings.Split(sub[4], " , ")
		if strings.HasPrefix(m[len(lead):], `"`) {
			q, body = `"`, sub[3]
		}
		if strings.Contains(body, "%%") {
			return m
		}
		f, ok := fillPlaceholders(body, args)
		if !ok {
			return m
		}
		return lead + "f" + q + f + q
	})
}

// fillPlaceholders replaces the %s, %d and %r of body by "{arg}", in
// order; false unless they are the only placeholders and pair up with
// args one to one.
func fillPlaceholders(body string, args []string) (string, bool) {
	var sb strings.Builder
	n := 0
	for i := 0; i < len(body); i++ {
		if body[i] == '%' && i+1 < len(body) && strings.IndexByte("sdr", body[i+1]) >= 0 {
			if n >= len(args) {
				return "", false
			}
			sb.WriteString("{" + args[n] + "}")
			n++
			i++
			continue
		}
		if body[i] == '%' {
			return "", false
		}
		sb.WriteByte(body[i])
	}
	return sb.String(), n == len(args)
}

// adjacentStrings matches two string literal tokens in a row, each an
// optional f prefix and a double-quoted body without quotes or
// backslashes (the python-quotes rule has turned simple '…' into "…").
var adjacentStrings = regexp.MustCompile(`(^|[^\w"])(f?)"([^"\\]*)" (f?)"([^"\\]*)"`)

// joinAdjacentStrings joins implicitly concatenated string literals, an
// f-string with a plain one only when the plain one has no braces (which
// an f-string would read as fields).
func joinAdjacentStrings(t string) string {
	for {
		out := adjacentStrings.ReplaceAllStringFunc(t, func(m string) string {
			sub := adjacentStrings.FindStringSubmatch(m)
			lead, f1, a, f2, b := sub[1], sub[2], sub[3], sub[4], sub[5]
			if f1 != f2 && (f1 == "" && strings.ContainsAny(a, "{}") || f2 == "" && strings.ContainsAny(b, "{}")) {
				return m
			}
			f := f1
			if f == "" {
				f = f2
			}
			return lead + f + `"` + a + b + `"`
		})
		if out == t {
			return t
		}
		t = out
	}
}

// formatCall matches the start of "…" . format ( with its body.
var formatCall = regexp.MustCompile(`(^|[^\w"])"([^"\\]*)" \. format \( `)

// formatToFString rewrites "… {} …" . format ( args ) as an f-string when
// the body's placeholders are all "{}" and pair up with positional
// arguments one to one.
func formatToFString(t string) string {
	loc := formatCall.FindStringSubmatchIndex(t)
	if loc == nil {
		return t
	}
	body := t[loc[4]:loc[5]]
	args, end, ok := callArgs(t, loc[1])
	if !ok || strings.Count(body, "{}") != len(args) || strings.Count(body, "{") != len(args) || strings.Count(body, "}") != len(args) {
		return t
	}
	var sb strings.Builder
	for i, part := range strings.Split(body, "{}") {
		sb.WriteString(part)
		if i < len(args) {
			sb.WriteString("{" + compactExpr(args[i]) + "}")
		}
	}
	return t[:loc[3]] + `f"` + sb.String() + `"` + t[end:]
}

// callArgs splits the argument list that starts at t[from:] (just after
// "( ") at its top-level commas, up to its closing parenthesis; end is
// just past it. ok is false for keyword or starred arguments.
func callArgs(t string, from int) (args []string, end int, ok bool) {
	depth, start := 0, from
	for i := from; i < len(t); i++ {
		switch t[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				args = append(args, strings.TrimSpace(t[start:i]))
				for _, a := range args {
					if a == "" || strings.HasPrefix(a, "*") || strings.Contains(a, " = ") {
						return nil, 0, false
					}
				}
				return args, i + 1, true
			}
			depth--
		case ',':
			if depth == 0 {
				args = append(args, strings.TrimSpace(t[start:i]))
				start = i + 1
			}
		case '"':
			j := strings.IndexByte(t[i+1:], '"')
			if j < 0 {
				return nil, 0, false
			}
			i += j + 1
		}
	}
	return nil, 0, false
}

// compactExpr writes a normalised expression as source would inside an
// f-string field: no blanks around ".", brackets and parentheses, ", "
// between arguments.
func compactExpr(e string) string {
	return exprSpaces.Replace(e)
}

var exprSpaces = strings.NewReplacer(" . ", ".", " ( ", "(", " ( )", "()", " )", ")", "( ", "(", " [ ", "[", " ]", "]", " , ", ", ")
