package release

import (
	"errors"
	"strings"
)

// refused says whether err wraps target and its text says sub.
func refused(err, target error, sub string) bool {
	return errors.Is(err, target) && strings.Contains(err.Error(), sub)
}
