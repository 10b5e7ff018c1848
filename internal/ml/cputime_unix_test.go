//go:build unix

package ml

import (
	"syscall"
	"time"
)

// processCPU returns the process's user+system CPU time, so benchmarks can
// report CPU cost separately from wall time on a loaded machine.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
