package diff

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/shareddata"
)

// defects4jPatches returns the Defects4J patch files (src and test) from
// $BENCHFORGE_DEFECTS4J (a framework/projects folder), else the full copy
// of the shared data, else the vendored bugs' (28 patches).
func defects4jPatches(t testing.TB, pattern string) []string {
	t.Helper()
	dir := os.Getenv("BENCHFORGE_DEFECTS4J")
	if dir == "" {
		dir, _ = shareddata.Either(t, "defects4j")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*", "patches", pattern))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Defects4J patches under %s: %v", dir, err)
	}
	return files
}

// TestDefects4J parses every Defects4J patch, renders it back, and checks
// that the rendering is byte-exact up to the documented normalisations,
// that it parses back to the same files, and that reversing twice is the
// identity.
func TestDefects4J(t *testing.T) {
	paths := defects4jPatches(t, "*.patch")
	var nfiles, nhunks, svn, exact int
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files, err := ParseBytes(data)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if len(files) == 0 && len(data) > 0 {
			t.Errorf("%s: no files parsed", path)
			continue
		}
		nfiles += len(files)
		for _, f := range files {
			nhunks += len(f.Hunks)
			if !f.Git {
				svn++
			}
			checkFileDiffSane(t, path, f)
		}
		if checkRenderAndReparse(t, path, data, files) {
			exact++
		}
	}
	t.Logf("%d patches (%d byte-exact), %d files (%d non-git), %d hunks", len(paths), exact, nfiles, svn, nhunks)
	if exact < len(paths)-5 {
		t.Errorf("only %d of %d patches render byte-exact", exact, len(paths))
	}
}

// checkFileDiffSane: f has hunks or a mode change (unless binary), and
// reversing it twice gives it back.
func checkFileDiffSane(t *testing.T, path string, f *FileDiff) {
	t.Helper()
	if !f.IsBinary && len(f.Hunks) == 0 && f.OldMode == f.NewMode {
		t.Errorf("%s: %s has neither hunks nor a mode change", path, f.Name())
	}
	if rr := Reverse(Reverse(f)); !reflect.DeepEqual(f, rr) {
		t.Errorf("%s: Reverse(Reverse(%s)) differs: %s", path, f.Name(), cmp.Diff(f, rr))
	}
}

// checkRenderAndReparse checks that files render as data up to the
// documented normalisations and parse back to themselves; it reports
// whether the rendering was byte-exact.
func checkRenderAndReparse(t *testing.T, path string, data []byte, files []*FileDiff) (exact bool) {
	t.Helper()
	out := render(t, files)
	if out == string(data) {
		exact = true
	} else if want := normalise(string(data)); out != want {
		t.Errorf("%s: rendering differs beyond normalisation (-want +got):\n%s", path, cmp.Diff(want, out))
	}
	again, err := ParseString(out)
	if err != nil {
		t.Errorf("%s: reparse: %v", path, err)
	} else if !reflect.DeepEqual(files, again) {
		t.Errorf("%s: reparse differs (-first +second):\n%s", path, cmp.Diff(files, again))
	}
	return exact
}

// normalise applies the package's documented normalisations: a blank line
// inside a hunk gets its space back and trailing blank lines are dropped.
func normalise(s string) string {
	s = strings.TrimRight(s, "\n") + "\n"
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l == "\n" {
			lines[i] = " \n"
		}
	}
	return strings.Join(lines, "")
}
