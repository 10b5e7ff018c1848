package jvm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockBuild holds an exclusive lock on the build directory base (a file
// beside it) until the returned function is called: two runs that build
// the same project at once (two `synth verify` runs sharing the cache)
// would otherwise export, compile and remove into one directory together
// ("unlinkat …: directory not empty"). The second waits, then finds the
// first one's build. ctx ends the wait.
func lockBuild(ctx context.Context, base string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return nil, fmt.Errorf("lock build %s: %w", base, err)
	}
	f, err := os.OpenFile(base+".lock", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock build %s: %w", base, err)
	}
	for {
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			return func() { f.Close() }, nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("lock build %s: waiting for another run's build of it: %w", base, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}
