package patchcheck

import (
	"regexp"
	"strings"
)

// The java-init-cause rule reads the pre-Java-6 way of throwing with a
// cause,
//
//	IOException ioe = new IOException("Error detected parsing the header");
//	ioe.initCause(e);
//	throw ioe;
//
// as the one statement that replaced it once IOException (and most JDK
// exceptions) gained a cause constructor in Java 6:
//
//	throw new IOException("Error detected parsing the header", e);
//
// Apache Commons projects made that rewrite when they moved to Java 6
// (Compress-12's getNextTarEntry at the cutoff). The rule spans three
// lines, so it is not a modRule: a fix's added lines that form the idiom
// are matched, each, as the better of themselves and the one statement.
// The snapshot side needs no reading: code written since keeps the one
// statement, and code that kept the idiom matches its own lines.

var (
	initCauseNew   = regexp.MustCompile(`^(?:final )?[A-Z][\w$]*(?: \. [A-Z][\w$]*)* ([a-z_$][\w$]*) = new ((?:[a-z_][\w$]* \. )*[A-Z][\w$]*(?: \. [A-Z][\w$]*)*) \( (.*?) ?\) ;$`)
	initCauseCall  = regexp.MustCompile(`^([a-z_$][\w$]*) \. initCause \( (.+) \) ;$`)
	initCauseThrow = regexp.MustCompile(`^throw ([a-z_$][\w$]*) ;$`)
)

// initCauseExamples: each MustMatch triple reads as its statement, each
// MustNotMatch triple as none (TestInitCauseExamples).
var initCauseExamples = struct {
	MustMatch    [][4]string
	MustNotMatch [][3]string
}{
	MustMatch: [][4]string{
		{`IOException ioe = new IOException ( "Error detected parsing the header" ) ;`, "ioe . initCause ( e ) ;", "throw ioe ;",
			`throw new IOException ( "Error detected parsing the header" , e ) ;`},
		{"final Exception x = new java . io . IOException ( ) ;", "x . initCause ( cause ) ;", "throw x ;",
			"throw new java . io . IOException ( cause ) ;"},
	},
	MustNotMatch: [][3]string{
		// the thrown exception is another one than the one given a cause
		{`IOException ioe = new IOException ( "a" ) ;`, "ioe . initCause ( e ) ;", "throw other ;"},
		{`IOException ioe = new IOException ( "a" ) ;`, "other . initCause ( e ) ;", "throw ioe ;"},
		// no cause is set: the statement is the plain throw, no rewrite
		{`IOException ioe = new IOException ( "a" ) ;`, "ioe . fillInStackTrace ( ) ;", "throw ioe ;"},
	},
}

// initCauseStatement is the one statement lines a, b, c say, or "".
func initCauseStatement(a, b, c string) string {
	n, i, t := initCauseNew.FindStringSubmatch(a), initCauseCall.FindStringSubmatch(b), initCauseThrow.FindStringSubmatch(c)
	if n == nil || i == nil || t == nil || n[1] != i[1] || n[1] != t[1] {
		return ""
	}
	args := strings.TrimSpace(n[3])
	if args != "" {
		args += " , "
	}
	return "throw new " + n[2] + " ( " + args + i[2] + " ) ;"
}

// initCauseGroups maps each of adds (fixed-version lines of v) that is
// part of the idiom, on consecutive lines, to the one statement.
func initCauseGroups(v *version, adds []int) map[int]string {
	var out map[int]string
	for k := 0; k+2 < len(adds); k++ {
		a := adds[k]
		if adds[k+1] != a+1 || adds[k+2] != a+2 || !strings.Contains(v.lines[a+1].text, "initCause") {
			continue
		}
		if s := initCauseStatement(v.lines[a].text, v.lines[a+1].text, v.lines[a+2].text); s != "" {
			if out == nil {
				out = map[int]string{}
			}
			out[a], out[a+1], out[a+2] = s, s, s
		}
	}
	return out
}
