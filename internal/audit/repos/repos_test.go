package repos

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo/gittest"
)

func TestResolve(t *testing.T) {
	b := gittest.New(t)
	b.Write("A.java", "class A {}\n")
	head := b.Commit("a", gittest.Date(2020, 1, 1))
	dir := t.TempDir()
	// the same clone under each supported name
	for _, n := range []string{"apache__commons-lang", "google/gson.git", "Cli"} {
		p := filepath.Join(dir, n)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(b.Dir(), p); err != nil {
			t.Fatal(err)
		}
	}
	mapping := filepath.Join(dir, "map.json")
	os.WriteFile(mapping, []byte(`{"x/mapped": "Cli"}`), 0o644)
	r, err := New(Options{Dir: dir, Mapping: mapping})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx := context.Background()
	for _, s := range []bench.Sample{
		{Repo: "apache/commons-lang"},
		{Repo: "google/gson"},
		{Repo: "apache/commons-cli", Meta: map[string]any{"project": "Cli"}},
		{Repo: "x/mapped"},
	} {
		g, err := r.Repo(ctx, s)
		if err != nil {
			t.Fatalf("%s: %v", s.Repo, err)
		}
		if c, err := g.Resolve(ctx, "HEAD"); err != nil || c.Hash != head {
			t.Fatalf("%s: %v %v", s.Repo, c.Hash, err)
		}
	}
	if _, err := r.Repo(ctx, bench.Sample{Repo: "no/where"}); !errors.Is(err, errs.ErrNotFound) {
		t.Fatalf("missing repo: %v", err)
	}
}

func TestBadMapping(t *testing.T) {
	p := filepath.Join(t.TempDir(), "m.json")
	os.WriteFile(p, []byte(`["not an object"]`), 0o644)
	if _, err := New(Options{Mapping: p}); !errors.Is(err, errs.ErrInput) {
		t.Fatalf("got %v", err)
	}
	if _, err := New(Options{Clone: true}); !errors.Is(err, errs.ErrUsage) {
		t.Fatalf("clone without cache: %v", err)
	}
}

func TestCloneLocal(t *testing.T) {
	b := gittest.New(t)
	b.Write("a.py", "x = 1\n")
	b.Commit("a", gittest.Date(2020, 1, 1))
	src := t.TempDir()
	os.Symlink(b.Dir(), filepath.Join(src, "calc"))
	r, err := New(Options{Clone: true, CacheDir: t.TempDir(), URLBase: "file://" + src + "/"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// "o/calc" → file://src/o/calc does not exist; use a one-level name
	if _, err := r.Repo(context.Background(), bench.Sample{Repo: "o/calc"}); err == nil {
		t.Fatal("cloned a repository that does not exist")
	}
	os.MkdirAll(filepath.Join(src, "o"), 0o755)
	os.Symlink(b.Dir(), filepath.Join(src, "o", "calc2"))
	if _, err := r.Repo(context.Background(), bench.Sample{Repo: "o/calc2"}); err != nil {
		t.Fatalf("clone: %v", err)
	}
}

// TestResolveLayoutsAndCase: the fetch-mirror layout owner+name/repo, and
// owner and name matched case-insensitively (fasterxml vs FasterXML); a
// missing clone says where it looked and how to add one.
func TestResolveLayoutsAndCase(t *testing.T) {
	b := gittest.New(t)
	b.Write("A.java", "class A {}\n")
	b.Commit("a", gittest.Date(2020, 1, 1))
	bare := b.CloneBare()
	dir := t.TempDir()
	for _, n := range []string{"apache+commons-lang/repo", "FasterXML__jackson-core.git", "Google/GSON"} {
		p := filepath.Join(dir, n)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(bare, p); err != nil {
			t.Fatal(err)
		}
	}
	r, err := New(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, repo := range []string{"apache/commons-lang", "fasterxml/jackson-core", "google/gson", "APACHE/Commons-Lang"} {
		if _, err := r.Repo(context.Background(), bench.Sample{Repo: repo}); err != nil {
			t.Errorf("%s: %v", repo, err)
		}
	}
	_, err = r.Repo(context.Background(), bench.Sample{Repo: "psf/requests"})
	want := "no local clone for psf/requests under " + dir + ": "
	if !errors.Is(err, errs.ErrNotFound) || !strings.HasPrefix(err.Error(), want) ||
		!strings.Contains(err.Error(), "git clone --bare https://github.com/psf/requests "+filepath.Join(dir, "psf__requests.git")) || !strings.Contains(err.Error(), "--clone") {
		t.Errorf("missing clone: %v\nwant it to start %q and give the remedy", err, want)
	}
}
