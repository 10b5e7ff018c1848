package jvm

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/pairs.jsonl from testdata/pairs.txt")

// TestHandwrittenCorpusInSync keeps testdata/pairs.jsonl, the hand-written
// pairs as a corpus the CLI reads (synth verify --corpus, synth validate
// --candidates), equal to testdata/pairs.txt, which the tests read with
// their expectations.
func TestHandwrittenCorpusInSync(t *testing.T) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, tp := range readPairs(t, "testdata/pairs.txt") {
		p := tp.pair
		p.ExampleBugIDs = []string{}
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		if err := enc.Encode(p); err != nil {
			t.Fatal(err)
		}
	}
	const path = "testdata/pairs.jsonl"
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/synth/jvm -run HandwrittenCorpus -update)", err)
	}
	if d := cmp.Diff(b.String(), string(got)); d != "" {
		t.Errorf("%s is stale; rerun with -update (-want +got):\n%s", path, d)
	}
}
