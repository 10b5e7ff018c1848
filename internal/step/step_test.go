package step

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	"github.com/benchforge/benchforge/internal/jsonl"
	"github.com/benchforge/benchforge/internal/runkey"
)

type rec struct {
	ID     string `json:"id"`
	Status string `json:"status,omitempty"`
}

func items(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func spec(path string, n int) Spec[int, rec] {
	return Spec[int, rec]{Path: path, Key: func(r rec) string { return r.ID }, Items: items(n),
		ID: strconv.Itoa, Workers: 4, Sync: jsonl.SyncClose}
}

// work records each item once, counting the calls.
func work(calls *atomic.Int64, status string) func(context.Context, int, Emit[rec]) error {
	return func(_ context.Context, i int, emit Emit[rec]) error {
		calls.Add(1)
		return emit(rec{ID: strconv.Itoa(i), Status: status})
	}
}

func TestResumeSkipsDone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	var calls atomic.Int64
	s := spec(path, 5)
	s.Items = items(3)
	if _, err := Run(context.Background(), s, work(&calls, "")); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), spec(path, 5), work(&calls, ""))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal([]int{int(calls.Load()), res.Resumed, res.Written, res.Todo, len(res.Records)}, []int{5, 3, 2, 2, 5}) {
		t.Fatalf("calls %d, result %+v", calls.Load(), res)
	}
}

func TestParamsRefuseOtherSettings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	var calls atomic.Int64
	s := spec(path, 2)
	s.Params = runkey.Settings{"model": "a", "seed": 1}
	if _, err := Run(context.Background(), s, work(&calls, "")); err != nil {
		t.Fatal(err)
	}
	s.Params = runkey.Settings{"model": "b", "seed": 1}
	s.Flag = "--dir"
	_, err := Run(context.Background(), s, work(&calls, ""))
	if !errors.Is(err, errs.ErrUsage) || !mentions(err, `model: "a" → "b"`, "--dir") {
		t.Fatalf("want a usage error naming the setting and the flag, got %v", err)
	}
	if calls.Load() != 2 {
		t.Fatalf("a refused resume ran %d items", calls.Load()-2)
	}
}

func TestRetryRedoes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	var calls atomic.Int64
	if _, err := Run(context.Background(), spec(path, 3), work(&calls, "unknown")); err != nil {
		t.Fatal(err)
	}
	s := spec(path, 3)
	s.Retry = func(r rec) bool { return r.Status == "unknown" }
	res, err := Run(context.Background(), s, work(&calls, "ok"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal([]int{res.Rechecked, res.Resumed, len(res.Records)}, []int{3, 0, 3}) || res.Records[0].Status != "ok" {
		t.Fatalf("result %+v", res)
	}
	if all, _ := jsonl.ReadFile[rec](path); len(all) != 6 {
		t.Fatalf("superseded records must stay in the log: %d lines", len(all))
	}
}

func TestCheckRefuses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	var calls atomic.Int64
	if _, err := Run(context.Background(), spec(path, 1), work(&calls, "x")); err != nil {
		t.Fatal(err)
	}
	s := spec(path, 2)
	s.Check = func(r rec) error { return fmt.Errorf("record %s is another pass's", r.ID) }
	if _, err := Run(context.Background(), s, work(&calls, "")); err == nil || calls.Load() != 1 {
		t.Fatalf("Check did not refuse the resume: %v, %d calls", err, calls.Load())
	}
}

func TestStopKeepsRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	s := spec(path, 50)
	s.Workers, s.Noun = 1, "answers"
	boom := errors.New("boom")
	_, err := Run(context.Background(), s, func(_ context.Context, i int, emit Emit[rec]) error {
		if i == 10 {
			return boom
		}
		return emit(rec{ID: strconv.Itoa(i)})
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "(finished answers are kept in "+path+"; rerun to resume)") {
		t.Fatalf("got %v", err)
	}
	if got, _ := jsonl.ReadFile[rec](path); len(got) != 10 {
		t.Fatalf("kept %d records, want 10", len(got))
	}
}

// A torn last line is repaired on open and reported through Warn before
// any item runs.
func TestWarnBeforeWork(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	if err := os.WriteFile(path, []byte("{\"id\":\"0\"}\n{\"id\":"), 0o644); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	var warned []string
	s := spec(path, 2)
	s.Warn = func(w string) error {
		if calls.Load() != 0 {
			t.Error("warning after work started")
		}
		warned = append(warned, w)
		return nil
	}
	res, err := Run(context.Background(), s, work(&calls, ""))
	if err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "torn last line") || !slices.Equal([]int{len(res.Warnings), res.Resumed, int(calls.Load())}, []int{1, 1, 1}) {
		t.Fatalf("warned %q, result %+v, %d calls", warned, res, calls.Load())
	}
}

func TestEachCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var n atomic.Int64
	err := Each(ctx, 1, items(100), func(_ context.Context, i int) error {
		if n.Add(1) == 3 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || n.Load() >= 100 {
		t.Fatalf("got %v after %d items", err, n.Load())
	}
	if err := Each(context.Background(), 3, items(10), func(context.Context, int) error { return nil }); err != nil {
		t.Fatal(err)
	}
}

// TestKilledStep kills a real process with SIGKILL in the middle of a
// step and resumes it: every record on disk is kept, the resumed pass
// does only the rest, and the log ends with each item exactly once.
func TestKilledStep(t *testing.T) {
	if os.Getenv("STEP_CHILD") != "" {
		t.Skip("child mode")
	}
	const n = 5000
	path := filepath.Join(t.TempDir(), "r.jsonl")
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildStep$")
	cmd.Env = append(os.Environ(), "STEP_CHILD="+path, "STEP_N="+strconv.Itoa(n))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitForSize(path, 5_000, 30*time.Second)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()

	var calls atomic.Int64
	res, err := Run(context.Background(), spec(path, n), work(&calls, ""))
	if err != nil {
		t.Fatalf("resume after kill: %v", err)
	}
	if res.Resumed == 0 || res.Resumed == n {
		t.Fatalf("kill landed at %d of %d records; the test needs a partial log", res.Resumed, n)
	}
	if int(calls.Load()) != n-res.Resumed || res.Written != n-res.Resumed {
		t.Fatalf("resume redid %d items (wrote %d), want %d", calls.Load(), res.Written, n-res.Resumed)
	}
	all, err := jsonl.ReadFile[rec](path)
	if err != nil {
		t.Fatal(err)
	}
	if seen := distinctIDs(t, all); seen != n || len(res.Records) != n {
		t.Fatalf("have %d records (%d read back), want %d", seen, len(res.Records), n)
	}
	t.Logf("killed after %d records; resumed to %d", res.Resumed, n)
}

// waitForSize waits until the file at path is larger than size bytes, or
// the timeout passes.
func waitForSize(path string, size int64, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if st, err := os.Stat(path); err == nil && st.Size() > size {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// distinctIDs fails the test on a repeated id and returns the number of
// records.
func distinctIDs(t *testing.T, all []rec) int {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range all {
		if seen[r.ID] {
			t.Fatalf("record %s twice after resume", r.ID)
		}
		seen[r.ID] = true
	}
	return len(seen)
}

// mentions reports whether err's message contains every one of subs.
func mentions(err error, subs ...string) bool {
	for _, s := range subs {
		if !strings.Contains(err.Error(), s) {
			return false
		}
	}
	return true
}

// TestChildStep is the process TestKilledStep kills: a slow step on four
// workers.
func TestChildStep(t *testing.T) {
	path := os.Getenv("STEP_CHILD")
	if path == "" {
		t.Skip("only run as TestKilledStep's child")
	}
	n, _ := strconv.Atoi(os.Getenv("STEP_N"))
	_, err := Run(context.Background(), spec(path, n), func(_ context.Context, i int, emit Emit[rec]) error {
		time.Sleep(time.Millisecond) // leave time for the kill
		return emit(rec{ID: strconv.Itoa(i)})
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
