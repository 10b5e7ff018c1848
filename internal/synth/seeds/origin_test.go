package seeds

import (
	"context"
	"testing"

	"github.com/benchforge/benchforge/internal/testcheck"
)

// TestFrameRulesExamples enforces every rule's must-match and
// must-not-match classes: a must-match class is classified by its rule
// (no earlier rule takes it), a must-not-match class is not.
func TestFrameRulesExamples(t *testing.T) {
	for _, r := range frameRules {
		if len(r.Match) == 0 || len(r.NotMatch) == 0 {
			t.Errorf("rule %q: needs must-match and must-not-match examples", r.Name)
		}
		for _, c := range r.Match {
			if got := classifyFrameClass(c, ""); got != r.Class {
				t.Errorf("rule %q: %s classified %s, want %s", r.Name, c, got, r.Class)
			}
		}
		for _, c := range r.NotMatch {
			if r.Pattern.MatchString(c) {
				t.Errorf("rule %q: must not match %s", r.Name, c)
			}
		}
	}
}

func TestOriginOf(t *testing.T) {
	const test = "org.example.FooTest::testBar"
	tests := []struct {
		name string
		f    Failure
		i    int
		want Origin
	}{
		{"thrown in production", Failure{Test: test, Traces: []Trace{{Frames: []string{"org.example.Foo.bar(Foo.java:3)", "org.example.FooTest.testBar(FooTest.java:9)"}}}}, 0, OriginProduction},
		{"thrown in the test method", Failure{Test: test, Traces: []Trace{{Frames: []string{"org.example.FooTest.testBar(FooTest.java:9)"}}}}, 0, OriginTest},
		{"thrown in a nested class of the test", Failure{Test: test, Traces: []Trace{{Frames: []string{"org.example.FooTest$1.run(FooTest.java:12)"}}}}, 0, OriginTest},
		{"JDK called from the test", Failure{Test: test, Traces: []Trace{{Frames: []string{"java.lang.Integer.parseInt(Integer.java:580)", "org.example.FooTest.testBar(FooTest.java:9)"}}}}, 0, OriginTest},
		{"JDK called from production", Failure{Test: test, Traces: []Trace{{Frames: []string{"java.lang.Integer.parseInt(Integer.java:580)", "org.example.Foo.parse(Foo.java:4)"}}}}, 0, OriginProduction},
		{"JUnit assertion", Failure{Test: test, Traces: []Trace{{Frames: []string{"org.junit.Assert.assertNotNull(Assert.java:1)", "org.example.FooTest.testBar(FooTest.java:9)"}}}}, 0, OriginFramework},
		{"cause whose elided frames reach the test", Failure{Test: test, CausedBy: []string{"java.lang.NumberFormatException"}, Traces: []Trace{
			{Frames: []string{"org.example.Foo.wrap(Foo.java:8)", "org.example.FooTest.testBar(FooTest.java:9)"}},
			{Frames: []string{"java.lang.Long.parseLong(Long.java:1)"}, More: 1},
		}}, 1, OriginTest},
		{"cause thrown in production", Failure{Test: test, CausedBy: []string{"java.lang.NullPointerException"}, Traces: []Trace{
			{Frames: []string{"org.example.FooTest.testBar(FooTest.java:9)"}},
			{Frames: []string{"org.example.Foo.get(Foo.java:2)"}, More: 1},
		}}, 1, OriginProduction},
		{"no frames", Failure{Test: test}, 0, OriginUnknown},
	}
	for _, tc := range tests {
		if got := tc.f.OriginOf(tc.i); got != tc.want {
			t.Errorf("%s: origin %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestExtractDropsTestOrigin: a bug whose only in-scope root cause was
// thrown in its test class is excluded at the scope stage, with the
// reason naming the origin rule, and kept under AnyOrigin.
func TestExtractDropsTestOrigin(t *testing.T) {
	in := BugInput{ID: "Demo-9", Benchmark: "defects4j", Project: "Demo", Failures: []Failure{{
		Test: "demo.HTest::t", Exception: "java.lang.NullPointerException",
		Traces: []Trace{{Frames: []string{"demo.HTest.t(HTest.java:7)", "junit.framework.TestCase.runTest(TestCase.java:176)"}}},
	}}}
	logs, err := Extract(context.Background(), []BugInput{in}, ExtractOptions{}, &memSink{logs: map[string]BugLog{}})
	testcheck.Must(t, err)
	if len(logs) != 1 {
		t.Fatalf("%d logs, want 1", len(logs))
	}
	checkDropped(t, "test-origin bug", logs[0], StageScope, "outside production code")
	logs, err = Extract(context.Background(), []BugInput{in}, ExtractOptions{Scan: ScanOptions{AnyOrigin: true}}, &memSink{logs: map[string]BugLog{}})
	testcheck.Must(t, err)
	if len(logs) != 1 || logs[0].Stage == StageScope || logs[0].Exception != NPE {
		t.Fatalf("AnyOrigin: logs = %+v, want the NPE past the scope stage", logs)
	}
}
