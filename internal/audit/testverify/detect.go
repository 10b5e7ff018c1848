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
//   - java: Maven for pom.xml, Gradle for build.gradle(.kts), Ant for
//     build.xml — each only when the tool is installed (errs.ErrUnavailable
//     otherwise);
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
		switch {
		case exists(dir, "pom.xml"):
			return NewMavenRunner(opts)
		case exists(dir, "build.gradle"), exists(dir, "build.gradle.kts"):
			return NewGradleRunner(opts)
		case exists(dir, "build.xml"):
			return NewAntRunner(opts)
		}
		return nil, fmt.Errorf("detect test runner in %s: no pom.xml, build.gradle or build.xml; pass a test command: %w", dir, errs.ErrUnsupported)
	}
	return nil, fmt.Errorf("detect test runner: no built-in runner for language %q; pass a test command: %w", language, errs.ErrUnsupported)
}

func exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}
