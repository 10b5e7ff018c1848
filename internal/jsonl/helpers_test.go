package jsonl

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// appendAll appends recs to l, failing the test on the first error.
func appendAll(t *testing.T, l *Log[rec], recs ...rec) {
	t.Helper()
	for _, r := range recs {
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
}

// readIDs reads the file at path and returns its records' ids.
func readIDs(t *testing.T, path string) []string {
	t.Helper()
	got, err := ReadFile[rec](path)
	if err != nil {
		t.Fatalf("file unreadable: %v", err)
	}
	var ids []string
	for _, r := range got {
		ids = append(ids, r.ID)
	}
	return ids
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// isErr reports whether err wraps target and its message contains msg.
func isErr(err, target error, msg string) bool {
	return errors.Is(err, target) && strings.Contains(err.Error(), msg)
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
