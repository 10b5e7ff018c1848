// Package jdk finds the Java Development Kit on the machine: its tools
// (javac, java) for JVM verification, and its src.zip, which benchforge
// uses as a built-in corpus of real code (metrics benchmarks, n-gram
// training, the Stage I testbed, the mutation generator).
package jdk

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"

	"github.com/benchforge/benchforge/internal/errs"
)

// homes lists candidate JDK homes: $JAVA_HOME first, then the home of the
// javac on PATH, then every JDK under /usr/lib/jvm (newest name last, so
// sorted order is stable).
func homes() []string {
	var out []string
	if h := os.Getenv("JAVA_HOME"); h != "" {
		out = append(out, h)
	}
	if p, err := exec.LookPath("javac"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			out = append(out, filepath.Dir(filepath.Dir(real)))
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/jvm/*")
	sort.Strings(dirs)
	return append(out, dirs...)
}

// SrcZip returns the path of a readable JDK src.zip. A dangling symlink
// (Debian links src.zip to the separate openjdk-N-source package) does
// not count.
func SrcZip() (string, error) {
	for _, h := range homes() {
		for _, p := range []string{filepath.Join(h, "lib", "src.zip"), filepath.Join(h, "src.zip")} {
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("find JDK src.zip: %w: none under $JAVA_HOME or /usr/lib/jvm; install the JDK sources (apt-get install openjdk-17-source) or pass --corpus", errs.ErrNotFound)
}

// Tool returns the path of a JDK tool such as "javac" or "java".
func Tool(name string) (string, error) {
	if h := os.Getenv("JAVA_HOME"); h != "" {
		p := filepath.Join(h, "bin", name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("find %s: %w: install a JDK (apt-get install default-jdk-headless) or set JAVA_HOME", name, errs.ErrUnavailable)
}
