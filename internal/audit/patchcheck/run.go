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
	Cutoff time.Time
	// Workers checks this many samples at once; 0 means 2.
	Workers int
}

// Run checks samples against their repositories' cutoff snapshots and
// calls emit once per sample (serially, in completion order). A repository
// that cannot be opened, or has no commit before the cutoff, gives Unknown
// verdicts for its samples and the run goes on. Run stops at the first
// error from emit, the Checker, or ctx.
func (c *Checker) Run(ctx context.Context, samples []bench.Sample, src RepoSource, ro RunOptions, emit func(Verdict) error) error {
	workers := ro.Workers
	if workers <= 0 {
		workers = 2
	}
	cutoff := ro.Cutoff.UTC().Format(time.RFC3339)
	type snapRes struct {
		commit gitrepo.Commit
		err    error
		once   sync.Once
	}
	var (
		smu   sync.Mutex
		snaps = map[*gitrepo.Repo]*snapRes{}
		emu   sync.Mutex
	)
	snapshot := func(r *gitrepo.Repo) (gitrepo.Commit, error) {
		smu.Lock()
		sr := snaps[r]
		if sr == nil {
			sr = &snapRes{}
			snaps[r] = sr
		}
		smu.Unlock()
		sr.once.Do(func() { sr.commit, sr.err = r.Snapshot(ctx, ro.Cutoff) })
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
				v, err := c.one(ctx, s, src, snapshot)
				if err == nil {
					v.Cutoff = cutoff
					emu.Lock()
					err = emit(v)
					emu.Unlock()
				}
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

func (c *Checker) one(ctx context.Context, s bench.Sample, src RepoSource, snapshot func(*gitrepo.Repo) (gitrepo.Commit, error)) (Verdict, error) {
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
	snap, err := snapshot(r)
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
