package jvm

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// TestVerifyProjectsPipeline runs the pairs of two projects and of one
// whose clone is missing in one run, one pair a batch, so that the
// pipeline compiles across batches and projects on its shared javac
// server; every record must be the one the project's pairs get in a run
// of their own (timing aside), in project order, and the reports must
// say which build failed.
func TestVerifyProjectsPipeline(t *testing.T) {
	opts := needJDK(t)
	opts.Batch = 1
	shelfCommit, detCommit := twoProjects(t, &opts)
	missing := demoPair(shelfCommit)
	missing.PairID, missing.Source = "missing-1", &corpus.Source{Repo: "demo/gone", Commit: shelfCommit, Path: missing.Source.Path, Span: missing.Source.Span}
	det, shelf := faultPairs(detCommit), demoPair(shelfCommit)
	all := append([]corpus.Pair{shelf, missing}, det...)

	run := func(pairs []corpus.Pair) ([]string, Summary) {
		out := t.TempDir()
		s, err := Run(context.Background(), pairs, out, opts)
		testcheck.Must(t, err)
		recs, err := jsonl.ReadFile[Execution](filepath.Join(out, ExecutionsFile))
		testcheck.Must(t, err)
		var lines []string
		for _, e := range recs {
			e.Millis = 0
			b, err := json.Marshal(e)
			testcheck.Must(t, err)
			lines = append(lines, string(b))
		}
		return lines, s
	}
	together, s := run(all)
	var alone []string
	for _, ps := range [][]corpus.Pair{det, {missing}, {shelf}} { // project order: demo/det, demo/gone, demo/shelf
		recs, _ := run(ps)
		alone = append(alone, recs...)
	}
	if strings.Join(together, "\n") != strings.Join(alone, "\n") {
		t.Errorf("pipeline records:\n%s\nwant, as each project alone:\n%s", strings.Join(together, "\n"), strings.Join(alone, "\n"))
	}
	if len(s.Builds) != 3 || s.Builds[1].Project != "demo/gone@"+shelfCommit || s.Builds[1].Error == "" ||
		s.Builds[0].Error != "" || s.Builds[2].Error != "" || s.Builds[0].Pairs != 2 {
		t.Errorf("builds = %+v; want demo/det (2 pairs), demo/gone (failed), demo/shelf", s.Builds)
	}
}

// TestPrestartWorkers: prestart waits for its signal, then leaves every
// worker JVM running before the first call, and Close stops them; a
// verifier closed before the signal starts none.
func TestPrestartWorkers(t *testing.T) {
	opts := needJDK(t)
	opts.Workers = 2
	v, err := New(context.Background(), opts)
	testcheck.Must(t, err)
	after := make(chan struct{})
	v.prestart(context.Background(), after)
	for i, w := range v.workers {
		if w.p != nil {
			t.Errorf("worker %d started before its signal", i)
		}
	}
	close(after)
	v.awaitStart()
	for i, w := range v.workers {
		if w.p == nil {
			t.Errorf("worker %d not started by prestart", i)
		}
	}
	testcheck.Must(t, v.Close())
	for i, w := range v.workers {
		if w.p != nil {
			t.Errorf("worker %d still running after Close", i)
		}
	}
	idle, err := New(context.Background(), opts)
	testcheck.Must(t, err)
	idle.prestart(context.Background(), make(chan struct{})) // never signalled
	testcheck.Must(t, idle.Close())                          // must not wait for the signal
	for i, w := range idle.workers {
		if w.p != nil {
			t.Errorf("worker %d of the closed verifier started", i)
		}
	}
}

// TestPipelineStopsOnEmitError: when a record cannot be written the
// pipeline returns that error at once, with every project's batches
// queued or compiling, and leaves no work directory (hence no verifier
// or javac server) behind.
func TestPipelineStopsOnEmitError(t *testing.T) {
	opts := needJDK(t)
	opts.Batch = 1
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	shelfCommit, detCommit := twoProjects(t, &opts)
	pairs := append([]corpus.Pair{demoPair(shelfCommit)}, faultPairs(detCommit)...)
	stop := errors.New("disk full")
	n := 0
	_, err := verifyProjects(context.Background(), pairs, opts, func(Execution) error {
		if n++; n == 1 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("verifyProjects = %v after %d records; want the emit error after the first", err, n)
	}
	left, err := filepath.Glob(filepath.Join(tmp, "benchforge-jvm-*"))
	testcheck.Must(t, err)
	if len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// twoProjects puts the demo shelf project and the fault project in a
// repository folder of their own and points opts at it; it returns their
// commits.
// oneProject makes files a git project (gitProject), links it into a
// repos folder as demo/name, points opts at that folder with a cache of
// its own, and returns the commit.
func oneProject(t *testing.T, opts *Options, name string, files map[string]string) string {
	t.Helper()
	gitDir, commit := gitProject(t, files)
	repos := t.TempDir()
	testcheck.Must(t, os.Symlink(gitDir, filepath.Join(repos, "demo__"+name+".git")))
	opts.Projects = &ProjectSource{Repos: repos, JarDir: "", CacheDir: t.TempDir()}
	return commit
}

func twoProjects(t *testing.T, opts *Options) (shelfCommit, detCommit string) {
	t.Helper()
	shelfGit, shelfCommit := demoGit(t)
	detGit, detCommit := gitProject(t, faultProject)
	repos := t.TempDir()
	testcheck.Must(t, os.Symlink(shelfGit, filepath.Join(repos, "demo__shelf.git")))
	testcheck.Must(t, os.Symlink(detGit, filepath.Join(repos, "demo__det.git")))
	opts.Projects = &ProjectSource{Repos: repos, JarDir: "", CacheDir: t.TempDir()}
	return shelfCommit, detCommit
}
