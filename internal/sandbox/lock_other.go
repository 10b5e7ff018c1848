//go:build !unix

package sandbox

import "os"

func lockFile(path string) (*os.File, error) { return os.Create(path) }

func tryLock(path string) (*os.File, bool) { return nil, false }

// ForceRemove removes dir.
func ForceRemove(dir string) { _ = os.RemoveAll(dir) }
