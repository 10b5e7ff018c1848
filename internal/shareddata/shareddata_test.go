package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

func TestEnvOverride(t *testing.T) {
	d := t.TempDir()
	os.MkdirAll(filepath.Join(d, "defects4j"), 0o755)
	t.Setenv("BENCHFORGE_SHARED_DATA", d)
	if got := Path("defects4j"); got != filepath.Join(d, "defects4j") {
		t.Errorf("Path = %q", got)
	}
	if got := Path("nope"); got != "" {
		t.Errorf("missing path = %q, want empty", got)
	}
	t.Setenv("BENCHFORGE_SHARED_DATA", filepath.Join(d, "absent"))
	if got := Dir(); got != "" {
		t.Errorf("absent override = %q, want empty", got)
	}
}
