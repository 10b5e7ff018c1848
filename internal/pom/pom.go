// Package pom reads the part of a Maven pom.xml that benchforge's Java
// builders use without Maven: coordinates, properties, source and resource
// directories, and dependencies. The JVM verifier (internal/synth/jvm) and
// Stage II's javac test runner (internal/audit/testverify) both read poms
// through it.
package pom

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// POM is a pom.xml, as far as it is read.
type POM struct {
	GroupID    string `xml:"groupId"`
	ArtifactID string `xml:"artifactId"`
	Version    string `xml:"version"`
	Parent     struct {
		GroupID string `xml:"groupId"`
		Version string `xml:"version"`
	} `xml:"parent"`
	Properties struct {
		Entries []struct {
			XMLName xml.Name
			Value   string `xml:",chardata"`
		} `xml:",any"`
	} `xml:"properties"`
	Build struct {
		SourceDirectory     string   `xml:"sourceDirectory"`
		TestSourceDirectory string   `xml:"testSourceDirectory"`
		Resources           []string `xml:"resources>resource>directory"`
		TestResources       []string `xml:"testResources>testResource>directory"`
	} `xml:"build"`
	Dependencies []Dep `xml:"dependencies>dependency"`
}

// Dep is a dependency as the pom writes it (Version may hold ${...}).
type Dep struct {
	GroupID    string `xml:"groupId"`
	ArtifactID string `xml:"artifactId"`
	Version    string `xml:"version"`
	Scope      string `xml:"scope"`
}

// Read parses dir's pom.xml; an error says why there is none to read.
func Read(dir string) (*POM, error) {
	data, err := os.ReadFile(filepath.Join(dir, "pom.xml"))
	if err != nil {
		return nil, err
	}
	var p POM
	if err := xml.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "pom.xml"), err)
	}
	return &p, nil
}

// Props are the pom's properties, with its own and its parent's version
// under the names Maven gives them.
func (p *POM) Props() map[string]string {
	props := map[string]string{"project.version": p.Version, "pom.version": p.Version, "version": p.Version, "project.parent.version": p.Parent.Version}
	for _, e := range p.Properties.Entries {
		props[e.XMLName.Local] = strings.TrimSpace(e.Value)
	}
	return props
}

var property = regexp.MustCompile(`\$\{([^}]+)\}`)

// Resolve replaces the ${property} references of v from props, three
// levels deep; an unknown one is left as it is.
func Resolve(v string, props map[string]string) string {
	for i := 0; i < 3 && strings.Contains(v, "${"); i++ {
		v = property.ReplaceAllStringFunc(v, func(m string) string {
			if v, ok := props[m[2:len(m)-1]]; ok {
				return v
			}
			return m
		})
	}
	return strings.TrimSpace(v)
}
