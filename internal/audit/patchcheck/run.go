package patchcheck

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/gitrepo"
	"github.com/benchforge/benchforge/internal/step"
)

// RepoSource finds the local clone of a sample's repository.
// internal/audit/repos implements it.
type RepoSource interface {
	Repo(ctx context.Context, s bench.Sample) (*gitrepo.Repo, error)
}

// RunOptions configure Run.
type RunOptions struct {
	// Cutoffs are the training cutoffs to answer, one verdict per sample
	// and cutoff; empty means Cutoff alone.
	Cutoffs []time.Time
	Cutoff  time.Time
	// Done, when set, reports a (sample, cutoff) already decided (a
	// resumed run); it is not checked again.
	Done func(sampleID string, cutoff time.Time) bool
	// Workers checks this many samples at once; 0 means 2.
	Workers int
}

// Run checks samples against their repositories' cutoff snapshots and
// calls emit once per sample and cutoff (serially, in completion order). A repository
// that cannot be opened, or has no commit before the cutoff, gives Unknown
// verdicts for its samples and the run goes on. Run stops at the first
// error from emit, the Checker, or ctx.
func (c *Checker) Run(ctx context.Context, samples []bench.Sample, src RepoSource, ro RunOptions, emit func(Verdict) error) error {
	workers := ro.Workers
	if workers <= 0 {
		workers = 2
	}
	runCtx := ctx // outlives the workers' context, which ends with them
	cutoffs := ro.Cutoffs
	if len(cutoffs) == 0 {
		cutoffs = []time.Time{ro.Cutoff}
	}
	type snapRes struct {
		commit gitrepo.Commit
		err    error
		once   sync.Once
	}
	var smu sync.Mutex
	var prefetch sync.WaitGroup
	defer prefetch.Wait()
	loading := map[*gitrepo.Repo]bool{}
	type snapKey struct {
		r      *gitrepo.Repo
		cutoff int64
	}
	snaps := map[snapKey]*snapRes{}
	snapshot := func(ctx context.Context, r *gitrepo.Repo, cutoff time.Time) (gitrepo.Commit, error) {
		k := snapKey{r, cutoff.UnixNano()}
		smu.Lock()
		sr := snaps[k]
		if sr == nil {
			sr = &snapRes{}
			snaps[k] = sr
		}
		if !loading[r] && !c.opts.NoHistory {
			loading[r] = true
			prefetch.Go(func() { c.prefetchHistory(runCtx, r) })
		}
		smu.Unlock()
		sr.once.Do(func() { sr.commit, sr.err = r.Snapshot(ctx, cutoff) })
		return sr.commit, sr.err
	}
	var emu sync.Mutex // emit is called serially
	emitOne := func(v Verdict) error {
		emu.Lock()
		defer emu.Unlock()
		return emit(v)
	}
	items := spread(samples, workers)
	ah := newAhead(items, src, func(s bench.Sample) bool { return len(pending(s.ID, cutoffs, ro.Done)) == 0 })
	err := step.EachIndex(ctx, workers, len(items), func(ctx context.Context, i int) error {
		return c.sample(ctx, items[i], src, cutoffs, ro.Done, snapshot, emitOne, ah.begin(i))
	})
	if err != nil {
		return err
	}
	return ctx.Err()
}

// prefetchHistory loads repo's history while the first samples of repo
// parse their files (CheckAll then finds it loaded).
func (c *Checker) prefetchHistory(ctx context.Context, r *gitrepo.Repo) {
	if tip, err := c.tip(ctx, r); err == nil {
		_, _ = c.tr.History(ctx, r, tip)
	}
}

// snapshotFunc finds a repository's cutoff snapshot once for all its
// samples; ctx is the first asker's, so a stopped run stops the search.
type snapshotFunc func(context.Context, *gitrepo.Repo, time.Time) (gitrepo.Commit, error)

// sample emits sample s's verdict at every cutoff not yet done, all
// decided in one pass (CheckAll).
func (c *Checker) sample(ctx context.Context, s bench.Sample, src RepoSource, cutoffs []time.Time, done func(string, time.Time) bool, snapshot snapshotFunc, emit func(Verdict) error, sl *aheadSlot) error {
	todo := pending(s.ID, cutoffs, done)
	if len(todo) == 0 {
		return nil
	}
	out := func(v Verdict, cut time.Time) error {
		v.Cutoff = cut.UTC().Format(time.RFC3339)
		return emit(v)
	}
	r, err := src.Repo(ctx, s)
	if err != nil {
		return c.failAll(ctx, s, todo, CauseNoClone, fmt.Sprintf("repository %s: %v", s.Repo, err), out)
	}
	snaps, at, err := c.snapshots(ctx, s, r, todo, snapshot, out)
	if err != nil {
		return err
	}
	if len(snaps) == 0 {
		return nil
	}
	vs, err := c.checkAll(ctx, s, r, snaps, sl)
	if err != nil {
		return err
	}
	for i, v := range vs {
		if err := out(v, at[i]); err != nil {
			return err
		}
	}
	return nil
}

// pending are the cutoffs of sample id not yet done (all without done).
func pending(id string, cutoffs []time.Time, done func(string, time.Time) bool) []time.Time {
	var todo []time.Time
	for _, cut := range cutoffs {
		if done == nil || !done(id, cut) {
			todo = append(todo, cut)
		}
	}
	return todo
}

// snapshots finds r's snapshot at each cutoff of todo, returning those
// found with their cutoffs; a cutoff without one gets its verdict (unknown)
// emitted at once.
func (c *Checker) snapshots(ctx context.Context, s bench.Sample, r *gitrepo.Repo, todo []time.Time, snapshot snapshotFunc, out func(Verdict, time.Time) error) ([]gitrepo.Commit, []time.Time, error) {
	var snaps []gitrepo.Commit
	var at []time.Time
	for _, cut := range todo {
		snap, err := snapshot(ctx, r, cut)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			v := c.unknownSample(ctx, s, CauseNoSnapshot, fmt.Sprintf("no cutoff snapshot of %s: %v", s.Repo, err))
			if err := out(v, cut); err != nil {
				return nil, nil, err
			}
			continue
		}
		snaps, at = append(snaps, snap), append(at, cut)
	}
	return snaps, at, nil
}

// unknownSample is s's verdict when its repository cannot be searched:
// unknown, or not_applicable when the fix touches no source.
func (c *Checker) unknownSample(ctx context.Context, s bench.Sample, cause Cause, reason string) Verdict {
	v, _ := c.Check(ctx, s, nil, gitrepo.Commit{})
	if v.Verdict != NotApplicable {
		v = unknown(v, cause, reason)
	}
	return v
}

// failAll emits an unknown verdict (or not_applicable, when the fix
// touches no source) at every cutoff.
func (c *Checker) failAll(ctx context.Context, s bench.Sample, cuts []time.Time, cause Cause, reason string, out func(Verdict, time.Time) error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	v := c.unknownSample(ctx, s, cause, reason)
	for _, cut := range cuts {
		if err := out(v, cut); err != nil {
			return err
		}
	}
	return nil
}

// spread deals samples to k workers from k contiguous runs: neighbouring
// samples share their files' histories, so workers that start far apart
// parse different versions instead of waiting for each other's.
func spread(samples []bench.Sample, k int) []bench.Sample {
	if k < 2 || len(samples) <= k {
		return samples
	}
	n := len(samples)
	size := (n + k - 1) / k
	out := make([]bench.Sample, 0, n)
	for i := 0; i < size; i++ {
		for r := 0; r < k; r++ {
			if j := r*size + i; j < n {
				out = append(out, samples[j])
			}
		}
	}
	return out
}
