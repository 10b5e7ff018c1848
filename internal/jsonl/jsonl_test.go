package jsonl

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/benchforge/benchforge/internal/errs"
)

type rec struct {
	ID   string `json:"id"`
	Body string `json:"body"`
}

func recID(r rec) string { return r.ID }

func TestAppendResume(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out", "r.jsonl")
	l, err := Open(path, recID, Options{})
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, l, rec{"0", "a<b"}, rec{"1", "a<b"}, rec{"2", "a<b"})
	if err := l.Append(rec{ID: "1"}); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("duplicate append: got %v, want ErrDuplicate", err)
	}
	if err := l.Append(rec{}); !errors.Is(err, errs.ErrInput) {
		t.Fatalf("empty id: got %v, want ErrInput", err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	l, err = Open(path, recID, Options{Sync: SyncBatch, BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal([]any{l.Has("2"), l.Has("3"), l.Len()}, []any{true, false, 3}) {
		t.Fatalf("resume: Has(2)=%v Has(3)=%v Len=%d", l.Has("2"), l.Has("3"), l.Len())
	}
	appendAll(t, l, rec{ID: "3"})
	l.Close()
	got, err := ReadFile[rec](path)
	if err != nil {
		t.Fatal(err)
	}
	want := []rec{{"0", "a<b"}, {"1", "a<b"}, {"2", "a<b"}, {"3", ""}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("records (-want +got):\n%s", d)
	}
	raw, _ := os.ReadFile(path)
	if !strings.Contains(string(raw), `"a<b"`) {
		t.Errorf("HTML-escaped output: %s", raw)
	}
}

func TestRepair(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		wantIDs  []string
		wantWarn string
		wantErr  string
	}{
		{"clean", "{\"id\":\"a\"}\n{\"id\":\"b\"}\n", []string{"a", "b"}, "", ""},
		{"empty", "", nil, "", ""},
		{"blank lines", "\n{\"id\":\"a\"}\n\n", []string{"a"}, "", ""},
		{"torn tail", "{\"id\":\"a\"}\n{\"id\":\"b\",\"bo", []string{"a"}, "dropped a torn last line", ""},
		{"unterminated but whole", "{\"id\":\"a\"}\n{\"id\":\"b\"}", []string{"a", "b"}, "not newline-terminated", ""},
		{"corrupt middle", "{\"id\":\"a\"}\nnot json\n{\"id\":\"b\"}\n", nil, "", "r.jsonl:2: invalid input"},
		{"duplicate", "{\"id\":\"a\"}\n{\"id\":\"a\"}\n", nil, "", "r.jsonl:2: invalid input: id \"a\" appears twice"},
		{"no id", "{\"body\":\"x\"}\n", nil, "", "r.jsonl:1: invalid input: record has no id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "r.jsonl", tt.content)
			l, err := Open(path, recID, Options{})
			if tt.wantErr != "" {
				if !isErr(err, errs.ErrInput, tt.wantErr) {
					t.Fatalf("got err %v, want one containing %q wrapping ErrInput", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkWarnings(t, l.Warnings(), tt.wantWarn)
			appendAll(t, l, rec{ID: "z"})
			l.Close()
			if d := cmp.Diff(append(tt.wantIDs, "z"), readIDs(t, path)); d != "" {
				t.Errorf("ids after repair and append (-want +got):\n%s", d)
			}
		})
	}
}

// checkWarnings: the warnings are empty exactly when want is, and
// contain want.
func checkWarnings(t *testing.T, warnings []string, want string) {
	t.Helper()
	warn := strings.Join(warnings, "\n")
	if (want == "") != (warn == "") || !strings.Contains(warn, want) {
		t.Errorf("warnings %q, want %q", warn, want)
	}
}

func TestLockedByAnotherWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	l, err := Open(path, recID, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := Open(path, recID, Options{}); err == nil || !strings.Contains(err.Error(), "another benchforge process") {
		t.Fatalf("second writer: got %v", err)
	}
}

func TestReadFileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadFile[rec](filepath.Join(dir, "missing.jsonl")); !errors.Is(err, errs.ErrNotFound) {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\"id\":\"a\"}\n\n{oops\n"), 0o644)
	_, err := ReadFile[rec](bad)
	if err == nil || !strings.Contains(err.Error(), "bad.jsonl:3:") {
		t.Errorf("bad line: got %v, want bad.jsonl:3", err)
	}
}

func TestRewrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	os.WriteFile(path, []byte("old\n"), 0o644)
	want := []rec{{"x", "1"}, {"y", "2"}}
	if err := Rewrite(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile[rec](path)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Error(d)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temp files left behind: %v", entries)
	}
}

func TestLongLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	l, _ := Open(path, recID, Options{Sync: SyncClose})
	big := strings.Repeat("x", 3<<20)
	l.Append(rec{ID: "big", Body: big})
	l.Close()
	got, err := ReadFile[rec](path)
	if err != nil || len(got) != 1 || got[0].Body != big {
		t.Fatalf("3 MB record did not round-trip: %v", err)
	}
}

// TestKilledWriter kills a real writer process with SIGKILL mid-run and
// checks that reopening keeps every complete record, and that a resumed
// run completes the set without duplicates.
func TestKilledWriter(t *testing.T) {
	if os.Getenv("JSONL_CHILD") != "" {
		t.Skip("child mode")
	}
	path := filepath.Join(t.TempDir(), "r.jsonl")
	const n = 20000
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildWriter$")
	cmd.Env = append(os.Environ(), "JSONL_CHILD="+path, "JSONL_N="+strconv.Itoa(n))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill as soon as some records are on disk.
	waitForSize(path, 50_000, 10*time.Second)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	l, err := Open(path, recID, Options{Sync: SyncClose})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	before := l.Len()
	if before == 0 || before == n {
		t.Fatalf("kill landed at %d of %d records; the test needs a partial file", before, n)
	}
	for i := range n {
		if id := strconv.Itoa(i); !l.Has(id) {
			appendAll(t, l, rec{ID: id, Body: strings.Repeat("b", 40)})
		}
	}
	l.Close()
	checkUniqueIDs(t, readIDs(t, path), n)
	t.Logf("killed after %d records; resumed to %d", before, n)
}

// checkUniqueIDs: ids has no duplicate and n distinct ids.
func checkUniqueIDs(t *testing.T, ids []string, n int) {
	t.Helper()
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("duplicate %s after resume", id)
		}
		seen[id] = true
	}
	if len(seen) != n {
		t.Fatalf("have %d records after resume, want %d", len(seen), n)
	}
}

// TestChildWriter is the process TestKilledWriter kills.
func TestChildWriter(t *testing.T) {
	path := os.Getenv("JSONL_CHILD")
	if path == "" {
		t.Skip("only run as TestKilledWriter's child")
	}
	n, _ := strconv.Atoi(os.Getenv("JSONL_N"))
	l, err := Open(path, recID, Options{Sync: SyncClose})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for i := range n {
		l.Append(rec{ID: strconv.Itoa(i), Body: strings.Repeat("b", 40)})
		if i > 2000 {
			time.Sleep(50 * time.Microsecond) // leave time for the kill
		}
	}
	l.Close()
}

func FuzzOpen(f *testing.F) {
	f.Add([]byte("{\"id\":\"a\"}\n{\"id\":\"b\""))
	f.Add([]byte("{\"id\":\"a\"}\n\n{\"id\":"))
	f.Add([]byte("\xff\xfe\n{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "f.jsonl")
		os.WriteFile(path, data, 0o644)
		l, err := Open(path, recID, Options{Sync: SyncClose})
		if err != nil {
			return // a clear error is fine; a panic is not
		}
		n := l.Len()
		if err := l.Append(rec{ID: "\x00fuzz"}); err != nil && !errors.Is(err, ErrDuplicate) {
			t.Fatal(err)
		}
		l.Close()
		got, err := ReadFile[rec](path)
		if err != nil {
			t.Fatalf("file unreadable after a successful Open+Append: %v", err)
		}
		if len(got) < n {
			t.Fatalf("lost records: %d < %d", len(got), n)
		}
	})
}

// A record marked for retry stays in the file, is not done on resume, and
// is superseded by the newer record with its id; a final one never is.
func TestRetrySupersedes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	unknown := func(r rec) bool { return r.Body == "unknown" }
	l, err := OpenRetry(path, recID, Options{}, unknown)
	if err != nil {
		t.Fatal(err)
	}
	appendAll(t, l, rec{"a", "unknown"}, rec{"b", "present"})
	l.Close()

	l, err = OpenRetry(path, recID, Options{}, unknown)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal([]bool{l.Has("a"), l.Retried("a"), l.Has("b"), l.Retried("b")}, []bool{false, true, true, false}) {
		t.Fatalf("resume: Has(a)=%v Retried(a)=%v Has(b)=%v", l.Has("a"), l.Retried("a"), l.Has("b"))
	}
	if err := l.Append(rec{"a", "absent"}); err != nil {
		t.Fatalf("superseding a retryable record: %v", err)
	}
	if err := l.Append(rec{"a", "present"}); !errors.Is(err, ErrDuplicate) {
		t.Fatalf("superseding a final record: got %v, want ErrDuplicate", err)
	}
	l.Close()

	all, err := ReadFile[rec](path)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 3 {
		t.Fatalf("file holds %d lines, want 3 (the retried record is kept)", len(all))
	}
	want := []rec{{"a", "absent"}, {"b", "present"}}
	if d := cmp.Diff(want, Latest(all, recID)); d != "" {
		t.Fatalf("Latest (-want +got):\n%s", d)
	}
	// Reopening reads the superseded line again without calling it a
	// duplicate: the earlier record was retryable.
	if _, err := OpenRetry(path, recID, Options{}, unknown); err != nil {
		t.Fatal(err)
	}
}
