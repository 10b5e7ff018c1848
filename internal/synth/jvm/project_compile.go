package jvm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
	var pending []*side
	for _, h := range hs {
		if h.failed != "" || h.real == nil {
			continue
		}
		for _, kind := range []string{"B", "F"} {
			dir := h.real.pkgDir(filepath.Join(srcRoot, "p"+strconv.Itoa(h.n)+kind))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("write harness for %s: %w", h.pair.PairID, err)
			}
			path := filepath.Join(dir, filepath.Base(filepath.FromSlash(h.pair.Source.Path)))
			if err := os.WriteFile(path, []byte(h.real.source(kind)), 0o644); err != nil {
				return fmt.Errorf("write harness for %s: %w", h.pair.PairID, err)
			}
			pending = append(pending, &side{h: h, kind: kind, path: path})
		}
	}
	for len(pending) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		var layer, rest []*side
		names := map[string]*side{}
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
		if len(layer) == 0 {
			break
		}
		out := filepath.Join(v.work, "layers", strconv.Itoa(batch)+"-"+strconv.Itoa(runs))
		if err := os.MkdirAll(out, 0o755); err != nil {
			return fmt.Errorf("compile batch %d: %w", batch, err)
		}
		args := javacArgs(out, v.classpath(), v.emptyDir)
		for _, s := range layer {
			s.h.rounds++
			args = append(args, s.path)
		}
		rc, diag, err := v.javac.compile(ctx, filepath.Join(v.work, "diag.txt"), args)
		if err != nil {
			return fmt.Errorf("compile batch %d (%d classes, first %s): %w", batch, len(layer), layer[0].h.pair.PairID, err)
		}
		v.stats.javacRuns++
		runs++
		if rc != 0 {
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
		}
		for _, s := range layer {
			if s.h.failed != "" {
				continue
			}
			ok, err := v.takeClasses(out, s)
			if err != nil {
				return fmt.Errorf("compile batch %d: %w", batch, err)
			}
			if !ok {
				if s.tries++; s.tries >= maxSideTries {
					s.h.failed = fmt.Sprintf("cannot compile: javac wrote no class for the %s side in %d runs", map[string]string{"B": "buggy", "F": "fixed"}[s.kind], s.tries)
					continue
				}
				rest = append(rest, s)
			}
		}
		if err := os.RemoveAll(out); err != nil {
			return fmt.Errorf("compile batch %d: %w", batch, err)
		}
		pending = rest
	}
	if err := v.compileArgs(ctx, hs, srcRoot, &runs); err != nil {
		return err
	}
	if v.compiled != nil {
		v.compiled(hs)
	}
	return nil
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
		byFile := map[string]*harness{}
		texts := map[string]string{}
		args := javacArgs(v.classes, v.classpath(), v.emptyDir)
		for _, h := range active {
			dir := filepath.Join(srcRoot, "p"+strconv.Itoa(h.n))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("write harness for %s: %w", h.pair.PairID, err)
			}
			name := h.class("A") + ".java"
			text := h.argsClass(v.opts.Budget)
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				return fmt.Errorf("write harness for %s: %w", h.pair.PairID, err)
			}
			if err := os.Remove(h.argsClassFile(v.classes)); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("clean classes of %s: %w", h.pair.PairID, err)
			}
			byFile[name], texts[name] = h, text
			args = append(args, path)
		}
		rc, diag, err := v.javac.compile(ctx, filepath.Join(v.work, "diag.txt"), args)
		if err != nil {
			return fmt.Errorf("compile argument classes (%d pairs, first %s): %w", len(active), active[0].pair.PairID, err)
		}
		v.stats.javacRuns++
		*runs++
		per := map[*harness][]diagnostic{}
		if rc != 0 {
			ds := parseDiagnostics(diag)
			if len(ds) == 0 {
				return fmt.Errorf("compile argument classes: javac failed (exit %d) without diagnostics: %s", rc, firstLines(diag, 5))
			}
			for _, d := range ds {
				h := byFile[d.File]
				if h == nil {
					return fmt.Errorf("compile argument classes: javac reported %q, which maps to no pair", d.Raw)
				}
				per[h] = append(per[h], d)
			}
		}
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
		active = next
	}
	return nil
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
		if !isClass {
			continue
		}
		for _, t := range tops {
			if base == t || strings.HasPrefix(base, t+"$") {
				if err := os.Rename(filepath.Join(from, name), filepath.Join(to, name)); err != nil {
					return false, fmt.Errorf("classes of %s: %w", s.h.pair.PairID, err)
				}
				if base == s.h.real.outer {
					ok = true
				}
				break
			}
		}
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
