package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/benchforge/benchforge/internal/golden"
	"github.com/google/go-cmp/cmp"
)

// handWritten are the pages of docs/ that no command generates.
var handWritten = map[string]bool{"design.md": true}

// TestDocsInSync fails when docs/ no longer matches the command
// definitions; regenerate with `go run ./cmd/benchforge docs --out docs`
// (or go test ./internal/cli -run TestDocsInSync -update).
func TestDocsInSync(t *testing.T) {
	dir := t.TempDir()
	if _, errOut, code := run(t, "docs", "--out", dir); code != 0 {
		t.Fatalf("docs: exit %d: %s", code, errOut)
	}
	got, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	if len(got) < 5 {
		t.Fatalf("only %d pages generated", len(got))
	}
	have, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	for _, p := range have {
		if handWritten[filepath.Base(p)] {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, filepath.Base(p))); err != nil && !golden.Updating() {
			t.Errorf("docs/%s documents no command any more: delete it", filepath.Base(p))
		}
	}
	for _, p := range got {
		name := filepath.Base(p)
		gen, _ := os.ReadFile(p)
		repo := filepath.Join("..", "..", "docs", name)
		if golden.Updating() {
			if err := os.MkdirAll(filepath.Dir(repo), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(repo, gen, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		have, err := os.ReadFile(repo)
		if err != nil {
			t.Errorf("docs/%s is missing: run `benchforge docs --out docs`", name)
			continue
		}
		if d := cmp.Diff(string(have), string(gen)); d != "" {
			t.Errorf("docs/%s is out of date; run `benchforge docs --out docs` (-have +generated):\n%s", name, d)
		}
	}
}
