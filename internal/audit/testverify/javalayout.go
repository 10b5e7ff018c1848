package testverify

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/pom"
)

// javaLayout is what a javac build of a work tree needs to know: where the
// sources and resources are, how they are encoded, which Java release they
// target and which libraries the pom names. Paths are relative to the work
// tree and exist.
type javaLayout struct {
	Main, Test []string // source roots
	Resources  []string // resource directories (main and test)
	Encoding   string   // -encoding: the pom's, else UTF-8 (see latin1ToUTF8)
	Release    string   // --release
	Deps       []pom.Dep
	// GroupID, ArtifactID and Version fill Maven's source templates.
	GroupID, ArtifactID, Version string
}

// Conventional source and resource roots, tried in order when the pom
// names none (Maven's defaults, then the older Apache and Ant layouts:
// commons-lang 2 has src/java and src/test, Mockito 1 has src and test).
var (
	mainRoots     = []string{"src/main/java", "src/java", "source", "src"}
	testRoots     = []string{"src/test/java", "src/test", "test", "tests"}
	resourceRoots = []string{"src/main/resources", "src/test/resources"}
)

// readLayout finds the layout of the work tree at dir: the pom.xml's
// sourceDirectory, testSourceDirectory and resource directories where it
// names them, else the conventional roots.
func readLayout(dir string) javaLayout {
	p, err := pom.Read(dir)
	if err != nil {
		p = &pom.POM{} // no pom, or one that does not parse: the conventions
	}
	props := p.Props()
	l := javaLayout{Deps: p.Dependencies, GroupID: first(p.GroupID, p.Parent.GroupID),
		ArtifactID: p.ArtifactID, Version: first(p.Version, p.Parent.Version)}
	l.Main = roots(dir, p.Build.SourceDirectory, mainRoots)
	l.Test = roots(dir, p.Build.TestSourceDirectory, testRoots)
	for _, r := range append(append(append([]string(nil), p.Build.Resources...), p.Build.TestResources...), resourceRoots...) {
		if r = pomPath(r); isDir(dir, r) && !slices.Contains(l.Resources, r) {
			l.Resources = append(l.Resources, r)
		}
	}
	l.Encoding = first(props["project.build.sourceEncoding"], props["maven.compiler.encoding"], "UTF-8")
	l.Release = javaRelease(first(props["maven.compiler.source"], props["maven.compile.source"], props["maven.compiler.release"]))
	return l
}

// roots is the pom's directory when it exists, else the first existing
// conventional root.
func roots(dir, fromPom string, conventional []string) []string {
	if r := pomPath(fromPom); r != "" && isDir(dir, r) {
		return []string{r}
	}
	for _, r := range conventional {
		if isDir(dir, r) {
			return []string{r}
		}
	}
	return nil
}

// pomPath strips the ${basedir} prefixes poms write before their paths.
func pomPath(p string) string {
	p = strings.TrimSpace(p)
	for _, pre := range []string{"${basedir}/", "${project.basedir}/", "./"} {
		p = strings.TrimPrefix(p, pre)
	}
	if strings.Contains(p, "${") || filepath.IsAbs(p) || strings.HasPrefix(filepath.Clean(p), "..") {
		return ""
	}
	return strings.TrimSuffix(p, "/")
}

// javaRelease is the --release for a pom's source level: 8, the oldest
// JDK 17 compiles well (it still accepts 7, deprecated, and nothing
// older), unless the pom asks for a newer one.
func javaRelease(source string) string {
	v := strings.TrimPrefix(strings.TrimSpace(source), "1.")
	if n, err := strconv.Atoi(v); err == nil && n > 8 {
		return strconv.Itoa(n)
	}
	return "8"
}

// latin1ToUTF8 rewrites, in the work tree's private copy, each source
// file below roots that is not valid UTF-8 from ISO-8859-1 to UTF-8, and
// returns how many it rewrote. Old Apache sources mix the two (a pom that
// says UTF-8 and a "©" byte in a comment): Java 8's javac warned about an
// unmappable byte, JDK 17's javac rejects it, and javac takes one
// encoding for all files. ISO-8859-1 maps every byte, so the rewrite
// keeps what the author wrote.
func latin1ToUTF8(dir string, roots []string) int {
	n := 0
	for _, r := range roots {
		for _, rel := range filesWithSuffix(dir, r, ".java", nil) {
			p := filepath.Join(dir, rel)
			data, err := os.ReadFile(p)
			if err != nil || utf8.Valid(data) {
				continue
			}
			if os.WriteFile(p, code.AsUTF8(data), 0o644) == nil {
				n++
			}
		}
	}
	return n
}

// filesWithSuffix lists the files named *suffix under root (paths
// relative to dir), skipping the directories in skip (a test root inside
// a main root), sorted.
func filesWithSuffix(dir, root, suffix string, skip []string) []string {
	var out []string
	_ = filepath.WalkDir(filepath.Join(dir, root), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() && (slices.Contains(skip, filepath.ToSlash(rel)) || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, suffix) {
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

// templateVar is a Maven replacer token such as @package@.
var templateVar = regexp.MustCompile(`@(package|projectversion|projectgroupid|projectartifactid)@`)

// expandTemplate fills a Maven source template (Jackson's
// PackageVersion.java.in, which the maven-replacer-plugin turns into
// PackageVersion.java at build time) for the file at rel below root.
func (l javaLayout) expandTemplate(src []byte, root, rel string) []byte {
	pkg := strings.ReplaceAll(filepath.ToSlash(filepath.Dir(strings.TrimPrefix(rel, root+"/"))), "/", ".")
	vals := map[string]string{"package": pkg, "projectversion": l.Version,
		"projectgroupid": l.GroupID, "projectartifactid": l.ArtifactID}
	return templateVar.ReplaceAllFunc(src, func(m []byte) []byte {
		return []byte(vals[string(m[1:len(m)-1])])
	})
}

func first(vals ...string) string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

func isDir(dir, rel string) bool {
	if rel == "" {
		return false
	}
	fi, err := os.Stat(filepath.Join(dir, rel))
	return err == nil && fi.IsDir()
}
