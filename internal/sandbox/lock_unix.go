//go:build unix

package sandbox

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// lockFile creates path and holds an exclusive flock on it until the file
// is closed (os.OpenFile sets close-on-exec: children do not inherit it).
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// tryLock takes the lock of an existing lock file when nobody holds it.
func tryLock(path string) (*os.File, bool) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, false
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		f.Close()
		return nil, false
	}
	return f, true
}

// ForceRemove removes dir even when the command made parts of it
// read-only (a test suite that chmods its fixtures, say).
func ForceRemove(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	_ = os.RemoveAll(dir)
}
