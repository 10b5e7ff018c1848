package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo/gittest"
)

const alphaV1 = `package p;

class A {
    int one() { return 1; }
    int two() { return 2; }
    int three() { return 3; }
}
`

// fixture is the shared history (first-parent chain on main, newest last):
//
//	c1 2020-01-01 add src/A.java, src/util/B.java, README.md, docs/guide/x.txt
//	c2 2020-02-01 modify src/A.java
//	   feature: f1 2020-02-15 add src/Feature.java (branched from c2)
//	c3 2020-03-01 modify README.md
//	m  2020-04-01 merge feature (parents c3, f1)
//	c4 2020-05-01 rename src/A.java -> src/core/Alpha.java (+ small edit)
//	c5 2020-04-15 modify src/util/B.java   (committer date goes backwards)
//	c6 2020-07-01 modify src/core/Alpha.java
type fixture struct {
	b                             *gittest.Builder
	bare                          string
	c1, c2, f1, c3, m, c4, c5, c6 string
}

// fixtureRoot holds the shared fixture; TestMain removes it.
var (
	fixtureRoot string
	sharedOnce  sync.Once
	sharedFix   *fixture
)

func TestMain(m *testing.M) {
	var err error
	if fixtureRoot, err = os.MkdirTemp("", "gitrepo-fixture-"); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(fixtureRoot)
	os.Exit(code)
}

// sharedFixture builds the fixture once per test binary (git is slow on a
// loaded machine); tests must not modify it.
func sharedFixture(t *testing.T) *fixture {
	t.Helper()
	sharedOnce.Do(func() {
		dir := filepath.Join(fixtureRoot, "repo")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		sharedFix = buildFixture(gittest.NewIn(t, dir))
		sharedFix.bare = sharedFix.b.CloneBare()
	})
	if sharedFix == nil || sharedFix.bare == "" {
		t.Fatal("shared fixture failed to build (see the first failing test)")
	}
	return sharedFix
}

func buildFixture(b *gittest.Builder) *fixture {
	f := &fixture{b: b}
	b.Write("src/A.java", alphaV1)
	b.Write("src/util/B.java", "class B {}\n")
	b.Write("README.md", "# demo\n")
	b.Write("docs/guide/x.txt", "guide\n")
	f.c1 = b.Commit("initial import\n\nWith a body line.", gittest.Date(2020, 1, 1))
	b.Write("src/A.java", strings.Replace(alphaV1, "return 1", "return 10", 1))
	f.c2 = b.Commit("tune A", gittest.Date(2020, 2, 1))
	b.Branch("feature")
	b.Write("src/Feature.java", "class Feature {}\n")
	f.f1 = b.Commit("add feature", gittest.Date(2020, 2, 15))
	b.Checkout("main")
	b.Write("README.md", "# demo\nmore\n")
	f.c3 = b.Commit("readme", gittest.Date(2020, 3, 1))
	f.m = b.Merge("feature", "merge feature", gittest.Date(2020, 4, 1))
	b.Rename("src/A.java", "src/core/Alpha.java")
	b.Write("src/core/Alpha.java", strings.Replace(alphaV1, "return 1", "return 11", 1))
	f.c4 = b.Commit("move A", gittest.Date(2020, 5, 1))
	b.Write("src/util/B.java", "class B { int x; }\n")
	f.c5 = b.CommitDates("skewed clock", gittest.Date(2020, 6, 1), gittest.Date(2020, 4, 15))
	b.Write("src/core/Alpha.java", strings.Replace(alphaV1, "return 2", "return 22", 1))
	f.c6 = b.Commit("alpha two", gittest.Date(2020, 7, 1))
	f.b = b
	return f
}

func open(t *testing.T, path string) *Repo {
	t.Helper()
	r, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func TestSnapshot(t *testing.T) {
	f := sharedFixture(t)
	ctx := context.Background()
	bare := f.bare
	tests := []struct {
		name   string
		cutoff time.Time
		want   string
	}{
		{"after tip", gittest.Date(2020, 8, 1), f.c6},
		{"equal date is not before", gittest.Date(2020, 7, 1), f.c5},
		// c5 (04-15) is the first commit from the tip dated before the
		// cutoff, although its parent c4 is dated after it.
		{"non-monotonic stops at first", gittest.Date(2020, 4, 20), f.c5},
		{"below the skew", gittest.Date(2020, 4, 10), f.m},
		{"merge commit itself", time.Date(2020, 4, 1, 0, 0, 1, 0, time.UTC), f.m},
		{"before merge", gittest.Date(2020, 3, 10), f.c3},
		// f1 (02-15) is newer than c2 but only reachable via the merge's
		// second parent.
		{"first parent skips side branch", gittest.Date(2020, 2, 20), f.c2},
		{"sub-second cutoff", time.Date(2020, 1, 1, 0, 0, 0, 500, time.UTC), f.c1},
	}
	for _, repoPath := range []string{f.b.Dir(), bare} {
		r := open(t, repoPath)
		for _, tt := range tests {
			t.Run(filepath.Base(repoPath)+"/"+tt.name, func(t *testing.T) {
				c, err := r.Snapshot(ctx, tt.cutoff)
				if err != nil {
					t.Fatal(err)
				}
				if c.Hash != tt.want {
					t.Errorf("Snapshot(%s) = %s %q, want %s", tt.cutoff, c.Hash, c.Subject, tt.want)
				}
			})
		}
	}
}

func TestSnapshotBeforeFirstCommit(t *testing.T) {
	f := sharedFixture(t)
	r := open(t, f.b.Dir())
	for _, cutoff := range []time.Time{gittest.Date(2019, 12, 31), gittest.Date(2020, 1, 1)} {
		_, err := r.Snapshot(context.Background(), cutoff)
		if !errors.Is(err, errs.ErrNotFound) {
			t.Fatalf("Snapshot(%s) error = %v, want ErrNotFound", cutoff, err)
		}
		for _, want := range []string{f.b.Dir(), cutoff.Format(time.RFC3339)} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name %q", err, want)
			}
		}
	}
}

func TestSnapshotOn(t *testing.T) {
	f := sharedFixture(t)
	r := open(t, f.b.Dir())
	c, err := r.SnapshotOn(context.Background(), "feature", gittest.Date(2020, 3, 1))
	if err != nil {
		t.Fatal(err)
	}
	if c.Hash != f.f1 {
		t.Errorf("SnapshotOn(feature) = %s, want %s", c.Hash, f.f1)
	}
	if _, err := r.SnapshotOn(context.Background(), "nope", gittest.Date(2021, 1, 1)); !errors.Is(err, errs.ErrNotFound) {
		t.Errorf("SnapshotOn(nope) error = %v, want ErrNotFound", err)
	}
}

func TestDefaultBranch(t *testing.T) {
	ctx := context.Background()
	b := gittest.New(t)
	b.Write("a", "a")
	c1 := b.Commit("one", gittest.Date(2020, 1, 1))
	b.Branch("feature")
	r := open(t, b.Dir())
	check := func(r *Repo, want string) {
		t.Helper()
		got, err := r.DefaultBranch(ctx)
		if err != nil || got != want {
			t.Errorf("DefaultBranch(%s) = %q, %v; want %q", r.Path(), got, err, want)
		}
	}
	check(r, "feature")
	check(open(t, b.CloneBare()), "feature") // a bare clone's HEAD follows the source's
	b.Git("checkout", "--quiet", "--detach", c1)
	check(r, "main")
	b.Git("branch", "--quiet", "-m", "main", "master")
	check(r, "master")
	// Unborn HEAD and neither main nor master.
	b.Git("branch", "--quiet", "-m", "master", "topic")
	b.Git("symbolic-ref", "HEAD", "refs/heads/unborn")
	_, err := r.DefaultBranch(ctx)
	if !errors.Is(err, errs.ErrNotFound) || !strings.Contains(err.Error(), b.Dir()) {
		t.Errorf("DefaultBranch without main/master = %v, want ErrNotFound naming the repo", err)
	}
}

func TestResolve(t *testing.T) {
	f := sharedFixture(t)
	ctx := context.Background()
	r := open(t, f.b.Dir())
	c1, err := r.Resolve(ctx, f.c1[:10])
	if err != nil {
		t.Fatal(err)
	}
	sig := Signature{Name: "Bench Forge", Email: "bench@example.com", When: gittest.Date(2020, 1, 1)}
	want := Commit{
		Hash: f.c1, Tree: f.b.Git("rev-parse", f.c1+"^{tree}"),
		Author: sig, Committer: sig,
		Subject: "initial import", Message: "initial import\n\nWith a body line.",
	}
	if d := cmp.Diff(want, c1); d != "" {
		t.Errorf("Resolve(c1) mismatch (-want +got):\n%s", d)
	}
	m, err := r.Resolve(ctx, "main~3")
	if err != nil {
		t.Fatal(err)
	}
	if m.Hash != f.m || !cmp.Equal(m.Parents, []string{f.c3, f.f1}) {
		t.Errorf("Resolve(main~3) = %s parents %v, want merge %s with parents [%s %s]", m.Hash, m.Parents, f.m, f.c3, f.f1)
	}
	c5, err := r.Resolve(ctx, f.c5)
	if err != nil {
		t.Fatal(err)
	}
	if !c5.Author.When.Equal(gittest.Date(2020, 6, 1)) || !c5.Committer.When.Equal(gittest.Date(2020, 4, 15)) {
		t.Errorf("c5 dates author %s committer %s", c5.Author.When, c5.Committer.When)
	}
	checkResolveErrors(t, r, f.b.Dir())
}

// checkResolveErrors: revisions that name no commit are ErrNotFound naming
// the repository dir; empty or multi-line ones are ErrInput.
func checkResolveErrors(t *testing.T, r *Repo, dir string) {
	t.Helper()
	ctx := context.Background()
	for _, rev := range []string{"abc123", strings.Repeat("0", 40), "no-such-branch", "main:README.md"} {
		_, err := r.Resolve(ctx, rev)
		if !errors.Is(err, errs.ErrNotFound) {
			t.Errorf("Resolve(%q) error = %v, want ErrNotFound", rev, err)
			continue
		}
		if want := "commit " + rev + " not in " + dir + ": fetch it or use --clone"; !strings.Contains(err.Error(), want) {
			t.Errorf("Resolve(%q) error %q does not contain %q", rev, err, want)
		}
	}
	for _, rev := range []string{"", "a\nb"} {
		if _, err := r.Resolve(ctx, rev); !errors.Is(err, errs.ErrInput) {
			t.Errorf("Resolve(%q) error = %v, want ErrInput", rev, err)
		}
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	f := sharedFixture(t)
	empty := t.TempDir()
	file := filepath.Join(empty, "file")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, p := range []string{filepath.Join(empty, "missing"), empty, file, filepath.Join(f.b.Dir(), "src")} {
		_, err := Open(ctx, p)
		if !errors.Is(err, errs.ErrNotFound) || !strings.Contains(err.Error(), p) ||
			!strings.Contains(err.Error(), "not a git repository; clone it or pass --repos") {
			t.Errorf("Open(%s) error = %v, want ErrNotFound naming the path", p, err)
		}
	}
	r := open(t, f.b.Dir())
	if r.Bare() || r.GitDir() != filepath.Join(f.b.Dir(), ".git") {
		t.Errorf("Open(worktree): bare=%v gitdir=%s", r.Bare(), r.GitDir())
	}
	br := open(t, f.bare)
	if !br.Bare() {
		t.Errorf("Open(bare clone): Bare() = false")
	}
}

func TestCloseAndCancel(t *testing.T) {
	f := sharedFixture(t)
	r, err := Open(context.Background(), f.b.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Resolve(context.Background(), "main"); err != nil {
		t.Fatal(err)
	}
	pid := r.cat.idle[0].cmd.Process.Pid

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.ReadFile(ctx, "main", "README.md"); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadFile with cancelled ctx = %v, want context.Canceled", err)
	}
	if _, err := r.FileHistory(ctx, "main", "README.md"); !errors.Is(err, context.Canceled) {
		t.Errorf("FileHistory with cancelled ctx = %v, want context.Canceled", err)
	}
	// Still usable after a cancelled call.
	if _, err := r.ReadFile(context.Background(), "main", "README.md"); err != nil {
		t.Fatal(err)
	}

	r.Close()
	r.Close() // idempotent
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("cat-file pid %d still exists after Close (kill -0: %v)", pid, err)
	}
	if _, err := r.Resolve(context.Background(), "main"); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("Resolve after Close = %v, want closed error", err)
	}
}

// TestConcurrentBatches: concurrent readers get their own answers from at
// most maxCatFiles children, and Close stops every child.
func TestConcurrentBatches(t *testing.T) {
	f := sharedFixture(t)
	r, err := Open(context.Background(), f.b.Dir())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"README.md": "# demo\nmore\n", "src/util/B.java": "class B {}\n"}
	var wg sync.WaitGroup
	errc := make(chan error, 16)
	for g := 0; g < 16; g++ {
		wg.Go(func() {
			for i := 0; i < 20; i++ {
				for p, w := range want {
					b, err := r.ReadFile(context.Background(), f.c3, p)
					if err != nil || string(b) != w {
						errc <- fmt.Errorf("ReadFile(%s) = %q, %v; want %q", p, b, err, w)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	r.cat.mu.Lock()
	var pids []int
	for _, c := range r.cat.idle {
		pids = append(pids, c.cmd.Process.Pid)
	}
	r.cat.mu.Unlock()
	if len(pids) == 0 || len(pids) > maxCatFiles {
		t.Fatalf("%d idle cat-file children after the readers, want 1..%d", len(pids), maxCatFiles)
	}
	r.Close()
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("cat-file pid %d still exists after Close (kill -0: %v)", pid, err)
		}
	}
}

func TestCancelDuringBatch(t *testing.T) {
	f := sharedFixture(t)
	r := open(t, f.b.Dir())
	paths := make([]string, 20000)
	for i := range paths {
		paths[i] = "README.md"
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(2 * time.Millisecond); cancel() }()
	_, err := r.ReadFiles(ctx, "main", paths)
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("ReadFiles cancelled mid-batch = %v, want nil or context.Canceled", err)
	}
	got, err := r.ReadFile(context.Background(), "main", "README.md")
	if err != nil || string(got) != "# demo\nmore\n" {
		t.Fatalf("ReadFile after cancelled batch = %q, %v", got, err)
	}
}
