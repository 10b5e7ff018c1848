package testverify

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
)

// Detect chooses a built-in runner for the work tree at dir:
//
//   - python: sympy's bin/test in a sympy tree (SympyRunner), else pytest
//     when an interpreter with pytest is installed, else unittest (always
//     available with python3);
//   - java: see detectJava (Maven, Gradle or Ant where they can run, else
//     the javac runner);
//   - anything else: errs.ErrUnsupported (pass a test command instead).
func Detect(dir, language string, opts Options) (Runner, error) {
	switch strings.ToLower(language) {
	case "python", "py":
		if isSympyTree(dir) {
			return NewSympyRunner(opts)
		}
		if r, err := NewPytestRunner(opts); err == nil {
			return r, nil
		}
		return NewUnittestRunner(opts)
	case "java":
		return detectJava(dir, opts)
	}
	return nil, fmt.Errorf("detect test runner: no built-in runner for language %q; pass a test command: %w", language, errs.ErrUnsupported)
}

func exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}
