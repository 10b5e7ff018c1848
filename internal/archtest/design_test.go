package archtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDesignMapMatchesCode: docs/design.md's package map names every
// package of the module that has Go code, and no package that is gone, so
// the living design cannot drift from the tree.
func TestDesignMapMatchesCode(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(root, "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	mapped := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `((?:internal|cmd)/[^`]+)` \\|").FindAllSubmatch(doc, -1) {
		mapped[string(m[1])] = true
	}
	have := map[string]bool{}
	for _, top := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.Contains(p, "testdata") {
				return err
			}
			rel, _ := filepath.Rel(root, filepath.Dir(p))
			have[filepath.ToSlash(rel)] = true
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for p := range have {
		if !mapped[p] {
			t.Errorf("docs/design.md's package map lacks %s", p)
		}
	}
	for p := range mapped {
		if !have[p] {
			t.Errorf("docs/design.md maps %s, which has no Go files", p)
		}
	}
}
