package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/golden"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// longMethod is a method of n statements whose names derive from tag, so
// different tags give dissimilar methods.
func longMethod(tag string, n int, guard bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "public int %sSum(int[] %sVals, String %sName) {\n", tag, tag, tag)
	if guard {
		fmt.Fprintf(&b, "    if (%sName == null) {\n        return 0;\n    }\n", tag)
	}
	fmt.Fprintf(&b, "    int %sAcc = %sName.length();\n", tag, tag)
	for i := range n {
		fmt.Fprintf(&b, "    %sAcc += %sVals[%d] * %d + %sStep%d(%sAcc);\n", tag, tag, i%3, i+1, tag, i, tag)
	}
	fmt.Fprintf(&b, "    return %sAcc;\n}", tag)
	return b.String()
}

func cand(id, typ, buggy, fixed string) corpus.Candidate {
	return corpus.Candidate{ID: id, ErrorType: typ, Generator: "test", BuggyMethod: buggy, FixedMethod: fixed}
}

// gateFixture is one candidate per gate cause and the ones that pass (id
// "ok" twice: the second is a duplicate id), with the seed the novelty
// gate compares against.
func gateFixture() ([]corpus.Seed, []corpus.Candidate) {
	npe := corpus.NullPointer
	seedFixed := longMethod("seed", 8, true)
	seeds := []corpus.Seed{{BugID: "S-1", SourceBug: "S-1", Exception: npe, BuggyMethod: longMethod("seed", 8, false), FixedMethod: seedFixed}}
	renamed := strings.NewReplacer("alpha", "omega").Replace
	withComment := strings.Replace(longMethod("cmt", 7, true), "    return cmtAcc;", "    // added null check\n    return cmtAcc; /* done */", 1)
	sized := cand("sized", npe, longMethod("siz", 6, false), longMethod("siz", 6, true))
	sized.SizeTarget = 40
	answer := corpus.Candidate{ID: "answer", ErrorType: npe, Generator: "llm",
		Answer: "```java\n" + longMethod("ans", 5, false) + "\n```\n```java\n" + longMethod("ans", 5, true) + "\n```\n"}
	badAnswer := corpus.Candidate{ID: "answer-bad", ErrorType: npe, Generator: "llm", Answer: "Sorry, no."}
	cands := []corpus.Candidate{
		cand("ok", npe, longMethod("alpha", 6, false), longMethod("alpha", 6, true)),
		answer,
		badAnswer,
		cand("badtype", "AssertionError", "void f() {}", "void f() {}"),
		cand("parse", npe, "public int f( {", longMethod("x", 3, true)),
		cand("two", npe, "void f() {}\nvoid g() {}", "void f() {}"),
		cand("local-class", npe, "void f() { class L {} }", "void f() { int x = 1; }"),
		cand("sig", npe, strings.Replace(longMethod("beta", 6, false), "public int", "public long", 1), longMethod("beta", 6, true)),
		cand("same", npe, longMethod("gamma", 6, true), longMethod("gamma", 6, true)+"\n// only a comment"),
		cand("trivial", npe, strings.Replace(longMethod("delta", 150, true), "deltaAcc += deltaVals[0] * 1", "deltaAcc += deltaVals[0] * 2", 1), longMethod("delta", 150, true)),
		cand("small", npe, "int f(String s) { return s.length(); }", "int f(String s) { return s == null ? 0 : s.length(); }"),
		sized,
		cand("seedlike", npe, longMethod("seed", 8, false), longMethod("seed", 9, true)),
		cand("dup", npe, strings.Replace(longMethod("alpha", 6, false), "alphaStep5", "alphaStepX", 1), longMethod("alpha", 6, true)),
		cand("clone", npe, renamed(longMethod("alpha", 6, false)), renamed(longMethod("alpha", 6, true))),
		cand("ok", npe, longMethod("eps", 6, false), longMethod("eps", 6, true)),
		cand("comments", npe, longMethod("cmt", 7, false), withComment),
	}
	return seeds, cands
}

func TestGates(t *testing.T) {
	seeds, cands := gateFixture()
	res, err := Run(context.Background(), cands, seeds, Options{Workers: 2})
	testcheck.Must(t, err)
	got := map[string]string{}
	for _, r := range res.Rejected {
		if _, dup := got[r.ID]; !dup {
			got[r.ID] = r.Cause
		}
	}
	for _, p := range res.Accepted {
		got[p.PairID] = "accepted"
	}
	want := map[string]string{
		"ok": CauseDuplicateID, "answer": "accepted", "answer-bad": CauseBlockCount, "badtype": CauseBadType, "parse": CauseParse,
		"two": CauseMethodCount, "local-class": CauseTypeDecl, "sig": CauseSignature, "same": CauseIdentical,
		"trivial": CausePairSimilar, "small": CauseSize, "sized": CauseSizeTarget, "seedlike": CauseSeedSimilar,
		"dup": CauseNearDup, "clone": CauseClone, "comments": "accepted",
	}
	// "ok" is accepted first and then rejected as a duplicate id.
	if res.Accepted[0].PairID != "ok" {
		t.Errorf("first accepted = %s, want ok", res.Accepted[0].PairID)
	}
	got["ok"] = ""
	for _, r := range res.Rejected {
		if r.ID == "ok" {
			got["ok"] = r.Cause
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("causes (-want +got):\n%s", d)
	}
	for _, p := range res.Accepted {
		if strings.Contains(p.FixedMethod, "//") || strings.Contains(p.FixedMethod, "/*") {
			t.Errorf("%s: comments not stripped:\n%s", p.PairID, p.FixedMethod)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", p.PairID, err)
		}
	}
	checkGolden(t, "gates.golden", res)
}

func checkGolden(t *testing.T, name string, res *Result) {
	t.Helper()
	out := struct {
		Summary    *Result       `json:"summary"`
		Accepted   []corpus.Pair `json:"accepted"`
		Rejections []Rejection   `json:"rejections"`
	}{res, res.Accepted, res.Rejected}
	got, err := json.MarshalIndent(out, "", "  ")
	testcheck.Must(t, err)
	golden.Check(t, filepath.Join("testdata", name), got)
}

func TestStripComments(t *testing.T) {
	src := "void f() {\n    // gone\n    int x = 1; // trailing\n    /* a\n       b */\n    int y = 2;\n}"
	p, rej := parseMethod(src)
	if rej != nil {
		t.Fatal(rej)
	}
	want := "void f() {\n    int x = 1;\n    int y = 2;\n}"
	if d := cmp.Diff(want, p.stripped); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestFilesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	res, err := Run(context.Background(), []corpus.Candidate{cand("a", corpus.NullPointer, longMethod("a", 5, false), longMethod("a", 5, true))}, nil, Options{})
	testcheck.Must(t, err)
	testcheck.Must(t, WriteOutputs(dir, res))
	b, err := os.ReadFile(filepath.Join(dir, PairsFile))
	if err != nil || !strings.Contains(string(b), `"pair_id":"a"`) {
		t.Fatalf("pairs.jsonl = %q, %v", b, err)
	}
	if _, err := ReadCandidates(filepath.Join(dir, "missing.jsonl")); err == nil {
		t.Fatal("want error for a missing candidates file")
	}
}

// TestAcceptedPairKeepsSource: a candidate mutated from a repository
// revision keeps repository, commit, path, method span, operator and seed
// as its pair's source; one from a plain corpus has none.
func TestAcceptedPairKeepsSource(t *testing.T) {
	npe := corpus.NullPointer
	real := cand("real", npe, longMethod("rho", 6, false), longMethod("rho", 6, true))
	real.Operator, real.ExampleBugIDs = "drop_null_guard", []string{"Lang-33"}
	real.Source = &corpus.CandidateSource{Repo: "apache/commons-lang", Commit: "abc", File: "src/main/java/A.java", Method: "A: int f()", StartLine: 10, EndLine: 16}
	plain := cand("plain", npe, longMethod("tau", 9, false), longMethod("tau", 9, true))
	plain.Source = &corpus.CandidateSource{File: "java.base/java/util/A.java"}
	res, err := Run(context.Background(), []corpus.Candidate{real, plain}, nil, Options{})
	testcheck.Must(t, err)
	if len(res.Accepted) != 2 {
		t.Fatalf("accepted %d, rejected %+v", len(res.Accepted), res.Rejected)
	}
	want := corpus.Source{Repo: "apache/commons-lang", Commit: "abc", Path: "src/main/java/A.java", Method: "A: int f()",
		Span: corpus.Span{Start: 10, End: 16}, Operator: "drop_null_guard", Seed: "Lang-33"}
	if s := res.Accepted[0].Source; s == nil || *s != want {
		t.Errorf("real pair source %+v, want %+v", s, want)
	}
	if s := res.Accepted[1].Source; s != nil {
		t.Errorf("plain corpus pair has source %+v", s)
	}
}

// TestMutationKeepsHostComments: a candidate with a source location (real
// host code an operator edited) keeps its comments; the same candidate
// without one (a model's) has them stripped (§4.3).
func TestMutationKeepsHostComments(t *testing.T) {
	fixed := "int f(String s) {\n    // count the characters\n    if (s == null) {\n        return 0;\n    }\n    int n = s.length();\n    return n;\n}"
	buggy := "int f(String s) {\n    // count the characters\n    int n = s.length();\n    return n;\n}"
	c := corpus.Candidate{ID: "m", ErrorType: "NullPointerException", Generator: "mutation/v2", BuggyMethod: buggy, FixedMethod: fixed,
		Source: &corpus.CandidateSource{File: "C.java", Method: "C: int f(String s)"}}
	llm := c
	llm.ID, llm.Source = "l", nil
	for _, tc := range []struct {
		c    corpus.Candidate
		want bool
	}{{c, true}, {llm, false}} {
		res, err := Run(context.Background(), []corpus.Candidate{tc.c}, nil, Options{MinLLOC: 1, NoClones: true})
		testcheck.Must(t, err)
		if len(res.Accepted) != 1 {
			t.Fatalf("%s: rejected: %+v", tc.c.ID, res.Rejected)
		}
		p := res.Accepted[0]
		if got := strings.Contains(p.BuggyMethod, "// count") && strings.Contains(p.FixedMethod, "// count"); got != tc.want {
			t.Errorf("%s: comments kept = %v, want %v:\n%s", tc.c.ID, got, tc.want, p.BuggyMethod)
		}
	}
}
