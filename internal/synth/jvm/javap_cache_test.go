package jvm

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/benchforge/benchforge/internal/testcheck"
)

// TestJavapCached: javap's output on a class directory is kept beside it
// and read back on the next build; a class compiled again (another size
// and time) is read with javap again, so its new API is seen.
func TestJavapCached(t *testing.T) {
	opts := needJDK(t)
	jdk := *opts.JDK
	root := t.TempDir()
	classes := filepath.Join(root, "classes")
	compile := func(body string) {
		src := filepath.Join(root, "src", "org", "c", "Box.java")
		testcheck.Must(t, os.MkdirAll(filepath.Dir(src), 0o755))
		testcheck.Must(t, os.WriteFile(src, []byte("package org.c;\npublic class Box {\n"+body+"}\n"), 0o644))
		if out, err := exec.Command(jdk.Javac, "-d", classes, src).CombinedOutput(); err != nil {
			t.Fatalf("javac: %v\n%s", err, out)
		}
	}
	read := func() *typeInfo {
		out := map[string]*typeInfo{}
		testcheck.Must(t, javapAPI(context.Background(), jdk, classes, []string{"org.c.Box"}, out))
		return out["Box"]
	}
	compile("    public Box(int n) { }\n")
	first := read()
	kept, err := filepath.Glob(filepath.Join(root, "javap", "*.txt"))
	testcheck.Must(t, err)
	if len(kept) != 1 || first == nil || len(first.Ctors) != 1 {
		t.Fatalf("first read: %+v, kept %v; want one constructor and one kept output", first, kept)
	}
	// The kept output is what the second read parses: mark it, and the
	// mark shows.
	text, err := os.ReadFile(kept[0])
	testcheck.Must(t, err)
	testcheck.Must(t, os.WriteFile(kept[0], []byte(strings.Replace(string(text), "Box(int)", "Box(long)", 1)), 0o644))
	if again := read(); again == nil || len(again.Ctors) != 1 || again.Ctors[0][0] != "long" {
		t.Fatalf("second read: %+v; want the kept output's Box(long)", again)
	}
	time.Sleep(10 * time.Millisecond) // a later modification time
	compile("    public Box(int n) { }\n    public Box(String s, int n) { }\n")
	if rebuilt := read(); rebuilt == nil || len(rebuilt.Ctors) != 2 || rebuilt.Ctors[0][0] != "int" {
		t.Fatalf("after the class was compiled again: %+v; want javap's two constructors", rebuilt)
	}
}
