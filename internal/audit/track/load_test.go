package track

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/gitrepo"
	"github.com/benchforge/benchforge/internal/gitrepo/gittest"
)

// TestLoadHistoryInParts: the log read in parts, cut anywhere on the
// chain (a part may list no followed commit, or only a merge), is the log
// read whole.
func TestLoadHistoryInParts(t *testing.T) {
	b := gittest.New(t)
	b.Write("a/A.java", "class A { int f() { return 0; } }\n")
	b.Commit("zero", gittest.Date(2019, 1, 1))
	for i := 1; i <= 6; i++ {
		b.Write("a/A.java", fmt.Sprintf("class A { int f() { return %d; } }\n", i))
		if i == 3 {
			b.Rename("a/A.java", "b/A.java")
		}
		if i == 4 {
			b.Write("NOTES.md", "not followed\n")
		}
		b.Commit(fmt.Sprintf("step %d", i), gittest.Date(2019, time.Month(1+i), 1))
		if i == 3 {
			// Later steps write the renamed file.
			b.Rename("b/A.java", "a/A.java")
			b.Commit("rename back", gittest.Date(2019, 4, 15))
		}
	}
	lf := buildLandingRepo(t)
	ctx := context.Background()
	for _, dir := range []string{b.Dir(), lf.dir} {
		r, err := gitrepo.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := loadHistory(ctx, r, "main", []string{".java"}, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		for parts := 2; parts <= 5; parts++ {
			got, err := loadHistory(ctx, r, "main", []string{".java"}, parts, 1)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(whole.Commits, got.Commits); d != "" {
				t.Fatalf("%s in %d parts differs (-whole +parts):\n%s", dir, parts, d)
			}
			if !cmp.Equal(whole.index, got.index) || !cmp.Equal(whole.touch, got.touch) {
				t.Fatalf("%s in %d parts: index or touch differs", dir, parts)
			}
		}
		r.Close()
	}
}
