package jvm

import (
	"archive/zip"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// faultProject is commons-cli's shape at b0e1b80: Alpha needs Util,
// which compiles; Zeta needs Bad, whose dependency (org.absent, as
// TypeHandler's commons-lang) is not there. An on-demand build of Alpha
// and Zeta reads Bad through the source path, and javac then writes no
// class for Util. Alpha also imports a package whole that no class
// needs (mockito's shape), so its unit compiles only with the source
// path.
var faultProject = map[string]string{
	"src/org/det/Util.java": `package org.det;

public class Util {
    public static String strip(String s) {
        return s.startsWith("-") ? s.substring(1) : s;
    }
}
`,
	"src/org/det/Bad.java": `package org.det;

import org.absent.Missing;

public class Bad {
    public static int size(String s) {
        return Missing.size(s);
    }
}
`,
	"src/org/det/Alpha.java": `package org.det;

import org.det.extra.*;

public class Alpha {
    public int check(String opt) {
        String o = Util.strip(opt);
        if (o.isEmpty()) {
            throw new IllegalArgumentException("empty option");
        }
        return o.length();
    }
}
`,
	"src/org/det/extra/Unused.java": "package org.det.extra;\n\npublic class Unused {\n}\n",
	"src/org/det/Zeta.java": `package org.det;

public class Zeta {
    public int width(String s) {
        return Bad.size(s) + s.length();
    }
}
`,
}

// faultPairs are a pair of each of faultProject's two classes.
func faultPairs(commit string) []corpus.Pair {
	src := func(path string, start, end int) *corpus.Source {
		return &corpus.Source{Repo: "demo/det", Commit: commit, Path: path, Span: corpus.Span{Start: start, End: end}}
	}
	alpha := "    public int check(String opt) {\n        String o = Util.strip(opt);\n        if (o.isEmpty()) {\n            %s\n        }\n        return o.length();\n    }\n"
	return []corpus.Pair{
		{PairID: "alpha-1", ErrorType: corpus.IllegalArgument, Generator: "hand", Source: src("src/org/det/Alpha.java", 6, 12),
			BuggyMethod: strings.Replace(alpha, "%s", `throw new IllegalArgumentException("empty option");`, 1),
			FixedMethod: strings.Replace(alpha, "%s", "return 0;", 1)},
		{PairID: "zeta-1", ErrorType: corpus.NullPointer, Generator: "hand", Source: src("src/org/det/Zeta.java", 4, 6),
			BuggyMethod: "    public int width(String s) {\n        return Bad.size(s) + s.length();\n    }\n",
			FixedMethod: "    public int width(String s) {\n        return s == null ? 0 : Bad.size(s) + s.length();\n    }\n"},
	}
}

// TestVerifyVerdictsIndependentOfBatchAndCache runs faultProject's two
// pairs in one batch on a fresh build, then one pair a batch on the cached
// build: each pair's verdict must be the same. Before, Zeta's unit named
// Bad.java, which turned the source path off for the rest of the run, so
// Alpha compiled with it (batched first) or without it (batched with
// Zeta), and without it org.det.extra does not exist; and the build,
// stopped by Bad's errors, had no Util class. Now a layer that names a
// source-path file goes again one unit a layer, so Alpha keeps the
// source path, the build writes every class that compiles (Util
// included), and Alpha is confirmed by (c) in both; Zeta cannot compile
// in both.
func TestVerifyVerdictsIndependentOfBatchAndCache(t *testing.T) {
	opts := needJDK(t)
	commit := oneProject(t, &opts, "det", faultProject)
	verdicts := func(batch int) map[string]string {
		o := opts
		o.Batch = batch
		out := t.TempDir()
		if _, err := Run(context.Background(), faultPairs(commit), out, o); err != nil {
			t.Fatal(err)
		}
		recs, err := jsonl.ReadFile[Execution](filepath.Join(out, ExecutionsFile))
		testcheck.Must(t, err)
		got := map[string]string{}
		for _, e := range recs {
			got[e.PairID] = e.Status + " " + e.Reason
		}
		return got
	}
	together, apart := verdicts(2), verdicts(1)
	for _, id := range []string{"alpha-1", "zeta-1"} {
		if together[id] != apart[id] {
			t.Errorf("%s: %q in one batch on a fresh build, %q alone on the cached build; want one verdict", id, together[id], apart[id])
		}
	}
	if together["alpha-1"] != StatusConfirmed+" " {
		t.Errorf("alpha-1: %q, want confirmed (Util compiled by the build)", together["alpha-1"])
	}
	if !strings.HasPrefix(together["zeta-1"], StatusUnconfirmed+" cannot compile") {
		t.Errorf("zeta-1: %q, want cannot compile (Bad's dependency is absent)", together["zeta-1"])
	}
}

// TestBuildProjectCachedClasspath: a fresh build that read no jar and its
// cached copy give the pairs the same compile classpath, without the jar
// folder's jars (before, the fresh build's nil record meant every jar).
func TestBuildProjectCachedClasspath(t *testing.T) {
	opts := needJDK(t)
	gitDir, commit := gitProject(t, faultProject)
	jars := t.TempDir()
	writeJar(t, filepath.Join(jars, "unrelated.jar"), "org/other/readme.txt", "not a class")
	po := ProjectOptions{GitDir: gitDir, Commit: commit, Repo: "demo/det", JarDir: jars, CacheDir: t.TempDir(),
		Roots: []string{"src/org/det/Alpha.java", "src/org/det/Zeta.java"}}
	fresh, err := BuildProject(context.Background(), *opts.JDK, po)
	testcheck.Must(t, err)
	cached, err := BuildProject(context.Background(), *opts.JDK, po)
	testcheck.Must(t, err)
	if fresh.CompileClasspath() != cached.CompileClasspath() || strings.Contains(fresh.CompileClasspath(), "unrelated.jar") {
		t.Errorf("compile classpath: fresh %q, cached %q; want the same, without unrelated.jar", fresh.CompileClasspath(), cached.CompileClasspath())
	}
	if !slices.Equal(fresh.Dropped, cached.Dropped) || !slices.Contains(fresh.Dropped, filepath.FromSlash("org/det/Bad.java")) {
		t.Errorf("dropped: fresh %v, cached %v; want the same, with org/det/Bad.java", fresh.Dropped, cached.Dropped)
	}
	if _, err := os.Stat(filepath.Join(fresh.Classes, "org", "det", "Util.class")); err != nil {
		t.Errorf("the build wrote no Util class: %v", err)
	}
}

// writeJar writes a jar (a zip) holding one file.
func writeJar(t *testing.T, path, name, text string) {
	t.Helper()
	f, err := os.Create(path)
	testcheck.Must(t, err)
	z := zip.NewWriter(f)
	w, err := z.Create(name)
	testcheck.Must(t, err)
	_, err = w.Write([]byte(text))
	testcheck.Must(t, err)
	testcheck.Must(t, z.Close())
	testcheck.Must(t, f.Close())
}

// recvProject has a method of an abstract class whose only concrete
// subclass takes a Conf, whose constructor dereferences its Name: the
// receiver exists only as a subclass built through public constructors,
// each argument built the same way (a null Name fails in Conf's
// constructor, before the method runs).
var recvProject = map[string]string{
	"src/main/java/org/r/Name.java": "package org.r;\n\npublic class Name {\n    final String text;\n    public Name(String text) { this.text = text; }\n}\n",
	"src/main/java/org/r/Conf.java": "package org.r;\n\npublic class Conf {\n    private final int limit;\n    public Conf(Name n) { this.limit = n.text.length(); }\n    public int limit() { return limit; }\n}\n",
	"src/main/java/org/r/Impl.java": "package org.r;\n\npublic class Impl extends Base<String> {\n    public Impl(Conf c) { super(c); }\n}\n",
	"src/main/java/org/r/Base.java": `package org.r;

public abstract class Base<T> implements Comparable<Base<T>> {
    protected final Conf conf;

    protected Base(Conf conf) {
        this.conf = conf;
    }

    public int width(String s) {
        if (s.length() > conf.limit()) {
            throw new IllegalArgumentException("too long: " + s);
        }
        return s.length();
    }

    public int compareTo(Base<T> o) { return 0; }
}
`,
}

// TestVerifyAbstractReceiver: the method of an abstract class runs on a
// receiver built through its concrete subclass's public constructor (an
// on-demand build compiles the subclass, which no root names), with
// Conf and Name constructed rather than null; (c) holds for a string
// longer than the limit. Before, the worker's no-argument constructor of
// Base raised InstantiationException.
func TestVerifyAbstractReceiver(t *testing.T) {
	opts := needJDK(t)
	commit := oneProject(t, &opts, "recv", recvProject)
	head := "    public int width(String s) {\n        if (s.length() > conf.limit()) {\n"
	p := corpus.Pair{PairID: "recv-1", ErrorType: corpus.IllegalArgument, Generator: "hand",
		BuggyMethod: head + "            throw new IllegalArgumentException(\"too long: \" + s);\n        }\n        return s.length();\n    }\n",
		FixedMethod: head + "            return conf.limit();\n        }\n        return s.length();\n    }\n",
		Source:      &corpus.Source{Repo: "demo/recv", Commit: commit, Path: "src/main/java/org/r/Base.java", Span: corpus.Span{Start: 10, End: 15}}}
	e := verifyOne(t, p, opts)
	want := "(new org.r.Impl((org.r.Conf) (new org.r.Conf((org.r.Name) (new org.r.Name((java.lang.String) (\"abc\"))))))).width("
	if e.Status != StatusConfirmed || !strings.HasPrefix(inputOf(e.C), want) {
		t.Errorf("abstract receiver: status %s (%s), (c) %q; want confirmed on input starting %q", e.Status, e.Reason, inputOf(e.C), want)
	}
}

func TestSupertypes(t *testing.T) {
	for head, want := range map[string][]string{
		" extends Base<String> ":                                     {"Base"},
		"<T extends Number> extends a.b.Base<T> implements X, Y<T> ": {"Base", "X", "Y"},
		" implements Comparable<Base<T>> ":                           {"Comparable"},
		"<K, V> ":                                                    nil,
	} {
		if got := supertypes(head); !slices.Equal(got, want) {
			t.Errorf("supertypes(%q) = %q, want %q", head, got, want)
		}
	}
}

func TestWithIntLiterals(t *testing.T) {
	method := "int f(int i, String s) { if (i > 10 && s.equals(\"7\")) return 2.5 > i ? 0 : 1; return i; }"
	got := withIntLiterals([]string{"1", "0"}, "int", method)
	want := []string{"1", "0", "9", "10", "11"}
	if !slices.Equal(got, want) {
		t.Errorf("withIntLiterals(int) = %q, want %q (10's neighbours; not the string's 7, not 2.5)", got, want)
	}
	if got := withIntLiterals([]string{"1L"}, "Long", method); !slices.Equal(got, []string{"1L", "9L", "10L", "11L"}) {
		t.Errorf("withIntLiterals(Long) = %q", got)
	}
	if got := withIntLiterals([]string{`"abc"`}, "String", method); len(got) != 1 {
		t.Errorf("withIntLiterals(String) = %q, want unchanged", got)
	}
}

// TestReceiverCandidatesNested: a static nested class's receivers are
// its public constructors' values and a setter variant of the first
// (before, the setter's owner was looked up by its last name only, and
// a nested class's receiver panicked the run); an abstract class gets no
// default receiver.
func TestReceiverCandidatesNested(t *testing.T) {
	p := &Project{types: map[string]*typeInfo{
		"Outer.Counter": {Name: "org.n.Outer.Counter", Kind: "class", Ctors: [][]string{{"int"}},
			Setters: []apiMethod{{"setBase", []string{"int"}}}},
		"Shape":  {Name: "org.n.Shape", Kind: "class", Abstract: true},
		"Square": {Name: "org.n.Square", Kind: "class", Ctors: [][]string{{"int"}}},
	}, subtypes: subtypeScan{subs: map[string][]string{"Shape": {"Square"}}}}
	got := p.receiverCandidates("Outer.Counter")
	if len(got) < 3 || got[0] != "null" || got[1] != "new org.n.Outer.Counter((int) (1))" || !strings.HasPrefix(got[2], "bfWith(new org.n.Outer.Counter((int) (1)), x -> x.setBase(") {
		t.Errorf("nested receivers = %q, want null, the constructor, then a setter variant", got)
	}
	if got := p.receiverCandidates("Shape"); !slices.Equal(got, []string{"new org.n.Square((int) (1))"}) {
		t.Errorf("abstract receivers = %q, want the subclass's constructor only", got)
	}
}

// TestConstructibleNestedSubtype: an interface whose implementation is
// a class nested in it (jackson-core's InputAccessor.Std) is built
// through that class's constructor; a simple name two outer classes nest
// is ambiguous and builds nothing.
func TestConstructibleNestedSubtype(t *testing.T) {
	p := &Project{types: map[string]*typeInfo{
		"Accessor":     {Name: "org.n.Accessor", Kind: "interface", Abstract: true},
		"Accessor.Std": {Name: "org.n.Accessor.Std", Kind: "class", Ctors: [][]string{{"int"}}},
		"Codec":        {Name: "org.n.Codec", Kind: "interface", Abstract: true},
		"A.Impl":       {Name: "org.n.A.Impl", Kind: "class", Ctors: [][]string{{}}},
		"B.Impl":       {Name: "org.n.B.Impl", Kind: "class", Ctors: [][]string{{}}},
	}, subtypes: subtypeScan{subs: map[string][]string{"Accessor": {"Std"}, "Codec": {"Impl"}}}}
	if got := p.valuesOf("Accessor", 0); !slices.Contains(got, "new org.n.Accessor.Std((int) (1))") {
		t.Errorf("values of Accessor = %q, want the nested implementation's constructor", got)
	}
	if got := p.valuesOf("Codec", 0); len(got) != 1 || got[0] != "null" {
		t.Errorf("values of Codec = %q, want null alone (Impl is nested in A and in B)", got)
	}
}

// TestReceiverCandidatesAscending: a constructor with two or more
// numeric bounds also gets them ascending, since one value for all
// breaks a lower < upper precondition; a string parameter keeps its
// ordinary value, and one numeric parameter gets no second value.
func TestReceiverCandidatesAscending(t *testing.T) {
	p := &Project{types: map[string]*typeInfo{
		"Tri": {Name: "org.n.Tri", Kind: "class", Ctors: [][]string{{"double", "String", "int", "long"}}},
		"One": {Name: "org.n.One", Kind: "class", Ctors: [][]string{{"int", "String"}}},
	}}
	want := []string{"null",
		`new org.n.Tri((double) (1.5), (String) "abc", (int) (1), (long) (1L))`,
		`new org.n.Tri((double) (1.5), (String) "abc", (int) (2), (long) (3L))`}
	if got := p.receiverCandidates("Tri"); !slices.Equal(got, want) {
		t.Errorf("receivers = %q\nwant %q", got, want)
	}
	if got := p.receiverCandidates("One"); len(got) != 2 {
		t.Errorf("one numeric parameter: receivers = %q, want null and the ordinary constructor", got)
	}
}

// TestVerifyAbstractReceiverNone: an abstract class no concrete class
// extends has no receiver the search can build; the record says so, in
// place of the worker's bare InstantiationException, and counts the
// one input tried.
func TestVerifyAbstractReceiverNone(t *testing.T) {
	opts := needJDK(t)
	src := "package org.r;\n\npublic abstract class Lone {\n    public int width(String s) {\n        return s.length();\n    }\n}\n"
	commit := oneProject(t, &opts, "lone", map[string]string{"src/main/java/org/r/Lone.java": src})
	p := corpus.Pair{PairID: "lone-1", ErrorType: corpus.NullPointer, Generator: "hand",
		BuggyMethod: "    public int width(String s) {\n        return s.length();\n    }\n",
		FixedMethod: "    public int width(String s) {\n        return s == null ? 0 : s.length();\n    }\n",
		Source:      &corpus.Source{Repo: "demo/lone", Commit: commit, Path: "src/main/java/org/r/Lone.java", Span: corpus.Span{Start: 4, End: 6}}}
	e := verifyOne(t, p, opts)
	if e.Status != StatusUnconfirmed || !strings.HasPrefix(e.Reason, "harness error: no receiver: the method's class is abstract") {
		t.Errorf("status %s, reason %q; want unconfirmed for want of a receiver", e.Status, e.Reason)
	}
	if e.Outcomes["harness_error"] != 1 || e.InputsTried != 1 {
		t.Errorf("outcomes %v after %d inputs, want one harness error", e.Outcomes, e.InputsTried)
	}
}

// TestReceiverArgArray: the harness-added constructor passes an empty
// array where the element would be a guessed default instance (an
// interface: `new Predicate[]{new Predicate()}` does not compile), and
// keeps the ordinary array otherwise.
func TestReceiverArgArray(t *testing.T) {
	p := &Project{types: map[string]*typeInfo{}}
	if got := receiverArg(p, "Predicate[]"); got != "new Predicate[0]" {
		t.Errorf("receiverArg(Predicate[]) = %q, want an empty array", got)
	}
	if got := receiverArg(p, "int[]"); strings.HasSuffix(got, "[0]") {
		t.Errorf("receiverArg(int[]) = %q, want the ordinary array", got)
	}
}

// TestVerifyObjectParamOwnClass: an Object parameter also gets a value
// of the method's own class, built through its public constructor, so a
// method that only works on its own type (equals, compareTo, diff) runs
// past its type test; none of the JDK values ("abc", 1, new Object()) is
// a Box, so before, the lenient branch was never reached.
func TestVerifyObjectParamOwnClass(t *testing.T) {
	opts := needJDK(t)
	head := "    public int diff(Object o) {\n        if (!(o instanceof Box)) {\n            return -1;\n        }\n        Box b = (Box) o;\n        if (b.size == size) {\n"
	tail := "        }\n        return b.size - size;\n    }\n"
	fixed := head + "            return 0;\n" + tail
	src := "package org.b;\n\npublic class Box {\n    private final int size;\n    public Box(int size) { this.size = size; }\n" + fixed + "}\n"
	commit := oneProject(t, &opts, "box", map[string]string{"src/main/java/org/b/Box.java": src})
	p := corpus.Pair{PairID: "box-1", ErrorType: corpus.IllegalArgument, Generator: "hand",
		BuggyMethod: head + "            throw new IllegalArgumentException(\"same size\");\n" + tail, FixedMethod: fixed,
		Source: &corpus.Source{Repo: "demo/box", Commit: commit, Path: "src/main/java/org/b/Box.java", Span: corpus.Span{Start: 6, End: 15}}}
	e := verifyOne(t, p, opts)
	if e.Status != StatusConfirmed || !strings.Contains(inputOf(e.C), "new org.b.Box(") {
		t.Errorf("status %s (%s), (c) %q; want confirmed on a Box argument", e.Status, e.Reason, inputOf(e.C))
	}
}
