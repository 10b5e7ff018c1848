package jvm

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// maxStubRounds bounds the javac rounds spent growing one pair's stubs.
const maxStubRounds = 8

// compileServerFlags are the javac server's JVM flags. C1 only: with C2
// the server spent about 60 % of its CPU compiling javac itself (C2 49.5 %,
// C1 10.8 %), more than a verification's rounds win back from the faster
// code.
func compileServerFlags() []string {
	return []string{"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto"}
}

// javacArgs are the options of every round. javac stops after flow
// analysis once a round has an error (should-stop.ifError=FLOW): every
// class is still attributed and flow-checked, so each pair gets all its
// diagnostics of the round, but no code is generated for an erroneous
// class. Generating it (ifError=GENERATE) can crash javac, which then
// swallows the crash because errors were reported and skips every class
// after it: the pairs behind it got neither diagnostics nor class files
// and went round alone, one pair per round.
func javacArgs(classes, classpath, empty string) []string {
	return []string{"-d", classes, "-cp", classpath, "-sourcepath", empty, "-implicit:none", "-proc:none",
		"-encoding", "UTF-8", "-nowarn", "-g:source,lines", "-XDrawDiagnostics", "-XDshould-stop.ifError=FLOW", "-Xmaxerrs", "1000000"}
}

// compileBatch compiles all harnesses of a batch with as few javac runs
// as possible: every round compiles every pair still in play in one javac
// invocation; the diagnostics, mapped to pairs by file name, grow stubs,
// drop argument candidates that do not compile, or mark a pair as
// uncompilable, and those pairs go round again. A pair without
// diagnostics is done once its class files exist. javac's default
// by-todo policy attributes, checks and generates class by class in
// command-line order and generates nothing after the first error, so a
// pair that had no diagnostics but whose classes were not written (an
// error came first) goes at the head of the next round, ahead of every
// file that can fail; it is not counted a round of its own.
func (v *Verifier) compileBatch(ctx context.Context, hs []*harness, batch int) error {
	if v.opts.Project != nil {
		return v.compileRealBatch(ctx, hs, batch)
	}
	b := &stubBatch{v: v, n: batch, srcRoot: filepath.Join(v.work, "src", strconv.Itoa(batch)),
		byFile: map[string]*harness{}, texts: map[string]string{}, paths: map[*harness][]string{}}
	for _, h := range hs {
		if h.failed == "" {
			b.active = append(b.active, h)
		}
	}
	err := b.run(ctx)
	for _, h := range hs {
		h.batchRounds = b.runs
	}
	if err != nil {
		return err
	}
	if v.compiled != nil {
		v.compiled(hs)
	}
	return nil
}

// run goes round until no pair is left in play or javac succeeds.
func (b *stubBatch) run(ctx context.Context) error {
	for len(b.active) > 0 || len(b.ready) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := b.writeActive(); err != nil {
			return err
		}
		if len(b.active) == 0 && len(b.ready) == 0 {
			return nil
		}
		if done, err := b.round(ctx); err != nil || done {
			return err
		}
	}
	return nil
}

// stubBatch is the state of compileBatch's rounds: the pairs going round
// again on their diagnostics (active) and those that compiled cleanly
// but whose classes an earlier error kept javac from writing (ready).
type stubBatch struct {
	v       *Verifier
	n       int
	srcRoot string
	byFile  map[string]*harness   // source file name → its pair
	texts   map[string]string     // source file name → its text
	paths   map[*harness][]string // the pair's source files, sorted
	active  []*harness
	ready   []*harness
	runs    int
}

// writeActive writes the sources of the active pairs for the next round,
// failing those whose stubs did not converge in maxStubRounds.
func (b *stubBatch) writeActive() error {
	run := b.active[:0:0]
	for _, h := range b.active {
		h.rounds++
		if h.rounds > maxStubRounds {
			h.rounds = maxStubRounds // the round it would need is not run
			h.failed = fmt.Sprintf("cannot compile: stubs did not converge in %d javac rounds", maxStubRounds)
			continue
		}
		run = append(run, h)
		if err := b.writeSources(h); err != nil {
			return err
		}
	}
	b.active = run
	return nil
}

// writeSources writes a pair's harness files into its own directory.
func (b *stubBatch) writeSources(h *harness) error {
	dir := filepath.Join(b.srcRoot, "p"+strconv.Itoa(h.n))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("write harness for %s: %w", h.pair.PairID, err)
	}
	b.paths[h] = b.paths[h][:0]
	for name, text := range h.sources(b.v.opts.Budget) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return fmt.Errorf("write harness for %s: %w", h.pair.PairID, err)
		}
		b.byFile[name] = h
		b.texts[name] = text
		b.paths[h] = append(b.paths[h], p)
	}
	slices.Sort(b.paths[h])
	return nil
}

// round runs javac once on the ready pairs, then the active ones, and
// sorts them by its diagnostics into the next round's active and ready
// pairs; done when javac succeeded.
func (b *stubBatch) round(ctx context.Context) (done bool, err error) {
	v := b.v
	all := append(slices.Clip(b.ready), b.active...)
	args := javacArgs(v.classes, v.classpath(), v.emptyDir)
	for _, h := range all {
		// Clear the pair's class files: after this round their presence
		// means javac generated them in it.
		if err := os.RemoveAll(h.classDir(v.classes)); err != nil {
			return false, fmt.Errorf("clean classes of %s: %w", h.pair.PairID, err)
		}
		args = append(args, b.paths[h]...)
	}
	rc, out, err := v.javac.compile(ctx, filepath.Join(v.work, "diag.txt"), args)
	if err != nil {
		return false, fmt.Errorf("compile batch %d (%d pairs, first %s): %w", b.n, len(all), all[0].pair.PairID, err)
	}
	v.stats.javacRuns++
	b.runs++
	if rc == 0 {
		return true, nil
	}
	perPair, err := b.diagnosticsByPair(out, rc, all)
	if err != nil {
		return false, err
	}
	next, wait := b.repairAll(all, perPair)
	if len(b.active) == 0 && len(wait) == len(b.ready) {
		// Only pairs that had compiled cleanly, and still no class
		// files: javac is not doing what this loop relies on.
		return false, fmt.Errorf("compile batch %d: javac (exit %d) wrote no classes for %d error-free pairs, first %s: %s",
			b.n, rc, len(wait), wait[0].pair.PairID, firstLines(out, 5))
	}
	b.active, b.ready = next, wait
	return false, nil
}

// diagnosticsByPair parses a failed round's javac output and maps each
// diagnostic to its pair by file name.
func (b *stubBatch) diagnosticsByPair(out string, rc int, all []*harness) (map[*harness][]diagnostic, error) {
	ds := parseDiagnostics(out)
	if len(ds) == 0 {
		return nil, fmt.Errorf("compile batch %d (%d pairs, first %s): javac failed (exit %d) without diagnostics: %s",
			b.n, len(all), all[0].pair.PairID, rc, firstLines(out, 5))
	}
	perPair := map[*harness][]diagnostic{}
	for _, d := range ds {
		h := b.byFile[d.File]
		if h == nil {
			return nil, fmt.Errorf("compile batch %d: javac reported %q, which maps to no pair", b.n, d.Raw)
		}
		perPair[h] = append(perPair[h], d)
	}
	return perPair, nil
}

// repairAll applies the round's diagnostics: a pair that had some and
// did not fail goes round again (next); one that had none but whose
// classes javac did not write waits at the head of the next round.
func (b *stubBatch) repairAll(all []*harness, perPair map[*harness][]diagnostic) (next, wait []*harness) {
	for _, h := range all {
		switch {
		case len(perPair[h]) > 0:
			h.repair(perPair[h], b.texts)
			if h.failed == "" {
				next = append(next, h)
			}
		case !h.generated(b.v.classes):
			wait = append(wait, h)
		}
	}
	return next, wait
}

// repair applies one round's diagnostics to a pair; it sets h.failed when
// one of them is a real compile error.
func (h *harness) repair(ds []diagnostic, texts map[string]string) {
	argFile := h.class("A") + ".java"
	drops := argDrops{cands: map[int][]int{}, vectors: map[int]string{}}
	stubsBefore := h.stubs.state()
	unfixed := "" // the first diagnostic no stub rule handled
	harness := h.harnessNames()
	// Argument errors caused by a missing class (new Node()) vanish once
	// the method's own errors have grown the stubs: judge them only in a
	// round where the methods compiled.
	argsOnly := !slices.ContainsFunc(ds, func(d diagnostic) bool { return d.File != argFile })
	for _, d := range ds {
		if d.File == argFile {
			if argsOnly && !h.noteArgError(d, drops) {
				return
			}
			continue
		}
		if h.real != nil {
			h.failed = h.realFailure(d, d.File[:1])
			return
		}
		if err := h.stubs.fix(d, lineOf(texts[d.File], d.Line), harness); err != nil && unfixed == "" {
			unfixed = "cannot compile: " + h.methodWhere(d) + ": " + diagMessage(d)
		}
	}
	// An error no rule fixes is final only when the stubs did not change
	// this round: javac reports the consequences of a stub's first guess
	// in the same run (an Object result used as an int after the override
	// rule retyped it), and the next run, bounded by maxStubRounds, tells.
	if unfixed != "" && h.stubs.state() == stubsBefore {
		h.failed = unfixed
		return
	}
	for _, k := range slices.Backward(slices.Sorted(maps.Keys(drops.vectors))) {
		h.dropInput(k, drops.vectors[k])
	}
	h.dropCandidates(drops.cands)
}

// argDrops are one round's argument-class errors: the candidates to drop
// per parameter, and the model vectors to drop with javac's message.
type argDrops struct {
	cands   map[int][]int
	vectors map[int]string
}

// noteArgError notes the candidate or model vector at an argument-class
// error's line for dropping; false when the error fails the pair (it is
// on no candidate's line).
func (h *harness) noteArgError(d diagnostic, drops argDrops) bool {
	pk, ok := h.argLines[d.Line]
	if h.model == nil {
		if !ok {
			h.failed = "cannot compile: argument class: " + d.Raw
			return false
		}
		drops.cands[pk[0]] = append(drops.cands[pk[0]], pk[1])
		return true
	}
	// A model's vector that does not compile is dropped alone; an error
	// outside the vectors drops them all (the methods still compile and
	// are recorded).
	if !ok {
		for k := range h.modelIdx {
			drops.vectors[k] = "argument class: " + diagMessage(d)
		}
	} else if _, dup := drops.vectors[pk[1]]; !dup {
		drops.vectors[pk[1]] = diagMessage(d)
	}
	return true
}

// methodWhere names the place of a diagnostic in the pair's files: the
// buggy or fixed method's line, or the file.
func (h *harness) methodWhere(d diagnostic) string {
	switch {
	case strings.HasPrefix(d.File, "B"):
		return fmt.Sprintf("buggy method line %d", d.Line-h.offset(""))
	case strings.HasPrefix(d.File, "F"):
		return fmt.Sprintf("fixed method line %d", d.Line-h.offset(""))
	}
	return d.File
}

// dropCandidates drops the argument candidates that did not compile,
// failing the pair when a parameter would have none left.
func (h *harness) dropCandidates(cands map[int][]int) {
	for p, ks := range cands {
		slices.Sort(ks)
		ks = slices.Compact(ks)
		for i := len(ks) - 1; i >= 0; i-- {
			if h.dropCandidate(p, ks[i]) {
				continue
			}
			if h.hasRecv && p == len(h.bsig.Params) {
				// No built receiver compiles: the class's own
				// no-argument constructor, as without receivers.
				h.hasRecv, h.cands = false, h.cands[:p]
				break
			}
			h.failed = fmt.Sprintf("cannot compile: no value of parameter %d (%s) compiles", p+1, h.bsig.Params[p].Type)
			return
		}
	}
}

// diagMessage is a diagnostic without its file:line:col prefix.
func diagMessage(d diagnostic) string {
	_, msg, _ := strings.Cut(d.Raw, ": ")
	return strings.TrimSpace(msg)
}

func lineOf(text string, n int) string {
	for i := 1; i < n; i++ {
		j := strings.IndexByte(text, '\n')
		if j < 0 {
			return ""
		}
		text = text[j+1:]
	}
	if j := strings.IndexByte(text, '\n'); j >= 0 {
		return text[:j]
	}
	return text
}

func firstLines(s string, n int) string {
	ls := strings.SplitN(s, "\n", n+1)
	if len(ls) > n {
		ls = ls[:n]
	}
	return strings.Join(ls, " | ")
}

func (h *harness) classDir(classes string) string {
	return filepath.Join(classes, pkgRoot, "p"+strconv.Itoa(h.n))
}

// generated reports whether javac wrote every top-level class of the
// pair: the method and argument classes and the stub classes, which in a
// round with errors elsewhere may not all have been reached.
func (h *harness) generated(classes string) bool {
	files := []string{h.classFile(classes, "B"), h.classFile(classes, "F"), h.classFile(classes, "A")}
	if len(h.stubs.super) > 0 {
		files = append(files, h.classFile(classes, "P"))
	}
	for _, c := range h.stubs.classes {
		files = append(files, filepath.Join(h.classDir(classes), c.name+".class"))
	}
	for _, file := range files {
		if _, err := os.Stat(file); err != nil {
			return false
		}
	}
	return true
}

// classFile is where javac writes the pair's class k ("B", "F", "A", "P"):
// in project mode the buggy and fixed methods live in renamed copies of
// their real class, in its own package.
func (h *harness) classFile(classes, k string) string {
	return filepath.Join(h.classDir(classes), h.class(k)+".class")
}
