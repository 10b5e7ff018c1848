// Package jsonl owns benchforge's canonical record files: typed,
// append-only JSON Lines keyed by a record id.
//
// Every long benchforge run (audits, generation, judging, JVM checks)
// writes its results through a Log so that a crash or kill loses no
// finished record and a rerun duplicates none:
//
//   - Append writes one record as one line with a single write call, so a
//     crash can tear at most the last line. The sync policy decides how
//     often the file is fsynced.
//   - Open reads the existing file, collects the ids already present
//     (Has), and repairs a torn last line: an unterminated line that does
//     not parse is cut off and reported in Warnings; an unterminated line
//     that parses is kept and terminated. A malformed line anywhere else is
//     corruption, not a crash artefact, and is an error naming file:line.
//   - An advisory lock stops two processes from appending to one file.
//   - Rewrite replaces a file atomically (temp file, fsync, rename, fsync
//     of the directory), for outputs that are recomputed rather than
//     appended.
package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/output"
)

// ErrDuplicate is returned (wrapped) by Append when the record's id is
// already in the file.
var ErrDuplicate = errors.New("duplicate record id")

// SyncPolicy says when appended records are forced to stable storage.
type SyncPolicy int

const (
	// SyncEach fsyncs after every record: slowest, loses nothing on power
	// loss. The default, because records usually stand for paid model
	// calls or minutes of test runs.
	SyncEach SyncPolicy = iota
	// SyncBatch fsyncs every Options.BatchSize records and on Close.
	SyncBatch
	// SyncClose fsyncs only on Close; a process crash still loses nothing
	// (the kernel holds the writes), a power loss may.
	SyncClose
)

// Options configure Open.
type Options struct {
	Sync      SyncPolicy
	BatchSize int // for SyncBatch; 0 means 100
	// NoLock skips the advisory lock (for read-mostly tools).
	NoLock bool
}

// Log is an append-only JSONL file of records of type T keyed by id.
// It is safe for concurrent use by multiple goroutines.
type Log[T any] struct {
	path     string
	key      func(T) string
	opts     Options
	retry    func(T) bool
	mu       sync.Mutex
	f        *os.File
	ids      map[string]bool // id → the latest record with it is final
	records  int
	pending  int
	warnings []string
}

// Open opens (creating it if needed) the log at path. key returns a
// record's id; it must be non-empty and stable.
func Open[T any](path string, key func(T) string, opts Options) (*Log[T], error) {
	return OpenRetry(path, key, opts, nil)
}

// OpenRetry is Open with retry marking the records whose cause may be gone
// (a missing clone, a failed service): they stay in the file, but Has
// reports them not done and Append may write a newer record with the same
// id, which supersedes them (Latest reads the newest back). A nil retry
// makes every record final, as Open does.
func OpenRetry[T any](path string, key func(T) string, opts Options, retry func(T) bool) (*Log[T], error) {
	if opts.BatchSize <= 0 {
		opts.BatchSize = 100
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("open record log %s: %w", path, err)
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open record log %s: %w", path, err)
	}
	if !opts.NoLock {
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			return nil, fmt.Errorf("open record log %s: another benchforge process is writing it (%v); wait for it or use another --out", path, err)
		}
	}
	l := &Log[T]{path: path, key: key, opts: opts, retry: retry, f: f, ids: map[string]bool{}}
	if err := l.load(); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

// load scans the file, records ids, and repairs a torn tail.
func (l *Log[T]) load() error {
	data, err := io.ReadAll(l.f)
	if err != nil {
		return fmt.Errorf("read record log %s: %w", l.path, err)
	}
	good := 0 // byte offset just past the last good, terminated line
	line := 0
	for len(data[good:]) > 0 {
		rest := data[good:]
		nl := bytes.IndexByte(rest, '\n')
		line++
		if nl < 0 {
			// Unterminated last line: the only place a crash can tear.
			var rec T
			if err := json.Unmarshal(rest, &rec); err == nil && l.key(rec) != "" {
				if l.ids[l.key(rec)] {
					return fmt.Errorf("%s:%d: %w: id %q appears twice", l.path, line, errs.ErrInput, l.key(rec))
				}
				if _, err := l.f.WriteAt([]byte("\n"), int64(len(data))); err != nil {
					return fmt.Errorf("repair record log %s:%d: %w", l.path, line, err)
				}
				l.add(rec)
				l.warnings = append(l.warnings, fmt.Sprintf("%s:%d: last record was not newline-terminated; terminated it", l.path, line))
				good = len(data) + 1
				break
			}
			if err := l.f.Truncate(int64(good)); err != nil {
				return fmt.Errorf("repair record log %s:%d: %w", l.path, line, err)
			}
			l.warnings = append(l.warnings, fmt.Sprintf("%s:%d: dropped a torn last line of %d bytes (an interrupted write); every complete record is kept", l.path, line, len(rest)))
			break
		}
		raw := bytes.TrimSpace(rest[:nl])
		good += nl + 1
		if len(raw) == 0 {
			continue
		}
		var rec T
		if err := json.Unmarshal(raw, &rec); err != nil {
			return fmt.Errorf("%s:%d: %w: %v; fix or remove that line, then rerun", l.path, line, errs.ErrInput, err)
		}
		id := l.key(rec)
		if id == "" {
			return fmt.Errorf("%s:%d: %w: record has no id", l.path, line, errs.ErrInput)
		}
		if l.ids[id] {
			return fmt.Errorf("%s:%d: %w: id %q appears twice", l.path, line, errs.ErrInput, id)
		}
		l.add(rec)
	}
	if _, err := l.f.Seek(0, io.SeekEnd); err != nil {
		return fmt.Errorf("seek record log %s: %w", l.path, err)
	}
	return nil
}

func (l *Log[T]) add(rec T) {
	l.ids[l.key(rec)] = l.final(rec)
	l.records++
}

func (l *Log[T]) final(rec T) bool { return l.retry == nil || !l.retry(rec) }

// Path returns the file's path.
func (l *Log[T]) Path() string { return l.path }

// Warnings returns what Open repaired, for the caller to show.
func (l *Log[T]) Warnings() []string { return l.warnings }

// Has reports whether a final record with id is already in the log (a
// record OpenRetry's retry marks is not final: it is to be redone).
func (l *Log[T]) Has(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ids[id]
}

// Retried reports whether the log holds a record with id that is to be
// redone (OpenRetry).
func (l *Log[T]) Retried(id string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	final, ok := l.ids[id]
	return ok && !final
}

// Len returns the number of lines (records) in the log, superseded ones
// included.
func (l *Log[T]) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.records
}

// Append writes rec as one line. It returns an error wrapping ErrDuplicate
// if a final record with rec's id is already present, so a resumed run
// cannot write a record twice; a retryable one is superseded (Latest reads
// the newest back).
func (l *Log[T]) Append(rec T) error {
	id := l.key(rec)
	if id == "" {
		return fmt.Errorf("append to %s: %w: record has no id", l.path, errs.ErrInput)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // Encode ends the line with '\n'
	enc.SetEscapeHTML(false)     // keep code readable: no \u003c for '<'
	if err := enc.Encode(rec); err != nil {
		return fmt.Errorf("append %s to %s: %w", id, l.path, err)
	}
	b := buf.Bytes()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return fmt.Errorf("append %s to %s: log is closed", id, l.path)
	}
	if l.ids[id] {
		return fmt.Errorf("append %s to %s: %w", id, l.path, ErrDuplicate)
	}
	if _, err := l.f.Write(b); err != nil {
		return fmt.Errorf("append %s to %s: %w", id, l.path, err)
	}
	l.ids[id] = l.final(rec)
	l.records++
	l.pending++
	switch {
	case l.opts.Sync == SyncEach,
		l.opts.Sync == SyncBatch && l.pending >= l.opts.BatchSize:
		if err := l.f.Sync(); err != nil {
			return fmt.Errorf("sync %s: %w", l.path, err)
		}
		l.pending = 0
	}
	return nil
}

// Close syncs and closes the file, releasing the lock.
func (l *Log[T]) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Sync()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	if err != nil {
		return fmt.Errorf("close %s: %w", l.path, err)
	}
	return nil
}

// Scan calls fn for every non-blank line of the JSONL stream r with its
// 1-based line number. An unterminated last line is passed like any other.
// Lines may be of any length. A UTF-8 byte-order mark at the start (as
// Windows editors write) is skipped.
func Scan(r io.Reader, fn func(line int, raw []byte) error) error {
	br := bufio.NewReaderSize(r, 1<<16)
	line := 0
	for {
		b, err := br.ReadBytes('\n')
		if line == 0 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
		if len(b) > 0 {
			line++
			if raw := bytes.TrimSpace(b); len(raw) > 0 {
				if ferr := fn(line, raw); ferr != nil {
					return ferr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("line %d: %w", line+1, err)
		}
	}
}

// ReadFile decodes every record of the JSONL file at path. Errors name
// path:line. Unknown fields are allowed so that newer files stay readable.
func ReadFile[T any](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("read %s: %w: %v", path, errs.ErrNotFound, err)
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	var out []T
	err = Scan(f, func(line int, raw []byte) error {
		var rec T
		if err := json.Unmarshal(raw, &rec); err != nil {
			return fmt.Errorf("%s:%d: %w: %v", path, line, errs.ErrInput, err)
		}
		out = append(out, rec)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Rewrite atomically replaces path with recs, one per line: readers see
// either the old file or the whole new one, never a part (output.Write).
func Rewrite[T any](path string, recs []T) error {
	err := output.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		for i, r := range recs {
			if err := enc.Encode(r); err != nil {
				return fmt.Errorf("record %d: %w", i+1, err)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("rewrite: %w", err)
	}
	return nil
}

// Latest keeps the newest record of each id (a retried record supersedes
// the one before it), in the order the ids first appeared.
func Latest[T any](recs []T, key func(T) string) []T {
	at := map[string]int{}
	var out []T
	for _, r := range recs {
		id := key(r)
		if i, ok := at[id]; ok {
			out[i] = r
			continue
		}
		at[id] = len(out)
		out = append(out, r)
	}
	return out
}
