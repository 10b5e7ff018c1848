package runkey

import (
	"errors"
	"reflect"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
)

func TestHashStableAndSensitive(t *testing.T) {
	a := Settings{"cutoff": "2023-09-01", "threshold": 0.7, "no_tests": false}
	b := Settings{"no_tests": false, "threshold": 0.7, "cutoff": "2023-09-01"}
	if a.Hash() != b.Hash() {
		t.Fatalf("same settings, different hash: %s %s", a.Hash(), b.Hash())
	}
	if len(a.Hash()) != 16 {
		t.Fatalf("hash %q: want 16 hex digits", a.Hash())
	}
	c := Settings{"cutoff": "2021-01-01", "threshold": 0.7, "no_tests": false}
	if a.Hash() == c.Hash() {
		t.Fatal("a different cutoff gave the same hash")
	}
	if got := a.ID("Lang-1"); got != "Lang-1@"+a.Hash() {
		t.Fatalf("ID = %q", got)
	}
	if (Settings{"f": func() {}}).Hash() == "" {
		t.Fatal("a value JSON cannot encode must still hash")
	}
}

func TestDiffNamesTheSetting(t *testing.T) {
	old := Settings{"cutoff": "2023-09-01", "threshold": 0.7, "gone": 1}
	now := Settings{"cutoff": "2021-01-01", "threshold": 0.7, "new": true}
	want := []string{
		`cutoff: "2023-09-01" → "2021-01-01"`,
		"gone: 1 → <none>",
		"new: <none> → true",
	}
	if got := now.Diff(old); !reflect.DeepEqual(got, want) {
		t.Fatalf("Diff = %q, want %q", got, want)
	}
	if d := now.Diff(now); len(d) != 0 {
		t.Fatalf("Diff with itself = %q", d)
	}
}

func TestParseRecheck(t *testing.T) {
	for in, want := range map[string]Recheck{"": RecheckAuto, "unknown": RecheckUnknown, "all": RecheckAll} {
		got, err := ParseRecheck(in)
		if err != nil || got != want {
			t.Fatalf("ParseRecheck(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseRecheck("some"); !errors.Is(err, errs.ErrUsage) {
		t.Fatalf("ParseRecheck(some) err = %v, want a usage error", err)
	}
}
