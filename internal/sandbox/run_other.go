//go:build !linux

package sandbox

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/benchforge/benchforge/internal/errs"
)

// Run is only implemented on Linux: process groups, rlimits set before
// exec and namespaces are what make a command safe to run.
func Run(ctx context.Context, spec Spec) (Result, error) {
	return Result{}, fmt.Errorf("sandbox: untrusted commands run only on Linux: %w", errs.ErrUnsupported)
}

// Process is a long-lived sandboxed command; see the Linux implementation.
type Process struct {
	Stdin io.WriteCloser
	Reply io.Reader
}

// Start is only implemented on Linux, like Run.
func Start(ctx context.Context, spec Spec) (*Process, error) {
	return nil, fmt.Errorf("sandbox: untrusted commands run only on Linux: %w", errs.ErrUnsupported)
}

// Isolation reports what the sandbox enforced.
func (p *Process) Isolation() Result { return Result{} }

// Done is closed when the command has ended.
func (p *Process) Done() <-chan struct{} { c := make(chan struct{}); close(c); return c }

// Kill kills the command.
func (p *Process) Kill() Result { return Result{} }

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
