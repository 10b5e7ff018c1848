package release

import (
	"fmt"
	"slices"
	"strings"

	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/judge"
	"github.com/benchforge/benchforge/internal/synth/jvm"
)

// Validation methods of a release's core (Inputs.ValidatedBy,
// Manifest.ValidatedBy, CoreValidation.By).
const (
	// ValidatedByJudge: the core is the judge's accepted pairs (§5.1).
	ValidatedByJudge = "judge"
	// ValidatedByJVM: the core is the pairs a JVM confirmed under
	// criterion (c) (§5.4), for corpora validated without a judge model.
	ValidatedByJVM = "jvm"
)

// ValidMethod reports whether m names a validation method.
func ValidMethod(m string) bool { return m == ValidatedByJudge || m == ValidatedByJVM }

// jvmEvidence copies the criterion (c) trigger of a confirmed execution
// record into a core record's evidence; e.C must be set.
func jvmEvidence(e jvm.Execution) *CoreExecution {
	ev := &CoreExecution{JDK: e.JDK, Regime: e.Regime, Input: e.C.Input,
		SiteLines: nonNilInts(e.Site.Buggy), FixedSiteLines: nonNilInts(e.Site.Fixed),
		BuggyOutcome: coreOutcome(e.C.Buggy), InputsTried: max(e.InputsTried, 0), Budget: max(e.Budget, 0)}
	if e.C.Fixed != nil {
		ev.FixedOutcome = coreOutcome(*e.C.Fixed)
	}
	return ev
}

func coreOutcome(o jvm.Outcome) CoreOutcome {
	return CoreOutcome{Kind: o.Kind, Exception: o.Exception, Line: max(o.Line, 0), Message: o.Message}
}

func nonNilInts(xs []int) []int {
	if xs == nil {
		return []int{}
	}
	return xs
}

// wantFlags are the release flags a core pair must carry. A JVM-validated
// pair has no judge confidence, so ise_low_confidence (a statement about
// the judge's reliability on IllegalStateException) is never set on it.
func wantFlags(p *CorePair, iseMax float64) CoreFlags {
	f := CoreFlags{FixIntroducesLabel: judge.FixIntroducesLabel(p.ErrorType, p.BuggyMethod, p.FixedMethod)}
	if p.Validation.By == ValidatedByJudge && p.Judge != nil {
		f.ISELowConfidence = judge.ISELowConfidence(p.ErrorType, p.Judge.Confidence, iseMax)
	}
	return f
}

// validationProblems checks what the schema subset cannot express: the
// record's method is the release's, exactly the evidence block it names is
// present, and JVM evidence is a criterion (c) trigger at the patched site
// of these very methods. Build refuses a pair with a problem; Check reports
// each one.
func validationProblems(p *CorePair, method string) []FieldError {
	var out []FieldError
	bad := func(field, format string, args ...any) {
		out = append(out, FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
	}
	if p.Validation.By != method {
		bad("validation.by", "is %q, but the manifest says the core is validated by %q; one release validates its whole core one way", p.Validation.By, method)
	}
	switch p.Validation.By {
	case ValidatedByJudge:
		if p.Judge == nil {
			bad("judge", "missing: a judge-validated pair carries its accepting judgement")
		}
		if p.Validation.JVM != nil {
			bad("validation.jvm", "present on a judge-validated pair; execution evidence belongs to jvm-validated pairs")
		}
	case ValidatedByJVM:
		if p.Judge != nil {
			bad("judge", "present on a jvm-validated pair, whose validation is the execution evidence in validation.jvm")
		}
		if p.Validation.JVM == nil {
			bad("validation.jvm", "missing: a jvm-validated pair needs its execution evidence")
		} else {
			out = append(out, evidenceProblems(p, p.Validation.JVM)...)
		}
	}
	return out
}

// evidenceProblems re-derives criterion (c) from the evidence: the patched
// site from the methods (jvm.PatchedSite, as synth verify computes it), the
// buggy outcome a throw of the label inside it, the fixed outcome no throw
// of the label inside its site. Only the exact label is recognised on the
// fixed side, since the record keeps no superclasses.
func evidenceProblems(p *CorePair, ev *CoreExecution) []FieldError {
	e := &evidenceCheck{p: p, ev: ev}
	site := jvm.PatchedSite(p.BuggyMethod, p.FixedMethod)
	if !slices.Equal(ev.SiteLines, nonNilInts(site.Buggy)) {
		e.bad("site_lines", "%v, but the patched site of the methods is %v", ev.SiteLines, nonNilInts(site.Buggy))
	}
	if !slices.Equal(ev.FixedSiteLines, nonNilInts(site.Fixed)) {
		e.bad("fixed_site_lines", "%v, but the patched site of the fixed method is %v", ev.FixedSiteLines, nonNilInts(site.Fixed))
	}
	if strings.TrimSpace(ev.JDK) == "" {
		e.bad("jdk", "empty: the evidence names the JDK it ran on")
	}
	if strings.TrimSpace(ev.Input) == "" {
		e.bad("input", "empty: the evidence names the trigger input")
	}
	e.buggyOutcome()
	e.fixedOutcome()
	return e.out
}

// evidenceCheck collects the problems of core pair p's JVM evidence ev.
type evidenceCheck struct {
	p   *CorePair
	ev  *CoreExecution
	out []FieldError
}

func (e *evidenceCheck) bad(field, format string, args ...any) {
	e.out = append(e.out, FieldError{Field: "validation.jvm." + field, Msg: fmt.Sprintf(format, args...)})
}

// buggyOutcome checks that the buggy method threw the pair's label at a
// line of the patched site.
func (e *evidenceCheck) buggyOutcome() {
	b := e.ev.BuggyOutcome
	switch {
	case b.Kind != "threw":
		e.bad("buggy_outcome.kind", "%q: under criterion (c) the buggy method throws", b.Kind)
	case b.Exception == "":
		e.bad("buggy_outcome.exception", "empty: the buggy method's exception is not named")
	case otherLabel(b.Exception, e.p.ErrorType):
		e.bad("buggy_outcome.exception", "%s is another label than the pair's %s", b.Exception, e.p.ErrorType)
	}
	if !slices.Contains(e.ev.SiteLines, b.Line) {
		e.bad("buggy_outcome.line", "%d is not a line of the patched site %v", b.Line, e.ev.SiteLines)
	}
}

// fixedOutcome checks that the fixed method returned or threw, but not
// the label at its patched site.
func (e *evidenceCheck) fixedOutcome() {
	f := e.ev.FixedOutcome
	switch {
	case f.Kind != "returned" && f.Kind != "threw":
		e.bad("fixed_outcome.kind", "%q: under criterion (c) the fixed method returns or throws", f.Kind)
	case f.Kind == "threw" && f.Exception == "java.lang."+e.p.ErrorType && slices.Contains(e.ev.FixedSiteLines, f.Line):
		e.bad("fixed_outcome", "the fixed method also raises %s at the patched site (line %d)", e.p.ErrorType, f.Line)
	}
}

// otherLabel reports whether the thrown class is an in-scope label other
// than want: a subclass such as NumberFormatException for an
// IllegalArgumentException pair is its own label (jvm's rule).
func otherLabel(exception, want string) bool {
	name, ok := strings.CutPrefix(exception, "java.lang.")
	return ok && corpus.ValidType(name) && name != want
}
