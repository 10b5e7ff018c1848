package patchcheck

import (
	"context"
	"sync"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/gitrepo"
)

// ahead lets a worker that would wait for a repository's history (its
// first-parent log, the costliest step of a run's start: on Jsoup's 93
// samples each of two workers waited about 0.17 s) prepare the next
// samples of that repository instead; the worker each of them is handed
// to then takes the prepared blocks. Preparing reads and parses the same
// files in any worker, so the verdicts do not depend on who did it.
type ahead struct {
	items []bench.Sample // in the order the pool hands them out
	src   RepoSource
	skip  func(bench.Sample) bool // every cutoff of the sample is done
	mu    sync.Mutex
	begun int // items handed out: indices below it
	last  int // the highest index handed out or prepared ahead
	pre   map[int]*prepared
}

// aheadMax bounds how far past the handed-out items a worker prepares
// (the prepared blocks hold parsed files).
const aheadMax = 8

// prepared is one sample's prepare result, ready when done is closed; ok
// is false when it could not be made (the taker prepares it itself).
type prepared struct {
	done  chan struct{}
	ok    bool
	files []*fileWork
	v     Verdict
	stop  bool
}

func newAhead(items []bench.Sample, src RepoSource, skip func(bench.Sample) bool) *ahead {
	return &ahead{items: items, src: src, skip: skip, last: -1, pre: map[int]*prepared{}}
}

// aheadSlot is item i of a run, as handed to a worker.
type aheadSlot struct {
	a *ahead
	i int
}

// begin marks item i handed out.
func (a *ahead) begin(i int) *aheadSlot {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.begun, a.last = max(a.begun, i+1), max(a.last, i)
	return &aheadSlot{a, i}
}

// prepare is c.prepare of the slot's sample, taken from a worker that
// prepared it ahead when one did.
func (sl *aheadSlot) prepare(ctx context.Context, c *Checker, s bench.Sample, repo *gitrepo.Repo) ([]*fileWork, Verdict, bool) {
	if sl != nil {
		sl.a.mu.Lock()
		p := sl.a.pre[sl.i]
		delete(sl.a.pre, sl.i)
		sl.a.mu.Unlock()
		if p != nil {
			if <-p.done; p.ok {
				return p.files, p.v, p.stop
			}
		}
	}
	return c.prepare(ctx, s, repo, c.blank(s))
}

// prepareNext prepares the next item not yet handed out when it is a
// sample of cur's repository, and reports whether it did (false: nothing
// left to do ahead).
func (sl *aheadSlot) prepareNext(ctx context.Context, c *Checker, cur bench.Sample) bool {
	if sl == nil || ctx.Err() != nil {
		return false
	}
	a := sl.a
	a.mu.Lock()
	j := a.last + 1
	if j >= len(a.items) || j-a.begun >= aheadMax || !sameRepo(a.items[j], cur) {
		a.mu.Unlock()
		return false
	}
	a.last = j
	if a.skip(a.items[j]) {
		a.mu.Unlock()
		return true
	}
	p := &prepared{done: make(chan struct{})}
	a.pre[j] = p
	a.mu.Unlock()
	defer close(p.done)
	s := a.items[j]
	repo, err := a.src.Repo(ctx, s)
	if err != nil || repo == nil {
		return true
	}
	p.files, p.v, p.stop = c.prepare(ctx, s, repo, c.blank(s))
	p.ok = ctx.Err() == nil
	return true
}

// sameRepo reports whether two samples name the same repository (and
// Defects4J project).
func sameRepo(a, b bench.Sample) bool {
	pa, _ := a.Meta["project"].(string)
	pb, _ := b.Meta["project"].(string)
	return a.Repo == b.Repo && pa == pb
}
