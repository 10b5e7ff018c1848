package seeds

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/benchforge/benchforge/internal/diff"
	"github.com/benchforge/benchforge/internal/gitrepo/gittest"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// demoClass renders class BugN with the given field line and the bodies of
// len(String) (its statements, the line with "return s.length();" at line
// 8 when body is one line) and other().
func demoClass(n int, field, lenSig, lenBody, otherBody, doc string) string {
	return fmt.Sprintf(`package demo;

public class Bug%d {
    %s

    /** %s */
    %s {
        %s
    }

    public int other() {
        %s
    }
}
`, n, field, doc, lenSig, lenBody, otherBody)
}

const (
	plainSig   = "public int len(String s)"
	plainBody  = "return s.length();"
	guardBody  = "if (s == null) { return 0; } return s.length();"
	otherPlain = "return count;"
	otherFixed = "return count + 1;"
)

// demoBugs are the buggy and fixed versions of demo/BugN.java, one per
// F3/F4 scenario; bug 8's commit is missing from the repository; bugs 9 and
// 10 fail F1 and F2 before the repository is read.
var demoBugs = []struct{ buggy, fixed string }{
	1: {demoClass(1, "private int count;", plainSig, plainBody, otherPlain, "Length."),
		demoClass(1, "private int count;", plainSig, guardBody, otherPlain, "Length.")},
	2: {demoClass(2, "private int count;", plainSig, plainBody, otherPlain, "Length."),
		demoClass(2, "private int count = 1;", plainSig, guardBody, otherPlain, "Length.")},
	3: {demoClass(3, "private int count;", plainSig, plainBody, otherPlain, "Length."),
		demoClass(3, "private int count;", "public int len(final String s)", plainBody, otherPlain, "Length.")},
	4: {demoClass(4, "private int count;", plainSig, "// may be null\n        return s.length();", otherPlain, "Length."),
		demoClass(4, "private int count;", plainSig, "// never null here\n        return s.length();", otherPlain, "Length of s, never null.")},
	5: {demoClass(5, "private int count;", plainSig, plainBody, otherPlain, "Length."),
		demoClass(5, "private int count;", plainSig, guardBody, otherFixed, "Length.")},
	6: {`package demo;

public class Bug6 {
    private int age;

    public void setAge(int age) {
        this.age = Registry.store(age);
    }
}
`, `package demo;

public class Bug6 {
    private int age;

    public void setAge(int age) {
        if (age < 0) {
            throw new IllegalArgumentException("negative age");
        }
        this.age = Registry.store(age);
    }
}
`},
	7: {`package demo;

public class Bug7 {
    private int base;

    /** Parses s. */
    public int parse(String s) {
        if (s.isEmpty()) {
            throw new IllegalArgumentException("empty");
        }
        return base + s.length();
    }
}
`, `package demo;

public class Bug7 {
    private int base;

    /** Parses s. */
    public int parse(String s) {
        if (s.isEmpty()) {
            return base;
        }
        return base + s.length();
    }
}
`},
	8: {demoClass(8, "private int count;", plainSig, plainBody, otherPlain, "Length."),
		demoClass(8, "private int count;", plainSig, guardBody, otherPlain, "Length.")},
}

// buildDemo builds the Demo project's repository and a Defects4J layout for
// it (copied from testdata/extract/Demo, with active-bugs.csv,
// dir-layout.csv and the src.patch files written from the repository's
// commits). It returns the layout root and the directory to pass as
// --repos (holding Demo/, the repository).
//
// The fixture is built once per test binary (in fixtureRoot, removed by
// TestMain) and must not be modified by tests.
func buildDemo(t testing.TB) (d4j, repos string) {
	t.Helper()
	demoOnce.Do(func() {
		demoD4J, demoRepos = buildDemoIn(t, filepath.Join(fixtureRoot, "demo"))
	})
	if demoD4J == "" {
		t.Fatal("demo fixture failed to build in an earlier test")
	}
	return demoD4J, demoRepos
}

var (
	fixtureRoot        string
	demoOnce           sync.Once
	demoD4J, demoRepos string
)

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "seeds-extract-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fixtureRoot = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func buildDemoIn(t testing.TB, root string) (d4j, repos string) {
	t.Helper()
	repos = filepath.Join(root, "repos")
	repoDir := filepath.Join(repos, "Demo")
	testcheck.Must(t, os.MkdirAll(repoDir, 0o755))
	b := gittest.NewIn(t, repoDir)
	d4j = filepath.Join(root, "d4j")
	proj := filepath.Join(d4j, "Demo")
	copyDir(t, filepath.Join("testdata", "extract", "Demo"), proj)
	testcheck.Must(t, os.MkdirAll(filepath.Join(proj, "patches"), 0o755))
	active := []string{"bug.id,revision.id.buggy,revision.id.fixed,report.id,report.url"}
	var layout []string
	for n := 1; n <= 10; n++ {
		path := fmt.Sprintf("src/main/java/demo/Bug%d.java", n)
		buggy, fixed := "class Placeholder {}\n", "class Placeholder { int x; }\n"
		if n < len(demoBugs) {
			buggy, fixed = demoBugs[n].buggy, demoBugs[n].fixed
		}
		b.Write(path, buggy)
		bc := b.Commit(fmt.Sprintf("bug %d", n), gittest.Date(2020, 1, n))
		b.Write(path, fixed)
		fc := b.Commit(fmt.Sprintf("fix %d", n), gittest.Date(2020, 2, n))
		if n == 8 {
			bc, fc = strings.Repeat("ab", 20), strings.Repeat("cd", 20)
		}
		active = append(active, fmt.Sprintf("%d,%s,%s,DEMO-%d,", n, bc, fc, n))
		layout = append(layout, bc+",src/main/java,src/test/java", fc+",src/main/java,src/test/java")
		p := diff.Unified("a/"+path, "b/"+path, []byte(fixed), []byte(buggy), 3).String()
		writeFile(t, filepath.Join(proj, "patches", fmt.Sprintf("%d.src.patch", n)), p)
	}
	writeFile(t, filepath.Join(proj, "active-bugs.csv"), strings.Join(active, "\n")+"\n")
	writeFile(t, filepath.Join(proj, "dir-layout.csv"), strings.Join(layout, "\n")+"\n")
	return d4j, repos
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	testcheck.Must(t, os.WriteFile(path, []byte(content), 0o644))
}

func copyDir(t testing.TB, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	testcheck.Must(t, err)
}
