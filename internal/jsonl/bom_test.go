package jsonl

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReadFileBOM: a UTF-8 byte-order mark before the first record (as
// Windows editors write) is skipped, not a parse error.
func TestReadFileBOM(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bom.jsonl")
	if err := os.WriteFile(p, []byte("\xef\xbb\xbf{\"id\":\"a\"}\n{\"id\":\"b\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadFile[struct{ ID string }](p)
	if err != nil || len(recs) != 2 || recs[0].ID != "a" || recs[1].ID != "b" {
		t.Fatalf("ReadFile = %+v, %v; want records a and b", recs, err)
	}
}
