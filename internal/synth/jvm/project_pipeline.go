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

// compiledBatch is what a compile lane of runPipeline hands the run
// side: a compiled batch of a project's verifier, the end of a project
// (end), or a project whose pairs cannot compile (v nil).
type compiledBatch struct {
	pr  *projectRun
	v   *Verifier
	hs  []*harness
	end bool
}

// compileLanes is how many projects compile at once, each lane on a javac
// server of its own: javac is most of the pipeline's CPU and a project's
// javac runs depend on each other (a layer on the one before it), but
// two projects' do not.
const compileLanes = 2

// pipelineAhead is how many compiled batches may wait for the run side
// in a lane: while a batch's runs wait out a call's timeout the CPU is
// the compile side's.
const pipelineAhead = 4

// runPipeline verifies the built projects' pairs in project order.
// compileLanes goroutines build and compile the harnesses, batch after
// batch, project k on lane k mod compileLanes, while the workers run the
// batches already compiled: so a project's compilation overlaps the
// previous projects' runs, not only its own batches' (most projects have
// one or two batches). The run side is the one caller of emit, in the
// order of the serial loop it replaces; a verdict depends on neither
// (verify's rule). Each report's RunSec is the run side's time from the
// end of the previous project to its own last record, so the reports'
// RunSec add up to the pipeline's wall time.
func runPipeline(ctx context.Context, jdk JDK, runs []*projectRun, opts Options, emit func(Execution) error) error {
	ctx, cancel := context.WithCancel(ctx)
	var lanes []*lane
	rs := &runSide{jdk: jdk, opts: opts, emit: emit, seen: map[*Verifier]bool{}}
	defer func() {
		cancel() // an error stops the lanes' compile sides
		rs.closeAll(lanes)
		for _, l := range lanes {
			l.share.close()
		}
	}()
	prev := make(chan struct{})
	close(prev) // the first project's workers start at once
	for _, pr := range runs {
		pr.after, pr.begun = prev, make(chan struct{})
		prev = pr.begun
	}
	for i := 0; i < min(compileLanes, len(runs)); i++ {
		share, err := startJavacShare(ctx, jdk, opts.CacheDir)
		if err != nil {
			return err
		}
		l := &lane{share: share, ch: make(chan compiledBatch, pipelineAhead), err: make(chan error, 1)}
		lanes = append(lanes, l)
		var mine []*projectRun
		for k := i; k < len(runs); k += compileLanes {
			mine = append(mine, runs[k])
		}
		go func() {
			defer close(l.ch)
			l.err <- compileProjects(ctx, jdk, mine, opts, share, l.ch)
		}()
	}
	rs.t = time.Now()
	for _, pr := range runs {
		rs.total += len(pr.pairs)
	}
	for k, pr := range runs {
		if err := rs.project(ctx, pr, lanes[k%len(lanes)]); err != nil {
			return err
		}
	}
	rs.finish()
	for _, l := range lanes {
		if err := l.wait(); err != nil {
			return err
		}
	}
	return nil
}

// lane is one compile lane: its javac server, the batches it compiled
// and its result.
type lane struct {
	share *javacShare
	ch    chan compiledBatch
	err   chan error
	done  bool
	res   error
}

// wait returns the lane's result once its goroutine is done.
func (l *lane) wait() error {
	if !l.done {
		l.res, l.done = <-l.err, true
	}
	return l.res
}

// compileProjects is a lane's compile side. A verifier goes to the run
// side with its first batch and is closed there; one that fails before
// is closed here.
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
			if err := send(compiledBatch{pr: pr, end: true}); err != nil {
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
// batch, in verify's order (byFile), and sends each batch, then the
// project's end.
func compileProject(ctx context.Context, jdk JDK, pr *projectRun, opts Options, share *javacShare, send func(compiledBatch) error) error {
	o := opts
	o.Project, o.Projects, o.JDK = pr.proj, nil, &jdk
	v, err := newVerifier(ctx, o, share)
	if err != nil {
		return err
	}
	v.prestart(ctx, pr.after)
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
	return send(compiledBatch{pr: pr, v: v, end: true})
}

// runSide is runPipeline's run side: it runs each batch on its verifier's
// workers, closes a project's verifier at the project's end (in the
// background: stopping JVMs and removing the work directory need not
// hold up the next runs) and times each project.
type runSide struct {
	jdk     JDK
	opts    Options
	emit    func(Execution) error
	cur     *projectRun
	t       time.Time          // when the current project's time began
	seen    map[*Verifier]bool // verifiers received, true once closed
	closing sync.WaitGroup
	done    int
	total   int
}

// project runs pr's batches from l until pr's end; an error is the run
// side's, or the lane's when it stopped before pr's end.
func (rs *runSide) project(ctx context.Context, pr *projectRun, l *lane) error {
	rs.finish()
	rs.cur = pr
	close(pr.begun) // the next project's workers may start
	for b := range l.ch {
		if b.pr != pr {
			return fmt.Errorf("jvm pipeline: lane sent project %s while %s was due", b.pr.r.Project, pr.r.Project)
		}
		if b.v != nil && !rs.seen[b.v] {
			rs.seen[b.v] = false
		}
		if err := rs.take(ctx, b); err != nil || b.end {
			return err
		}
	}
	if err := l.wait(); err != nil {
		return err
	}
	return fmt.Errorf("jvm pipeline: lane stopped before project %s ended", pr.r.Project)
}

// take runs one compiled batch, records a failed project's pairs, or
// closes a project's verifier at its end.
func (rs *runSide) take(ctx context.Context, b compiledBatch) error {
	switch {
	case b.v == nil:
		return emitUncompiled(b.pr.pairs, rs.jdk, rs.opts, b.pr.fail, rs.emit)
	case b.end:
		rs.close(b.v)
		return nil
	}
	return b.v.runBatch(ctx, b.hs, func(e Execution) error {
		rs.done++
		if rs.opts.Progress != nil {
			rs.opts.Progress(rs.done, rs.total)
		}
		return rs.emit(e)
	})
}

// close closes v in the background.
func (rs *runSide) close(v *Verifier) {
	rs.seen[v] = true
	rs.closing.Add(1)
	go func() {
		defer rs.closing.Done()
		v.Close()
	}()
}

// finish ends the current project's time.
func (rs *runSide) finish() {
	now := time.Now()
	if rs.cur != nil {
		rs.cur.r.RunSec = now.Sub(rs.t).Seconds()
	}
	rs.t = now
}

// closeAll waits for the lanes' compile sides (their context cancelled
// after an error), closes every verifier an error left open, those still
// queued included, and waits for every close.
func (rs *runSide) closeAll(lanes []*lane) {
	for _, l := range lanes {
		for b := range l.ch {
			if b.v != nil && !rs.seen[b.v] {
				rs.seen[b.v] = false
			}
		}
		l.wait()
	}
	for v, closed := range rs.seen {
		if !closed {
			rs.close(v)
		}
	}
	rs.closing.Wait()
}
