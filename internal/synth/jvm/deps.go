package jvm

import (
	"context"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// pom is the part of a Maven pom.xml that names dependencies.
type pom struct {
	Version string `xml:"version"`
	Parent  struct {
		Version string `xml:"version"`
	} `xml:"parent"`
	Properties struct {
		Entries []struct {
			XMLName xml.Name
			Value   string `xml:",chardata"`
		} `xml:",any"`
	} `xml:"properties"`
	Dependencies []pomDep `xml:"dependencies>dependency"`
}

type pomDep struct {
	GroupID    string `xml:"groupId"`
	ArtifactID string `xml:"artifactId"`
	Version    string `xml:"version"`
	Scope      string `xml:"scope"`
}

var pomProperty = regexp.MustCompile(`\$\{([^}]+)\}`)

// pomDependencies reads the compile-time dependencies (test scope left
// out) of the pom.xml at the tree's root, with ${property} versions
// resolved from the pom's properties and its own and parent's versions.
func pomDependencies(root string) []pomDep {
	data, err := os.ReadFile(filepath.Join(root, "pom.xml"))
	if err != nil {
		return nil
	}
	var p pom
	if xml.Unmarshal(data, &p) != nil {
		return nil
	}
	props := map[string]string{"project.version": p.Version, "pom.version": p.Version, "version": p.Version, "project.parent.version": p.Parent.Version}
	for _, e := range p.Properties.Entries {
		props[e.XMLName.Local] = strings.TrimSpace(e.Value)
	}
	var out []pomDep
	for _, d := range p.Dependencies {
		if d.Scope == "test" || d.ArtifactID == "" {
			continue
		}
		d.Version = resolveVersion(d.Version, props)
		if d.Version == "" || strings.Contains(d.Version, "${") {
			continue
		}
		out = append(out, d)
	}
	return out
}

// resolveVersion replaces the ${property} references of a version, three
// levels deep; an unknown one is left as it is.
func resolveVersion(v string, props map[string]string) string {
	for i := 0; i < 3 && strings.Contains(v, "${"); i++ {
		v = pomProperty.ReplaceAllStringFunc(v, func(m string) string {
			if v, ok := props[m[2:len(m)-1]]; ok {
				return v
			}
			return m
		})
	}
	return strings.TrimSpace(v)
}

// releaseTags are the tag names a release of artifact at version goes by,
// most common first (jackson-core-2.5.0, 2.5.0, v2.5.0, rel/…).
func releaseTags(artifact, version string) []string {
	return []string{artifact + "-" + version, version, "v" + version, "rel/" + artifact + "-" + version, artifact + "_" + strings.ReplaceAll(version, ".", "_")}
}

// dependencySources finds the project's dependencies that are clones of
// the same owner under repos (FasterXML/jackson-core for
// FasterXML/jackson-databind), exports each at the tag of the version the
// pom names, and returns their production source roots and
// "owner/name@tag" labels. A dependency without a clone or a matching
// tag is left to the jars; nothing here fails the build.
func dependencySources(ctx context.Context, root, repo, repos, cacheDir string) (dirs, names []string) {
	owner, _, ok := strings.Cut(repo, "/")
	if !ok {
		return nil, nil
	}
	for _, d := range pomDependencies(root) {
		name := owner + "/" + d.ArtifactID
		if name == repo {
			continue
		}
		gitDir, err := FindGitDir(repos, name)
		if err != nil {
			continue
		}
		if src, tag, ok := exportRelease(ctx, gitDir, name, d, cacheDir); ok {
			dirs = append(dirs, src)
			names = append(names, name+"@"+tag)
		}
	}
	return dirs, names
}

// exportRelease exports the clone of dependency d at the first of its
// release tags that it has and returns its production source root; ok
// is false when no tag is there or the export fails.
func exportRelease(ctx context.Context, gitDir, name string, d pomDep, cacheDir string) (src, tag string, ok bool) {
	for _, tag := range releaseTags(d.ArtifactID, d.Version) {
		if exec.CommandContext(ctx, "git", "--git-dir", gitDir, "rev-parse", "--verify", "-q", "refs/tags/"+tag+"^{commit}").Run() != nil {
			continue
		}
		dir := filepath.Join(cacheDir, strings.ReplaceAll(name, "/", "__")+"@"+strings.ReplaceAll(tag, "/", "_"))
		if exportTree(ctx, gitDir, "refs/tags/"+tag, dir, "") != nil {
			return "", "", false
		}
		src, err := sourceRoot(dir, "")
		if err != nil {
			return "", "", false
		}
		return src, tag, true
	}
	return "", "", false
}
