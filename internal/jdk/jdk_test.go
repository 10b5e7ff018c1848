package jdk

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/benchforge/benchforge/internal/errs"
)

func TestSrcZipFromJavaHome(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "lib"), 0o755)
	// A dangling link must be skipped, a real file found.
	os.Symlink(filepath.Join(home, "missing.zip"), filepath.Join(home, "lib", "src.zip"))
	os.WriteFile(filepath.Join(home, "src.zip"), []byte("PK"), 0o644)
	t.Setenv("JAVA_HOME", home)
	got, err := SrcZip()
	if err != nil {
		t.Fatal(err)
	}
	if got != filepath.Join(home, "src.zip") {
		t.Errorf("SrcZip = %s", got)
	}
}

func TestToolMissing(t *testing.T) {
	t.Setenv("JAVA_HOME", t.TempDir())
	t.Setenv("PATH", t.TempDir())
	if _, err := Tool("javac"); !errors.Is(err, errs.ErrUnavailable) {
		t.Errorf("missing javac: %v", err)
	}
}
