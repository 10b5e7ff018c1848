package jvm

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/testcheck"
)

// TestLockBuild: while one run holds a build directory's lock, another
// waits (here until its context ends) instead of building into the same
// directory; once the first lets go, the second gets it. Another build
// directory is not held up.
func TestLockBuild(t *testing.T) {
	base := filepath.Join(t.TempDir(), "projects", "abc")
	unlock, err := lockBuild(context.Background(), base)
	testcheck.Must(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := lockBuild(ctx, base); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second lock while held: %v, want it to wait until its context ends", err)
	}
	other, err := lockBuild(context.Background(), base+"x")
	testcheck.Must(t, err)
	other()
	got := make(chan error, 1)
	go func() {
		u, err := lockBuild(context.Background(), base)
		if err == nil {
			u()
		}
		got <- err
	}()
	time.Sleep(100 * time.Millisecond)
	unlock()
	select {
	case err := <-got:
		testcheck.Must(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting lock was not granted after the holder let go")
	}
}
