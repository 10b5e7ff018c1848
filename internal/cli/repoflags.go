package cli

import (
	"github.com/spf13/pflag"

	"github.com/benchforge/benchforge/internal/audit/repos"
)

// repoFlags are the repository flags of every command that takes
// repositories: one name and one meaning each (internal/audit/repos).
type repoFlags struct {
	dir, mapping, cloneDir string
	clone                  bool
}

const (
	reposUsage   = "directory of local clones, bare or not: owner__name, owner/name, owner+name/repo, the Defects4J project or the repository name, any case"
	mappingUsage = `JSON file mapping repository or project names to clone paths, e.g. {"apache/commons-lang": "/srv/git/commons-lang.git"}`
)

// add registers --repos and --mapping, and with clone --clone and
// --clone-dir (the clone cache).
func (r *repoFlags) add(f *pflag.FlagSet, clone bool) {
	f.StringVar(&r.dir, "repos", "", reposUsage)
	f.StringVar(&r.mapping, "mapping", "", mappingUsage)
	if clone {
		f.BoolVar(&r.clone, "clone", false, "clone missing repositories from GitHub into --clone-dir")
		f.StringVar(&r.cloneDir, "clone-dir", "", "clone cache directory for --clone (default: benchforge/repos in the user cache directory)")
	}
}

// resolver builds the repository resolver.
func (r repoFlags) resolver() (*repos.Resolver, error) {
	dir := r.cloneDir
	if dir == "" {
		dir = defaultRepoCache()
	}
	return repos.New(repos.Options{Dir: r.dir, Mapping: r.mapping, Clone: r.clone, CacheDir: dir})
}
