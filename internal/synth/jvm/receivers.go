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
	maxSubtypes   = 3 // concrete subtypes tried for an abstract type
	maxReceivers  = 8 // receiver candidates per pair
	maxBuildDepth = 2 // nesting of constructed project-type arguments
	maxAPIRounds  = 3 // javap rounds following constructor parameter types
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
// subtype: it cannot be constructed.
type subtypeScan struct {
	subs  map[string][]string
	files map[string]string // simple class name → source file
}

// scanSubtypes reads the declarations of the files.
func scanSubtypes(files []string) subtypeScan {
	sc := subtypeScan{subs: map[string][]string{}, files: map[string]string{}}
	slices.Sort(files)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // a file the build cannot read fails there, with its error
		}
		for _, m := range typeHeader.FindAllSubmatchIndex(data, -1) {
			kind, name, head := string(data[m[2]:m[3]]), string(data[m[4]:m[5]]), string(data[m[6]:m[7]])
			if _, ok := sc.files[name]; !ok {
				sc.files[name] = f
			}
			if kind != "class" || declaredAbstract(data[:m[0]]) {
				continue
			}
			for _, super := range supertypes(head) {
				sc.subs[super] = append(sc.subs[super], name)
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

// concreteSubtypes are up to maxSubtypes classes below name (a subtype
// that is itself an interface's implementation counts; one level of
// abstract classes is looked through by the scan's exclusion).
func (sc subtypeScan) concreteSubtypes(name string) []string {
	seen := map[string]bool{}
	var out []string
	queue := slices.Clone(sc.subs[name])
	for len(queue) > 0 && len(out) < maxSubtypes {
		s := queue[0]
		queue = queue[1:]
		if seen[s] {
			continue
		}
		seen[s] = true
		out = append(out, s)
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
			names = append(names, s)
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
