package mutation

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/generate"
	"github.com/benchforge/benchforge/internal/testcheck"
)

func TestClassifyFix(t *testing.T) {
	tests := []struct{ name, buggy, fixed, want string }{
		{"null guard", "int f(String s) { return s.length(); }", "int f(String s) { if (s == null) return 0; return s.length(); }", FixNullGuard},
		{"bounds", "int f(int[] a, int i) { return a[i]; }", "int f(int[] a, int i) { if (i >= a.length) return 0; return a[i]; }", FixBoundsCheck},
		{"comparison", "int f(int[] a) { int s = 0; for (int i = 0; i <= n; i++) s += a[i]; return s; }", "int f(int[] a) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }", FixComparison},
		{"index", "int f(int[] a) { return a[n]; }", "int f(int[] a) { return a[n - 1]; }", FixIndexLength},
		{"nfe", "int f(String s) { return Integer.parseInt(s); }", "int f(String s) { try { return Integer.parseInt(s); } catch (NumberFormatException e) { return 0; } }", FixCatchNFE},
		{"instanceof", "int f(Object o) { return ((String) o).length(); }", "int f(Object o) { return o instanceof String ? ((String) o).length() : 0; }", FixInstanceof},
		{"removed throw", "void f(int n) { if (n < 0) throw new IllegalArgumentException(); size = n; }", "void f(int n) { if (n < 0) n = 0; size = n; }", FixRemoveThrow},
		{"other", "int f() { return a(); }", "int f() { return b(); }", FixOther},
		{"parse guard", "int f(String s) { return Integer.parseInt(s); }", "int f(String s) { if (s.isEmpty()) return 0; return Integer.parseInt(s); }", FixParseGuard},
		{"state check", "String f(Matcher m) { m.find(); return m.group(); }", "String f(Matcher m) { if (!m.find()) return null; return m.group(); }", FixStateCheck},
		{"unparsable", "int f( {", "int f() {}", FixUnparsable},
	}
	for _, tt := range tests {
		if got := ClassifyFix(tt.buggy, tt.fixed); got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, got, tt.want)
		}
	}
	pcs := MinePatterns([]corpus.Seed{
		{BugID: "A-1", Exception: corpus.NullPointer, BuggyMethod: tests[0].buggy, FixedMethod: tests[0].fixed},
		{BugID: "A-2", Exception: corpus.NullPointer, BuggyMethod: tests[0].buggy, FixedMethod: tests[0].fixed},
		{BugID: "B-1", Exception: corpus.IllegalArgument, BuggyMethod: tests[6].buggy, FixedMethod: tests[6].fixed},
	})
	want := []PatternCount{
		{Type: corpus.NullPointer, Pattern: FixNullGuard, Count: 2, BugIDs: []string{"A-1", "A-2"}, Operators: []string{"remove_null_guard"}},
		{Type: corpus.IllegalArgument, Pattern: FixRemoveThrow, Count: 1, BugIDs: []string{"B-1"}, Operators: []string{"throw_on_lenient_argument"}},
	}
	if d := cmp.Diff(want, pcs); d != "" {
		t.Errorf("MinePatterns (-want +got):\n%s", d)
	}
}

// fixtureFiles are the sources of fixtureCorpus, by path.
var fixtureFiles = map[string]string{
	"p/A.java": `package p;
public class A {
    private boolean closed;
    public int len(String s) {
        if (s == null) {
            return 0;
        }
        return s.length();
    }
    public int parse(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        System.out.println("closed");
    }
}
`,
	"p/B.java": `package p;
public class B {
    public boolean equals(Object o) {
        if (!(o instanceof B)) {
            return false;
        }
        B b = (B) o;
        return b.hashCode() == hashCode();
    }
    public int sum(int[] a) {
        int s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i];
        }
        return s;
    }
    private int hidden(int[] a) {
        int s = 0;
        for (int i = 0; i < a.length; i++) {
            s += a[i];
        }
        return s * 2;
    }
}
`,
	// Hosts no harness can call (a constructor, an anonymous class's
	// method): their null guards must make no pair.
	"p/C.java": `package p;
public class C {
    private final String name;
    public C(String name) {
        if (name == null) {
            throw new IllegalArgumentException("name");
        }
        this.name = name.trim();
    }
    public Runnable task(final String s) {
        return new Runnable() {
            public void run() {
                if (s == null) {
                    return;
                }
                System.out.println(s.trim());
            }
        };
    }
}
`,
	"p/module-info.java": "module p {}\n",
}

// fixtureCorpus writes a small source tree with sites for several types.
func fixtureCorpus(t *testing.T) string {
	dir := t.TempDir()
	for name, src := range fixtureFiles {
		p := filepath.Join(dir, name)
		testcheck.Must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		testcheck.Must(t, os.WriteFile(p, []byte(src), 0o644))
	}
	return dir
}

func TestGenerateRunResume(t *testing.T) {
	src := fixtureCorpus(t)
	per := map[string]int{}
	for _, ty := range corpus.Types {
		per[ty] = 5
	}
	run := func(dir string) *generate.Stats {
		g, err := New(Options{Corpus: src, Seed: 7, ChunkFiles: 1, MinLines: 3, PublicOnly: true})
		testcheck.Must(t, err)
		defer g.Close()
		st, err := generate.Run(context.Background(), g, generate.RunOptions{Dir: dir, PerType: per})
		testcheck.Must(t, err)
		return st
	}
	dir := t.TempDir()
	st := run(dir)
	wantHave := map[string]int{corpus.NullPointer: 1, corpus.NumberFormat: 1, corpus.IllegalState: 1, corpus.ClassCast: 1, corpus.ArrayIndexOOB: 1}
	if d := cmp.Diff(wantHave, st.Have); d != "" {
		t.Errorf("candidates per type (-want +got):\n%s", d)
	}
	cands, err := jsonl.ReadFile[generate.Candidate](filepath.Join(dir, generate.CandidatesFile))
	testcheck.Must(t, err)
	for _, c := range cands {
		checkMutationProvenance(t, c)
	}
	// Rerun: nothing new, everything counted as resumed.
	st2 := run(dir)
	testcheck.Eq(t, "rerun: new", st2.New, 0)
	testcheck.Eq(t, "rerun: resumed", st2.Resumed, len(cands))
	testcheck.Eq(t, "rerun: attempts", st2.Attempts, 0)
	// A fresh directory gives byte-identical logs (determinism).
	dir2 := t.TempDir()
	run(dir2)
	for _, name := range []string{generate.CandidatesFile, generate.AttemptsFile} {
		checkSameFile(t, filepath.Join(dir, name), filepath.Join(dir2, name))
	}
}

// checkMutationProvenance checks that a candidate names its source file,
// method and operator and this generator, and that the source method is
// not the fixture's private one (the run is PublicOnly).
func checkMutationProvenance(t *testing.T, c generate.Candidate) {
	t.Helper()
	if c.Source == nil || c.Source.File == "" || c.Source.Method == "" || c.Operator == "" || c.Generator != ID {
		t.Errorf("%s: missing provenance: %+v", c.ID, c)
	}
	if c.Source.Method == "B: private int hidden(int[] a)" {
		t.Errorf("private method mutated with PublicOnly")
	}
	if strings.HasPrefix(c.Source.Method, "C") {
		t.Errorf("%s: a constructor or an anonymous class's method hosts a mutation: %s", c.ID, c.Source.Method)
	}
}

// checkSameFile reports a difference between the files a and b.
func checkSameFile(t *testing.T, a, b string) {
	t.Helper()
	x, _ := os.ReadFile(a)
	y, _ := os.ReadFile(b)
	if d := cmp.Diff(string(x), string(y)); d != "" {
		t.Errorf("%s differs between runs:\n%s", filepath.Base(a), d)
	}
}

func TestGenerateExhausted(t *testing.T) {
	g, err := New(Options{Corpus: fixtureCorpus(t), ChunkFiles: 10})
	testcheck.Must(t, err)
	defer g.Close()
	_, err = g.Generate(context.Background(), generate.Request{Chunk: 1, Want: map[string]int{corpus.NullPointer: 1}})
	if !errors.Is(err, generate.ErrExhausted) {
		t.Fatalf("err = %v, want ErrExhausted", err)
	}
	if _, err := New(Options{Corpus: filepath.Join(t.TempDir(), "nope.zip")}); err == nil {
		t.Fatal("want error for a missing corpus")
	}
}
