package jvm

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Receivers and project-type arguments through the project's real types
// (issue 16, rxsynth §5.4's independence rule kept): an instance method
// runs on a receiver built by a public constructor or static factory of
// its class — of a concrete subclass the project declares when the class
// is abstract — and project-type arguments are built through public
// constructors whose own project-type arguments are built the same way,
// to maxBuildDepth, instead of null. Nothing is mocked and no field is
// written: every collaborator returns what its real code returns.

// Limits of the search through real types.
const (
	maxSubtypes = 3 // concrete subtypes tried for an abstract type
	// maxSubtypeDepth is how many levels below an abstract type its
	// concrete subtypes are looked for.
	maxSubtypeDepth = 3
	maxReceivers    = 8 // receiver candidates per pair
	maxBuildDepth   = 2 // nesting of constructed project-type arguments
	maxAPIRounds    = 3 // javap rounds following constructor parameter types
	// maxStateReceivers bounds the receiver_state rule's receivers.
	maxStateReceivers = 12
)

// typeHeader is a class or interface declaration's head: its name and
// the text up to its body.
var typeHeader = regexp.MustCompile(`\b(class|interface|enum)\s+(\w+)([^{;]*)\{`)

var (
	extendsList    = regexp.MustCompile(`\bextends\s+([\w.\s,]+?)(?:\bimplements\b|$)`)
	implementsList = regexp.MustCompile(`\bimplements\s+([\w.\s,]+)$`)
	typeArgs       = regexp.MustCompile(`<[^<>]*>`)
)

// subtypeScan maps each type's simple name to the project's classes that
// directly extend or implement it (by simple name, in file order), and
// each class to its file, reading the production sources' text (nothing
// is compiled or run). A class declared abstract is not listed as a
// subtype: it cannot be constructed; it is listed in between, with the
// interfaces that extend an interface, so that the concrete classes below
// it are found (jackson-databind's DeserializationContext, whose only
// concrete class, DefaultDeserializationContext.Impl, extends the abstract
// DefaultDeserializationContext: before, the search found no receiver).
type subtypeScan struct {
	subs    map[string][]string
	between map[string][]string // abstract classes and subinterfaces below a type
	files   map[string]string   // simple class name → source file
}

// scanSubtypes reads the declarations of the files.
func scanSubtypes(files []string) subtypeScan {
	sc := subtypeScan{subs: map[string][]string{}, between: map[string][]string{}, files: map[string]string{}}
	slices.Sort(files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // a file the build cannot read fails there, with its error
		}
		// Without comments and literals: "class for …" in a Javadoc
		// comment matched typeHeader up to the next brace, swallowing the
		// real declaration after it (commons-math's ArrayRealVector was
		// no RealVector, and RealVector had no receiver).
		data = blankCommentsAndLiterals(data)
		pkg := ""
		if m := packageDecl.FindSubmatch(data); m != nil {
			pkg = string(m[1]) + "."
		}
		top := strings.TrimSuffix(filepath.Base(f), ".java")
		for _, m := range typeHeader.FindAllSubmatchIndex(data, -1) {
			kind, name, head := string(data[m[2]:m[3]]), string(data[m[4]:m[5]]), string(data[m[6]:m[7]])
			if _, ok := sc.files[name]; !ok {
				sc.files[name] = f
			}
			if kind == "enum" {
				continue
			}
			// The subtype by its full name, so that a simple name
			// declared twice (commons-collections' HashBag and
			// bag.HashBag, jackson's many nested Impl and Std classes)
			// is the class the file declares; a nested class is taken to
			// be one level inside the file's top-level class.
			full := pkg + name
			if name != top {
				full = pkg + top + "." + name
			}
			sc.files[full] = f
			to := sc.subs
			if kind != "class" || declaredAbstract(data[:m[0]]) {
				to = sc.between
			}
			for _, super := range supertypes(head) {
				to[super] = append(to[super], full)
			}
		}
	}
	return sc
}

// declaredAbstract reports whether the modifiers before a declaration
// (the text since the previous statement) include abstract.
func declaredAbstract(before []byte) bool {
	i := max(strings.LastIndexAny(string(before), ";{}"), 0)
	return strings.Contains(string(before[i:]), "abstract")
}

// supertypes are the simple names a class head extends or implements.
func supertypes(head string) []string {
	for typeArgs.MatchString(head) {
		head = typeArgs.ReplaceAllString(head, "")
	}
	head = strings.TrimSpace(head)
	var out []string
	for _, re := range []*regexp.Regexp{extendsList, implementsList} {
		m := re.FindStringSubmatch(head)
		if m == nil {
			continue
		}
		for _, t := range strings.Split(m[1], ",") {
			t = strings.TrimSpace(t)
			if t != "" {
				out = append(out, t[strings.LastIndex(t, ".")+1:])
			}
		}
	}
	return out
}

// concreteSubtypes are up to maxSubtypes classes below name (by their
// full source names, or simple ones where the scan has none): its direct
// concrete subtypes first, then, breadth first, those below its abstract
// subclasses and subinterfaces (to maxSubtypeDepth levels).
func (sc subtypeScan) concreteSubtypes(name string) []string {
	seen := map[string]bool{name: true}
	var out []string
	level := []string{name}
	for d := 0; d < maxSubtypeDepth && len(level) > 0 && len(out) < maxSubtypes; d++ {
		var next []string
		for _, t := range level {
			for _, s := range sc.subs[simpleName(t)] {
				if !seen[s] && len(out) < maxSubtypes {
					seen[s] = true
					out = append(out, s)
				}
				next = append(next, s)
			}
			for _, s := range sc.between[simpleName(t)] {
				if !seen[s] {
					seen[s] = true
					next = append(next, s)
				}
			}
		}
		level = next
	}
	return out
}

// receiverTypes are the simple names of the receivers' classes and of
// their concrete subtypes, whose API readAPI reads, and the files of the
// subtypes, which an on-demand build must compile to have them.
func (sc subtypeScan) receiverTypes(receivers []string) (names, files []string) {
	for _, r := range receivers {
		names = append(names, r)
		for _, s := range sc.concreteSubtypes(r) {
			names = append(names, simpleName(s))
			if f := sc.files[s]; f != "" && !slices.Contains(files, f) {
				files = append(files, f)
			}
		}
	}
	return names, files
}

// receiverCandidates are the receivers of an instance method of class
// (its source name in the project, "Outer.Inner"): for a concrete class
// "null" first — its no-argument constructor, declared or added
// (realclass.go) — then values built through the public constructors and static factories
// of the class, or, for an abstract class or an interface, of its
// concrete subtypes, and a setter called with a boundary value on the
// first. nil when there is nothing but the default.
func (p *Project) receiverCandidates(class string) []string {
	t := p.lookup(class)
	if t == nil {
		return nil
	}
	var built, variants []string
	for _, c := range p.constructible(t) {
		vs := p.builtValues(c, 0)
		if len(vs) > 0 && variants == nil {
			variants = p.setterVariants(c, vs[0], 0)
		}
		built = append(built, vs...)
	}
	if len(built) == 0 {
		return nil
	}
	var out []string
	if !t.Abstract && t.Kind == "class" {
		out = append(out, "null") // an abstract class's would raise InstantiationException
	}
	for _, b := range append(built, variants...) {
		if !slices.Contains(out, b) && len(out) < maxReceivers {
			out = append(out, b)
		}
	}
	return out
}

// constructible is t itself when it is a concrete class, else its
// concrete subtypes whose API was read.
func (p *Project) constructible(t *typeInfo) []*typeInfo {
	if !t.Abstract && t.Kind == "class" {
		return []*typeInfo{t}
	}
	var out []*typeInfo
	for _, s := range p.subtypes.concreteSubtypes(simpleName(t.Name)) {
		if st := p.lookupSubtype(s); st != nil && !st.Abstract {
			out = append(out, st)
		}
	}
	return out
}

// lookupSubtype finds a subtype the declaration scan names by its simple
// name: a top-level class, or else the one nested class of that name
// (jackson-core's InputAccessor.Std, the implementation its interface
// declares; before, lookup knew it only as "InputAccessor.Std", so
// InputAccessor parameters got null alone). nil when no class or more
// than one nested class has the name.
func (p *Project) lookupSubtype(name string) *typeInfo {
	if t := p.lookup(name); t != nil {
		return t
	}
	// A full name the scan guessed wrong (a class nested two levels
	// deep): by its simple name, as before full names.
	name = simpleName(name)
	if t := p.lookup(name); t != nil {
		return t
	}
	var found *typeInfo
	for key, t := range p.types {
		if strings.HasSuffix(key, "."+name) {
			if found != nil && found != t {
				return nil
			}
			found = t
		}
	}
	return found
}

// simpleName is the last dotted part of a source name.
func simpleName(name string) string { return name[strings.LastIndex(name, ".")+1:] }

// paramSimpleNames are the simple type names a parameter list mentions
// (generic arguments and array element types included).
func paramSimpleNames(params []string) []string {
	var out []string
	for _, prm := range params {
		for _, w := range strings.FieldsFunc(prm, func(r rune) bool { return strings.ContainsRune("<>[],. ?&", r) }) {
			if w != "" && w[0] >= 'A' && w[0] <= 'Z' && !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// sourceFiles are the Java files under the project's source path roots
// that belong to the tree (the main root and other production roots).
func (p *Project) sourceFiles() []string {
	var files []string
	for _, root := range p.SourcePath {
		if !strings.HasPrefix(root, p.Root) {
			continue // a dependency's sources
		}
		fs, _ := productionFiles(root)
		files = append(files, fs...)
	}
	return files
}

// relTo is path relative to root, slash-separated.
func relTo(root, path string) string {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(rel)
}

// blankCommentsAndLiterals is Java source text with every comment and
// the contents of every string, text block and char literal replaced by
// spaces (line ends kept), so that declarations are read from code only.
func blankCommentsAndLiterals(src []byte) []byte {
	out := slices.Clone(src)
	blank := func(i, j int) {
		for k := i; k < j && k < len(out); k++ {
			if out[k] != '\n' {
				out[k] = ' '
			}
		}
	}
	for i := 0; i < len(src); {
		switch {
		case src[i] == '/' && i+1 < len(src) && src[i+1] == '/':
			j := i
			for j < len(src) && src[j] != '\n' {
				j++
			}
			blank(i, j)
			i = j
		case src[i] == '/' && i+1 < len(src) && src[i+1] == '*':
			j := i + 2
			for j+1 < len(src) && !(src[j] == '*' && src[j+1] == '/') {
				j++
			}
			j = min(j+2, len(src))
			blank(i, j)
			i = j
		case src[i] == '"' && i+2 < len(src) && src[i+1] == '"' && src[i+2] == '"':
			j := i + 3
			for j+2 < len(src) && !(src[j] == '"' && src[j+1] == '"' && src[j+2] == '"' && src[j-1] != '\\') {
				j++
			}
			j = min(j+3, len(src))
			blank(i+1, j-1)
			i = j
		case src[i] == '"' || src[i] == '\'':
			q := src[i]
			j := i + 1
			for j < len(src) && src[j] != q && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			blank(i+1, j)
			i = j + 1
		default:
			i++
		}
	}
	return out
}

// stateReceivers are receivers of class built through the public
// constructors and factories receiverCandidates uses, with one argument
// at a time set to each of its type's first two values after the
// ordinary one (null, then a built value or a boundary: 0, -1, "", an
// empty array …), the first such value of every argument before the
// second, up to maxStateReceivers (anchor.go's receiver_state rule).
func (p *Project) stateReceivers(class string) []string {
	t := p.lookup(class)
	if t == nil {
		return nil
	}
	type maker struct {
		head   string // "new T(" or "T.f("
		params []string
	}
	var makers []maker
	for _, c := range p.constructible(t) {
		if !c.Abstract {
			for _, params := range p.usableCtors(c) {
				makers = append(makers, maker{"new " + c.Name + "(", params})
			}
		}
		for _, f := range c.Factories[:min(len(c.Factories), maxFactories)] {
			makers = append(makers, maker{c.Name + "." + f.Name + "(", f.Params})
		}
	}
	var out []string
	for k := 1; k <= 2; k++ {
		for _, m := range makers {
			for i, prm := range m.params {
				vals := p.valuesOf(prm, 1)
				if k >= len(vals) {
					continue
				}
				args := p.ordinaryArgList(m.params, 0)
				args[i] = cast(prm, vals[k])
				v := m.head + strings.Join(args, ", ") + ")"
				if !slices.Contains(out, v) && len(out) < maxStateReceivers {
					out = append(out, v)
				}
			}
		}
	}
	return out
}
