package evaluate

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// must stops the test at once on an error.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// checkEq reports what when got differs from want.
func checkEq[T comparable](t testing.TB, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

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

// checkErrIs reports what when err does not wrap target.
func checkErrIs(t testing.TB, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: err %v, want %v", what, err, target)
	}
}

// checkErrSays reports what when err is nil or its text lacks sub.
func checkErrSays(t testing.TB, what string, err error, sub string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), sub) {
		t.Errorf("%s: err %v, want one saying %q", what, err, sub)
	}
}
