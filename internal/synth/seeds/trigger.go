// Package seeds owns the real bug/fix seed pool of rxsynth.md §3: the
// failure records of benchmark bugs, the classification of their
// exceptions into the seven in-scope runtime-exception types (§3.1), the
// bug-level filters F1 (JUnit artefacts only) and F2 (checked exceptions
// only) of §3.2, and the bug-level prevalence table (§3.2, Table 2).
//
// # Definitions (rxsynth.md §3.1–3.2)
//
//   - In-scope types: NullPointerException (NPE), IllegalArgumentException
//     (IAE), IllegalStateException (ISE), ClassCastException (CCE),
//     ArrayIndexOutOfBoundsException (AIOOBE),
//     StringIndexOutOfBoundsException (SIOOBE), NumberFormatException (NFE).
//     A thrown class maps to the most specific in-scope type among itself
//     and its known superclasses (hierarchy.go): NumberFormatException is
//     NFE although it extends IllegalArgumentException, and Joda-Time's
//     IllegalFieldValueException is IAE. Plain IndexOutOfBoundsException is
//     not in scope (the paper names only the array and string variants).
//     That wider reading needs ScanOptions.Subclasses; by default only the
//     seven java.lang classes count.
//   - JUnit artefacts: classes under junit.framework., org.junit. and
//     org.opentest4j. (AssertionFailedError, ComparisonFailure, ...).
//   - Checked: subclasses of java.lang.Exception that are not
//     RuntimeException subclasses (IOException family, SQLException,
//     JsonMappingException, ...).
//   - Other unchecked: RuntimeException and Error subclasses outside the
//     seven (UnsupportedOperationException, StackOverflowError,
//     AssertionError, ...): within the §3.1 definition but not target types.
//
// Per failure, the in-scope type is that of the deepest in-scope class of
// its "Caused by:" chain — the root cause; a checked or JUnit exception
// wrapping an in-scope one therefore counts as that type (§3.2: "treating
// the runtime exception as the root cause"). A bug is a runtime bug when
// any of its trigger failures has an in-scope type; otherwise it is
// dropped by F1 when all its classes are JUnit artefacts, by F2 when all
// its non-JUnit classes are checked, else it is "other unchecked" or, when
// a class could not be classified, "unknown". Unknown classes are logged in
// the result, never printed.
//
// # Origin (rxsynth §3.1: "thrown from production code")
//
// A failure's in-scope root cause counts only when it was thrown from
// production code (origin.go): the first frame of its stack (rebuilt
// through "... N more" from the enclosing traces) is a project class that
// is not the failing test's class or a test-tree class (frameRules), nor a
// test framework; JDK frames are skipped, so JDK code called from
// production code is production origin and JDK code called directly from
// a test is test origin. A record without frames outside the JDK counts
// (nothing shows a test origin). ScanOptions.AnyOrigin counts every
// origin; ScanOptions.Subclasses also counts project subclasses of the
// seven (by default only the seven java.lang classes are in scope).
//
// # Measured on Defects4J (854 active bugs, rjust/defects4j ca4a0ef)
//
// Golden files testdata/defects4j_prevalence*.golden hold the per-project
// tables and per-bug decisions. Pooled runtime bugs under the §3.1 default
// (exact types, production origin): 144 of 854 (16.9%), against the
// paper's 142 (16.6%, Table 2). The widest reading (subclasses, any
// origin) counts 179; the exact-type rule removes 21 (project subclasses:
// Joda-Time 5, commons-math 10, jsoup 6) and the origin rule 14 more
// (Gson 3, Mockito 4, Chart, Closure, JacksonCore, JacksonDatabind, Jsoup,
// JxPath, Lang 1 each). --subclasses gives 164, --any-origin 158. Every
// class met in Defects4J is in the known hierarchy (no unknowns).
//
// # Seed extraction (extract*.go)
//
// Extract runs the method-pair filters of §3.2 on top: F3
// (ExtractMethodPairs: every change inside method or constructor bodies,
// one pair per changed method), F4 (CheckF4: IAE/ISE fixes that only add a
// missing throw are dropped), optional F5 (Validator, confidence ≥ 0.7),
// logging every bug's outcome with its stage and reason (BugLog). The
// seed pool distribution (Distribute, Table 3 shape), the fidelity
// reference set (ReferenceSet: per type, buggy-method LLOC above
// Q3 + 1.5·IQR is excluded, §3.4) and the identifier → source-bug table
// (SourceBugTable, §7.2) are built from the seeds. See extract.go for the
// figures measured on Defects4J.
package seeds

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/errs"
)

// Failure is one failing trigger test of a Defects4J bug: the exception it
// threw and the causes chained to it.
type Failure struct {
	Test      string   `json:"test"`                // "<class>::<method>"
	Exception string   `json:"exception"`           // fully qualified class of the thrown exception
	Message   string   `json:"message,omitempty"`   // its message, lines joined with "\n"
	CausedBy  []string `json:"caused_by,omitempty"` // classes of the "Caused by:" chain, outermost first
	TopFrame  string   `json:"top_frame,omitempty"` // first "at" frame of the thrown exception, without "at "
	Line      int      `json:"line"`                // line of the "--- " header in the file
	// Traces holds the printed frames of the thrown exception (index 0)
	// and of each cause (index i+1 for CausedBy[i]), without "at ".
	Traces []Trace `json:"traces,omitempty"`
}

// Trace is the printed stack of one exception of a failure's chain.
type Trace struct {
	Frames []string `json:"frames,omitempty"`
	// More is N of a closing "... N more": the trace's last N frames are
	// the enclosing exception's last N frames, not printed again.
	More int `json:"more,omitempty"`
}

// ParseTriggerTests parses a Defects4J trigger_tests file: for each failing
// test a "--- <class>::<method>" header, the exception line
// ("java.lang.NullPointerException: msg" or just the class), message
// continuation lines, "\tat ..." frames and "Caused by:" chains. name is
// used in errors, which name name:line and wrap errs.ErrInput.
func ParseTriggerTests(name string, data []byte) ([]Failure, error) {
	p := &triggerParser{name: name}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), len(data)+1)
	for sc.Scan() {
		p.lineNo++
		if err := p.line(strings.TrimRight(sc.Text(), "\r")); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("seeds.ParseTriggerTests(%s:%d): %w: %v", name, p.lineNo+1, errs.ErrInput, err)
	}
	if p.state == wantException {
		return nil, fmt.Errorf("seeds.ParseTriggerTests(%s:%d): %w: file ends after the header of %s, before its exception line", name, p.lineNo, errs.ErrInput, p.cur.Test)
	}
	p.finish()
	return p.out, nil
}

// triggerState is where a trigger_tests parse is.
type triggerState int

const (
	wantHeader    triggerState = iota // before the first header
	wantException                     // after a header
	inMessage                         // message lines of the thrown exception
	inTrace                           // frames, causes, "... N more"
	inCause                           // message lines of a "Caused by:"
)

// triggerParser reads a trigger_tests file line by line.
type triggerParser struct {
	name   string
	lineNo int
	state  triggerState
	out    []Failure
	cur    *Failure // the failure being read
	msg    []string // its message lines
}

// finish ends the current failure, if any.
func (p *triggerParser) finish() {
	if p.cur != nil {
		p.cur.Message = strings.Join(p.msg, "\n")
		p.out = append(p.out, *p.cur)
	}
	p.cur, p.msg = nil, nil
}

// line reads one line: a header starts a failure; what other lines mean
// depends on the state.
func (p *triggerParser) line(line string) error {
	if test, ok := bench.TriggerHeader(line); ok {
		if p.state == wantException {
			return fmt.Errorf("seeds.ParseTriggerTests(%s:%d): %w: header %q follows a header without an exception line", p.name, p.lineNo, errs.ErrInput, line)
		}
		p.finish()
		p.cur = &Failure{Test: test, Line: p.lineNo, Traces: []Trace{{}}}
		p.state = wantException
		return nil
	}
	trimmed := strings.TrimSpace(line)
	switch p.state {
	case wantHeader:
		if trimmed == "" {
			return nil
		}
		return fmt.Errorf("seeds.ParseTriggerTests(%s:%d): %w: want a \"--- <class>::<method>\" header, got %q", p.name, p.lineNo, errs.ErrInput, clip(line))
	case wantException:
		class, m, ok := splitExceptionLine(trimmed)
		if !ok {
			return fmt.Errorf("seeds.ParseTriggerTests(%s:%d): %w: want an exception line such as \"java.lang.NullPointerException: msg\" after the header of %s, got %q", p.name, p.lineNo, errs.ErrInput, p.cur.Test, clip(line))
		}
		p.cur.Exception = class
		if m != "" {
			p.msg = append(p.msg, m)
		}
		p.state = inMessage
		return nil
	}
	return p.traceLine(line, trimmed)
}

// traceLine reads a line after the exception line: a frame, a cause, a
// "... N more", or a message line.
func (p *triggerParser) traceLine(line, trimmed string) error {
	cur := p.cur
	switch {
	case isFrame(line):
		frame := strings.TrimSpace(strings.TrimPrefix(trimmed, "at "))
		if cur.TopFrame == "" && p.state == inMessage {
			cur.TopFrame = frame
		}
		last := &cur.Traces[len(cur.Traces)-1]
		last.Frames = append(last.Frames, frame)
		p.state = inTrace
	case strings.HasPrefix(trimmed, "Caused by:"):
		class, _, ok := splitExceptionLine(strings.TrimSpace(strings.TrimPrefix(trimmed, "Caused by:")))
		if !ok {
			return fmt.Errorf("seeds.ParseTriggerTests(%s:%d): %w: malformed cause line %q", p.name, p.lineNo, errs.ErrInput, clip(line))
		}
		cur.CausedBy = append(cur.CausedBy, class)
		cur.Traces = append(cur.Traces, Trace{})
		p.state = inCause
	case isMore(trimmed):
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(trimmed, "... "), " more"))
		cur.Traces[len(cur.Traces)-1].More = n
		p.state = inTrace
	case p.state == inMessage:
		p.msg = append(p.msg, line)
	}
	// Other lines in a trace (cause messages, "Suppressed:" blocks)
	// carry no class we classify.
	return nil
}

// splitExceptionLine splits "pkg.Class: message" or "pkg.Class" and checks
// that the class is a plausible Java binary name.
func splitExceptionLine(s string) (class, msg string, ok bool) {
	class, msg, _ = strings.Cut(s, ":")
	class = strings.TrimSpace(class)
	if !isBinaryName(class) {
		return "", "", false
	}
	return class, strings.TrimSpace(msg), true
}

// isBinaryName reports whether s looks like a Java binary class name
// (dot-separated identifiers, "$" for nested classes).
func isBinaryName(s string) bool {
	if s == "" {
		return false
	}
	for _, part := range strings.Split(s, ".") {
		if !isIdentifier(part) {
			return false
		}
	}
	return true
}

// isIdentifier reports whether s is a Java identifier (ASCII letters,
// digits not first, '_', '$', or any non-ASCII rune).
func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !identifierRune(r, i == 0) {
			return false
		}
	}
	return true
}

// identifierRune reports whether r may be in a Java identifier, first or
// not.
func identifierRune(r rune, first bool) bool {
	letter := r == '_' || r == '$' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || r > 0x7f
	return letter || !first && r >= '0' && r <= '9'
}

func isFrame(line string) bool {
	t := strings.TrimLeft(line, " \t")
	return len(t) < len(line) && strings.HasPrefix(t, "at ")
}

func isMore(trimmed string) bool {
	rest, ok := strings.CutPrefix(trimmed, "... ")
	return ok && strings.HasSuffix(rest, " more")
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
