package gitrepo

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/gitrepo/gittest"
)

func TestReadFile(t *testing.T) {
	f := sharedFixture(t)
	ctx := context.Background()
	r := open(t, f.bare)
	tests := []struct {
		rev, path, want string
	}{
		{f.c1, "src/A.java", alphaV1},
		{f.c2[:8], "./src//A.java", strings.Replace(alphaV1, "return 1", "return 10", 1)},
		{"main", "/README.md", "# demo\nmore\n"},
		{"main", "src/Feature.java", "class Feature {}\n"},
	}
	for _, tt := range tests {
		got, err := r.ReadFile(ctx, tt.rev, tt.path)
		if err != nil {
			t.Errorf("ReadFile(%s:%s): %v", tt.rev, tt.path, err)
			continue
		}
		if d := cmp.Diff(tt.want, string(got)); d != "" {
			t.Errorf("ReadFile(%s:%s) mismatch (-want +got):\n%s", tt.rev, tt.path, d)
		}
	}

	errTests := []struct {
		rev, path string
		kind      error
		mention   string
	}{
		{"main", "src/A.java", errs.ErrNotFound, "main:src/A.java"}, // renamed away
		{f.c1, "src/Feature.java", errs.ErrNotFound, f.c1 + ":src/Feature.java"},
		{"main", "src", errs.ErrNotFound, "main:src (tree)"},
		{"nope", "README.md", errs.ErrNotFound, "commit nope not in"},
		{"main", "../etc/passwd", errs.ErrInput, "outside the repository"},
		{"main", "", errs.ErrInput, "empty"},
		{"main", "a\nb", errs.ErrInput, "newline"},
	}
	for _, tt := range errTests {
		_, err := r.ReadFile(ctx, tt.rev, tt.path)
		if !errors.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.mention) {
			t.Errorf("ReadFile(%s:%q) error = %v, want %v mentioning %q", tt.rev, tt.path, err, tt.kind, tt.mention)
		}
	}
}

func TestReadFilesPartial(t *testing.T) {
	f := sharedFixture(t)
	r := open(t, f.b.Dir())
	got, err := r.ReadFiles(context.Background(), f.c6, []string{"README.md", "missing.txt", "src/util/B.java", "README.md"})
	if !errors.Is(err, errs.ErrNotFound) || !strings.Contains(err.Error(), f.c6+":missing.txt") {
		t.Errorf("ReadFiles error = %v, want ErrNotFound naming %s:missing.txt", err, f.c6)
	}
	want := map[string]string{"README.md": "# demo\nmore\n", "src/util/B.java": "class B { int x; }\n"}
	gotS := map[string]string{}
	for k, v := range got {
		gotS[k] = string(v)
	}
	if d := cmp.Diff(want, gotS); d != "" {
		t.Errorf("ReadFiles mismatch (-want +got):\n%s", d)
	}
}

func TestListFiles(t *testing.T) {
	f := sharedFixture(t)
	r := open(t, f.b.Dir())
	tests := []struct {
		rev   string
		globs []string
		want  []string
	}{
		{"main", nil, []string{"README.md", "docs/guide/x.txt", "src/Feature.java", "src/core/Alpha.java", "src/util/B.java"}},
		{"main", []string{"**/*.java"}, []string{"src/Feature.java", "src/core/Alpha.java", "src/util/B.java"}},
		{"main", []string{"src/*.java"}, []string{"src/Feature.java"}},
		{"main", []string{"src/**/*.java"}, []string{"src/Feature.java", "src/core/Alpha.java", "src/util/B.java"}},
		{"main", []string{"docs/**", "*.md"}, []string{"README.md", "docs/guide/x.txt"}},
		{f.c1, []string{"src/**"}, []string{"src/A.java", "src/util/B.java"}},
		{"main", []string{"*.go"}, nil},
	}
	for _, tt := range tests {
		got, err := r.ListFiles(context.Background(), tt.rev, tt.globs...)
		if err != nil {
			t.Errorf("ListFiles(%s, %q): %v", tt.rev, tt.globs, err)
			continue
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("ListFiles(%s, %q) mismatch (-want +got):\n%s", tt.rev, tt.globs, d)
		}
	}
	if _, err := r.ListFiles(context.Background(), "main", "src/[a"); !errors.Is(err, errs.ErrInput) {
		t.Errorf("ListFiles bad glob error = %v, want ErrInput", err)
	}
	if _, err := r.ListFiles(context.Background(), "0000000", "**"); !errors.Is(err, errs.ErrNotFound) {
		t.Errorf("ListFiles missing rev error = %v, want ErrNotFound", err)
	}
}

func TestFileHistory(t *testing.T) {
	f := sharedFixture(t)
	r := open(t, f.bare)
	got, err := r.FileHistory(context.Background(), "main", "src/core/Alpha.java")
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Hash, Path, OldPath string
		Change              ChangeKind
	}
	var rows []row
	for _, v := range got {
		rows = append(rows, row{v.Commit.Hash, v.Path, v.OldPath, v.Change})
		if v.Change == Renamed && (v.Similarity < 50 || v.Similarity > 100) {
			t.Errorf("rename similarity %d", v.Similarity)
		}
	}
	want := []row{
		{f.c6, "src/core/Alpha.java", "", Modified},
		{f.c4, "src/core/Alpha.java", "src/A.java", Renamed},
		{f.c2, "src/A.java", "", Modified},
		{f.c1, "src/A.java", "", Added},
	}
	if d := cmp.Diff(want, rows); d != "" {
		t.Errorf("FileHistory mismatch (-want +got):\n%s", d)
	}
	if got[1].Commit.Subject != "move A" {
		t.Errorf("rename commit subject = %q", got[1].Commit.Subject)
	}

	// History of a file through a merge's side branch, and of a deleted file.
	fh, err := r.FileHistory(context.Background(), "main", "src/Feature.java")
	if err != nil || len(fh) != 1 || fh[0].Commit.Hash != f.f1 || fh[0].Change != Added {
		t.Errorf("FileHistory(Feature.java) = %+v, %v; want one Added at %s", fh, err, f.f1)
	}
	if _, err := r.FileHistory(context.Background(), "main", "no/such/file"); !errors.Is(err, errs.ErrNotFound) {
		t.Errorf("FileHistory(missing) error = %v, want ErrNotFound", err)
	}
}

func TestFileHistoryDeleted(t *testing.T) {
	b := gittest.New(t)
	b.Write("weird :(glob) name.txt", "x\n")
	c1 := b.Commit("add", gittest.Date(2021, 1, 1))
	b.Remove("weird :(glob) name.txt")
	c2 := b.Commit("drop", gittest.Date(2021, 2, 1))
	r := open(t, b.Dir())
	got, err := r.FileHistory(context.Background(), "HEAD", "weird :(glob) name.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Commit.Hash != c2 || got[0].Change != Deleted || got[1].Commit.Hash != c1 || got[1].Change != Added {
		t.Errorf("FileHistory(deleted file) = %+v", got)
	}
}

func TestClone(t *testing.T) {
	f := sharedFixture(t)
	ctx := context.Background()
	cache := t.TempDir()
	r1, err := Clone(ctx, f.b.Dir(), cache)
	if err != nil {
		t.Fatal(err)
	}
	defer r1.Close()
	wantDir := filepath.Join(cache, filepath.Base(fixtureRoot)+"__repo") // <parent>__<name>
	if r1.Path() != wantDir || !r1.Bare() {
		t.Errorf("Clone path = %s bare=%v, want %s bare", r1.Path(), r1.Bare(), wantDir)
	}
	c, err := r1.Snapshot(ctx, gittest.Date(2020, 3, 10))
	if err != nil || c.Hash != f.c3 {
		t.Errorf("Snapshot on clone = %s, %v; want %s", c.Hash, err, f.c3)
	}
	// A second Clone reuses the directory instead of cloning again.
	marker := filepath.Join(wantDir, "benchforge-marker")
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r2, err := Clone(ctx, "file://"+f.b.Dir(), cache)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if _, err := os.Stat(marker); err != nil || r2.Path() != wantDir {
		t.Errorf("second Clone did not reuse %s (path %s, marker: %v)", wantDir, r2.Path(), err)
	}
	if _, err := Clone(ctx, filepath.Join(t.TempDir(), "owner", "missing"), cache); !errors.Is(err, errs.ErrNotFound) {
		t.Errorf("Clone(missing) error = %v, want ErrNotFound", err)
	}
	entries, _ := os.ReadDir(cache)
	if len(entries) != 1 {
		t.Errorf("cache has %d entries after a failed clone, want 1 (no leftovers)", len(entries))
	}
}

func TestCacheName(t *testing.T) {
	tests := []struct{ url, want string }{
		{"https://github.com/apache/commons-lang.git", "apache__commons-lang"},
		{"https://github.com/apache/commons-lang", "apache__commons-lang"},
		{"https://github.com/apache/commons-lang/", "apache__commons-lang"},
		{"git@github.com:jhy/jsoup.git", "jhy__jsoup"},
		{"ssh://git@host:22/a/b", "a__b"},
		{"file:///srv/git/owner/name", "owner__name"},
		{"/srv/git/x", "git__x"},
		{"repo.git", "repo"},
		{"https://host/we ird/na$me", "we-ird__na-me"},
	}
	for _, tt := range tests {
		got, err := CacheName(tt.url)
		if err != nil || got != tt.want {
			t.Errorf("CacheName(%q) = %q, %v; want %q", tt.url, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "-oProxyCommand=x", "https://host", "https://host/.git"} {
		if _, err := CacheName(bad); !errors.Is(err, errs.ErrInput) {
			t.Errorf("CacheName(%q) error = %v, want ErrInput", bad, err)
		}
	}
}

func TestConcurrentReads(t *testing.T) {
	f := sharedFixture(t)
	r := open(t, f.b.Dir())
	ctx := context.Background()
	errc := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func() {
			for i := 0; i < 20; i++ {
				got, err := r.ReadFile(ctx, f.c1, "src/A.java")
				if err == nil && string(got) != alphaV1 {
					err = errors.New("wrong content " + string(got))
				}
				if err == nil {
					_, err = r.Snapshot(ctx, gittest.Date(2020, 3, 10))
				}
				if err != nil {
					errc <- err
					return
				}
			}
			errc <- nil
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
}
