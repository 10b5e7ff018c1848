package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/benchforge/benchforge/internal/errs"
)

// MkdirTemp makes a private directory named prefix+random under the system
// temp dir (prefix must start with "benchforge-") and returns it with the
// function that removes it. While the directory is in use a lock file
// beside it ("<dir>.lock", outside the directory so the command cannot
// delete it) is held open with an exclusive flock; the kernel drops the lock
// when this process dies, however it dies, so the next MkdirTemp of any
// benchforge process removes directories whose owner is gone (a killed run
// leaves nothing behind after the next one).
func MkdirTemp(prefix string) (string, func(), error) {
	if !strings.HasPrefix(prefix, tempPrefix) {
		return "", nil, fmt.Errorf("sandbox temp dir %q: prefix must start with %q: %w", prefix, tempPrefix, errs.ErrUsage)
	}
	cleanStaleOnce.Do(func() { CleanStale(os.TempDir()) })
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, fmt.Errorf("private temp dir: %v: %w", err, errs.ErrUnavailable)
	}
	lock, err := lockFile(dir + lockSuffix)
	if err != nil {
		os.Remove(dir)
		return "", nil, fmt.Errorf("private temp dir: lock: %v: %w", err, errs.ErrUnavailable)
	}
	var once sync.Once
	release := func() {
		once.Do(func() {
			ForceRemove(dir)
			os.Remove(dir + lockSuffix)
			lock.Close()
		})
	}
	return dir, release, nil
}

const (
	tempPrefix = "benchforge-"
	lockSuffix = ".lock"
)

var cleanStaleOnce sync.Once

// CleanStale removes benchforge-* directories in tmp whose lock file is no
// longer held (their owner died) and reports how many it removed.
// Directories without a lock file are left alone: they belong to older
// versions or to someone else.
func CleanStale(tmp string) int {
	locks, _ := filepath.Glob(filepath.Join(tmp, tempPrefix+"*"+lockSuffix))
	n := 0
	for _, l := range locks {
		f, ok := tryLock(l)
		if !ok {
			continue
		}
		dir := strings.TrimSuffix(l, lockSuffix)
		if fi, err := os.Lstat(dir); err == nil && fi.IsDir() {
			ForceRemove(dir)
			n++
		}
		os.Remove(l)
		f.Close()
	}
	return n
}
