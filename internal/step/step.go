// Package step owns benchforge's resumable steps: the one loop that opens
// a step's append-only record log (internal/jsonl), refuses a log written
// under other settings, skips the items whose record is already final,
// runs the rest on a bounded errgroup pool, appends each record as it
// lands, and reads the whole log back once the pass is over.
//
// The long stages (Stage II patch verdicts, Stage I repository records,
// logit baselines, judging, JVM verification, model probes) run through
// Run or RunBatch, so a crash or kill -9 at any point loses no finished
// record, and a rerun of the same command redoes only what is missing;
// the kill-and-resume guarantee is tested once, here (TestKilledStep).
// Each is a small pool; the errgroup plumbing for pools that are not
// resumable steps is Each.
package step

import (
	"context"
	"fmt"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/runkey"
)

// Spec describes one resumable step: its log, its items and its settings.
// I is the type of a work item, T the type of a record in the log.
type Spec[I, T any] struct {
	// Path is the append-only JSONL log of records (required).
	Path string
	// Key is a record's id in the log (required).
	Key func(T) string
	// Items are the step's work, in order.
	Items []I
	// ID is the id of the record item i yields (required): an item whose
	// record is final in the log is not redone.
	ID func(I) string

	// Params are the settings that decide every record of the log when
	// its records do not carry their own (nil: they do, in their id, as
	// runkey.Settings.ID makes). They are kept beside the log
	// (runkey.PassFile) and a resume with other values is refused with an
	// error naming each differing setting.
	Params runkey.Settings
	// Flag names the output option in that error's remedy; "" is "--out".
	Flag string
	// Check, when set, sees every record already in the log before any
	// work starts; an error refuses the resume (a log of another pass).
	Check func(T) error
	// Retry marks the records whose cause may be gone (an unknown
	// verdict, --recheck all): their items are redone and the new record
	// supersedes the old one (jsonl.OpenRetry).
	Retry func(T) bool

	// Workers bounds the items in flight for Run; 0 means 1.
	Workers int
	// Sync and BatchSize are the log's fsync policy (jsonl.Options).
	Sync      jsonl.SyncPolicy
	BatchSize int
	// Warn, when set, receives each repair opening the log made (a torn
	// last line) before any work starts, so a streaming caller reports it
	// first; an error from it stops the step.
	Warn func(string) error
	// Progress, when set, is called after each record appended in this
	// pass with the count so far and the number of items to do.
	Progress func(done, total int)
	// Noun, when set, names the records in the note added to an error
	// that stops the pass ("judgements" gives "(finished judgements are
	// kept in PATH; rerun to resume)"), so the user knows nothing is lost.
	Noun string
}

// Result is what a step did.
type Result[T any] struct {
	// Records are the whole log after the pass, the newest record of each
	// id, in the order the ids first appeared (jsonl.Latest).
	Records []T
	// Todo is the number of items this pass worked on.
	Todo int
	// Resumed counts the items whose final record was already in the log.
	Resumed int
	// Rechecked counts the items redone because Retry marked their record.
	Rechecked int
	// Written counts the records appended by this pass.
	Written int
	// Warnings are the torn lines opening the log repaired.
	Warnings []string
}

// Emit appends one record; it is safe to call from several goroutines.
type Emit[T any] func(T) error

// Run runs fn on every item not yet done, Spec.Workers at a time, each
// record it emits appended at once. The first error stops the pass
// (cancelling the others' context); records already appended stay, and
// the error says so when Spec.Noun is set.
func Run[I, T any](ctx context.Context, s Spec[I, T], fn func(ctx context.Context, item I, emit Emit[T]) error) (*Result[T], error) {
	return RunBatch(ctx, s, func(ctx context.Context, todo []I, emit Emit[T]) error {
		return Each(ctx, s.Workers, todo, func(ctx context.Context, it I) error { return fn(ctx, it, emit) })
	})
}

// RunBatch is Run for a step that schedules its own work (a pool of JVMs,
// a cache shared by the items): fn gets every item not yet done at once
// and emits their records, in any order, from any goroutine.
func RunBatch[I, T any](ctx context.Context, s Spec[I, T], fn func(ctx context.Context, todo []I, emit Emit[T]) error) (*Result[T], error) {
	p, err := open(s)
	if err != nil {
		return nil, err
	}
	if len(p.todo) > 0 {
		if err := fn(ctx, p.todo, p.emit); err != nil {
			p.log.Close()
			return p.res, p.stopped(err)
		}
	}
	if err := p.log.Close(); err != nil {
		return p.res, err
	}
	recs, err := jsonl.ReadFile[T](s.Path)
	if err != nil {
		return p.res, err
	}
	p.res.Records = jsonl.Latest(recs, s.Key)
	return p.res, nil
}

// pass is one open step.
type pass[I, T any] struct {
	spec Spec[I, T]
	log  *jsonl.Log[T]
	todo []I
	res  *Result[T]
	mu   sync.Mutex // serialises emit's count and Progress
}

// open opens the log, checks the settings and the records in it, and
// sorts the items into done and to do.
func open[I, T any](s Spec[I, T]) (*pass[I, T], error) {
	if s.Params != nil {
		flag := s.Flag
		if flag == "" {
			flag = "--out"
		}
		if err := runkey.CheckPass(s.Path, flag, s.Params); err != nil {
			return nil, err
		}
	}
	log, err := jsonl.OpenRetry(s.Path, s.Key, jsonl.Options{Sync: s.Sync, BatchSize: s.BatchSize}, s.Retry)
	if err != nil {
		return nil, err
	}
	if err := check(s); err != nil {
		log.Close()
		return nil, err
	}
	if err := warn(s.Warn, log.Warnings()); err != nil {
		log.Close()
		return nil, err
	}
	p := &pass[I, T]{spec: s, log: log, res: &Result[T]{Warnings: log.Warnings()}}
	for _, it := range s.Items {
		id := s.ID(it)
		switch {
		case log.Has(id):
			p.res.Resumed++
		case log.Retried(id):
			p.res.Rechecked++
			p.todo = append(p.todo, it)
		default:
			p.todo = append(p.todo, it)
		}
	}
	p.res.Todo = len(p.todo)
	return p, nil
}

func warn(fn func(string) error, ws []string) error {
	if fn == nil {
		return nil
	}
	for _, w := range ws {
		if err := fn(w); err != nil {
			return err
		}
	}
	return nil
}

// check runs Spec.Check over the records already in the log.
func check[I, T any](s Spec[I, T]) error {
	if s.Check == nil {
		return nil
	}
	old, err := jsonl.ReadFile[T](s.Path)
	if err != nil {
		return err
	}
	for _, r := range old {
		if err := s.Check(r); err != nil {
			return err
		}
	}
	return nil
}

func (p *pass[I, T]) emit(rec T) error {
	if err := p.log.Append(rec); err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.res.Written++
	if p.spec.Progress != nil {
		p.spec.Progress(p.res.Written, len(p.todo))
	}
	return nil
}

func (p *pass[I, T]) stopped(err error) error {
	if p.spec.Noun == "" {
		return err
	}
	return fmt.Errorf("%w (finished %s are kept in %s; rerun to resume)", err, p.spec.Noun, p.spec.Path)
}

// Each runs fn on every item, at most workers at a time (0 means 1), on
// an errgroup: the first error cancels the context the others see and is
// returned once all have stopped. A cancelled ctx stops handing out items
// and is returned (as its cause) when items were left undone.
func Each[I any](ctx context.Context, workers int, items []I, fn func(ctx context.Context, item I) error) error {
	return EachIndex(ctx, workers, len(items), func(ctx context.Context, i int) error { return fn(ctx, items[i]) })
}

// EachIndex is Each over the indices 0..n-1, for the callers that fill
// slot i of a result slice.
func EachIndex(ctx context.Context, workers, n int, fn func(ctx context.Context, i int) error) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(workers, 1))
	started := 0
	for i := range n {
		if gctx.Err() != nil {
			break
		}
		started++
		g.Go(func() error {
			// Go may block for a free slot past a stop; an item handed
			// out after it is not begun.
			if err := gctx.Err(); err != nil {
				return context.Cause(gctx)
			}
			return fn(gctx, i)
		})
	}
	err := g.Wait()
	if err == nil && started < n {
		err = context.Cause(ctx)
	}
	return err
}
