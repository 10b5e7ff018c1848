package patchcheck

import (
	"regexp"

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
	Name         string
	Lang         code.Lang
	Pattern      *regexp.Regexp
	Replace      string
	MustMatch    [][2]string
	MustNotMatch [][2]string
}

// modRules are applied in order to every normalised line of the fixed,
// buggy and snapshot versions.
var modRules = []modRule{
	{
		Name: "java-diamond", Lang: code.LangJava,
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
		Name: "python-quotes", Lang: code.LangPython,
		// 'text' → "text" (quote style; a literal holding either quote or a
		// backslash is left alone).
		Pattern: regexp.MustCompile(`(^|[^\w'"])([rbuRBU]?)'([^'"\\\n]*)'`),
		Replace: `$1$2"$3"`,
		MustMatch: [][2]string{
			{"name = 'default'", `name = "default"`},
			{"d [ 'key' ] = f ( 'a' , b )", `d [ "key" ] = f ( "a" , b )`},
			{"p = r'x+'", `p = r"x+"`},
		},
		MustNotMatch: [][2]string{
			{"name = 'default'", `name = "defaults"`},
			{`s = "it's"`, `s = "it"s"`},
		},
	},
	{
		Name: "python-percent-format", Lang: code.LangPython,
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
		Name: "python-fstring-spacing", Lang: code.LangPython,
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

// modernise applies the rules of lang to a normalised line.
func modernise(lang code.Lang, t string) string {
	for i := range modRules {
		r := &modRules[i]
		if r.Lang == lang {
			t = r.Pattern.ReplaceAllString(t, r.Replace)
		}
	}
	return t
}
