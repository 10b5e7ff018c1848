package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestLoadBOM: a benchmark file starting with a UTF-8 byte-order mark is
// detected and loaded like one without.
func TestLoadBOM(t *testing.T) {
	p := filepath.Join(t.TempDir(), "bench.jsonl")
	rec := `{"id":"g-1","benchmark":"b","repo":"o/r","language":"java","base_commit":"abc","patch":"p"}` + "\n"
	if err := os.WriteFile(p, []byte("\xef\xbb\xbf"+rec), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Detect(p)
	if err != nil || f != FormatJSONL {
		t.Fatalf("Detect = %q, %v; want %q", f, err, FormatJSONL)
	}
	samples, _, err := Load(context.Background(), p, FormatAuto, LoadOptions{})
	if err != nil || len(samples) != 1 || samples[0].ID != "g-1" {
		t.Fatalf("Load = %+v, %v; want sample g-1", samples, err)
	}
}
