package testbed

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo/gittest"
)

// TestHistorySnapshots: a trained repository is read at the manifest
// commit and at earlier first-parent states a year apart, at the same
// sampled paths; stable code recurs in every snapshot, changed code in
// its old form, a file added later not at all, and a history shorter
// than asked ends the list. A non-member is never read at any state.
func TestHistorySnapshots(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "hist"), 0o755); err != nil {
		t.Fatal(err)
	}
	b := gittest.NewIn(t, filepath.Join(dir, "hist"))
	b.Write("src/main/java/a/Stable.java", "class Stable { int keep() { return 1; } }\n")
	b.Write("src/main/java/a/Changed.java", "class Changed { int v() { return 1; } }\n")
	first := b.Commit("first", gittest.Date(2022, 3, 1))
	b.Write("src/main/java/a/Changed.java", "class Changed { int v() { return 2; } }\n")
	second := b.Commit("second", gittest.Date(2023, 2, 1))
	b.Write("src/main/java/a/Changed.java", "class Changed { int v() { return 3; } }\n")
	b.Write("src/main/java/a/Added.java", "class Added {}\n")
	head := b.Commit("third", gittest.Date(2024, 6, 1))
	m := &Manifest{Include: []string{"**/*.java"}, Snapshots: 4, SnapshotMonths: 12}
	o := ReadOptions{MaxFiles: 40, MaxFileBytes: 1 << 16, Seed: 1}
	ctx := context.Background()
	e := Entry{Repo: "example/hist", Commit: head, Role: RoleMember}
	files, snaps, err := readRepo(ctx, m, e, []string{dir}, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 3 {
		t.Fatalf("%d files at the commit, want 3", len(files))
	}
	// 12 months before 2024-06-01 is the 2023-02-01 commit, 24 months
	// the 2022-03-01 one, 36 months before is before the history.
	if len(snaps) != 2 || snaps[0].Commit != second || snaps[1].Commit != first {
		t.Fatalf("snapshots %+v, want %s then %s", snaps, second, first)
	}
	for i, want := range []string{"return 2", "return 1"} {
		got := map[string]string{}
		for _, f := range snaps[i].Files {
			got[f.Path] = string(f.Content)
		}
		if len(got) != 2 || !strings.Contains(got["src/main/java/a/Changed.java"], want) || got["src/main/java/a/Stable.java"] == "" {
			t.Errorf("snapshot %d holds %v; want Stable and Changed (%q), not Added", i, got, want)
		}
	}
	if n := snapshotNote(m, snaps); n != "2 of 3 earlier snapshots (history shorter), 4 files" {
		t.Errorf("note %q", n)
	}
	if docs := snapshotDocs("hist", snaps); len(docs) != 4 || !strings.HasPrefix(docs[0].Name, "snapshot/hist@") {
		t.Errorf("docs %d, first %q", len(docs), docs[0].Name)
	}
	e.Role = RoleNonMember
	if _, snaps, err := readRepo(ctx, m, e, []string{dir}, o); err != nil || snaps != nil {
		t.Errorf("non-member: %d snapshots, %v; want none", len(snaps), err)
	}
	m.Snapshots = -1
	if err := m.check(); !errors.Is(err, errs.ErrInput) || !strings.Contains(err.Error(), "snapshots -1") {
		t.Errorf("negative snapshots: %v", err)
	}
}
