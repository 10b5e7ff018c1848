package jvm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// maxSideTries bounds the javac runs one side of a pair may go through
// without javac writing its class (an error in another file stopped code
// generation before it was reached).
const maxSideTries = 3

// side is the buggy or the fixed copy of a pair's real class.
type side struct {
	h     *harness
	kind  string // "B" or "F"
	path  string // its source file, named as the real file
	tries int
}

// compileRealBatch is compileBatch in project mode. Each side of a pair is
// its real class under its real name, so two sides with the same file name
// cannot share a javac run (nor, for a class, an output directory): the
// sides go in layers, one javac run each, in which every file name occurs
// once, and each side's class files are then moved into a directory of
// its own (sideDir), from which the worker loads it. Project-mode errors
// are final (no stubs are grown: the classpath has every type the class
// needs). The argument classes, one per pair in its own package, compile
// together afterwards, dropping candidates that do not compile.
func (v *Verifier) compileRealBatch(ctx context.Context, hs []*harness, batch int) error {
	srcRoot := filepath.Join(v.work, "src", strconv.Itoa(batch))
	runs := 0
	defer func() {
		for _, h := range hs {
			h.batchRounds = runs
		}
	}()
	pending, err := writeSides(hs, srcRoot)
	if err != nil {
		return err
	}
	for len(pending) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		layer, names, rest := nextLayer(pending)
		if len(layer) == 0 {
			break
		}
		retry, err := v.compileLayer(ctx, batch, &runs, layer, names)
		if err != nil {
			return err
		}
		pending = append(rest, retry...)
	}
	if err := v.compileArgs(ctx, hs, srcRoot, &runs); err != nil {
		return err
	}
	if v.compiled != nil {
		v.compiled(hs)
	}
	return nil
}

// writeSides writes both sides of every pair still in play, each in a
// source directory of its own under its real file name.
func writeSides(hs []*harness, srcRoot string) ([]*side, error) {
	var sides []*side
	for _, h := range hs {
		if h.failed != "" || h.real == nil {
			continue
		}
		for _, kind := range []string{"B", "F"} {
			dir := h.real.pkgDir(filepath.Join(srcRoot, "p"+strconv.Itoa(h.n)+kind))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("write harness for %s: %w", h.pair.PairID, err)
			}
			path := filepath.Join(dir, filepath.Base(filepath.FromSlash(h.pair.Source.Path)))
			if err := os.WriteFile(path, []byte(h.real.source(kind)), 0o644); err != nil {
				return nil, fmt.Errorf("write harness for %s: %w", h.pair.PairID, err)
			}
			sides = append(sides, &side{h: h, kind: kind, path: path})
		}
	}
	return sides, nil
}

// nextLayer takes from pending the sides of pairs still in play whose
// file names are not yet taken (names maps each to its side); rest are
// those left for a later layer.
func nextLayer(pending []*side) (layer []*side, names map[string]*side, rest []*side) {
	names = map[string]*side{}
	for _, s := range pending {
		if s.h.failed != "" {
			continue // its other side did not compile
		}
		base := filepath.Base(s.path)
		if names[base] != nil {
			rest = append(rest, s)
			continue
		}
		names[base] = s
		layer = append(layer, s)
	}
	return layer, names, rest
}

// compileLayer runs javac once on a layer, into a directory of its own,
// fails the sides it reports errors in and moves the class files of the
// others to their side directories; retry are the sides whose class
// javac did not write (an error elsewhere came first).
func (v *Verifier) compileLayer(ctx context.Context, batch int, runs *int, layer []*side, names map[string]*side) (retry []*side, err error) {
	out := filepath.Join(v.work, "layers", strconv.Itoa(batch)+"-"+strconv.Itoa(*runs))
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("compile batch %d: %w", batch, err)
	}
	args := javacArgs(out, v.classpath(), v.emptyDir)
	for _, s := range layer {
		s.h.rounds++
		args = append(args, s.path)
	}
	rc, diag, err := v.javac.compile(ctx, filepath.Join(v.work, "diag.txt"), args)
	if err != nil {
		return nil, fmt.Errorf("compile batch %d (%d classes, first %s): %w", batch, len(layer), layer[0].h.pair.PairID, err)
	}
	v.stats.javacRuns++
	*runs++
	if rc != 0 {
		if err := failSides(batch, rc, diag, names); err != nil {
			return nil, err
		}
	}
	if retry, err = v.takeLayer(batch, out, layer); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(out); err != nil {
		return nil, fmt.Errorf("compile batch %d: %w", batch, err)
	}
	return retry, nil
}

// failSides fails the pair of every side a failed javac run reported an
// error in (project-mode errors are final).
func failSides(batch, rc int, diag string, names map[string]*side) error {
	ds := parseDiagnostics(diag)
	if len(ds) == 0 {
		return fmt.Errorf("compile batch %d: javac failed (exit %d) without diagnostics: %s", batch, rc, firstLines(diag, 5))
	}
	for _, d := range ds {
		s := names[d.File]
		if s == nil {
			return fmt.Errorf("compile batch %d: javac reported %q, which maps to no pair", batch, d.Raw)
		}
		if s.h.failed == "" {
			s.h.failed = s.h.realFailure(d, s.kind)
		}
	}
	return nil
}

// sideNames name the sides in messages.
var sideNames = map[string]string{"B": "buggy", "F": "fixed"}

// takeLayer moves the class files of the layer's sides still in play out
// of javac's output directory; a side whose class is missing goes round
// again, up to maxSideTries.
func (v *Verifier) takeLayer(batch int, out string, layer []*side) (retry []*side, err error) {
	for _, s := range layer {
		if s.h.failed != "" {
			continue
		}
		ok, err := v.takeClasses(out, s)
		if err != nil {
			return nil, fmt.Errorf("compile batch %d: %w", batch, err)
		}
		if ok {
			continue
		}
		if s.tries++; s.tries >= maxSideTries {
			s.h.failed = fmt.Sprintf("cannot compile: javac wrote no class for the %s side in %d runs", sideNames[s.kind], s.tries)
			continue
		}
		retry = append(retry, s)
	}
	return retry, nil
}

// compileArgs compiles the argument classes of the pairs still in play,
// dropping candidates javac rejects, in at most maxStubRounds runs.
func (v *Verifier) compileArgs(ctx context.Context, hs []*harness, srcRoot string, runs *int) error {
	var active []*harness
	for _, h := range hs {
		if h.failed == "" && h.real != nil {
			active = append(active, h)
		}
	}
	for round := 0; len(active) > 0; round++ {
		if round == maxStubRounds {
			for _, h := range active {
				h.failed = fmt.Sprintf("cannot compile: argument class did not compile in %d javac rounds", maxStubRounds)
			}
			return nil
		}
		args := javacArgs(v.classes, v.classpath(), v.emptyDir)
		files, err := v.writeArgClasses(active, srcRoot)
		if err != nil {
			return err
		}
		rc, diag, err := v.javac.compile(ctx, filepath.Join(v.work, "diag.txt"), append(args, files.paths...))
		if err != nil {
			return fmt.Errorf("compile argument classes (%d pairs, first %s): %w", len(active), active[0].pair.PairID, err)
		}
		v.stats.javacRuns++
		*runs++
		per := map[*harness][]diagnostic{}
		if rc != 0 {
			if per, err = files.diagnosticsByPair(rc, diag); err != nil {
				return err
			}
		}
		active = v.repairArgs(active, per, files.texts)
	}
	return nil
}

// argFiles are one round's argument class sources.
type argFiles struct {
	paths  []string
	byFile map[string]*harness // file name → its pair
	texts  map[string]string   // file name → its text
}

// writeArgClasses writes the argument class of each pair and removes its
// old class file, so that its presence after the run means javac wrote it.
func (v *Verifier) writeArgClasses(active []*harness, srcRoot string) (argFiles, error) {
	files := argFiles{byFile: map[string]*harness{}, texts: map[string]string{}}
	for _, h := range active {
		dir := filepath.Join(srcRoot, "p"+strconv.Itoa(h.n))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return files, fmt.Errorf("write harness for %s: %w", h.pair.PairID, err)
		}
		name := h.class("A") + ".java"
		text := h.argsClass(v.opts.Budget)
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return files, fmt.Errorf("write harness for %s: %w", h.pair.PairID, err)
		}
		if err := os.Remove(h.argsClassFile(v.classes)); err != nil && !os.IsNotExist(err) {
			return files, fmt.Errorf("clean classes of %s: %w", h.pair.PairID, err)
		}
		files.byFile[name], files.texts[name] = h, text
		files.paths = append(files.paths, path)
	}
	return files, nil
}

// diagnosticsByPair maps a failed run's diagnostics to their pairs.
func (files argFiles) diagnosticsByPair(rc int, diag string) (map[*harness][]diagnostic, error) {
	ds := parseDiagnostics(diag)
	if len(ds) == 0 {
		return nil, fmt.Errorf("compile argument classes: javac failed (exit %d) without diagnostics: %s", rc, firstLines(diag, 5))
	}
	per := map[*harness][]diagnostic{}
	for _, d := range ds {
		h := files.byFile[d.File]
		if h == nil {
			return nil, fmt.Errorf("compile argument classes: javac reported %q, which maps to no pair", d.Raw)
		}
		per[h] = append(per[h], d)
	}
	return per, nil
}

// repairArgs applies a run's diagnostics to its pairs and returns those
// going round again: repaired ones, and those whose class javac did not
// write.
func (v *Verifier) repairArgs(active []*harness, per map[*harness][]diagnostic, texts map[string]string) []*harness {
	var next []*harness
	for _, h := range active {
		if ds := per[h]; len(ds) > 0 {
			h.repair(ds, texts)
			if h.failed == "" {
				next = append(next, h)
			}
			continue
		}
		if _, err := os.Stat(h.argsClassFile(v.classes)); err != nil {
			next = append(next, h) // an error elsewhere came first
		}
	}
	return next
}

// takeClasses moves the class files of one side (its file's top-level
// types and their nested and anonymous classes) from javac's output
// directory into the side's own directory; ok reports whether the class
// of the method was among them.
func (v *Verifier) takeClasses(out string, s *side) (ok bool, err error) {
	from := s.h.real.pkgDir(out)
	to := s.h.real.pkgDir(v.sideDir(s.h, s.kind))
	entries, err := os.ReadDir(from)
	if err != nil {
		if os.IsNotExist(err) {
			return false, nil
		}
		return false, fmt.Errorf("classes of %s: %w", s.h.pair.PairID, err)
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		return false, fmt.Errorf("classes of %s: %w", s.h.pair.PairID, err)
	}
	tops := s.h.real.topNames()
	for _, e := range entries {
		name := e.Name()
		base, isClass := strings.CutSuffix(name, ".class")
		if !isClass || !slices.ContainsFunc(tops, func(t string) bool { return base == t || strings.HasPrefix(base, t+"$") }) {
			continue
		}
		if err := os.Rename(filepath.Join(from, name), filepath.Join(to, name)); err != nil {
			return false, fmt.Errorf("classes of %s: %w", s.h.pair.PairID, err)
		}
		ok = ok || base == s.h.real.outer
	}
	return ok, nil
}

// sideDir holds one side's class files in project mode.
func (v *Verifier) sideDir(h *harness, kind string) string {
	return filepath.Join(v.work, "sides", strconv.Itoa(h.n)+kind)
}

// loader is the class path of the worker's child-first loader for one
// side of a project-mode pair: the side's patched class first, then the
// argument classes and the project's classes (the dependency jars stay
// with the worker's own loader). "" outside project mode.
func (v *Verifier) loader(h *harness, kind string) string {
	if v.opts.Project == nil || h.real == nil {
		return ""
	}
	return strings.Join([]string{v.sideDir(h, kind), v.classes, v.opts.Project.Classes}, string(os.PathListSeparator))
}
