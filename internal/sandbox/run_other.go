//go:build !linux

package sandbox

import (
	"context"
	"fmt"
	"os"

	"github.com/benchforge/benchforge/internal/errs"
)

// Run is only implemented on Linux: process groups, rlimits set before
// exec and network namespaces are what make a command safe to run.
func Run(ctx context.Context, spec Spec) (Result, error) {
	return Result{}, fmt.Errorf("sandbox.Run: untrusted commands run only on Linux: %w", errs.ErrUnsupported)
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
