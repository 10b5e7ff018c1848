package mutation

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// TestSiteComments: the comments at the mutated statement (the run of
// comment lines above it and its trailing comment) are cut from both
// sides; the host's other comments stay, and a comment inside the edit is
// the edit's own.
func TestSiteComments(t *testing.T) {
	src := "class C {\n" +
		"    int f(String s) {\n" +
		"        // the length is cached below\n" +
		"        int n = 0;\n" +
		"\n" +
		"        // guard: s may be null here\n" +
		"        /* see issue 12 */\n" +
		"        if (s == null) { return -1; } // null check\n" +
		"        n = s.length(); // length\n" +
		"        return n;\n" +
		"    }\n" +
		"}\n"
	f, err := code.Parse(code.LangJava, "C.java", []byte(src))
	testcheck.Must(t, err)
	defer f.Close()
	start := strings.Index(src, "    int f")
	end := strings.LastIndex(src, "}\n}") + 1
	guard := strings.Index(src, "if (s == null)")
	guardEnd := guard + len("if (s == null) { return -1; }")
	edits := []Edit{{Start: guard, End: guardEnd, Text: ""}}
	cut := siteComments([]byte(src), commentSpans(f, start, end), edits)
	fixed, ok := withoutSiteComments([]byte(src), start, end, cut, nil)
	if !ok {
		t.Fatal("overlapping edits")
	}
	want := "    int f(String s) {\n" +
		"        // the length is cached below\n" +
		"        int n = 0;\n" +
		"\n" +
		"        if (s == null) { return -1; }\n" +
		"        n = s.length(); // length\n" +
		"        return n;\n" +
		"    }"
	if d := cmp.Diff(want, string(fixed)); d != "" {
		t.Errorf("fixed side (-want +got):\n%s", d)
	}
	buggy, ok := withoutSiteComments([]byte(src), start, end, cut, edits)
	if !ok {
		t.Fatal("overlapping edits")
	}
	if strings.Contains(string(buggy), "null") || !strings.Contains(string(buggy), "// the length is cached below") {
		t.Errorf("buggy side keeps a site comment or lost a host comment:\n%s", buggy)
	}
	// A comment inside the edited range is left to the edit.
	whole := []Edit{{Start: strings.Index(src, "        // guard"), End: guardEnd, Text: "x();"}}
	if got := siteComments([]byte(src), commentSpans(f, start, end), whole); len(got) != 1 || src[got[0].Start:got[0].End] != " // null check" {
		t.Errorf("cut %v around an edit that holds two comments, want only the trailing \" // null check\" (none across the blank line above)", got)
	}
}
