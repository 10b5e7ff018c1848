package jvm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/benchforge/benchforge/internal/sandbox"
)

// javacShare is one javac server compiling for the verifiers of every
// project of a run, one after another. Each javac run is a fresh javac
// context (classpath, source path and output directory are its
// arguments), so sharing the server changes no result; it saves a cold
// JVM and javac warm-up per project. Each verifier works in a directory
// under root, the one directory the server may write.
type javacShare struct {
	javac   *compiler
	root    string
	release func()
}

// startJavacShare starts the shared javac server.
func startJavacShare(ctx context.Context, jdk JDK, cacheDir string) (*javacShare, error) {
	workerDir, err := prepareWorker(ctx, jdk, cacheDir)
	if err != nil {
		return nil, err
	}
	root, release, err := sandbox.MkdirTemp("benchforge-jvm-*")
	if err != nil {
		return nil, fmt.Errorf("jvm verifier: %w", err)
	}
	run := filepath.Join(root, "run")
	if err := os.MkdirAll(run, 0o755); err != nil {
		release()
		return nil, fmt.Errorf("jvm verifier: %w", err)
	}
	c, err := startCompiler(ctx, jdk, workerDir, run, root)
	if err != nil {
		release()
		return nil, err
	}
	return &javacShare{javac: c, root: root, release: release}, nil
}

// workDir makes a verifier's work directory and the function removing it.
func (s *javacShare) workDir() (string, func(), error) {
	dir, err := os.MkdirTemp(s.root, "v")
	if err != nil {
		return "", nil, err
	}
	return dir, func() { sandbox.ForceRemove(dir) }, nil
}

func (s *javacShare) close() {
	s.javac.close()
	s.release()
}

// compiledBatch is what the compile side of runPipeline hands the run
// side: a compiled batch of a project's verifier, or a project whose
// pairs cannot compile (v nil).
type compiledBatch struct {
	pr *projectRun
	v  *Verifier
	hs []*harness
}

// runPipeline verifies the built projects' pairs in project order. One
// goroutine builds and compiles the harnesses, batch after batch and
// project after project, on one shared javac server, while the workers
// run the batch before: so a project's compilation overlaps the previous
// project's runs, not only its own batches' (most projects have one or
// two batches). The run side is the one caller of emit, in the order of
// the serial loop it replaces; a verdict depends on neither (verify's
// rule). Each report's RunSec is the run side's time from the end of the
// previous project to its own last record, so the reports' RunSec add up
// to the pipeline's wall time.
func runPipeline(ctx context.Context, jdk JDK, runs []*projectRun, opts Options, emit func(Execution) error) error {
	share, err := startJavacShare(ctx, jdk, opts.CacheDir)
	if err != nil {
		return err
	}
	defer share.close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The compile side may run a few batches ahead: while a batch's runs
	// wait out a call's timeout the CPU is the compile side's.
	ch := make(chan compiledBatch, pipelineAhead)
	compileErr := make(chan error, 1)
	go func() {
		defer close(ch)
		compileErr <- compileProjects(ctx, jdk, runs, opts, share, ch)
	}()
	rs := runSide{jdk: jdk, opts: opts, emit: emit, t: time.Now()}
	for _, pr := range runs {
		rs.total += len(pr.pairs)
	}
	defer rs.closeAll()
	for b := range ch {
		if err := rs.take(ctx, b); err != nil {
			cancel()
			for range ch { // let the compile side stop before its javac server is killed
			}
			<-compileErr
			return err
		}
	}
	rs.finish()
	return <-compileErr
}

// pipelineAhead is how many compiled batches may wait for the run side.
const pipelineAhead = 4

// compileProjects is runPipeline's compile side. A verifier goes to the
// run side with its first batch and is closed there; one that fails
// before is closed here.
func compileProjects(ctx context.Context, jdk JDK, runs []*projectRun, opts Options, share *javacShare, ch chan<- compiledBatch) error {
	send := func(b compiledBatch) error {
		select {
		case ch <- b:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	for _, pr := range runs {
		if pr.proj == nil {
			if err := send(compiledBatch{pr: pr}); err != nil {
				return err
			}
			continue
		}
		if err := compileProject(ctx, jdk, pr, opts, share, send); err != nil {
			return err
		}
	}
	return nil
}

// compileProject builds and compiles one project's harnesses batch by
// batch, in verify's order (byFile), and sends each batch.
func compileProject(ctx context.Context, jdk JDK, pr *projectRun, opts Options, share *javacShare, send func(compiledBatch) error) error {
	o := opts
	o.Project, o.Projects, o.JDK = pr.proj, nil, &jdk
	v, err := newVerifier(ctx, o, share)
	if err != nil {
		return err
	}
	v.prestart(ctx)
	sent := false
	defer func() {
		if !sent {
			v.Close()
		}
	}()
	pairs, _ := byFile(pr.pairs, nil)
	var files realFiles
	defer files.close()
	for i, start := 0, 0; start < len(pairs); i, start = i+1, start+v.opts.Batch {
		hs := v.harnessBatch(pairs[start:min(start+v.opts.Batch, len(pairs))], nil, &files)
		if err := v.compileBatch(ctx, hs, i); err != nil {
			return err
		}
		if err := send(compiledBatch{pr: pr, v: v, hs: hs}); err != nil {
			return err
		}
		sent = true
	}
	return nil
}

// runSide is runPipeline's run side: it runs each batch on its verifier's
// workers, closes a project's verifier once the next project begins
// (in the background: stopping JVMs and removing the work directory need
// not hold up the next runs) and times each project.
type runSide struct {
	jdk     JDK
	opts    Options
	emit    func(Execution) error
	cur     *projectRun
	v       *Verifier
	t       time.Time // when the current project's time began
	closing sync.WaitGroup
	done    int
	total   int
}

// take runs one compiled batch, or records a failed project's pairs.
func (rs *runSide) take(ctx context.Context, b compiledBatch) error {
	if b.pr != rs.cur {
		rs.next(b.pr)
	}
	if b.v == nil {
		return emitUncompiled(b.pr.pairs, rs.jdk, rs.opts, b.pr.fail, rs.emit)
	}
	rs.v = b.v
	return b.v.runBatch(ctx, b.hs, func(e Execution) error {
		rs.done++
		if rs.opts.Progress != nil {
			rs.opts.Progress(rs.done, rs.total)
		}
		return rs.emit(e)
	})
}

// next ends the current project's time and its verifier, and begins pr's.
func (rs *runSide) next(pr *projectRun) {
	rs.finish()
	rs.cur = pr
}

// finish ends the current project: its RunSec, and its verifier's close.
func (rs *runSide) finish() {
	now := time.Now()
	if rs.cur != nil {
		rs.cur.r.RunSec = now.Sub(rs.t).Seconds()
	}
	rs.t = now
	if v := rs.v; v != nil {
		rs.v = nil
		rs.closing.Add(1)
		go func() {
			defer rs.closing.Done()
			v.Close()
		}()
	}
}

// closeAll closes the last verifier, if an error left it open, and waits
// for every close.
func (rs *runSide) closeAll() {
	if rs.v != nil {
		rs.v.Close()
		rs.v = nil
	}
	rs.closing.Wait()
}
