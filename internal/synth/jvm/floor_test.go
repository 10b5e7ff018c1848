package jvm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/stats"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// BenchmarkVerifyFloor sets `synth verify` against its floor (issue 19):
// the floor is what the same verdicts cost if the final stubs were known,
// one javac process over the final harness sources of the pairs that
// compiled plus one java worker making exactly the calls verify made. The
// verify side is New + Verify + Close (the javac server, every stub-repair
// round, the worker). Each b.Loop iteration is one round of both sides,
// the order alternating, so a shared machine's load falls on both; the
// ratio is reported as the median of the rounds' ratios with its min and
// max (x-floor, x-floor-min, x-floor-max), the load average in the log.
//
// Corpora: BENCHFORGE_JVM_BENCH_CORPUS, a comma-separated list of
// [name=]pairs.jsonl (default testdata/pairs.jsonl):
//
//	bin/benchforge demo --out /tmp/demo --skip audit/testbed
//	bin/benchforge synth generate --generator mutation --out /tmp/gen && head -1000 /tmp/gen/pairs.jsonl >/tmp/m1000.jsonl
//	BENCHFORGE_JVM_BENCH_CORPUS=demo=/tmp/demo/synth/pairs.jsonl,m1000=/tmp/m1000.jsonl \
//	  go test ./internal/synth/jvm -run '^$' -bench VerifyFloor -benchtime 3x -timeout 1h
//
// Every round's verdicts must equal the first run's. With
// BENCHFORGE_JVM_BENCH_VERDICTS=DIR the verdicts are also compared with
// DIR/NAME.jsonl, written by the first run that finds none: run it once
// on the old code and once on the new to check that a change kept every
// verdict.
func BenchmarkVerifyFloor(b *testing.B) {
	opts := needJDK(b)
	spec := os.Getenv("BENCHFORGE_JVM_BENCH_CORPUS")
	if spec == "" {
		spec = "testdata/pairs.jsonl"
	}
	for _, item := range strings.Split(spec, ",") {
		name, path, ok := strings.Cut(item, "=")
		if !ok {
			path, name = item, strings.TrimSuffix(filepath.Base(item), ".jsonl")
		}
		b.Run(name, func(b *testing.B) {
			pairs, err := jsonl.ReadFile[corpus.Pair](path)
			testcheck.Must(b, err)
			benchFloor(b, name, pairs, opts)
		})
	}
}

func benchFloor(b *testing.B, name string, pairs []corpus.Pair, opts Options) {
	ctx := context.Background()
	// The untimed first run fixes the verdicts and what the floor does.
	ref, fl, err := verifyTraced(ctx, pairs, opts)
	testcheck.Must(b, err)
	if dir := os.Getenv("BENCHFORGE_JVM_BENCH_VERDICTS"); dir != "" {
		path := filepath.Join(dir, name+".jsonl")
		whys, err := checkVerdictFile(path, ref.verdicts)
		if err != nil {
			b.Error(err)
		}
		b.Logf("%s: %d pairs, verdicts checked against %s: %d compile reasons changed\n%s", name, len(pairs), path, len(whys), strings.Join(whys, "\n"))
	}
	var tv, tf, ratio, cv, cf, cratio []float64
	round := 0
	for b.Loop() {
		var dv, df, uv, uf time.Duration
		verifySide := func() {
			t0, u0 := time.Now(), cpuTime()
			got, err := verifyRun(ctx, pairs, opts)
			dv, uv = time.Since(t0), cpuTime()-u0
			testcheck.Must(b, err)
			if d, _ := diffVerdicts(ref.verdicts, got.verdicts); len(d) > 0 {
				b.Errorf("round %d: verdicts differ from the first run:\n%s", round, strings.Join(d, "\n"))
			}
		}
		floorSide := func() {
			t0, u0 := time.Now(), cpuTime()
			err := fl.run(ctx, opts)
			df, uf = time.Since(t0), cpuTime()-u0
			testcheck.Must(b, err)
		}
		if round%2 == 0 {
			verifySide()
			floorSide()
		} else {
			floorSide()
			verifySide()
		}
		tv, tf, ratio = append(tv, dv.Seconds()), append(tf, df.Seconds()), append(ratio, dv.Seconds()/df.Seconds())
		cv, cf, cratio = append(cv, uv.Seconds()), append(cf, uf.Seconds()), append(cratio, uv.Seconds()/uf.Seconds())
		round++
	}
	b.ReportMetric(median(tv), "verify-s")
	b.ReportMetric(median(tf), "floor-s")
	b.ReportMetric(median(ratio), "x-floor")
	b.ReportMetric(slices.Min(ratio), "x-floor-min")
	b.ReportMetric(slices.Max(ratio), "x-floor-max")
	b.ReportMetric(median(cratio), "x-floor-cpu")
	b.ReportMetric(float64(ref.javacRuns), "javac-runs")
	b.ReportMetric(float64(ref.rounds), "pair-rounds")
	b.ReportMetric(float64(len(fl.pairs)), "compiled")
	b.Logf("%s: %d pairs, %d compiled, %d calls; verify %.2fs [%.2f–%.2f], floor %.2fs [%.2f–%.2f], ratio %.2f× [%.2f–%.2f] over %d rounds; load average %s",
		name, len(pairs), len(fl.pairs), fl.calls(), median(tv), slices.Min(tv), slices.Max(tv), median(tf), slices.Min(tf), slices.Max(tf),
		median(ratio), slices.Min(ratio), slices.Max(ratio), len(ratio), loadAverage())
	b.Logf("%s: CPU (this process and its children): verify %.2fs [%.2f–%.2f], floor %.2fs [%.2f–%.2f], ratio %.2f× [%.2f–%.2f]",
		name, median(cv), slices.Min(cv), slices.Max(cv), median(cf), slices.Min(cf), slices.Max(cf), median(cratio), slices.Min(cratio), slices.Max(cratio))
}

// verdict is what a pair's record concludes; the floor benchmark and the
// before/after check compare these, not timings or the stubs' order.
// Why, the first diagnostic no stub rule fixes, is compared apart: which
// one comes first depends on what javac reports in a round, not on
// whether the pair compiles.
type verdict struct {
	PairID    string   `json:"pair_id"`
	Status    string   `json:"status"`
	Reason    string   `json:"reason,omitempty"`
	Criteria  Criteria `json:"criteria"`
	CompileOK bool     `json:"compile_ok"`
	Calls     int      `json:"calls"`
	Why       string   `json:"compile_reason,omitempty"`
}

func verdictOf(e Execution) verdict {
	return verdict{PairID: e.PairID, Status: e.Status, Reason: e.Reason, Criteria: e.Criteria,
		CompileOK: e.Compile.OK, Calls: e.Calls, Why: e.Compile.Reason}
}

// diffVerdicts lists the pairs whose verdicts differ (diffs) and those
// whose verdicts agree but not their compile reasons (whys), in want's
// order.
func diffVerdicts(want, got []verdict) (diffs, whys []string) {
	byID := map[string]verdict{}
	for _, v := range got {
		byID[v.PairID] = v
	}
	for _, w := range want {
		g, ok := byID[w.PairID]
		delete(byID, w.PairID)
		if !ok {
			diffs = append(diffs, w.PairID+": no record")
			continue
		}
		gw, ww := g.Why, w.Why
		g.Why, w.Why = "", ""
		switch {
		case g != w:
			diffs = append(diffs, fmt.Sprintf("%s: was %+v, now %+v", w.PairID, w, g))
		case gw != ww:
			whys = append(whys, fmt.Sprintf("%s: compile reason was %q, now %q", w.PairID, ww, gw))
		}
	}
	var extra []string
	for id := range byID {
		extra = append(extra, id+": not in the reference")
	}
	slices.Sort(extra)
	return append(diffs, extra...), whys
}

// checkVerdictFile compares vs with the verdicts in path, or writes them
// there when path does not exist. It returns the compile reasons that
// changed; a changed verdict is an error.
func checkVerdictFile(path string, vs []verdict) ([]string, error) {
	want, err := jsonl.ReadFile[verdict](path)
	if errors.Is(err, errs.ErrNotFound) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("write reference verdicts: %w", err)
		}
		return nil, jsonl.Rewrite(path, vs)
	}
	if err != nil {
		return nil, fmt.Errorf("read reference verdicts: %w", err)
	}
	d, whys := diffVerdicts(want, vs)
	if len(d) > 0 {
		return whys, fmt.Errorf("verdicts differ from %s in %d of %d pairs:\n%s", path, len(d), len(want), strings.Join(d, "\n"))
	}
	return whys, nil
}

type runResult struct {
	verdicts  []verdict // in corpus order
	javacRuns int
	rounds    int // Σ per-pair javac rounds
}

func verifyRun(ctx context.Context, pairs []corpus.Pair, opts Options) (runResult, error) {
	r, _, err := verify1(ctx, pairs, opts, false)
	return r, err
}

func verifyTraced(ctx context.Context, pairs []corpus.Pair, opts Options) (runResult, *floor, error) {
	return verify1(ctx, pairs, opts, true)
}

// verify1 is one `synth verify` of pairs; with trace it also returns the
// floor: the final sources and the calls of every pair that compiled.
func verify1(ctx context.Context, pairs []corpus.Pair, opts Options, trace bool) (runResult, *floor, error) {
	v, err := New(ctx, opts)
	if err != nil {
		return runResult{}, nil, err
	}
	defer v.Close()
	fl := &floor{jdk: v.jdk, workerDir: v.workerDir}
	byID := map[string]*floorPair{}
	if trace {
		v.compiled = func(hs []*harness) {
			for _, h := range hs {
				if h.failed != "" {
					continue
				}
				p := &floorPair{n: h.n, errorType: h.pair.ErrorType, srcs: h.sources(v.opts.Budget),
					b: h.fqcn("B"), f: h.fqcn("F"), a: h.fqcn("A"), bName: h.bsig.Name, fName: h.fsig.Name}
				for i := range h.vecs {
					p.vecs = append(p.vecs, h.vector(i))
				}
				byID[h.pair.PairID] = p
			}
		}
	}
	recs := map[string]Execution{}
	if err := v.Verify(ctx, pairs, func(e Execution) error { recs[e.PairID] = e; return nil }); err != nil {
		return runResult{}, nil, err
	}
	r := runResult{javacRuns: v.stats.javacRuns}
	for _, p := range pairs {
		e, ok := recs[p.PairID]
		if !ok {
			return r, nil, fmt.Errorf("no record for %s", p.PairID)
		}
		r.verdicts = append(r.verdicts, verdictOf(e))
		r.rounds += e.Compile.Rounds
		if fp := byID[p.PairID]; fp != nil {
			fp.tried, fp.calls = e.InputsTried, e.Calls
			fl.pairs = append(fl.pairs, fp)
		}
	}
	return r, fl, nil
}

// floor is the work a verification cannot avoid: compiling the harnesses
// that compile, once, and making the calls that decide the verdicts.
type floor struct {
	jdk       JDK
	workerDir string
	pairs     []*floorPair
}

type floorPair struct {
	n            int
	errorType    string
	srcs         map[string]string // final harness sources
	b, f, a      string            // buggy, fixed and argument classes
	bName, fName string
	vecs         []string
	tried, calls int // what verify did: buggy calls, all calls
}

func (fl *floor) calls() int {
	n := 0
	for _, p := range fl.pairs {
		n += p.calls
	}
	return n
}

// run compiles every pair's final sources in one javac process and
// replays verify's calls in one worker JVM: buggy on each input verify
// tried, fixed where the buggy method raised the labelled type and the
// budget allowed, which is the order run uses.
func (fl *floor) run(ctx context.Context, opts Options) error {
	dir, err := os.MkdirTemp("", "benchforge-floor-")
	if err != nil {
		return fmt.Errorf("floor: %w", err)
	}
	defer os.RemoveAll(dir)
	classes, run := filepath.Join(dir, "classes"), filepath.Join(dir, "run")
	args := []string{"-d", classes, "-implicit:none", "-proc:none", "-encoding", "UTF-8", "-nowarn", "-g:source,lines"}
	files, err := fl.writeSources(filepath.Join(dir, "src"))
	if err != nil {
		return err
	}
	args = append(args, files...)
	if err := os.MkdirAll(run, 0o755); err != nil {
		return fmt.Errorf("floor: %w", err)
	}
	if len(fl.pairs) == 0 {
		return nil
	}
	argfile := filepath.Join(dir, "javac.args")
	if err := os.WriteFile(argfile, []byte(strings.Join(args, "\n")+"\n"), 0o644); err != nil {
		return fmt.Errorf("floor: %w", err)
	}
	if out, err := exec.CommandContext(ctx, fl.jdk.Javac, "@"+argfile).CombinedOutput(); err != nil {
		return fmt.Errorf("floor: javac: %w: %s", err, firstLines(string(out), 10))
	}
	w := &worker{jdk: fl.jdk, classpath: fl.workerDir + string(os.PathListSeparator) + classes, dir: run, heap: opts.Heap}
	if w.heap == "" {
		w.heap = "256m"
	}
	defer w.stop()
	timeout := opts.Timeout
	if timeout == 0 {
		timeout = 2 * time.Second
	}
	budget := opts.Budget
	if budget == 0 {
		budget = 200
	}
	for _, p := range fl.pairs {
		if err := p.replay(ctx, w, timeout, budget); err != nil {
			return err
		}
	}
	return nil
}

// writeSources writes every pair's final sources under src, each pair in
// its own directory, and returns their paths.
func (fl *floor) writeSources(src string) ([]string, error) {
	var files []string
	for _, p := range fl.pairs {
		d := filepath.Join(src, "p"+strconv.Itoa(p.n))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("floor: %w", err)
		}
		for name, text := range p.srcs {
			f := filepath.Join(d, name)
			if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
				return nil, fmt.Errorf("floor: %w", err)
			}
			files = append(files, f)
		}
	}
	return files, nil
}

// replay makes verify's calls of one pair on w and checks that they are
// as many as verify made.
func (p *floorPair) replay(ctx context.Context, w *worker, timeout time.Duration, budget int) error {
	calls := 0
	for i := 0; i < p.tried && i < len(p.vecs); i++ {
		bo, err := w.call(ctx, p.b, p.bName, p.a, p.vecs[i], "", timeout)
		if err != nil {
			return fmt.Errorf("floor: %w", err)
		}
		calls++
		if !raises(bo, p.errorType) || calls >= budget {
			continue
		}
		if _, err := w.call(ctx, p.f, p.fName, p.a, p.vecs[i], "", timeout); err != nil {
			return fmt.Errorf("floor: %w", err)
		}
		calls++
	}
	if calls != p.calls {
		return fmt.Errorf("floor: pair p%d: %d calls, verify made %d: not the same work", p.n, calls, p.calls)
	}
	return nil
}

// median is stats.Median of a non-empty sample.
func median(xs []float64) float64 {
	m, _ := stats.Median(xs)
	return m
}

// cpuTime is the CPU this process and its waited-for children used: on a
// shared machine it moves less with the load than the wall clock does.
// Both sides stop and wait for every JVM they start, so theirs count.
func cpuTime() time.Duration {
	var self, kids syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids) != nil {
		return 0
	}
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	return tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// TestDiffVerdicts pins the before/after check: equal runs agree, a
// changed, missing or extra pair is named, and a changed compile reason
// alone is not a changed verdict.
func TestDiffVerdicts(t *testing.T) {
	a := verdict{PairID: "a", Status: StatusConfirmed, Criteria: Criteria{A: true, B: true, C: true}, CompileOK: true, Calls: 3}
	b := verdict{PairID: "b", Status: StatusUnconfirmed, Reason: "cannot compile", Why: "cannot compile: x"}
	if d, w := diffVerdicts([]verdict{a, b}, []verdict{b, a}); len(d)+len(w) != 0 {
		t.Errorf("same verdicts in another order: %v %v", d, w)
	}
	c := a
	c.Criteria.C, c.Status = false, StatusUnconfirmed
	extra := verdict{PairID: "z"}
	d, _ := diffVerdicts([]verdict{a, b}, []verdict{c, extra})
	checkPrefixes(t, "diff", d, "a: was", "b: no record", "z: not in the reference")
	b2 := b
	b2.Why = "cannot compile: y"
	d, w := diffVerdicts([]verdict{a, b}, []verdict{a, b2})
	checkPrefixes(t, "changed compile reason: diffs", d)
	checkPrefixes(t, "changed compile reason: whys", w, "b: compile reason")
	path := filepath.Join(t.TempDir(), "v", "x.jsonl")
	if _, err := checkVerdictFile(path, []verdict{a, b}); err != nil {
		t.Fatalf("first check writes the reference: %v", err)
	}
	w, err := checkVerdictFile(path, []verdict{b2, a})
	testcheck.Must(t, err)
	testcheck.Eq(t, "same verdicts: whys", len(w), 1)
	_, err = checkVerdictFile(path, []verdict{c, b})
	if err == nil || !strings.Contains(err.Error(), "in 1 of 2 pairs") {
		t.Errorf("changed verdict: err = %v", err)
	}
}

// checkPrefixes checks that lines are as many as prefixes, each starting
// with its prefix.
func checkPrefixes(t *testing.T, what string, lines []string, prefixes ...string) {
	t.Helper()
	if len(lines) != len(prefixes) {
		t.Fatalf("%s = %q, want %d lines", what, lines, len(prefixes))
	}
	for i, p := range prefixes {
		testcheck.Prefix(t, fmt.Sprintf("%s line %d", what, i), lines[i], p)
	}
}
