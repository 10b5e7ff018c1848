package refindex

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jdk"
)

// DefaultSources returns the corpus used when none is given: the modules
// of the JDK's src.zip (repositories "jdk/java.base", ...) and the
// top-level packages and modules of the Python standard library
// ("python/asyncio", "python/os.py", ...; site-packages, dist-packages,
// lib-dynload and config-* are skipped). Either may be missing; both
// missing is an error wrapping errs.ErrNotFound.
func DefaultSources(ctx context.Context) ([]Source, error) {
	var out []Source
	if zip, err := jdk.SrcZip(); err == nil {
		out = append(out, Source{Path: zip, Kind: KindZip, Prefix: "jdk/"})
	}
	if dir := PythonStdlib(ctx); dir != "" {
		s := Source{Path: dir, Kind: KindDir, Prefix: "python/",
			Skip: []string{"site-packages", "dist-packages", "lib-dynload"}}
		if ents, err := os.ReadDir(dir); err == nil {
			for _, e := range ents {
				if strings.HasPrefix(e.Name(), "config-") {
					s.Skip = append(s.Skip, e.Name())
				}
			}
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("refindex.DefaultSources: %w: no JDK src.zip and no Python standard library on this machine; pass --corpus DIR|ZIP|PARQUET", errs.ErrNotFound)
	}
	return out, nil
}

// PythonStdlib returns the Python standard library directory: the one
// python3 reports (sysconfig.get_paths()['stdlib']), else the newest
// /usr/lib/python3.N holding os.py; "" when there is none.
func PythonStdlib(ctx context.Context) string {
	if py, err := exec.LookPath("python3"); err == nil {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, py, "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])").Output()
		if dir := strings.TrimSpace(string(out)); err == nil && hasOSPy(dir) {
			return dir
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/python3.*")
	sort.Slice(dirs, func(i, j int) bool { return pyMinor(dirs[i]) < pyMinor(dirs[j]) })
	for i := len(dirs) - 1; i >= 0; i-- {
		if hasOSPy(dirs[i]) {
			return dirs[i]
		}
	}
	return ""
}

func hasOSPy(dir string) bool {
	if dir == "" {
		return false
	}
	st, err := os.Stat(filepath.Join(dir, "os.py"))
	return err == nil && st.Mode().IsRegular()
}

func pyMinor(dir string) int {
	n := 0
	for _, c := range strings.TrimPrefix(filepath.Base(dir), "python3.") {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}
