package jvm

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
)

func TestVariantMethod(t *testing.T) {
	src := "    @Override\n    public int depth(Node n) {\n        if (n == null) return 0;\n" +
		"        return 1 + depth(n.next) + this.depth(n.next) + other.depth(n);\n    }\n"
	got, err := variantMethod(src, "depth", "depth$bf3B", true)
	testcheck.Must(t, err)
	want := "             \n    public int depth$bf3B(Node n) {\n        if (n == null) return 0;\n" +
		"        return 1 + depth$bf3B(n.next) + this.depth$bf3B(n.next) + other.depth(n);\n    }\n"
	if got != want {
		t.Errorf("variant =\n%s\nwant\n%s", got, want)
	}
	// With an overload in the class the calls stay on the original name.
	got, err = variantMethod(src, "depth", "depth$bf3B", false)
	testcheck.Must(t, err)
	if strings.Count(got, "depth$bf3B") != 1 || strings.Count(got, "\n") != strings.Count(src, "\n") {
		t.Errorf("variant without self renames = %q", got)
	}
	if _, err := variantMethod(src, "width", "width$bf3B", true); err == nil {
		t.Error("variant of a method the text does not declare: no error")
	}
}

// variantProject is one ISO-8859-1 file (its pom says so, and a comment
// holds a byte that is not UTF-8) with a recursive method and a method in
// a nested enum: three pairs share it as one unit.
var variantProject = map[string]string{
	"pom.xml": "<project><properties><project.build.sourceEncoding>ISO-8859-1</project.build.sourceEncoding></properties></project>\n",
	"src/main/java/org/var/Chain.java": "package org.var;\n\n" +
		"// \xa9 the authors\n" +
		"public class Chain {\n" +
		"    public static int depth(String[] parts, int i) {\n" +
		"        if (i >= parts.length) {\n" +
		"            return 0;\n" +
		"        }\n" +
		"        return (parts[i] == null ? 0 : parts[i].length()) + depth(parts, i + 1);\n" +
		"    }\n\n" +
		"    public enum Kind {\n" +
		"        A, B;\n" +
		"        public static int width(String s) {\n" +
		"            return s == null ? 0 : s.length();\n" +
		"        }\n" +
		"    }\n" +
		"}\n",
}

// TestVerifyVariantsShareFile: the three pairs of one file compile in one
// unit. The recursive method's bug shows only in its recursive call, so
// the variant's call to itself must reach the variant; the enum method's
// variant goes into the enum; the pair whose buggy method does not
// compile fails alone. Frames name the real method at its real line.
func TestVerifyVariantsShareFile(t *testing.T) {
	opts := needJDK(t)
	commit := oneProject(t, &opts, "var", variantProject)
	src := func(start, end int) *corpus.Source {
		return &corpus.Source{Repo: "demo/var", Commit: commit, Path: "src/main/java/org/var/Chain.java", Span: corpus.Span{Start: start, End: end}}
	}
	depth := func(ret string) string {
		return "    public static int depth(String[] parts, int i) {\n        if (i >= parts.length) {\n            return 0;\n        }\n" +
			"        return " + ret + " + depth(parts, i + 1);\n    }\n"
	}
	width := func(ret string) string {
		return "        public static int width(String s) {\n            return " + ret + ";\n        }\n"
	}
	pairs := []corpus.Pair{
		{PairID: "var-rec", ErrorType: corpus.NullPointer, Generator: "hand", Source: src(5, 10),
			BuggyMethod: depth("(i > 0 ? parts[i].length() : 0)"), FixedMethod: depth("(parts[i] == null ? 0 : parts[i].length())")},
		{PairID: "var-enum", ErrorType: corpus.NullPointer, Generator: "hand", Source: src(14, 16),
			BuggyMethod: width("s.length()"), FixedMethod: width("s == null ? 0 : s.length()")},
		{PairID: "var-broken", ErrorType: corpus.NullPointer, Generator: "hand", Source: src(14, 16),
			BuggyMethod: width("s.lenght()"), FixedMethod: width("s == null ? 0 : s.length()")},
	}
	out := t.TempDir()
	if _, err := Run(context.Background(), pairs, out, opts); err != nil {
		t.Fatal(err)
	}
	recs, err := jsonl.ReadFile[Execution](filepath.Join(out, ExecutionsFile))
	if err != nil || len(recs) != 3 {
		t.Fatalf("records %v, %v", recs, err)
	}
	by := map[string]Execution{}
	for _, e := range recs {
		by[e.PairID] = e
	}
	rec := by["var-rec"]
	if rec.Status != StatusConfirmed || rec.C == nil || rec.C.Buggy.Line != 5 || !strings.HasSuffix(rec.C.Buggy.Frame, "org.var.Chain.depth:9") {
		t.Errorf("recursive pair: %s (%s), (c) %+v; want confirmed at method line 5, frame Chain.depth:9", rec.Status, rec.Reason, rec.C)
	}
	if e := by["var-enum"]; e.Status != StatusConfirmed || inputOf(e.C) != "width(null)" || !strings.HasSuffix(e.C.Buggy.Frame, "Chain$Kind.width:15") {
		t.Errorf("enum pair: %s (%s), (c) %+v; want confirmed with width(null) at Chain$Kind.width:15", e.Status, e.Reason, e.C)
	}
	if e := by["var-broken"]; e.Compile.OK || !strings.Contains(e.Compile.Reason, "buggy method line 2") {
		t.Errorf("broken pair: compile %+v; want a failure at buggy method line 2", e.Compile)
	}
}
