package gitrepo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/gitrepo/gittest"
)

// wrapGit puts a `git` wrapper script first on PATH that does not exec the
// real git: it leaves a grandchild (sleep) holding stdout and stderr, runs
// git as a child after delay, and waits for the sleeper.
func wrapGit(t *testing.T, delay string) {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not on PATH")
	}
	dir := t.TempDir()
	script := "#!/bin/sh\nsleep 300 &\nsleep " + delay + "\n" + real + " \"$@\"\nwait\n"
	if err := os.WriteFile(filepath.Join(dir, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// TestWrapperHoldingPipesCannotHang: with such a wrapper every gitrepo
// child is killed with its process group when the run is cancelled, and
// Wait does not wait for the pipes the sleeper held (issue: `audit patch`
// hung in the first-parent walk and ignored SIGTERM).
func TestWrapperHoldingPipesCannotHang(t *testing.T) {
	b := gittest.New(t)
	b.Write("a.txt", "1")
	b.Commit("one", gittest.Date(2020, 1, 1))
	b.Write("a.txt", "2")
	b.Commit("two", gittest.Date(2021, 1, 1))
	r, err := Open(context.Background(), b.Dir())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	wrapGit(t, "0")
	for name, call := range map[string]func(context.Context) error{
		"snapshot walk": func(ctx context.Context) error {
			_, err := r.SnapshotOn(ctx, "main", gittest.Date(2020, 6, 1))
			return err
		},
		"read file": func(ctx context.Context) error { _, err := r.ReadFile(ctx, "main", "a.txt"); return err },
		"git log":   func(ctx context.Context) error { _, err := r.Git(ctx, "log", "--oneline"); return err },
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		start := time.Now()
		done := make(chan error, 1)
		go func() { done <- call(ctx) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: still running 20 s after start with a pipe-holding git wrapper", name)
		}
		cancel()
		if el := time.Since(start); el > 10*time.Second {
			t.Errorf("%s: took %v with a 3 s deadline", name, el)
		}
	}
}
