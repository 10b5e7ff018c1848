package patchcheck

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/gitrepo"
)

type oneRepo struct{ r *gitrepo.Repo }

func (o oneRepo) Repo(context.Context, bench.Sample) (*gitrepo.Repo, error) { return o.r, nil }

// TestAheadPreparesNextSamples: a worker waiting for the history prepares
// the next samples of its repository, no further than aheadMax past those
// handed out and never another repository's; the worker each sample is
// then handed to takes the prepared blocks, and its verdicts are those of
// a sample checked alone.
func TestAheadPreparesNextSamples(t *testing.T) {
	hc := histCases()[0]
	r, s := hc.build(t)
	ctx := context.Background()
	snaps := snapshotsAt(t, r, hc.cutoffs)
	var items []bench.Sample
	for i := range aheadMax + 3 {
		si := s
		si.ID = fmt.Sprintf("%s-%d", s.ID, i)
		items = append(items, si)
	}
	other := s
	other.ID, other.Repo = "other", "o/else"
	items = append(items, other)
	a := newAhead(items, oneRepo{r}, func(bench.Sample) bool { return false })
	c := New(Options{})
	first := a.begin(0)
	n := 0
	for first.prepareNext(ctx, c, items[0]) {
		n++
	}
	if n != aheadMax || len(a.pre) != aheadMax {
		t.Fatalf("prepared %d ahead (%d kept), want aheadMax = %d past the one handed out", n, len(a.pre), aheadMax)
	}
	for i := 1; i < len(items)-1; i++ {
		sl := a.begin(i)
		for sl.prepareNext(ctx, c, items[i]) {
		}
		got, err := c.checkAll(ctx, items[i], r, snaps, sl)
		if err != nil {
			t.Fatal(err)
		}
		want, err := New(Options{}).CheckAll(ctx, items[i], r, snaps)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
			t.Fatalf("item %d: verdicts differ from a sample checked alone:\n%s\nwant\n%s", i, g, w)
		}
	}
	if _, ok := a.pre[len(items)-1]; ok || len(a.pre) != 0 {
		t.Fatalf("left prepared: %v (another repository's sample must not be prepared)", a.pre)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
