package anthropic_test

import (
	"errors"
	"strings"
)

// mentions reports whether err is non-nil and its message contains every
// one of subs.
func mentions(err error, subs ...string) bool {
	if err == nil {
		return false
	}
	for _, s := range subs {
		if !strings.Contains(err.Error(), s) {
			return false
		}
	}
	return true
}

// isErr reports whether err wraps sentinel and mentions every one of subs.
func isErr(err, sentinel error, subs ...string) bool {
	return errors.Is(err, sentinel) && mentions(err, subs...)
}
