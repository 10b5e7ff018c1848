package runkey

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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

func TestCheckPassRefusesOtherSettings(t *testing.T) {
	recs := filepath.Join(t.TempDir(), "out", "judgements.jsonl")
	first := Settings{"judge": "openai:a", "max_tokens": 1024}
	if err := CheckPass(recs, "--out", first); err != nil {
		t.Fatal(err)
	}
	if err := CheckPass(recs, "--out", Settings{"judge": "openai:a", "max_tokens": 1024}); err != nil {
		t.Fatalf("same settings refused: %v", err)
	}
	err := CheckPass(recs, "--out", Settings{"judge": "openai:b", "max_tokens": 1024})
	if !errors.Is(err, errs.ErrUsage) || !strings.Contains(err.Error(), `judge: "openai:a" → "openai:b"`) || !strings.Contains(err.Error(), "another --out") {
		t.Fatalf("other settings: err = %v, want a usage error naming judge and the remedy", err)
	}
	st, err := os.Stat(PassFile(recs))
	if err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("settings file: %v %v", st, err)
	}
}
