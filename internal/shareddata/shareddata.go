// Package shareddata locates the project's shared, read-only data folder:
// the Defects4J metadata and the SWE-bench copies that sit in
// ../shared/data beside a clone of this repository (and beside CI's
// clone). Tests and the demo use it; nothing here is required at run time.
package shareddata

import (
	"os"
	"path/filepath"
)

// Dir returns the shared data folder, or "" when there is none. It looks,
// in order, at $BENCHFORGE_SHARED_DATA, at shared/data beside the module
// root found by walking up from the working directory, and at
// /work/shared/data.
func Dir() string {
	if d := os.Getenv("BENCHFORGE_SHARED_DATA"); d != "" {
		return existing(d)
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
				if s := existing(filepath.Join(d, "..", "shared", "data")); s != "" {
					return s
				}
				break
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return existing("/work/shared/data")
}

// Path returns Dir joined with elem, or "" when there is no shared folder
// or the path does not exist.
func Path(elem ...string) string {
	d := Dir()
	if d == "" {
		return ""
	}
	return existing(filepath.Join(append([]string{d}, elem...)...))
}

func existing(p string) string {
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return abs
}
