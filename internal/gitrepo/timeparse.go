package gitrepo

import (
	"fmt"
	"strings"
	"time"

	"github.com/benchforge/benchforge/internal/errs"
)

// ParseTime parses a cutoff date: "2023-04-01" (midnight UTC), "2023-04"
// (the first of the month, midnight UTC) or RFC 3339
// ("2023-04-01T12:00:00Z", "2023-04-01T12:00:00+02:00", fractional seconds
// allowed). Anything else is an error wrapping errs.ErrInput that lists the
// accepted forms.
func ParseTime(s string) (time.Time, error) {
	t := strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, time.DateOnly, "2006-01"} {
		if v, err := time.Parse(layout, t); err == nil {
			return v, nil
		}
	}
	return time.Time{}, fmt.Errorf("gitrepo.ParseTime: bad date %q: use 2023-04-01, 2023-04 or RFC 3339 (2023-04-01T00:00:00Z): %w", s, errs.ErrInput)
}
