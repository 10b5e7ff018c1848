package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/synth/corpus"
	"github.com/benchforge/benchforge/internal/synth/jvm"
)

// defaultJarDir is the system's Java library folder (Debian's).
const defaultJarDir = "/usr/share/java"

// verifyProjectFlags are synth verify's project-mode flags.
type verifyProjectFlags struct {
	project, repos, jarDir, seeds string
	classpath                     []string
	stubOnly                      bool
}

func (f *verifyProjectFlags) add(fl *pflag.FlagSet) {
	fl.StringVar(&f.project, "project", "", "compile against this project: a checkout DIR or REPO@REV (found under --repos); every pair's method is replaced in its real class")
	fl.StringVar(&f.repos, "repos", "", "directory of local clones (owner__name.git, owner+name/repo, name): pairs whose source names a repository and commit run against that project")
	fl.StringSliceVar(&f.classpath, "classpath", nil, "dependency jars of the project (comma-separated or repeated)")
	fl.StringVar(&f.jarDir, "jar-dir", defaultJarDir, "add every jar of this folder to the project classpath (\"\" for none)")
	fl.StringVar(&f.seeds, "seeds", "", "verify real seeds (seeds.jsonl of 'seeds extract') instead of --corpus: the verifier's known-positive set")
	fl.BoolVar(&f.stubOnly, "stub-only", false, "ignore --project/--repos and pair sources: every method alone in a stub harness")
}

// projectSource is the jvm.ProjectSource the flags ask for, or nil.
func (f *verifyProjectFlags) projectSource() (*jvm.ProjectSource, error) {
	if f.stubOnly || f.project == "" && f.repos == "" {
		return nil, nil
	}
	ps := &jvm.ProjectSource{Repos: f.repos, Jars: f.classpath}
	if st, err := os.Stat(f.jarDir); f.jarDir != "" && err == nil && st.IsDir() {
		ps.JarDir = f.jarDir
	} else if f.jarDir != "" && f.jarDir != defaultJarDir {
		return nil, fmt.Errorf("synth verify: %w: --jar-dir %s is not a directory", errs.ErrUsage, f.jarDir)
	}
	if f.project != "" {
		dir, repo, rev, err := jvm.ParseProjectFlag(f.project)
		if err != nil {
			return nil, fmt.Errorf("synth verify: %w", err)
		}
		if repo != "" && f.repos == "" {
			return nil, fmt.Errorf("synth verify: %w: --project %s names a repository; add --repos DIR holding its clone", errs.ErrUsage, f.project)
		}
		ps.Dir, ps.Repo, ps.Commit = dir, repo, rev
	}
	return ps, nil
}

// readPairs reads --corpus, or --seeds as pairs.
func (f *verifyProjectFlags) readPairs(corpusPath string) ([]corpus.Pair, error) {
	if f.seeds == "" {
		return jsonl.ReadFile[corpus.Pair](corpusPath)
	}
	if corpusPath != "" {
		return nil, fmt.Errorf("synth verify: %w: give --corpus FILE or --seeds FILE, not both", errs.ErrUsage)
	}
	ss, err := jsonl.ReadFile[corpus.Seed](f.seeds)
	if err != nil {
		return nil, fmt.Errorf("synth verify: --seeds: %w", err)
	}
	pairs := make([]corpus.Pair, len(ss))
	for i, s := range ss {
		pairs[i] = corpus.SeedPair(s)
	}
	return pairs, nil
}

// writeBuilds prints the project builds and the verification speed after
// them.
func writeBuilds(w io.Writer, bs []jvm.BuildReport) error {
	if len(bs) == 0 {
		return nil
	}
	var build, run float64
	pairs, failed := 0, 0
	for _, b := range bs {
		build += b.BuildSec
		run += b.RunSec
		pairs += b.Pairs
		if b.Error != "" {
			failed++
		}
	}
	_, err := fmt.Fprintf(w, "\nproject mode: %d project builds (%d failed) in %.1fs; %d pairs verified in %.1fs after the builds (%.1f pairs/s)\n",
		len(bs), failed, build, pairs, run, float64(pairs)/max(run, 1e-9))
	for _, b := range bs {
		if b.Error != "" {
			fmt.Fprintf(w, "  %s: %s\n", b.Project, strings.SplitN(b.Error, "\n", 2)[0])
		}
	}
	return err
}
