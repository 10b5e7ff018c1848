package evaluate

import (
	"fmt"
	"math"
	"testing"
)

func near(a *float64, b float64) bool { return a != nil && math.Abs(*a-b) < 1e-12 }

// checkNear reports what when got is unset or not within 1e-12 of want.
func checkNear(t testing.TB, what string, got *float64, want float64) {
	t.Helper()
	if !near(got, want) {
		t.Errorf("%s = %s, want %v", what, showFloat(got), want)
	}
}

func showFloat(p *float64) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprint(*p)
}
