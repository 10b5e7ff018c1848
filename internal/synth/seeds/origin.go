package seeds

import (
	"regexp"
	"strings"
)

// Origin is where the root cause of a failure was thrown (rxsynth §3.1:
// the scope is exceptions "thrown from production code").
type Origin string

const (
	OriginProduction Origin = "production" // a project class outside the tests
	OriginTest       Origin = "test"       // a test class, or JDK code called directly from one
	OriginFramework  Origin = "framework"  // a test framework or runner (JUnit, Hamcrest, Ant, ...)
	OriginUnknown    Origin = "unknown"    // no frame outside the JDK printed for the exception
)

// frameClass is where one stack frame's class lives.
type frameClass string

const (
	frameJDK        frameClass = "jdk"
	frameTest       frameClass = "test"
	frameFramework  frameClass = "framework"
	frameProduction frameClass = "production"
)

// frameRule classifies the classes whose binary name matches Pattern.
// Rules are tried in order; the first match wins and a class no rule
// matches is production code. Each rule carries classes it must and must
// not match (origin_test.go enforces them).
type frameRule struct {
	Name     string
	Class    frameClass
	Pattern  *regexp.Regexp
	Match    []string
	NotMatch []string
}

// frameRules are the §3.1 origin rules. Besides the failing test's own
// class (and its nested classes), which is test code whatever its name,
// test classes are recognised by the naming conventions of the Defects4J
// projects' test trees: *Tests, *TestCase, *TestBase, Chart's
// ".junit." packages, Mockito's org.mockitousage and org.mockitoutil.
var frameRules = []frameRule{
	{
		Name:     "jdk",
		Class:    frameJDK,
		Pattern:  regexp.MustCompile(`^(java|javax|jdk|sun|com\.sun)\.`),
		Match:    []string{"java.lang.Integer", "sun.reflect.NativeMethodAccessorImpl", "jdk.internal.reflect.Reflection", "com.sun.proxy.$Proxy4"},
		NotMatch: []string{"javassist.ClassPool", "org.apache.commons.lang3.StringUtils"},
	},
	{
		Name:     "test framework",
		Class:    frameFramework,
		Pattern:  regexp.MustCompile(`^(junit\.|org\.junit\.|org\.opentest4j\.|org\.hamcrest\.|org\.apache\.tools\.ant\.|org\.easymock\.|org\.jmock\.|org\.testng\.|org\.apache\.maven\.surefire\.)`),
		Match:    []string{"junit.framework.Assert", "org.junit.Assert", "org.hamcrest.MatcherAssert", "org.apache.tools.ant.taskdefs.optional.junit.JUnitTestRunner", "org.easymock.EasyMock"},
		NotMatch: []string{"org.mockito.internal.util.MockUtil", "org.jfree.chart.junit.ChartTests"},
	},
	{
		Name:    "test naming",
		Class:   frameTest,
		Pattern: regexp.MustCompile(`(^|\.)[^.$]+(Tests|TestCase|TestBase)(\$[^.]*)?$|\.junit\.|^org\.mockitousage\.|^org\.mockitoutil\.`),
		Match: []string{"org.jfree.data.general.junit.DatasetUtilitiesTests", "com.google.javascript.jscomp.CompilerTestCase",
			"org.mockitousage.bugs.ListenersLostOnResetMockTest", "org.mockitousage.IMethods$$EnhancerByMockitoWithCGLIB$$de235dc2",
			"org.mockitoutil.TestBase", "org.jfree.chart.junit.ChartPanelTests$1", "org.joda.time.chrono.gj.TestGJChronologyTestCase",
			"org.apache.commons.jxpath.JXPathTestCase", "com.google.gson.functional.MapTests$Inner"},
		// Production classes named like tests: commons-math's statistical
		// tests (TTest, ChiSquareTest, stat.inference.TestUtils) are why a
		// bare "Test" prefix or suffix is not a rule — the failing test's own class
		// is recognised by name instead.
		NotMatch: []string{"org.apache.commons.lang3.StringUtils", "org.mockito.internal.creation.jmock.ClassImposterizer",
			"com.google.javascript.jscomp.TypeCheck", "org.apache.commons.math3.stat.inference.TTest",
			"org.apache.commons.math3.stat.inference.TestUtils", "org.apache.commons.math3.stat.inference.ChiSquareTest$1",
			"org.mockito.internal.util.reflection.GenericMaster", "org.jfree.chart.Testing"},
	},
}

// classifyFrameClass applies frameRules to a binary class name; testClass
// is the failing test's class, which is test code whatever its name.
func classifyFrameClass(class, testClass string) frameClass {
	outer, _, _ := strings.Cut(class, "$")
	if testClass != "" && outer == testClass {
		return frameTest
	}
	for _, r := range frameRules {
		if r.Pattern.MatchString(class) {
			return r.Class
		}
	}
	return frameProduction
}

// frameClassName is the class of a frame "pkg.Class.method(File.java:1)".
func frameClassName(frame string) string {
	head, _, _ := strings.Cut(frame, "(")
	if i := strings.LastIndex(head, "."); i > 0 {
		return head[:i]
	}
	return head
}

// fullTrace rebuilds the complete stack of exception i of f's chain (0 the
// thrown one, i the cause CausedBy[i-1]): its printed frames followed by
// the enclosing exception's last More frames.
func (f Failure) fullTrace(i int) []string {
	if i < 0 || i >= len(f.Traces) {
		return nil
	}
	t := f.Traces[i]
	frames := append([]string{}, t.Frames...)
	if t.More > 0 && i > 0 {
		outer := f.fullTrace(i - 1)
		if t.More <= len(outer) {
			frames = append(frames, outer[len(outer)-t.More:]...)
		}
	}
	return frames
}

// OriginOf is where exception i of f's chain (0 the thrown exception, i the
// cause CausedBy[i-1]) was thrown: the class of its first frame, and for
// JDK code the first non-JDK frame below it — JDK code called directly
// from a test method is test origin, JDK code called from production code
// is production origin.
func (f Failure) OriginOf(i int) Origin {
	testClass, _, _ := strings.Cut(f.Test, "::")
	for _, frame := range f.fullTrace(i) {
		switch classifyFrameClass(frameClassName(frame), testClass) {
		case frameJDK:
			continue
		case frameTest:
			return OriginTest
		case frameFramework:
			return OriginFramework
		default:
			return OriginProduction
		}
	}
	// No frames, or only JDK frames whose callers were not printed.
	return OriginUnknown
}
