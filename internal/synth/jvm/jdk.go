package jvm

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
	jdkfind "github.com/benchforge/benchforge/internal/jdk"
)

// JDK is a located Java toolchain.
type JDK struct {
	Javac string `json:"javac"`
	Java  string `json:"java"`
	// Version is the runtime's version string ("17.0.15"); Major its
	// feature release (17).
	Version string `json:"version"`
	Major   int    `json:"major"`
}

var versionRE = regexp.MustCompile(`version "([0-9]+)(?:\.([0-9]+))?[^"]*"`)

// FindJDK locates javac and java with internal/jdk ($JAVA_HOME/bin, then
// PATH) and reads the runtime version. It
// returns an error wrapping errs.ErrUnavailable when either is missing.
func FindJDK(ctx context.Context) (JDK, error) {
	var j JDK
	var err error
	if j.Javac, err = jdkfind.Tool("javac"); err != nil {
		return JDK{}, fmt.Errorf("find JDK: %w", err)
	}
	if j.Java, err = jdkfind.Tool("java"); err != nil {
		return JDK{}, fmt.Errorf("find JDK: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, j.Java, "-version").CombinedOutput()
	if err != nil {
		return JDK{}, fmt.Errorf("find JDK: %w: %s -version: %v: %s", errs.ErrUnavailable, j.Java, err, bytes.TrimSpace(out))
	}
	m := versionRE.FindSubmatch(out)
	if m == nil {
		return JDK{}, fmt.Errorf("find JDK: %w: cannot read the version from %s -version output %q", errs.ErrUnavailable, j.Java, bytes.TrimSpace(out))
	}
	j.Major, _ = strconv.Atoi(string(m[1]))
	if j.Major == 1 && m[2] != nil { // "1.8.0_x"
		j.Major, _ = strconv.Atoi(string(m[2]))
	}
	if j.Major < 11 {
		return JDK{}, fmt.Errorf("find JDK: %w: %s is Java %d; JVM verification needs Java 11 or later", errs.ErrUnavailable, j.Java, j.Major)
	}
	j.Version = string(versionRE.Find(out))
	j.Version = j.Version[len(`version "`) : len(j.Version)-1]
	return j, nil
}

// securityManagerFlags returns the flags that let the worker install its
// System.exit trap: none on 11–16 (allowed by default), "allow" on 17–23,
// and none on 24+, where the Security Manager is gone and an exit kills the
// worker instead (recorded as "exited").
func (j JDK) securityManagerFlags() []string {
	if j.Major >= 17 && j.Major < 24 {
		return []string{"-Djava.security.manager=allow"}
	}
	return nil
}
