package patchcheck

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/benchforge/benchforge/internal/bench"
	"github.com/benchforge/benchforge/internal/gitrepo"
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
	cutoffs := ro.Cutoffs
	if len(cutoffs) == 0 {
		cutoffs = []time.Time{ro.Cutoff}
	}
	type snapRes struct {
		commit gitrepo.Commit
		err    error
		once   sync.Once
	}
	var smu, emu sync.Mutex
	type snapKey struct {
		r      *gitrepo.Repo
		cutoff int64
	}
	snaps := map[snapKey]*snapRes{}
	snapshot := func(r *gitrepo.Repo, cutoff time.Time) (gitrepo.Commit, error) {
		k := snapKey{r, cutoff.UnixNano()}
		smu.Lock()
		sr := snaps[k]
		if sr == nil {
			sr = &snapRes{}
			snaps[k] = sr
		}
		smu.Unlock()
		sr.once.Do(func() { sr.commit, sr.err = r.Snapshot(ctx, cutoff) })
		return sr.commit, sr.err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan bench.Sample)
	errc := make(chan error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range jobs {
				err := c.sample(ctx, s, src, cutoffs, ro.Done, snapshot, func(v Verdict) error {
					emu.Lock()
					defer emu.Unlock()
					return emit(v)
				})
				if err != nil {
					errc <- err
					cancel()
					return
				}
			}
		}()
	}
feed:
	for _, s := range samples {
		select {
		case jobs <- s:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	select {
	case err := <-errc:
		return err
	default:
	}
	return ctx.Err()
}

type snapshotFunc func(*gitrepo.Repo, time.Time) (gitrepo.Commit, error)

// sample emits sample s's verdict at every cutoff not yet done.
func (c *Checker) sample(ctx context.Context, s bench.Sample, src RepoSource, cutoffs []time.Time, done func(string, time.Time) bool, snapshot snapshotFunc, emit func(Verdict) error) error {
	for _, cut := range cutoffs {
		if done != nil && done(s.ID, cut) {
			continue
		}
		v, err := c.one(ctx, s, src, cut, snapshot)
		if err != nil {
			return err
		}
		v.Cutoff = cut.UTC().Format(time.RFC3339)
		if err := emit(v); err != nil {
			return err
		}
	}
	return nil
}

func (c *Checker) one(ctx context.Context, s bench.Sample, src RepoSource, cutoff time.Time, snapshot snapshotFunc) (Verdict, error) {
	r, err := src.Repo(ctx, s)
	if err != nil {
		if ctx.Err() != nil {
			return Verdict{}, ctx.Err()
		}
		v, _ := c.Check(ctx, s, nil, gitrepo.Commit{})
		if v.Verdict == NotApplicable {
			return v, nil
		}
		return unknown(v, fmt.Sprintf("repository %s: %v", s.Repo, err)), nil
	}
	snap, err := snapshot(r, cutoff)
	if err != nil {
		if ctx.Err() != nil {
			return Verdict{}, ctx.Err()
		}
		v, _ := c.Check(ctx, s, nil, gitrepo.Commit{})
		if v.Verdict == NotApplicable {
			return v, nil
		}
		return unknown(v, fmt.Sprintf("no cutoff snapshot of %s: %v", s.Repo, err)), nil
	}
	return c.Check(ctx, s, r, snap)
}
