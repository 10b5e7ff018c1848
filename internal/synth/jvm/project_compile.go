package jvm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// maxSideTries bounds the error-free javac runs a unit may go through
// without javac writing its class.
const maxSideTries = 3

// side is the buggy or the fixed variant of a pair in its unit.
type side struct {
	h    *harness
	kind string // "B" or "F"
}

// compileRealBatch is compileBatch in project mode. The pairs' files are
// compiled as units (variants.go): each file once, with every pair's two
// variants in it. Two units of the same file name cannot share a javac
// run (javac names files by base name in its diagnostics), so units go in
// layers, one javac run each, in which every file name occurs once; a
// batch sorted by file has one unit per file and so, mostly, one layer.
// Each side's class files are then linked into a directory of its own
// (sideDir), from which the worker loads it. Project-mode errors are
// final for the pair whose variant they are in (no stubs are grown: the
// classpath has every type the class needs), and the unit goes round
// again without it. The argument classes, one per pair in its own
// package, compile together afterwards, dropping candidates that do not
// compile.
func (v *Verifier) compileRealBatch(ctx context.Context, hs []*harness, batch int) error {
	srcRoot := filepath.Join(v.work, "src", strconv.Itoa(batch))
	runs := 0
	defer func() {
		for _, h := range hs {
			h.batchRounds = runs
		}
	}()
	pending, err := fileUnits(hs)
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
		retry, err := v.compileLayer(ctx, batch, &runs, srcRoot, layer, names)
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

// nextLayer takes from pending the units with sides still in play whose
// file names are not yet taken (names maps each to its unit); rest are
// those left for a later layer. A unit that must compile alone (its layer
// named a source-path file: splitFault) makes a layer of its own, and
// units without the source path share a layer only with each other, so
// that a unit's source path never depends on the other units of its
// batch.
func nextLayer(pending []*unit) (layer []*unit, names map[string]*unit, rest []*unit) {
	names = map[string]*unit{}
	for _, u := range pending {
		if len(u.live()) == 0 {
			continue
		}
		base := filepath.Base(filepath.FromSlash(u.path))
		if names[base] != nil || !layerTakes(layer, u) {
			rest = append(rest, u)
			continue
		}
		names[base] = u
		layer = append(layer, u)
	}
	return layer, names, rest
}

// layerTakes reports whether u may join layer.
func layerTakes(layer []*unit, u *unit) bool {
	if len(layer) == 0 {
		return true
	}
	return !u.alone && !layer[0].alone && u.noSourcePath == layer[0].noSourcePath
}

// compileLayer writes the layer's units and runs javac once on them, into
// a directory of its own; it fails the pairs whose variants javac reports
// errors in and links the class files of the others into their side
// directories. retry are the units to compile again: those that lost a
// pair, and those whose class javac did not write.
func (v *Verifier) compileLayer(ctx context.Context, batch int, runs *int, srcRoot string, layer []*unit, names map[string]*unit) (retry []*unit, err error) {
	run := strconv.Itoa(batch) + "-" + strconv.Itoa(*runs)
	out := filepath.Join(v.work, "layers", run)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("compile batch %d: %w", batch, err)
	}
	sp := v.unitSourcePath()
	if layer[0].noSourcePath {
		sp = v.emptyDir
	}
	args := append(javacArgs(out, v.compileClasspath(), sp), "--release", "8")
	for i, u := range layer {
		path, err := u.write(filepath.Join(srcRoot, "u"+run+"-"+strconv.Itoa(i)))
		if err != nil {
			return nil, fmt.Errorf("compile batch %d: %w", batch, err)
		}
		if path == "" {
			continue
		}
		for _, s := range u.live() {
			s.h.rounds++
		}
		args = append(args, path)
	}
	rc, diag, err := v.javac.compile(ctx, filepath.Join(v.work, "diag.txt"), args)
	if err != nil {
		return nil, fmt.Errorf("compile batch %d (%d files, first %s): %w", batch, len(layer), layer[0].path, err)
	}
	v.stats.javacRuns++
	*runs++
	if rc != 0 {
		if sp != v.emptyDir && sourcePathFault(diag, func(f string) bool { return names[f] != nil }) {
			splitFault(layer)
			return layer, os.RemoveAll(out)
		}
		if err := failVariants(batch, rc, diag, names); err != nil {
			return nil, err
		}
		// Nothing is generated in a run with errors (should-stop.ifError=FLOW).
		return layer, os.RemoveAll(out)
	}
	if retry, err = v.takeLayer(batch, out, layer); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(out); err != nil {
		return nil, fmt.Errorf("compile batch %d: %w", batch, err)
	}
	return retry, nil
}

// unitSourcePath is the units' -sourcepath: none when every production
// class was compiled; for an on-demand build (which compiled only the
// classes its roots reach) the project's source roots, so that a package
// a file imports whole but the build never needed still exists for javac
// (mockito's org.mockito.exceptions.base); -implicit:none writes nothing
// from them, so a class only found there is missing at run time (the
// worker reports NoClassDefFoundError as a harness error). The units are compiled with --release 8, as the build was
// (commons-collections' IteratorUtils compiles there and not against the
// JDK 17 API).
func (v *Verifier) unitSourcePath() string {
	if p := v.opts.Project; p != nil && p.OnDemand {
		return strings.Join(p.SourcePath, string(os.PathListSeparator))
	}
	return v.emptyDir
}

// sourcePathFault reports whether a failed run's diagnostics name a file
// that is not one of the run's own (ours): a source-path file the build
// never compiled, such as one needing a source only a build tool
// generates (jackson-dataformat-xml's PackageVersion) or one whose
// dependency is absent (commons-cli's TypeHandler without commons-lang).
func sourcePathFault(diag string, ours func(file string) bool) bool {
	for _, d := range parseDiagnostics(diag) {
		if !ours(d.File) {
			return true
		}
	}
	return false
}

// splitFault handles a source-path fault of a layer: a layer of several
// units goes again one unit a layer, since any of them may be the one
// that reached the file; a unit that faults alone goes again without the
// source path. The decision is the unit's own, never its batch's: before,
// the first fault turned the source path off for the rest of the run, so
// a pair compiled with it or without it depending on which pairs were
// batched and compiled before it.
func splitFault(layer []*unit) {
	if len(layer) > 1 {
		for _, u := range layer {
			u.alone = true
		}
		return
	}
	layer[0].alone, layer[0].noSourcePath = false, true
}

// write writes the unit's file, with its live variants, under dir as its
// package's directory and real file name, and returns its path.
func (u *unit) write(dir string) (string, error) {
	text, err := u.text()
	if err != nil {
		for _, s := range u.live() {
			s.h.failed = "cannot compile: " + err.Error()
		}
		return "", nil
	}
	rc := u.sides[0].h.real
	pdir := rc.pkgDir(dir)
	if err := os.MkdirAll(pdir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(pdir, filepath.Base(filepath.FromSlash(u.path)))
	return path, os.WriteFile(path, []byte(text), 0o644)
}

// failVariants fails the pair of every variant a failed javac run reported
// an error in; an error outside every variant (in an added constructor)
// fails every pair of its unit. Project-mode errors are final.
func failVariants(batch, rc int, diag string, names map[string]*unit) error {
	ds := parseDiagnostics(diag)
	if len(ds) == 0 {
		return fmt.Errorf("compile batch %d: javac failed (exit %d) without diagnostics: %s", batch, rc, firstLines(diag, 5))
	}
	for _, d := range ds {
		u := names[d.File]
		if u == nil {
			return fmt.Errorf("compile batch %d: javac reported %q, which maps to no pair", batch, d.Raw)
		}
		if s := u.variantAt(d.Line); s != nil {
			if s.h.failed == "" {
				s.h.failed = s.h.realFailure(d, s.kind)
			}
			continue
		}
		for _, s := range u.live() {
			s.h.failed = s.h.outsideFailure(d, u.origLine(d.Line))
		}
	}
	return nil
}

// sideNames name the sides in messages.
var sideNames = map[string]string{"B": "buggy", "F": "fixed"}

// takeLayer links the class files of the layer's units out of javac's
// output directory; a unit whose class is missing goes round again, up to
// maxSideTries.
func (v *Verifier) takeLayer(batch int, out string, layer []*unit) (retry []*unit, err error) {
	for _, u := range layer {
		ok, err := v.linkClasses(out, u)
		if err != nil {
			return nil, fmt.Errorf("compile batch %d: %w", batch, err)
		}
		if ok {
			for _, s := range u.live() {
				s.h.argNoSourcePath = u.noSourcePath // the same imports
			}
			continue
		}
		if u.tries++; u.tries >= maxSideTries {
			for _, s := range u.live() {
				s.h.failed = fmt.Sprintf("cannot compile: javac wrote no class for %s in %d runs", u.path, u.tries)
			}
			continue
		}
		retry = append(retry, u)
	}
	return retry, nil
}

// compileArgs compiles the argument classes of the pairs still in play,
// dropping candidates javac rejects, in at most maxStubRounds rounds. A
// round is one javac run per argGroups group.
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
		var next []*harness
		for _, g := range v.argGroups(active) {
			more, err := v.compileArgGroup(ctx, g, srcRoot, runs)
			if err != nil {
				return err
			}
			next = append(next, more...)
		}
		active = next
	}
	return nil
}

// argGroup are argument classes compiled in one javac run with one
// source path.
type argGroup struct {
	hs []*harness
	sp string
}

// argGroups splits active by source-path state, as nextLayer does units:
// the pairs with the source path together, those without it together,
// and each pair that must compile alone (splitArgFault) by itself.
func (v *Verifier) argGroups(active []*harness) []argGroup {
	with, without := argGroup{sp: v.unitSourcePath()}, argGroup{sp: v.emptyDir}
	var alone []argGroup
	for _, h := range active {
		switch {
		case h.argNoSourcePath:
			without.hs = append(without.hs, h)
		case h.argAlone:
			alone = append(alone, argGroup{hs: []*harness{h}, sp: with.sp})
		default:
			with.hs = append(with.hs, h)
		}
	}
	var out []argGroup
	for _, g := range append([]argGroup{with, without}, alone...) {
		if len(g.hs) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// compileArgGroup is one javac run over a group's argument classes; it
// returns the pairs going round again.
func (v *Verifier) compileArgGroup(ctx context.Context, g argGroup, srcRoot string, runs *int) ([]*harness, error) {
	args := javacArgs(v.classes, v.compileClasspath(), g.sp) // it has the file's imports
	files, err := v.writeArgClasses(g.hs, srcRoot)
	if err != nil {
		return nil, err
	}
	rc, diag, err := v.javac.compile(ctx, filepath.Join(v.work, "diag.txt"), append(args, files.paths...))
	if err != nil {
		return nil, fmt.Errorf("compile argument classes (%d pairs, first %s): %w", len(g.hs), g.hs[0].pair.PairID, err)
	}
	v.stats.javacRuns++
	*runs++
	per := map[*harness][]diagnostic{}
	if rc != 0 && g.sp != v.emptyDir && sourcePathFault(diag, func(f string) bool { return files.byFile[f] != nil }) {
		splitArgFault(g.hs)
		return g.hs, nil
	}
	if rc != 0 {
		if per, err = files.diagnosticsByPair(rc, diag); err != nil {
			return nil, err
		}
	}
	return v.repairArgs(g.hs, per, files.texts), nil
}

// splitArgFault is splitFault for argument classes.
func splitArgFault(hs []*harness) {
	if len(hs) > 1 {
		for _, h := range hs {
			h.argAlone = true
		}
		return
	}
	hs[0].argNoSourcePath = true
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
