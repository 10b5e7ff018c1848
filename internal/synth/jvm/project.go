package jvm

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
)

// Project is one project's production sources at one commit, compiled once
// with javac (no build tool): the verifier's project mode compiles each
// pair's real class against Classes and the dependency jars.
type Project struct {
	Repo    string // "owner/name" or the checkout directory
	Commit  string // "" for a plain directory
	Root    string // exported tree (or the checkout directory)
	SrcRoot string // source root under Root holding the package directories
	Classes string // compiled production classes
	Jars    []string
	// UsedJars are the Jars javac read a class from in the build (javac
	// -verbose), in Jars order: the pairs' compile classpath. A pair side
	// is a variant of a file the build compiled, so it needs no other
	// jar, and each of the ~200 jars of /usr/share/java costs every javac
	// run time to open and index (about 0.5 s a run on commons-lang). The
	// worker JVMs still run with every jar. Nil: all of Jars.
	UsedJars []string
	// Files is the number of production sources, Compiled how many of
	// them javac compiled; Dropped names the files left out, with why.
	Files, Compiled int
	Dropped         []string
	// OnDemand is set for a build of Roots: Compiled then counts the
	// classes javac wrote, not files.
	OnDemand bool
	// SourcePath is every production source root of the tree (SrcRoot
	// first: a build can have more, mockito's cglib-and-asm/src) and the
	// sources of the dependencies found as sibling clones (deps.go).
	SourcePath []string
	Deps       []string // "owner/name@tag" of each dependency built from source
	roots      []string
	Build      time.Duration
	types      map[string]*typeInfo // simple name ("Outer.Inner") → public API
	subtypes   subtypeScan          // the tree's class declarations (receivers.go)
	used       map[string]bool      // jars javac read in the build (noteJars)
	// Encoding is the sources' encoding, the pom's
	// project.build.sourceEncoding (commons-lang 3.x: ISO-8859-1), else
	// UTF-8.
	Encoding string
}

// Classpath is the project classes followed by the dependency jars.
func (p *Project) Classpath() string {
	return strings.Join(append([]string{p.Classes}, p.Jars...), string(os.PathListSeparator))
}

// CompileClasspath is Classpath with only the jars the build read.
func (p *Project) CompileClasspath() string {
	if p.UsedJars == nil {
		return p.Classpath()
	}
	return strings.Join(append([]string{p.Classes}, p.UsedJars...), string(os.PathListSeparator))
}

// ProjectOptions say where a project comes from and what it needs.
type ProjectOptions struct {
	// GitDir is a (bare) repository; with Commit the sources are exported
	// from it. Without GitDir, Dir is a checkout used as it is.
	GitDir, Commit, Dir string
	Repo                string // label for records ("owner/name")
	// SrcRoot is the source root inside the tree ("src/main/java"); ""
	// derives it from Hint (a source file's path in the tree and its
	// package declaration), else from the most common package root.
	SrcRoot, Hint string
	// Jars are dependency jars; JarDir adds every jar of a folder (Debian:
	// /usr/share/java).
	Jars   []string
	JarDir string
	// Roots, when set, builds on demand: javac compiles these files
	// (paths in the tree) and, through -sourcepath, only the production
	// classes they need — for pairs from many commits with a few files
	// each. Empty compiles every production source once.
	Roots []string
	// Types limits the API read (public constructors, factories, setters)
	// to classes of these simple names (and, transitively, their
	// constructors' parameter types); empty reads every class.
	Types []string
	// Receivers are the simple names of the pairs' classes: their API
	// and their concrete subclasses' is read (receivers.go), and an
	// on-demand build also compiles those subclasses.
	Receivers []string
	// CacheDir holds exported trees and classes, keyed by repository and
	// commit, so a project is built once across runs.
	CacheDir string
	// Repos, when set, is searched for clones of the project's Maven
	// dependencies of its own owner (jackson-databind's jackson-core);
	// their sources at the released tag go on the source path, so the
	// project compiles against the versions it was written for rather
	// than a newer jar of the system's.
	Repos string
}

// buildVersion is part of a build's cache key: builds made by older rules
// are not reused.
const buildVersion = "v12"

// maxBuildRounds bounds the javac runs of a project build: a run that
// wrote no class is repeated without the files javac named.
const maxBuildRounds = 4

// BuildProject exports and compiles a project's production sources once;
// a cached build of the same repository and commit is reused.
func BuildProject(ctx context.Context, jdk JDK, o ProjectOptions) (*Project, error) {
	t0 := time.Now()
	p := &Project{Repo: o.Repo, Commit: o.Commit, Root: o.Dir}
	base := buildDir(o)
	unlock, err := lockBuild(ctx, base)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if o.GitDir != "" {
		p.Root = filepath.Join(base, "tree")
		if err := exportSources(ctx, &o, p.Root); err != nil {
			return nil, err
		}
	}
	if p.Root == "" {
		return nil, fmt.Errorf("build project: %w: give a checkout directory or a repository and commit", errs.ErrUsage)
	}
	if err := p.findSources(ctx, &o); err != nil {
		return nil, err
	}
	p.Encoding = pomEncoding(p.Root)
	if p.Jars, err = jarList(o.Jars, o.JarDir); err != nil {
		return nil, err
	}
	for _, r := range o.Roots {
		p.roots = append(p.roots, filepath.Join(p.Root, filepath.FromSlash(r)))
	}
	p.OnDemand = len(p.roots) > 0
	p.subtypes = scanSubtypes(p.sourceFiles())
	recvTypes, subFiles := p.subtypes.receiverTypes(o.Receivers)
	p.Classes = filepath.Join(base, p.classesDir(subFiles))
	if err := p.compile(ctx, jdk, filepath.Join(base, "build")); err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, t := range append(slices.Clone(o.Types), recvTypes...) {
		want[t] = true
	}
	if p.types, err = readAPI(ctx, jdk, p, want); err != nil {
		return nil, err
	}
	p.Build = time.Since(t0)
	return p, nil
}

// classesDir is the classes folder's name in the build directory: an
// on-demand build that also compiles the receivers' subclasses (files,
// which follow from the tree and the roots) keeps them apart from one of
// the roots alone, whose cached builds stay valid.
func (p *Project) classesDir(files []string) string {
	var extra []string
	for _, f := range files {
		if p.OnDemand && !slices.Contains(p.roots, f) {
			p.roots = append(p.roots, f)
			extra = append(extra, relTo(p.Root, f))
		}
	}
	if len(extra) == 0 {
		return "classes"
	}
	key := sha256.Sum256([]byte(strings.Join(extra, ":")))
	return "classes-" + hex.EncodeToString(key[:6])
}

// buildDir is the build's cache directory, keyed by everything that
// shapes it.
func buildDir(o ProjectOptions) string {
	key := sha256.Sum256([]byte(buildVersion + "\x00" + o.Repos + "\x00" + o.GitDir + "\x00" + o.Commit + "\x00" + o.Dir + "\x00" + o.SrcRoot + "\x00" + o.Hint + "\x00" +
		strings.Join(o.Jars, ":") + o.JarDir + "\x00" + strings.Join(o.Roots, ":") + "\x00" + jarDirStamp(o.JarDir)))
	return filepath.Join(o.CacheDir, "projects", hex.EncodeToString(key[:8]))
}

// jarDirStamp names the jars of dir with their sizes, so that a build
// made before a jar was installed there (Debian's objenesis for mockito)
// is not reused after: the classes it could not compile then would stay
// missing.
func jarDirStamp(dir string) string {
	if dir == "" {
		return ""
	}
	m, _ := filepath.Glob(filepath.Join(dir, "*.jar"))
	slices.Sort(m)
	var b strings.Builder
	for _, j := range m {
		if fi, err := os.Stat(j); err == nil {
			fmt.Fprintf(&b, "%s:%d\n", filepath.Base(j), fi.Size())
		}
	}
	return b.String()
}

// exportSources exports the commit's tree into root, deriving the source
// root from the hint file first when none is given.
func exportSources(ctx context.Context, o *ProjectOptions, root string) error {
	if o.SrcRoot == "" && o.Hint != "" {
		o.SrcRoot = gitRootOf(ctx, o.GitDir, o.Commit, o.Hint)
	}
	// The whole tree: a build may have several source roots and the
	// pom names the dependencies.
	err := exportTree(ctx, o.GitDir, o.Commit, root, "")
	if err == nil {
		return nil
	}
	// A clone whose largest blobs are absent (a partial mirror)
	// cannot archive the whole tree; the source root alone is
	// what the build needs most.
	if o.SrcRoot == "" {
		return err
	}
	return exportTree(ctx, o.GitDir, o.Commit, root, o.SrcRoot)
}

// findSources sets the source root and the source path: the tree's
// production roots and the dependencies' sources.
func (p *Project) findSources(ctx context.Context, o *ProjectOptions) error {
	if o.SrcRoot == "" && o.Hint != "" {
		o.SrcRoot = rootOf(p.Root, o.Hint)
	}
	var err error
	if p.SrcRoot, err = sourceRoot(p.Root, o.SrcRoot); err != nil {
		return err
	}
	p.SourcePath = append([]string{p.SrcRoot}, otherRoots(p.Root, p.SrcRoot)...)
	if o.Repos != "" {
		dirs, names := dependencySources(ctx, p.Root, o.Repo, o.Repos, filepath.Join(o.CacheDir, "deps"))
		p.SourcePath = append(p.SourcePath, dirs...)
		p.Deps = names
	}
	return nil
}

// gitRootOf is rootOf for a file read from a commit ("" when unknown).
func gitRootOf(ctx context.Context, gitDir, commit, rel string) string {
	data, err := exec.CommandContext(ctx, "git", "--git-dir", gitDir, "show", commit+":"+rel).Output()
	if err != nil {
		return ""
	}
	return rootFromPackage(rel, data)
}

// exportTree writes the files of commit (under sub when set) into dir with
// "git archive" (nothing is executed from the repository); an existing
// export is kept.
func exportTree(ctx context.Context, gitDir, commit, dir, sub string) error {
	unlock, err := lockBuild(ctx, dir) // a dependency's export is shared by builds
	if err != nil {
		return err
	}
	defer unlock()
	done := filepath.Join(dir, ".benchforge-export")
	if _, err := os.Stat(done); err == nil {
		return nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("export %s@%s: %w", gitDir, commit, err)
	}
	args := []string{"--git-dir", gitDir, "archive", "--format=tar", commit}
	if sub != "" {
		args = append(args, filepath.ToSlash(sub))
	}
	cmd := exec.CommandContext(ctx, "git", args...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("export %s@%s: %w: git archive: %v: %s (is the commit in that repository?)", gitDir, commit, errs.ErrNotFound, err, strings.TrimSpace(stderr.String()))
	}
	if err := untar(&out, dir); err != nil {
		return fmt.Errorf("export %s@%s: %w", gitDir, commit, err)
	}
	return os.WriteFile(done, []byte(commit+"\n"), 0o644)
}

// untar extracts regular files of r under dir, refusing paths that leave it.
func untar(r io.Reader, dir string) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		if err := writeEntry(tr, h.Name, dir); err != nil {
			return err
		}
	}
}

// writeEntry writes the current file of tr, named name in the archive,
// under dir, refusing a name that leaves it.
func writeEntry(tr *tar.Reader, name, dir string) error {
	clean := filepath.Clean(name)
	if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%w: archive entry %q leaves the tree", errs.ErrInput, name)
	}
	path := filepath.Join(dir, clean)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	data, err := io.ReadAll(tr)
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

var packageDecl = regexp.MustCompile(`(?m)^\s*package\s+([\w.]+)\s*;`)

// isTestPath reports whether a path is in a test tree.
func isTestPath(rel string) bool {
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		switch strings.ToLower(part) {
		case "test", "tests", "src-test", "testing", "it", "examples", "example", "benchmark", "benchmarks", "jmh":
			return true
		}
	}
	return false
}

// sourceRoot is the production source root of the tree: given, or the
// directory most production files' package declarations point to.
func sourceRoot(root, given string) (string, error) {
	if given != "" {
		d := filepath.Join(root, given)
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return "", fmt.Errorf("build project: %w: source root %s is not a directory", errs.ErrNotFound, d)
		}
		return d, nil
	}
	votes, err := rootVotes(root)
	if err != nil {
		return "", err
	}
	best, n := mostVoted(votes)
	if n == 0 {
		return "", fmt.Errorf("build project: %w: no production Java sources under %s", errs.ErrNotFound, root)
	}
	return filepath.Join(root, best), nil
}

// mostVoted is the directory with the most votes (the first by name on a
// tie) and its count.
func mostVoted(votes map[string]int) (best string, n int) {
	for d, c := range votes {
		if c > n || c == n && d < best {
			best, n = d, c
		}
	}
	return best, n
}

// rootVotes counts, per directory, the production files whose package
// declaration makes it their source root.
func rootVotes(root string) (map[string]int, error) {
	votes := map[string]int{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".java") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if isTestPath(rel) {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if dir, ok := packageRoot(rel, data); ok {
			votes[dir]++
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("build project: %w", err)
	}
	return votes, nil
}

// packageRoot is the source root the package declaration in data makes
// of file rel's directory; false when the directory does not end in the
// package.
func packageRoot(rel string, data []byte) (string, bool) {
	pkgDir := ""
	if m := packageDecl.FindSubmatch(data); m != nil {
		pkgDir = filepath.FromSlash(strings.ReplaceAll(string(m[1]), ".", "/"))
	}
	dir := filepath.Dir(rel)
	if pkgDir != "" && !strings.HasSuffix(dir, pkgDir) {
		return "", false
	}
	return strings.TrimSuffix(strings.TrimSuffix(dir, pkgDir), string(filepath.Separator)), true
}

// otherRoots are the tree's production source roots besides main, most
// files first; a root holding files of the default package only (a
// stray script, a code sample) is left out.
func otherRoots(root, main string) []string {
	votes, err := rootVotes(root)
	if err != nil {
		return nil
	}
	own := javaFiles(main)
	var out []string
	for d := range votes {
		abs := filepath.Join(root, d)
		if abs == main || d == "." || d == "" || shadows(abs, own) {
			continue
		}
		out = append(out, abs)
	}
	slices.SortFunc(out, func(a, b string) int {
		ra, _ := filepath.Rel(root, a)
		rb, _ := filepath.Rel(root, b)
		if c := votes[rb] - votes[ra]; c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return out
}

// javaFiles are the .java files under dir, by path relative to it.
func javaFiles(dir string) map[string]bool {
	out := map[string]bool{}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".java") {
			rel, _ := filepath.Rel(dir, path)
			out[rel] = true
		}
		return nil
	})
	return out
}

// shadows reports whether the root at dir declares a class the main root
// also declares (the same package path and file): such a root is another
// build's copy of the project — joda-time's JodaTimeContrib/gwt emulation
// of org.joda.time — and, on the source path, javac would take its
// classes for the project's own.
func shadows(dir string, own map[string]bool) bool {
	for rel := range javaFiles(dir) {
		if own[rel] {
			return true
		}
	}
	return false
}

// rootOf is the source root a file's package declaration implies ("" when
// the file is missing or its path does not end in its package).
func rootOf(root, rel string) string {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return ""
	}
	return rootFromPackage(rel, data)
}

// rootFromPackage is the source root of file rel with contents data.
func rootFromPackage(rel string, data []byte) string {
	dir := filepath.Dir(filepath.FromSlash(rel))
	m := packageDecl.FindSubmatch(data)
	if m == nil {
		return dir
	}
	pkgDir := filepath.FromSlash(strings.ReplaceAll(string(m[1]), ".", "/"))
	if !strings.HasSuffix(dir, pkgDir) {
		return ""
	}
	return strings.TrimSuffix(strings.TrimSuffix(dir, pkgDir), string(filepath.Separator))
}

// jarList is the given jars plus every jar of dir, sorted.
func jarList(jars []string, dir string) ([]string, error) {
	out := slices.Clone(jars)
	if dir != "" {
		m, err := filepath.Glob(filepath.Join(dir, "*.jar"))
		if err != nil {
			return nil, fmt.Errorf("build project: jar dir %s: %w", dir, err)
		}
		slices.Sort(m)
		out = append(out, m...)
	}
	for _, j := range out {
		if _, err := os.Stat(j); err != nil {
			return nil, fmt.Errorf("build project: %w: classpath entry %s: %v", errs.ErrNotFound, j, err)
		}
	}
	return out, nil
}

var diagFile = regexp.MustCompile(`(?m)^(/[^:\n]+\.java):\d+:`)

// compile runs javac over the production sources (and the sources a build
// tool would generate from templates); the files it reports errors in
// (sources needing absent dependencies, pre-Java-5 identifiers like
// "enum") are recorded as dropped.
func (p *Project) compile(ctx context.Context, jdk JDK, work string) error {
	done := filepath.Join(p.Classes, ".benchforge-build")
	files, err := productionFiles(p.SrcRoot)
	if err != nil {
		return fmt.Errorf("build project %s: %w", p.Repo, err)
	}
	p.Files = len(files)
	if data, err := os.ReadFile(done); err == nil {
		p.Compiled, p.Dropped = parseBuildMark(string(data))
		return p.readUsedJars()
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return fmt.Errorf("build project %s: %w", p.Repo, err)
	}
	gen, err := expandTemplates(p.Root, p.SrcRoot, filepath.Join(work, "generated"))
	if err != nil {
		return fmt.Errorf("build project %s: %w", p.Repo, err)
	}
	files = append(files, gen...)
	p.Files = len(files)
	if p.OnDemand {
		return p.compileRoots(ctx, jdk, work, filepath.Join(work, "generated"), done)
	}
	if err := p.compileFiles(ctx, jdk, work, files); err != nil {
		return err
	}
	slices.Sort(p.Dropped)
	p.Dropped = slices.Compact(p.Dropped)
	p.Compiled = p.Files - len(p.Dropped)
	return p.writeBuildMark(done)
}

// productionFiles are the Java sources under srcRoot but module-info.
func productionFiles(srcRoot string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(srcRoot, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".java") && filepath.Base(path) != "module-info.java" {
			files = append(files, path)
		}
		return err
	})
	return files, err
}

// compileFiles compiles every class it can in one javac run
// (should-stop.ifError=GENERATE); only a run that writes nothing (a parse
// error stops javac early) is repeated without the files it named. The
// files javac reported are recorded as dropped.
func (p *Project) compileFiles(ctx context.Context, jdk JDK, work string, files []string) error {
	for round := 0; round < maxBuildRounds && len(files) > 0; round++ {
		if err := os.RemoveAll(p.Classes); err != nil {
			return fmt.Errorf("build project %s: %w", p.Repo, err)
		}
		bad, err := p.javac(ctx, jdk, work, files)
		if err != nil {
			return err
		}
		for _, f := range files {
			if bad[f] {
				rel, _ := filepath.Rel(p.SrcRoot, f)
				p.Dropped = append(p.Dropped, rel)
			}
		}
		if len(bad) == 0 || classCount(p.Classes) > 0 {
			break
		}
		files = slices.DeleteFunc(files, func(f string) bool { return bad[f] })
	}
	return nil
}

// writeBuildMark records a finished build (compiled count, dropped files)
// in done, which a later build reads instead of compiling again.
func (p *Project) writeBuildMark(done string) error {
	if err := os.MkdirAll(p.Classes, 0o755); err != nil {
		return fmt.Errorf("build project %s: %w", p.Repo, err)
	}
	if err := p.writeUsedJars(); err != nil {
		return err
	}
	return os.WriteFile(done, []byte(fmt.Sprintf("%d\n%s", p.Compiled, strings.Join(p.Dropped, "\n"))), 0o644)
}

// compileRoots is the on-demand build: the roots and what they need.
func (p *Project) compileRoots(ctx context.Context, jdk JDK, work, gen, done string) error {
	if err := os.RemoveAll(p.Classes); err != nil {
		return fmt.Errorf("build project %s: %w", p.Repo, err)
	}
	sp := strings.Join(append(slices.Clone(p.SourcePath), gen), string(os.PathListSeparator))
	// -Xprefer:source: a class both on the source path and in a jar (the
	// system's newer commons-lang3 for a commons-lang commit, a newer
	// jackson-core) is compiled from the source, the version the project
	// was written for; by default javac takes the newer file, and git
	// archive dates sources by their commit.
	args := []string{"-sourcepath", sp, "-implicit:class", "-Xprefer:source"}
	bad, out, err := p.javacOut(ctx, jdk, work, p.roots, append([]string{"-verbose"}, args...)...)
	if err != nil {
		return err
	}
	if len(bad) > 0 {
		if bad, err = p.compileAgain(ctx, jdk, work, parsedSources(out, bad), bad, args); err != nil {
			return err
		}
	}
	for f := range bad {
		rel, _ := filepath.Rel(p.SrcRoot, f)
		p.Dropped = append(p.Dropped, rel)
	}
	slices.Sort(p.Dropped)
	p.Compiled = classCount(p.Classes)
	return p.writeBuildMark(done)
}

// compileAgain is the rest of an on-demand build whose first run had
// errors (in bad), over the files it read: once with the source path
// (javac generates what it can, but once a file has errors it writes no
// class for many files it read only through the source path:
// commons-collections 3's FunctorException, behind MultiKeyMap's clash
// with Java 8's Map.remove), and once by compileReached into a folder of
// its own; the build keeps whichever wrote more classes (compileReached
// loses every class that names a dropped one, which in a tightly knit
// tree such as jackson-databind's can be nearly all). It returns the
// dropped files of the one kept.
func (p *Project) compileAgain(ctx context.Context, jdk JDK, work string, files []string, bad map[string]bool, args []string) (map[string]bool, error) {
	first := maps.Clone(bad)
	more, _, err := p.javacOut(ctx, jdk, work, files, args...)
	if err != nil {
		return nil, err
	}
	maps.Copy(bad, more)
	classes := p.Classes
	p.Classes = classes + "-reached"
	reached, clean, err := p.compileReached(ctx, jdk, work, files, first)
	alt := p.Classes
	if err != nil {
		p.Classes = classes
		return nil, err
	}
	// The files compileReached kept, compiled with the whole source path:
	// a file naming a dropped one then still compiles, and javac reads
	// the dropped file through the source path without failing the rest
	// (mockito: LocalizedMatcher against Debian's hamcrest 2.2 failed
	// every file importing Mockito in compileReached, 0 classes, and a
	// run naming them all wrote 25; this run writes 425).
	p.Classes = classes + "-clean"
	cleanBad, _, err := p.javacOut(ctx, jdk, work, clean, args...)
	full := p.Classes
	p.Classes = classes
	if err != nil {
		return nil, err
	}
	for f := range reached {
		if !slices.Contains(clean, f) {
			cleanBad = mapsWith(cleanBad, f)
		}
	}
	best, keep := classes, bad
	for _, c := range []struct {
		dir  string
		drop map[string]bool
	}{{alt, reached}, {full, cleanBad}} {
		if classCount(c.dir) > classCount(best) {
			best, keep = c.dir, c.drop
		}
	}
	for _, d := range []string{alt, full} {
		if d != best {
			if err := os.RemoveAll(d); err != nil {
				return nil, wrapBuild(p.Repo, err)
			}
		}
	}
	if best == classes {
		return keep, nil
	}
	if err := os.RemoveAll(classes); err != nil {
		return nil, wrapBuild(p.Repo, err)
	}
	return keep, wrapBuild(p.Repo, os.Rename(best, classes))
}

// mapsWith is m (a new map when nil) with k set.
func mapsWith(m map[string]bool, k string) map[string]bool {
	if m == nil {
		m = map[string]bool{}
	}
	m[k] = true
	return m
}

// wrapBuild wraps a build's file error with the project's name.
func wrapBuild(repo string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("build project %s: %w", repo, err)
}

// compileReached compiles the files the first run of an on-demand build
// read but those in bad, against a source path without the files
// dropped so far, dropping the files javac reports until a run is clean
// (at most maxBuildRounds runs); it returns every file dropped. With the
// bad file on the source path javac reads it again whenever another file
// names it, and then writes no class for many good ones (commons-cli's
// Util, behind TypeHandler's absent commons-lang); without it a file
// naming a dropped one fails itself, and the rest compile as a full
// build's would.
func (p *Project) compileReached(ctx context.Context, jdk JDK, work string, files []string, bad map[string]bool) (map[string]bool, []string, error) {
	files = slices.Clone(files)
	for round := 0; round < maxBuildRounds && len(files) > 0; round++ {
		if err := os.RemoveAll(p.Classes); err != nil {
			return nil, nil, fmt.Errorf("build project %s: %w", p.Repo, err)
		}
		sp, err := p.sourcePathWithout(filepath.Join(work, "sp"), bad)
		if err != nil {
			return nil, nil, err
		}
		more, _, err := p.javacOut(ctx, jdk, work, files, "-sourcepath", sp, "-implicit:class", "-Xprefer:source")
		if err != nil || len(more) == 0 {
			return bad, files, err
		}
		more = linkTargets(more) // a source-path file is named by its link
		maps.Copy(bad, more)
		files = slices.DeleteFunc(files, func(f string) bool { return more[f] })
	}
	return bad, files, nil
}

// sourcePathWithout is the project's source path with the files in bad
// hidden: the tree's roots mirrored under dir as symbolic links to every
// other Java file (a package imported whole still exists: mockito's
// org.mockito.exceptions.base), the dependencies' roots as they are.
func (p *Project) sourcePathWithout(dir string, bad map[string]bool) (string, error) {
	if err := os.RemoveAll(dir); err != nil {
		return "", wrapBuild(p.Repo, err)
	}
	var roots []string
	for i, root := range p.SourcePath {
		if !strings.HasPrefix(root, p.Root) {
			roots = append(roots, root)
			continue
		}
		mirror := filepath.Join(dir, strconv.Itoa(i))
		if err := linkTree(root, mirror, bad); err != nil {
			return "", wrapBuild(p.Repo, err)
		}
		roots = append(roots, mirror)
	}
	return strings.Join(roots, string(os.PathListSeparator)), nil
}

// linkTargets maps each symbolic link in files to the file it names.
func linkTargets(files map[string]bool) map[string]bool {
	out := map[string]bool{}
	for f := range files {
		if to, err := os.Readlink(f); err == nil {
			f = to
		}
		out[f] = true
	}
	return out
}

// linkTree links every Java file under root but those in skip into the
// same place under mirror.
func linkTree(root, mirror string, skip map[string]bool) error {
	return filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".java") || skip[path] {
			return err
		}
		to := filepath.Join(mirror, relTo(root, path))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		return os.Symlink(path, to)
	})
}

// javac compiles files into p.Classes and returns the files it reported
// errors in; extra replaces the default "-sourcepath ” -implicit:none".
func (p *Project) javac(ctx context.Context, jdk JDK, work string, files []string, extra ...string) (map[string]bool, error) {
	bad, _, err := p.javacOut(ctx, jdk, work, files, extra...)
	return bad, err
}

var parsedFile = regexp.MustCompile(`(?m)^\[parsing started \w*FileObject\[([^\]\n]+)\]\]`)

// parsedSources are the source files a -verbose javac run read ("root:rel"
// for a source-path file), in order, but those in bad.
func parsedSources(out string, bad map[string]bool) []string {
	var files []string
	for _, m := range parsedFile.FindAllStringSubmatch(out, -1) {
		f := strings.Replace(m[1], ":", string(filepath.Separator), 1)
		if !bad[f] && !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	return files
}

// javacOut is javac that also returns javac's output.
func (p *Project) javacOut(ctx context.Context, jdk JDK, work string, files []string, extra ...string) (map[string]bool, string, error) {
	if abs, err := filepath.Abs(work); err == nil {
		work = abs // it is javac's working directory below
	}
	argfile := filepath.Join(work, "files.txt")
	if err := os.WriteFile(argfile, []byte(strings.Join(files, "\n")+"\n"), 0o644); err != nil {
		return nil, "", fmt.Errorf("build project %s: %w", p.Repo, err)
	}
	if len(extra) == 0 {
		// Dependencies found as sources are compiled as they are needed.
		extra = []string{"-sourcepath", "", "-implicit:none"}
		if len(p.SourcePath) > 1 {
			extra = []string{"-sourcepath", strings.Join(p.SourcePath[1:], string(os.PathListSeparator)), "-implicit:class", "-Xprefer:source"}
		}
	}
	args := append([]string{"-d", p.Classes, "-encoding", p.Encoding, "-nowarn", "-proc:none", "-g:source,lines",
		"-XDshould-stop.ifError=GENERATE", "-Xmaxerrs", "100000", "--release", "8"}, extra...)
	if len(p.Jars) > 0 {
		args = append(args, "-cp", strings.Join(p.Jars, string(os.PathListSeparator)))
	}
	if !slices.Contains(args, "-verbose") {
		args = append(args, "-verbose") // for the jars it reads (noteJars)
	}
	cmd := exec.CommandContext(ctx, jdk.Javac, append(args, "@"+argfile)...)
	// In the build's own directory: a javac that crashes writes
	// javac.<date>.args to its working directory, which was the user's.
	cmd.Dir = work
	out, err := cmd.CombinedOutput()
	p.noteJars(string(out))
	if err == nil {
		return nil, string(out), nil
	}
	if ctx.Err() != nil {
		return nil, "", ctx.Err()
	}
	bad := map[string]bool{}
	for _, m := range diagFile.FindAllStringSubmatch(string(out), -1) {
		bad[m[1]] = true
	}
	if len(bad) == 0 {
		return nil, "", fmt.Errorf("build project %s: javac failed without naming a file: %v: %s", p.Repo, err, firstLines(string(out), 5))
	}
	return bad, string(out), nil
}

// classCount is the number of class files under dir.
func classCount(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".class") {
			n++
		}
		return nil
	})
	return n
}

// templateVars are the Maven filtering placeholders of generated sources
// (Jackson's PackageVersion.java.in), with neutral values.
var templateVars = strings.NewReplacer("@projectversion@", "0.0.0", "@projectgroupid@", "benchforge", "@projectartifactid@", "project")

// expandTemplates writes the "*.java.in" sources a build tool would
// generate (under the source root or a java-templates folder) into dir,
// with @package@ set from the template's folder.
func expandTemplates(root, srcRoot, dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".java.in") {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if isTestPath(rel) {
			return nil
		}
		target, err := expandTemplate(path, srcRoot, dir)
		if target != "" {
			out = append(out, target)
		}
		return err
	})
	return out, err
}

// expandTemplate writes the source generated from the template at path
// under dir and returns it; "" for a template outside its base folder.
func expandTemplate(path, srcRoot, dir string) (string, error) {
	base := srcRoot
	if i := strings.Index(filepath.ToSlash(path), "/java-templates/"); i >= 0 {
		base = path[:i+len("/java-templates")]
	}
	pkgRel, err := filepath.Rel(base, filepath.Dir(path))
	if err != nil || strings.HasPrefix(pkgRel, "..") {
		return "", nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	text := strings.ReplaceAll(templateVars.Replace(string(data)), "@package@", strings.ReplaceAll(filepath.ToSlash(pkgRel), "/", "."))
	target := filepath.Join(dir, pkgRel, strings.TrimSuffix(filepath.Base(path), ".in"))
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return "", err
	}
	return target, os.WriteFile(target, []byte(text), 0o644)
}

func parseBuildMark(s string) (int, []string) {
	first, rest, _ := strings.Cut(s, "\n")
	n := 0
	fmt.Sscan(first, &n)
	var dropped []string
	for _, l := range strings.Split(rest, "\n") {
		if l != "" {
			dropped = append(dropped, l)
		}
	}
	return n, dropped
}

// usedJarsFile, in the classes folder, lists the jars the build read.
const usedJarsFile = ".benchforge-jars"

var loadedJar = regexp.MustCompile(`(?m)^\[loading (?:ZipFileIndexFileObject\[)?([^()\[\]\n]+\.jar)\(`)

// noteJars adds the jars a -verbose javac run read a class from to the
// build's used set.
func (p *Project) noteJars(out string) {
	if p.used == nil {
		p.used = map[string]bool{}
	}
	for _, m := range loadedJar.FindAllStringSubmatch(out, -1) {
		p.used[m[1]] = true
	}
	// Never nil once a build ran: nil is a build without the record
	// (CompileClasspath: every jar), and a fresh build that read no jar
	// must compile its pairs as its cached copy does, against no jar
	// (before, commons-cli's fresh build put Debian's commons-cli 1.5 on
	// the pairs' classpath and its cached copy did not, so two runs
	// disagreed on two pairs).
	p.UsedJars = []string{}
	for _, j := range p.Jars {
		if p.used[j] {
			p.UsedJars = append(p.UsedJars, j)
		}
	}
}

// writeUsedJars records UsedJars beside the classes.
func (p *Project) writeUsedJars() error {
	text := strings.Join(p.UsedJars, "\n")
	if err := os.WriteFile(filepath.Join(p.Classes, usedJarsFile), []byte(text), 0o644); err != nil {
		return fmt.Errorf("build project %s: %w", p.Repo, err)
	}
	return nil
}

// readUsedJars reads a cached build's UsedJars, keeping those still in
// Jars (in its order); a build without the record uses every jar.
func (p *Project) readUsedJars() error {
	data, err := os.ReadFile(filepath.Join(p.Classes, usedJarsFile))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("build project %s: %w", p.Repo, err)
	}
	used := strings.Split(string(data), "\n")
	p.UsedJars = []string{}
	for _, j := range p.Jars {
		if slices.Contains(used, j) {
			p.UsedJars = append(p.UsedJars, j)
		}
	}
	return nil
}

var sourceEncoding = regexp.MustCompile(`<project\.build\.sourceEncoding>\s*([\w.:-]+)\s*<`)

// pomEncoding is the source encoding root's pom.xml declares, or UTF-8.
// Compiling an ISO-8859-1 tree as UTF-8 fails on its first accented
// comment (commons-lang's EntityArrays), and javac then writes no class.
func pomEncoding(root string) string {
	data, err := os.ReadFile(filepath.Join(root, "pom.xml"))
	if err != nil {
		return "UTF-8"
	}
	if m := sourceEncoding.FindSubmatch(data); m != nil {
		return string(m[1])
	}
	return "UTF-8"
}

// toUTF8 re-encodes a source file of the project's encoding as UTF-8,
// the encoding the verifier compiles pairs in (their methods come from
// JSON); only ISO-8859-1 is converted, other texts
// are returned as they are.
func (p *Project) toUTF8(data []byte) []byte {
	switch strings.ToUpper(strings.ReplaceAll(p.Encoding, "_", "-")) {
	case "ISO-8859-1", "ISO8859-1", "LATIN1":
	default:
		return data
	}
	var b strings.Builder
	for _, c := range data {
		b.WriteRune(rune(c))
	}
	return []byte(b.String())
}
