package cli

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/benchforge/benchforge/internal/gitrepo"
)

// parseCutoffs reads --cutoff: one date or several, comma-separated,
// returned sorted and without repeats.
func parseCutoffs(v string) ([]time.Time, error) {
	seen := map[int64]bool{}
	var out []time.Time
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		t, err := gitrepo.ParseTime(f)
		if err != nil {
			return nil, fmt.Errorf("--cutoff %q: %w", f, err)
		}
		if !seen[t.UnixNano()] {
			seen[t.UnixNano()] = true
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--cutoff %q names no date", v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Before(out[j]) })
	return out, nil
}

func joinCutoffs(cs []time.Time) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = c.UTC().Format(time.RFC3339)
	}
	return strings.Join(s, ",")
}
