package release

import (
	"errors"
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

// checkContains reports what when s lacks sub.
func checkContains(t testing.TB, what, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Errorf("%s lacks %q:\n%s", what, sub, s)
	}
}

// refused says whether err wraps target and its text says sub.
func refused(err, target error, sub string) bool {
	return errors.Is(err, target) && strings.Contains(err.Error(), sub)
}
