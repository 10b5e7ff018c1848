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

// compileBatch compiles all harnesses of a batch with as few javac runs
// as possible: every round compiles every still-active pair in one javac
// invocation, which writes the class files of all error-free classes; the
// diagnostics, mapped to pairs by file name, grow stubs, drop argument
// candidates that do not compile, or mark a pair as uncompilable, and only
// those pairs go round again.
func (v *Verifier) compileBatch(ctx context.Context, hs []*harness, batch int) error {
	var active, pending []*harness
	for _, h := range hs {
		if h.failed == "" {
			active = append(active, h)
		}
	}
	srcRoot := filepath.Join(v.work, "src", strconv.Itoa(batch))
	for len(active) > 0 || len(pending) > 0 {
		if len(active) == 0 {
			// Pairs that were error-free but whose classes javac did not
			// write because of other pairs' errors: compile them alone.
			active, pending = pending, nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		byFile := map[string]*harness{}
		texts := map[string]string{}
		var files []string
		run := active[:0:0]
		for _, h := range active {
			h.rounds++
			if h.rounds > maxStubRounds {
				h.failed = fmt.Sprintf("cannot compile: stubs did not converge in %d javac rounds", maxStubRounds)
				continue
			}
			run = append(run, h)
			// Clear the pair's class files: after this round their presence
			// means javac generated them in it.
			if err := os.RemoveAll(h.classDir(v.classes)); err != nil {
				return fmt.Errorf("clean classes of %s: %w", h.pair.PairID, err)
			}
			dir := filepath.Join(srcRoot, "p"+strconv.Itoa(h.n))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("write harness for %s: %w", h.pair.PairID, err)
			}
			for name, text := range h.sources(v.opts.Budget) {
				p := filepath.Join(dir, name)
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					return fmt.Errorf("write harness for %s: %w", h.pair.PairID, err)
				}
				byFile[name] = h
				texts[name] = text
				files = append(files, p)
			}
		}
		active = run
		if len(active) == 0 {
			continue
		}
		slices.Sort(files)
		args := append([]string{"-d", v.classes, "-cp", v.classpath(), "-sourcepath", v.emptyDir, "-implicit:none", "-proc:none",
			"-encoding", "UTF-8", "-nowarn", "-g:source,lines", "-XDrawDiagnostics", "-XDshould-stop.ifError=GENERATE", "-Xmaxerrs", "1000000"}, files...)
		rc, out, err := v.javac.compile(ctx, filepath.Join(v.work, "diag.txt"), args)
		if err != nil {
			return fmt.Errorf("compile batch %d (%d pairs, first %s): %w", batch, len(active), active[0].pair.PairID, err)
		}
		v.stats.javacRuns++
		if rc == 0 {
			active = nil
			continue
		}
		ds := parseDiagnostics(out)
		if len(ds) == 0 {
			return fmt.Errorf("compile batch %d (%d pairs, first %s): javac failed (exit %d) without diagnostics: %s",
				batch, len(active), active[0].pair.PairID, rc, firstLines(out, 5))
		}
		perPair := map[*harness][]diagnostic{}
		for _, d := range ds {
			h := byFile[d.File]
			if h == nil {
				return fmt.Errorf("compile batch %d: javac reported %q, which maps to no pair", batch, d.Raw)
			}
			perPair[h] = append(perPair[h], d)
		}
		// With should-stop.ifError=GENERATE javac writes the class files
		// of error-free classes, but not always (a parse error anywhere, or
		// an erroneous class ahead in its queue, stops it): a pair with no
		// diagnostics is done when its classes exist, else pending.
		next := active[:0:0]
		for _, h := range active {
			if d := perPair[h]; len(d) > 0 {
				h.repair(d, texts)
				if h.failed == "" {
					next = append(next, h)
				}
			} else if !h.generated(v.classes) {
				h.rounds-- // not its fault
				pending = append(pending, h)
			}
		}
		active = next
	}
	return nil
}

// repair applies one round's diagnostics to a pair; it sets h.failed when
// one of them is a real compile error.
func (h *harness) repair(ds []diagnostic, texts map[string]string) {
	drops := map[int][]int{}
	vdrops := map[int]string{} // model vector → javac's message
	stubsBefore := h.stubs.state()
	unfixed := "" // the first diagnostic no stub rule handled
	harness := h.harnessNames()
	// Argument errors caused by a missing class (new Node()) vanish once
	// the method's own errors have grown the stubs: judge them only in a
	// round where the methods compiled.
	argsOnly := true
	for _, d := range ds {
		if d.File != h.class("A")+".java" {
			argsOnly = false
		}
	}
	for _, d := range ds {
		if d.File == h.class("A")+".java" {
			if !argsOnly {
				continue
			}
			pk, ok := h.argLines[d.Line]
			if h.model != nil {
				// A model's vector that does not compile is dropped alone;
				// an error outside the vectors drops them all (the
				// methods still compile and are recorded).
				if !ok {
					for k := range h.modelIdx {
						vdrops[k] = "argument class: " + diagMessage(d)
					}
				} else if _, dup := vdrops[pk[1]]; !dup {
					vdrops[pk[1]] = diagMessage(d)
				}
				continue
			}
			if !ok {
				h.failed = "cannot compile: argument class: " + d.Raw
				return
			}
			drops[pk[0]] = append(drops[pk[0]], pk[1])
			continue
		}
		text := lineOf(texts[d.File], d.Line)
		if h.real != nil {
			h.failed = h.realFailure(d)
			return
		}
		if err := h.stubs.fix(d, text, harness); err != nil {
			if unfixed == "" {
				where := d.File
				switch {
				case strings.HasPrefix(d.File, "B"):
					where = fmt.Sprintf("buggy method line %d", d.Line-h.offset())
				case strings.HasPrefix(d.File, "F"):
					where = fmt.Sprintf("fixed method line %d", d.Line-h.offset())
				}
				unfixed = fmt.Sprintf("cannot compile: %s: %s", where, diagMessage(d))
			}
			continue
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
	for _, k := range slices.Backward(slices.Sorted(maps.Keys(vdrops))) {
		h.dropInput(k, vdrops[k])
	}
	for p, ks := range drops {
		slices.Sort(ks)
		ks = slices.Compact(ks)
		for i := len(ks) - 1; i >= 0; i-- {
			if !h.dropCandidate(p, ks[i]) {
				h.failed = fmt.Sprintf("cannot compile: no value of parameter %d (%s) compiles", p+1, h.bsig.Params[p].Type)
				return
			}
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

// generated reports whether javac wrote the pair's three main classes.
func (h *harness) generated(classes string) bool {
	for _, k := range []string{"B", "F", "A"} {
		file := filepath.Join(h.classDir(classes), h.class(k)+".class")
		if h.real != nil && k != "A" {
			file = h.real.classFile(classes, k, h.n)
		}
		if _, err := os.Stat(file); err != nil {
			return false
		}
	}
	return true
}
