// Package testcheck owns the small checks the tests share (an error that
// must not happen, an equal value, a substring, a wrapped sentinel), so
// each test reads as setup, action and checks without copying them.
package testcheck

import (
	"errors"
	"strings"
	"testing"
)

// Must stops the test at once on an error.
func Must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Eq reports what when got differs from want.
func Eq[T comparable](t testing.TB, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// Contains reports what when s lacks sub.
func Contains(t testing.TB, what, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Errorf("%s = %q, want it to contain %q", what, s, sub)
	}
}

// Prefix reports what when s does not start with prefix.
func Prefix(t testing.TB, what, s, prefix string) {
	t.Helper()
	if !strings.HasPrefix(s, prefix) {
		t.Errorf("%s = %q, want it to start with %q", what, s, prefix)
	}
}

// ErrIs reports what when err does not wrap target.
func ErrIs(t testing.TB, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: err %v, want %v", what, err, target)
	}
}

// ErrSays reports what when err is nil or does not mention sub.
func ErrSays(t testing.TB, what string, err error, sub string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), sub) {
		t.Errorf("%s: err %v, want one saying %q", what, err, sub)
	}
}
