package jvm

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/benchforge/benchforge/internal/output"
)

// typeInfo is the public API of one project class, read with javap (which
// reads class files and runs none of their code): what the input search
// may use to build values of the type.
type typeInfo struct {
	Name      string // source name, "pkg.Outer.Inner"
	Kind      string // "class", "interface", "enum"
	Abstract  bool
	Ctors     [][]string // parameter types of public constructors
	Factories []apiMethod
	Setters   []apiMethod // public void setX(one parameter)
}

type apiMethod struct {
	Name   string
	Params []string
}

// javapBatch is the number of classes per javap run.
const javapBatch = 400

// readAPI lists the public constructors, static factories and setters of
// the project's top-level and static nested classes — of those whose
// simple name is in want, when want is not empty, then of the project
// types their constructors and factories take and of the concrete
// subtypes of those that are abstract, for up to maxAPIRounds javap
// rounds, so that an argument is built through its real constructor
// rather than given null. Every other class is known by name only (its
// values are null).
func readAPI(ctx context.Context, jdk JDK, p *Project, want map[string]bool) (map[string]*typeInfo, error) {
	byLast, known, err := listClasses(p.Classes)
	if err != nil {
		return nil, fmt.Errorf("read project API: %w", err)
	}
	out := known
	done := map[string]bool{}
	for round := 0; round < maxAPIRounds; round++ {
		names := apiNames(byLast, want, done)
		if len(names) == 0 {
			break
		}
		if err := javapAPI(ctx, jdk, p.Classes, names, out); err != nil {
			return nil, err
		}
		if len(want) == 0 {
			break // every class was read
		}
		want = p.nextWant(out, want)
	}
	return out, nil
}

// apiNames are the binary names of the classes to read next: those whose
// last simple name is wanted (all when want is empty) and not read yet.
func apiNames(byLast map[string][]string, want, done map[string]bool) []string {
	var names []string
	for last, ns := range byLast {
		if len(want) > 0 && !want[last] || done[last] {
			continue
		}
		done[last] = true
		names = append(names, ns...)
	}
	sort.Strings(names)
	return names
}

// nextWant adds to want the simple names of the project types that the
// read types' constructors and factories take, and the concrete subtypes
// of the abstract ones.
func (p *Project) nextWant(types map[string]*typeInfo, want map[string]bool) map[string]bool {
	next := maps.Clone(want)
	for _, t := range types {
		if !want[simpleName(t.Name)] {
			continue
		}
		for _, c := range append(slices.Clone(t.Ctors), factoryParams(t)...) {
			for _, n := range paramSimpleNames(c) {
				next[n] = true
			}
		}
		if t.Abstract {
			for _, s := range p.subtypes.concreteSubtypes(simpleName(t.Name)) {
				next[simpleName(s)] = true
			}
		}
	}
	return next
}

// factoryParams are the parameter lists of t's factories.
func factoryParams(t *typeInfo) [][]string {
	var out [][]string
	for _, f := range t.Factories {
		out = append(out, f.Params)
	}
	return out
}

// javapAPI reads the public API of the named classes into out.
func javapAPI(ctx context.Context, jdk JDK, classes string, names []string, out map[string]*typeInfo) error {
	javap := filepath.Join(filepath.Dir(jdk.Javac), "javap")
	for start := 0; start < len(names); start += javapBatch {
		batch := names[start:min(start+javapBatch, len(names))]
		text, err := javapCached(ctx, javap, jdk.Version, classes, batch)
		if err != nil && len(text) == 0 {
			return fmt.Errorf("read project API: javap: %w", err)
		}
		parseJavap(text, out)
	}
	return nil
}

// javapCached is javap's output on one batch of classes, kept beside the
// class directory (in the build cache) and reused: a cached build's
// classes do not change, and its javap runs, each a cold JVM, were most
// of a cached build's time (15 Defects4J projects: about 20 s a run).
// The key names the JDK and every class file's size and modification
// time, so a class directory built again is read again. An output javap
// gave with an error is not kept.
func javapCached(ctx context.Context, javap, version, classes string, batch []string) ([]byte, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s", javap, version, classes)
	for _, n := range batch {
		fmt.Fprintf(h, "\x00%s", n)
		if st, err := os.Stat(filepath.Join(classes, filepath.FromSlash(strings.ReplaceAll(n, ".", "/"))+".class")); err == nil {
			fmt.Fprintf(h, "\x00%d\x00%d", st.Size(), st.ModTime().UnixNano())
		}
	}
	path := filepath.Join(filepath.Dir(classes), "javap", hex.EncodeToString(h.Sum(nil))[:24]+".txt")
	if text, err := os.ReadFile(path); err == nil {
		return text, nil
	}
	text, err := exec.CommandContext(ctx, javap, append([]string{"-public", "-cp", classes}, batch...)...).Output()
	if err == nil {
		// A cache: the run goes on without it.
		if os.MkdirAll(filepath.Dir(path), 0o755) == nil {
			_ = output.WriteFile(path, text)
		}
	}
	return text, err
}

// listClasses walks a class directory: known has every named class by
// simple source name, as an abstract class of unknown API; byLast maps
// each class's last simple name to its binary names.
func listClasses(classes string) (byLast map[string][]string, known map[string]*typeInfo, err error) {
	known, byLast = map[string]*typeInfo{}, map[string][]string{}
	err = filepath.WalkDir(classes, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".class") {
			return err
		}
		rel, _ := filepath.Rel(classes, strings.TrimSuffix(path, ".class"))
		if anonymousClass.MatchString(rel) || filepath.Base(rel) == "package-info" {
			return nil
		}
		name := strings.ReplaceAll(filepath.ToSlash(rel), "/", ".")
		src := strings.ReplaceAll(name, "$", ".")
		simple := src[strings.LastIndex(name[:strings.Index(name+"$", "$")], ".")+1:]
		t := &typeInfo{Name: src, Kind: "class", Abstract: true}
		known[simple] = t
		known[src] = t // the full name: simple names collide across packages
		last := simple[strings.LastIndex(simple, ".")+1:]
		byLast[last] = append(byLast[last], name)
		return nil
	})
	return byLast, known, err
}

var (
	anonymousClass = regexp.MustCompile(`\$\d`)
	javapHeader    = regexp.MustCompile(`^public (?:(abstract|final|static) )*(?:(class|interface|enum)) ([\w.$]+)`)
	javapCtor      = regexp.MustCompile(`^  public ([\w.$]+)\(([^)]*)\)`)
	javapMember    = regexp.MustCompile(`^  public ((?:static |final |synchronized |native |abstract |default |strictfp )*)(\S+) ([\w$]+)\(([^)]*)\)`)
)

// parseJavap reads "javap -public" output into out, keyed by the class's
// simple source name ("Outer.Inner" for a nested class) and by its full
// source name ("pkg.Outer.Inner").
func parseJavap(text []byte, out map[string]*typeInfo) {
	var cur *typeInfo
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 1<<16), 1<<22)
	for sc.Scan() {
		line := sc.Text()
		if t, key := parseJavapHeader(line); t != nil {
			cur = t
			out[key] = cur
			// Also under the full source name: two packages can declare
			// the same simple name (commons-math's ml.clustering and
			// stat.clustering KMeansPlusPlusClusterer, mockito's asm.Frame
			// and asm.tree.analysis.Frame), and the simple key holds
			// whichever javap listed last.
			out[t.Name] = cur
			continue
		}
		if cur != nil {
			cur.addMember(line)
		}
	}
	for _, t := range out {
		sort.SliceStable(t.Ctors, func(i, j int) bool { return len(t.Ctors[i]) < len(t.Ctors[j]) })
	}
}

// parseJavapHeader reads a class header line of javap's output into a
// typeInfo and its key, the simple source name; nil for any other line.
func parseJavapHeader(line string) (*typeInfo, string) {
	m := javapHeader.FindStringSubmatch(line)
	if m == nil {
		return nil, ""
	}
	name := strings.ReplaceAll(m[3], "$", ".")
	t := &typeInfo{Name: name, Kind: m[2], Abstract: strings.Contains(line, " abstract ") || m[2] == "interface"}
	pkgEnd := strings.LastIndex(m[3][:strings.Index(m[3]+"$", "$")], ".")
	return t, name[pkgEnd+1:]
}

// addMember adds a member line of javap's output that is a constructor,
// a static factory of the type or a setter.
func (t *typeInfo) addMember(line string) {
	if m := javapCtor.FindStringSubmatch(line); m != nil {
		if strings.ReplaceAll(m[1], "$", ".") == t.Name {
			t.Ctors = append(t.Ctors, splitParams(m[2]))
		}
		return
	}
	m := javapMember.FindStringSubmatch(line)
	if m == nil {
		return
	}
	mods, ret, name, params := m[1], m[2], m[3], splitParams(m[4])
	static := strings.Contains(mods, "static")
	switch {
	case static && strings.ReplaceAll(ret, "$", ".") == t.Name && !strings.Contains(ret, "<"):
		t.Factories = append(t.Factories, apiMethod{name, params})
	case !static && ret == "void" && strings.HasPrefix(name, "set") && len(params) == 1:
		t.Setters = append(t.Setters, apiMethod{name, params})
	}
}

func splitParams(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '<':
			depth++
		case '>':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// Input-search limits through real types.
const (
	maxCtors     = 3 // public constructors tried per type
	maxFactories = 2
	maxSetters   = 3 // setters varied per type
	maxBoundary  = 3 // boundary values per setter
)

// realCandidates are the argument expressions for a parameter of a
// project type: null, then values built only through the type's public
// API — constructors and static factories with ordinary arguments, and
// setters called with boundary values (null, 0, -1, "" …) on a
// constructed value. Nothing is mocked: a collaborator returns what its
// real code returns. It returns nil for types the project does not define
// (the JDK defaults of candidatesOf apply).
func (p *Project) realCandidates(typ string, depth int) []string {
	t := p.lookup(typ)
	if t == nil {
		return nil
	}
	if depth > maxBuildDepth {
		return []string{"null"}
	}
	built := p.builtValues(t, depth)
	out := []string{}
	if len(built) > 0 {
		out = append(out, built[0])
	}
	out = append(out, "null")
	if len(built) > 1 {
		out = append(out, built[1:]...)
	}
	if len(built) > 0 {
		out = append(out, p.setterVariants(t, built[0], depth)...)
	}
	return out
}

// builtValues are the values of t built through its public API: its
// first and last enum constants, up to maxCtors constructors (of a
// concrete class; of an abstract one, the shortest of each of its
// concrete subtypes) and maxFactories factories with ordinary arguments.
func (p *Project) builtValues(t *typeInfo, depth int) []string {
	var built []string
	if t.Kind == "enum" {
		built = append(built, t.Name+".values()[0]", t.Name+".values()["+t.Name+".values().length - 1]")
	}
	if !t.Abstract {
		for _, c := range p.usableCtors(t) {
			built = append(built, "new "+t.Name+"("+p.ordinaryArgs(c, depth)+")")
			if asc, ok := p.ascendingArgs(c, depth); ok {
				built = append(built, "new "+t.Name+"("+asc+")")
			}
		}
	} else if t.Kind != "enum" {
		// An abstract class or an interface: its concrete subtypes'
		// shortest public constructors (receivers.go).
		for _, st := range p.constructible(t) {
			if len(st.Ctors) > 0 {
				built = append(built, "new "+st.Name+"("+p.ordinaryArgs(st.Ctors[0], depth)+")")
			}
		}
	}
	for _, f := range t.Factories[:min(len(t.Factories), maxFactories)] {
		built = append(built, t.Name+"."+f.Name+"("+p.ordinaryArgs(f.Params, depth)+")")
	}
	return built
}

// usableCtors are up to maxCtors public constructors of t, but copy
// constructors (taking t itself), which would need a t to build a t,
// while another constructor exists.
func (p *Project) usableCtors(t *typeInfo) [][]string {
	var out [][]string
	for _, c := range t.Ctors {
		if !slices.Contains(paramSimpleNames(c), simpleName(t.Name)) {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		out = t.Ctors
	}
	return out[:min(len(out), maxCtors)]
}

// setterVariants are the value base with one of up to maxSetters
// setters called with each of up to maxBoundary boundary values.
func (p *Project) setterVariants(t *typeInfo, base string, depth int) []string {
	var out []string
	for _, s := range t.Setters[:min(len(t.Setters), maxSetters)] {
		vals := p.valuesOf(s.Params[0], depth+1)
		for k := 1; k < len(vals) && k <= maxBoundary; k++ {
			out = append(out, "bfWith("+base+", x -> x."+s.Name+"("+cast(s.Params[0], vals[k])+"))")
		}
	}
	return out
}

// ordinaryArgs renders the first (ordinary) candidate of each parameter,
// cast to its declared type so overloads resolve.
func (p *Project) ordinaryArgs(params []string, depth int) string {
	return strings.Join(p.ordinaryArgList(params, depth), ", ")
}

// ordinaryArgList is ordinaryArgs, one argument a string.
func (p *Project) ordinaryArgList(params []string, depth int) []string {
	args := make([]string, len(params))
	for i, prm := range params {
		v := p.valuesOf(prm, depth+1)[0]
		if v == "new "+parseType(strings.ReplaceAll(prm, "$", ".")).erasure()+"()" && p.lookup(prm) == nil {
			// candidatesOf's guess for a type neither the project nor
			// values.go knows (a dependency's interface): inside a built
			// value a guess that does not compile would lose the value.
			v = "null"
		}
		args[i] = cast(prm, v)
	}
	return args
}

// ascendingNumbers are the k-th value (from 0) of the ascending
// arguments of each numeric primitive type.
var ascendingNumbers = map[string]func(k int) string{
	"int": strconv.Itoa, "short": strconv.Itoa, "byte": strconv.Itoa,
	"long":   func(k int) string { return strconv.Itoa(k) + "L" },
	"double": func(k int) string { return strconv.Itoa(k) + ".5" },
	"float":  func(k int) string { return strconv.Itoa(k) + ".5f" },
}

// ascendingArgs renders ordinaryArgs with the numeric primitive
// parameters set to ascending values (1, 2, 3; 1.5, 2.5, 3.5), when
// there are two or more: one ordinary value for every bound breaks the
// constructors that require lower < upper (commons-math's
// TriangularDistribution(a, c, b), UniformRealDistribution(lower,
// upper)), and on the 1,036 grounded Defects4J pairs 16 commons-math
// pairs had no receiver at all for it (issue 16). Literals only: no
// state is written that the public constructor does not set.
func (p *Project) ascendingArgs(params []string, depth int) (string, bool) {
	args := strings.Split(p.ordinaryArgs(params, depth), ", ")
	if len(args) != len(params) {
		return "", false // an ordinary value held ", ": leave it alone
	}
	n := 0
	for i, prm := range params {
		if f := ascendingNumbers[prm]; f != nil {
			n++
			args[i] = cast(prm, f(n))
		}
	}
	return strings.Join(args, ", "), n >= 2
}

// builtValue is the first value of project type typ built through its
// public API (builtValues), or "" when typ is no project type or none can
// be built: what a patch-anchored rule may pass for a type a guard names.
func (p *Project) builtValue(typ string) string {
	t := p.lookup(typ)
	if t == nil {
		return ""
	}
	if vs := p.builtValues(t, 1); len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// valuesOf is the candidate list for a type: the project's own types
// through realCandidates, others through the JDK defaults.
func (p *Project) valuesOf(typ string, depth int) []string {
	if c := p.realCandidates(typ, depth); c != nil {
		return c
	}
	// A JDK value nested in a constructed project value is an ordinary
	// one, not null: candidatesOf's depth bounds its own containers.
	return candidatesOf(parseType(strings.ReplaceAll(typ, "$", ".")), nil, min(depth, 2))
}

// cast prefixes a value with its parameter's erased type.
func cast(typ, v string) string {
	e := strings.ReplaceAll(typ, "$", ".")
	if i := strings.Index(e, "<"); i >= 0 {
		e = e[:i] + e[strings.LastIndex(e, ">")+1:]
	}
	if strings.HasSuffix(e, "...") {
		e = strings.TrimSuffix(e, "...") + "[]"
	}
	if v == "null" || !strings.Contains(e, ".") && !primitives[e] {
		return "(" + e + ") " + v
	}
	return "(" + e + ") (" + v + ")"
}

// lookup finds a project type by the name a parameter declares ("Option",
// "HelpFormatter.OptionComparator", "org.x.Option", "List<Option>" is not
// one).
func (p *Project) lookup(typ string) *typeInfo {
	if p == nil || strings.ContainsAny(typ, "<[") || strings.HasSuffix(typ, "...") {
		return nil
	}
	typ = strings.ReplaceAll(typ, "$", ".")
	if t := p.types[typ]; t != nil {
		return t
	}
	for _, t := range p.types {
		if t.Name == typ {
			return t
		}
	}
	return nil
}
