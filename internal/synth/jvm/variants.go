package jvm

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/benchforge/benchforge/internal/code"
)

// Variants (project mode). Compiling a pair's real class once per side
// costs a whole-class javac run per side, and real classes are large
// (commons-lang's ArrayUtils: 4,900 lines, about 0.4 s a run on an idle
// core), so compilation took nine tenths of a project run. Instead all
// pairs of a batch whose method lives in the same file share one copy of
// that file: the real file, untouched, with every pair's buggy and fixed
// method added to the method's class as a variant under a name of its own
// (name$bf<n>B, name$bf<n>F). One javac run then compiles every file of
// the batch once. Each side still runs in a loader of its own over a copy
// of the class files (hard links), so no two sides share static state.
//
// What changes against a real class with the method replaced in place:
// the class's other members, and other project classes, call the
// original method, not the variant. The harness calls the variant
// directly, so only a path that re-enters the method through another
// member sees the difference; the variant's own calls to itself are
// renamed to the variant when the class has no overload of that name
// (recursion stays on the variant), and left on the original otherwise
// (an overload of another arity may be meant).

// variantName is the name of pair h's side kind in its unit.
func variantName(h *harness, kind string) string {
	return fmt.Sprintf("%s$bf%d%s", h.bsig.Name, h.n, kind)
}

// variantMethod renames the method declared in method to name, blanks its
// @Override annotations (a variant overrides nothing) and, with self,
// renames its own unqualified or this-qualified calls of old; lines and
// columns of the rest stay where they were.
func variantMethod(method, old, name string, self bool) (string, error) {
	f, err := code.ParseJavaMethod([]byte(method))
	if err != nil {
		return "", err
	}
	defer f.Close()
	fns := f.Functions()
	if len(fns) == 0 || fns[0].Name != old {
		return "", fmt.Errorf("no method %s in the variant's text", old)
	}
	type edit struct{ from, to int }
	var edits []edit
	nodes := f.Nodes()
	decl := fns[0].Node
	if c := f.ChildByField(decl, "name"); c >= 0 {
		edits = append(edits, edit{nodes[c].StartByte(), nodes[c].EndByte()})
	}
	var blanks []edit
	for i := decl; i < nodes[decl].End(); i++ {
		n := nodes[i]
		switch {
		case n.Kind() == "marker_annotation" && f.Text(i) == "@Override":
			blanks = append(blanks, edit{n.StartByte(), n.EndByte()})
		case self && n.Kind() == "method_invocation" && selfCall(f, i, old):
			c := f.ChildByField(i, "name")
			edits = append(edits, edit{nodes[c].StartByte(), nodes[c].EndByte()})
		}
	}
	out := []byte(method)
	for _, b := range blanks {
		for k := b.from; k < b.to; k++ {
			out[k] = ' '
		}
	}
	sort.Slice(edits, func(a, b int) bool { return edits[a].from > edits[b].from })
	for _, e := range edits {
		out = slices.Concat(out[:e.from], []byte(name), out[e.to:])
	}
	return string(out), nil
}

// selfCall reports whether invocation i calls old on the class itself:
// no object, or this.
func selfCall(f *code.File, i int, old string) bool {
	c := f.ChildByField(i, "name")
	if c < 0 || f.Text(c) != old {
		return false
	}
	o := f.ChildByField(i, "object")
	return o < 0 || f.Text(o) == "this"
}

// unit is one source file of a batch: the real file (with any added
// no-argument constructor) and the variants of the pairs whose method it
// holds.
type unit struct {
	path  string // project-relative source path
	base  string // the file's text before the variants go in
	sides []*side
	tries int
	// alone and noSourcePath are the unit's source-path state
	// (splitFault): compiled in a layer of its own, or without the
	// on-demand source path.
	alone, noSourcePath bool
	// inserted are the unit-file lines the variants took, to map a line
	// back to the real file's.
	inserted [][2]int       // first line, line count
	ends     map[string]int // class chain → closing brace in base (bodyEnds)
}

// fileUnits groups the batch's pairs in play by source file: pairs whose
// files read the same (the same added constructor, if any) share a unit.
func fileUnits(hs []*harness) ([]*unit, error) {
	var units []*unit
	byKey := map[string]*unit{}
	for _, h := range hs {
		if h.failed != "" || h.real == nil {
			continue
		}
		key := h.pair.Source.Path + "\x00" + h.real.texts["O"]
		u := byKey[key]
		if u == nil {
			u = &unit{path: h.pair.Source.Path, base: h.real.texts["O"]}
			byKey[key] = u
			units = append(units, u)
		}
		if err := h.real.makeVariants(h); err != nil {
			h.failed = "cannot compile: " + err.Error()
			continue
		}
		u.sides = append(u.sides, &side{h: h, kind: "B"}, &side{h: h, kind: "F"})
	}
	return units, nil
}

// makeVariants sets the pair's variant texts and names.
func (rc *realClass) makeVariants(h *harness) error {
	rc.call, rc.variant, rc.vstart = map[string]string{}, map[string]string{}, map[string]int{}
	for kind, m := range map[string]string{"B": h.pair.BuggyMethod, "F": h.pair.FixedMethod} {
		name := variantName(h, kind)
		text, err := variantMethod(m, h.bsig.Name, name, !rc.overloaded)
		if err != nil {
			return fmt.Errorf("%s method: %w", sideNames[kind], err)
		}
		rc.call[kind], rc.variant[kind] = name, text
	}
	return nil
}

// live are the unit's sides still in play.
func (u *unit) live() []*side {
	var out []*side
	for _, s := range u.sides {
		if s.h.failed == "" {
			out = append(out, s)
		}
	}
	return out
}

// text is the unit's file with its live variants, each put before the
// closing brace of its method's class, and records where each went.
func (u *unit) text() (string, error) {
	type ins struct {
		at int
		s  *side
	}
	if err := u.bodyEnds(); err != nil {
		return "", err
	}
	var all []ins
	for _, s := range u.live() {
		all = append(all, ins{u.ends[s.h.real.chain], s})
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].at < all[b].at })
	var b strings.Builder
	line, prev := 1, 0
	u.inserted = u.inserted[:0]
	for _, in := range all {
		chunk := u.base[prev:in.at] + "\n"
		b.WriteString(chunk)
		line += strings.Count(chunk, "\n")
		prev = in.at
		v := in.s.h.real.variant[in.s.kind]
		if !strings.HasSuffix(v, "\n") {
			v += "\n"
		}
		in.s.h.real.vstart[in.s.kind] = line
		n := strings.Count(v, "\n")
		u.inserted = append(u.inserted, [2]int{line - 1, n + 1})
		b.WriteString(v)
		line += n
	}
	b.WriteString(u.base[prev:])
	return b.String(), nil
}

// bodyEnds fills u.ends with the closing brace of each live side's
// class in the unit's base, which never changes: the base is parsed once
// for every layer the unit goes through, not once per class and layer.
func (u *unit) bodyEnds() error {
	if u.ends == nil {
		u.ends = map[string]int{}
	}
	var f *code.File
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	for _, s := range u.live() {
		chain := s.h.real.chain
		if _, ok := u.ends[chain]; ok {
			continue
		}
		if f == nil {
			var err error
			if f, err = code.Parse(code.LangJava, u.path, []byte(u.base)); err != nil {
				return fmt.Errorf("no closing brace of class %s in %s", chain, u.path)
			}
		}
		at := classBodyEndIn(f, u.base, chain)
		if at < 0 {
			return fmt.Errorf("no closing brace of class %s in %s", chain, u.path)
		}
		u.ends[chain] = at
	}
	return nil
}

// origLine maps a line of the unit's file to the real file's.
func (u *unit) origLine(l int) int {
	out := l
	for _, in := range u.inserted {
		if in[0] < l {
			out -= min(in[1], l-in[0])
		}
	}
	return out
}

// variantAt is the live side whose variant holds unit line l, or nil.
func (u *unit) variantAt(l int) *side {
	for _, s := range u.live() {
		rc := s.h.real
		start := rc.vstart[s.kind]
		if l >= start && l < start+strings.Count(rc.variant[s.kind], "\n")+1 {
			return s
		}
	}
	return nil
}

// linkClasses puts the unit's class files from javac's output directory
// out into the side directory of each live side (hard links; a copy where
// linking fails); ok reports whether the method's top-level class was
// among them.
func (v *Verifier) linkClasses(out string, u *unit) (ok bool, err error) {
	live := u.live()
	if len(live) == 0 {
		return true, nil
	}
	rc := live[0].h.real
	from := rc.pkgDir(out)
	entries, err := os.ReadDir(from)
	if err != nil {
		if os.IsNotExist(err) {
			return false, nil
		}
		return false, fmt.Errorf("classes of %s: %w", u.path, err)
	}
	tops := rc.topNames()
	var names []string
	for _, e := range entries {
		base, isClass := strings.CutSuffix(e.Name(), ".class")
		if isClass && slices.ContainsFunc(tops, func(t string) bool { return base == t || strings.HasPrefix(base, t+"$") }) {
			names = append(names, e.Name())
			ok = ok || base == rc.outer
		}
	}
	if !ok {
		return false, nil
	}
	for _, s := range live {
		if err := linkAll(from, s.h.real.pkgDir(v.sideDir(s.h, s.kind)), names); err != nil {
			return false, fmt.Errorf("classes of %s: %w", s.h.pair.PairID, err)
		}
	}
	return true, nil
}

// linkAll links (or copies) the named files of dir from into dir to.
func linkAll(from, to string, names []string) error {
	if err := os.MkdirAll(to, 0o755); err != nil {
		return err
	}
	for _, n := range names {
		src, dst := filepath.Join(from, n), filepath.Join(to, n)
		if os.Link(src, dst) == nil {
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		if err := os.WriteFile(dst, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// variantFrame rewrites a frame "cls.name$bf<n>K:line" of side kind to
// the method's real name and its line in the real file.
func (h *harness) variantFrame(kind, frame string) string {
	rc := h.real
	if rc == nil || rc.call == nil || !strings.Contains(frame, rc.call[kind]) {
		return frame
	}
	frame = strings.ReplaceAll(frame, rc.call[kind], h.bsig.Name)
	m := frameLine.FindStringSubmatch(frame)
	if m == nil {
		return frame
	}
	n, _ := strconv.Atoi(m[1])
	return frame[:len(frame)-len(m[1])] + strconv.Itoa(rc.start+n-rc.vstart[kind])
}

var frameLine = regexp.MustCompile(`:(\d+)$`)
