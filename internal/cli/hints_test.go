package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/benchforge/benchforge/internal/audit/repos"
	"github.com/benchforge/benchforge/internal/errs"
)

// TestOptionFlagsExist: every option a library hint can name is spelled
// as a flag some command has.
func TestOptionFlagsExist(t *testing.T) {
	have := map[string]bool{}
	for _, f := range allFlags(newRoot(&app{stdout: io.Discard, stderr: io.Discard}, Commands())) {
		have["--"+f.name] = true
	}
	for _, o := range errs.Options {
		f, ok := optionFlags[o]
		if !ok || !have[f] {
			t.Errorf("option %s: flag %q (listed %v) is no command's flag", o, f, ok)
		}
	}
}

// TestHintsRenderedWithCLIFlags: a hint deep in the chain is rendered with
// the CLI's names, whatever the library's default spelling, and keeps its
// sentinels.
func TestHintsRenderedWithCLIFlags(t *testing.T) {
	old := optionFlags[errs.OptRepos]
	optionFlags[errs.OptRepos] = "--clones"
	defer func() { optionFlags[errs.OptRepos] = old }()
	err := fmt.Errorf("audit patch: %w", errs.Hint(repos.ErrNoClone, errs.ErrNotFound, "no local clone for o/x: pass {repos} DIR or {clone}"))
	if got, want := hintsInFlags(err, err.Error()), "audit patch: no local clone for o/x: pass --clones DIR or --clone: not found"; got != want {
		t.Errorf("rendered %q, want %q", got, want)
	}
	if !errors.Is(err, repos.ErrNoClone) || !errors.Is(err, errs.ErrNotFound) {
		t.Errorf("%v lost its sentinels", err)
	}
	joined := errors.Join(errors.New("first"), errs.Hint(nil, errs.ErrInput, "pass {format} explicitly"))
	if got := hintsInFlags(joined, joined.Error()); got != "first\npass --format explicitly: invalid input" {
		t.Errorf("joined: %q", got)
	}
}

// TestBenchmarkHintNamesTheFlag: bench.Load's hint reaches the user as
// this command's --strict.
func TestBenchmarkHintNamesTheFlag(t *testing.T) {
	dir := t.TempDir()
	b := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(b, []byte("{\"id\":\"a\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "audit", "patch", "--benchmark", b, "--format", "jsonl", "--strict", "--cutoff", "2023-01-01",
		"--out", filepath.Join(dir, "v.jsonl"))
	if code != exitInput || !strings.Contains(stderr, "load without --strict to skip it") {
		t.Errorf("exit %d, stderr %q; want %d and the --strict hint", code, stderr, exitInput)
	}
}
