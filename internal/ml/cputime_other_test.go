//go:build !unix

package ml

import "time"

func processCPU() time.Duration { return 0 }
