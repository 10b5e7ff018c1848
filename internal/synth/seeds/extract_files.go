package seeds

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/step"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// ExtractFiles are where ExtractToFiles writes: append-only JSONL files
// (internal/jsonl) of the seeds, keyed by bug_id, and of the extraction
// log, keyed by bug.
type ExtractFiles struct {
	Seeds, Log string
	// Warn, when set, receives each torn line opening the files repaired
	// (the seeds file's first) before any bug is extracted; an error from
	// it stops the run.
	Warn func(string) error
}

// ExtractToFiles is Extract as a resumable step (internal/step): a bug is
// done once its log record is written, and a rerun extracts only the bugs
// not yet done. Its seeds are written before that record, so a run killed
// in between redoes the bug and finds its seeds present (duplicates are
// skipped, not written twice). Bugs are extracted one at a time, in input
// order, so the seeds file follows the input (the repository finder is not
// shared between goroutines either). It returns the logs of all bugs,
// earlier runs' included, in input order.
func ExtractToFiles(ctx context.Context, bugs []BugInput, opts ExtractOptions, files ExtractFiles) ([]BugLog, error) {
	seedLog, err := jsonl.Open(files.Seeds, func(s corpus.Seed) string { return s.BugID }, jsonl.Options{Sync: jsonl.SyncBatch})
	if err != nil {
		return nil, fmt.Errorf("seeds extract output: %w", err)
	}
	var warnErr error
	warn := func(w string) error {
		if files.Warn == nil {
			return nil
		}
		warnErr = files.Warn(w)
		return warnErr
	}
	for _, w := range seedLog.Warnings() {
		if err := warn(w); err != nil {
			seedLog.Close()
			return nil, err
		}
	}
	res, err := step.RunBatch(ctx, step.Spec[int, BugLog]{
		Path: files.Log, Key: func(l BugLog) string { return l.Bug }, Items: indices(len(bugs)),
		ID: func(i int) string { return bugs[i].ID }, Sync: jsonl.SyncBatch, Warn: warn,
	}, func(ctx context.Context, todo []int, emit step.Emit[BugLog]) error {
		return extractEach(ctx, bugs, todo, opts, func(seeds []corpus.Seed, l BugLog) error {
			if err := appendSeeds(seedLog, seeds); err != nil {
				return err
			}
			return emit(l)
		})
	})
	if cerr := seedLog.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if res == nil && warnErr == nil { // the log could not be opened
			err = fmt.Errorf("seeds extract output: %w", err)
		}
		return nil, err
	}
	return inputOrder(bugs, res.Records), nil
}

// appendSeeds writes a bug's seeds; one already present (from a run killed
// before the bug's log record) is not written again.
func appendSeeds(log *jsonl.Log[corpus.Seed], seeds []corpus.Seed) error {
	for _, s := range seeds {
		if err := log.Append(s); err != nil && !errors.Is(err, jsonl.ErrDuplicate) {
			return err
		}
	}
	return nil
}

// inputOrder picks the logs of bugs out of the whole log, in input order.
func inputOrder(bugs []BugInput, recs []BugLog) []BugLog {
	byBug := make(map[string]BugLog, len(recs))
	for _, l := range recs {
		byBug[l.Bug] = l
	}
	var out []BugLog
	for _, in := range bugs {
		if l, ok := byBug[in.ID]; ok {
			out = append(out, l)
		}
	}
	return out
}

func indices(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// SourceBugRecord is one row of the identifier → source-bug table used for
// leakage control (rxsynth §7.2): every seed's bug_id with the benchmark bug
// it came from.
type SourceBugRecord struct {
	BugID     string `json:"bug_id"`
	SourceBug string `json:"source_bug"`
}

// SourceBugTable lists the seeds' identifiers with their source bugs, in
// seed order.
func SourceBugTable(seeds []corpus.Seed) []SourceBugRecord {
	out := make([]SourceBugRecord, len(seeds))
	for i, s := range seeds {
		out[i] = SourceBugRecord{BugID: s.BugID, SourceBug: s.SourceBug}
	}
	return out
}

// SourceBugPath is where the identifier → source-bug table of a seeds file
// goes: beside it, "seeds.jsonl" → "seeds.source-bugs.jsonl".
func SourceBugPath(seedsPath string) string {
	return strings.TrimSuffix(seedsPath, ".jsonl") + ".source-bugs.jsonl"
}
