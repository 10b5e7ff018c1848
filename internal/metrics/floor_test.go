package metrics

import (
	"slices"
	"syscall"
	"testing"

	ts "github.com/tree-sitter/go-tree-sitter"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"

	"github.com/benchforge/benchforge/internal/code"
	"github.com/benchforge/benchforge/internal/testcheck"
)

// BenchmarkMetricsFloor compares the metrics of every method of java.base
// sources (code.Parse, then OfFile) with their floor, a bare tree-sitter
// parse of the same files through go-tree-sitter, interleaved round by
// round, in process CPU time so other jobs on the machine do not count
// (issue 19: keep it near 1.15–1.44×). x-floor is the median ratio of
// five rounds.
func BenchmarkMetricsFloor(b *testing.B) {
	srcs := jdkSources(b, jdkSourceBudget/4)
	p := ts.NewParser()
	defer p.Close()
	testcheck.Must(b, p.SetLanguage(ts.NewLanguage(tsjava.Language())))
	floor := func() {
		for _, s := range srcs {
			p.Parse(s, nil).Close()
		}
	}
	full := func() {
		for _, s := range srcs {
			f, err := code.Parse(code.LangJava, "jdk.java", s)
			testcheck.Must(b, err)
			OfFile(f)
			f.Close()
		}
	}
	for b.Loop() {
		var ratios []float64
		for range 5 {
			t0 := cpuNow()
			floor()
			t1 := cpuNow()
			full()
			ratios = append(ratios, (cpuNow()-t1)/(t1-t0))
		}
		slices.Sort(ratios)
		b.ReportMetric(ratios[2], "x-floor")
		b.ReportMetric(ratios[0], "x-floor-min")
		b.ReportMetric(ratios[4], "x-floor-max")
	}
}

// cpuNow is the process's user+system CPU time in seconds.
func cpuNow() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
