package repoprobe

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jdk"
)

// Repo is a named repository held in memory.
type Repo struct {
	Name  string
	Lang  string
	Files []File
}

// CorpusOptions bound what LoadCorpus takes. Zero fields take the defaults
// in brackets.
type CorpusOptions struct {
	MinFiles     int    // repositories with fewer source files are skipped [15]
	MaxFiles     int    // files kept per repository, evenly spaced in path order [60]
	MaxFileBytes int    // larger files are skipped [64 KiB]
	MaxRepos     int    // repositories kept per corpus path, chosen with Seed [10]
	Seed         uint64 // which repositories are kept
}

func (o *CorpusOptions) defaults() {
	def := func(p *int, v int) {
		if *p <= 0 {
			*p = v
		}
	}
	def(&o.MinFiles, 15)
	def(&o.MaxFiles, 60)
	def(&o.MaxFileBytes, 64<<10)
	def(&o.MaxRepos, 10)
}

// skipDirs are folders of a directory corpus that are not repositories
// (the Python stdlib's test suite, caches, third-party packages).
var skipDirs = map[string]bool{"test": true, "tests": true, "site-packages": true, "__pycache__": true, "idle_test": true}

// LoadCorpus reads repositories from ZIP archives (each top-level folder a
// repository: the modules of the JDK's lib/src.zip) and directories (each
// immediate sub-folder a repository: the packages of the Python standard
// library, or a folder of checkouts). Only .java and .py files are read.
// Paths that do not exist or cannot be read are errors wrapping
// errs.ErrNotFound or errs.ErrInput naming the path.
func LoadCorpus(paths []string, opts CorpusOptions) ([]Repo, error) {
	opts.defaults()
	var out []Repo
	for i, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("repoprobe.LoadCorpus(%s): %w (give a JDK lib/src.zip or a folder of repositories)", p, errs.ErrNotFound)
		}
		var repos map[string][]File
		if st.IsDir() {
			repos, err = loadDir(p, opts)
		} else {
			repos, err = loadZip(p, opts)
		}
		if err != nil {
			return nil, err
		}
		var names []string
		for name, files := range repos {
			if len(files) >= opts.MinFiles {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		r := rand.New(rand.NewPCG(opts.Seed, uint64(i)))
		r.Shuffle(len(names), func(a, b int) { names[a], names[b] = names[b], names[a] })
		names = names[:min(len(names), opts.MaxRepos)]
		slices.Sort(names)
		for _, name := range names {
			files := repos[name]
			slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
			if len(files) > opts.MaxFiles {
				picked := make([]File, opts.MaxFiles)
				for k := range picked {
					picked[k] = files[k*len(files)/opts.MaxFiles]
				}
				files = picked
			}
			out = append(out, Repo{Name: name, Lang: langOf(files), Files: files})
		}
	}
	return out, nil
}

func sourceFile(name string) bool {
	switch path.Ext(name) {
	case ".java", ".py":
		return true
	}
	return false
}

func loadZip(p string, opts CorpusOptions) (map[string][]File, error) {
	zr, err := zip.OpenReader(p)
	if err != nil {
		return nil, fmt.Errorf("repoprobe.LoadCorpus(%s): not a readable ZIP archive: %v: %w", p, err, errs.ErrInput)
	}
	defer zr.Close()
	repos := map[string][]File{}
	for _, f := range zr.File {
		top, rest, ok := strings.Cut(f.Name, "/")
		if !ok || !sourceFile(rest) || f.UncompressedSize64 > uint64(opts.MaxFileBytes) {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("repoprobe.LoadCorpus(%s): %s: %v: %w", p, f.Name, err, errs.ErrInput)
		}
		b, err := io.ReadAll(io.LimitReader(rc, int64(opts.MaxFileBytes)+1))
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("repoprobe.LoadCorpus(%s): %s: %v: %w", p, f.Name, err, errs.ErrInput)
		}
		repos[top] = append(repos[top], File{Path: rest, Content: b})
	}
	return repos, nil
}

func loadDir(p string, opts CorpusOptions) (map[string][]File, error) {
	ents, err := os.ReadDir(p)
	if err != nil {
		return nil, fmt.Errorf("repoprobe.LoadCorpus(%s): %v: %w", p, err, errs.ErrInput)
	}
	repos := map[string][]File{}
	for _, e := range ents {
		if !e.IsDir() || skippedDir(e.Name()) {
			continue
		}
		root := filepath.Join(p, e.Name())
		files, err := loadRepoDir(root, opts)
		if err != nil {
			return nil, fmt.Errorf("repoprobe.LoadCorpus(%s): %v: %w", root, err, errs.ErrInput)
		}
		if len(files) > 0 {
			repos[e.Name()] = files
		}
	}
	return repos, nil
}

// skippedDir says whether a folder is left out of a corpus: a build or
// vendored folder (skipDirs) or a hidden one.
func skippedDir(name string) bool { return skipDirs[name] || strings.HasPrefix(name, ".") }

// loadRepoDir reads one repository folder's source files (unreadable
// entries and files over MaxFileBytes are skipped), paths relative to
// root.
func loadRepoDir(root string, opts CorpusOptions) ([]File, error) {
	var files []File
	err := filepath.WalkDir(root, func(fp string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable entries are skipped
		}
		if d.IsDir() {
			if fp != root && skippedDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !sourceFile(d.Name()) {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > int64(opts.MaxFileBytes) {
			return nil
		}
		b, err := os.ReadFile(fp)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, fp)
		files = append(files, File{Path: filepath.ToSlash(rel), Content: b})
		return nil
	})
	return files, err
}

// DefaultCorpus finds the code on this machine the testbed uses when no
// corpus is given: the JDK's lib/src.zip ($JAVA_HOME first, then
// /usr/lib/jvm/*; dangling symlinks are skipped) and the Python standard
// library (python3's sysconfig stdlib path, else /usr/lib/python3*).
func DefaultCorpus(ctx context.Context) []string {
	var out []string
	if z, err := jdk.SrcZip(); err == nil {
		out = append(out, z)
	}
	if b, err := exec.CommandContext(ctx, "python3", "-c", `import sysconfig;print(sysconfig.get_paths()["stdlib"])`).Output(); err == nil {
		if p := strings.TrimSpace(string(b)); p != "" {
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				return append(out, p)
			}
		}
	}
	if m, _ := filepath.Glob("/usr/lib/python3*"); len(m) > 0 {
		slices.Sort(m)
		out = append(out, m[len(m)-1])
	}
	return out
}
