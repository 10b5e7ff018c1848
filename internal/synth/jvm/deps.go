package jvm

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/benchforge/benchforge/internal/pom"
)

// pomDependencies reads the compile-time dependencies (test scope left
// out) of the pom.xml at the tree's root, with ${property} versions
// resolved from the pom's properties and its own and parent's versions.
// A version the pom leaves to its parent (empty, or a property only the
// parent defines: jackson-databind 2.9's ${jackson.version.core}, set by
// jackson-bom) is taken from the release train when the dependency is of
// the parent's group (releaseTrain).
func pomDependencies(root string) []pom.Dep {
	p, err := pom.Read(root)
	if err != nil {
		return nil
	}
	props := p.Props()
	var out []pom.Dep
	for _, d := range p.Dependencies {
		if d.Scope == "test" || d.ArtifactID == "" {
			continue
		}
		d.Version = pom.Resolve(d.Version, props)
		if d.Version == "" || strings.Contains(d.Version, "${") {
			if d.Version = releaseTrain(p, d); d.Version == "" {
				continue
			}
		}
		out = append(out, d)
	}
	return out
}

// releaseTrain is the version a parent of the dependency's own group
// gives its members: a BOM parent (com.fasterxml.jackson:jackson-bom
// 2.9.0.pr3) releases com.fasterxml.jackson.core's modules under its own
// version. "" when the parent is of another group.
func releaseTrain(p *pom.POM, d pom.Dep) string {
	g := p.Parent.GroupID
	if g == "" || p.Parent.Version == "" || strings.Contains(p.Parent.Version, "${") || d.GroupID != g && !strings.HasPrefix(d.GroupID, g+".") {
		return ""
	}
	return p.Parent.Version
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
		if srcs, tag, ok := exportRelease(ctx, gitDir, name, d, cacheDir); ok {
			dirs = append(dirs, srcs...)
			names = append(names, name+"@"+tag)
		}
	}
	return dirs, names
}

// exportRelease exports the clone of dependency d at the first of its
// release tags that it has and returns its production source root, and
// beside it the folder of the sources its build would generate from
// "*.java.in" templates when it has any; ok is false when no tag is there
// or the export fails. Without the generated sources javac finds no
// jackson-core PackageVersion for JsonFactory, so every jackson-databind
// class that reaches JsonFactory failed to build and its pairs missed
// classes at run time (issue 16).
func exportRelease(ctx context.Context, gitDir, name string, d pom.Dep, cacheDir string) (srcs []string, tag string, ok bool) {
	tags := releaseTags(d.ArtifactID, d.Version)
	if near := nearestRelease(ctx, gitDir, d); near != "" {
		tags = append(tags, near)
	}
	for _, tag := range tags {
		if exec.CommandContext(ctx, "git", "--git-dir", gitDir, "rev-parse", "--verify", "-q", "refs/tags/"+tag+"^{commit}").Run() != nil {
			continue
		}
		dir := filepath.Join(cacheDir, strings.ReplaceAll(name, "/", "__")+"@"+strings.ReplaceAll(tag, "/", "_"))
		if exportTree(ctx, gitDir, "refs/tags/"+tag, dir, "") != nil {
			return nil, "", false
		}
		src, err := sourceRoot(dir, "")
		if err != nil {
			return nil, "", false
		}
		srcs = []string{src}
		if gen, err := expandTemplates(dir, src, dir+".generated"); err == nil && len(gen) > 0 {
			srcs = append(srcs, dir+".generated")
		}
		return srcs, tag, true
	}
	return nil, "", false
}

// releaseTag matches a release tag's version: an optional artifact or
// "v" prefix, then major.minor.patch and nothing after.
var releaseTag = regexp.MustCompile(`^(?:[A-Za-z][\w-]*-|v)?(\d+)\.(\d+)\.(\d+)$`)

// versionNumbers reads the major, minor and patch numbers at the start of
// a Maven version ("2.8.0.rc2", "2.9.0-SNAPSHOT", "2.7"); ok is false
// when it does not start with major.minor.
var versionNumbers = regexp.MustCompile(`^(\d+)\.(\d+)(?:\.(\d+))?`)

// nearestRelease is the tag of the release of d's major.minor line that
// stands for a version the clone has no tag of: a pre-release or
// snapshot (jackson-databind 2.8.0.rc1's pom names jackson-core
// 2.8.0.rc2, and the clone tags only jackson-core-2.8.0) becomes the
// release it led to (the lowest patch at or above its own), else the
// last release before it. The label of the export names the tag, so the
// substitution shows in the build report. "" when the line has no
// release tag (the dependency is then left to the jars).
func nearestRelease(ctx context.Context, gitDir string, d pom.Dep) string {
	want := versionNumbers.FindStringSubmatch(d.Version)
	if want == nil {
		return ""
	}
	patch := 0
	if want[3] != "" {
		patch, _ = strconv.Atoi(want[3])
	}
	out, err := exec.CommandContext(ctx, "git", "--git-dir", gitDir, "tag", "--list").Output()
	if err != nil {
		return ""
	}
	best, bestPatch, above := "", -1, false
	for _, t := range strings.Fields(string(out)) {
		m := releaseTag.FindStringSubmatch(t)
		if m == nil || m[1] != want[1] || m[2] != want[2] || !strings.HasPrefix(t, d.ArtifactID+"-") && t[0] != 'v' && (t[0] < '0' || t[0] > '9') {
			continue
		}
		p, _ := strconv.Atoi(m[3])
		switch {
		case p >= patch && (!above || p < bestPatch):
			best, bestPatch, above = t, p, true
		case p < patch && !above && p > bestPatch:
			best, bestPatch = t, p
		}
	}
	return best
}
