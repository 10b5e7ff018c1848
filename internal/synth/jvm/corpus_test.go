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
		must(t, p.Validate())
		must(t, enc.Encode(p))
	}
	golden.Check(t, "testdata/pairs.jsonl", b.Bytes())
}
