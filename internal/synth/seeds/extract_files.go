package seeds

import (
	"errors"
	"fmt"
	"strings"

	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/synth/corpus"
)

// FileSink writes seeds and the extraction log to append-only JSONL files
// (internal/jsonl): seeds keyed by bug_id, log records keyed by bug. A bug
// is done once its log record is written; seeds are written before it, so
// a run killed in between redoes the bug and finds its seeds present
// (duplicates are skipped, not written twice).
type FileSink struct {
	seeds *jsonl.Log[corpus.Seed]
	log   *jsonl.Log[BugLog]
	done  map[string]BugLog
}

// OpenFileSink opens (creating or resuming) the seed and log files.
func OpenFileSink(seedsPath, logPath string) (*FileSink, error) {
	s, err := jsonl.Open(seedsPath, func(s corpus.Seed) string { return s.BugID }, jsonl.Options{Sync: jsonl.SyncBatch})
	if err != nil {
		return nil, fmt.Errorf("seeds.OpenFileSink: %w", err)
	}
	l, err := jsonl.Open(logPath, func(l BugLog) string { return l.Bug }, jsonl.Options{Sync: jsonl.SyncBatch})
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("seeds.OpenFileSink: %w", err)
	}
	prev, err := jsonl.ReadFile[BugLog](logPath)
	if err != nil {
		s.Close()
		l.Close()
		return nil, fmt.Errorf("seeds.OpenFileSink: %w", err)
	}
	fs := &FileSink{seeds: s, log: l, done: map[string]BugLog{}}
	for _, r := range prev {
		fs.done[r.Bug] = r
	}
	return fs, nil
}

// Warnings are the torn lines Open repaired.
func (f *FileSink) Warnings() []string {
	return append(append([]string{}, f.seeds.Warnings()...), f.log.Warnings()...)
}

// Done implements Sink.
func (f *FileSink) Done(bug string) (BugLog, bool) {
	l, ok := f.done[bug]
	return l, ok
}

// Emit implements Sink.
func (f *FileSink) Emit(seeds []corpus.Seed, l BugLog) error {
	for _, s := range seeds {
		if err := f.seeds.Append(s); err != nil && !errors.Is(err, jsonl.ErrDuplicate) {
			return err
		}
	}
	if err := f.log.Append(l); err != nil {
		return err
	}
	f.done[l.Bug] = l
	return nil
}

// Close closes both files.
func (f *FileSink) Close() error {
	return errors.Join(f.seeds.Close(), f.log.Close())
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
