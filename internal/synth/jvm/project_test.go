package jvm

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// demoProject is a two-class project: Shelf's method reads a
// package-private field of Book and a private field of its own, so it
// compiles only in its real class against the project (no stub can give
// Book.title a value the method's logic needs), and its parameter type
// Book is built through its public constructor and setter.
var demoProject = map[string]string{
	"src/main/java/org/demo/Book.java": `package org.demo;

/** A book. */
public class Book {
    String title;
    private int pages;

    public Book(String title) {
        this.title = title;
    }

    public void setTitle(String title) {
        this.title = title;
    }
}
`,
	"src/main/java/org/demo/Shelf.java": `package org.demo;

import java.util.List;
import java.util.ArrayList;

/** A shelf of books. */
public class Shelf {
    private final List<Book> books = new ArrayList<>();
    private final String name;

    public Shelf(String name) {
        this.name = name;
    }

    public int titleLength(Book b) {
        if (b == null) {
            return 0;
        }
        return (b.title == null ? 0 : b.title.length()) + name.length();
    }
}
`,
	"LICENSE": "Apache License\nVersion 2.0, January 2004\n",
	// A test tree that does not compile must not matter.
	"src/test/java/org/demo/ShelfTest.java": "package org.demo; class ShelfTest { broken",
}

// demoGit commits demoProject into a fresh repository with fixed
// identities and dates and returns its git dir and commit.
func demoGit(t *testing.T) (string, string) {
	t.Helper()
	return gitProject(t, demoProject)
}

// gitProject commits files into a fresh repository and returns its git
// dir and commit.
func gitProject(t *testing.T, files map[string]string) (string, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		testcheck.Must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		testcheck.Must(t, os.WriteFile(p, []byte(text), 0o644))
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
			"GIT_AUTHOR_DATE=2020-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2020-01-01T00:00:00Z",
			"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "demo")
	return filepath.Join(dir, ".git"), git("rev-parse", "HEAD")
}

// demoPair is Shelf.titleLength without its title guard: the buggy method
// dereferences b.title, which only a Book whose title the setter set to
// null holds (a null argument is guarded on both sides).
func demoPair(commit string) corpus.Pair {
	fixed := `    public int titleLength(Book b) {
        if (b == null) {
            return 0;
        }
        return (b.title == null ? 0 : b.title.length()) + name.length();
    }
`
	buggy := `    public int titleLength(Book b) {
        if (b == null) {
            return 0;
        }
        return b.title.length() + name.length();
    }
`
	return corpus.Pair{PairID: "demo-1", ErrorType: corpus.NullPointer, BuggyMethod: buggy, FixedMethod: fixed, Generator: "hand",
		Source: &corpus.Source{Repo: "demo/shelf", Commit: commit, Path: "src/main/java/org/demo/Shelf.java", Span: corpus.Span{Start: 15, End: 20}}}
}

func TestBuildProject(t *testing.T) {
	opts := needJDK(t)
	gitDir, commit := demoGit(t)
	p, err := BuildProject(context.Background(), *opts.JDK, ProjectOptions{GitDir: gitDir, Commit: commit, Repo: "demo/shelf", CacheDir: t.TempDir()})
	testcheck.Must(t, err)
	if p.Files != 2 || p.Compiled != 2 || len(p.Dropped) != 0 || !strings.HasSuffix(p.SrcRoot, filepath.FromSlash("src/main/java")) {
		t.Errorf("build: root %s, %d files, %d compiled, dropped %v; want src/main/java, 2, 2, none", p.SrcRoot, p.Files, p.Compiled, p.Dropped)
	}
	book := p.lookup("Book")
	if book == nil || len(book.Ctors) != 1 || len(book.Setters) != 1 || book.Setters[0].Name != "setTitle" {
		t.Fatalf("Book API = %+v, want one public constructor and setTitle", book)
	}
	got := p.realCandidates("Book", 0)
	want := []string{`new org.demo.Book((java.lang.String) ("abc"))`, "null", `bfWith(new org.demo.Book((java.lang.String) ("abc")), x -> x.setTitle((java.lang.String) null))`}
	if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		t.Fatalf("Book candidates = %q, want to start %q", got, want)
	}
}

// TestVerifyProjectMode runs the demo pair against its project (found
// by repository and commit under a repos directory): it compiles in its
// real class and is confirmed by (c), through a Book whose title the
// setter set to null. Stub-only mode cannot reach the package-private
// field and the private one the same way.
func TestVerifyProjectMode(t *testing.T) {
	opts := needJDK(t)
	gitDir, commit := demoGit(t)
	repos := t.TempDir()
	testcheck.Must(t, os.Symlink(gitDir, filepath.Join(repos, "demo__shelf.git")))
	opts.Projects = &ProjectSource{Repos: repos, CacheDir: t.TempDir()}
	out := t.TempDir()
	s, err := Run(context.Background(), []corpus.Pair{demoPair(commit)}, out, opts)
	testcheck.Must(t, err)
	recs, err := jsonl.ReadFile[Execution](filepath.Join(out, ExecutionsFile))
	if err != nil || len(recs) != 1 {
		t.Fatalf("records %v, %v", recs, err)
	}
	e := recs[0]
	if !e.Compile.OK || e.Status != StatusConfirmed || !strings.Contains(inputOf(e.C), "setTitle") {
		t.Fatalf("project mode: %+v; want compiled and confirmed through setTitle(null)", e)
	}
	if len(s.Builds) != 1 || s.Builds[0].Compiled != 2 || s.Builds[0].Error != "" {
		t.Errorf("builds = %+v, want one clean build of 2 files", s.Builds)
	}
}

func TestProjectFlagAndRepoLookup(t *testing.T) {
	dir := t.TempDir()
	if d, _, _, err := ParseProjectFlag(dir); err != nil || d != dir {
		t.Errorf("ParseProjectFlag(dir) = %q, %v", d, err)
	}
	if _, r, c, err := ParseProjectFlag("apache/commons-cli@abc123"); err != nil || r != "apache/commons-cli" || c != "abc123" {
		t.Errorf("ParseProjectFlag(repo@rev) = %q %q %v", r, c, err)
	}
	_, _, _, err := ParseProjectFlag("no-such-dir")
	testcheck.ErrSays(t, "ParseProjectFlag(bad), want the remedy", err, "REPO@REV")
	_, err = FindGitDir(dir, "apache/commons-cli")
	testcheck.ErrSays(t, "FindGitDir on an empty dir, want not found naming the repo", err, "commons-cli")
}

// linkProject's Node passes itself to a Visitor taking a Node and casts
// to Node: the method compiles only in a class that is Node, not in a
// renamed copy of it.
var linkProject = map[string]string{
	"src/org/link/Visitor.java": `package org.link;

public class Visitor {
    public int visit(Node n) { return 1; }
}
`,
	"src/org/link/Node.java": `package org.link;

public class Node {
    public int first(String s) {
        Node self = (Node) (Object) this;
        return new Visitor().visit(self) + s.length();
    }

    public int second(String s) {
        return new Visitor().visit(this) + s.length();
    }
}
`,
}

// TestVerifyRealNameLinks runs two pairs of one class in one batch: each
// side compiles under the real name Node (the two pairs' four sides in
// separate javac layers), and each is confirmed by (c) with a null string.
func TestVerifyRealNameLinks(t *testing.T) {
	opts := needJDK(t)
	commit := oneProject(t, &opts, "link", linkProject)
	pair := func(id, name string, start, end int, self string) corpus.Pair {
		head := "    public int " + name + "(String s) {\n"
		body := self + "        return new Visitor().visit(" + map[bool]string{true: "self", false: "this"}[self != ""] + ")"
		return corpus.Pair{PairID: id, ErrorType: corpus.NullPointer, Generator: "hand",
			BuggyMethod: head + body + " + s.length();\n    }\n",
			FixedMethod: head + body + " + (s == null ? 0 : s.length());\n    }\n",
			Source:      &corpus.Source{Repo: "demo/link", Commit: commit, Path: "src/org/link/Node.java", Span: corpus.Span{Start: start, End: end}}}
	}
	pairs := []corpus.Pair{
		pair("link-1", "first", 4, 7, "        Node self = (Node) (Object) this;\n"),
		pair("link-2", "second", 9, 11, ""),
	}
	out := t.TempDir()
	if _, err := Run(context.Background(), pairs, out, opts); err != nil {
		t.Fatal(err)
	}
	recs, err := jsonl.ReadFile[Execution](filepath.Join(out, ExecutionsFile))
	if err != nil || len(recs) != 2 {
		t.Fatalf("records %v, %v", recs, err)
	}
	for _, e := range recs {
		if !e.Compile.OK || e.C == nil || e.C.Input != e.Method+"(null)" {
			t.Errorf("%s: compile %+v, status %s (%s), (c) %+v; want compiled and confirmed with null", e.PairID, e.Compile, e.Status, e.Reason, e.C)
		}
	}
}

// nestedProject has an instance method in a static nested class whose
// only constructor takes an argument: the receiver needs the added
// no-argument constructor inside the nested class.
var nestedProject = map[string]string{
	"src/main/java/org/nest/Outer.java": `package org.nest;

public class Outer {
    public static class Counter {
        private final int base;
        public Counter(int base) { this.base = base; }
        public int count(String s) {
            return base + s.length();
        }
    }
}
`,
}

// TestVerifyStaticNestedReceiver: the method of a static nested class
// without a no-argument constructor runs on a receiver built through its
// real constructor (before, the worker found no constructor and the
// search stopped at a harness error).
func TestVerifyStaticNestedReceiver(t *testing.T) {
	opts := needJDK(t)
	commit := oneProject(t, &opts, "nest", nestedProject)
	p := corpus.Pair{PairID: "nest-1", ErrorType: corpus.NullPointer, Generator: "hand",
		BuggyMethod: "        public int count(String s) {\n            return base + s.length();\n        }\n",
		FixedMethod: "        public int count(String s) {\n            return base + (s == null ? 0 : s.length());\n        }\n",
		Source:      &corpus.Source{Repo: "demo/nest", Commit: commit, Path: "src/main/java/org/nest/Outer.java", Span: corpus.Span{Start: 7, End: 9}}}
	if e := verifyOne(t, p, opts); !e.Compile.OK || e.Status != StatusConfirmed || inputOf(e.C) != "count(null)" {
		t.Errorf("nested receiver: compile %+v, status %s (%s), (c) %+v; want confirmed with count(null)", e.Compile, e.Status, e.Reason, e.C)
	}
}
