package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestIndexBuildMergeImportLookup(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, filepath.Join(dir, "a"), map[string]string{"r1/X.java": "class Foo { int bar; }", "r2/y.py": "def bar(): pass"})
	writeFiles(t, filepath.Join(dir, "b"), map[string]string{"r3/z.go": "func bar() { baz }"})
	sa, sb, m := filepath.Join(dir, "a.idx"), filepath.Join(dir, "b.idx"), filepath.Join(dir, "m.idx")

	out, stderr, code := run(t, "index", "build", "--corpus", filepath.Join(dir, "a"), "--out", sa, "--json")
	if code != 0 {
		t.Fatalf("build: exit %d: %s", code, stderr)
	}
	var sum indexSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil || sum.Repos != 2 || sum.Words == 0 || sum.SizeBytes == 0 {
		t.Fatalf("build summary %q: %+v %v", out, sum, err)
	}
	if _, stderr, code := run(t, "index", "build", "--corpus", filepath.Join(dir, "b"), "--out", sb); code != 0 {
		t.Fatalf("build b: exit %d: %s", code, stderr)
	}
	if out, stderr, code := run(t, "index", "merge", "--out", m, sa, sb); code != 0 || !strings.Contains(out, "3 repositories") {
		t.Fatalf("merge: exit %d: %s %s", code, out, stderr)
	}
	// Overlapping shards are refused with an input error.
	if _, stderr, code := run(t, "index", "merge", "--out", filepath.Join(dir, "x.idx"), sa, sa); code != exitInput || !strings.Contains(stderr, "r1") {
		t.Errorf("overlapping merge: exit %d: %s", code, stderr)
	}

	out, stderr, code = run(t, "index", "lookup", "--index", m, "bar", "Foo", "absent", "--json")
	if code != 0 {
		t.Fatalf("lookup: exit %d: %s", code, stderr)
	}
	var got struct {
		Repos int         `json:"repos"`
		Words []lookupRow `json:"words"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Repos != 3 || got.Words[0].RepoFreq != 3 || got.Words[1].RepoFreq != 1 || got.Words[2].RepoFreq != 0 {
		t.Errorf("lookup = %+v", got)
	}
	out, _, code = run(t, "index", "lookup", "--index", m, "bar")
	if code != 0 || !strings.Contains(out, "bar   3      1.0000") {
		t.Errorf("lookup text: exit %d:\n%s", code, out)
	}

	csv := filepath.Join(dir, "w.csv")
	os.WriteFile(csv, []byte("word,count\nbar,40\nrare,1\n"), 0o644)
	imp := filepath.Join(dir, "imp.idx")
	if out, stderr, code := run(t, "index", "import", "--csv", csv, "--repo-count", "100", "--out", imp); code != 0 || !strings.Contains(out, "100 repositories (100 anonymous)") {
		t.Fatalf("import: exit %d: %s %s", code, out, stderr)
	}
	out, _, _ = run(t, "index", "lookup", "--index", imp, "rare", "bar")
	if !strings.Contains(out, "rare  1") || !strings.Contains(out, "bar   40") {
		t.Errorf("lookup imported:\n%s", out)
	}
}

func TestIndexErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.idx")
	os.WriteFile(bad, []byte("BFREFIDX garbage"), 0o644)
	badCSV := filepath.Join(dir, "bad.csv")
	os.WriteFile(badCSV, []byte("foo,1\n1x,2\n"), 0o644)
	for _, tt := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"index", "build"}, exitUsage, "--out"},
		{[]string{"index", "build", "--corpus", filepath.Join(dir, "nope"), "--out", filepath.Join(dir, "o.idx")}, exitNotFound, "nope"},
		{[]string{"index", "lookup", "--index", bad, "x"}, exitInput, bad},
		{[]string{"index", "lookup", "--index", filepath.Join(dir, "none.idx"), "x"}, exitNotFound, "none.idx"},
		{[]string{"index", "lookup", "x"}, exitUsage, "--index"},
		{[]string{"index", "lookup", "--index", bad}, exitUsage, "arg"},
		{[]string{"index", "import", "--csv", badCSV, "--out", filepath.Join(dir, "o.idx")}, exitInput, "bad.csv:2"},
		{[]string{"index", "merge", "--out", filepath.Join(dir, "o.idx"), bad}, exitInput, bad},
	} {
		_, stderr, code := run(t, tt.args...)
		if code != tt.code || !strings.Contains(stderr, tt.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d mentioning %q", tt.args, code, stderr, tt.code, tt.msg)
		}
	}
}
