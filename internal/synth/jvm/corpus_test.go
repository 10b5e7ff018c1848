package jvm

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/benchforge/benchforge/internal/golden"
)

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
	golden.Check(t, "testdata/pairs.jsonl", b.Bytes())
}
