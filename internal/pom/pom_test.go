package pom

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/benchforge/benchforge/internal/testcheck"
)

// TestReadAndResolve reads a pom with a parent, properties, build
// directories and dependencies, and resolves property references, nested
// and unknown.
func TestReadAndResolve(t *testing.T) {
	dir := t.TempDir()
	testcheck.Must(t, os.WriteFile(filepath.Join(dir, "pom.xml"), []byte(`<project>
  <parent><groupId>org.apache.commons</groupId><version>52</version></parent>
  <artifactId>commons-lang3</artifactId><version>3.13.0</version>
  <properties><commons.junit.version>5.9.1</commons.junit.version><junit>${commons.junit.version}</junit>
    <project.build.sourceEncoding> ISO-8859-1 </project.build.sourceEncoding></properties>
  <build><sourceDirectory>${basedir}/src/java</sourceDirectory><resources><resource><directory>res</directory></resource></resources></build>
  <dependencies><dependency><groupId>org.junit</groupId><artifactId>junit</artifactId><version>${junit}</version><scope>test</scope></dependency></dependencies>
</project>`), 0o644))
	p, err := Read(dir)
	testcheck.Must(t, err)
	testcheck.Eq(t, "parent group", p.Parent.GroupID, "org.apache.commons")
	testcheck.Eq(t, "source directory", p.Build.SourceDirectory, "${basedir}/src/java")
	testcheck.Eq(t, "resources", len(p.Build.Resources), 1)
	props := p.Props()
	testcheck.Eq(t, "encoding, trimmed", props["project.build.sourceEncoding"], "ISO-8859-1")
	testcheck.Eq(t, "nested property", Resolve(p.Dependencies[0].Version, props), "5.9.1")
	testcheck.Eq(t, "own version", Resolve("${project.version}", props), "3.13.0")
	testcheck.Eq(t, "unknown property kept", Resolve("${nope}-1", props), "${nope}-1")
	testcheck.Eq(t, "scope", p.Dependencies[0].Scope, "test")
	if _, err := Read(t.TempDir()); err == nil {
		t.Error("a folder without a pom.xml read without an error")
	}
	testcheck.Must(t, os.WriteFile(filepath.Join(dir, "pom.xml"), []byte("<project><version>"), 0o644))
	if _, err := Read(dir); err == nil {
		t.Error("a pom that does not parse read without an error")
	}
}
