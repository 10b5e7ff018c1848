package jvm

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// deepProject has an abstract Base whose Javadoc says "class for", an
// abstract Mid between it and its only concrete class, Mid.Impl (nested,
// as jackson-databind's DefaultDeserializationContext.Impl), and a
// second class named Base in another package.
var deepProject = map[string]string{
	"src/main/java/org/q/Base.java": `package org.q;

/**
 * The base class for widths; see {@link Mid}.
 */
public abstract class Base {
    public int width(String s) {
        if (s.length() > 3) {
            throw new IllegalArgumentException("too long: " + s);
        }
        return s.length();
    }
}
`,
	"src/main/java/org/q/Mid.java": `package org.q;

// A class for "class Fake extends Base {" text in a comment and a string.
public abstract class Mid extends Base {
    static final String S = "class Fake extends Base {";

    public static class Impl extends Mid {
        public Impl(int n) {
        }
    }
}
`,
	"src/main/java/org/q/other/Base.java": `package org.q.other;

public class Base {
    public Base(String name) {
    }
}
`,
}

// TestScanSubtypesDeep: comments and literals declare nothing, an
// abstract class between a type and its concrete classes is looked
// through, and subtypes carry their full names.
func TestScanSubtypesDeep(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for rel, text := range deepProject {
		f := filepath.Join(dir, filepath.FromSlash(rel))
		testcheck.Must(t, os.MkdirAll(filepath.Dir(f), 0o755))
		testcheck.Must(t, os.WriteFile(f, []byte(text), 0o644))
		files = append(files, f)
	}
	sc := scanSubtypes(files)
	if got := sc.concreteSubtypes("Base"); !slices.Equal(got, []string{"org.q.Mid.Impl"}) {
		t.Errorf("concrete subtypes of Base = %q, want [org.q.Mid.Impl] (through the abstract Mid; no Fake from the comment or the string)", got)
	}
	if got := string(blankCommentsAndLiterals([]byte(`a /* b */ "c\"d" 'e' // f` + "\ng"))); got != `a         "    " ' '     `+"\ng" {
		t.Errorf("blankCommentsAndLiterals = %q", got)
	}
}

// TestVerifyDeepAbstractReceiver: the method of an abstract class whose
// only concrete subclass is nested in an abstract subclass runs on that
// subclass, and the other package's Base does not stand in for it.
// Before, the Javadoc's "class for" swallowed the declaration, Mid (as
// abstract) ended the search, and the record was "no receiver"; and a
// receiver looked up by its simple name could be the other Base ("is
// not a").
func TestVerifyDeepAbstractReceiver(t *testing.T) {
	opts := needJDK(t)
	commit := oneProject(t, &opts, "deep", deepProject)
	head := "    public int width(String s) {\n        if (s.length() > 3) {\n"
	p := corpus.Pair{PairID: "deep-1", ErrorType: corpus.IllegalArgument, Generator: "hand",
		BuggyMethod: head + "            throw new IllegalArgumentException(\"too long: \" + s);\n        }\n        return s.length();\n    }\n",
		FixedMethod: head + "            return 3;\n        }\n        return s.length();\n    }\n",
		Source:      &corpus.Source{Repo: "demo/deep", Commit: commit, Path: "src/main/java/org/q/Base.java", Span: corpus.Span{Start: 7, End: 12}}}
	e := verifyOne(t, p, opts)
	if want := "(new org.q.Mid.Impl((int) (1))).width("; e.Status != StatusConfirmed || !strings.HasPrefix(inputOf(e.C), want) {
		t.Errorf("status %s (%s), (c) %q; want confirmed on input starting %q", e.Status, e.Reason, inputOf(e.C), want)
	}
}
