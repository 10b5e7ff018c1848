// Package runkey names what decided a finished record, so that a resumed
// run reuses a record only when every setting that decided it is the same
// (sample, cutoff, threshold, ablation switches, models, test options and
// the version of the decision logic), and says which setting differs when
// it is not.
package runkey

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/benchforge/benchforge/internal/errs"
)

// Settings are the named values that decided a record. Values must
// marshal to JSON; map keys are sorted, so the same settings always give
// the same hash.
type Settings map[string]any

// Hash is a short, stable digest of s (16 hex digits).
func (s Settings) Hash() string {
	var b []byte
	for _, k := range s.names() {
		b = append(b, k...)
		b = append(b, '=')
		b = append(b, show(s, k)...)
		b = append(b, 0)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// ID is the record id of item under s: "ITEM@HASH".
func (s Settings) ID(item string) string { return item + "@" + s.Hash() }

// Diff names the settings whose values differ between old and s, sorted,
// as "name: old → new" (a setting missing on one side shows as <none>).
func (s Settings) Diff(old Settings) []string {
	names := map[string]bool{}
	for k := range s {
		names[k] = true
	}
	for k := range old {
		names[k] = true
	}
	var out []string
	for k := range names {
		a, b := show(old, k), show(s, k)
		if a != b {
			out = append(out, fmt.Sprintf("%s: %s → %s", k, a, b))
		}
	}
	sort.Strings(out)
	return out
}

func (s Settings) names() []string {
	out := make([]string, 0, len(s))
	for k := range s {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// show is v's JSON, or its %v form for a value JSON cannot encode, so
// hashing never fails.
func show(s Settings, k string) string {
	v, ok := s[k]
	if !ok {
		return "<none>"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

// Recheck says which finished records a resumed run redoes.
type Recheck string

const (
	// RecheckAuto redoes only records whose cause may be gone (unknown
	// verdicts: a missing clone or commit, a failed service).
	RecheckAuto Recheck = ""
	// RecheckUnknown is RecheckAuto, named on the command line.
	RecheckUnknown Recheck = "unknown"
	// RecheckAll redoes every record.
	RecheckAll Recheck = "all"
)

// ParseRecheck reads a --recheck value.
func ParseRecheck(v string) (Recheck, error) {
	switch r := Recheck(strings.TrimSpace(v)); r {
	case RecheckAuto, RecheckUnknown, RecheckAll:
		return r, nil
	}
	return "", fmt.Errorf("--recheck %q: want unknown or all: %w", v, errs.ErrUsage)
}
