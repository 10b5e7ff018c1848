package jvm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/sandbox"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// Options configure a Verifier. Zero values take the defaults.
type Options struct {
	// Budget is the most method calls spent on one pair, buggy and fixed
	// together (default 200).
	Budget int
	// Timeout is the wall-clock limit of one call (default 2s).
	Timeout time.Duration
	// Workers is the number of worker JVMs running calls (default 1).
	Workers int
	// Batch is the number of pairs compiled per javac run (default 100).
	Batch int
	// Heap is the worker JVM's -Xmx (default "256m").
	Heap string
	// CacheDir keeps the compiled worker between runs (default the user
	// cache dir, benchforge/jvm).
	CacheDir string
	// JDK is the toolchain; nil means FindJDK.
	JDK *JDK
	// Progress, when set, is called after each pair.
	Progress func(done, total int)
	// Project, when set, puts every pair in its real class compiled
	// against this project (project.go); Projects builds one per pair's
	// source instead (RunProjects).
	Project  *Project
	Projects *ProjectSource
	// NoAnchors turns the patch-anchored inputs (anchor.go) off: the
	// boundary search alone, for comparison.
	NoAnchors bool
}

func (o *Options) defaults() error {
	o.fillZero()
	if err := o.validate(); err != nil {
		return err
	}
	if o.CacheDir == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			d = os.TempDir()
		}
		o.CacheDir = filepath.Join(d, "benchforge", "jvm")
	}
	return nil
}

// fillZero gives the zero numeric options and the heap their defaults.
func (o *Options) fillZero() {
	if o.Budget == 0 {
		o.Budget = 200
	}
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Second
	}
	if o.Workers == 0 {
		o.Workers = 1
	}
	if o.Batch == 0 {
		o.Batch = 100
	}
	if o.Heap == "" {
		o.Heap = "256m"
	}
}

// validate refuses options out of range.
func (o *Options) validate() error {
	switch {
	case o.Budget < 1:
		return fmt.Errorf("jvm options: %w: budget %d: need at least 1 call per pair", errs.ErrUsage, o.Budget)
	case o.Timeout < time.Millisecond:
		return fmt.Errorf("jvm options: %w: timeout %v: need at least 1ms", errs.ErrUsage, o.Timeout)
	case o.Workers < 1 || o.Batch < 1:
		return fmt.Errorf("jvm options: %w: workers %d and batch %d must be positive", errs.ErrUsage, o.Workers, o.Batch)
	}
	return nil
}

// Verifier runs bug/fix pairs on a real JVM: a warm javac compiles
// batches of harnesses, and long-lived sandboxed worker JVMs run the
// calls. It is not safe for concurrent Verify calls.
type Verifier struct {
	opts      Options
	jdk       JDK
	work      string
	release   func() // removes work
	classes   string
	emptyDir  string
	workerDir string
	javac     *compiler
	ownJavac  bool // false when the javac server is a javacShare's
	workers   []*worker
	started   chan struct{} // closed when prestart is done; nil without prestart
	noStart   chan struct{} // closed by Close: a prestart still waiting starts nothing
	closeOnce sync.Once
	next      int // pair counter: package bfv.p<next>
	stats     struct{ javacRuns int }
	// compiled, when set (by the floor benchmark), sees each batch's
	// harnesses once compileBatch is done with them.
	compiled func([]*harness)
}

// New locates the JDK, compiles (or reuses) the worker and starts the
// javac server. Close it when done.
func New(ctx context.Context, opts Options) (*Verifier, error) {
	return newVerifier(ctx, opts, nil)
}

// newVerifier is New; with share, the verifier compiles on share's javac
// server and works in a directory under share's, which it removes on
// Close, leaving the server running.
func newVerifier(ctx context.Context, opts Options, share *javacShare) (*Verifier, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	v := &Verifier{opts: opts}
	var err error
	if v.jdk, err = optionJDK(ctx, opts.JDK); err != nil {
		return nil, err
	}
	if v.workerDir, err = prepareWorker(ctx, v.jdk, opts.CacheDir); err != nil {
		return nil, err
	}
	if share != nil {
		v.work, v.release, err = share.workDir()
		v.javac = share.javac
	} else {
		v.work, v.release, err = sandbox.MkdirTemp("benchforge-jvm-*")
	}
	if err != nil {
		return nil, fmt.Errorf("jvm verifier: %w", err)
	}
	if err := v.start(ctx); err != nil {
		v.Close()
		return nil, err
	}
	return v, nil
}

// optionJDK is the JDK of the options, or the one FindJDK finds.
func optionJDK(ctx context.Context, jdk *JDK) (JDK, error) {
	if jdk != nil {
		return *jdk, nil
	}
	return FindJDK(ctx)
}

// start lays out the work directory and starts the javac server; the
// worker JVMs start on their first call.
func (v *Verifier) start(ctx context.Context) error {
	v.classes, v.emptyDir = filepath.Join(v.work, "classes"), filepath.Join(v.work, "empty")
	for _, d := range []string{v.classes, v.emptyDir, filepath.Join(v.work, "run")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("jvm verifier: %w", err)
		}
	}
	if v.javac == nil {
		var err error
		if v.javac, err = startCompiler(ctx, v.jdk, v.workerDir, filepath.Join(v.work, "run"), v.work); err != nil {
			return err
		}
		v.ownJavac = true
	}
	for i := 0; i < v.opts.Workers; i++ {
		dir := filepath.Join(v.work, "run", fmt.Sprint(i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("jvm verifier: %w", err)
		}
		v.workers = append(v.workers, &worker{jdk: v.jdk, classpath: v.workerDir + string(os.PathListSeparator) + v.classpath(),
			dir: dir, heap: v.opts.Heap})
	}
	return nil
}

// JDK returns the toolchain in use.
func (v *Verifier) JDK() JDK { return v.jdk }

// Close stops the JVMs and removes the work directory.
func (v *Verifier) Close() error {
	v.closeOnce.Do(func() {
		if v.noStart != nil {
			close(v.noStart)
		}
	})
	v.awaitStart() // a worker JVM starting now is stopped below, not left behind
	if v.javac != nil && v.ownJavac {
		v.javac.close()
	}
	for _, w := range v.workers {
		w.stop()
	}
	if v.release != nil {
		v.release()
	}
	return nil
}

// prestart starts the worker JVMs in the background once after is
// closed, so that the first batch need not wait for them (runPipeline:
// the previous project's runs and this one's compilation hide the start;
// after is the previous project's start, so that at most two projects'
// workers are up, not every queued one's). A worker that fails to start
// here is started again, and its error reported, on its first call, as
// without prestart; Close or ctx before after starts nothing.
func (v *Verifier) prestart(ctx context.Context, after <-chan struct{}) {
	v.started, v.noStart = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(v.started)
		select {
		case <-after:
		case <-v.noStart:
			return
		case <-ctx.Done():
			return
		}
		for _, w := range v.workers {
			_ = w.start(ctx) // on error w.p stays nil: the first call starts it
		}
	}()
}

// awaitStart waits for prestart, if any, to finish.
func (v *Verifier) awaitStart() {
	if v.started != nil {
		<-v.started
	}
}

// Verify checks pairs batch by batch and calls emit with each record as
// soon as it is final (in no particular order within a batch). It stops
// at the first emit error or when ctx ends; records already emitted stay
// valid.
func (v *Verifier) Verify(ctx context.Context, pairs []corpus.Pair, emit func(Execution) error) error {
	return v.verify(ctx, pairs, nil, emit)
}

// VerifyModel is Verify on model-built harnesses: pair i runs only the
// inputs of props[i] (rxsynth Table 8), with the same compilation,
// execution and criteria.
func (v *Verifier) VerifyModel(ctx context.Context, pairs []corpus.Pair, props []*ModelHarness, emit func(Execution) error) error {
	if len(props) != len(pairs) {
		return fmt.Errorf("verify model harnesses: %d proposals for %d pairs", len(props), len(pairs))
	}
	for i, mh := range props {
		if mh == nil {
			return fmt.Errorf("verify model harnesses: no proposal for pair %s", pairs[i].PairID)
		}
	}
	return v.verify(ctx, pairs, props, emit)
}

func (v *Verifier) verify(ctx context.Context, pairs []corpus.Pair, props []*ModelHarness, emit func(Execution) error) error {
	if v.opts.Project != nil {
		pairs, props = byFile(pairs, props)
	}
	batches := v.harnessBatches(pairs, props)
	// The javac server compiles the next batch while the workers run
	// this one: the two are separate JVMs, and batches share nothing but
	// the class directory, each in its own packages.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	compiled := make(chan []*harness)
	compileErr := make(chan error, 1)
	go func() {
		defer close(compiled)
		compileErr <- v.compileAll(ctx, batches, compiled)
	}()
	done := 0
	for hs := range compiled {
		if err := v.runBatch(ctx, hs, func(e Execution) error {
			done++
			if v.opts.Progress != nil {
				v.opts.Progress(done, len(pairs))
			}
			return emit(e)
		}); err != nil {
			cancel()
			for range compiled { // let the compile side stop before Close kills its JVM
			}
			<-compileErr
			return err
		}
	}
	return <-compileErr
}

// byFile orders the pairs (and their proposals) by source file, stably,
// so that a file's pairs share batches and so one compiled copy of the
// file (variants.go); a pair's verdict does not depend on its place.
func byFile(pairs []corpus.Pair, props []*ModelHarness) ([]corpus.Pair, []*ModelHarness) {
	idx := make([]int, len(pairs))
	for i := range idx {
		idx[i] = i
	}
	path := func(i int) string {
		if s := pairs[i].Source; s != nil {
			return s.Path
		}
		return ""
	}
	sort.SliceStable(idx, func(a, b int) bool { return path(idx[a]) < path(idx[b]) })
	ps := make([]corpus.Pair, len(pairs))
	var pr []*ModelHarness
	if props != nil {
		pr = make([]*ModelHarness, len(props))
	}
	for k, i := range idx {
		ps[k] = pairs[i]
		if props != nil {
			pr[k] = props[i]
		}
	}
	return ps, pr
}

// harnessBatches builds the pairs' harnesses, in batches of opts.Batch.
func (v *Verifier) harnessBatches(pairs []corpus.Pair, props []*ModelHarness) [][]*harness {
	var batches [][]*harness
	var files realFiles
	defer files.close()
	for start := 0; start < len(pairs); start += v.opts.Batch {
		end := min(start+v.opts.Batch, len(pairs))
		var pr []*ModelHarness
		if props != nil {
			pr = props[start:end]
		}
		batches = append(batches, v.harnessBatch(pairs[start:end], pr, &files))
	}
	return batches
}

// harnessBatch builds the harnesses of one batch (props nil for the
// boundary search), numbering them on from the verifier's last pair.
func (v *Verifier) harnessBatch(batch []corpus.Pair, props []*ModelHarness, files *realFiles) []*harness {
	hs := make([]*harness, len(batch))
	for i, p := range batch {
		hs[i] = newHarness(v.next, p)
		if v.opts.Project != nil {
			hs[i].useProject(v.opts.Project, files)
		}
		if props != nil {
			hs[i].useModel(props[i])
		} else if !v.opts.NoAnchors {
			hs[i].anchor() // after useProject: from the real types' candidates
		}
		v.next++
	}
	return hs
}

// compileAll compiles the batches in order, handing each to the run side
// on compiled.
func (v *Verifier) compileAll(ctx context.Context, batches [][]*harness, compiled chan<- []*harness) error {
	for i, hs := range batches {
		if err := v.compileBatch(ctx, hs, i); err != nil {
			return err
		}
		select {
		case compiled <- hs:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// runBatch runs the compiled harnesses on the worker pool: one goroutine
// per worker JVM (each owns its JVM, so the pool is not a SetLimit one),
// fed from one channel; the first error stops the batch.
func (v *Verifier) runBatch(ctx context.Context, hs []*harness, emit func(Execution) error) error {
	v.awaitStart()
	g, gctx := errgroup.WithContext(ctx)
	jobs := make(chan *harness)
	var mu sync.Mutex // emit is called serially
	for _, w := range v.workers {
		g.Go(func() error {
			for h := range jobs {
				e, err := v.run(gctx, w, h)
				if err != nil {
					return err
				}
				mu.Lock()
				err = emit(e)
				mu.Unlock()
				if err != nil {
					return err
				}
			}
			return nil
		})
	}
send:
	for _, h := range hs {
		select {
		case jobs <- h:
		case <-gctx.Done():
			break send
		}
	}
	close(jobs)
	if err := g.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// maxHazards stops the search on a pair after this many timeouts or
// exits: each costs a worker restart.
const maxHazards = 3

// run searches inputs for one compiled pair and judges criteria (a)–(c)
// of rxsynth §5.4.
func (v *Verifier) run(ctx context.Context, w *worker, h *harness) (e Execution, err error) {
	e = Execution{PairID: h.pair.PairID, ErrorType: h.pair.ErrorType, JDK: v.jdk.Version, Budget: v.opts.Budget, Harness: h.model}
	if h.model != nil {
		e.Regime = h.model.Regime
	}
	t0 := time.Now()
	defer func() { e.Millis = time.Since(t0).Milliseconds() }()
	e.Compile = CompileResult{OK: h.failed == "", Reason: h.failed, Rounds: h.rounds, BatchRounds: h.batchRounds, Stubs: h.stubs.describe()}
	if h.failed != "" {
		e.Status, e.Reason = StatusUnconfirmed, "cannot compile"
		return e, nil
	}
	e.Method, e.Static, e.Params = h.bsig.Name, h.bsig.Static, h.bsig.Params
	e.Site = PatchedSite(h.pair.BuggyMethod, h.pair.FixedMethod)
	e.Candidates = len(h.vecs)
	e.Anchors, e.Anchored = h.anchorRules, h.nAnchored
	if h.model != nil && len(h.vecs) == 0 {
		e.Status, e.Reason = StatusUnconfirmed, h.model.idleReason()
	}
	r := &pairRun{ctx: ctx, v: v, w: w, h: h, e: &e, unbuilt: map[[2]int]bool{}}
	for i := range h.vecs {
		if r.enough() {
			break
		}
		if r.skip(i) {
			continue
		}
		final, err := r.try(i)
		if err != nil {
			return e, err
		}
		if final {
			return e, nil
		}
	}
	e.judge()
	return e, nil
}

// pairRun is run's search over one pair's inputs.
type pairRun struct {
	ctx     context.Context
	v       *Verifier
	w       *worker
	h       *harness
	e       *Execution
	hazards int // timeouts and exits so far
	// unbuilt are the candidates (position, index) whose construction
	// threw: a later vector holding one cannot be built either, and is
	// skipped without a call (skip).
	unbuilt map[[2]int]bool
}

// skip reports whether vector i holds a candidate that failed to build
// on an earlier input, counting it as skipped. Building a candidate runs
// only its own expression (a constructor or factory with fixed
// arguments), so it fails again: before, a receiver whose constructor
// threw took one call of the budget for every argument vector it was
// paired with (commons-math's Dfp: 169 of 180 calls).
func (r *pairRun) skip(i int) bool {
	for p, k := range r.h.vecs[i] {
		if r.unbuilt[[2]int{p, k}] {
			r.e.Skipped++
			return true
		}
	}
	return false
}

// enough reports whether the search is over: the budget spent, every
// criterion met, or too many hazards.
func (r *pairRun) enough() bool {
	e := r.e
	return e.Calls >= r.v.opts.Budget || e.A != nil && e.B != nil && e.C != nil || r.hazards >= maxHazards
}

// try runs input i on the buggy method and, when it raises the labelled
// exception within budget, on the fixed one; final when the pair's
// record is settled without judging (a harness error, tampering).
func (r *pairRun) try(i int) (final bool, err error) {
	h, e := r.h, r.e
	bo, err := r.call("B", h.callName("B"), i)
	if err != nil {
		return false, err
	}
	e.InputsTried++
	e.noteOutcome(bo)
	if bo.Kind == "arg_error" && bo.Arg > 0 && bo.Arg <= len(h.vecs[i]) {
		r.unbuilt[[2]int{bo.Arg - 1, h.vecs[i][bo.Arg-1]}] = true
	}
	switch bo.Kind {
	case "timeout", "exited":
		r.hazards++
		return false, nil
	case "harness_error":
		e.Status, e.Reason = StatusUnconfirmed, harnessReason(bo.Message)
		return true, nil
	case KindTampered:
		e.tamper()
		return true, nil
	}
	if !raises(bo, h.pair.ErrorType) {
		return false, nil
	}
	if e.A == nil {
		e.A = &Trigger{Input: h.input(i), Buggy: bo, Anchored: i < h.nAnchored}
	}
	if e.Calls >= r.v.opts.Budget {
		return false, nil
	}
	fo, err := r.call("F", h.callName("F"), i)
	if err != nil {
		return false, err
	}
	switch fo.Kind {
	case "timeout", "exited":
		r.hazards++
	case KindTampered:
		e.tamper()
		return true, nil
	}
	r.noteFixed(i, bo, fo)
	return false, nil
}

// noteFixed records input i as the first trigger of criteria (b) and (c)
// when the fixed method's outcome fo meets them, and keeps the first
// buggy/fixed outcome pair.
func (r *pairRun) noteFixed(i int, bo, fo Outcome) {
	h, e := r.h, r.e
	if e.B == nil && fo.Kind == "returned" {
		e.B = &Trigger{Input: h.input(i), Buggy: bo, Fixed: &fo, Anchored: i < h.nAnchored}
	}
	if e.C == nil && meetsC(e.Site, h.pair.ErrorType, bo, fo) {
		e.C = &Trigger{Input: h.input(i), Buggy: bo, Fixed: &fo, Anchored: i < h.nAnchored}
	}
	if e.firstFixed == nil {
		e.firstFixed = &fo
		e.firstBuggy = bo
	}
}

// meetsC reports criterion (c) for one input whose buggy call bo raised
// the labelled exception: bo's line is a patched site, and the fixed call
// fo returned or threw, but not the labelled exception at its site.
func meetsC(site Site, errorType string, bo, fo Outcome) bool {
	atSite := slices.Contains(site.Buggy, bo.Line)
	fixedAtSite := raises(fo, errorType) && slices.Contains(site.Fixed, fo.Line)
	return atSite && !fixedAtSite && (fo.Kind == "returned" || fo.Kind == "threw")
}

// call runs input i on side kind's method name, counting the call and
// noting the worker's isolation and any hazard; the line of the outcome
// is made relative to the method.
func (r *pairRun) call(kind, name string, i int) (Outcome, error) {
	h, e, w := r.h, r.e, r.w
	o, err := w.call(r.ctx, h.fqcn(kind), name, h.fqcn("A"), h.vector(i), r.v.loader(h, kind), r.v.opts.Timeout)
	if err != nil {
		return o, fmt.Errorf("run pair %s input %d: %w", h.pair.PairID, i, err)
	}
	e.Calls++
	e.Network, e.Files, e.SandboxNotes = w.net, w.files, w.notes
	e.ExitTrap = w.sm
	if o.Line > 0 {
		o.Line -= h.offset(kind)
	}
	o.Frame = h.variantFrame(kind, o.Frame)
	switch o.Kind {
	case "timeout", "exited", KindTampered:
		e.Hazards = append(e.Hazards, Hazard{Input: h.input(i), Side: kind, Outcome: o})
	}
	return o, nil
}

// raises reports whether o is the labelled exception t (one of the seven
// java.lang types) or a subclass of it that is not itself another
// in-scope label (NumberFormatException extends IllegalArgumentException
// but is its own label).
func raises(o Outcome, t string) bool {
	if o.Kind != "threw" {
		return false
	}
	want := "java.lang." + t
	if o.Exception == want {
		return true
	}
	if corpus.ValidType(simple(o.Exception)) && strings.HasPrefix(o.Exception, "java.lang.") {
		return false
	}
	return slices.Contains(o.Supers, want)
}

// harnessReason is the record's reason for a harness error. The default
// receiver of an abstract class is tried only when no value of a concrete
// subclass could be built (receivers.go), and then fails to instantiate:
// that is a missing receiver, said as such (38 of the 1,036 grounded
// Defects4J pairs, most of them jackson-databind's; issue 16).
func harnessReason(msg string) string {
	if msg == "setup: java.lang.InstantiationException" {
		return "harness error: no receiver: the method's class is abstract and no concrete subclass could be built " +
			"through its public constructors and factories (" + msg + ")"
	}
	return "harness error: " + msg
}
