//go:build !unix

package sandbox

import "os"

func lockFile(path string) (*os.File, error) { return os.Create(path) }

func tryLock(path string) (*os.File, bool) { return nil, false }

func forceRemove(dir string) { _ = os.RemoveAll(dir) }
